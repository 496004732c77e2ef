// The review page: one message at a time, keyboard first. Message text is untrusted: it is
// only ever inserted with textContent / createTextNode, never as HTML.
"use strict";

const TAG_ORDER = [["1", "PRE"], ["2", "NOM"], ["3", "SUR"], ["4", "LIE"], ["5", "TEL"], ["6", "MEL"], ["7", "URL"], ["8", "ADR"], ["9", "COD"], ["0", "MAR"]];
const TAG_KEYS = Object.fromEntries(TAG_ORDER);
const VIEWS = ["messages", "words", "learnt"];
const PAGE = 50;
const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}'’_-]*/gu;

const S = {
  view: "messages", item: null, draft: [], units: [], focus: -1, tag: "PRE",
  page: [], total: 0, offset: 0, trail: [], candidates: [], candFocus: 0, pending: null, info: null,
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

// The page lives under the server's secret path (/<base>/), where its token cookie is sent.
const BASE = location.pathname.replace(/\/[^/]*$/, "");

async function api(method, path, body) {
  const response = await fetch(BASE + path, {
    method, credentials: "same-origin",
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    const error = new Error((data && data.error) || `${response.status} ${response.statusText}`);
    error.status = response.status; error.data = data;
    throw error;
  }
  return data;
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

async function refreshState() {
  S.info = await api("GET", "/api/state");
  const p = S.info.progress;
  const done = p.decided;
  $("progress-fill").style.width = p.total ? `${(100 * done) / p.total}%` : "0";
  let text = `${done} / ${p.total} decided`;
  if (p.audit) text += ` (queue ${p.queue}, audit ${p.audit})`;
  if (p.skipped) text += ` · ${p.skipped} skipped`;
  if (p.seconds_per_message) text += ` · ${p.seconds_per_message} s per message`;
  if (p.seconds_left) text += ` · about ${formatDuration(p.seconds_left)} left`;
  const audit = S.info.audit;
  if (audit.audited) {
    text += ` · audit: ${audit.leaking} of ${audit.audited} still identifying (${pct(audit.share)}, 95% CI ${pct(audit.low)}–${pct(audit.high)})`;
  }
  $("progress-text").textContent = text;
  fillReviewers(S.info.reviewers || []);
  return S.info;
}

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
  $("list-page").textContent = S.total ? `${S.offset + 1}–${last} of ${S.total}` : (listFiltered() ? "nothing found" : "empty");
  $("list-title").textContent = listFiltered() ? "Found" : "Queue";
  $("page-prev").disabled = S.offset === 0;
  $("page-next").disabled = last >= S.total;
}

// ------------------------------------------------------------------- message

async function show(id, remember = false) {
  if (remember && S.item && S.item.id !== id) S.trail.push(S.item.id);
  const item = await api("GET", `/api/items/${encodeURIComponent(id)}`);
  for (const key of ["spans", "proposal", "machine_spans"]) if (item[key]) item[key] = spansFromServer(item.text, item[key]);
  S.item = item;
  S.draft = (item.status === "decided" ? item.spans : item.proposal).map((s) => s.slice());
  S.focus = -1;
  S.tag = "PRE"; // each message starts from the commonest tag
  const pageStart = Math.floor(item.rank / PAGE) * PAGE;
  if (listFiltered()) await loadPage(S.offset); // a filtered list stays on its page, its marks brought up to date
  else if (pageStart !== S.offset || !S.page.some((i) => i.id === id)) await loadPage(pageStart);
  else renderList();
  render();
  say(item.status === "decided" ? `Decided ${item.label} by ${item.reviewer}. Change it if needed.` :
      item.status === "stale" ? "The text changed since it was decided: please look again." : "");
}

function units(text, spans) {
  const out = [];
  for (const [start, end, tag] of spans) out.push({ kind: "hidden", start, end, tag });
  for (const match of text.matchAll(WORD)) {
    const start = match.index, end = start + match[0].length;
    if (!spans.some(([s, e]) => start < e && end > s)) out.push({ kind: "word", start, end });
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
      node = el("span", { class: "hidden-item", "data-start": String(unit.start), "data-end": String(unit.end), title: `hidden as ${unit.tag}: click or h to show it` },
        document.createTextNode(unit.tag), el("span", { class: "original", text: piece }));
    } else {
      node = el("span", { class: "word", "data-start": String(unit.start), text: piece, title: "click or h to hide" });
      if (looked.has(piece.toLowerCase())) node.classList.add("look");
    }
    node.setAttribute("data-unit", String(index));
    if (index === S.focus) node.classList.add("focused");
    node.addEventListener("click", () => { S.focus = index; toggle(index); });
    box.append(node);
    at = unit.end;
  });
  if (at < text.length) box.append(el("span", { class: "gap", "data-start": String(at), text: text.slice(at) }));

  const badges = $("badges");
  badges.replaceChildren(
    el("span", { class: `badge ${item.kind}`, text: item.kind === "audit" ? "audit: released by the machines" : "queue" }),
    el("span", { class: "badge", text: `machines: ${item.machine_label}` }),
    el("span", { class: "badge", text: `Seek&Hide ${item.seekhide} · model ${item.model} p=${item.score.toFixed(2)}` }),
  );
  if (item.risk !== null) badges.append(el("span", { class: "badge", text: `risk ${item.risk.toFixed(2)}` }));
  if (item.language && item.language.foreign) {
    badges.append(el("span", { class: "badge foreign", title: "Few of its words are French ordinary words: its unknown words are rarely names. f decides it.",
      text: `mostly another language (${Math.round(100 * item.language.french_share)}% French words) · f` }));
  }
  if (item.status !== "pending") badges.append(el("span", { class: `badge ${item.status}`, text: item.status === "decided" ? `decided ${item.label}` : item.status }));

  const reasons = $("reasons");
  reasons.replaceChildren();
  for (const [word, why] of Object.entries(item.reasons)) {
    reasons.append(el("li", {}, el("b", { text: word }), document.createTextNode(" — "), el("span", { class: "why", text: why })));
  }
  renderTags();
  renderNeighbours(item);
  const hidden = S.draft.length;
  $("accept-what").textContent = hidden ? `: hide ${hidden} item${hidden > 1 ? "s" : ""} (TA)` : ": nothing to hide (NTA)";
}

