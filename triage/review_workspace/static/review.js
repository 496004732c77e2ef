// The review page: one message at a time, keyboard first. Message text is untrusted: it is
// only ever inserted with textContent / createTextNode, never as HTML.
"use strict";

const TAG_ORDER = [["1", "PRE"], ["2", "NOM"], ["3", "SUR"], ["4", "LIE"], ["5", "TEL"], ["6", "MEL"], ["7", "URL"], ["8", "ADR"], ["9", "COD"], ["0", "MAR"]];
// The digit keys type these characters without Shift on an AZERTY keyboard: they choose the same tag.
const AZERTY_DIGITS = { "&": "1", "é": "2", '"': "3", "'": "4", "(": "5", "-": "6", "è": "7", "_": "8", "ç": "9", "à": "0" };
const TAG_KEYS = Object.fromEntries([...TAG_ORDER, ...Object.entries(AZERTY_DIGITS).map(([c, d]) => [c, TAG_ORDER.find(([k]) => k === d)[1]])]);

// The keyboard, in one place: for each view, event.key -> the name of an action (ACTIONS, below).
// Letters only, so that every key works without Shift on QWERTY and AZERTY keyboards alike (event.key
// is the character typed, wherever the key is); a key means one thing in every view it works in.
// Another layout or habit: change this object (the help panel and the buttons' hints follow it).
const KEYMAP = {
  any: { "?": "help", v: "nextView" },
  messages: {
    Enter: "accept", t: "markTA", n: "markNTA", s: "skip", u: "undo", b: "back",
    h: "toggle", " ": "toggle", m: "hideSelection", ArrowRight: "nextWord", ArrowLeft: "previousWord", j: "nextWord", k: "previousWord",
    f: "nextMarked", d: "previousMarked", r: "reset", g: "goTo", o: "originals", e: "foreign",
  },
  words: { j: "nextWord", k: "previousWord", ArrowDown: "nextWord", ArrowUp: "previousWord", p: "learnName", w: "learnWord", l: "scope", c: "concordance" },
};
applyCustomKeys(KEYMAP); // the reviewer's own keys, if any (keys.js)
const KEY_NAMES = { Enter: "Enter", " ": "Space", ArrowRight: "→", ArrowLeft: "←", ArrowDown: "↓", ArrowUp: "↑" };
const keysOf = (view, action) => Object.keys(KEYMAP[view]).filter((key) => KEYMAP[view][key] === action);
const VIEWS = ["messages", "words", "learnt", "adjudicate"]; // adjudicate: the lead reviewer only (adjudicate.js)
const PAGE = 50;
const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}'’_-]*/gu;

const S = {
  view: "messages", item: null, draft: [], shown: [], units: [], focus: -1, tag: "PRE", pressedInMessage: false,
  page: [], total: 0, offset: 0, trail: [], candidates: [], candFocus: 0, pending: null, info: null,
  wordTag: "PRE", scope: "corpus", // the Words view: the tag a name is learnt with, and where it is learnt
};

const $ = (id) => document.getElementById(id);
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("data-")) node.setAttribute(k, v);
    else node[k] = v;
  }
  for (const child of children) node.append(child);
  return node;
}


function say(text, error = false) {
  const status = $("status");
  status.textContent = text;
  status.classList.toggle("error", error);
}

// ------------------------------------------------------------------- offsets
// The server counts a message's characters in code points of the text as written (Python string
// indices, as in the classified file's `hidden` column); a JS string counts UTF-16 units, two for
// an emoji, a flag's letters or a skin tone. Spans are converted here, and only here: when they
// come from the server and when they go back to it. Everything in between (S.draft, the units on
// the page, their data-start) is in UTF-16 units of the same text.

function spansFromServer(text, spans) {
  const unitAt = [0]; // code point index -> UTF-16 unit index
  for (const ch of text) unitAt.push(unitAt[unitAt.length - 1] + ch.length);
  const unit = (i) => unitAt[Math.max(0, Math.min(i, unitAt.length - 1))];
  return spans.map(([start, end, tag]) => [unit(start), unit(end), tag]);
}

function spansToServer(text, spans) {
  const pointAt = new Array(text.length + 1); // UTF-16 unit index -> code point index
  const inside = new Array(text.length + 1).fill(false); // the unit is the second half of a pair
  let unit = 0, point = 0;
  for (const ch of text) {
    pointAt[unit] = point;
    if (ch.length === 2) { pointAt[unit + 1] = point; inside[unit + 1] = true; }
    unit += ch.length; point += 1;
  }
  pointAt[unit] = point;
  const at = (u) => Math.max(0, Math.min(u, text.length));
  // A span never splits a character: its start goes back to the character's start, its end on past it.
  return spans.map(([start, end, tag]) => [pointAt[at(start)], pointAt[at(end)] + (inside[at(end)] ? 1 : 0), tag]);
}

// ------------------------------------------------------------------ progress

// `after`: the id of the message the page leaves; the server's `current` is then the next one after it.
async function refreshState(after) {
  S.info = await api("GET", after === undefined ? "/api/state" : `/api/state?after=${encodeURIComponent(after)}`);
  const p = S.info.progress;
  const done = p.decided;
  $("progress-fill").style.width = p.total ? `${(100 * done) / p.total}%` : "0";
  // The queue and the audit sample counted apart: an audit message is a check of the machines, not work of the queue.
  let text = p.audit ? trf("queue {dq} / {q} · audit {da} / {a} decided", {
    dq: num(p.decided_queue), q: num(p.queue), da: num(p.decided_audit), a: num(p.audit) })
    : trf("{done} / {total} decided", { done: num(done), total: num(p.total) }); // i18n.js
  if (p.skipped) text += trf(" · {n} skipped (back at the end)", { n: p.skipped });
  if (p.disputed) text += trf(p.disputed === 1 ? " · {n} disagreement for the lead" : " · {n} disagreements for the lead", { n: p.disputed });
  if (p.seconds_per_message) text += trf(" · {n} s per message", { n: p.seconds_per_message });
  if (p.seconds_left) text += trf(" · about {left} left", { left: formatDuration(p.seconds_left) });
  const audit = S.info.audit;
  if (audit.audited) {
    text += trf(" · audit: {leaking} of {audited} still identifying ({share}, 95% CI {low}–{high})",
      { leaking: audit.leaking, audited: audit.audited, share: pct(audit.share), low: pct(audit.low), high: pct(audit.high) });
  }
  $("progress-text").textContent = text;
  fillReviewers(S.info.reviewers || []);
  $("progress-text").title = text; // the line is cut on a narrow window
  return S.info;
}

