"""Two reviewers in the real browser (Chromium through Selenium): an action the page took on what it
showed, when another reviewer changed it since, is refused; the page then shows the current state
and says why in its status line, in the page's language. The other reviewer acts through the
workspace, as their own server would."""

import pytest
from test_review_browser import CHROMEDRIVER, CHROMIUM, ready  # noqa: F401  (the skip rules)
from test_review_browser import browser  # noqa: F401  (a fixture)
from test_review_team_browser import Server, shoot, team_workspace  # noqa: F401  (a fixture)

from triage.review_workspace import Workspace

pytestmark = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason="no Chromium and chromedriver here")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


def in_french(browser):
    browser.execute_script("localStorage.setItem('triage-language', 'fr')")
    browser.refresh()
    ready(browser)
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "fr"


def rolande_in_the_words_view(browser, team_workspace):
    """ana's page in French, on the Words view, with the card of the word Rolande (message 6): (the
    server, the card). The caller stops the server."""
    with Workspace.open(team_workspace) as ws:
        ws._db.execute("UPDATE messages SET highlighted = '[\"Rolande\"]' WHERE id = '6'")
    server = Server(team_workspace, "ana")
    try:
        browser.get(server.address)
        ready(browser)
        in_french(browser)
        browser.find_element(By.CSS_SELECTOR, ".tab[data-view=words]").click()
        card = WebDriverWait(browser, 10).until(
            lambda d: d.find_elements(By.CSS_SELECTOR, "#word-list > li[data-spelling=rolande]"))[0]
    except BaseException:
        server.stop()
        raise
    return server, card


def test_a_skip_of_a_message_another_reviewer_decided_meanwhile_is_refused_and_shows_their_decision(
        browser, team_workspace):  # noqa: F811
    server = Server(team_workspace, "ana")
    try:
        browser.get(server.address)
        ready(browser)
        in_french(browser)
        shown = browser.find_element(By.ID, "message").get_attribute("data-message-id")
        with Workspace.open(team_workspace) as bob:
            bob._db.execute("DELETE FROM leases")  # ana's lease ran out (her computer slept)
            text = bob.item(shown).text
            word = text.split()[0]
            bob.decide(shown, label="TA", spans=[[0, len(word), "PRE"]], reviewer="bob")
        browser.find_element(By.TAG_NAME, "body").send_keys("s")  # ana skips what she saw
        status = browser.find_element(By.ID, "status")
        WebDriverWait(browser, 10).until(lambda d: "Rien n'a été enregistré" in status.text)
        assert f"le message {shown} a été modifié par bob" in status.text and "tel qu'il est maintenant" in status.text
        assert browser.find_element(By.ID, "message").get_attribute("data-message-id") == shown
        assert "décidé TA" in browser.find_element(By.ID, "badges").text  # the message as it now is
        assert browser.find_element(By.ID, "conflict").is_displayed()
        shoot(browser, "skip-refused")
    finally:
        server.stop()
    with Workspace.open(team_workspace) as ws:
        item = ws.item(shown)
        assert (item.status, item.reviewer) == ("decided", "bob")
        assert [e["action"] for e in ws.history(shown)] == ["decide"]


def test_the_lead_keeping_a_decision_a_reviewer_changed_meanwhile_is_refused_and_the_list_shows_it(
        browser, team_workspace):  # noqa: F811
    with Workspace.open(team_workspace) as ws:
        ws.mark_double(0.1)
        (ident,) = ws.double_ids()
        words = ws.item(ident).text.split()
        ws.decide(ident, label="TA", spans=[[0, len(words[0]), "PRE"]], reviewer="ana")
        ws.decide(ident, label="NTA", spans=[], reviewer="bob")
    server = Server(team_workspace, "lea", lead=True)
    try:
        browser.get(server.address)
        ready(browser)
        browser.find_element(By.CSS_SELECTOR, '.tab[data-view="adjudicate"]').click()
        WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#dispute-list .side"))
        sides = browser.find_elements(By.CSS_SELECTOR, "#dispute-list .side h3")
        assert [s.text for s in sides] == ["ana: TA", "bob: NTA"]
        with Workspace.open(team_workspace) as bob:  # bob takes his NTA back and hides the second word
            bob.undo(reviewer="bob")
            text = bob.item(ident).text
            second = text.index(words[1], len(words[0]))
            bob.decide(ident, label="TA", spans=[[second, second + len(words[1]), "NOM"]], reviewer="bob")
            assert bob.item(ident).status == "disputed"
        browser.find_element(By.TAG_NAME, "body").send_keys("2")  # keep bob's NTA, as shown
        status = browser.find_element(By.ID, "adjudicate-status")
        WebDriverWait(browser, 10).until(lambda d: "Nothing was resolved" in status.text)
        assert f"bob changed message {ident} since the page showed it" in status.text
        WebDriverWait(browser, 10).until(
            lambda d: [s.text for s in d.find_elements(By.CSS_SELECTOR, "#dispute-list .side h3")] == ["ana: TA", "bob: TA"])
        shoot(browser, "adjudicate-refused")
    finally:
        server.stop()
    with Workspace.open(team_workspace) as ws:
        item = ws.item(ident)
        assert item.status == "disputed"
        assert not [e for e in ws.history(ident) if e["action"] == "adjudicate"]


