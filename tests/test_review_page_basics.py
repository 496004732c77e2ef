"""The review page's basics in a real browser: views, the list's marks, selecting what to hide,
the layout of long messages and narrow windows, where the page goes next, and its keys.

Skipped, saying why, where no browser is installed (see tests/test_review_browser.py)."""

import csv
import json
from pathlib import Path

import pytest
from test_review_browser import CHROMEDRIVER, CHROMIUM, Server, browser, current_id, press, ready  # noqa: F401

from triage.review_workspace import Workspace, open_synced
from triage.schema import CLASSIFY_COLUMNS

pytestmark = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason="no Chromium and chromedriver here")

from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


def make_workspace(tmp_path: Path, queued, released=()) -> Path:
    """A workspace over invented messages: `queued` are (text, words the machines hid, words to look
    at), listed in this order; `released` are texts the machines released, all in the audit sample."""
    path = tmp_path / "corpus.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(CLASSIFY_COLUMNS)
        for number, (text, machine, look) in enumerate(queued, start=1):
            hidden = [[text.index(w), text.index(w) + len(w), tag] for w, tag in machine]
            writer.writerow([str(number), text, "UNTAGGED", "TA", "0.6", "EXPERT", text, json.dumps(hidden),
                             json.dumps(look, ensure_ascii=False), str(1 - number / 1000)])
        for number, text in enumerate(released, start=len(queued) + 1):
            writer.writerow([str(number), text, "NTA", "NTA", "0.1", "NTA", text, "[]", "[]", ""])
    workspace, _ = open_synced(path, tmp_path / "corpus.review.sqlite", audit=len(released))
    workspace.close()
    return tmp_path / "corpus.review.sqlite"


SHORT = [
    ("slt Kevin tu viens ce soir", [], ["Kevin"]),
    ("ok a toute a l heure", [], []),
    ("bisous Chloé 😘", [], ["Chloé"]),
    ("on mange chez Yanis ?", [], ["Yanis"]),
]


def open_page(driver, server):
    driver.get(server.address)
    ready(driver)


def wait_for(driver, condition, timeout=10):
    return WebDriverWait(driver, timeout).until(condition)


def list_mark(driver, ident) -> str:
    return driver.find_element(By.CSS_SELECTOR, f"#item-list li[data-message-id='{ident}'] .state").get_attribute("class")


# ------------------------------------------------------------------- views


def test_the_words_view_hides_the_messages_view_and_starts_at_the_top(browser, tmp_path):
    server = Server(make_workspace(tmp_path, SHORT))
    try:
        open_page(browser, server)
        browser.find_element(By.CSS_SELECTOR, ".tab[data-view='words']").click()
        wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#word-list > li[data-spelling]"))
        assert not browser.find_element(By.ID, "view-messages").is_displayed()
        top = browser.execute_script("return document.getElementById('word-list').getBoundingClientRect().top")
        assert top < 400, top  # under the header and the hint, not under the messages view
        browser.find_element(By.CSS_SELECTOR, ".tab[data-view='learnt']").click()
        wait_for(browser, lambda d: d.find_element(By.ID, "view-learnt").is_displayed())
        assert not browser.find_element(By.ID, "view-messages").is_displayed()
        assert not browser.find_element(By.ID, "view-words").is_displayed()
    finally:
        server.stop()


# -------------------------------------------------------------- list marks


def test_the_lists_marks_follow_decisions_skips_and_undos_at_once(browser, tmp_path):
    server = Server(make_workspace(tmp_path, SHORT))
    try:
        open_page(browser, server)
        assert "pending" in list_mark(browser, "1")
        press(browser, Keys.ENTER)  # message 1 decided
        wait_for(browser, lambda d: current_id(d) == "2")
        assert "decided" in list_mark(browser, "1")
        press(browser, "s")  # message 2 skipped
        wait_for(browser, lambda d: current_id(d) == "3")
        assert "skipped" in list_mark(browser, "2")
        press(browser, "u")  # the skip undone
        wait_for(browser, lambda d: current_id(d) == "2")
        wait_for(browser, lambda d: "pending" in list_mark(d, "2"))
        assert "decided" in list_mark(browser, "1")
    finally:
        server.stop()
