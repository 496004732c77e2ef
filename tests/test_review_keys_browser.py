"""Enter means the keyboard's action whatever has the focus, in a real browser (Chromium through
Selenium, as tests/test_review_browser.py): a click on a button, then Enter on the next message,
accepts that message's proposal; it never presses the clicked button again."""

import os
from pathlib import Path

import pytest
from test_review_browser import CHROMEDRIVER, CHROMIUM, Server, browser, current_id, press, ready  # noqa: F401
from test_review_fast import write_corpus
from test_review_team import one_disagreement
from test_review_team_browser import shoot as team_shoot

from triage.review_workspace import Workspace, open_synced
from triage.review_workspace.server import BackgroundServer

pytestmark = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason="no Chromium and chromedriver here")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

# The queue: m1 (a name hidden), m2 (a name, a phone number, an e-mail address hidden), m3.
MESSAGES = [
    ("m1", "appelle Kevin demain stp", "EXPERT", [("Kevin", "PRE")], [], 0.90),
    ("m2", "Julie au 0698765432 ou julie@example.org", "EXPERT",
     [("Julie", "PRE"), ("0698765432", "TEL"), ("julie@example.org", "MEL")], [], 0.80),
    ("m3", "merci Paul pour hier soir", "EXPERT", [], ["Paul"], 0.10),
]


SHOTS = Path(os.environ.get("TRIAGE_SHOTS", "/tmp/shots-keys"))


def shoot(browser, name):
    team_shoot(browser, name, SHOTS)


@pytest.fixture
def path(tmp_path):
    corpus = write_corpus(tmp_path / "keys.csv", MESSAGES)
    workspace, _ = open_synced(corpus, tmp_path / "keys.review.sqlite", audit=0)
    workspace.close()
    return tmp_path / "keys.review.sqlite"


def test_enter_after_a_click_on_nta_accepts_the_next_proposal(browser, path):
    server = Server(path)
    try:
        browser.get(server.address)
        ready(browser)
        assert current_id(browser) == "m1"
        browser.find_element(By.ID, "mark-nta").click()
        WebDriverWait(browser, 10).until(lambda d: current_id(d) == "m2")
        WebDriverWait(browser, 10).until(lambda d: "3" in d.find_element(By.ID, "accept").text)
        press(browser, Keys.ENTER)  # the keyboard's action: accept what is shown (3 items hidden)
        WebDriverWait(browser, 10).until(lambda d: current_id(d) == "m3")
    finally:
        server.stop()
    with Workspace.open(path) as ws:
        assert ws.item("m1").label == "NTA"
        m2 = ws.item("m2")
        assert (m2.label, [tag for *_, tag in m2.spans]) == ("TA", ["PRE", "TEL", "MEL"])
        assert ws.item("m3").status == "pending"


def test_nta_over_hidden_contact_details_asks_once_naming_them(browser, path):
    server = Server(path)
    try:
        browser.get(server.address)
        ready(browser)
        press(browser, "n")  # m1 hides a name only: NTA at once
        WebDriverWait(browser, 10).until(lambda d: current_id(d) == "m2")
        dialog = browser.find_element(By.ID, "confirm")
        press(browser, "n")
        WebDriverWait(browser, 10).until(lambda d: dialog.get_attribute("open") is not None)
        text = browser.find_element(By.ID, "confirm-text").text
        assert "NTA makes 2 hidden items of message m2 readable (TEL, MEL)" in text
        assert [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#confirm-examples li")] == [
            "TEL: 0698765432", "MEL: julie@example.org"]
        shoot(browser, "nta-contact-confirm")
        press(browser, Keys.ESCAPE)  # cancelled: nothing decided
        WebDriverWait(browser, 10).until(lambda d: dialog.get_attribute("open") is None)
        with Workspace.open(path) as ws:
            assert ws.item("m2").status == "pending"
        browser.find_element(By.ID, "mark-nta").click()
        WebDriverWait(browser, 10).until(lambda d: dialog.get_attribute("open") is not None)
        press(browser, "y")
        WebDriverWait(browser, 10).until(lambda d: current_id(d) == "m3")
    finally:
        server.stop()
    with Workspace.open(path) as ws:
        assert [(ws.item(i).label, ws.item(i).spans) for i in ("m1", "m2")] == [("NTA", []), ("NTA", [])]


