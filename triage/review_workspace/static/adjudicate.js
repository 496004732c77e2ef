// The lead reviewer's view: each disagreement of the double review, both blind decisions side by
// side; keep one (1 / 2) or edit it in the Messages view. Loaded before review.js.
"use strict";

const ADJ = { disputes: [], focus: 0 };

// After the first state: who reviews here (the name of the link opened: every decision is credited
// to it), and the Adjudicate tab, which exists for the lead reviewer only.
function setupTeam(info) {
  const who = $("who");
  who.replaceChildren(document.createTextNode(info.reviewer));
  if (info.lead) who.append(el("span", { class: "lead-badge", text: tr("lead") }));
  who.title = trf("You review as {name}: your decisions are credited to this name.", { name: info.reviewer });
  who.hidden = false;
  const tab = document.querySelector('.tab[data-view="adjudicate"]');
  if (info.lead) { tab.hidden = false; return; }
  tab.remove();
  VIEWS.splice(VIEWS.indexOf("adjudicate"), 1);
}

async function loadDisputes() {
  ADJ.disputes = await api("GET", "/api/disputes");
  ADJ.focus = Math.min(ADJ.focus, Math.max(0, ADJ.disputes.length - 1));
  const list = $("dispute-list");
  list.replaceChildren();
  if (!ADJ.disputes.length) list.append(el("li", { class: "none", text: tr("No disagreement left to resolve.") }));
  ADJ.disputes.forEach(({ item, reviews }, index) => {
    const pair = reviews.slice(0, 2); // in the reviewers' name order: the same sides whoever decided first
    const sides = el("div", { class: "sides" });
    pair.forEach((review, side) => {
      const other = pair[1 - side];
      const keep = el("button", { type: "button", class: "keep" }, document.createTextNode(`${trf("Keep {who}'s", { who: review.reviewer })} `), el("kbd", { text: String(side + 1) }));
      keep.addEventListener("click", () => resolve(index, side));
      const label = el("span", { class: other && other.label !== review.label ? "label differs" : "label", text: review.label });
      sides.append(el("div", { class: "side", "data-reviewer": review.reviewer },
        el("h3", {}, document.createTextNode(`${review.reviewer}: `), label),
        markedText(item.text, review.spans, other ? other.spans : null, review.reviewer, other ? other.reviewer : ""), keep));
    });
    const edit = el("button", { type: "button", class: "ghost" }, document.createTextNode(`${tr("Edit")} `), el("kbd", { text: "e" }));
    edit.addEventListener("click", () => editDispute(index));
    const li = el("li", { "data-message-id": item.id }, el("p", { class: "dispute-id", text: `${trf("message {id}", { id: item.id })} · ${tr(item.kind)}` }),
      differences(item.text, pair), sides, edit);
    if (index === ADJ.focus) li.classList.add("focused");
    list.append(li);
  });
}

const spanKey = (span) => span.join(",");

// The parts of `spans` that none of `cover` hides: [start, end] character ranges (page offsets).
function uncovered(spans, cover) {
  const out = [];
  for (const [start, end] of spans) {
    let at = start;
    for (const [s, e] of cover) {
      if (e <= at || s >= end) continue;
      if (s > at) out.push([at, s]);
      at = Math.max(at, e);
    }
    if (at < end) out.push([at, end]);
  }
  return out.sort((a, b) => a[0] - b[0]);
}

// A message with one reviewer's hidden spans shown as tags, each with its original words (text
// inserted as text only). With the other reviewer's spans, the differences are marked: a hidden
// item the other did not hide so (another tag, other boundaries, or not at all), and the words the
// other hid that this reviewer leaves readable.
function markedText(text, serverSpans, otherServerSpans = null, who = "", otherWho = "") {
  const box = el("p", { class: "message small" });
  const mine = spansFromServer(text, serverSpans).sort((x, y) => x[0] - y[0]);
  const other = otherServerSpans ? spansFromServer(text, otherServerSpans) : null;
  const theirs = new Set((other || []).map(spanKey));
  const readable = other ? uncovered(other, mine) : [];
  const plain = (from, to) => {
    let at = from;
    for (const [start, end] of readable) {
      if (end <= at || start >= to) continue;
      box.append(text.slice(at, start));
      box.append(el("mark", { class: "differs readable", title: trf("{who} hides this; {me} leaves it readable", { who: otherWho, me: who }), text: text.slice(start, end) }));
      at = end;
    }
    box.append(text.slice(at, to));
  };
  let at = 0;
  for (const span of mine) {
    const [start, end, tag] = span;
    plain(at, start);
    const differs = other !== null && !theirs.has(spanKey(span));
    const chip = el("span", { class: differs ? "hidden-item differs" : "hidden-item", title: differs ? trf("only {who} hides it so", { who }) : text.slice(start, end) },
      document.createTextNode(tag), el("span", { class: "original", text: text.slice(start, end) }));
    box.append(chip);
    at = end;
  }
  plain(at, text.length);
  return box;
}

