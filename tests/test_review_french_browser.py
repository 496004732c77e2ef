"""The review page in French, in a real browser (Chromium through Selenium, as
tests/test_review_browser.py): the status line, the list of last decisions, the dialogs and their
buttons speak French after the header's switch; Undo and Cancel never share a word; a bulk undo says
how many decisions it took back; the help opens at its top; the progress line counts the queue and
the audit apart."""

import os
from pathlib import Path

import pytest
from test_review_browser import CHROMEDRIVER, CHROMIUM, Server, browser, current_id, press, ready  # noqa: F401
from test_review_page_basics import make_workspace
from test_review_team import one_disagreement
from test_review_team_browser import shoot as team_shoot

from triage.review_workspace import Workspace
from triage.review_workspace.server import BackgroundServer

pytestmark = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason="no Chromium and chromedriver here")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

SHOTS = Path(os.environ.get("TRIAGE_SHOTS", "/tmp/shots-polish"))

QUEUED = [
    ("slt Kevin tu viens ce soir", [("Kevin", "PRE")], ["Kevin"]),
    ("ok a toute a l heure", [], []),
    ("bisous Chloé demain", [("Chloé", "PRE")], []),
    ("on mange chez Yanis ?", [], ["Yanis"]),
]
RELEASED = ["merci pour hier", "on se voit samedi"]

# The English texts of the page that are still shown as such: every text node (and every open
# dialog's) outside what is never translated (message text, ids, spellings, reasons), whose whole
# text is an English entry of the French table. A French page shows none.
ENGLISH_LEFT = """
const table = TRANSLATIONS.fr;
const found = [];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  const node = walker.currentNode, parent = node.parentElement;
  if (!parent || parent.closest(UNTRANSLATED) || parent.closest("script, option")) continue;
  if (!parent.getClientRects().length) continue;  // not shown
  const text = node.nodeValue.trim();
  if (text && table[text] && table[text] !== text) found.push(text);
}
for (const element of document.querySelectorAll("[title], [aria-label], [placeholder]")) {
  for (const name of ["title", "aria-label", "placeholder"]) {
    const value = element.getAttribute(name);
    if (value && table[value] && table[value] !== value && !element.closest(UNTRANSLATED)) found.push(value);
  }
}
return found;
"""

# Sentences of the page that a French reviewer met in English before: none may be shown.
KNOWN_ENGLISH = ["Hidden “", "Digits change its tag", "Undone", "decided at once", "Back to the machines",
                 "Decided TA by", "found:", "takes it all back", "Keep ", "Edit", "nothing yet", "Cancel", "Undo"]


def shoot(browser, name):
    team_shoot(browser, name, SHOTS)


def status(driver) -> str:
    return driver.find_element(By.ID, "status").text


def wait_status(driver, text):
    WebDriverWait(driver, 10).until(lambda d: status(d) == text)


def in_french(driver, address):
    """Opens the page and chooses French in the header's switch (the page reloads in French)."""
    driver.get(address)
    ready(driver)
    Select(driver.find_element(By.ID, "language")).select_by_value("fr")
    WebDriverWait(driver, 15).until(lambda d: d.execute_script(
        "return document.documentElement.lang === 'fr' && document.body.dataset.ready === 'true'"))


def assert_french(driver):
    assert driver.execute_script(ENGLISH_LEFT) == []
    shown = driver.execute_script("return document.body.innerText")  # what is visible, dialogs included
    for english in KNOWN_ENGLISH:
        assert english not in shown, english


@pytest.fixture
def path(tmp_path):
    return make_workspace(tmp_path, QUEUED, RELEASED)


