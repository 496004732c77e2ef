"""One run as a team makes it, end to end, in two real browsers (Chromium through Selenium, as
tests/test_review_team_network_browser.py): about 2,000 invented French SMS (tests/team_corpus.py)
classified with `triage classify --workspace`; the lead serves them with `triage review --lead
--double --host 0.0.0.0` (a real process) and opens the address it prints (127.0.0.1), a colleague
joins through the link `triage review --invite bob` printed, on another address of this machine (its
network address, else 127.0.0.2); both decide messages in their page, among them blind double
reviews that they decide differently, and the lead resolves those in the Adjudicate view; the rest
is decided through the workspace as their servers would; the Consistency page decides a page of
cases at once after its preview, `triage review --consistency-all hide --yes` the rest; `triage
release` then writes the corpus, whose datasheet is checked line by line against what happened.

Screenshots of both pages at 1400 and 800 px go to $TRIAGE_SHOTS (default /tmp/shots-e2e)."""

import csv
import getpass
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from team_corpus import write_team_corpus
from test_review_browser import CHROMEDRIVER, CHROMIUM, current_id, press, ready  # noqa: F401
from test_review_browser import browser  # noqa: F401  (a fixture)
from test_review_team_browser import shoot

from triage.review_workspace import Workspace
from triage.review_workspace.server import is_local, network_address

pytestmark = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason="no Chromium and chromedriver here")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

SHOTS = Path(os.environ.get("TRIAGE_SHOTS", "/tmp/shots-e2e"))
HOST = "0.0.0.0"  # every address of this machine: the lead's own (127.0.0.1) and the colleague's
DOUBLE = 0.3  # share of the queue and of the audit decided blind by both
IN_BROWSER = 30  # messages each reviewer decides in the page (at least)
DISPUTES = 3  # double reviews the colleague decides otherwise than the lead, in the page


@pytest.fixture
def colleague(tmp_path, monkeypatch):
    """A second browser, of another profile: the colleague's computer."""
    from test_review_browser import chromium

    monkeypatch.setenv("SE_OFFLINE", "true")
    driver = chromium(tmp_path / "chrome-colleague")
    yield driver
    driver.quit()


def free_port(host: str) -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def start_server(classified: Path, ws: Path, port: int) -> tuple[subprocess.Popen, str]:
    """`triage review --lead --double` as the lead types it: the process and the address it prints."""
    process = subprocess.Popen(
        [sys.executable, "-m", "triage", "review", str(classified), "--workspace", str(ws), "--lead",
         "--double", str(DOUBLE), "--host", HOST, "--port", str(port), "--no-browser", "--reviewer", "lea"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ready_to_read, _, _ = select.select([process.stdout], [], [], 60)
    assert ready_to_read, "the server printed no address"
    line = process.stdout.readline()
    found = re.search(r"https?://\S+", line)
    assert found, line + process.stderr.read() if process.poll() is not None else line
    return process, found.group(0)


def stop_server(process: subprocess.Popen) -> str:
    """Ctrl-C, as the lead stops it: its console's last lines."""
    process.send_signal(signal.SIGINT)
    try:
        _, err = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
    return err


def wait_for_next(driver, previous: str) -> str:
    WebDriverWait(driver, 15).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "#message .done") or current_id(d) != previous)
    return "" if driver.find_elements(By.CSS_SELECTOR, "#message .done") else current_id(driver)


def done(driver) -> bool:
    return bool(driver.find_elements(By.CSS_SELECTOR, "#message .done"))


def hide_first_word_and_accept(driver):
    driver.find_elements(By.CSS_SELECTOR, "#message .word")[0].click()
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ENTER)


def accept(driver):
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ENTER)


def table(markdown: str, heading: str) -> dict[str, str]:
    """The rows of the first table after `heading`: first cell -> second cell."""
    part = markdown.split(heading, 1)[1]
    rows = {}
    for line in part.splitlines()[1:]:
        if line.startswith("|"):
            cells = [c.strip().strip("*") for c in line.strip("|").split("|")]
            if cells[0] and not set(cells[0]) <= {"-"} and cells[0] not in ("route", "reviewer", "tag"):
                rows[cells[0]] = cells[1]
        elif rows:
            break
    return rows


def number(text: str) -> int:
    return int(text.replace(",", ""))


