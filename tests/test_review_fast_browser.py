"""Working fast in the review page, in a real browser (Chromium through Selenium, as in
tests/test_review_browser.py): the list's search, filters and orders, bulk decisions, the Words
view's concordance, messages in another language, the French interface and the dark theme."""

import pytest
from test_review_browser import CHROMEDRIVER, CHROMIUM, Server, browser, current_id, press, ready  # noqa: F401
from test_review_fast import write_corpus

from triage.review_workspace import Workspace, open_synced

pytestmark = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason="no Chromium and chromedriver here")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

SHOTS = None  # a folder to save screenshots into while developing the page, or None


@pytest.fixture
def small_path(tmp_path):
    path = write_corpus(tmp_path / "small.csv")
    workspace, _ = open_synced(path, tmp_path / "small.review.sqlite", audit=2, seed=1)
    workspace.close()
    return tmp_path / "small.review.sqlite"


def listed(driver) -> list[str]:
    return [li.get_attribute("data-message-id") for li in driver.find_elements(By.CSS_SELECTOR, "#item-list li")]


def wait_listed(driver, expected):
    try:
        WebDriverWait(driver, 10).until(lambda d: listed(d) == expected)
    except Exception:
        assert listed(driver) == expected


def test_the_list_is_searched_filtered_and_sorted_in_the_page(browser, small_path):
    server = Server(small_path)
    try:
        browser.get(server.address)
        ready(browser)
        assert listed(browser)[:5] == ["m2", "m3", "m5", "m1", "m4"]  # the list's order: the queue by risk
        search = browser.find_element(By.ID, "filter-q")
        search.send_keys("marius")
        wait_listed(browser, ["m3", "m4", "m7"])
        assert "3" in browser.find_element(By.ID, "list-page").text
        Select(browser.find_element(By.ID, "filter-kind")).select_by_value("audit")
        wait_listed(browser, ["m7"])
        # Typing in the search box is not a key of the review (n would decide NTA).
        first = current_id(browser)
        search.send_keys(" n")
        wait_listed(browser, [])
        assert "nothing found" in browser.find_element(By.ID, "list-page").text
        assert current_id(browser) == first
        browser.find_element(By.ID, "filter-clear").click()
        Select(browser.find_element(By.ID, "filter-sort")).select_by_value("risk")
        wait_listed(browser, ["m6", "m2", "m3", "m5", "m1", "m4", "m7"])  # queue and audit together
        Select(browser.find_element(By.ID, "filter-sort")).select_by_value("input")
        wait_listed(browser, ["m1", "m2", "m3", "m4", "m5", "m6", "m7"])
        # A decision made in the page: the status filter and the reviewer list follow it.
        press(browser, "n")  # the order menu has the focus: n is not a decision there
        assert current_id(browser) == first
        press(browser, Keys.ESCAPE, "n")  # Esc leaves the filters
        WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "confirm").get_attribute("open") is not None)
        press(browser, "y")  # NTA over a hidden phone number asks once
        WebDriverWait(browser, 10).until(lambda d: current_id(d) != first)
        Select(browser.find_element(By.ID, "filter-status")).select_by_value("decided")
        wait_listed(browser, [first])
        Select(browser.find_element(By.ID, "filter-reviewer")).select_by_value("ana")
        wait_listed(browser, [first])
        Select(browser.find_element(By.ID, "filter-tag")).select_by_value("TEL")
        wait_listed(browser, [])
    finally:
        server.stop()
    with Workspace.open(small_path) as ws:
        assert ws.item(first).status == "decided"


def test_a_bulk_decision_is_previewed_and_confirmed_in_the_page(browser, small_path):
    server = Server(small_path)
    try:
        browser.get(server.address)
        ready(browser)
        browser.find_element(By.ID, "filter-q").send_keys("tomorrow")
        wait_listed(browser, ["m5"])
        browser.find_element(By.ID, "bulk-open").click()
        Select(browser.find_element(By.ID, "bulk-action")).select_by_value("nta")
        WebDriverWait(browser, 10).until(
            lambda d: "1 message found: 1 decided for the first time" in d.find_element(By.ID, "bulk-text").text
            and d.find_elements(By.CSS_SELECTOR, "#bulk-examples li[data-message-id=m5]"))
        assert "NTA" in browser.find_element(By.CSS_SELECTOR, "#bulk-examples li").text
        with Workspace.open(small_path) as ws:
            assert ws.count(status="decided") == 0  # the preview decides nothing
        browser.find_element(By.ID, "bulk-yes").click()
        WebDriverWait(browser, 10).until(lambda d: "decided at once" in d.find_element(By.ID, "status").text)
        assert browser.find_element(By.CSS_SELECTOR, "#item-list li .state").text == "NTA"
    finally:
        server.stop()
    with Workspace.open(small_path) as ws:
        assert [(i.id, i.label) for i in ws.items(status="decided")] == [("m5", "NTA")]