def test_a_bulk_nta_preview_says_which_hidden_items_become_readable(browser, path):
    from selenium.webdriver.support.ui import Select
    server = Server(path)
    try:
        browser.get(server.address)
        ready(browser)
        browser.find_element(By.ID, "filter-q").send_keys("julie")
        WebDriverWait(browser, 10).until(
            lambda d: [li.get_attribute("data-message-id") for li in d.find_elements(By.CSS_SELECTOR, "#item-list li")] == ["m2"])
        browser.find_element(By.ID, "bulk-open").click()
        Select(browser.find_element(By.ID, "bulk-action")).select_by_value("nta")
        WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#bulk-text b.releases"))
        assert browser.find_element(By.CSS_SELECTOR, "#bulk-text b.releases").text == \
            "3 hidden items become readable in 1 message (MEL 1, PRE 1, TEL 1)."
        shoot(browser, "bulk-nta-preview")
    finally:
        server.stop()


def test_enter_after_edit_in_the_adjudicate_view_decides_the_message(browser, tmp_path):
    path, ident, word = one_disagreement(tmp_path)
    server = BackgroundServer(path, token="lea-token", reviewer="lea", lead=True)
    try:
        browser.get(server.address)
        ready(browser)
        browser.find_element(By.CSS_SELECTOR, '.tab[data-view="adjudicate"]').click()
        WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#dispute-list .side"))
        browser.find_element(By.CSS_SELECTOR, f'#dispute-list li[data-message-id="{ident}"] button.ghost').click()
        WebDriverWait(browser, 10).until(
            lambda d: current_id(d) == ident and d.find_elements(By.CSS_SELECTOR, "#message .hidden-item"))
        press(browser, Keys.ENTER)  # accept what is shown: ana's hidden word
        WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".done") or current_id(d) != ident)
    finally:
        server.stop()
    with Workspace.open(path) as ws:
        item = ws.item(ident)
        assert (item.status, item.label, item.reviewer) == ("decided", "TA", "lea")
        assert ws.agreement()["disagreements"] == {"unresolved": 0, "resolved": 1}


def test_w_in_the_words_view_previews_what_becomes_readable_and_asks(browser, tmp_path):
    from test_review_release_guard import MESSAGES as GUARD
    corpus = write_corpus(tmp_path / "guard.csv", GUARD)
    path = tmp_path / "guard.review.sqlite"
    opened, _ = open_synced(corpus, path, audit=0)
    opened.close()
    server = Server(path)
    try:
        browser.get(server.address)
        ready(browser)
        press(browser, "v")  # the Words view
        WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#word-list > li[data-spelling]"))
        spellings = [li.get_attribute("data-spelling") for li in browser.find_elements(By.CSS_SELECTOR, "#word-list > li")]
        for _ in range(spellings.index("julie")):
            press(browser, "j")
        press(browser, "w")
        dialog = browser.find_element(By.ID, "confirm")
        WebDriverWait(browser, 10).until(lambda d: dialog.get_attribute("open") is not None)
        assert browser.find_element(By.ID, "confirm-title").text == "Make “julie” an ordinary word?"
        assert "2 hidden items become readable in 2 messages" in browser.find_element(By.ID, "confirm-text").text
        shoot(browser, "learn-word-confirm")
        with Workspace.open(path) as ws:
            assert ws.learnt() == []  # asked: nothing learnt yet
        press(browser, Keys.ESCAPE)
        WebDriverWait(browser, 10).until(lambda d: dialog.get_attribute("open") is None)
        press(browser, "w")
        WebDriverWait(browser, 10).until(lambda d: dialog.get_attribute("open") is not None)
        press(browser, "y")
        WebDriverWait(browser, 10).until(lambda d: "Learnt" in d.find_element(By.ID, "words-status").text)
    finally:
        server.stop()
    with Workspace.open(path) as ws:
        assert [(e["spelling"], e["kind"]) for e in ws.learnt()] == [("julie", "word")]
