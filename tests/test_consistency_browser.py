"""The consistency list in a real browser (Chromium through Selenium): each case decided once, a page at a
time, with the keyboard, many at once after a preview, in English or French."""

import os
from pathlib import Path

from test_consistency import SPELLINGS, corpus, many
from test_review_browser import Server, browser, press  # noqa: F401  (the fixture)

from triage.review_workspace import Workspace

from selenium.webdriver.common.by import By  # noqa: E402  (test_review_browser skips without selenium)
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

SHOTS = Path(os.environ.get("TRIAGE_SHOTS", "/tmp/shots-consistency"))


def test_the_consistency_list_decides_a_case_for_the_whole_corpus(browser, cli, tmp_path):  # noqa: F811
    _, ws = corpus(cli, tmp_path)
    server = Server(ws)
    try:
        browser.get(server.address)
        WebDriverWait(browser, 15).until(lambda d: d.find_element(By.ID, "consistency-link").is_displayed())
        browser.find_element(By.ID, "consistency-link").click()  # the header's link
        WebDriverWait(browser, 15).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "li.case")) == 2)
        assert browser.find_element(By.ID, "summary").text == "cases 1–2 of 2 · 2 to decide"
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
        WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "summary").text == "cases 1–2 of 2 · 1 to decide")
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
        WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "summary").text == "cases 1–2 of 2 · 1 to decide")
    finally:
        server.stop()
    with Workspace.open(ws) as opened:
        assert opened.consistency_decisions()[("mixed", "julie")]["decision"] == "readable"


def open_consistency(driver, server, language=None):
    driver.get(server.address)
    WebDriverWait(driver, 15).until(lambda d: d.find_element(By.ID, "consistency-link").is_displayed())
    if language:  # the review page's language switch: remembered in this browser
        driver.execute_script("localStorage.setItem('triage-language', arguments[0])", language)
    driver.get(server.root + "consistency")
    WebDriverWait(driver, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, "body[data-ready=true]"))


def summary(driver) -> str:
    return driver.find_element(By.ID, "summary").text


def focused_key(driver) -> str:
    return driver.find_element(By.CSS_SELECTOR, "li.case.focused").get_attribute("data-key")


def decisions(ws) -> dict:
    with Workspace.open(ws) as opened:
        return {key: v["decision"] for (_, key), v in opened.consistency_decisions().items()}


def test_a_reviewer_pages_through_the_cases_and_decides_them_with_the_keyboard(browser, cli, tmp_path):  # noqa: F811
    _, ws = many(cli, tmp_path)
    server = Server(ws)
    try:
        open_consistency(browser, server)
        assert summary(browser) == "cases 1–25 of 30 · 30 to decide"
        assert len(browser.find_elements(By.CSS_SELECTOR, "li.case")) == 25
        first, second = [n.get_attribute("data-key") for n in browser.find_elements(By.CSS_SELECTOR, "li.case")[:2]]
        assert focused_key(browser) == first
        press(browser, "j")
        assert focused_key(browser) == second
        press(browser, Keys.ARROW_UP)
        assert focused_key(browser) == first
        # h asks where the spelling is readable; Esc cancels, nothing is saved.
        press(browser, "h")
        dialog = browser.find_element(By.ID, "confirm")
        WebDriverWait(browser, 10).until(lambda d: dialog.get_attribute("open") is not None)
        assert browser.find_element(By.ID, "confirm-text").text == f"Hide “{first}” in 1 message where it is readable."
        press(browser, Keys.ESCAPE)
        WebDriverWait(browser, 10).until(lambda d: dialog.get_attribute("open") is None)
        assert decisions(ws) == {}
        # h then y: hidden everywhere; the next undecided case takes its place and has the focus.
        press(browser, "h")
        WebDriverWait(browser, 10).until(lambda d: dialog.get_attribute("open") is not None)
        press(browser, "y")
        WebDriverWait(browser, 10).until(lambda d: summary(d) == "cases 1–25 of 30 · 29 to decide")
        assert decisions(ws) == {first: "hide"} and focused_key(browser) == second
        # s asks where it is hidden, with those messages; y shows it everywhere.
        press(browser, "s")
        WebDriverWait(browser, 10).until(lambda d: dialog.get_attribute("open") is not None)
        assert browser.find_element(By.ID, "confirm-text").text.startswith(f"Show “{second}” in 1 message where it is hidden")
        assert [m.get_attribute("class") for m in browser.find_elements(By.CSS_SELECTOR, "#confirm-examples mark")] == ["hidden"]
        press(browser, "y")
        WebDriverWait(browser, 10).until(lambda d: summary(d) == "cases 1–25 of 30 · 28 to decide")
        assert decisions(ws) == {first: "hide", second: "readable"}
        # Enter never presses the button that has the focus (here: Show everywhere of the focused case).
        button = browser.find_element(By.CSS_SELECTOR, "li.case.focused button[data-choice='readable']")
        browser.execute_script("arguments[0].focus()", button)
        press(browser, Keys.ENTER)
        assert dialog.get_attribute("open") is None and len(decisions(ws)) == 2
        # n: the next page; j past its last case goes on to the next page too.
        press(browser, "n")
        WebDriverWait(browser, 10).until(lambda d: summary(d) == "cases 26–30 of 30 · 28 to decide")
        assert len(browser.find_elements(By.CSS_SELECTOR, "li.case")) == 5
        press(browser, "p")
        WebDriverWait(browser, 10).until(lambda d: summary(d).startswith("cases 1–25 of 30"))
        # The help panel lists the keys.
        press(browser, "?")
        assert browser.find_element(By.ID, "help").get_attribute("open") is not None
        actions = [r.get_attribute("data-action") for r in browser.find_elements(By.CSS_SELECTOR, "#keys tr[data-action]")]
        assert {"next", "previous", "hide", "readable", "nextPage", "search"} <= set(actions)
    finally:
        server.stop()