function renderNeighbours(item) {
  const before = $("neighbours-before"), after = $("neighbours-after");
  before.replaceChildren(); after.replaceChildren();
  for (const n of item.neighbours) {
    const line = el("div", { class: "neighbour", text: n.text, title: `message ${n.id}` });
    (n.position < item.position ? before : after).append(line);
  }
}

function renderTags() {
  const unit = S.units[S.focus];
  const current = unit && unit.kind === "hidden" ? unit.tag : S.tag;
  const tags = $("tags");
  tags.replaceChildren(el("span", { text: "tag: " }));
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
  } else {
    S.draft.push([unit.start, unit.end, S.tag]);
    S.draft.sort((a, b) => a[0] - b[0]);
  }
  render();
  const again = S.units.findIndex((u) => u.start === unit.start);
  S.focus = again; markFocus();
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

// A text position from a point of the selection: every piece carries its start offset.
function offsetOf(node, offset) {
  let element = node.nodeType === Node.TEXT_NODE ? node.parentElement : node;
  while (element && !element.hasAttribute("data-start")) element = element.parentElement;
  if (!element || !$("message").contains(element)) return null;
  const start = Number(element.getAttribute("data-start"));
  if (element.classList.contains("hidden-item")) return offset > 0 ? Number(element.getAttribute("data-end")) : start;
  return node.nodeType === Node.TEXT_NODE ? start + offset : start;
}

