"""Several reviewers in the real browser (Chromium through Selenium, as tests/test_review_browser.py):
a decision refused because another reviewer decided the message shows their decision instead of
overwriting it; a message another reviewer holds says so; the lead's Adjudicate view resolves a
disagreement. Another reviewer acts through the workspace, as their own server would."""

import os
import time
from pathlib import Path

import pytest
from test_review_browser import CHROMEDRIVER, CHROMIUM, ready  # noqa: F401  (the skip rules)
from test_review_browser import browser  # noqa: F401  (a fixture)
from test_review_team import write_corpus

from triage.review_workspace import Workspace, open_synced
from triage.review_workspace.server import BackgroundServer

pytestmark = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason="no Chromium and chromedriver here")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

SHOTS = Path(os.environ.get("TRIAGE_SHOTS", "/tmp/shots-team"))


def Server(workspace_path: Path, reviewer: str, *, lead: bool = False, lease: float = 300.0) -> BackgroundServer:
    """The review server in a thread, as `reviewer` (the lead reviewer with `lead`)."""
    return BackgroundServer(workspace_path, token=f"{reviewer}-token", reviewer=reviewer, lead=lead, lease_seconds=lease)


@pytest.fixture
def team_workspace(tmp_path):
    classified = write_corpus(tmp_path / "team.csv")
    path = tmp_path / "team.review.sqlite"
    opened, _ = open_synced(classified, path, audit=0)
    opened.close()
    return path


def shoot(browser, name, folder: Path = SHOTS):
    """The page at 1400 and 800 px wide, into `folder`, to look at."""
    folder.mkdir(parents=True, exist_ok=True)
    for width in (1400, 800):
        browser.set_window_size(width, 900)
        time.sleep(0.2)
        browser.save_screenshot(str(folder / f"{name}-{width}.png"))
    browser.set_window_size(1400, 900)


def test_a_decision_another_reviewer_made_meanwhile_is_shown_not_overwritten(browser, team_workspace):
    server = Server(team_workspace, "ana")
    try:
        browser.get(server.address)
        ready(browser)
        shown = browser.find_element(By.ID, "message").get_attribute("data-message-id")
        with Workspace.open(team_workspace) as bob:
            assert bob.lease_of(shown)["reviewer"] == "ana"  # the page's message is ana's
            bob._db.execute("DELETE FROM leases")  # her lease ran out (her computer slept): bob may decide it
            text = bob.item(shown).text
            start = text.index("Margaux")
            bob.decide(shown, label="TA", spans=[[start, start + 7, "NOM"]], reviewer="bob")
        browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ENTER)  # ana accepts what she saw
        box = browser.find_element(By.ID, "conflict")
        WebDriverWait(browser, 10).until(lambda d: box.is_displayed())
        assert "bob" in box.text and "TA" in box.text and "NOM Margaux" in box.text
        assert "Message" in box.text and "nothing was saved" in box.text
        assert browser.find_element(By.ID, "message").get_attribute("data-message-id") == shown
        assert "by bob" in browser.find_element(By.ID, "status").text  # the message as it now is
        shoot(browser, "conflict")
    finally:
        server.stop()
    with Workspace.open(team_workspace) as ws:
        item = ws.item(shown)
        assert item.reviewer == "bob" and item.spans == [[start, start + 7, "NOM"]]
        assert [e["reviewer"] for e in ws.history(shown) if e["action"] == "decide"] == ["bob"]


def test_a_message_another_reviewer_holds_says_so(browser, team_workspace):
    with Workspace.open(team_workspace) as bob:
        held = bob.claim("bob")  # bob's page shows the first message
    server = Server(team_workspace, "ana")
    try:
        browser.get(server.address)
        ready(browser)
        assert browser.find_element(By.ID, "message").get_attribute("data-message-id") != held.id
        browser.find_element(By.CSS_SELECTOR, f'#item-list li[data-message-id="{held.id}"]').click()
        note = browser.find_element(By.ID, "team-note")
        WebDriverWait(browser, 10).until(lambda d: note.is_displayed() and "bob" in note.text)
        assert "bob is reviewing this message now" in note.text
        shoot(browser, "held")
        assert not browser.find_elements(By.CSS_SELECTOR, '.tab[data-view="adjudicate"]')  # not the lead
    finally:
        server.stop()