def test_undoing_a_learnt_entry_a_colleague_undid_meanwhile_shows_the_list_as_it_is(
        browser, team_workspace):  # noqa: F811
    with Workspace.open(team_workspace) as ws:
        entry = ws.learn("Lisette", kind="name", scope="corpus", reviewer="ana")
    server = Server(team_workspace, "ana")
    try:
        browser.get(server.address)
        ready(browser)
        in_french(browser)
        browser.find_element(By.CSS_SELECTOR, '.tab[data-view="learnt"]').click()
        row = f'#learnt-rows tr[data-entry="{entry["id"]}"]'
        WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, row))
        with Workspace.open(team_workspace) as bob:
            bob.unlearn(entry["id"], reviewer="bob")
        browser.find_element(By.CSS_SELECTOR, f"{row} button").click()
        status = browser.find_element(By.ID, "learnt-status")
        WebDriverWait(browser, 10).until(lambda d: "Rien n'a été changé" in status.text)
        assert "défaite par bob" in status.text
        WebDriverWait(browser, 10).until(
            lambda d: "inactive" in d.find_element(By.CSS_SELECTOR, row).get_attribute("class"))
    finally:
        server.stop()
    with Workspace.open(team_workspace) as ws:
        (row,) = ws.learnt()
        assert row["undone_by"] == "bob"


def test_an_undo_after_another_page_of_the_reviewer_acted_undoes_nothing_and_shows_the_list_anew(
        browser, team_workspace):  # noqa: F811
    server = Server(team_workspace, "ana")
    try:
        browser.get(server.address)
        ready(browser)
        first = browser.find_element(By.ID, "message").get_attribute("data-message-id")
        browser.find_element(By.TAG_NAME, "body").send_keys("n")  # NTA
        WebDriverWait(browser, 10).until(
            lambda d: d.find_element(By.ID, "message").get_attribute("data-message-id") != first
            and d.find_elements(By.CSS_SELECTOR, f'#history-list li.last[data-message-id="{first}"]'))
        with Workspace.open(team_workspace) as elsewhere:  # another page of ana's decides the last message
            last = elsewhere.items(limit=10)[-1].id
            elsewhere.decide(last, label="NTA", spans=[], reviewer="ana")
        browser.find_element(By.TAG_NAME, "body").send_keys("u")
        status = browser.find_element(By.ID, "status")
        WebDriverWait(browser, 10).until(lambda d: "Nothing was undone" in status.text)
        assert "no longer the one this page showed" in status.text
        WebDriverWait(browser, 10).until(
            lambda d: d.find_elements(By.CSS_SELECTOR, f'#history-list li.last[data-message-id="{last}"]'))
    finally:
        server.stop()
    with Workspace.open(team_workspace) as ws:
        assert ws.item(first).status == ws.item(last).status == "decided"


def test_learning_a_word_a_colleague_learnt_meanwhile_is_refused_and_the_words_view_shows_it(
        browser, team_workspace):  # noqa: F811
    with Workspace.open(team_workspace) as ws:
        ws._db.execute("UPDATE messages SET highlighted = '[\"Lisette\"]' WHERE id = '3'")
    server, card = rolande_in_the_words_view(browser, team_workspace)
    try:
        with Workspace.open(team_workspace) as bob:  # bob makes it an ordinary word meanwhile
            bob.learn("rolande", kind="word", scope="corpus", reviewer="bob", confirm=True,
                      digest=bob.word_digest("rolande"))
        card.find_element(By.CSS_SELECTOR, ".learn-name").click()  # ana: a name, as the view showed it
        status = browser.find_element(By.ID, "words-status")
        WebDriverWait(browser, 10).until(lambda d: "Rien n'a été appris" in status.text)
        assert "« rolande » a changé depuis que la page l'a affiché" in status.text
        WebDriverWait(browser, 10).until(
            lambda d: not d.find_elements(By.CSS_SELECTOR, "#word-list > li[data-spelling=rolande]"))
        assert browser.find_elements(By.CSS_SELECTOR, "#word-list > li[data-spelling=lisette]")
        shoot(browser, "learn-refused")
    finally:
        server.stop()
    with Workspace.open(team_workspace) as ws:
        assert [(e["spelling"], e["kind"], e["reviewer"]) for e in ws.learnt(active_only=True)] == [
            ("rolande", "word", "bob")]


