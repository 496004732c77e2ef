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


# ---------------------------------------------------------------- selection

SELECTING = [
    ("🎉 slt Lou tu viens", [], []),  # 1: a short word, double-clicked
    ("😘 bisous Maximilien a demain", [], []),  # 2: a long word, double-clicked
    ("📞 +33612345678Anaïs rappelle moi", [], []),  # 3: part of a word, dragged
    ("🎂 joyeux anniv Karim bisous", [], []),  # 4: a selection from an element boundary
    ("📱 appelle au 06 12 34 56 78 stp", [("06 12 34 56 78", "TEL")], []),  # 5: a phone shown, hidden again
]


def drawn(driver) -> list[str]:
    return [e.get_attribute("textContent") for e in driver.find_elements(By.CSS_SELECTOR, "#message .hidden-item .original")]


def chip_tags(driver) -> list[str]:
    return [e.get_attribute("textContent")[:3] for e in driver.find_elements(By.CSS_SELECTOR, "#message .hidden-item")]


def word(driver, text):
    return next(w for w in driver.find_elements(By.CSS_SELECTOR, "#message .word") if w.get_attribute("textContent") == text)


def drag(driver, element, first: int, last: int) -> None:
    """Press the mouse at the boundary before character `first` of the element's text and release it
    at the boundary before character `last` (UTF-16 units), as a reviewer drags."""
    x1, x2, y = driver.execute_script(
        """const [node, first, last] = arguments; const text = node.firstChild;
           const at = (i) => { const r = document.createRange(); r.setStart(text, i); r.setEnd(text, i + 1);
                               return r.getBoundingClientRect(); };
           const a = at(first), b = at(last);
           return [Math.round(a.left) + 1, Math.round(b.left), Math.round(a.top + a.height / 2)];""",
        element, first, last)
    actions = ActionChains(driver)
    actions.w3c_actions.pointer_action.move_to_location(x1, y).pointer_down().move_to_location((x1 + x2) // 2, y) \
        .move_to_location(x2, y).pointer_up()
    actions.perform()


def accept_and_wait(driver, ident: str) -> None:
    press(driver, Keys.ENTER)
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".done") or current_id(d) != ident)


def test_a_double_click_hides_exactly_the_word_under_it(browser, tmp_path):
    ws_path = make_workspace(tmp_path, SELECTING)
    server = Server(ws_path)
    try:
        open_page(browser, server)
        for ident, name in (("1", "Lou"), ("2", "Maximilien")):
            wait_for(browser, lambda d, i=ident: current_id(d) == i)
            ActionChains(browser).double_click(word(browser, name)).perform()
            time_to_settle(browser)
            assert drawn(browser) == [name]
            assert browser.execute_script("return window.getSelection().isCollapsed")
            accept_and_wait(browser, ident)
    finally:
        server.stop()
    with Workspace.open(ws_path) as ws:
        assert [ws.item(i).text[s:e] for i in ("1", "2") for s, e, _ in ws.item(i).spans] == ["Lou", "Maximilien"]


def time_to_settle(driver):
    """Let the page handle the events already sent (a double click's second click)."""
    driver.execute_script("return new Promise((done) => setTimeout(done, 150))")


def test_dragging_inside_a_word_hides_exactly_the_characters_selected(browser, tmp_path):
    ws_path = make_workspace(tmp_path, SELECTING)
    with Workspace.open(ws_path) as ws:
        for ident in ("1", "2"):
            ws.decide(ident, label="NTA", spans=[], reviewer="ana")
    server = Server(ws_path)
    try:
        open_page(browser, server)
        assert current_id(browser) == "3"
        glued = word(browser, "33612345678Anaïs")  # "+" is not a word character: the word starts at 3
        drag(browser, glued, 0, len("33612345678"))
        time_to_settle(browser)
        assert drawn(browser) == ["33612345678"]
        assert word(browser, "Anaïs")  # the rest of the word stays a word of its own
        press(browser, "5")  # TEL
        assert chip_tags(browser) == ["TEL"]
        accept_and_wait(browser, "3")
    finally:
        server.stop()
    with Workspace.open(ws_path) as ws:
        item = ws.item("3")
        assert [(item.text[s:e], tag) for s, e, tag in item.spans] == [("33612345678", "TEL")]