const num = (n) => Number(n).toLocaleString(LANG === "fr" ? "fr-FR" : "en-US");
const pct = (x) => `${(100 * x).toFixed(1)}%`;
function formatDuration(seconds) {
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

// ---------------------------------------------------------------------- list

async function loadPage(offset) {
  const data = await api("GET", `/api/items?offset=${offset}&limit=${PAGE}${listQuery()}`);
  S.page = data.items; S.total = data.total; S.offset = offset;
  renderList();
}

// A decision, skip or undo answered with the item as it now is: its mark in the list follows at once.
function relist(item) {
  const index = S.page.findIndex((i) => i.id === item.id);
  if (index >= 0) S.page[index] = item;
  renderList();
}

function renderList() {
  const list = $("item-list");
  list.replaceChildren();
  for (const item of S.page) {
    const li = el("li", { "data-message-id": item.id, class: item.kind },
      el("span", { class: `state ${item.status}`, text: { pending: "·", decided: item.label || "✓", skipped: "skip", stale: "new" }[item.status] }),
      el("span", { class: "snippet", text: item.text }));
    if (S.item && item.id === S.item.id) li.classList.add("current");
    li.addEventListener("click", () => show(item.id, true));
    list.append(li);
  }
  const last = Math.min(S.offset + PAGE, S.total);
  $("list-page").textContent = S.total ? trf("{first}–{last} of {total}", { first: S.offset + 1, last, total: S.total })
    : tr(listFiltered() ? "nothing found" : "empty");
  $("list-title").textContent = tr(listFiltered() ? "Found" : "Queue");
  $("page-prev").disabled = S.offset === 0;
  $("page-next").disabled = last >= S.total;
}

// ------------------------------------------------------------------- history
// The reviewer's last decisions and skips that still apply, newest first: the first is what undo
// takes back (the undo button beside them, or u); a click on one shows its message.

function loadHistory() {
  S.historyLoad = fetchHistory(); // undo waits for it: it names the action this list shows first
  return S.historyLoad;
}

async function fetchHistory() {
  const recent = await api("GET", "/api/recent?limit=8");
  S.recent = recent;
  const list = $("history-list");
  list.replaceChildren();
  if (!recent.length) list.append(el("li", { class: "empty", text: tr("nothing yet") }));
  recent.forEach((entry, index) => {
    const what = entry.action === "skip" ? tr("skipped") : entry.label === "TA" ? trf(entry.hidden === 1 ? "TA · {n} hidden item" : "TA · {n} hidden items", { n: entry.hidden }) : entry.label;
    const li = el("li", { "data-message-id": entry.id, title: index === 0 ? tr("the next undo takes this one back") : "" },
      el("span", { class: "id", text: `#${entry.id}` }), el("span", { class: "what", text: what }));
    if (index === 0) li.classList.add("last");
    li.addEventListener("click", () => show(entry.id, true).catch((error) => say(error.message, true)));
    list.append(li);
  });
  $("history-undo").disabled = !recent.length;
}

// ------------------------------------------------------------------- message

async function show(id, remember = false) {
  if (remember && S.item && S.item.id !== id) S.trail.push(S.item.id);
  const item = await api("GET", `/api/items/${encodeURIComponent(id)}`);
  for (const key of ["spans", "proposal", "machine_spans"]) if (item[key]) item[key] = spansFromServer(item.text, item[key]);
  S.item = item;
  S.draft = (item.status === "decided" ? item.spans : item.proposal).map((s) => s.slice());
  // Spans hidden once (by the machines, a decision, or the reviewer here): shown again, each stays
  // one piece that a click hides whole again, with its tag (a phone with its spaces, as TEL).
  S.shown = [...(item.spans || []), ...item.proposal, ...item.machine_spans].map((s) => s.slice());
  S.focus = -1;
  S.tag = "PRE"; // each message starts from the commonest tag
  const pageStart = Math.floor(item.rank / PAGE) * PAGE;
  let list = null; // the list's page, fetched while the message is drawn and its lease taken
  if (listFiltered()) list = loadPage(S.offset); // a filtered list stays on its page, its marks brought up to date
  else if (pageStart !== S.offset || !S.page.some((i) => i.id === id)) list = loadPage(pageStart);
  else renderList();
  render();
  say(item.status === "decided" ? trf("Decided {label} by {who}. Change it if needed.", { label: item.label, who: item.reviewer }) :
      item.status === "stale" ? tr("The text changed since it was decided: please look again.") : "");
  await Promise.all([list, holdLease(item)]); // team.js
}

const overlaps = (spans, start, end) => spans.some(([s, e]) => start < e && end > s);

// The pieces of a message a reviewer acts on: hidden spans, spans hidden once and shown now, and the
// words between them (a word is found in the text between spans, so a span hiding part of a word,
// "+33612345678" of "+33612345678Anaïs", leaves the rest a word of its own).
function units(text, spans) {
  const out = spans.map(([start, end, tag]) => ({ kind: "hidden", start, end, tag }));
  const taken = spans.slice();
  for (const [start, end, tag] of S.shown) {
    if (overlaps(taken, start, end)) continue;
    out.push({ kind: "word", start, end, tag, was: true });
    taken.push([start, end, tag]);
  }
  taken.sort((a, b) => a[0] - b[0]);
  let at = 0;
  for (const [start, end] of [...taken, [text.length, text.length]]) {
    for (const match of text.slice(at, start).matchAll(WORD)) {
      out.push({ kind: "word", start: at + match.index, end: at + match.index + match[0].length });
    }
    at = Math.max(at, end);
  }
  return out.sort((a, b) => a.start - b.start);
}

function render() {
  const item = S.item;
  const text = item.text;
  const looked = new Set(item.highlighted.map((w) => w.toLowerCase()));
  S.units = units(text, S.draft);
  const box = $("message");
  box.replaceChildren();
  box.setAttribute("data-message-id", item.id);
  let at = 0;
  S.units.forEach((unit, index) => {
    if (unit.start > at) box.append(el("span", { class: "gap", "data-start": String(at), text: text.slice(at, unit.start) }));
    const piece = text.slice(unit.start, unit.end);
    let node;
    if (unit.kind === "hidden") {
      node = el("span", { class: "hidden-item", "data-start": String(unit.start), "data-end": String(unit.end), title: trf("hidden as {tag}: click or h to show it", { tag: unit.tag }) },
        document.createTextNode(unit.tag), el("span", { class: "original", text: piece }));
    } else {
      node = el("span", { class: unit.was ? "word was" : "word", "data-start": String(unit.start), text: piece,
        title: unit.was ? trf("hidden before as {tag}: click or h to hide it again", { tag: unit.tag }) : tr("click or h to hide") });
      if (looked.has(piece.toLowerCase())) node.classList.add("look");
    }
    node.setAttribute("data-unit", String(index));
    if (index === S.focus) node.classList.add("focused");
    box.append(node);
    at = unit.end;
  });
  if (at < text.length) box.append(el("span", { class: "gap", "data-start": String(at), text: text.slice(at) }));

  const badges = $("badges");
  badges.replaceChildren(
    el("span", { class: `badge ${item.kind}`, text: tr(item.kind === "audit" ? "audit: released by the machines" : "queue") }),
    el("span", { class: "badge", text: trf("machines: {label}", { label: item.machine_label }) }),
    el("span", { class: "badge", text: trf("Seek&Hide {seekhide} · model {model} p={p}",
      { seekhide: item.seekhide, model: item.model, p: item.score.toFixed(2) }) }),
  );
  if (item.risk !== null) badges.append(el("span", { class: "badge", text: trf("risk {risk}", { risk: item.risk.toFixed(2) }) }));
  if (item.language && item.language.foreign) {
    badges.append(el("span", { class: "badge foreign", title: tr("Few of its words are French ordinary words: its unknown words are rarely names."),
      text: trf("mostly another language ({share}% French words) · {keys}",
        { share: Math.round(100 * item.language.french_share), keys: keysOf("messages", "foreign").join(" ") }) }));
  }
  if (item.status !== "pending") badges.append(el("span", { class: `badge ${item.status}`, text: item.status === "decided" ? trf("decided {label}", { label: item.label }) : tr(item.status) }));

  const reasons = $("reasons");
  reasons.replaceChildren();
  for (const [word, why] of Object.entries(item.reasons)) {
    reasons.append(el("li", {}, el("b", { text: word }), document.createTextNode(" — "), el("span", { class: "why", text: trReason(why) })));
  }
  renderTags();
  renderNeighbours(item);
  const hidden = S.draft.length;
  $("accept-what").textContent = hidden ? trf(hidden === 1 ? ": hide {n} item (TA)" : ": hide {n} items (TA)", { n: hidden })
    : tr(": nothing to hide (NTA)");
}

function renderNeighbours(item) {
  const before = $("neighbours-before"), after = $("neighbours-after");
  before.replaceChildren(); after.replaceChildren();
  for (const n of item.neighbours) {
    const line = el("div", { class: "neighbour", text: n.text, title: trf("message {id}", { id: n.id }) });
    (n.position < item.position ? before : after).append(line);
  }
}

function renderTags() {
  const unit = S.units[S.focus];
  const current = unit && unit.kind === "hidden" ? unit.tag : S.tag;
  const tags = $("tags");
  tags.replaceChildren(el("span", { text: `${tr("tag:")} ` }));
  for (const [key, tag] of TAG_ORDER) {
    const button = el("button", { type: "button", text: `${key} ${tag}` });
    button.setAttribute("aria-pressed", String(tag === current));
    button.addEventListener("click", () => setTag(tag));
    tags.append(button);
  }
}

function setTag(tag) {
  const unit = S.units[S.focus];
  if (unit && unit.kind === "hidden") {
    const span = S.draft.find(([s, e]) => s === unit.start && e === unit.end);
    if (span) span[2] = tag;
  }
  S.tag = tag;
  render();
}

function toggle(index) {
  const unit = S.units[index];
  if (!unit) return;
  if (unit.kind === "hidden") {
    S.draft = S.draft.filter(([s, e]) => !(s === unit.start && e === unit.end));
    S.shown.unshift([unit.start, unit.end, unit.tag]); // shown again: one piece, to hide again whole
  } else {
    S.draft.push([unit.start, unit.end, unit.was ? unit.tag : S.tag]);
    S.draft.sort((a, b) => a[0] - b[0]);
  }
  render();
  const again = S.units.findIndex((u) => u.start === unit.start);
  S.focus = again; markFocus();
}

// A click in the message: a click hides or shows the piece under it; a drag (even inside one word)
// hides exactly the characters selected; the second click of a double click does nothing (the
// first one changed the piece under the pointer: it must not hide its neighbour too).
function onMessageClick(event) {
  if (S.view !== "messages" || !S.item || !S.pressedInMessage) return;
  if (event.detail > 1) { window.getSelection().removeAllRanges(); return; }
  if (selectedRange() !== null) { hideSelection(); return; }
  const node = event.target instanceof Element ? event.target.closest("#message [data-unit]") : null;
  if (!node) return;
  const index = Number(node.getAttribute("data-unit"));
  S.focus = index;
  toggle(index);
}

function markFocus() {
  document.querySelectorAll("#message [data-unit]").forEach((node) => {
    node.classList.toggle("focused", Number(node.getAttribute("data-unit")) === S.focus);
  });
  renderTags();
}

function moveFocus(step) {
  if (!S.units.length) return;
  S.focus = S.focus < 0 ? (step > 0 ? 0 : S.units.length - 1) : Math.min(S.units.length - 1, Math.max(0, S.focus + step));
  markFocus();
}

// A text position (UTF-16 units) from a boundary point of the selection inside the message: every
// piece carries its start offset; a point may be in a text node or between elements.
function pointOffset(container, offset) {
  const box = $("message");
  if (container === box) {
    const child = box.childNodes[offset];
    return child ? Number(child.getAttribute("data-start")) : S.item.text.length;
  }
  let element = container.nodeType === Node.TEXT_NODE ? container.parentElement : container;
  while (element && element !== box && !element.hasAttribute("data-start")) element = element.parentElement;
  if (!element || element === box) return null;
  const start = Number(element.getAttribute("data-start"));
  const end = element.hasAttribute("data-end") ? Number(element.getAttribute("data-end")) : start + element.textContent.length;
  if (element.classList.contains("hidden-item")) { // a chip is whole: its start or its end
    return offset === 0 && (container === element || container === element.firstChild) ? start : end;
  }
  if (container === element) return offset === 0 ? start : end;
  return start + offset;
}

// The selection's start and end in the message's text, or null when it is not in the message; a
// selection running out of the message is cut at its edges.
function selectedRange() {
  const selection = window.getSelection();
  if (!S.item || !selection || selection.isCollapsed || !selection.rangeCount) return null;
  const range = selection.getRangeAt(0), box = $("message");
  if (!range.intersectsNode(box)) return null;
  const a = box.contains(range.startContainer) ? pointOffset(range.startContainer, range.startOffset) : 0;
  const b = box.contains(range.endContainer) ? pointOffset(range.endContainer, range.endOffset) : S.item.text.length;
  return a === null || b === null ? null : [Math.min(a, b), Math.max(a, b)];
}

function hideSelection() {
  const selection = window.getSelection();
  if (!selection || selection.isCollapsed) { say(trf("Select the characters to hide first, then press {key}.", { key: keysOf("messages", "hideSelection").join(" ") }), true); return; }
  const range = selectedRange();
  if (range === null) { say(tr("Select characters inside the message."), true); return; }
  let [start, end] = range;
  const text = S.item.text;
  while (start < end && /\s/.test(text[start])) start++;
  while (end > start && /\s/.test(text[end - 1])) end--;
  if (start >= end) { say(tr("The selection holds only spaces."), true); return; }
  const absorbed = S.draft.filter(([s, e]) => s < end && e > start);
  for (const [s, e] of absorbed) { start = Math.min(start, s); end = Math.max(end, e); }
  S.draft = S.draft.filter((span) => !absorbed.includes(span));
  S.draft.push([start, end, S.tag]);
  S.draft.sort((x, y) => x[0] - y[0]);
  selection.removeAllRanges();
  render();
  S.focus = S.units.findIndex((u) => u.start === start); markFocus();
  say(trf("Hidden “{text}” as {tag}. Digits change its tag.", { text: text.slice(start, end), tag: S.tag }));
}

// ----------------------------------------------------------------- decisions

const CONTACT_TAGS = new Set(["TEL", "MEL", "ADR", "URL", "COD"]); // contact details found by their form

async function decide(label, released = false) {
  if (!S.item) return;
  // NTA over what the machines hid as contact details (a phone number, an address...) asks once,
  // naming them: they become readable in the release.
  const dropped = label === "NTA" && !released ? S.draft.filter((span) => CONTACT_TAGS.has(span[2])) : [];
  if (dropped.length) {
    const item = S.item;
    setConfirmYes(tr("Release them"));
    $("confirm-title").textContent = tr("Release the contact details the machines hid?");
    $("confirm-text").textContent = trf("NTA makes {n} hidden items of message {id} readable ({kinds}):",
      { n: dropped.length, id: item.id, kinds: dropped.map((span) => span[2]).join(", ") });
    $("confirm-examples").replaceChildren(...dropped.map((span) => el("li", { text: `${span[2]}: ${item.text.slice(span[0], span[1])}` })));
    S.pending = () => (S.item === item ? decide("NTA", true) : undefined);
    $("confirm").showModal();
    $("confirm-no").focus();
    return;
  }
  if (label === "TA" && !S.draft.length) {
    say(tr("Nothing is hidden: hide what identifies someone (h, or select and m), or press n for NTA."), true);
    return;
  }
  const spans = label === "NTA" ? [] : spansToServer(S.item.text, S.draft);
  try {
    // The server releases the contact details the machines hid only when asked: the reviewer took
    // them out of the draft, or confirmed above.
    const body = { label, spans, text_hash: S.item.text_hash, version: S.item.version };
    if (label === "NTA") body.release_contact = true;
    relist(await api("POST", `/api/items/${encodeURIComponent(S.item.id)}/${decisionPath(S.item)}`, body));
    S.trail.push(S.item.id);
    loadHistory().catch(() => {});
    await next(S.item.id);
  } catch (error) { await refused(error); }
}

async function skip() {
  if (!S.item) return;
  try {
    relist(await api("POST", `/api/items/${encodeURIComponent(S.item.id)}/skip`, { text_hash: S.item.text_hash, version: S.item.version }));
    S.trail.push(S.item.id);
    loadHistory().catch(() => {});
    await next(S.item.id);
  } catch (error) { await refused(error); }
}

// A decision or skip names the text it was made on: when the text changed since the page showed
// it (the corpus was classified again), the server stores nothing and the page shows the message anew.
async function refused(error) {
  if (error.status === 409 && error.data && error.data.conflict) { await showConflict(error); return; } // team.js
  if (error.status === 409 && error.data && error.data.changed && S.item) {
    await refreshState();
    try { await show(S.item.id); } catch (_) { await next(); } // gone from the list: the next one
  }
  say(error.message, true);
}

// Undo names the action the list of last decisions shows first (`seq`): when it is no longer this
// reviewer's last (another page of theirs acted or undid since), nothing is undone and the list is shown anew.
async function undo() {
  let item;
  try { await S.historyLoad; } catch (_) { /* an older list: the server checks what it names */ }
  const shown = S.recent && S.recent.length ? S.recent[0].seq : undefined;
  try { item = await api("POST", "/api/undo", shown === undefined ? {} : { seq: shown }); } catch (error) {
    if (error.status === 409) {
      await loadHistory().catch(() => {});
      if (S.item) { try { await show(S.item.id); } catch (_) { /* gone: the message stays */ } }
      await refreshState().catch(() => {});
      const c = (error.data && error.data.conflict) || {};
      say(c.kind === "later" ? trf("Nothing was undone: {who} acted on message {id} since; undoing would take that back too.", { who: c.reviewer, id: c.id })
        : c.kind === "undo" ? tr("Nothing was undone: your last decision is no longer the one this page showed (another page of yours acted or undid since). The list of your last decisions is shown as it now is.")
          : error.message, true);
      return;
    }
    say(error.message, true);
    return;
  }
  if (!item) { say(tr("Nothing to undo.")); return; }
  if ((item.undone || 1) > 1) await loadPage(S.offset); // a bulk decision undone: every mark of the list follows
  else relist(item);
  loadHistory().catch(() => {});
  await refreshState();
  await show(item.id);
  say(undoneText(item));
}

// What an undo took back: one message, or every decision of a bulk decision (the server's `undone`).
function undoneText(item) {
  const n = item.undone || 1;
  if (n > 1) return trf("Undone: {n} decisions of the bulk decision.", { n: num(n) });
  const again = { pending: "Undone: message {id} is pending again.", skipped: "Undone: message {id} is skipped again.",
    decided: "Undone: message {id} is decided again.", disputed: "Undone: message {id} is in disagreement again." }[item.status];
  return trf(again || "Undone: message {id} is {status} again.", { id: item.id, status: item.status });
}

async function back() {
  const previous = S.trail.pop();
  if (previous !== undefined) { await show(previous); return; }
  if (S.item && S.item.rank > 0) {
    const data = await api("GET", `/api/items?offset=${S.item.rank - 1}&limit=1`);
    if (data.items.length) await show(data.items[0].id);
  }
}

// The next message to look at, leased to this reviewer: pending ones first (after `after`, the
// message just left, when given), then the skipped ones; the end only when nothing is pending or skipped.
async function next(after, refresh = true) {
  if (refresh) await refreshState(after);
  const rank = after !== undefined && S.item && S.item.id === after ? S.item.rank : undefined;
  const current = await claimNext(rank); // team.js
  if (current === null) { await finished(); return; }
  await show(current);
}

async function finished() {
  await loadPage(S.offset);
  S.item = null;
  const p = S.info.progress;
  $("message").replaceChildren(el("span", { class: "done", text: teamDone(p) || trf("All {n} messages of the list are decided. Next: triage release.", { n: num(p.total) }) })); // teamDone: team.js
  $("badges").replaceChildren(); $("reasons").replaceChildren(); $("tags").replaceChildren();
  $("neighbours-before").replaceChildren(); $("neighbours-after").replaceChildren();
  say("");
}

// --------------------------------------------------------------------- words

async function loadWords() {
  S.candidates = await api("GET", "/api/candidates");
  S.candFocus = Math.min(S.candFocus, Math.max(0, S.candidates.length - 1));
  const list = $("word-list");
  list.replaceChildren();
  if (!S.candidates.length) list.append(el("li", { text: tr("No word left to decide in the pending messages.") }));
  S.candidates.forEach((group, index) => {
    const examples = el("ul", { class: "examples" });
    for (const ex of group.examples) {
      const line = el("li", { "data-message-id": ex.id });
      if (ex.start >= 0) line.append(...marked(ex));
      else line.textContent = ex.text;
      examples.append(line);
    }
    const li = el("li", { "data-spelling": group.spelling },
      el("h3", {}, document.createTextNode(group.spelling), el("small", { text: `${trf(group.messages > 1 ? "{n} pending messages" : "{n} pending message", { n: group.messages })} · ${trReason(group.reason)}` })),
      examples,
      el("div", { class: "actions" },
        learnButton(trf("Name, as {tag}", { tag: S.wordTag }), "learnName", group.spelling, "name"),
        learnButton(tr("Ordinary word"), "learnWord", group.spelling, "word"),
        concordanceButton(group.spelling)));
    li.addEventListener("click", () => focusCandidate(index));
    if (index === S.candFocus) li.classList.add("focused");
    list.append(li);
  });
  renderWordTools();
}

// The Words view's choices: the tag a name is learnt with (digits), where it is learnt (l).
function renderWordTools() {
  const tags = $("word-tags");
  tags.replaceChildren(el("span", { text: `${tr("learn a name as:")} ` }));
  for (const [key, tag] of TAG_ORDER) {
    const button = el("button", { type: "button", text: `${key} ${tag}` });
    button.setAttribute("aria-pressed", String(tag === S.wordTag));
    button.addEventListener("click", () => setWordTag(tag));
    tags.append(button);
  }
  const scope = $("word-scope");
  scope.replaceChildren(document.createTextNode(`${tr("into:")} `));
  for (const [value, label] of [["corpus", "this corpus"], ["user", "my lexicon (every future corpus)"]]) {
    const button = el("button", { type: "button", text: tr(label) });
    button.setAttribute("aria-pressed", String(value === S.scope));
    button.addEventListener("click", () => { S.scope = value; renderWordTools(); });
    scope.append(button);
  }
  scope.append(" ", el("kbd", { text: keysOf("words", "scope").join(" ") }));
  document.querySelectorAll("#word-list .learn-name").forEach((b) => { b.firstChild.textContent = `${trf("Name, as {tag}", { tag: S.wordTag })} `; });
}

function setWordTag(tag) {
  S.wordTag = tag;
  renderWordTools();
}

function focusCandidate(index) {
  S.candFocus = Math.min(S.candidates.length - 1, Math.max(0, index));
  S.wordTag = "PRE"; // each word starts from the commonest tag
  document.querySelectorAll("#word-list > li").forEach((li, i) => li.classList.toggle("focused", i === S.candFocus));
  const focused = document.querySelector("#word-list > li.focused");
  if (focused) focused.scrollIntoView({ block: "nearest" });
  renderWordTools();
}

// An example from the server ({text, start, end} in code points) with its match marked.
function marked(ex) {
  const [[start, end]] = spansFromServer(ex.text, [[ex.start, ex.end, ""]]);
  return [ex.text.slice(0, start), el("mark", { text: ex.text.slice(start, end) }), ex.text.slice(end)];
}

function concordanceButton(spelling) {
  const button = el("button", { type: "button", class: "concordance-open" }, document.createTextNode(`${tr("Every occurrence")} `), el("kbd", { text: keysOf("words", "concordance").join(" ") }));
  button.addEventListener("click", () => openConcordance(spelling).catch((error) => sayWords(error.message, true)));
  return button;
}

function learnButton(label, action, spelling, kind) {
  const button = el("button", { type: "button", class: action === "learnName" ? "learn-name" : "learn-word" },
    document.createTextNode(`${label} `), el("kbd", { text: keysOf("words", action).join(" ") }));
  button.addEventListener("click", (event) => { event.stopPropagation(); learn(spelling, kind, S.scope); });
  return button;
}

// `digest` names the word as the Words view (or the confirmation's preview) showed it: when someone
// learnt it or acted on one of its messages since, nothing is learnt and the view is shown anew.
async function learn(spelling, kind, scope, confirm = false, digest = undefined) {
  const tag = S.wordTag;
  if (digest === undefined) {
    const group = (S.candidates || []).find((g) => g.spelling === spelling);
    digest = group ? group.digest : undefined;
  }
  try {
    const entry = await api("POST", "/api/learn", { spelling, kind, scope, tag, confirm, digest });
    sayWords(trf(kind === "name" ? "Learnt “{spelling}” as a name ({tag}) ({scope}): {summary}." : "Learnt “{spelling}” as an ordinary word ({scope}): {summary}.",
      { spelling: entry.spelling, tag: entry.tag, scope: tr(scope === "user" ? "your lexicon" : "this corpus"), summary: entry.preview.summary }));
    S.wordTag = "PRE";
    await loadWords();
    await refreshState();
  } catch (error) {
    if (error.status === 409 && error.data && error.data.preview) {
      askConfirmation(error.data, () => { S.wordTag = tag; return learn(spelling, kind, scope, true, error.data.preview.digest); });
      return;
    }
    if (error.status === 409) { // someone changed the word since: the view as it now is, and why
      await loadWords().catch(() => {});
      sayWords(trf("Nothing was learnt: “{spelling}” changed since the page showed it (someone learnt it, or decided one of its messages). The words are shown as they now are.", { spelling }), true);
      return;
    }
    sayWords(error.message, true);
  }
}

function sayWords(text, error = false) {
  const status = $("words-status");
  status.textContent = text;
  status.classList.toggle("error", error);
}

// The confirmation's yes button: its words, then its key.
function setConfirmYes(text) {
  $("confirm-yes").replaceChildren(document.createTextNode(`${text} `), el("kbd", { text: "y" }));
}

function askConfirmation(data, onYes) {
  const dialog = $("confirm");
  setConfirmYes(tr("Learn it anyway"));
  const preview = data.preview;
  if (preview.kind === "word") { // the direction that releases text: always asked, with what becomes readable
    $("confirm-title").textContent = trf("Make “{spelling}” an ordinary word?", { spelling: preview.spelling });
    $("confirm-text").textContent = trf(
      "It is in {messages} messages: {readable} hidden items become readable in {where} messages, for example:",
      { messages: preview.messages.toLocaleString(), readable: preview.readable.toLocaleString(), where: preview.readable_messages.toLocaleString() });
  } else {
    $("confirm-title").textContent = trf("Make “{spelling}” a name?", { spelling: preview.spelling });
    $("confirm-text").textContent = trf("{why}. It {summary}, for example:", { why: errorText(data), summary: preview.summary.replace(/^hides/, "would hide") });
  }
  const list = $("confirm-examples");
  list.replaceChildren();
  for (const ex of preview.examples) {
    list.append(el("li", {}, ...marked(ex)));
  }
  S.pending = onYes;
  dialog.showModal();
  $("confirm-no").focus();
}

// -------------------------------------------------------------------- learnt

async function loadLearnt() {
  const rows = await api("GET", "/api/learnt");
  const body = $("learnt-rows");
  body.replaceChildren();
  if (!rows.length) body.append(el("tr", {}, el("td", { colSpan: 7, text: tr("Nothing learnt yet.") })));
  for (const entry of rows) {
    const undoButton = el("button", { type: "button", text: tr("Undo"), disabled: !entry.active });
    undoButton.addEventListener("click", async () => {
      try { await api("DELETE", `/api/learnt/${entry.id}`); } catch (error) {
        if (error.status === 409) { // undone by someone else since: the list as it now is, and why
          await loadLearnt().catch(() => {});
          $("learnt-status").textContent = trf("Nothing was changed: entry {id} (“{spelling}”) was undone by {who} since the page showed it. The list is shown as it now is.",
            { id: entry.id, spelling: entry.spelling, who: (error.data && error.data.conflict && error.data.conflict.undone_by) || tr("someone else") });
        } else $("learnt-status").textContent = error.message;
        $("learnt-status").classList.add("error"); return;
      }
      $("learnt-status").textContent = ""; await loadLearnt();
    });
    const row = el("tr", { class: entry.active ? "" : "inactive", "data-entry": String(entry.id) },
      el("td", { text: String(entry.id) }), el("td", { text: entry.spelling }),
      el("td", { text: entry.kind === "name" ? trf("name ({tag})", { tag: entry.tag }) : tr("ordinary word") }),
      el("td", { text: tr(entry.scope === "user" ? "my lexicon" : "this corpus") }),
      el("td", { text: entry.reviewer }), el("td", { text: entry.at.replace("T", " ").replace("+00:00", " UTC") }),
      el("td", {}, undoButton));
    body.append(row);
  }
}

// --------------------------------------------------------------------- views

async function switchView(view) {
  S.view = view;
  for (const name of VIEWS) $(`view-${name}`).hidden = name !== view;
  document.querySelectorAll(".tab[data-view]").forEach((tab) => tab.setAttribute("aria-pressed", String(tab.dataset.view === view)));
  if (view === "words") await loadWords();
  if (view === "learnt") await loadLearnt();
  if (view === "adjudicate") await loadDisputes();
  if (view === "messages") { if (S.item) await show(S.item.id); else await next(); }
}

// ------------------------------------------------------------------ keyboard

// What each action of KEYMAP does, and how the help panel says it.
const ACTIONS = {
  help: { text: "this help (Esc closes it)", run: () => openHelp() },
  nextView: { text: "next view: messages, words, learnt (and adjudicate for the lead reviewer)", run: () => switchView(VIEWS[(VIEWS.indexOf(S.view) + 1) % VIEWS.length]) },
  accept: { text: "accept what is shown (hidden words hidden, the rest released)", run: () => decide(S.draft.length ? "TA" : "NTA") },
  markTA: { text: "mark TA (keep what is hidden)", run: () => decide("TA") },
  markNTA: { text: "mark NTA (nothing to hide)", run: () => decide("NTA") },
  skip: { text: "skip: the message comes back after the pending ones", run: () => skip() },
  undo: { text: "undo your last decision or skip (the list of your last decisions is on the left)", run: () => undo(), always: true },
  back: { text: "back to the previous message", run: () => back() },
  toggle: { text: "hide / show the focused word", run: () => toggle(S.focus) },
  hideSelection: { text: "hide the selected characters (dragging over them does it too)", run: () => hideSelection() },
  nextWord: { text: "next word (Words view: next spelling)", run: () => (S.view === "words" ? focusCandidate(S.candFocus + 1) : moveFocus(1)) },
  previousWord: { text: "previous word (Words view: previous spelling)", run: () => (S.view === "words" ? focusCandidate(S.candFocus - 1) : moveFocus(-1)) },
  nextMarked: { text: "next highlighted or hidden word", run: () => moveMarked(1) },
  previousMarked: { text: "previous highlighted or hidden word", run: () => moveMarked(-1) },
  reset: { text: "reset the message to the machines' proposal", run: () => reset() },
  goTo: { text: "go to a message by its id", run: () => askGoTo(), always: true },
  originals: { text: "show or hide the originals of hidden words", run: () => { const box = $("show-originals"); box.checked = !box.checked; applyOriginals(); }, always: true },
  learnName: { text: "Words view: learn the focused spelling as a name, with the chosen tag", run: () => learnFocused("name") },
  learnWord: { text: "Words view: learn the focused spelling as an ordinary word", run: () => learnFocused("word") },
  foreign: { text: "a message mostly in another language: release its words, keep hidden what was found by its form (numbers, addresses, links, codes)", run: () => decideForeign() },
  concordance: { text: "Words view: every occurrence of the focused spelling, each a name or a word", run: () => { const g = S.candidates[S.candFocus]; if (g) return openConcordance(g.spelling); } },
  scope: { text: "Words view: learn into this corpus or into my lexicon (every future corpus)", run: () => { S.scope = S.scope === "corpus" ? "user" : "corpus"; renderWordTools(); } },
};

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const confirm = $("confirm"), help = $("help");
  if (confirm.open) {
    if (event.key === "y") { event.preventDefault(); confirm.close(); const go = S.pending; S.pending = null; if (go) go(); }
    return; // Esc closes the dialog by itself
  }
  if ($("bulk").open) return; // its buttons and Esc
  if (help.open) { if (KEYMAP.any[event.key] === "help") { event.preventDefault(); help.close(); } return; }
  if ($("goto").open) return; // its own field and keys
  if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
  const key = event.key;
  if (S.view === "adjudicate" && !(key in KEYMAP.any)) return onAdjudicateKey(event); // adjudicate.js
  const action = KEYMAP.any[key] || (KEYMAP[S.view] || {})[key];
  if (action === undefined && key in TAG_KEYS && (S.view === "messages" || S.view === "words")) {
    event.preventDefault();
    if (S.view === "words") setWordTag(TAG_KEYS[key]);
    else if (S.item) setTag(TAG_KEYS[key]);
    return;
  }
  if (action === undefined) return;
  // A key of the review means its action whatever has the focus: Enter after a click on NTA accepts
  // the next message's proposal, it never presses NTA again (preventDefault keeps the button still).
  if (document.activeElement instanceof HTMLButtonElement) document.activeElement.blur();
  if (S.view === "messages" && !S.item && !ACTIONS[action].always && !(action in KEYMAP.any)) return;
  event.preventDefault();
  Promise.resolve(ACTIONS[action].run()).catch((error) => say(error.message, true));
}

