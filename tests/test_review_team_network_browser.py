"""A team on several computers, in two real browsers (Chromium through Selenium, as
tests/test_review_browser.py): the lead serves the workspace on every address of this machine
(--host 0.0.0.0) and opens the lead's address (127.0.0.1); a colleague opens their own link on
another address: the machine's network address the link names, when it has one, and 127.0.0.2.
They review different messages at once, decide a message of the double review blind, the colleague
cannot adjudicate and the lead resolves the disagreement."""

import pytest
from test_review_browser import CHROMEDRIVER, CHROMIUM, current_id, ready, wait_for_next  # noqa: F401
from test_review_browser import browser  # noqa: F401  (a fixture)
from test_review_team import write_corpus
from test_review_team_browser import SHOTS, shoot

from triage.review_workspace import Workspace, open_synced
from triage.review_workspace.server import BackgroundServer, is_local, network_address

pytestmark = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason="no Chromium and chromedriver here")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

NETWORK = network_address()
ADDRESSES = ["127.0.0.2", NETWORK or "no-network-address"]  # where the colleague opens their link


@pytest.fixture
def colleague(tmp_path, monkeypatch):
    """A second browser, of another profile: the colleague's computer."""
    from test_review_browser import chromium

    monkeypatch.setenv("SE_OFFLINE", "true")
    driver = chromium(tmp_path / "chrome-colleague")
    yield driver
    driver.quit()


def fetch(driver, path: str) -> dict:
    """A request of the page's own script (its cookie, under its secret path): {status, body}."""
    return driver.execute_async_script(
        """const [path, done] = arguments;
           fetch(path).then(async r => done({status: r.status, body: await r.json()}));""", path)


def hide_first_word_and_accept(driver):
    driver.find_elements(By.CSS_SELECTOR, "#message .word")[0].click()
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ENTER)


@pytest.mark.parametrize("address", ADDRESSES)
def test_a_colleague_and_the_lead_review_at_once_on_the_leads_server(browser, colleague, tmp_path, address):
    if address == "no-network-address":
        pytest.skip("this machine has no address but loopback")
    if not is_local(address):
        pytest.skip(f"{address} is not an address of this machine")
    classified = write_corpus(tmp_path / "team.csv")
    path = tmp_path / "team.review.sqlite"
    opened, _ = open_synced(classified, path, audit=0)
    with opened:
        opened.mark_double(1.0)  # every message decided blind by two reviewers
        link = opened.invite("bob")
    server = BackgroundServer(path, token="lead-session-token", reviewer="lea", lead=True, host="0.0.0.0")
    try:
        assert server.address.startswith(f"http://127.0.0.1:{server.port}/")
        given = server.link(link)  # the link the lead gives bob: the network's address, never 0.0.0.0
        assert given.startswith(f"http://{NETWORK or '127.0.0.1'}:{server.port}/?token=")
        browser.get(server.address)  # the lead, on the computer that serves
        colleague.get(given.replace(f"//{NETWORK or '127.0.0.1'}:", f"//{address}:", 1))  # bob, on his own
        assert colleague.current_url.startswith(f"http://{address}:{server.port}/")
        ready(browser)
        ready(colleague)
        lea_first, bob_first = current_id(browser), current_id(colleague)
        assert lea_first and bob_first and lea_first != bob_first  # two messages at once, one each
        with Workspace.open(path) as ws:
            assert ws.lease_of(lea_first)["reviewer"] == "lea" and ws.lease_of(bob_first)["reviewer"] == "bob"

        # Who reviews is the link's name; only the lead's page has the Adjudicate view.
        assert colleague.find_element(By.ID, "who").text == "bob"
        assert browser.find_element(By.CSS_SELECTOR, "#who .lead-badge").text == "lead"
        assert browser.find_element(By.ID, "who").get_attribute("title") == (
            "You review as lea: your decisions are credited to this name.")
        assert not colleague.find_elements(By.CSS_SELECTOR, "#who .lead-badge")
        assert not colleague.find_elements(By.CSS_SELECTOR, '.tab[data-view="adjudicate"]')
        assert browser.find_element(By.CSS_SELECTOR, '.tab[data-view="adjudicate"]').is_displayed()
        shoot(colleague, f"colleague-{address}")
        shoot(browser, f"lead-colleague-at-{address}")

        # Both decide their own message at once; each decision is credited to its link's reviewer.
        browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ENTER)  # lea: nothing to hide (NTA)
        hide_first_word_and_accept(colleague)  # bob hides the first word (TA)
        lea_next = wait_for_next(browser, lea_first)
        wait_for_next(colleague, bob_first)
        assert lea_next != bob_first  # bob's message stays his until both have decided it
        with Workspace.open(path) as ws:
            assert [e["reviewer"] for e in ws.history(lea_first)] == ["lea"]
            assert [e["reviewer"] for e in ws.history(bob_first)] == ["bob"]
            assert ws.item(lea_first).status == "pending"  # blind: a second reviewer still decides it

        # Blind: bob opens lea's first message and sees nothing of her decision.
        colleague.find_element(By.CSS_SELECTOR, f'#item-list li[data-message-id="{lea_first}"]').click()
        WebDriverWait(colleague, 10).until(lambda d: current_id(d) == lea_first)
        note = colleague.find_element(By.ID, "team-note")
        WebDriverWait(colleague, 10).until(lambda d: note.is_displayed())
        assert note.text == "Double review: another reviewer decides this message too; neither sees the other's decision."
        assert "lea" not in colleague.find_element(By.ID, "status").text
        assert not colleague.find_elements(By.CSS_SELECTOR, "#message .hidden-item")
        shoot(colleague, f"colleague-blind-{address}")
        hide_first_word_and_accept(colleague)  # bob disagrees with lea
        wait_for_next(colleague, lea_first)
        with Workspace.open(path) as ws:
            assert ws.item(lea_first).status == "disputed"

        # The colleague's link cannot adjudicate, even by calling the API from his page.
        refused = fetch(colleague, "api/disputes")
        assert refused == {"status": 403,
                           "body": {"error": "refused: only the lead reviewer's link resolves disagreements, not bob's",
                                    "code": "not_lead_link", "params": {"name": "bob"}}}

        # The lead can: both blind decisions side by side, bob's kept.
        browser.find_element(By.CSS_SELECTOR, '.tab[data-view="adjudicate"]').click()
        WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#dispute-list .side"))
        sides = browser.find_elements(By.CSS_SELECTOR, f'#dispute-list li[data-message-id="{lea_first}"] .side')
        assert sorted(s.find_element(By.TAG_NAME, "h3").text for s in sides) == ["bob: TA", "lea: NTA"]
        shoot(browser, f"lead-adjudicate-colleague-at-{address}")
        keep = next(s for s in sides if s.get_attribute("data-reviewer") == "bob")
        keep.find_element(By.CSS_SELECTOR, "button.keep").click()
        WebDriverWait(browser, 10).until(lambda d: "No disagreement left" in d.find_element(By.ID, "dispute-list").text)
    finally:
        server.stop()
    with Workspace.open(path) as ws:
        item = ws.item(lea_first)
        word = item.text.split()[0]
        assert (item.status, item.label, item.spans, item.reviewer) == ("decided", "TA", [[0, len(word), item.spans[0][2]]], "lea")
        assert ws.lease_of(bob_first) is None and ws.lease_of(lea_next) is None  # freed when the server stopped
    assert (SHOTS / f"colleague-{address}-800.png").is_file()
