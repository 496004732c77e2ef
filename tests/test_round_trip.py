"""The expert's loop through the command line, as a user runs it:
classify -> queue export -> fill in decisions -> queue apply -> the next run has learnt."""

import csv



def write_csv(path, header, rows):
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)


def read_csv(path):
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return list(csv.DictReader(handle))


def test_export_fill_apply_round_trip(cli, tmp_path):
    corpus = tmp_path / "sms.csv"
    write_csv(corpus, ["id", "text"], [
        ["1", "ok jarrive"],
        ["2", "tu as vu Zorglub hier ?"],
        ["3", "Coucou Patrice, ça va?"],
        ["4", "on se voit avec Namrata et Kwiz ce soir"],
    ])
    classified = tmp_path / "classified.csv"
    # The paper policy sends disagreements to the expert; force some by a budget of 100%.
    assert cli("classify", corpus, "-o", classified, "--expert-budget", "1").exit_code == 0
    queue = tmp_path / "queue.csv"
    result = cli("queue", "export", classified, "-o", queue)
    assert result.exit_code == 0, result.output
    rows = read_csv(queue)
    assert rows and {"look_at", "why", "expert_decision", "expert_hide"} <= set(rows[0])
    by_id = {r["id"]: r for r in rows}
    assert "Zorglub" in by_id["2"]["look_at"]

    # The expert answers in the spreadsheet.
    for row in rows:
        if row["id"] == "2":
            row["expert_decision"], row["expert_hide"] = "TA", "Zorglub"
        elif row["id"] == "4":
            row["expert_decision"], row["expert_hide"] = "TA", "Namrata"
        else:
            row["expert_decision"] = row["expert_decision"] or ""
    with queue.open("w", newline="", encoding="utf-8-sig") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)

    final = tmp_path / "final.csv"
    result = cli("queue", "apply", queue, classified, "-o", final)
    assert result.exit_code == 0, result.output
    released = {r["id"]: r for r in read_csv(final)}
    assert released["2"]["final"] == "TA" and "Zorglub" not in released["2"]["final_text"]
    assert released["4"]["final"] == "TA" and "Namrata" not in released["4"]["final_text"]
    assert released["1"]["final_text"] == "ok jarrive"
    # Answers about messages teach no word for the others (learning is explicit, in triage review).
    assert "learnt" not in result.output


def test_classify_can_write_the_queue_directly(cli, tmp_path):
    corpus = tmp_path / "sms.csv"
    write_csv(corpus, ["text"], [["tu as vu Zorglub hier ?"], ["ok"]])
    html = tmp_path / "queue.html"
    result = cli("classify", corpus, "-o", tmp_path / "out.csv", "--queue", html, "--expert-budget", "1")
    assert result.exit_code == 0, result.output
    page = html.read_text("utf-8")
    # the word the machines hid is shown as hidden, with its tag: the expert sees what TA keeps hidden
    assert '<mark class="hidden">Zorglub <span class="tag">PRE</span></mark>' in page
    assert "<td>Zorglub (PRE)</td>" in page and "expert queue" in result.output