def test_the_main_actions_speak_french_and_undo_is_not_cancel(browser, path):
    server = Server(path)
    try:
        in_french(browser, server.address)
        assert current_id(browser) == "1"
        # The queue and the audit counted apart.
        assert browser.find_element(By.ID, "progress-text").text.startswith("file 0 / 4 · audit 0 / 2 décidés")
        assert browser.find_element(By.CSS_SELECTOR, "#history-list li.empty").text == "rien encore"
        assert_french(browser)

        press(browser, "r")
        wait_status(browser, "Retour à la proposition des machines : 1 élément masqué.")
        press(browser, "m")  # nothing selected
        wait_status(browser, "Sélectionnez d'abord les caractères à masquer, puis appuyez sur m.")
        # A selection hidden: its status line, with the spelling kept as written.
        browser.execute_script("""
            const node = [...document.querySelectorAll('#message .word')].find((n) => n.textContent === 'viens');
            const range = document.createRange(); range.selectNodeContents(node);
            getSelection().removeAllRanges(); getSelection().addRange(range);""")
        press(browser, "m")
        wait_status(browser, "« viens » masqué comme PRE. Les chiffres changent son étiquette.")
        shoot(browser, "fr-status-hidden")
        assert_french(browser)

        press(browser, Keys.ENTER)  # TA, two items hidden
        WebDriverWait(browser, 10).until(lambda d: current_id(d) == "2")
        WebDriverWait(browser, 10).until(
            lambda d: d.find_element(By.CSS_SELECTOR, "#history-list li.last .what").text == "TA · 2 éléments masqués")
        last = browser.find_element(By.CSS_SELECTOR, "#history-list li.last")
        assert last.get_attribute("title") == "le prochain « Défaire » reprend celle-ci"
        assert browser.find_element(By.ID, "progress-text").text.startswith("file 1 / 4 · audit 0 / 2 décidés")

        press(browser, "s")
        WebDriverWait(browser, 10).until(lambda d: current_id(d) == "3")
        WebDriverWait(browser, 10).until(
            lambda d: d.find_element(By.CSS_SELECTOR, "#history-list li.last .what").text == "mis de côté")
        press(browser, "u")
        wait_status(browser, "Défait : le message 2 est de nouveau en attente.")
        assert current_id(browser) == "2"
        browser.find_element(By.CSS_SELECTOR, "#history-list li[data-message-id='1']").click()
        wait_status(browser, "Décidé TA par ana. Modifiez-le si besoin.")
        assert_french(browser)

        # Undo and Cancel: two words.
        undo_words = {browser.find_element(By.ID, i).text.split()[0] for i in ("undo", "history-undo")}
        assert undo_words == {"Défaire"}
        browser.find_element(By.ID, "bulk-open").click()
        dialog = browser.find_element(By.ID, "bulk")
        WebDriverWait(browser, 10).until(lambda d: "trouvés" in d.find_element(By.ID, "bulk-text").text)
        assert browser.find_element(By.ID, "bulk-no").text.split()[0] == "Annuler"
        text = browser.find_element(By.ID, "bulk-text").text
        assert text == ("1 élément masqué devient lisible dans 1 message (PRE 1). 6 messages trouvés — décidés pour la "
                        "première fois : 5 ; décidés autrement : 1 ; inchangés : 0. Un seul « Défaire » (u) reprend le tout.")
        assert browser.find_element(By.CSS_SELECTOR, "#bulk-examples li b").text == "TA → TA, masque PRE:"
        assert_french(browser)
        browser.find_element(By.ID, "bulk-yes").click()
        WebDriverWait(browser, 10).until(lambda d: dialog.get_attribute("open") is None)
        wait_status(browser, "6 messages décidés d'un coup (défaire : u).")
        press(browser, "u")
        wait_status(browser, "Défait : 6 décisions de la décision groupée.")
        marks = lambda d: {li.get_attribute("data-message-id"): li.find_element(By.CSS_SELECTOR, ".state").text  # noqa: E731
                           for li in d.find_elements(By.CSS_SELECTOR, "#item-list li[data-message-id]")}
        WebDriverWait(browser, 10).until(lambda d: marks(d) == {"1": "TA", "2": "·", "3": "·", "4": "·", "5": "·", "6": "·"})
        assert browser.find_element(By.ID, "progress-text").text.startswith("file 1 / 4 · audit 0 / 2 décidés")
        assert browser.find_element(By.CSS_SELECTOR, "#accept kbd").text == "Entrée"
        assert browser.find_element(By.CSS_SELECTOR, "#bulk-no kbd").get_attribute("textContent") == "Échap"
        shoot(browser, "fr-status-bulk-undo")
        assert_french(browser)
    finally:
        server.stop()
    with Workspace.open(path) as ws:
        assert [item.id for item in ws.items(status="decided")] == ["1"]  # the bulk decision undone whole


def test_the_help_speaks_french_and_opens_at_its_top_every_time(browser, path):
    server = Server(path)
    try:
        in_french(browser, server.address)
        browser.set_window_size(1400, 600)  # the help is longer than the window: it scrolls
        help_dialog = browser.find_element(By.ID, "help")
        top = lambda d: d.execute_script("return document.getElementById('help').scrollTop")  # noqa: E731
        press(browser, "?")
        WebDriverWait(browser, 10).until(lambda d: help_dialog.get_attribute("open") is not None)
        assert top(browser) == 0
        assert browser.find_element(By.CSS_SELECTOR, "#help h2").text == "Clavier"
        undo_row = browser.find_element(By.CSS_SELECTOR, "#keys tr[data-action='undo'] td:last-child").text
        assert undo_row.startswith("défaire votre dernière décision")
        assert "Partout" in [th.text for th in browser.find_elements(By.CSS_SELECTOR, "#keys th")]
        assert_french(browser)
        browser.execute_script("const h = document.getElementById('help'); h.scrollTop = h.scrollHeight;")
        assert top(browser) > 100
        press(browser, Keys.ESCAPE)
        WebDriverWait(browser, 10).until(lambda d: help_dialog.get_attribute("open") is None)
        press(browser, "?")  # again by its key: at its top
        WebDriverWait(browser, 10).until(lambda d: help_dialog.get_attribute("open") is not None)
        assert top(browser) == 0
        browser.execute_script("const h = document.getElementById('help'); h.scrollTop = h.scrollHeight;")
        press(browser, "?")  # ? closes it too
        WebDriverWait(browser, 10).until(lambda d: help_dialog.get_attribute("open") is None)
        browser.find_element(By.ID, "help-button").click()  # and by its button
        WebDriverWait(browser, 10).until(lambda d: help_dialog.get_attribute("open") is not None)
        assert top(browser) == 0
        browser.set_window_size(1400, 900)
        shoot(browser, "fr-help")
    finally:
        server.stop()