function hideSelection() {
  const selection = window.getSelection();
  if (!selection || selection.isCollapsed) { say("Select the characters to hide first, then press m.", true); return; }
  const a = offsetOf(selection.anchorNode, selection.anchorOffset);
  const b = offsetOf(selection.focusNode, selection.focusOffset);
  if (a === null || b === null) { say("Select characters inside the message.", true); return; }
  let start = Math.min(a, b), end = Math.max(a, b);
  const text = S.item.text;
  while (start < end && /\s/.test(text[start])) start++;
  while (end > start && /\s/.test(text[end - 1])) end--;
  if (start >= end) { say("The selection holds only spaces.", true); return; }
  const absorbed = S.draft.filter(([s, e]) => s < end && e > start);
  for (const [s, e] of absorbed) { start = Math.min(start, s); end = Math.max(end, e); }
  S.draft = S.draft.filter((span) => !absorbed.includes(span));
  S.draft.push([start, end, S.tag]);
  S.draft.sort((x, y) => x[0] - y[0]);
  selection.removeAllRanges();
  render();
  S.focus = S.units.findIndex((u) => u.start === start); markFocus();
  say(`Hidden “${text.slice(start, end)}” as ${S.tag}. Digits change its tag.`);
}

// ----------------------------------------------------------------- decisions

async function decide(label) {
  if (!S.item) return;
  if (label === "TA" && !S.draft.length) {
    say("Nothing is hidden: hide what identifies someone (h, or select and m), or press n for NTA.", true);
    return;
  }
  const spans = label === "NTA" ? [] : spansToServer(S.item.text, S.draft);
  try {
    await api("POST", `/api/items/${encodeURIComponent(S.item.id)}/decision`, { label, spans, text_hash: S.item.text_hash });
    S.trail.push(S.item.id);
    await next();
  } catch (error) { await refused(error); }
}

async function skip() {
  if (!S.item) return;
  try {
    await api("POST", `/api/items/${encodeURIComponent(S.item.id)}/skip`, { text_hash: S.item.text_hash });
    S.trail.push(S.item.id);
    await next();
  } catch (error) { await refused(error); }
}

// A decision or skip names the text it was made on: when the text changed since the page showed
// it (the corpus was classified again), the server stores nothing and the page shows the message anew.
async function refused(error) {
  if (error.status === 409 && error.data && error.data.changed && S.item) {
    await refreshState();
    try { await show(S.item.id); } catch (_) { await next(); } // gone from the list: the next one
  }
  say(error.message, true);
}

async function undo() {
  let item;
  try { item = await api("POST", "/api/undo"); } catch (error) { say(error.message, true); return; }
  if (!item) { say("Nothing to undo."); return; }
  await refreshState();
  await show(item.id);
  say(`Undone: message ${item.id} is ${item.status} again.`);
}

async function back() {
  const previous = S.trail.pop();
  if (previous !== undefined) { await show(previous); return; }
  if (S.item && S.item.rank > 0) {
    const data = await api("GET", `/api/items?offset=${S.item.rank - 1}&limit=1`);
    if (data.items.length) await show(data.items[0].id);
  }
}

async function next() {
  const info = await refreshState();
  if (info.current === null) { await finished(); return; }
  await show(info.current);
}

async function finished() {
  await loadPage(S.offset);
  S.item = null;
  const p = S.info.progress;
  $("message").replaceChildren(el("span", { class: "done", text: `All ${p.total} messages of the list are decided (${p.skipped} skipped). Next: triage release.` }));
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
  if (!S.candidates.length) list.append(el("li", { text: "No word left to decide in the pending messages." }));
  S.candidates.forEach((group, index) => {
    const examples = el("ul", { class: "examples" });
    for (const ex of group.examples) {
      const line = el("li", { "data-message-id": ex.id });
      if (ex.start >= 0) line.append(...marked(ex));
      else line.textContent = ex.text;
      examples.append(line);
    }
    const li = el("li", { "data-spelling": group.spelling },
      el("h3", {}, document.createTextNode(group.spelling), el("small", { text: `${group.messages} pending message${group.messages > 1 ? "s" : ""} · ${group.reason}` })),
      examples,
      el("div", { class: "actions" },
        learnButton("Name · this corpus", "n", group.spelling, "name", "corpus"),
        learnButton("Name · my lexicon", "N", group.spelling, "name", "user"),
        learnButton("Ordinary word · this corpus", "w", group.spelling, "word", "corpus"),
        learnButton("Ordinary word · my lexicon", "W", group.spelling, "word", "user"),
        concordanceButton(group.spelling)));
    if (index === S.candFocus) li.classList.add("focused");
    list.append(li);
  });
}

