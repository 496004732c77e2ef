"""Double review in the real browser (Chromium through Selenium, as tests/test_review_team_browser.py):
the lead's Adjudicate view shows the two decisions in the reviewers' name order, with the words each
hid and what they differ on marked; the list's filter finds the messages waiting for their second
reviewer; a second reviewer's page opens on a message another reviewer decided blind."""

import os
from pathlib import Path

import pytest
from test_review_browser import CHROMEDRIVER, CHROMIUM, ready  # noqa: F401  (the skip rules)
from test_review_browser import browser  # noqa: F401  (a fixture)
from test_review_team_browser import Server, shoot, team_workspace  # noqa: F401  (a fixture)

from triage.review_workspace import Workspace

pytestmark = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason="no Chromium and chromedriver here")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

SHOTS = Path(os.environ.get("TRIAGE_SHOTS", "/tmp/shots-double"))


def two_disagreements(path):
    """Two double messages decided blind by zoe first, then bob: one on what to hide (zoe hides one
    word more, as a surname), one on the label."""
    with Workspace.open(path) as ws:
        ws.mark_double(0.2)
        spans_at, label_at = sorted(ws.double_ids(), key=lambda i: ws.item(i).rank)
        text = ws.item(spans_at).text
        words = text.split()
        third = text.index(words[2])
        first = [0, len(words[0]), "PRE"]
        ws.decide(spans_at, label="TA", spans=[first, [third, third + len(words[2]), "NOM"]], reviewer="zoe")
        ws.decide(spans_at, label="TA", spans=[first], reviewer="bob")
        other = ws.item(label_at).text.split()[0]
        ws.decide(label_at, label="TA", spans=[[0, len(other), "PRE"]], reviewer="zoe")
        ws.decide(label_at, label="NTA", spans=[], reviewer="bob")
        assert ws.item(spans_at).status == ws.item(label_at).status == "disputed"
    return spans_at, label_at, words, other


def test_the_adjudicate_view_shows_both_versions_in_name_order_with_the_words_and_the_differences(browser, team_workspace):
    spans_at, label_at, words, other = two_disagreements(team_workspace)
    server = Server(team_workspace, "lea", lead=True)
    try:
        browser.get(server.address)
        ready(browser)
        browser.find_element(By.CSS_SELECTOR, '.tab[data-view="adjudicate"]').click()
        WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#dispute-list .side"))
        item = browser.find_element(By.CSS_SELECTOR, f'#dispute-list li[data-message-id="{spans_at}"]')
        bob, zoe = item.find_elements(By.CSS_SELECTOR, ".side")
        # bob before zoe, although zoe decided first
        assert [s.find_element(By.TAG_NAME, "h3").text for s in (bob, zoe)] == ["bob: TA", "zoe: TA"]
        # the words hidden are shown, not on hover only
        originals = zoe.find_elements(By.CSS_SELECTOR, ".hidden-item .original")
        assert [o.text for o in originals] == [words[0], words[2]] and all(o.is_displayed() for o in originals)
        # the difference: zoe's surname chip, and the same word readable on bob's side
        chips = zoe.find_elements(By.CSS_SELECTOR, ".hidden-item")
        assert ["differs" in c.get_attribute("class") for c in chips] == [False, True]
        assert [m.text for m in bob.find_elements(By.CSS_SELECTOR, "mark.differs.readable")] == [words[2]]
        assert not bob.find_elements(By.CSS_SELECTOR, ".hidden-item.differs")
        assert not bob.find_elements(By.CSS_SELECTOR, ".label.differs")  # both TA
        assert item.find_element(By.CSS_SELECTOR, ".differences").text == f"Differences: “{words[2]}” NOM by zoe only"
        # the label differs on the other message, and zoe's chip is hers only
        labelled = browser.find_element(By.CSS_SELECTOR, f'#dispute-list li[data-message-id="{label_at}"]')
        assert len(labelled.find_elements(By.CSS_SELECTOR, ".label.differs")) == 2
        assert labelled.find_element(By.CSS_SELECTOR, ".differences").text == (
            f"Differences: bob NTA, zoe TA; “{other}” PRE by zoe only")
        shoot(browser, "adjudicate", SHOTS)
        browser.find_element(By.TAG_NAME, "body").send_keys("1")  # the first side: bob's
        WebDriverWait(browser, 10).until(lambda d: "bob's decision kept" in d.find_element(By.ID, "adjudicate-status").text)
    finally:
        server.stop()
    with Workspace.open(team_workspace) as ws:
        kept = ws.item(spans_at)
        assert (kept.status, kept.label, kept.spans) == ("decided", "TA", [[0, len(words[0]), "PRE"]])


def listed_ids(driver) -> list[str]:
    """The ids the list shows (read in one script: the list is redrawn as the filters change)."""
    return driver.execute_script(
        "return [...document.querySelectorAll('#item-list li')].map((li) => li.dataset.messageId);")


def test_a_second_reviewer_opens_on_the_message_waiting_for_them_and_the_filter_finds_it(browser, team_workspace):
    with Workspace.open(team_workspace) as ws:
        ws.mark_double(0.2)
        early, late = sorted(ws.double_ids(), key=lambda i: ws.item(i).rank)
        ws.decide(late, label="NTA", spans=[], reviewer="ana")  # ana decided the later one blind
        top = ws.items(limit=1)[0].id
        assert top != late
    server = Server(team_workspace, "bob")
    try:
        browser.get(server.address)
        ready(browser)
        assert browser.find_element(By.ID, "message").get_attribute("data-message-id") == late
        Select(browser.find_element(By.ID, "filter-double")).select_by_value("waiting")
        WebDriverWait(browser, 10).until(
            lambda d: listed_ids(d) == [late])
        shoot(browser, "filter-waiting", SHOTS)
        Select(browser.find_element(By.ID, "filter-double")).select_by_value("marked")
        WebDriverWait(browser, 10).until(
            lambda d: listed_ids(d) == [early, late])
        shoot(browser, "filter-marked", SHOTS)
    finally:
        server.stop()