def test_one_decision_for_every_case_shown_after_a_preview(browser, cli, tmp_path):  # noqa: F811
    _, ws = many(cli, tmp_path)
    server = Server(ws)
    try:
        open_consistency(browser, server)
        search = browser.find_element(By.ID, "filter-q")
        search.send_keys("zorbi")
        WebDriverWait(browser, 10).until(lambda d: summary(d) == "cases 1–6 of 6 found (30 in all) · 30 to decide")
        shown = sorted(n.get_attribute("data-key") for n in browser.find_elements(By.CSS_SELECTOR, "li.case"))
        assert shown == sorted(w.lower() for w in SPELLINGS if w.startswith("Zorbi"))
        search.send_keys(Keys.ESCAPE)
        browser.find_element(By.ID, "bulk-show").click()
        dialog = browser.find_element(By.ID, "confirm")
        WebDriverWait(browser, 10).until(lambda d: dialog.get_attribute("open") is not None)
        assert browser.find_element(By.ID, "confirm-title").text == "Show everywhere the 6 cases shown?"
        assert browser.find_element(By.ID, "confirm-readable").text == \
            "6 hidden items become readable in 6 messages (PRE 6)."
        assert "6 cases are decided so: 6 messages change in the release." in browser.find_element(By.ID, "confirm-text").text
        for width in (1400, 800):
            browser.set_window_size(width, 900)
            browser.save_screenshot(str(SHOTS / f"consistency-bulk-show-{width}.png"))
        browser.set_window_size(1400, 900)
        press(browser, Keys.ENTER)  # Cancel has the focus: Enter never confirms
        WebDriverWait(browser, 10).until(lambda d: dialog.get_attribute("open") is None)
        assert decisions(ws) == {}
        browser.find_element(By.ID, "bulk-show").click()
        WebDriverWait(browser, 10).until(lambda d: dialog.get_attribute("open") is not None)
        browser.find_element(By.ID, "confirm-yes").click()
        WebDriverWait(browser, 10).until(lambda d: summary(d) == "cases 1–6 of 6 found (30 in all) · 24 to decide")
        assert decisions(ws) == {key: "readable" for key in shown}
        assert browser.find_element(By.ID, "status").text == "6 cases decided: Show everywhere."
    finally:
        server.stop()


def test_the_consistency_page_speaks_french_as_the_review_page(browser, cli, tmp_path):  # noqa: F811
    _, ws = many(cli, tmp_path)
    server = Server(ws)
    try:
        open_consistency(browser, server, language="fr")
        assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "fr"
        assert browser.find_element(By.ID, "language").get_attribute("value") == "fr"
        assert summary(browser) == "cas 1–25 sur 30 · 30 à décider"
        case = browser.find_element(By.CSS_SELECTOR, "li.case")
        assert case.find_element(By.CSS_SELECTOR, ".kind").text == "MASQUÉ ICI, LISIBLE LÀ"
        assert case.find_element(By.CSS_SELECTOR, ".counts").text.startswith("masqué dans 1 message, lisible dans 1 message")
        assert [b.text.split("\n")[0].strip() for b in case.find_elements(By.CSS_SELECTOR, "button")][:2] == \
            ["Masquer partout h", "Montrer partout s"]
        assert browser.find_element(By.ID, "bulk-hide").text == "Tout masquer partout…"
        SHOTS.mkdir(parents=True, exist_ok=True)
        for width in (1400, 800):
            browser.set_window_size(width, 900)
            browser.save_screenshot(str(SHOTS / f"consistency-fr-{width}.png"))
        press(browser, "s")
        dialog = browser.find_element(By.ID, "confirm")
        WebDriverWait(browser, 10).until(lambda d: dialog.get_attribute("open") is not None)
        key = case.get_attribute("data-key")
        assert browser.find_element(By.ID, "confirm-text").text.startswith(f"Montrer « {key} » dans 1 message où elle est masquée")
        # The switch on this page changes the language too (remembered for the review page).
        press(browser, Keys.ESCAPE)
        from selenium.webdriver.support.ui import Select

        Select(browser.find_element(By.ID, "language")).select_by_value("en")
        WebDriverWait(browser, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, "body[data-ready=true]")
                                         and summary(d) == "cases 1–25 of 30 · 30 to decide")
    finally:
        server.stop()