function learnFocused(kind) {
  const group = S.candidates[S.candFocus];
  if (group) return learn(group.spelling, kind, S.scope);
}

// The focus to the next (step 1) or previous (-1) word that is highlighted or hidden, round the message.
function moveMarked(step) {
  const marked = [...document.querySelectorAll("#message [data-unit]")]
    .filter((node) => node.classList.contains("look") || node.classList.contains("hidden-item") || node.classList.contains("was"))
    .map((node) => Number(node.getAttribute("data-unit")));
  if (!marked.length) { say(tr("No highlighted or hidden word in this message.")); return; }
  const after = step > 0 ? marked.find((i) => i > S.focus) : [...marked].reverse().find((i) => i < S.focus);
  S.focus = after !== undefined ? after : (step > 0 ? marked[0] : marked[marked.length - 1]);
  markFocus();
  const node = document.querySelector(`#message [data-unit="${S.focus}"]`);
  if (node) node.scrollIntoView({ block: "nearest" });
}

// Back to what the machines proposed for this message (their spans, with the words learnt applied).
function reset() {
  S.draft = S.item.proposal.map((span) => span.slice());
  S.focus = -1;
  render();
  const n = S.draft.length;
  say(n ? trf(n > 1 ? "Back to the machines' proposal: {n} items hidden." : "Back to the machines' proposal: {n} item hidden.", { n })
    : tr("Back to the machines' proposal: nothing hidden."));
}

