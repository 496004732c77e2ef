"""Screenshots of the review page's views for the documentation, at 1400 and 800 px wide, light and dark.

    python docs/screenshots.py [--out docs/screenshots]

Classifies the demo corpus (data/sample_sms.csv) into a temporary folder with a review workspace,
makes the state each view shows (two reviewers' blind decisions that disagree, a learnt word), serves
the page as the lead reviewer and photographs each view in Debian's Chromium (headless, driven by
Selenium through chromedriver; nothing is downloaded). Writes `<view>-<width>-<scheme>.png`.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VIEWS = ("messages", "words", "learnt", "adjudicate", "consistency")
WIDTHS = (1400, 800)
SCHEMES = ("light", "dark")


def prepare(folder: Path) -> tuple[Path, Path]:
    """The demo corpus classified with a workspace holding a disagreement and a learnt word."""
    from triage.review_workspace import Workspace

    classified, workspace = folder / "demo.classified.csv", folder / "demo.review.sqlite"
    subprocess.run([sys.executable, "-m", "triage", "classify", str(ROOT / "data" / "sample_sms.csv"), "-o",
                    str(classified), "--no-chart", "--workspace", str(workspace), "--force"],
                   check=True, capture_output=True)
    with Workspace.open(workspace) as opened:
        opened.mark_double(0.1, seed=0)
        disputed = 0
        for item in opened.items(limit=1000):  # ana hides a capitalised word, bob finds nothing to hide
            word = re.search(r"(?<=\s)[A-ZÀ-Ý][a-zà-ÿ]+", item.text)
            if not item.double or word is None or disputed == 2:
                continue
            spans = item.proposal or [[word.start(), word.end(), "PRE"]]
            opened.decide(item.id, label="TA", spans=spans, reviewer="ana")
            opened.decide(item.id, label="NTA", spans=[], reviewer="bob")
            disputed += 1
        candidates = opened.candidates(limit=5)
        if candidates:
            opened.learn(candidates[0]["spelling"], kind="word", scope="corpus", reviewer="ana", confirm=True,
                         digest=candidates[0]["digest"])
    return classified, workspace


def Server(workspace: Path):
    """The review server in a thread, as the lead reviewer."""
    from triage.review_workspace.server import BackgroundServer

    return BackgroundServer(workspace, token="screenshots", reviewer="lea", lead=True)


def browser(profile: Path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must never download anything
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser")
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--no-first-run", "--hide-scrollbars", "--lang=en", f"--user-data-dir={profile}"):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)


def shoot(driver, server: Server, view: str, width: int, scheme: str, out: Path) -> Path:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.set_window_size(width, 900)
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                           {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
    if view == "consistency":
        driver.get(server.root + "consistency")
        WebDriverWait(driver, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, "body[data-ready=true]"))
        time.sleep(0.5)
    else:
        driver.get(server.address)
        WebDriverWait(driver, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, "body[data-ready=true]"))
        if view != "messages":
            driver.find_element(By.CSS_SELECTOR, f"button.tab[data-view={view}]").click()
        time.sleep(0.6)
    path = out / f"{view}-{width}-{scheme}.png"
    driver.save_screenshot(str(path))
    return path


def decide_queue(workspace: Path) -> None:
    """The machines' proposal accepted for every queued message still to decide, as a reviewer who went
    through the queue would leave it before opening the consistency view (as the lead, whose page holds one)."""
    from triage.review_workspace import Workspace

    with Workspace.open(workspace) as opened:
        for item in opened.items(limit=1000):
            if item.kind == "queue" and item.status in ("pending", "skipped"):
                opened.decide(item.id, label="TA" if item.proposal else "NTA", spans=item.proposal, reviewer="lea")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args(argv)
    if not (shutil.which("chromium") or shutil.which("chromium-browser")) or not shutil.which("chromedriver"):
        print("no Chromium and chromedriver here (Debian: apt-get install chromium chromium-driver)", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        _, workspace = prepare(Path(folder))
        server = Server(workspace)
        driver = browser(Path(folder) / "chrome")
        try:
            for view in VIEWS:
                if view == "consistency":  # as after the review: the consistency cases are of decided messages
                    decide_queue(workspace)
                for width in WIDTHS:
                    for scheme in SCHEMES:
                        print(shoot(driver, server, view, width, scheme, args.out))
        finally:
            driver.quit()
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
