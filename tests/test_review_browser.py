"""The review page in a real browser: Debian's Chromium driven by Selenium through chromedriver.

A reviewer goes through the demo queue with the keyboard alone, hides a word by clicking, hides a
missed span by selecting characters, undoes, reloads and restarts the server; the workspace and the
applied output then hold every decision. Skipped, saying why, where no browser is installed."""

import os
import shutil
from pathlib import Path

import pytest
from conftest import write_queued

from triage.review_workspace import Workspace, open_synced
from triage.review_workspace.server import BackgroundServer

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
selenium = pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[test]')")
NO_BROWSER = "no Chromium and chromedriver here (Debian: apt-get install chromium chromium-driver)"
pytestmark = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason=NO_BROWSER)

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


def Server(workspace_path: Path, token: str = "browser-test-token") -> BackgroundServer:
    """The review server in a thread of the test process, on a free port of 127.0.0.1, as ana."""
    return BackgroundServer(workspace_path, token=token, reviewer="ana")


def chromium(profile: Path):
    """A headless Chromium of its own profile folder (a second one is another person's browser). The
    test skips, saying why, where there is none (every module's browser tests, whatever their marks)."""
    if not (CHROMIUM and CHROMEDRIVER):
        pytest.skip(NO_BROWSER)
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must never download anything
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--no-first-run", "--window-size=1400,900", f"--user-data-dir={profile}"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    return driver


def opened_afresh(driver) -> None:
    """The shared browser as a browser just opened: a blank page, no stored data or cookies of any
    site (localStorage, sessionStorage, IndexedDB, cache), no emulated media, its window's first size."""
    driver.get("about:blank")  # the page of the test before leaves (its scripts stop asking its server)
    # Every site's stored data, cookies included ("all").
    driver.execute_cdp_cmd("Storage.clearDataForOrigin", {"origin": "*", "storageTypes": "all"})
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "", "features": []})
    driver.set_window_size(1400, 900)


@pytest.fixture
def browser(shared_chromium):
    """A browser just opened, as one person's: the test process's one Chromium, made afresh (a test
    that needs a second person starts a Chromium of its own, `chromium`). Skipped, saying why,
    where there is none."""
    yield shared_chromium.afresh()
    if shared_chromium.driver is not None:  # the page of the test leaves now, not at the next test
        try:
            shared_chromium.driver.get("about:blank")
        except Exception:
            shared_chromium.close()


@pytest.fixture
def demo(classified_demo, tmp_path):
    classified = tmp_path / "demo.csv"
    shutil.copyfile(classified_demo, classified)
    workspace, _ = open_synced(classified, tmp_path / "demo.review.sqlite", audit=0)
    workspace.close()
    return classified, tmp_path / "demo.review.sqlite"


def ready(driver):
    WebDriverWait(driver, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, "body[data-ready=true]"))


def current_id(driver) -> str:
    return driver.find_element(By.ID, "message").get_attribute("data-message-id")


def press(driver, *keys):
    for key in keys:
        ActionChains(driver).send_keys(key).perform()


def wait_for_next(driver, previous: str) -> str:
    WebDriverWait(driver, 10).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, ".done") or current_id(d) != previous)
    done = driver.find_elements(By.CSS_SELECTOR, ".done")
    return "" if done else current_id(driver)