function askGoTo() {
  const dialog = $("goto");
  $("goto-id").value = "";
  $("goto-error").textContent = "";
  dialog.showModal();
  $("goto-id").focus();
}

async function goTo() {
  const id = $("goto-id").value.trim();
  if (!id) return;
  if (S.view !== "messages") await switchView("messages");
  try {
    await show(id, true);
    $("goto").close();
  } catch (error) {
    $("goto-error").textContent = error.status === 404 ? trf("No message “{id}” in the review list.", { id }) : error.message;
  }
}

// The help panel and the buttons' key hints, written from KEYMAP.
function renderKeys() {
  const table = $("keys");
  table.replaceChildren();
  const keyText = (key) => (KEY_NAMES[key] ? tr(KEY_NAMES[key]) : key);
  for (const view of ["any", "messages", "words"]) {
    const seen = new Set();
    table.append(el("tr", {}, el("th", { colSpan: 2, text: tr({ any: "Everywhere", messages: "Messages", words: "Words" }[view]) })));
    for (const action of Object.values(KEYMAP[view])) {
      if (seen.has(action)) continue;
      seen.add(action);
      const keys = el("td", {});
      keysOf(view, action).forEach((key, i) => { if (i) keys.append(" "); keys.append(el("kbd", { text: keyText(key) })); });
      table.append(el("tr", { "data-action": action }, keys, el("td", { text: tr(ACTIONS[action].text) })));
    }
    if (view !== "any") {
      const tags = TAG_ORDER.map(([key, tag]) => `${key} ${tag}`).join(", ");
      table.append(el("tr", {}, el("td", {}, el("kbd", { text: "0" }), "–", el("kbd", { text: "9" })),
        el("td", { text: trf("{what}: {tags} (on AZERTY, the same keys without Shift: {azerty})", {
          what: tr(view === "words" ? "the tag a name is learnt with" : "tag of the focused hidden word"), tags,
          azerty: `& é " ' ( - è _ ç à` }) })));
    }
  }
  table.append(el("tr", {}, el("th", { colSpan: 2, text: tr("Adjudicate (the lead reviewer)") })),
    el("tr", {}, el("td", {}, el("kbd", { text: "1" }), " ", el("kbd", { text: "2" }), " ", el("kbd", { text: "e" })),
      el("td", { text: tr("keep the first / the second decision, or edit the message (on AZERTY: & é without Shift)") })),
    el("tr", {}, el("td", {}, el("kbd", { text: "j" }), " ", el("kbd", { text: "k" })), el("td", { text: tr("next / previous disagreement") })));
  document.querySelectorAll("kbd[data-action]").forEach((kbd) => {
    const [view, action] = kbd.getAttribute("data-action").split(":");
    kbd.textContent = keysOf(view, action).map(keyText).join(" ");
  });
}