def test_the_words_view_decides_each_occurrence_of_a_homonym(browser, small_path):
    server = Server(small_path)
    try:
        browser.get(server.address)
        ready(browser)
        browser.find_element(By.CSS_SELECTOR, ".tab[data-view=words]").click()
        card = WebDriverWait(browser, 10).until(
            lambda d: d.find_elements(By.CSS_SELECTOR, "#word-list > li[data-spelling=rose]"))[0]
        card.find_element(By.CSS_SELECTOR, ".concordance-open").click()
        rows = WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#conc-rows tr"))
        assert [r.get_attribute("data-message-id") for r in rows] == ["m3", "m4"]
        assert [r.find_element(By.CSS_SELECTOR, ".kwic-match").text for r in rows] == ["Rose", "rose"]
        assert rows[0].find_element(By.CSS_SELECTOR, ".kwic-before").text.strip() == "bisous a"
        Select(rows[0].find_element(By.TAG_NAME, "select")).select_by_value("name")
        Select(rows[1].find_element(By.TAG_NAME, "select")).select_by_value("word")
        Select(browser.find_element(By.ID, "conc-tag")).select_by_value("PRE")
        browser.find_element(By.ID, "conc-apply").click()
        WebDriverWait(browser, 10).until(lambda d: "applied" in d.find_element(By.ID, "conc-status").text)
    finally:
        server.stop()
    with Workspace.open(small_path) as ws:
        assert (ws.item("m3").label, ws.item("m3").spans) == ("TA", [[9, 13, "PRE"]])
        assert ws.item("m4").status == "pending"  # already shown: nothing to change there


def test_a_message_in_another_language_is_flagged_and_decided_in_one_key(browser, tmp_path):
    path = write_corpus(tmp_path / "en.csv", [
        ("e1", "call me at 0612345678 see you tomorrow at the meeting Steve", "EXPERT",
         [("0612345678", "TEL"), ("meeting", "PRE")], ["meeting", "Steve"], 0.9),
        ("e2", "Salut Julie on se voit demain soir", "EXPERT", [("Julie", "PRE")], ["Julie"], 0.5),
    ])
    workspace, _ = open_synced(path, tmp_path / "en.sqlite", audit=0)
    workspace.close()
    server = Server(tmp_path / "en.sqlite")
    try:
        browser.get(server.address)
        ready(browser)
        assert current_id(browser) == "e1"
        badge = browser.find_element(By.CSS_SELECTOR, "#badges .badge.foreign")
        assert "mostly another language" in badge.text
        press(browser, "e")
        WebDriverWait(browser, 10).until(lambda d: current_id(d) == "e2")
        assert not browser.find_elements(By.CSS_SELECTOR, "#badges .badge.foreign")
        press(browser, "e")  # not for a French message: nothing decided
        WebDriverWait(browser, 10).until(lambda d: "not" in d.find_element(By.ID, "status").text)
        assert current_id(browser) == "e2"
    finally:
        server.stop()
    with Workspace.open(tmp_path / "en.sqlite") as ws:
        # The phone number stays hidden; the words in no French list are released.
        assert (ws.item("e1").label, ws.item("e1").spans) == ("TA", [[11, 21, "TEL"]])
        assert ws.item("e2").status == "pending"