def test_each_test_is_given_the_shared_browser_as_just_opened(shared_chromium):
    """What a test leaves in the test process's one Chromium (stored data and a cookie of a site,
    an emulated medium, another window size) is gone for the next test, even on the same site."""
    import http.server
    import threading

    sent = []  # the cookies each visit brought

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path == "/":  # (not the icon the browser asks for)
                sent.append(self.headers.get("Cookie"))
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Set-Cookie", "left=1; Path=/")
            self.end_headers()
            self.wfile.write(b"<!doctype html><title>a site</title>")

        def log_message(self, *args):
            pass

    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    address = f"http://127.0.0.1:{site.server_address[1]}/"
    try:
        driver = shared_chromium.afresh()
        driver.get(address)
        driver.execute_script("localStorage.setItem('triage-language', 'fr'); sessionStorage.setItem('left', '1')")
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print", "features": []})
        driver.set_window_size(800, 600)
        driver.get(address)
        assert sent == [None, "left=1"] and driver.execute_script("return matchMedia('print').matches")

        driver = shared_chromium.afresh()
        assert driver.current_url == "about:blank"
        driver.get(address)
        assert sent[-1] is None
        assert driver.execute_script("return [localStorage.length, sessionStorage.length, matchMedia('print').matches]") \
            == [0, 0, False]
        assert driver.get_window_size() == {"width": 1400, "height": 900}
    finally:
        site.shutdown()


def test_a_shared_browser_a_test_left_unusable_is_replaced(shared_chromium):
    shared_chromium.afresh().quit()  # as if it had crashed
    driver = shared_chromium.afresh()
    driver.get("data:text/html,<title>again</title>")
    assert driver.title == "again"


def test_a_reviewer_goes_through_the_demo_queue_with_the_keyboard(browser, demo, tmp_path):
    classified, ws_path = demo
    server = Server(ws_path)
    try:
        browser.get(server.address)
        ready(browser)
        with Workspace.open(ws_path) as ws:
            order = [item.id for item in ws.items(limit=1000)]
        assert current_id(browser) == order[0]

        # 1. Hide a word by clicking it, then accept with Enter.
        first = current_id(browser)
        word = browser.find_elements(By.CSS_SELECTOR, "#message .word")[0]
        clicked = word.text
        word.click()
        assert clicked in [e.find_element(By.CSS_SELECTOR, ".original").get_attribute("textContent")
                           for e in browser.find_elements(By.CSS_SELECTOR, "#message .hidden-item")]
        press(browser, Keys.ENTER)
        second = wait_for_next(browser, first)

        # 2. A missed span: select characters, press m, then 2 for NOM, then accept.
        text = browser.find_element(By.ID, "message").get_attribute("textContent")
        target = next(w for w in text.split() if w.isalpha() and len(w) >= 4)
        browser.execute_script(
            """const [box, word] = arguments;
               const node = [...box.querySelectorAll('.word')].find(n => n.textContent === word).firstChild;
               const range = document.createRange(); range.setStart(node, 0); range.setEnd(node, word.length);
               const sel = window.getSelection(); sel.removeAllRanges(); sel.addRange(range);""",
            browser.find_element(By.ID, "message"), target)
        press(browser, "m", "2")
        chips = browser.find_elements(By.CSS_SELECTOR, "#message .hidden-item")
        assert any(c.get_attribute("textContent").startswith("NOM") for c in chips)
        press(browser, Keys.ENTER)
        third = wait_for_next(browser, second)

        # 3. Undo brings the second message back, undecided; decide it again (t keeps what is hidden).
        press(browser, "u")
        WebDriverWait(browser, 10).until(lambda d: current_id(d) == second)
        with Workspace.open(ws_path) as ws:
            assert ws.item(second).status == "pending"
        press(browser, "j", "h", "t")  # focus the first word, hide it, mark TA
        assert wait_for_next(browser, second) == third

        # 4. Reload: the page resumes where the reviewer stopped.
        browser.refresh()
        ready(browser)
        assert current_id(browser) == third

        # 5. Restart the server: nothing is lost.
        server.stop()
        server = Server(ws_path, token="second-session")
        browser.get(server.address)
        ready(browser)
        assert current_id(browser) == third

        # 6. Through the rest of the queue with Enter alone.
        seen = 3
        current = third
        while current:
            press(browser, Keys.ENTER)
            current = wait_for_next(browser, current)
            seen += 1
            assert seen <= len(order) + 1
        assert "All" in browser.find_element(By.CSS_SELECTOR, ".done").text
    finally:
        server.stop()

    with Workspace.open(ws_path) as ws:
        assert ws.undecided() == 0
        one = ws.item(first)
        assert one.label == "TA" and any(one.text[s:e] == clicked for s, e, _ in one.spans)
        two = ws.item(second)
        assert two.label == "TA" and any(one_tag == "PRE" for _, _, one_tag in two.spans)
        actions = [e["action"] for e in ws.history(second)]
        assert actions == ["decide", "undo", "decide"]

    from typer.testing import CliRunner

    from triage.cli import app

    applied = CliRunner().invoke(app, ["queue", "apply", str(ws_path), str(classified), "-o", str(tmp_path / "final.csv")])
    assert applied.exit_code == 0, applied.output
    assert "0 still undecided" in applied.output