def test_a_selection_from_or_to_an_element_boundary_hides_its_characters(browser, tmp_path):
    ws_path = make_workspace(tmp_path, SELECTING)
    with Workspace.open(ws_path) as ws:
        for ident in ("1", "2", "3"):
            ws.decide(ident, label="NTA", spans=[], reviewer="ana")
    server = Server(ws_path)
    try:
        open_page(browser, server)
        assert current_id(browser) == "4"
        # From the message box between two pieces (before "Karim") to the end of Karim's element.
        browser.execute_script(
            """const box = document.getElementById('message');
               const karim = [...box.children].find((n) => n.textContent === 'Karim');
               const range = document.createRange();
               range.setStart(box, [...box.childNodes].indexOf(karim)); range.setEnd(karim, 1);
               const sel = window.getSelection(); sel.removeAllRanges(); sel.addRange(range);""")
        press(browser, "m")
        assert drawn(browser) == ["Karim"]
        assert "error" not in browser.find_element(By.ID, "status").get_attribute("class")
        # From the end of "anniv"'s text node to the start of the gap after Karim's chip: only the space
        # and the chip, trimmed to the chip.
        browser.execute_script(
            """const box = document.getElementById('message');
               const anniv = [...box.children].find((n) => n.textContent === 'anniv');
               const range = document.createRange();
               range.setStart(anniv.firstChild, 5); range.setEnd(box, box.childNodes.length);
               const sel = window.getSelection(); sel.removeAllRanges(); sel.addRange(range);""")
        press(browser, "m")
        assert drawn(browser) == ["Karim bisous"]
        assert "error" not in browser.find_element(By.ID, "status").get_attribute("class")
    finally:
        server.stop()


def test_a_phone_shown_again_can_be_hidden_again_whole(browser, tmp_path):
    ws_path = make_workspace(tmp_path, SELECTING)
    with Workspace.open(ws_path) as ws:
        for ident in ("1", "2", "3", "4"):
            ws.decide(ident, label="NTA", spans=[], reviewer="ana")
    server = Server(ws_path)
    try:
        open_page(browser, server)
        assert current_id(browser) == "5" and drawn(browser) == ["06 12 34 56 78"]
        browser.find_element(By.CSS_SELECTOR, "#message .hidden-item").click()  # shown
        assert drawn(browser) == []
        word(browser, "06 12 34 56 78").click()  # one piece: hidden again whole, as TEL
        assert drawn(browser) == ["06 12 34 56 78"] and chip_tags(browser) == ["TEL"]
        press(browser, "h")  # the keyboard too
        assert drawn(browser) == []
        press(browser, "h")
        assert drawn(browser) == ["06 12 34 56 78"] and chip_tags(browser) == ["TEL"]
        accept_and_wait(browser, "5")
    finally:
        server.stop()
    with Workspace.open(ws_path) as ws:
        item = ws.item("5")
        assert [(item.text[s:e], tag) for s, e, tag in item.spans] == [("06 12 34 56 78", "TEL")]


# ------------------------------------------------------------------- layout

LONG = " ".join(["coucou Kevin c'est Anaïs, tu peux rappeler Maxime au 06 12 34 56 78 avant ce soir stp, on se "
                 "retrouve chez Yanis rue des Lilas 🎉"] * 14)[:1500]
LONG_LOOKS = ["Kevin", "Anaïs", "Maxime", "Yanis", "Lilas", "coucou", "rappeler", "retrouve", "soir", "rue", "chez"]


@pytest.mark.parametrize("width", [1400, 800])
def test_on_a_long_message_the_decision_buttons_stay_in_the_window(browser, tmp_path, width):
    rows = [(LONG, [("06 12 34 56 78", "TEL")], LONG_LOOKS), (LONG, [], LONG_LOOKS), (LONG, [], LONG_LOOKS)]
    server = Server(make_workspace(tmp_path, rows))
    try:
        browser.set_window_size(width, 900)
        open_page(browser, server)
        browser.find_element(By.CSS_SELECTOR, "#item-list li[data-message-id='2']").click()  # long neighbours too
        wait_for(browser, lambda d: current_id(d) == "2")
        for button in ("accept", "mark-ta", "mark-nta", "skip"):
            visible = browser.execute_script(
                """const b = document.getElementById(arguments[0]).getBoundingClientRect();
                   const hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
                   return b.bottom <= window.innerHeight && b.top >= 0 && hit !== null && hit.closest('#' + arguments[0]) !== null;""",
                button)
            assert visible, button
        reasons = browser.execute_script("return document.getElementById('reasons').getBoundingClientRect().height")
        assert 0 < reasons <= 150, reasons  # many reasons scroll in their own box
        header = browser.execute_script("return document.querySelector('header.top').getBoundingClientRect().height")
        assert header <= 100, header  # one or two compact rows, never a tall column
        browser.find_element(By.ID, "accept").click()
        wait_for(browser, lambda d: current_id(d) != "2")
    finally:
        server.stop()