@pytest.fixture
def french_browser(tmp_path, monkeypatch):
    """Chromium whose user prefers French (its Accept-Language and navigator.languages)."""
    import shutil as _shutil  # noqa: F401

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    monkeypatch.setenv("SE_OFFLINE", "true")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--lang=fr",
                     "--no-first-run", "--window-size=1400,900", f"--user-data-dir={tmp_path / 'chrome-fr'}"):
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"intl.accept_languages": "fr-FR,fr"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def test_the_page_speaks_french_to_a_french_browser_and_remembers_a_switch(french_browser, small_path):
    browser = french_browser
    server = Server(small_path)
    try:
        browser.get(server.address)
        ready(browser)
        assert browser.execute_script("return navigator.language").startswith("fr")
        assert browser.find_element(By.CSS_SELECTOR, ".tab[data-view=words]").text == "Mots"
        assert browser.find_element(By.ID, "filter-q").get_attribute("placeholder") == "Chercher un texte ou un id…"
        assert browser.find_element(By.ID, "skip").text.startswith("Mettre de côté")
        assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "fr"
        # What the page builds from counts and the server's reasons is French too.
        assert "décidés" in browser.find_element(By.ID, "progress-text").text
        assert " sur " in browser.find_element(By.ID, "list-page").text
        assert "masquer" in browser.find_element(By.ID, "accept-what").text  # "masquer 1 élément" or "rien à masquer"
        reasons = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#reasons .why")]
        assert reasons and not any(r.startswith(("in no list", "is a name", "in the ")) for r in reasons), reasons
        # Message text is never translated.
        assert browser.find_element(By.ID, "message").text.startswith("appelle")
        Select(browser.find_element(By.ID, "language")).select_by_value("en")
        WebDriverWait(browser, 10).until(
            lambda d: d.find_elements(By.CSS_SELECTOR, "body[data-ready=true]")
            and d.find_element(By.CSS_SELECTOR, ".tab[data-view=words]").text == "Words")
        browser.refresh()
        ready(browser)
        assert browser.find_element(By.CSS_SELECTOR, ".tab[data-view=words]").text == "Words"  # remembered
    finally:
        server.stop()


def test_the_page_follows_a_dark_system_preference(browser, small_path):
    server = Server(small_path)
    try:
        browser.get(server.address)
        ready(browser)
        light = browser.execute_script("return getComputedStyle(document.body).backgroundColor")
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
        style = browser.execute_script(
            """const box = document.querySelector('#message .hidden-item');
               const look = document.querySelector('#message .word.look');
               const c = (e, p) => getComputedStyle(e)[p];
               return [c(document.body, 'backgroundColor'), c(box, 'color'), c(box, 'backgroundColor'),
                       c(look, 'color'), c(look, 'backgroundColor')];""")
    finally:
        server.stop()
    assert light == "rgb(246, 248, 250)" and style[0] == "rgb(13, 17, 23)"

    def luminance(rgb):
        values = [int(v) / 255 for v in rgb[rgb.index("(") + 1:-1].split(",")[:3]]
        values = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in values]
        return 0.2126 * values[0] + 0.7152 * values[1] + 0.0722 * values[2]

    def contrast(a, b):
        high, low = sorted((luminance(a), luminance(b)), reverse=True)
        return (high + 0.05) / (low + 0.05)

    assert contrast(style[1], style[2]) >= 4.5  # a hidden item's tag on its background
    assert contrast(style[3], style[4]) >= 4.5  # a word to look at on its highlight


def test_the_reviewer_changes_the_keys_in_the_help_panel(browser, small_path):
    server = Server(small_path)
    try:
        browser.get(server.address)
        ready(browser)
        first = current_id(browser)
        press(browser, "?")
        browser.find_element(By.CSS_SELECTOR, ".key-settings summary").click()
        field = browser.find_element(By.ID, "keys-json")
        field.send_keys('{"messages": {"x": "nope"}}')
        browser.find_element(By.ID, "keys-save").click()
        assert "unknown action" in browser.find_element(By.ID, "keys-problem").text
        field.clear()
        field.send_keys('{"messages": {"x": "markNTA", "n": null}}')
        browser.find_element(By.ID, "keys-save").click()  # stored, and the page opens again with them
        WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "body[data-ready=true]")
                                         and not d.find_element(By.ID, "help").get_attribute("open"))
        assert browser.find_element(By.CSS_SELECTOR, "#keys tr[data-action=markNTA] kbd").get_attribute("textContent") == "x"
        press(browser, "n")  # no longer a key
        assert current_id(browser) == first
        press(browser, "x")
        WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "confirm").get_attribute("open") is not None)
        press(browser, "y")  # NTA over a hidden phone number asks once
        WebDriverWait(browser, 10).until(lambda d: current_id(d) != first)
    finally:
        server.stop()
    with Workspace.open(small_path) as ws:
        assert ws.item(first).label == "NTA"