def test_untrusted_text_is_shown_as_text(browser, tmp_path):
    hostile = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script> Kevin'
    path = write_queued(tmp_path / "c.csv", hostile, '["Kevin"]')
    workspace, _ = open_synced(path, tmp_path / "ws.sqlite", audit=0)
    workspace.close()
    server = Server(tmp_path / "ws.sqlite")
    try:
        browser.get(server.address)
        ready(browser)
        assert browser.find_element(By.ID, "message").get_attribute("textContent") == hostile
        assert browser.execute_script("return window.pwned === undefined")
        assert not browser.find_elements(By.CSS_SELECTOR, "#message img, #message script")
    finally:
        server.stop()


def test_a_frequent_word_asks_for_confirmation_in_the_words_view(browser, demo):
    _, ws_path = demo
    with Workspace.open(ws_path) as ws:
        ws._db.execute("UPDATE messages SET highlighted = '[\"les\"]' WHERE id = (SELECT id FROM items WHERE rank = 0)")
    server = Server(ws_path)
    try:
        browser.get(server.address)
        ready(browser)
        press(browser, "v")  # the words view
        WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#word-list > li[data-spelling]"))
        spellings = [li.get_attribute("data-spelling") for li in browser.find_elements(By.CSS_SELECTOR, "#word-list > li")]
        for _ in range(spellings.index("les")):
            press(browser, "j")
        press(browser, "p")  # a name, into this corpus
        dialog = browser.find_element(By.ID, "confirm")
        WebDriverWait(browser, 10).until(lambda d: dialog.get_attribute("open") is not None)
        assert "would hide 'les' in" in browser.find_element(By.ID, "confirm-text").text
        press(browser, "y")
        WebDriverWait(browser, 10).until(lambda d: "Learnt" in d.find_element(By.ID, "words-status").text)
    finally:
        server.stop()
    with Workspace.open(ws_path) as ws:
        assert [(e["spelling"], e["kind"], e["scope"]) for e in ws.learnt()] == [("les", "name", "corpus")]


# ------------------------------------------------------------ offsets with emoji
# The server counts code points, a JS string UTF-16 units: an emoji, a flag or a skin tone before
# a name must not shift what the page hides or draws.

# (text, the name a reviewer hides, what the machines hid: words whose spans go in `hidden`)
EMOJI_MESSAGES = [
    ("coucou 👋🏽 Kevin c\u0327a va ce soir 👍🏿", "Kevin", []),  # skin tones, a combining mark after
    ("🇫🇷🇫🇷 allez les bleus avec Sophie", "Sophie", []),  # flags, the name last
    ("👨‍👩‍👧 la famille de Chloé", "Chloé", []),  # a ZWJ sequence, the name last
    ("e\u0301te\u0301 🌞 avec Rene\u0301e", "Rene\u0301e", []),  # combining marks, inside the name too
    ("🎂🎂 joyeux anniv Karim 🎉 gros bisous", "Karim", []),  # hidden by selecting its characters
    ("🎉 bravo Julie et Hugo 😘😘", None, ["Julie", "Hugo"]),  # hidden by the machines
]