def test_a_team_classifies_reviews_together_and_releases_with_a_true_datasheet(browser, colleague, cli, tmp_path,  # noqa: F811
                                                                               monkeypatch):
    started = time.monotonic()
    SHOTS.mkdir(parents=True, exist_ok=True)
    # The commands are typed in the corpus's folder, with relative paths, as a team does: the datasheet
    # records the command lines as typed (an absolute path would publish the folder's names).
    monkeypatch.chdir(tmp_path)
    source, phones, emails = write_team_corpus(Path("sms.csv"))
    classified, ws = Path("sms.classified.csv"), Path("sms.review.sqlite")

    # 1. classify, into a review workspace.
    result = cli("classify", source, "-o", classified, "--workspace", ws)
    assert result.exit_code == 0, result.output
    assert "2,000 messages" in result.output and "200 queued + 200 audit" in result.output

    # 2. The lead invites bob, then serves with --lead --double on every address of this machine.
    port = free_port(HOST)
    result = cli("review", classified, "--workspace", ws, "--invite", "bob", "--host", HOST, "--port", port)
    assert result.exit_code == 0, result.output
    link = re.search(r"invite: bob: (\S+)", result.output).group(1)
    network = network_address()
    if network is not None:  # the link names the address colleagues reach, never 0.0.0.0
        assert link.startswith(f"http://{network}:{port}/?token="), link
    else:  # loopback only: the link names 127.0.0.1; bob reaches this machine at another loopback address
        assert link.startswith(f"http://127.0.0.1:{port}/?token=") and "no network address" in result.output
        if not is_local("127.0.0.2"):
            pytest.skip("this machine has no second address (no network address, and 127.0.0.2 is not loopback)")
        link = link.replace("//127.0.0.1:", "//127.0.0.2:", 1)
    server, address = start_server(classified, ws, port)
    credited = {"lea": 0, "bob": 0}  # decisions each made, every route
    disputed: list[str] = []
    try:
        assert address.startswith(f"http://127.0.0.1:{port}/")  # the lead is on this computer
        browser.get(address)
        colleague.get(link)
        ready(browser)
        ready(colleague)
        lea_at, bob_at = (re.match(r"https?://([^/:]+):", d.current_url).group(1) for d in (browser, colleague))
        assert lea_at == "127.0.0.1" and bob_at in (network, "127.0.0.2") and bob_at != lea_at  # two addresses
        with Workspace.open(ws) as opened:
            double = opened.double_ids()
        assert len(double) == 60 + 60  # 30% of the queue and of the audit sample
        assert colleague.find_element(By.ID, "who").text == "bob"
        assert browser.find_element(By.CSS_SELECTOR, "#who .lead-badge").text == "lead"
        shoot(browser, "01-lead-messages", SHOTS)
        shoot(colleague, "02-bob-messages", SHOTS)

        # Both decide at once in their pages; bob decides some of lea's blind reviews otherwise.
        lea_ids, bob_ids = [], []
        for _ in range(IN_BROWSER):
            shown = current_id(browser)
            accept(browser)  # lea accepts what the machines propose
            lea_ids.append(shown)
            credited["lea"] += 1
            wait_for_next(browser, shown)
            shown = current_id(colleague)
            with Workspace.open(ws) as opened:
                lea_reviewed = [r["reviewer"] for r in opened.reviews(shown)] == ["lea"]
            if shown in double and lea_reviewed and len(disputed) < DISPUTES:
                note = colleague.find_element(By.ID, "team-note")
                assert note.is_displayed() and "neither sees the other's decision" in note.text
                assert not colleague.find_elements(By.CSS_SELECTOR, "#message .hidden-item.changed")
                if len(disputed) == 0:
                    shoot(colleague, "03-bob-blind-double-review", SHOTS)
                hide_first_word_and_accept(colleague)
                disputed.append(shown)
            else:
                accept(colleague)
            bob_ids.append(shown)
            credited["bob"] += 1
            wait_for_next(colleague, shown)
        assert not set(lea_ids) & set(bob_ids) - double  # a message only double review gives to both
        assert len(disputed) == DISPUTES, "the colleague met too few of the lead's blind reviews"
        with Workspace.open(ws) as opened:
            assert all(opened.item(i).status == "disputed" for i in disputed)
            for i in lea_ids:
                assert "lea" in {e["reviewer"] for e in opened.history(i)}

        # The lead learns a nickname for the corpus (the Words view's request, from her page). The rest,
        # through the workspace, as each reviewer's page would: double reviews are decided by both alike,
        # the others by one reviewer each.
        answer = browser.execute_async_script(
            """const done = arguments[0];
               (async () => {
               const preview = await (await fetch("api/preview?spelling=doudou&kind=name")).json();
               const answer = await fetch("api/learn", {method: "POST", headers: {"Content-Type": "application/json"},
                 body: JSON.stringify({spelling: "doudou", kind: "name", scope: "corpus", tag: "SUR",
                                       confirm: true, digest: preview.digest})});
               done({status: answer.status, body: await answer.json()});
               })();""")
        assert answer["status"] == 200 and answer["body"]["reviewer"] == "lea", answer
        with Workspace.open(ws) as opened:
            turn = 0
            while True:
                held = {i for i in (current_id(browser), current_id(colleague)) if i}
                pending = [it for it in opened.items(status="pending", limit=200) if it.id not in held]
                if not pending:
                    break
                for item in pending:
                    label = "TA" if item.proposal else "NTA"
                    if item.double:
                        who = [r for r in ("lea", "bob") if r not in {x["reviewer"] for x in opened.reviews(item.id)}]
                    else:
                        who = ["lea" if turn % 2 else "bob"]
                        turn += 1
                    for reviewer in who:
                        opened.decide(item.id, label=label, spans=item.proposal, reviewer=reviewer)
                        credited[reviewer] += 1
        # What the pages still show, and what each other's leases kept from them: decided in the pages.
        # Until a round in which neither had anything left: a message one decides in a round may be
        # the other's second review, offered only once the first is in.
        for _ in range(10):
            acted = False
            for driver, reviewer in ((browser, "lea"), (colleague, "bob")):
                driver.refresh()
                ready(driver)
                if not done(driver):
                    shown = current_id(driver)
                    accept(driver)
                    credited[reviewer] += 1
                    wait_for_next(driver, shown)
                    acted = True
            if not acted:
                break
        assert done(browser) and done(colleague)
        shoot(colleague, "04-bob-all-decided", SHOTS)

        # The colleague cannot adjudicate; the lead does, in the Adjudicate view, keeping her own side.
        assert not colleague.find_elements(By.CSS_SELECTOR, '.tab[data-view="adjudicate"]')
        browser.find_element(By.CSS_SELECTOR, '.tab[data-view="adjudicate"]').click()
        WebDriverWait(browser, 10).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#dispute-list li[data-message-id]")) == DISPUTES)
        shoot(browser, "05-lead-adjudicate", SHOTS)
        for message_id in disputed:
            entry = browser.find_element(By.CSS_SELECTOR, f'#dispute-list li[data-message-id="{message_id}"]')
            sides = entry.find_elements(By.CSS_SELECTOR, ".side")
            assert sorted(s.get_attribute("data-reviewer") for s in sides) == ["bob", "lea"]
            keep = next(s for s in sides if s.get_attribute("data-reviewer") == "lea")
            keep.find_element(By.CSS_SELECTOR, "button.keep").click()
            WebDriverWait(browser, 10).until(
                lambda d, gone=message_id: not d.find_elements(By.CSS_SELECTOR, f'#dispute-list li[data-message-id="{gone}"]'))
            credited["lea"] += 1
        WebDriverWait(browser, 10).until(lambda d: "No disagreement left" in d.find_element(By.ID, "dispute-list").text)
        with Workspace.open(ws) as opened:
            assert opened.disputes() == []
            for message_id in disputed:
                item = opened.item(message_id)
                assert (item.status, item.reviewer) == ("decided", "lea")
            assert opened.progress()["left"] == 0
            cases = {c["key"] for c in opened.consistency()}

        # 3. The Consistency page: the cases holding an "r", hidden everywhere at once after the preview.
        root = browser.current_url.split("?")[0].rsplit("/", 1)[0] + "/"
        browser.get(root + "consistency")
        WebDriverWait(browser, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, "body[data-ready=true]"))
        assert len(cases) >= 3, cases  # enough to filter some and decide the rest on the command line
        shoot(browser, "06-lead-consistency", SHOTS)
        chosen = sorted(k for k in cases if "r" in k)
        assert 2 <= len(chosen) < len(cases)
        browser.find_element(By.ID, "filter-q").send_keys("r")
        WebDriverWait(browser, 10).until(
            lambda d: sorted(n.get_attribute("data-key") for n in d.find_elements(By.CSS_SELECTOR, "li.case")) == chosen)
        browser.find_element(By.ID, "filter-q").send_keys(Keys.ESCAPE)
        page_cases = browser.execute_async_script(
            """const done = arguments[0];
               fetch("api/consistency").then(async r => done((await r.json()).map(c => [c.kind, c.key])));""")
        assert sorted(k for _, k in page_cases) == sorted(cases), (page_cases, cases)
        assert f"({len(cases)} in all)" in browser.find_element(By.ID, "summary").text
        browser.find_element(By.ID, "bulk-hide").click()
        dialog = browser.find_element(By.ID, "confirm")
        WebDriverWait(browser, 10).until(lambda d: dialog.get_attribute("open") is not None)
        assert str(len(chosen)) in browser.find_element(By.ID, "confirm-title").text
        shoot(browser, "07-lead-consistency-bulk-preview", SHOTS)
        browser.find_element(By.ID, "confirm-yes").click()
        WebDriverWait(browser, 10).until(
            lambda d: d.find_element(By.ID, "status").text.startswith(f"{len(chosen)} cases decided"))
        shoot(browser, "08-lead-consistency-decided", SHOTS)
        with Workspace.open(ws) as opened:
            decided = opened.consistency_decisions()
        assert {key: v["decision"] for (_, key), v in decided.items()} == {k: "hide" for k in chosen}
        assert {v["reviewer"] for v in decided.values()} == {"lea"}
    finally:
        console = stop_server(server)
    assert "stopped" in console, console

    # The rest of the cases on the command line.
    result = cli("review", classified, "--workspace", ws, "--consistency-all", "hide", "--yes", "--reviewer", "lea")
    assert result.exit_code == 0, result.output
    with Workspace.open(ws) as opened:
        assert all(c["decision"] for c in opened.consistency())
        assert len(opened.consistency_decisions()) == len(cases)
        double_both = sum(1 for i in double if len(opened.reviews(i)) == 2)
        audit = opened.items(kind="audit", limit=200)
        assert len(audit) == 200 and all(it.status == "decided" for it in audit)
        audit_leaks = sum(1 for it in audit if {tuple(x) for x in it.spans} - {tuple(x) for x in it.machine_spans})
        differ = sum(1 for i in disputed if len({r["label"] for r in opened.reviews(i)}) == 2)
        taught = opened.taught()
        learnt = opened.learnt(active_only=True)
        hidden_names = set()
        for item_id, start, end, tag in spans_of_release(opened):
            if tag in ("PRE", "NOM", "SUR"):
                hidden_names.add((item_id, start, end))

    # 4. The release, in the default style.
    corpus = Path("corpus.csv")
    result = cli("release", classified, "--workspace", ws, "-o", corpus)
    assert result.exit_code == 0, result.output
    assert "2,000 messages" in result.output and "style tags" in result.output
    sheet = (tmp_path / "corpus.datasheet.md").read_text(encoding="utf-8")
    record = json.loads((tmp_path / "corpus.datasheet.json").read_text(encoding="utf-8"))
    (SHOTS / "corpus.datasheet.md").write_text(sheet, encoding="utf-8")
    (SHOTS / "corpus.datasheet.json").write_text(json.dumps(record, indent=1, ensure_ascii=False), encoding="utf-8")

    # The released corpus: id and text only, every message, no phone number, e-mail or hidden name.
    with open(corpus, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["id", "text"]
    released = {row[0]: row[1] for row in rows[1:]}
    assert len(released) == 2000
    everything = "\n".join(released.values())
    digits = [re.sub(r"\D", "", text) for text in released.values()]
    for phone in phones:
        assert phone not in everything and not any(re.sub(r"\D", "", phone) in d for d in digits), phone
    for address in emails:
        assert address not in everything and address.split("@")[0] not in everything, address
    with open(source, newline="", encoding="utf-8") as handle:
        originals = {row["id"]: row["text"] for row in csv.DictReader(handle, delimiter=";")}
    names = {originals[i][s:e].lower() for i, s, e in hidden_names}
    assert names
    leaks = sorted({(i, w) for i, text in released.items() for w in re.findall(r"[^\W\d_]+", text.lower()) if w in names})
    assert not leaks, leaks[:10]

    # The datasheet, line by line.
    login = getpass.getuser()
    for secret in ("lea", "bob", login):
        assert not re.search(rf"\b{re.escape(secret)}\b", sheet), secret
        assert not re.search(rf"\b{re.escape(secret)}\b", json.dumps(record, ensure_ascii=False)), secret
    reviewers = table(sheet, "## Review")
    assert reviewers == {"reviewer 1": f"{credited['lea']:,}", "reviewer 2": f"{credited['bob']:,}"}, (reviewers, credited)
    routes = table(sheet, "### Messages by route")
    assert {k: number(v) for k, v in routes.items()} == {
        "released by the machines": 1600, "decided by a reviewer (queue)": 200,
        "decided by a reviewer (audit sample)": 200, "withheld (queued, undecided)": 0, "released": 2000}
    assert ("1,600 messages released by the machines, 200 decided by a reviewer from the queue, "
            "200 from the audit sample") in sheet
    assert (f"Double review: {len(double)} messages marked (30% of the queue and of the audit sample, drawn with a "
            f"seed), {double_both} decided by both reviewers, blind.") in sheet
    assert double_both == len(double)
    assert f"Disagreements resolved by the lead reviewer: {DISPUTES}." in sheet
    learnt_names = sum(1 for e in learnt if e["kind"] == "name")
    learnt_words = sum(1 for e in learnt if e["kind"] == "word")
    assert (learnt_names, learnt_words) == (1, 0)
    line = next(x for x in sheet.splitlines() if x.startswith("Learnt during the review:"))
    assert line.startswith(f"Learnt during the review: {learnt_names} spelling learnt as a name, "
                           f"{learnt_words} spellings as an ordinary word"), line
    marked = sum(1 for t in taught if t["marked"])
    assert f"; {len(taught)} name{'s' if len(taught) != 1 else ''} taught" in line, (line, taught)
    assert f"({marked} of them marked by a reviewer" in line, (line, taught)
    assert "Input sms.csv: read as csv, encoding utf-8, delimiter ';'" in sheet
    assert "with the columns id, text." in sheet
    assert "40 distinct values of the column `donor`" in sheet
    assert "Audit: a seeded random sample of 200 of the 1,800 messages the machines released on their own was drawn, 200 reviewed" in sheet
    review = record["review"]
    assert [(r["name"], r["decisions"]) for r in review["reviewers"]] == [
        ("reviewer 1", credited["lea"]), ("reviewer 2", credited["bob"])]
    assert review["reviewer_names"].startswith("pseudonyms")
    agreement = review["agreement"]
    assert (agreement["marked"], agreement["decided_marked"]) == (len(double), double_both)
    assert agreement["disagreements"] == {"unresolved": 0, "resolved": DISPUTES}
    assert agreement["labels"]["agree"] == len(double) - differ  # the blind labels, as the two gave them
    assert review["unresolved_disagreements_released"] == review["awaiting_second_review_released"] == 0
    assert review["learning"] == {"names_learnt": 1, "words_learnt": 0, "names_taught": len(taught),
                                  "names_marked": marked}
    assert (f"200 reviewed: {audit_leaks} still showed something identifying, "
            f"{audit_leaks / 200:.1%}") in sheet  # the learnt nickname, among others, the machines had left readable
    by_tag = table(sheet, "### Hidden items by tag")
    tags_released = {}
    for tag in re.findall(r"<([A-Z]{3})_\d+>", everything):
        tags_released[tag] = tags_released.get(tag, 0) + 1
    assert {k: number(v) for k, v in by_tag.items()} == tags_released
    consistency_line = next(x for x in sheet.splitlines() if x.startswith("- Consistency:"))
    assert str(len(cases)) in consistency_line, consistency_line
    assert time.monotonic() - started < 180


def spans_of_release(opened: Workspace):
    """(id, start, end, tag) of what the release hides in each listed message, and the machines'
    spans of the others, as the workspace records them."""
    for message_id, spans in opened._db.execute(
            "SELECT m.id, CASE WHEN d.status = 'decided' THEN d.spans ELSE m.hidden END"
            " FROM messages m LEFT JOIN decisions d ON d.id = m.id"):
        for start, end, tag in json.loads(spans or "[]"):
            yield message_id, start, end, tag
