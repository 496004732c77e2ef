// Several reviewers on one workspace: the message shown is leased to this reviewer (renewed while
// it is shown), a decision refused because another reviewer holds or decided the message shows
// that reviewer's decision instead of overwriting it. Loaded before review.js, which calls these.
"use strict";

// The lease is renewed three times per lease (the server's `lease_seconds`: a few minutes), at most once a second.
const renewEvery = () => Math.max(1000, ((S.info && S.info.lease_seconds) || 300) * 1000 / 3);
const TEAM = { timer: null, leased: null };

// The next message for this reviewer (after the list position `afterRank` when given), leased to
// them: no other reviewer is given it.
async function claimNext(afterRank) {
  const claimed = await api("POST", "/api/claim", afterRank === undefined ? {} : { after_rank: afterRank });
  return claimed.current;
}

// Called each time the page shows a message: take its lease and keep it while it is shown.
async function holdLease(item) {
  clearInterval(TEAM.timer);
  TEAM.leased = item.id;
  teamNote(item.status === "disputed" ? tr("The two reviewers of this message disagree: the lead reviewer resolves it (Adjudicate).")
    : item.double && item.status !== "decided" ? tr("Double review: another reviewer decides this message too; neither sees the other's decision.") : "");
  conflictBox(null);
  const take = async () => {
    if (!S.item || S.item.id !== TEAM.leased) { clearInterval(TEAM.timer); return; }
    try {
      await api("POST", `/api/items/${encodeURIComponent(TEAM.leased)}/lease`, {});
    } catch (error) {
      if (error.status === 409 && error.data && error.data.conflict) {
        clearInterval(TEAM.timer);
        teamNote(trf("{who} is reviewing this message now: your decision would be refused.", { who: error.data.conflict.reviewer }), true);
      }
    }
  };
  await take();
  TEAM.timer = setInterval(take, renewEvery());
}

function teamNote(text, warn = false) {
  const note = $("team-note");
  note.textContent = text;
  note.hidden = !text;
  note.classList.toggle("warn", warn);
}

// A decision refused with 409 and `conflict`: nothing was stored. The message is shown again as
// the workspace now holds it, with the other reviewer's decision beside it.
async function showConflict(error) {
  const conflict = error.data.conflict;
  if (S.item) { try { await show(S.item.id); } catch (_) { /* gone: the message stays */ } }
  try { await refreshState(); } catch (_) { /* the progress line waits for the next answer */ }
  conflictBox(conflict, error.message);
  const id = S.item ? S.item.id : conflict.id;
  say(conflict.kind === "lease" ? trf("Nothing was saved: {who} is reviewing message {id} now.", { who: conflict.reviewer, id })
    : conflict.kind === "disputed" ? trf("Nothing was saved: the two reviewers of message {id} disagree; the lead reviewer resolves it.", { id })
    : trf("Nothing was saved: message {id} was changed by {who} since your page showed it. It is shown as it now is.", { id, who: conflict.reviewer }), true);
}

function conflictBox(conflict, message = "") {
  const box = $("conflict");
  box.replaceChildren();
  box.hidden = !conflict;
  if (!conflict) return;
  box.append(el("p", { class: "conflict-line", text: message.charAt(0).toUpperCase() + message.slice(1) }));
  if (conflict.kind === "lease") return;
  const now = conflict.label || conflict.status;
  const did = conflict.kind !== "changed" || conflict.action === "decide" || conflict.action === "import" ? trf("decided {label}", { label: now })
    : { skip: tr("skipped it"), undo: trf("undid a decision: it is now {label}", { label: now }), review: tr("decided it blind"), adjudicate: tr("resolved it") }[conflict.action] || tr("changed it");
  const who = el("p", {}, el("b", { text: conflict.reviewer }), document.createTextNode(
    ` ${did}${conflict.decided_at ? trf(" at {when}", { when: conflict.decided_at.replace("T", " ").replace("+00:00", " UTC") }) : ""}`));
  box.append(who);
  if (S.item && conflict.spans && conflict.spans.length) {
    const spans = spansFromServer(S.item.text, conflict.spans);
    box.append(el("ul", { class: "conflict-spans" },
      ...spans.map(([s, e, tag]) => el("li", {}, el("span", { class: "hidden-tag", text: tag }), document.createTextNode(` ${S.item.text.slice(s, e)}`)))));
  } else if (conflict.label === "NTA") {
    box.append(el("p", { text: tr("Nothing hidden (NTA).") }));
  }
}

// Where a decision goes: a disagreement is resolved by the lead (adjudication), the rest decided.
function decisionPath(item) {
  return item.status === "disputed" ? "adjudicate" : "decision";
}

// Nothing left for this reviewer while others still have some: say so, instead of "all decided".
function teamDone(progress) {
  const others = progress.pending + progress.stale;
  const disputed = progress.disputed || 0;
  if (!others && !disputed) return "";
  const parts = [];
  if (others) parts.push(trf(others > 1 ? "{n} are with other reviewers (being reviewed, or waiting for the second reviewer of a double review)"
    : "{n} is with other reviewers (being reviewed, or waiting for the second reviewer of a double review)", { n: others }));
  if (disputed) parts.push(trf(disputed > 1 ? "{n} disagreements wait for the lead reviewer" : "{n} disagreement waits for the lead reviewer", { n: disputed }));
  return trf("Nothing left for you: {parts}.", { parts: parts.join(tr("; ")) });
}