// One line naming what the two decisions differ on: the label, and each span one hid and the other not so.
function differences(text, pair) {
  const line = el("p", { class: "differences" });
  if (pair.length < 2) return line;
  const [a, b] = pair;
  const parts = [];
  if (a.label !== b.label) parts.push(`${a.reviewer} ${a.label}, ${b.reviewer} ${b.label}`);
  const sa = spansFromServer(text, a.spans), sb = spansFromServer(text, b.spans);
  const ka = new Set(sa.map(spanKey)), kb = new Set(sb.map(spanKey));
  for (const [mine, otherKeys, who] of [[sa, kb, a.reviewer], [sb, ka, b.reviewer]]) {
    for (const span of mine) if (!otherKeys.has(spanKey(span))) parts.push(`“${text.slice(span[0], span[1])}” ${span[2]} ${trf("by {who} only", { who })}`);
  }
  line.append(el("strong", { text: tr("Differences:") }), document.createTextNode(" " + (parts.join("; ") || tr("none"))));
  return line;
}

async function resolve(index, side) {
  const { item, reviews } = ADJ.disputes[index];
  const chosen = reviews[side];
  let refused = null;
  try {
    // `version` names the disagreement as shown (both blind decisions): when either reviewer undid or
    // decided again since, nothing is stored and the list is shown as it now is.
    await api("POST", `/api/items/${encodeURIComponent(item.id)}/adjudicate`, { label: chosen.label, spans: chosen.spans, text_hash: item.text_hash, version: item.version });
    sayAdjudicate(trf("Message {id}: {who}'s decision kept ({label}).", { id: item.id, who: chosen.reviewer, label: chosen.label }));
    loadHistory().catch(() => {}); // review.js: what undo names next
  } catch (error) {
    refused = error;
    sayAdjudicate(error.message, true);
  }
  await loadDisputes();
  if (refused && refused.status === 409 && refused.data && refused.data.conflict) {
    const who = refused.data.conflict.reviewer || tr("someone");
    sayAdjudicate(trf("Nothing was resolved: {who} changed message {id} since the page showed it. The disagreements are shown as they now are.", { who, id: item.id }), true);
  }
  await refreshState();
}

// Edit: the message in the Messages view, with what either reviewer hid; deciding it resolves it.
async function editDispute(index) {
  const { item } = ADJ.disputes[index];
  await switchView("messages");
  await show(item.id);
  S.draft = spansFromServer(S.item.text, item.spans || []).map((s) => s.slice());
  render();
  say(tr("Disagreement: what either reviewer hid is shown. Decide it to resolve it."));
}

function sayAdjudicate(text, error = false) {
  const status = $("adjudicate-status");
  status.textContent = text;
  status.classList.toggle("error", error);
}

function onAdjudicateKey(event) {
  const moves = { j: 1, k: -1, ArrowDown: 1, ArrowUp: -1 };
  const key = AZERTY_DIGITS[event.key] || event.key; // review.js: & and é are 1 and 2 without Shift on AZERTY
  if (event.key in moves) {
    event.preventDefault();
    ADJ.focus = Math.min(ADJ.disputes.length - 1, Math.max(0, ADJ.focus + moves[event.key]));
    document.querySelectorAll("#dispute-list > li").forEach((li, i) => li.classList.toggle("focused", i === ADJ.focus));
  } else if ((key === "1" || key === "2") && ADJ.disputes[ADJ.focus]) {
    event.preventDefault();
    resolve(ADJ.focus, Number(key) - 1);
  } else if (event.key === "e" && ADJ.disputes[ADJ.focus]) {
    event.preventDefault();
    editDispute(ADJ.focus);
  }
}