// The help opens at its top every time, wherever it was scrolled to when it was closed.
function openHelp() {
  const help = $("help");
  help.showModal(); // focuses its first field, which may scroll the dialog down
  help.scrollTop = 0;
  requestAnimationFrame(() => { help.scrollTop = 0; });
}

function applyOriginals() {
  $("message").classList.toggle("show-originals", $("show-originals").checked);
}

// ---------------------------------------------------------------------- start

async function start() {
  document.addEventListener("keydown", onKey);
  // A button clicked with the mouse does not keep the focus: the next key is the review's, not the button's.
  document.addEventListener("click", (event) => {
    const button = event.target instanceof Element && event.target.closest("button");
    if (button && event.detail > 0 && !button.closest("dialog")) button.blur();
  });
  document.querySelectorAll(".tab[data-view]").forEach((tab) => tab.addEventListener("click", () => switchView(tab.dataset.view)));
  $("accept").addEventListener("click", () => decide(S.draft.length ? "TA" : "NTA"));
  $("mark-ta").addEventListener("click", () => decide("TA"));
  $("mark-nta").addEventListener("click", () => decide("NTA"));
  $("skip").addEventListener("click", skip);
  $("undo").addEventListener("click", undo);
  $("back").addEventListener("click", back);
  $("reset").addEventListener("click", () => S.item && reset());
  $("hide-selection").addEventListener("mousedown", (event) => event.preventDefault()); // keep the selection
  $("hide-selection").addEventListener("click", hideSelection);
  $("show-originals").addEventListener("change", applyOriginals);
  document.addEventListener("mousedown", (event) => { S.pressedInMessage = $("message").contains(event.target); });
  document.addEventListener("click", onMessageClick);
  $("help-button").addEventListener("click", openHelp);
  $("goto-id").addEventListener("keydown", (event) => { if (event.key === "Enter") { event.preventDefault(); goTo(); } });
  $("goto-go").addEventListener("click", goTo);
  $("history-undo").addEventListener("click", undo);
  renderKeys();
  $("confirm-yes").addEventListener("click", () => { $("confirm").close(); const go = S.pending; S.pending = null; if (go) go(); });
  $("confirm-no").addEventListener("click", () => { $("confirm").close(); S.pending = null; });
  $("page-prev").addEventListener("click", () => loadPage(Math.max(0, S.offset - PAGE)));
  $("page-next").addEventListener("click", () => loadPage(S.offset + PAGE));
  try {
    initFilters(await refreshState(), loadPage);
    initBulk();
    initKeySettings(KEYMAP);
    setupTeam(S.info); // adjudicate.js
    await Promise.all([next(undefined, false), loadHistory()]); // the state was just read
    document.body.setAttribute("data-ready", "true");
  } catch (error) { say(error.message, true); }
}

start();