// An example from the server ({text, start, end} in code points) with its match marked.
function marked(ex) {
  const [[start, end]] = spansFromServer(ex.text, [[ex.start, ex.end, ""]]);
  return [ex.text.slice(0, start), el("mark", { text: ex.text.slice(start, end) }), ex.text.slice(end)];
}

function concordanceButton(spelling) {
  const button = el("button", { type: "button", class: "concordance-open" }, document.createTextNode("Every occurrence "), el("kbd", { text: "c" }));
  button.addEventListener("click", () => openConcordance(spelling).catch((error) => sayWords(error.message, true)));
  return button;
}

function learnButton(label, key, spelling, kind, scope) {
  const button = el("button", { type: "button" }, document.createTextNode(`${label} `), el("kbd", { text: key }));
  button.addEventListener("click", () => learn(spelling, kind, scope));
  return button;
}

async function learn(spelling, kind, scope, confirm = false) {
  try {
    const entry = await api("POST", "/api/learn", { spelling, kind, scope, tag: S.tag, confirm });
    sayWords(`Learnt “${entry.spelling}” as ${kind === "name" ? "a name" : "an ordinary word"} (${scope === "user" ? "your lexicon" : "this corpus"}): ${entry.preview.summary}.`);
    await loadWords();
    await refreshState();
  } catch (error) {
    if (error.status === 409) { askConfirmation(error.data, () => learn(spelling, kind, scope, true)); return; }
    sayWords(error.message, true);
  }
}

function sayWords(text, error = false) {
  const status = $("words-status");
  status.textContent = text;
  status.classList.toggle("error", error);
}

function askConfirmation(data, onYes) {
  const dialog = $("confirm");
  $("confirm-title").textContent = `Make “${data.preview.spelling}” a name?`;
  $("confirm-text").textContent = `${data.error}. It ${data.preview.summary.replace(/^hides/, "would hide")}, for example:`;
  const list = $("confirm-examples");
  list.replaceChildren();
  for (const ex of data.preview.examples) {
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
  if (!rows.length) body.append(el("tr", {}, el("td", { colSpan: 7, text: "Nothing learnt yet." })));
  for (const entry of rows) {
    const undoButton = el("button", { type: "button", text: "Undo", disabled: !entry.active });
    undoButton.addEventListener("click", async () => {
      try { await api("DELETE", `/api/learnt/${entry.id}`); } catch (error) {
        $("learnt-status").textContent = error.message; $("learnt-status").classList.add("error"); return;
      }
      $("learnt-status").textContent = ""; await loadLearnt();
    });
    const row = el("tr", { class: entry.active ? "" : "inactive", "data-entry": String(entry.id) },
      el("td", { text: String(entry.id) }), el("td", { text: entry.spelling }),
      el("td", { text: entry.kind === "name" ? `name (${entry.tag})` : "ordinary word" }),
      el("td", { text: entry.scope === "user" ? "my lexicon" : "this corpus" }),
      el("td", { text: entry.reviewer }), el("td", { text: entry.at.replace("T", " ").replace("+00:00", " UTC") }),
      el("td", {}, undoButton));
    body.append(row);
  }
}

// --------------------------------------------------------------------- views

async function switchView(view) {
  S.view = view;
  for (const name of VIEWS) $(`view-${name}`).hidden = name !== view;
  document.querySelectorAll(".tab").forEach((tab) => tab.setAttribute("aria-pressed", String(tab.dataset.view === view)));
  if (view === "words") await loadWords();
  if (view === "learnt") await loadLearnt();
  if (view === "messages") { if (S.item) await show(S.item.id); else await next(); }
}

// ------------------------------------------------------------------ keyboard

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const confirm = $("confirm"), help = $("help");
  if (confirm.open) {
    if (event.key === "y") { event.preventDefault(); confirm.close(); const go = S.pending; S.pending = null; if (go) go(); }
    return; // Esc closes the dialog by itself
  }
  if ($("bulk").open) return; // its buttons and Esc
  if (help.open) { if (event.key === "?") { event.preventDefault(); help.close(); } return; }
  if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
  const key = event.key;
  if (key === "?") { event.preventDefault(); help.showModal(); return; }
  if (key === "v") { event.preventDefault(); switchView(VIEWS[(VIEWS.indexOf(S.view) + 1) % VIEWS.length]); return; }
  if (S.view === "words") return onWordsKey(event);
  if (S.view !== "messages") return;
  if (key === "o") { const box = $("show-originals"); box.checked = !box.checked; applyOriginals(); return; }
  if (!S.item) { if (key === "u") { event.preventDefault(); undo(); } return; }
  const actions = {
    Enter: () => decide(S.draft.length ? "TA" : "NTA"), t: () => decide("TA"), n: () => decide("NTA"),
    f: decideForeign, s: skip, u: undo, b: back, m: hideSelection, h: () => toggle(S.focus), " ": () => toggle(S.focus),
    ArrowRight: () => moveFocus(1), ArrowLeft: () => moveFocus(-1), j: () => moveFocus(1), k: () => moveFocus(-1),
  };
  if (key in TAG_KEYS) { event.preventDefault(); setTag(TAG_KEYS[key]); return; }
  if (key in actions) {
    if (event.target instanceof HTMLButtonElement && (key === "Enter" || key === " ")) return; // the button's own action
    event.preventDefault();
    Promise.resolve(actions[key]()).catch((error) => say(error.message, true));
  }
}