def write_classified(path: Path, messages) -> Path:
    """A classified file of messages queued for a human, in this order, with what the machines hid."""
    import csv
    import json

    from triage.schema import CLASSIFY_COLUMNS

    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(CLASSIFY_COLUMNS)
        for number, (text, _, machine) in enumerate(messages, start=1):
            hidden = [[text.index(word), text.index(word) + len(word), "PRE"] for word in machine]
            writer.writerow([str(number), text, "UNTAGGED", "TA", "0.6", "EXPERT", text, json.dumps(hidden), "[]",
                             str(1 - number / 100)])
    return path


@pytest.fixture
def emoji_workspace(tmp_path):
    path = write_classified(tmp_path / "emoji.csv", EMOJI_MESSAGES)
    workspace, _ = open_synced(path, tmp_path / "emoji.review.sqlite", audit=0)
    workspace.close()
    return tmp_path / "emoji.review.sqlite"


def select_word(driver, word):
    driver.execute_script(
        """const [box, word] = arguments;
           const node = [...box.querySelectorAll('.word')].find(n => n.textContent === word).firstChild;
           const range = document.createRange(); range.setStart(node, 0); range.setEnd(node, word.length);
           const sel = window.getSelection(); sel.removeAllRanges(); sel.addRange(range);""",
        driver.find_element(By.ID, "message"), word)


def drawn(driver) -> list[str]:
    originals = driver.find_elements(By.CSS_SELECTOR, "#message .hidden-item .original")
    return [e.get_attribute("textContent") for e in originals]


def test_names_after_emoji_are_hidden_and_drawn_exactly(browser, emoji_workspace):
    server = Server(emoji_workspace)
    try:
        browser.get(server.address)
        ready(browser)
        for number, (_, name, machine) in enumerate(EMOJI_MESSAGES, start=1):
            WebDriverWait(browser, 10).until(lambda d, n=number: current_id(d) == str(n))
            if machine:
                assert drawn(browser) == machine  # the machines' items over the right letters
            elif number == 5:
                select_word(browser, name)
                press(browser, "m")
                assert drawn(browser) == [name]
            else:
                next(w for w in browser.find_elements(By.CSS_SELECTOR, "#message .word") if w.text == name).click()
                assert drawn(browser) == [name]
            press(browser, Keys.ENTER)
        WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".done"))
        assert "error" not in browser.find_element(By.ID, "status").get_attribute("class")
    finally:
        server.stop()
    with Workspace.open(emoji_workspace) as ws:
        for number, (_, name, machine) in enumerate(EMOJI_MESSAGES, start=1):
            item = ws.item(str(number))
            assert item.label == "TA", item
            assert [item.text[s:e] for s, e, _ in item.spans] == (machine or [name])


def test_a_decision_on_a_text_changed_since_shows_the_message_anew_and_stores_nothing(browser, emoji_workspace):
    server = Server(emoji_workspace)
    try:
        browser.get(server.address)
        ready(browser)
        assert current_id(browser) == "1"
        # The corpus classified again while the page shows message 1: its text changed.
        changed = [("👋🏽👋🏽 coucou Kevin tu viens ce soir", *EMOJI_MESSAGES[0][1:]), *EMOJI_MESSAGES[1:]]
        with Workspace.open(emoji_workspace) as ws:
            ws.sync(write_classified(emoji_workspace.with_name("changed.csv"), changed), audit=0)
        next(w for w in browser.find_elements(By.CSS_SELECTOR, "#message .word") if w.text == "Kevin").click()
        press(browser, Keys.ENTER)
        WebDriverWait(browser, 10).until(lambda d: "changed since" in d.find_element(By.ID, "status").text)
        assert current_id(browser) == "1" and drawn(browser) == []  # shown anew, as it is now
        assert browser.find_element(By.ID, "message").get_attribute("textContent") == changed[0][0]
        with Workspace.open(emoji_workspace) as ws:
            assert ws.history("1") == [] and ws.item("1").status == "pending"
        next(w for w in browser.find_elements(By.CSS_SELECTOR, "#message .word") if w.text == "Kevin").click()
        press(browser, Keys.ENTER)
        assert wait_for_next(browser, "1") == "2"
    finally:
        server.stop()
    with Workspace.open(emoji_workspace) as ws:
        item = ws.item("1")
        assert [item.text[s:e] for s, e, _ in item.spans] == ["Kevin"] and item.text == changed[0][0]