def test_the_adjudicate_view_speaks_french(browser, tmp_path):
    path, ident, _ = one_disagreement(tmp_path)
    server = BackgroundServer(path, token="lea-token", reviewer="lea", lead=True)
    try:
        in_french(browser, server.address)
        browser.find_element(By.CSS_SELECTOR, '.tab[data-view="adjudicate"]').click()
        WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#dispute-list .side"))
        keeps = [b.text for b in browser.find_elements(By.CSS_SELECTOR, "#dispute-list button.keep")]
        assert keeps == ["Garder celle de ana 1", "Garder celle de bob 2"]
        assert browser.find_element(By.CSS_SELECTOR, "#dispute-list button.ghost").text == "Modifier e"
        hint = browser.find_element(By.CSS_SELECTOR, "#view-adjudicate .adjudicate-hint").text
        assert hint.startswith("Messages que deux relecteurs ont décidés à l'aveugle, différemment. Garder une décision :")
        assert_french(browser)
        shoot(browser, "fr-adjudicate")
        press(browser, "1")
        WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "adjudicate-status").text
                                         == f"Message {ident} : la décision de ana est gardée (TA).")
    finally:
        server.stop()


def test_in_english_the_queue_and_the_audit_are_counted_apart_and_a_bulk_undo_counts(browser, path):
    server = Server(path)
    try:
        browser.get(server.address)
        ready(browser)
        assert browser.find_element(By.ID, "progress-text").text.startswith("queue 0 / 4 · audit 0 / 2 decided")
        assert browser.find_element(By.ID, "undo").text.split()[0] == "Undo"
        browser.find_element(By.ID, "bulk-open").click()
        dialog = browser.find_element(By.ID, "bulk")
        WebDriverWait(browser, 10).until(lambda d: "found" in d.find_element(By.ID, "bulk-text").text)
        assert browser.find_element(By.ID, "bulk-no").text.split()[0] == "Cancel"
        browser.find_element(By.ID, "bulk-yes").click()
        WebDriverWait(browser, 10).until(lambda d: dialog.get_attribute("open") is None)
        wait_status(browser, "6 messages decided at once (undo: u).")
        WebDriverWait(browser, 10).until(
            lambda d: d.find_element(By.ID, "progress-text").text.startswith("queue 4 / 4 · audit 2 / 2 decided"))
        press(browser, "u")
        wait_status(browser, "Undone: 6 decisions of the bulk decision.")
        WebDriverWait(browser, 10).until(
            lambda d: d.find_element(By.ID, "progress-text").text.startswith("queue 0 / 4 · audit 0 / 2 decided"))
    finally:
        server.stop()


def test_the_servers_errors_are_shown_in_french(browser, path):
    with Workspace.open(path) as workspace:
        link = workspace.invite("bob")
    server = Server(path)
    try:
        in_french(browser, server.link(link))  # bob's page, in French
        # An error the server answers to the page's own request: its French text, params filled in.
        message = browser.execute_async_script(
            """const done = arguments[0];
               api("GET", "/api/items?status=bogus").then(() => done("no error"), (error) => done(error.message));""")
        assert message == ("statut inconnu « bogus » ; utilisez pending, decided, skipped, stale, disputed "
                           "(séparés par des virgules)")
        # A colleague's decision since the page showed the message: the conflict box says why, in French.
        shown = current_id(browser)
        with Workspace.open(path) as workspace:
            item = workspace.item(shown)
            workspace.release_leases({"bob"})
            workspace.decide(shown, label="NTA", spans=[], reviewer="carl")
        press(browser, Keys.ENTER)
        box = browser.find_element(By.ID, "conflict")
        WebDriverWait(browser, 10).until(lambda d: box.is_displayed())
        assert box.find_element(By.CSS_SELECTOR, ".conflict-line").text.startswith(
            f"Le message {item.id} a été décidé par carl depuis que votre page l'a chargé : rien n'a été enregistré")
        shoot(browser, "error-conflict-fr")
        # The link revoked while the page is open: the next decision is refused, in French.
        browser.refresh()
        ready(browser)
        with Workspace.open(path) as workspace:
            workspace.revoke("bob")
        press(browser, Keys.ENTER)
        wait_status(browser, "refusé : ouvrez l'adresse que `triage review` a affichée, ou votre propre lien (il porte "
                             "votre jeton ; un lien révoqué n'ouvre plus la page)")
        shoot(browser, "error-revoked-fr")
    finally:
        server.stop()
    # The server stopped: the page says it does not answer, in French.
    press(browser, "s")
    wait_status(browser, "Le serveur de relecture ne répond pas : `triage review` tourne-t-il encore ?")
    assert_french(browser)