function onWordsKey(event) {
  const moves = { j: 1, k: -1, ArrowDown: 1, ArrowUp: -1 };
  const learnKeys = { n: ["name", "corpus"], N: ["name", "user"], w: ["word", "corpus"], W: ["word", "user"] };
  if (event.key in moves) {
    event.preventDefault();
    S.candFocus = Math.min(S.candidates.length - 1, Math.max(0, S.candFocus + moves[event.key]));
    document.querySelectorAll("#word-list > li").forEach((li, i) => li.classList.toggle("focused", i === S.candFocus));
    const focused = document.querySelector("#word-list > li.focused");
    if (focused) focused.scrollIntoView({ block: "nearest" });
  } else if (event.key === "c" && S.candidates[S.candFocus]) {
    event.preventDefault();
    openConcordance(S.candidates[S.candFocus].spelling).catch((error) => sayWords(error.message, true));
  } else if (event.key in learnKeys && S.candidates[S.candFocus]) {
    event.preventDefault();
    const [kind, scope] = learnKeys[event.key];
    learn(S.candidates[S.candFocus].spelling, kind, scope);
  }
}

function applyOriginals() {
  $("message").classList.toggle("show-originals", $("show-originals").checked);
}

// ---------------------------------------------------------------------- start

async function start() {
  document.addEventListener("keydown", onKey);
  document.querySelectorAll(".tab").forEach((tab) => tab.addEventListener("click", () => switchView(tab.dataset.view)));
  $("accept").addEventListener("click", () => decide(S.draft.length ? "TA" : "NTA"));
  $("mark-ta").addEventListener("click", () => decide("TA"));
  $("mark-nta").addEventListener("click", () => decide("NTA"));
  $("skip").addEventListener("click", skip);
  $("undo").addEventListener("click", undo);
  $("back").addEventListener("click", back);
  $("hide-selection").addEventListener("mousedown", (event) => event.preventDefault()); // keep the selection
  $("hide-selection").addEventListener("click", hideSelection);
  $("show-originals").addEventListener("change", applyOriginals);
  $("help-button").addEventListener("click", () => $("help").showModal());
  $("confirm-yes").addEventListener("click", () => { $("confirm").close(); const go = S.pending; S.pending = null; if (go) go(); });
  $("confirm-no").addEventListener("click", () => { $("confirm").close(); S.pending = null; });
  $("page-prev").addEventListener("click", () => loadPage(Math.max(0, S.offset - PAGE)));
  $("page-next").addEventListener("click", () => loadPage(S.offset + PAGE));
  try {
    initFilters(await refreshState(), loadPage);
    initBulk();
    await next();
    document.body.setAttribute("data-ready", "true");
  } catch (error) { say(error.message, true); }
}

start();