def test_a_consistency_decision_is_undone_and_an_undo_that_shows_text_asks_first(browser, cli, tmp_path):  # noqa: F811
    _, ws = many(cli, tmp_path)
    server = Server(ws)
    try:
        open_consistency(browser, server)
        history = browser.find_element(By.ID, "history-list")
        assert history.text == "nothing yet" and not browser.find_element(By.ID, "history-undo").is_enabled()
        browser.find_element(By.ID, "filter-q").send_keys("zorbi")
        WebDriverWait(browser, 10).until(lambda d: summary(d) == "cases 1–6 of 6 found (30 in all) · 30 to decide")
        shown = sorted(n.get_attribute("data-key") for n in browser.find_elements(By.CSS_SELECTOR, "li.case"))
        browser.find_element(By.ID, "filter-q").send_keys(Keys.ESCAPE)
        browser.find_element(By.ID, "bulk-hide").click()
        dialog = browser.find_element(By.ID, "confirm")
        WebDriverWait(browser, 10).until(lambda d: dialog.get_attribute("open") is not None)
        browser.find_element(By.ID, "confirm-yes").click()
        WebDriverWait(browser, 10).until(lambda d: summary(d) == "cases 1–6 of 6 found (30 in all) · 24 to decide")
        WebDriverWait(browser, 10).until(lambda d: history.text == "6 cases: Hide everywhere")
        assert decisions(ws) == {key: "hide" for key in shown}

        # Undoing the hide makes what it hid readable again: asked first, with the count; Enter cancels.
        browser.find_element(By.ID, "history-undo").click()
        WebDriverWait(browser, 10).until(lambda d: dialog.get_attribute("open") is not None)
        assert browser.find_element(By.ID, "confirm-title").text == "Undo the decision for 6 cases?"
        assert browser.find_element(By.ID, "confirm-readable").text == "6 hidden items become readable in 6 messages (PRE 6)."
        assert browser.find_element(By.ID, "confirm-yes").text == "Undo it"
        SHOTS.mkdir(parents=True, exist_ok=True)
        for width in (1400, 800):
            browser.set_window_size(width, 900)
            browser.save_screenshot(str(SHOTS / f"consistency-undo-asks-{width}.png"))
        browser.set_window_size(1400, 900)
        press(browser, Keys.ENTER)
        WebDriverWait(browser, 10).until(lambda d: dialog.get_attribute("open") is None)
        assert decisions(ws) == {key: "hide" for key in shown}  # nothing undone
        press(browser, "u")  # the key asks the same question; y confirms
        WebDriverWait(browser, 10).until(lambda d: dialog.get_attribute("open") is not None)
        press(browser, "y")
        WebDriverWait(browser, 10).until(
            lambda d: d.find_element(By.ID, "status").text == "Undone: 6 cases of the decision for many cases.")
        assert decisions(ws) == {}
        assert summary(browser) == "cases 1–6 of 6 found (30 in all) · 30 to decide"
        assert history.text == "nothing yet"

        # Showing a case, then undoing it, hides it again at once: nothing becomes readable.
        first = browser.find_element(By.CSS_SELECTOR, "li.case").get_attribute("data-key")
        press(browser, "s")
        WebDriverWait(browser, 10).until(lambda d: dialog.get_attribute("open") is not None)
        press(browser, "y")
        WebDriverWait(browser, 10).until(lambda d: decisions(ws) == {first: "readable"})
        WebDriverWait(browser, 10).until(lambda d: history.text == f"“{first}”: Show everywhere")
        for width in (1400, 800):
            browser.set_window_size(width, 900)
            browser.save_screenshot(str(SHOTS / f"consistency-history-{width}.png"))
        browser.set_window_size(1400, 900)
        press(browser, "u")
        WebDriverWait(browser, 10).until(
            lambda d: d.find_element(By.ID, "status").text == f"Undone: “{first}” is to decide again.")
        assert dialog.get_attribute("open") is None and decisions(ws) == {}
    finally:
        server.stop()
    with Workspace.open(ws) as opened:
        undone = [e for e in opened.history() if e["action"] == "consistency-undo"]
        assert len(undone) == 7 and {e["reviewer"] for e in undone} == {"ana"}