def test_the_pages_offsets_convert_to_code_points_and_back_for_any_text(browser, emoji_workspace):
    """spansFromServer and spansToServer (review.js) on any text: a span of code points drawn on the
    page covers the same characters, and comes back as the same code points."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    server = Server(emoji_workspace)
    try:
        browser.get(server.address)
        ready(browser)
        pieces = st.sampled_from(["a", "é", "e\u0301", " ", "👋🏽", "🇫🇷", "👨‍👩‍👧", "😀", "𝔘", "\u200d", "Kevin", "\n"])
        any_character = st.characters(blacklist_categories=("Cs",))
        texts = st.lists(st.one_of(pieces, any_character), min_size=1, max_size=30).map("".join)

        @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
        @given(texts, st.data())
        def check(text, data):
            bounds = sorted(data.draw(st.lists(st.integers(0, len(text)), min_size=2, max_size=2, unique=True)))
            spans = [[bounds[0], bounds[1], "PRE"]]
            drawn_slice, back = browser.execute_script(
                """const [text, spans] = arguments; const page = spansFromServer(text, spans);
                   return [text.slice(page[0][0], page[0][1]), spansToServer(text, page)];""", text, spans)
            assert drawn_slice == text[bounds[0]:bounds[1]]
            assert back == spans

        check()
    finally:
        server.stop()


def test_decided_spans_drawn_after_a_reload_are_what_the_workspace_stores(browser, emoji_workspace):
    # Decided outside the page, some spans holding emoji themselves: the page draws exactly them.
    words = {"1": ["👋🏽 Kevin"], "2": ["🇫🇷🇫🇷", "Sophie"], "3": ["👨‍👩‍👧", "Chloé"], "4": ["Rene\u0301e"],
             "5": ["Karim 🎉"]}
    stored = {}
    with Workspace.open(emoji_workspace) as ws:
        for ident, hidden in words.items():
            text = ws.item(ident).text
            spans = [[text.index(w), text.index(w) + len(w), "NOM"] for w in hidden]
            ws.decide(ident, label="TA", spans=spans, reviewer="ana", text_hash=ws.item(ident).text_hash)
            stored[ident] = [text[s:e] for s, e, _ in ws.item(ident).spans]
    assert stored == words
    server = Server(emoji_workspace)
    try:
        for _ in range(2):  # the first load, then a reload
            browser.get(server.address)
            ready(browser)
            assert current_id(browser) == "6" and drawn(browser) == ["Julie", "Hugo"]
            for ident, words in stored.items():
                browser.find_element(By.CSS_SELECTOR, f"#item-list li[data-message-id='{ident}']").click()
                WebDriverWait(browser, 10).until(lambda d, i=ident: current_id(d) == i)
                assert drawn(browser) == words
            browser.refresh()
    finally:
        server.stop()


def test_the_words_view_marks_the_word_itself_after_emoji(browser, tmp_path):
    path = write_queued(tmp_path / "c.csv", "🇫🇷👋🏽 salut Kevin 😀 tu viens", '["Kevin"]')
    workspace, _ = open_synced(path, tmp_path / "ws.sqlite", audit=0)
    workspace.close()
    server = Server(tmp_path / "ws.sqlite")
    try:
        browser.get(server.address)
        ready(browser)
        press(browser, "v")  # the words view
        WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#word-list .examples mark"))
        assert [m.text for m in browser.find_elements(By.CSS_SELECTOR, "#word-list .examples mark")] == ["Kevin"]
    finally:
        server.stop()