def test_an_undo_right_after_a_bulk_decision_names_it_and_takes_it_back(browser, team_workspace):  # noqa: F811
    from selenium.webdriver.support.ui import Select

    server = Server(team_workspace, "ana")
    try:
        browser.get(server.address)
        ready(browser)
        first = browser.find_element(By.ID, "message").get_attribute("data-message-id")
        browser.find_element(By.TAG_NAME, "body").send_keys("n")  # a decision first: the list shows it
        WebDriverWait(browser, 10).until(
            lambda d: d.find_elements(By.CSS_SELECTOR, f'#history-list li.last[data-message-id="{first}"]'))
        browser.find_element(By.ID, "filter-q").send_keys("chez")
        WebDriverWait(browser, 10).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#item-list li[data-message-id]")) == 3)
        browser.find_element(By.ID, "bulk-open").click()
        Select(browser.find_element(By.ID, "bulk-action")).select_by_value("nta")
        WebDriverWait(browser, 10).until(lambda d: "3 messages found" in d.find_element(By.ID, "bulk-text").text)
        browser.find_element(By.ID, "bulk-yes").click()
        WebDriverWait(browser, 10).until(lambda d: "decided at once" in d.find_element(By.ID, "status").text)
        browser.find_element(By.TAG_NAME, "body").send_keys("u")  # the list of last decisions shows the bulk one first
        WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "status").text.startswith("Undone"))
    finally:
        server.stop()
    with Workspace.open(team_workspace) as ws:
        assert [i.id for i in ws.items(status="decided")] == [first]  # the bulk decision undone, not the one before


def test_a_bulk_decision_whose_list_another_reviewer_changed_meanwhile_is_refused_and_previewed_anew(
        browser, team_workspace):  # noqa: F811
    from selenium.webdriver.support.ui import Select

    server = Server(team_workspace, "ana")
    try:
        browser.get(server.address)
        ready(browser)
        in_french(browser)
        browser.find_element(By.ID, "filter-q").send_keys("chez")
        WebDriverWait(browser, 10).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#item-list li[data-message-id]")) == 3)
        browser.find_element(By.ID, "bulk-open").click()
        Select(browser.find_element(By.ID, "bulk-action")).select_by_value("nta")
        text = browser.find_element(By.ID, "bulk-text")
        WebDriverWait(browser, 10).until(lambda d: "3 messages trouvés — décidés pour la première fois : 3" in text.text)
        with Workspace.open(team_workspace) as bob:  # bob hides Rolande in one of them meanwhile
            bob.decide("6", label="TA", spans=[[25, 32, "PRE"]], reviewer="bob")
        browser.find_element(By.ID, "bulk-yes").click()
        WebDriverWait(browser, 10).until(lambda d: text.text.startswith("Rien n'a été décidé : la liste a changé"))
        assert "laissés à l'équipe (ceux d'un autre relecteur, une double relecture ou un désaccord) : 1" in text.text  # the preview as the list now is: bob's decision is left alone
        assert browser.find_element(By.ID, "status").text.startswith("Rien n'a été décidé")
    finally:
        server.stop()
    with Workspace.open(team_workspace) as ws:
        assert [(i.id, i.reviewer) for i in ws.items(status="decided")] == [("6", "bob")]


def test_a_concordance_mark_on_a_message_another_reviewer_decided_meanwhile_is_refused(browser, team_workspace):  # noqa: F811
    from selenium.webdriver.support.ui import Select

    server, card = rolande_in_the_words_view(browser, team_workspace)
    try:
        card.find_element(By.CSS_SELECTOR, ".concordance-open").click()
        rows = WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#conc-rows tr"))
        Select(rows[0].find_element(By.TAG_NAME, "select")).select_by_value("name")
        with Workspace.open(team_workspace) as bob:
            bob.decide("6", label="TA", spans=[[25, 32, "NOM"]], reviewer="bob")
        browser.find_element(By.ID, "conc-apply").click()
        status = browser.find_element(By.ID, "conc-status")
        WebDriverWait(browser, 10).until(lambda d: status.text.startswith("Rien n'a été décidé : un message de ce mot"))
    finally:
        server.stop()
    with Workspace.open(team_workspace) as ws:
        item = ws.item("6")
        assert (item.reviewer, item.spans) == ("bob", [[25, 32, "NOM"]])