def test_the_lead_keeps_one_of_two_decisions_in_the_adjudicate_view(browser, team_workspace):
    with Workspace.open(team_workspace) as ws:
        ws.mark_double(0.1)
        (ident,) = ws.double_ids()
        word = ws.item(ident).text.split()[0]
        ws.decide(ident, label="TA", spans=[[0, len(word), "PRE"]], reviewer="ana")
        ws.decide(ident, label="NTA", spans=[], reviewer="bob")
        assert ws.item(ident).status == "disputed"
    server = Server(team_workspace, "lea", lead=True)
    try:
        browser.get(server.address)
        ready(browser)
        tab = browser.find_element(By.CSS_SELECTOR, '.tab[data-view="adjudicate"]')
        assert tab.is_displayed()
        tab.click()
        WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#dispute-list .side"))
        assert not browser.find_element(By.ID, "view-messages").is_displayed()
        sides = browser.find_elements(By.CSS_SELECTOR, f'#dispute-list li[data-message-id="{ident}"] .side')
        assert [s.find_element(By.TAG_NAME, "h3").text for s in sides] == ["ana: TA", "bob: NTA"]
        assert sides[0].find_element(By.CSS_SELECTOR, ".hidden-item").get_attribute("textContent") == "PRE" + word
        shoot(browser, "adjudicate")
        browser.find_element(By.TAG_NAME, "body").send_keys("1")  # keep ana's
        WebDriverWait(browser, 10).until(lambda d: "No disagreement left" in d.find_element(By.ID, "dispute-list").text)
        assert "ana's decision kept" in browser.find_element(By.ID, "adjudicate-status").text
    finally:
        server.stop()
    with Workspace.open(team_workspace) as ws:
        item = ws.item(ident)
        assert (item.status, item.label, item.spans, item.reviewer) == ("decided", "TA", [[0, len(word), "PRE"]], "lea")


def test_when_the_rest_is_with_other_reviewers_the_page_says_so(browser, team_workspace):
    with Workspace.open(team_workspace) as ws:
        ids = [item.id for item in ws.items(limit=10)]
        for ident in ids[:-1]:
            ws.decide(ident, label="NTA", spans=[], reviewer="bob")
        assert ws.claim("bob").id == ids[-1]  # the last one is on bob's page
    server = Server(team_workspace, "ana")
    try:
        browser.get(server.address)
        ready(browser)
        done = browser.find_element(By.CSS_SELECTOR, "#message .done").text
        assert done == ("Nothing left for you: 1 is with other reviewers (being reviewed, or waiting for the second "
                        "reviewer of a double review).")
    finally:
        server.stop()


def test_the_page_renews_the_lease_of_the_message_it_shows(browser, team_workspace):
    server = Server(team_workspace, "ana", lease=1.5)  # renewed every half second
    try:
        browser.get(server.address)
        ready(browser)
        shown = browser.find_element(By.ID, "message").get_attribute("data-message-id")
        time.sleep(3)  # twice the lease
        with Workspace.open(team_workspace) as bob:
            assert bob.lease_of(shown, besides="bob")["reviewer"] == "ana"
            assert bob.claim("bob").id != shown
    finally:
        server.stop()


def test_the_lead_edits_a_disagreement_in_the_messages_view(browser, team_workspace):
    with Workspace.open(team_workspace) as ws:
        ws.mark_double(0.1)
        (ident,) = ws.double_ids()
        words = ws.item(ident).text.split()
        second = ws.item(ident).text.index(words[1])
        ws.decide(ident, label="TA", spans=[[0, len(words[0]), "PRE"]], reviewer="ana")
        ws.decide(ident, label="TA", spans=[[second, second + len(words[1]), "NOM"]], reviewer="bob")
    server = Server(team_workspace, "lea", lead=True)
    try:
        browser.get(server.address)
        ready(browser)
        browser.find_element(By.CSS_SELECTOR, '.tab[data-view="adjudicate"]').click()
        WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#dispute-list .side"))
        browser.find_element(By.TAG_NAME, "body").send_keys("e")
        WebDriverWait(browser, 10).until(
            lambda d: d.find_element(By.ID, "message").get_attribute("data-message-id") == ident
            and len(d.find_elements(By.CSS_SELECTOR, "#message .hidden-item")) == 2)  # what either hid
        assert browser.find_element(By.CSS_SELECTOR, f'#item-list li[data-message-id="{ident}"] .state.disputed')
        assert "disagree" in browser.find_element(By.ID, "team-note").text
        shoot(browser, "edit-disagreement")
        chips = browser.find_elements(By.CSS_SELECTOR, "#message .hidden-item")
        chips[1].click()  # the lead shows bob's word again
        browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ENTER)
        WebDriverWait(browser, 10).until(
            lambda d: d.find_element(By.ID, "message").get_attribute("data-message-id") != ident
            or d.find_elements(By.CSS_SELECTOR, ".done"))
    finally:
        server.stop()
    with Workspace.open(team_workspace) as ws:
        item = ws.item(ident)
        assert (item.status, item.label, item.spans, item.reviewer) == ("decided", "TA", [[0, len(words[0]), "PRE"]], "lea")
        assert ws.agreement()["disagreements"] == {"unresolved": 0, "resolved": 1}