# ------------------------------------------------------------- where next


def test_deciding_an_audit_message_goes_to_the_next_audit_message(browser, tmp_path):
    ws_path = make_workspace(tmp_path, SHORT, ["ok a demain 🙂", "bonne nuit", "jarrive dans 5 min"])
    with Workspace.open(ws_path) as ws:
        audit = [item.id for item in ws.items(kind="audit")]
    server = Server(ws_path)
    try:
        open_page(browser, server)
        assert current_id(browser) == "1"
        browser.find_element(By.CSS_SELECTOR, f"#item-list li[data-message-id='{audit[0]}']").click()
        wait_for(browser, lambda d: current_id(d) == audit[0])
        press(browser, Keys.ENTER)
        wait_for(browser, lambda d: current_id(d) != audit[0])
        assert current_id(browser) == audit[1]
        press(browser, "s")  # a skip moves on too
        wait_for(browser, lambda d: current_id(d) == audit[2])
        press(browser, Keys.ENTER)  # the last audit message: back to the first one pending
        wait_for(browser, lambda d: current_id(d) != audit[2])
        assert current_id(browser) == "1"
    finally:
        server.stop()


# --------------------------------------------------------------------- keys

NICKNAMES = [
    ("🎉 slt Lulu tu viens ce soir", [], ["Lulu"]),
    ("Lulu et Yanis arrivent 😘", [], ["Lulu", "Yanis"]),
    ("on mange chez Yanis ?", [], ["Yanis"]),
]


def focus_spelling(driver, spelling):
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#word-list > li[data-spelling]"))
    spellings = [li.get_attribute("data-spelling") for li in driver.find_elements(By.CSS_SELECTOR, "#word-list > li")]
    focused = spellings.index(driver.find_element(By.CSS_SELECTOR, "#word-list > li.focused").get_attribute("data-spelling"))
    for _ in range(abs(spellings.index(spelling) - focused)):
        press(driver, "j" if spellings.index(spelling) > focused else "k")


def test_the_words_view_learns_a_nickname_with_its_tag_and_n_means_nta_only(browser, tmp_path):
    ws_path = make_workspace(tmp_path, NICKNAMES)
    server = Server(ws_path)
    try:
        open_page(browser, server)
        press(browser, "v")  # the Words view
        focus_spelling(browser, "lulu")
        press(browser, "n")  # NTA in the Messages view: nothing here
        press(browser, '"')  # 3 without Shift on AZERTY: SUR
        assert browser.find_element(By.CSS_SELECTOR, "#word-tags button[aria-pressed=true]").text.endswith("SUR")
        press(browser, "p")  # a name
        wait_for(browser, lambda d: "Learnt" in d.find_element(By.ID, "words-status").text)
        wait_for(browser, lambda d: not d.find_elements(By.CSS_SELECTOR, "#word-list > li[data-spelling='lulu']"))
        focus_spelling(browser, "yanis")
        press(browser, "2", "p")  # a surname (NOM)
        wait_for(browser, lambda d: "yanis" in d.find_element(By.ID, "words-status").text)
    finally:
        server.stop()
    with Workspace.open(ws_path) as ws:
        learnt = [(e["spelling"], e["kind"], e["tag"], e["scope"]) for e in ws.learnt()]
        assert learnt == [("lulu", "name", "SUR", "corpus"), ("yanis", "name", "NOM", "corpus")]
        assert ws.progress()["decided"] == 0  # n decided nothing


def test_the_key_map_is_one_object_with_unshifted_keys_each_meaning_one_thing(browser, tmp_path):
    server = Server(make_workspace(tmp_path, SHORT))
    try:
        open_page(browser, server)
        keymap = browser.execute_script("return KEYMAP")
        named = {"Enter", " ", "ArrowRight", "ArrowLeft", "ArrowDown", "ArrowUp"}
        for view, keys in keymap.items():
            for key in keys:
                assert key in named or (len(key) == 1 and key.islower()) or (view == "any" and key == "?"), key
        meaning = {}
        for view in ("messages", "words"):
            for key, action in {**keymap["any"], **keymap[view]}.items():
                assert meaning.setdefault(key, action) == action, (key, meaning[key], action)
        press(browser, "?")
        help_rows = browser.find_elements(By.CSS_SELECTOR, "#keys tr[data-action]")
        listed = {row.get_attribute("data-action") for row in help_rows}
        assert listed == {action for keys in keymap.values() for action in keys.values()}
        press(browser, "?")
        assert browser.find_element(By.ID, "help").get_attribute("open") is None
    finally:
        server.stop()


