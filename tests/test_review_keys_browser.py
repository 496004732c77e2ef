"""Enter means the keyboard's action whatever has the focus, in a real browser (Chromium through
Selenium, as tests/test_review_browser.py): a click on a button, then Enter on the next message,
accepts that message's proposal; it never presses the clicked button again."""

import pytest
from test_review_browser import CHROMEDRIVER, CHROMIUM, Server, browser, current_id, press, ready  # noqa: F401
from test_review_fast import write_corpus
from test_review_team import write_corpus as write_team_corpus

from triage.review_workspace import Workspace, open_synced
from triage.review_workspace.server import BackgroundServer

pytestmark = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason="no Chromium and chromedriver here")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

# The queue: m1, m2 (the machines hide 3 items: a name, a phone number, an e-mail address), m3.
MESSAGES = [
    ("m1", "appelle Kevin au 0612345678 stp", "EXPERT", [("0612345678", "TEL")], ["Kevin"], 0.90),
    ("m2", "Julie au 0698765432 ou julie@example.org", "EXPERT",
     [("Julie", "PRE"), ("0698765432", "TEL"), ("julie@example.org", "MEL")], [], 0.80),
    ("m3", "merci Paul pour hier soir", "EXPERT", [], ["Paul"], 0.10),
]


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


def test_enter_after_edit_in_the_adjudicate_view_decides_the_message(browser, tmp_path):
    classified = write_team_corpus(tmp_path / "team.csv")
    path = tmp_path / "team.review.sqlite"
    opened, _ = open_synced(classified, path, audit=0)
    opened.close()
    with Workspace.open(path) as ws:
        ws.mark_double(0.1)
        (ident,) = ws.double_ids()
        word = ws.item(ident).text.split()[0]
        ws.decide(ident, label="TA", spans=[[0, len(word), "PRE"]], reviewer="ana")
        ws.decide(ident, label="NTA", spans=[], reviewer="bob")
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
