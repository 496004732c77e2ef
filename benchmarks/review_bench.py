"""How fast the review page opens on a big queue, and how fast a decision is stored.

    python benchmarks/review_bench.py [--queued 20000] [--decisions 200] [--out reports/review_bench.json]

Builds, in a temporary folder, a classified file of synthetic messages (written here, from a small
vocabulary and the INSEE first names, never real messages) of which --queued are queued for a human,
syncs a review workspace from it, serves the page on 127.0.0.1 in a thread of this process and measures:
- sync: reading the classified file into the workspace (with the reasons of every queued message);
- open: what the page asks for when it opens (the page, its scripts and styles, /api/state, the claim
  of the next message (leased to the reviewer), the first page of the list, the first message and its
  lease), over HTTP, median of 5 fresh openings;
- open in Chromium (when Debian's chromium and chromedriver are installed): from navigation to the
  first message shown (the page sets body[data-ready]);
- decide: one POST of a decision (with its text hash and version, on a message leased to the reviewer:
  the lease and conflict checks included), stored in its own transaction, median and 95th percentile;
  the claim of the next message is timed apart (`claim_seconds`).
Targets: open < 1 s, a decision < 50 ms. Never run by the test suite.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

WORDS = ("salut ça va demain soir on se voit chez moi avec les enfants je passe prendre le pain "
         "tu peux rappeler au boulot ce midi bisous merci pour hier rdv à la gare vers 18h").split()
COLUMNS = ["id", "text", "seekhide", "model", "score", "decision", "anonymised", "hidden", "highlighted", "risk"]


def first_names(limit: int = 3000) -> list[str]:
    path = REPO / "dictionaries" / "names" / "first_names.tsv"
    lines = path.read_text("utf-8").splitlines()[1 : limit + 1]
    return [line.split("\t", 1)[0] for line in lines if line]


def write_corpus(path: Path, total: int, queued: int, seed: int) -> None:
    rng = random.Random(seed)
    names = first_names()
    expert = set(rng.sample(range(total), queued))
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS)
        for i in range(total):
            words = rng.choices(WORDS, k=rng.randint(4, 14))
            name = rng.choice(names)
            at = rng.randint(0, len(words))
            words.insert(at, name)
            text = " ".join(words)
            start = text.index(name, sum(len(w) + 1 for w in words[:at]) - (1 if at else 0))
            hidden = [[start, start + len(name), "PRE"]] if i not in expert else []
            decision = "EXPERT" if i in expert else rng.choice(["TA", "NTA"])
            if decision == "NTA":
                hidden = []
            score, risk = rng.random(), rng.random()
            writer.writerow([str(i + 1), text, "UNTAGGED", "TA" if score > 0.5 else "NTA", f"{score:.4f}", decision,
                             text, json.dumps(hidden), json.dumps([name] if i in expert else []), f"{risk:.4f}"])


def timed(call) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def fetch(url: str, token: str, method: str = "GET", body: dict | None = None) -> bytes:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"X-Triage-Token": token, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.read()


def browser_open_seconds(address: str, runs: int) -> list[float] | None:
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.by import By
    except ImportError:
        return None
    if not (chromium and driver_path):
        return None
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--no-first-run"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        driver.get(address)  # sets the cookie
        seconds = []
        for _ in range(runs):
            start = time.perf_counter()
            driver.refresh()
            while not driver.find_elements(By.CSS_SELECTOR, "body[data-ready=true]"):
                time.sleep(0.005)
            seconds.append(time.perf_counter() - start)
        return seconds
    finally:
        driver.quit()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queued", type=int, default=20_000)
    parser.add_argument("--messages", type=int, default=100_000, help="corpus size (queued ones included)")
    parser.add_argument("--decisions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=REPO / "reports" / "review_bench.json")
    args = parser.parse_args(argv)

    import uvicorn

    from triage.review_workspace import open_synced
    from triage.review_workspace.server import Settings, bind, create_app

    folder = Path(tempfile.mkdtemp(prefix="review-bench-"))
    try:
        classified = folder / "corpus.csv"
        write_corpus(classified, args.messages, args.queued, args.seed)
        start = time.perf_counter()
        workspace, summary = open_synced(classified, folder / "ws.sqlite", audit=200)
        sync_seconds = time.perf_counter() - start
        sock = bind(0)
        port = sock.getsockname()[1]
        token = "bench"
        server = uvicorn.Server(uvicorn.Config(create_app(workspace, Settings(token, port, "bench")),
                                               log_level="warning", lifespan="off"))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.01)
        base = f"http://127.0.0.1:{port}"

        def open_page():
            for path in ("/", "/static/review.js", "/static/review.css", "/static/team.js", "/static/adjudicate.js",
                         "/static/team.css"):
                fetch(base + path, token)
            fetch(base + "/api/state", token)
            current = json.loads(fetch(base + "/api/claim", token, "POST", {}))["current"]
            fetch(base + "/api/items?offset=0&limit=50", token)
            fetch(base + f"/api/items/{current}", token)
            fetch(base + f"/api/items/{current}/lease", token, "POST", {})

        opens = [timed(open_page) for _ in range(5)]
        browser = browser_open_seconds(f"{base}/?token={token}", 5)
        decisions, claims = [], []
        for _ in range(args.decisions):
            claimed = {}
            claims.append(timed(lambda claimed=claimed: claimed.update(
                json.loads(fetch(base + "/api/claim", token, "POST", {})))))
            item = json.loads(fetch(base + f"/api/items/{claimed['current']}", token))
            body = {"label": "NTA", "spans": [], "text_hash": item["text_hash"], "version": item["version"]}
            decisions.append(timed(lambda item=item, body=body: fetch(f"{base}/api/items/{item['id']}/decision",
                                                                      token, "POST", body)))
        server.should_exit = True
        thread.join(10)
        workspace.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    decisions.sort()
    result = {
        "messages": args.messages, "queued": summary.queued, "audit": summary.audit,
        "sync_seconds": round(sync_seconds, 3),
        "open_http_seconds": {"median": round(statistics.median(opens), 4), "runs": [round(x, 4) for x in opens]},
        "open_browser_seconds": None if browser is None else
        {"median": round(statistics.median(browser), 4), "runs": [round(x, 4) for x in browser]},
        "decision_seconds": {"median": round(statistics.median(decisions), 4),
                             "p95": round(decisions[int(0.95 * (len(decisions) - 1))], 4), "count": len(decisions)},
        "claim_seconds": {"median": round(statistics.median(claims), 4), "p95": round(sorted(claims)[int(0.95 * (len(claims) - 1))], 4)},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", "utf-8")
    print(json.dumps(result, indent=2))
    opened = (result["open_browser_seconds"] or result["open_http_seconds"])["median"]
    print(f"open: {opened:.3f} s (target < 1 s: {'PASS' if opened < 1 else 'FAIL'}); "
          f"decision: {1000 * result['decision_seconds']['median']:.1f} ms median "
          f"(target < 50 ms: {'PASS' if result['decision_seconds']['median'] < 0.05 else 'FAIL'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