MARKED = [
    ("🎉 slt Kevin tu connais Yanis ou pas", [("Yanis", "PRE")], ["Kevin"]),
    ("😘 bisous Chloé a demain", [], ["Chloé"]),
    ("ok ça marche", [], []),
]


def focused_text(driver) -> str:
    return driver.find_element(By.CSS_SELECTOR, "#message .focused").get_attribute("textContent")


def test_keys_jump_between_marked_words_reset_and_go_to_a_message(browser, tmp_path):
    ws_path = make_workspace(tmp_path, MARKED)
    server = Server(ws_path)
    try:
        open_page(browser, server)
        press(browser, "f")
        assert focused_text(browser) == "Kevin"  # highlighted
        press(browser, "f")
        assert focused_text(browser) == "PREYanis"  # hidden: its tag, then its original
        press(browser, "d")
        assert focused_text(browser) == "Kevin"
        press(browser, "h", "é")  # hide Kevin; é (2 on AZERTY, no Shift) makes it NOM
        assert sorted(zip(chip_tags(browser), drawn(browser))) == [("NOM", "Kevin"), ("PRE", "Yanis")]
        press(browser, "r")  # back to the machines' proposal
        assert drawn(browser) == ["Yanis"]
        assert "proposal" in browser.find_element(By.ID, "status").text
        press(browser, "g")
        field = browser.find_element(By.ID, "goto-id")
        wait_for(browser, lambda d: d.switch_to.active_element == field)
        field.send_keys("nope", Keys.ENTER)
        wait_for(browser, lambda d: "No message" in d.find_element(By.ID, "goto-error").text)
        field.clear()
        field.send_keys("3", Keys.ENTER)
        wait_for(browser, lambda d: current_id(d) == "3")
        assert browser.find_element(By.ID, "goto").get_attribute("open") is None
        # The field's focus gone with its dialog (a key typed into a field is not the review's).
        wait_for(browser, lambda d: d.switch_to.active_element.tag_name.lower() != "input")
        press(browser, "b")  # back where it came from
        wait_for(browser, lambda d: current_id(d) == "1")
    finally:
        server.stop()


def test_the_last_decisions_are_listed_and_the_last_one_undone_by_a_click(browser, tmp_path):
    ws_path = make_workspace(tmp_path, SHORT)
    server = Server(ws_path)
    try:
        open_page(browser, server)
        history = lambda d: [li.get_attribute("data-message-id") for li in d.find_elements(By.CSS_SELECTOR, "#history-list li[data-message-id]")]  # noqa: E731
        assert history(browser) == []
        press(browser, "n")
        wait_for(browser, lambda d: current_id(d) == "2")
        press(browser, "s")
        wait_for(browser, lambda d: current_id(d) == "3")
        wait_for(browser, lambda d: history(d) == ["2", "1"])
        last = browser.find_element(By.CSS_SELECTOR, "#history-list li.last")
        assert "skipped" in last.text
        browser.find_element(By.ID, "history-undo").click()
        wait_for(browser, lambda d: current_id(d) == "2" and history(d) == ["1"])
        assert "pending" in list_mark(browser, "2")
        browser.find_element(By.CSS_SELECTOR, "#history-list li[data-message-id='1']").click()  # shows it
        wait_for(browser, lambda d: current_id(d) == "1")
    finally:
        server.stop()
    with Workspace.open(ws_path) as ws:
        assert ws.item("1").label == "NTA" and ws.item("2").status == "pending"


def test_a_skipped_message_comes_back_before_the_page_says_all_decided(browser, tmp_path):
    server = Server(make_workspace(tmp_path, SHORT))
    try:
        open_page(browser, server)
        press(browser, "s")  # message 1 skipped
        wait_for(browser, lambda d: current_id(d) == "2")
        for ident in ("2", "3", "4"):
            press(browser, "n")
            wait_for(browser, lambda d, i=ident: current_id(d) != i)
        assert current_id(browser) == "1" and not browser.find_elements(By.CSS_SELECTOR, ".done")
        assert "1 skipped" in browser.find_element(By.ID, "progress-text").text
        press(browser, "n")
        wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".done"))
        assert "All 4 messages" in browser.find_element(By.CSS_SELECTOR, ".done").text
    finally:
        server.stop()
