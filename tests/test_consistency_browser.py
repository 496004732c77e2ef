"""The consistency list in a real browser (Chromium through Selenium): each case decided once."""

import os
from pathlib import Path

from test_consistency import corpus
from test_review_browser import Server, browser  # noqa: F401  (the fixture)

from triage.review_workspace import Workspace

from selenium.webdriver.common.by import By  # noqa: E402  (test_review_browser skips without selenium)
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

SHOTS = Path(os.environ.get("TRIAGE_SHOTS", "/tmp/shots-datasheet"))


def test_the_consistency_list_decides_a_case_for_the_whole_corpus(browser, cli, tmp_path):  # noqa: F811
    _, ws = corpus(cli, tmp_path)
    server = Server(ws)
    try:
        browser.get(server.address)
        WebDriverWait(browser, 15).until(lambda d: d.find_element(By.ID, "consistency-link").is_displayed())
        browser.find_element(By.ID, "consistency-link").click()  # the header's link
        WebDriverWait(browser, 15).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "li.case")) == 2)
        assert browser.find_element(By.ID, "summary").text == "2 cases, 2 to decide"
        julie = browser.find_element(By.CSS_SELECTOR, 'li.case[data-key="julie"]')
        marks = julie.find_elements(By.CSS_SELECTOR, "mark")
        assert [(m.text, m.get_attribute("class")) for m in marks] == [("Julie", "hidden"), ("julie", "readable")]
        SHOTS.mkdir(parents=True, exist_ok=True)
        for width in (1400, 800):
            browser.set_window_size(width, 900)
            browser.save_screenshot(str(SHOTS / f"consistency-{width}.png"))
        julie.find_element(By.CSS_SELECTOR, 'button[data-choice="hide"]').click()
        dialog = browser.find_element(By.ID, "confirm")
        WebDriverWait(browser, 10).until(lambda d: dialog.get_attribute("open") is not None)
        assert "where it is readable" in browser.find_element(By.ID, "confirm-text").text
        browser.find_element(By.ID, "confirm-yes").click()
        WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "summary").text == "2 cases, 1 to decide")
        pressed = browser.find_element(By.CSS_SELECTOR, 'li.case[data-key="julie"] button[data-choice="hide"]')
        assert pressed.get_attribute("aria-pressed") == "true"
        browser.save_screenshot(str(SHOTS / "consistency-decided-800.png"))
    finally:
        server.stop()
    with Workspace.open(ws) as opened:
        assert opened.consistency_decisions()[("mixed", "julie")]["decision"] == "hide"
        assert opened.consistency_decisions()[("mixed", "julie")]["reviewer"] == "ana"


def test_show_everywhere_asks_with_the_count_of_messages_where_it_is_hidden(browser, cli, tmp_path):  # noqa: F811
    _, ws = corpus(cli, tmp_path)
    with Workspace.open(ws) as opened:
        julie = next(c for c in opened.consistency() if c["key"] == "julie")
    server = Server(ws)
    try:
        browser.get(server.address)
        WebDriverWait(browser, 15).until(lambda d: d.find_element(By.ID, "consistency-link").is_displayed())
        browser.find_element(By.ID, "consistency-link").click()
        WebDriverWait(browser, 15).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "li.case")) == 2)
        case = browser.find_element(By.CSS_SELECTOR, 'li.case[data-key="julie"]')
        dialog = browser.find_element(By.ID, "confirm")
        case.find_element(By.CSS_SELECTOR, 'button[data-choice="readable"]').click()
        WebDriverWait(browser, 10).until(lambda d: dialog.get_attribute("open") is not None)
        n = julie["hidden"]
        assert browser.find_element(By.ID, "confirm-text").text.startswith(
            f"Show “julie” in {n} message{'s' if n != 1 else ''} where it is hidden")
        assert [m.get_attribute("class") for m in browser.find_elements(By.CSS_SELECTOR, "#confirm-examples mark")] \
            and all(m.get_attribute("class") == "hidden" for m in browser.find_elements(By.CSS_SELECTOR, "#confirm-examples mark"))
        SHOTS.mkdir(parents=True, exist_ok=True)
        for width in (1400, 800):
            browser.set_window_size(width, 900)
            browser.save_screenshot(str(SHOTS / f"consistency-show-confirm-{width}.png"))
        browser.find_element(By.ID, "confirm-no").click()  # cancelled: nothing saved
        WebDriverWait(browser, 10).until(lambda d: dialog.get_attribute("open") is None)
        with Workspace.open(ws) as opened:
            assert ("mixed", "julie") not in opened.consistency_decisions()
        case.find_element(By.CSS_SELECTOR, 'button[data-choice="readable"]').click()
        WebDriverWait(browser, 10).until(lambda d: dialog.get_attribute("open") is not None)
        browser.find_element(By.ID, "confirm-yes").click()
        WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "summary").text == "2 cases, 1 to decide")
    finally:
        server.stop()
    with Workspace.open(ws) as opened:
        assert opened.consistency_decisions()[("mixed", "julie")]["decision"] == "readable"
