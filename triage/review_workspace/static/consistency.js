"use strict";
// The consistency list: the cases a page at a time (25), undecided and riskiest first, filtered by
// spelling, status, kind and tag; each with a few distinct messages and one button per decision;
// the keyboard moves between cases and decides them; one decision for every case shown at once.
// Message text is inserted as text, never as HTML. Offsets from the server are code points of the
// text as written: they are turned into pieces of text with Array.from (code points), here only.
// The page's words are translated by i18n.js (tr, trf), loaded before this file.

const PAGE = 25;
const WORDS = {
  hide: "Hide everywhere", readable: "Show everywhere", homonyms: "Homonyms: leave each as it is",
  same: "One entity (one tag)", different: "Different entities",
};
const KINDS = {
  mixed: "hidden here, readable there", surrogate: "surrogate equal to a readable form", tags: "two tags",
};
// The keys, one object: key -> action. Letters only, without Shift on QWERTY and AZERTY (but ?).
const KEYMAP = {
  "?": "help", j: "next", ArrowDown: "next", k: "previous", ArrowUp: "previous",
  h: "hide", s: "readable", o: "homonyms", e: "same", d: "different",
  n: "nextPage", p: "previousPage", f: "search", u: "undo",
};
const ACTIONS = {
  help: { text: "this help (Esc closes it)", run: () => $("help").showModal() },
  next: { text: "next case", run: () => move(1) },
  previous: { text: "previous case", run: () => move(-1) },
  hide: { text: "hide the spelling everywhere (asks first where it is readable)", run: () => decideFocused("hide") },
  readable: { text: "show the spelling everywhere (asks first where it is hidden)", run: () => decideFocused("readable") },
  homonyms: { text: "homonyms: a name where it is hidden, a word where it is readable", run: () => decideFocused("homonyms") },
  same: { text: "two tags: one entity (one tag everywhere)", run: () => decideFocused("same") },
  different: { text: "two tags: different entities", run: () => decideFocused("different") },
  nextPage: { text: "next page of cases", run: () => turn(1) },
  previousPage: { text: "previous page of cases", run: () => turn(-1) },
  search: { text: "search a spelling (Esc leaves the search)", run: () => $("filter-q").focus() },
  undo: { text: "undo your last decision (a decision for many cases whole; asks first when hidden items become readable)", run: () => undo() },
};
const KEY_NAMES = { ArrowDown: "↓", ArrowUp: "↑" };

const S = { offset: 0, data: null, focus: 0, pending: null, ticket: 0, recent: [], historyLoad: null };
const $ = (id) => document.getElementById(id);
const number = (n) => Number(n).toLocaleString(LANG);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const child of children) node.append(child);
  return node;
}

// A count with its word, translated as a whole: plural("{n} message", "{n} messages", 3).
function plural(one, many, n, values = {}) {
  return trf(n === 1 ? one : many, { ...values, n: number(n) });
}

function say(text, error = false) {
  const status = $("status");
  status.textContent = text;
  status.classList.toggle("error", error);
}

// A message with the spelling marked, cut to CONTEXT characters either side of it (whole on hover).
const CONTEXT = 70;
function example(item) {
  const points = Array.from(item.text);
  const from = Math.max(0, item.start - CONTEXT), to = Math.min(points.length, item.end + CONTEXT);
  const node = el("li", { "data-message-id": item.id },
    (from > 0 ? "…" : "") + points.slice(from, item.start).join(""),
    el("mark", { class: item.hidden ? "hidden" : "readable", title: tr(item.hidden ? "hidden" : "readable"),
                 text: points.slice(item.start, item.end).join("") }),
    points.slice(item.end, to).join("") + (to < points.length ? "…" : ""));
  if (from > 0 || to < points.length) node.title = item.text;
  return node;
}

function describe(c) {
  if (c.kind === "mixed") {
    let text = trf("hidden in {hidden}, readable in {readable}", {
      hidden: plural("{n} message", "{n} messages", c.hidden), readable: plural("{n} message", "{n} messages", c.readable) });
    if (c.unreviewed) text += " " + plural("({n} released with no human reading it)", "({n} released with no human reading them)", c.unreviewed);
    return text;
  }
  if (c.kind === "surrogate") {
    return trf("surrogate of an earlier release ({tag}), readable in {readable}", {
      tag: c.surrogate.tag, readable: plural("{n} message", "{n} messages", c.readable) });
  }
  return trf("hidden as {tags}", { tags: Object.entries(c.tags).map(([t, n]) => `${t} (${number(n)})`).join(" + ") });
}

function filters() {
  const params = new URLSearchParams();
  for (const [name, id] of [["q", "filter-q"], ["status", "filter-status"], ["kind", "filter-kind"], ["tag", "filter-tag"]]) {
    const value = $(id).value.trim();
    if (value) params.set(name, value);
  }
  return params;
}

function query(extra = {}) {
  const params = filters();
  params.set("offset", String(S.offset));
  params.set("limit", String(PAGE));
  for (const [k, v] of Object.entries(extra)) params.set(k, v);
  return params.toString();
}

function renderCase(c, index) {
  const choices = el("div", { class: "choices" });
  for (const choice of c.choices) {
    const key = Object.keys(KEYMAP).find((k) => KEYMAP[k] === choice);
    const button = el("button", { type: "button", "aria-pressed": String(c.decision === choice), "data-choice": choice },
      tr(WORDS[choice] || choice), " ", el("kbd", { text: key }));
    button.addEventListener("click", () => { setFocus(index); ask(c, choice); });
    choices.append(button);
  }
  if (c.decision) choices.append(el("span", { class: "who", text: trf("decided by {who}", { who: c.reviewer }) }));
  else if (c.outdated) {
    choices.append(el("span", { class: "who", text: trf("decided {decision} by {who}, then {more}: to decide again", {
      decision: tr(WORDS[c.outdated.decision] || c.outdated.decision), who: c.outdated.reviewer,
      more: plural("{n} more hidden", "{n} more hidden", c.outdated.hidden_since) }) }));
  }
  const head = el("h2", {},
    el("span", { class: "kind", text: tr(KINDS[c.kind] || c.kind) }),
    el("span", { class: "spelling", text: c.key }),
    el("small", { class: "counts", text: describe(c) }));
  if (c.risk) head.append(el("small", { class: "risk", title: tr("the share of its messages where it is hidden, times the messages where it is readable (those no human read count whole)"),
                                         text: trf("risk {risk}", { risk: number(c.risk) }) }));
  const node = el("li", { class: "case" + (c.decision ? " decided" : ""), "data-kind": c.kind, "data-key": c.key,
                          "data-index": String(index), tabindex: "-1" },
    head, el("ul", { class: "examples" }, ...c.examples.map(example)), choices);
  node.addEventListener("click", (event) => { if (!(event.target instanceof Element && event.target.closest("button"))) setFocus(index); });
  return node;
}

function render(data) {
  S.data = data;
  const list = $("cases");
  list.replaceChildren(...data.items.map(renderCase));
  const first = data.total ? data.offset + 1 : 0, last = data.offset + data.items.length;
  let summary;
  if (!data.cases) summary = tr("no case: the corpus is consistent");
  else {
    summary = trf("cases {first}–{last} of {total}", { first: number(first), last: number(last), total: number(data.total) });
    if (data.total !== data.cases) summary += " " + trf("found ({all} in all)", { all: number(data.cases) });
    summary += " · " + plural("{n} to decide", "{n} to decide", data.undecided);
  }
  $("summary").textContent = summary;
  $("page-prev").disabled = data.offset <= 0;
  $("page-next").disabled = last >= data.total;
  $("bulk").hidden = !data.items.length;
  $("bulk").querySelector("span").textContent = plural("The same decision for the {n} case shown:",
    "The same decision for the {n} cases shown:", data.items.length);
  const tags = $("filter-tag"), chosen = tags.value;
  const known = new Set([...tags.options].map((o) => o.value));
  for (const tag of data.tags) if (!known.has(tag)) tags.append(new Option(tag, tag));
  tags.value = chosen;
  setFocus(Math.min(S.focus, Math.max(0, data.items.length - 1)), false);
}

async function load() {
  const ticket = ++S.ticket; // typing in the search sends a request per pause: only the last one is shown
  try {
    const data = await api("GET", "/api/consistency/cases?" + query());
    if (ticket === S.ticket) render(data);
  } catch (error) {
    say(error.message, true);
  }
}

function setFocus(index, scroll = true) {
  S.focus = index;
  document.querySelectorAll("#cases li.case").forEach((node) => {
    const on = Number(node.dataset.index) === index;
    node.classList.toggle("focused", on);
    if (on) node.setAttribute("aria-current", "true"); else node.removeAttribute("aria-current");
    if (on && scroll) { node.focus({ preventScroll: true }); node.scrollIntoView({ block: "nearest" }); }
  });
}

function move(step) {
  const n = S.data ? S.data.items.length : 0;
  if (!n) return;
  const to = S.focus + step;
  if (to >= n) { if (!$("page-next").disabled) { S.focus = 0; return turn(1); } return; }
  if (to < 0) { if (!$("page-prev").disabled) { S.focus = PAGE - 1; return turn(-1); } return; }
  setFocus(to);
}

async function turn(step) {
  if (!S.data) return;
  const to = S.offset + step * PAGE;
  if (to < 0 || to >= S.data.total) return;
  S.offset = to;
  await load();
  setFocus(S.focus);
}

function decideFocused(choice) {
  const c = S.data && S.data.items[S.focus];
  if (!c) return;
  if (!c.choices.includes(choice)) {
    say(trf("“{key}” is not decided so: its choices are {choices}.", { key: c.key,
      choices: c.choices.map((x) => tr(WORDS[x] || x)).join(" / ") }), true);
    return;
  }
  return ask(c, choice);
}

// What "hide everywhere" and "show everywhere" change, asked before anything is saved: the
// direction that releases text (show) always asks where the spelling is hidden, and so does hiding.
function question(c, choice) {
  if (choice === "readable" && c.kind === "mixed" && c.hidden) {
    return { title: trf("Show “{key}” everywhere?", { key: c.key }), yes: tr("Show it everywhere"),
             text: trf("Show “{key}” in {where} where it is hidden: it becomes readable there in the release.", {
               key: c.key, where: plural("{n} message", "{n} messages", c.hidden) }), hidden: true };
  }
  if (choice === "hide" && c.readable) {
    return { title: trf("Hide “{key}” everywhere?", { key: c.key }), yes: tr("Hide it everywhere"),
             text: trf("Hide “{key}” in {where} where it is readable.", {
               key: c.key, where: plural("{n} message", "{n} messages", c.readable) }), hidden: false };
  }
  return null;
}

function openConfirm({ title, text, readable = "", yes, examples = [], run }) {
  $("confirm-title").textContent = title;
  $("confirm-text").textContent = text;
  $("confirm-readable").textContent = readable;
  $("confirm-readable").hidden = !readable;
  $("confirm-examples").replaceChildren(...examples);
  $("confirm-yes").textContent = yes;
  S.pending = run;
  const dialog = $("confirm");
  if (!dialog.open) dialog.showModal();
  $("confirm-no").focus(); // Enter on the dialog cancels; y confirms
}

function ask(c, choice) {
  const q = question(c, choice);
  if (!q) return decide(c, choice);
  openConfirm({ title: q.title, text: q.text, yes: q.yes, run: () => decide(c, choice),
                examples: c.examples.filter((e) => e.hidden === q.hidden).map(example) });
}

async function decide(c, choice) {
  try {
    await api("POST", "/api/consistency", { kind: c.kind, key: c.key, decision: choice, version: c.version });
    await load();
    loadHistory().catch(() => {});
    say(trf("“{key}”: {decision}", { key: c.key, decision: tr(WORDS[choice] || choice) }));
  } catch (error) {
    if (error.status === 409) {  // a colleague decided it, or its mentions changed: show it as it is, and why
      await load();
      say(trf("Nothing was saved: “{key}” changed since the page showed it. The cases are shown as they now are.", { key: c.key }), true);
      return;
    }
    say(error.message, true);
  }
}

// One decision for every case the page shows: the server's preview first, then one request
// naming those cases and the preview's digest; nothing is decided until the reviewer confirms.
function bulkText(p) {
  const hide = p.decision === "hide";
  const title = hide ? plural("Hide everywhere the {n} case shown?", "Hide everywhere the {n} cases shown?", p.selected)
    : plural("Show everywhere the {n} case shown?", "Show everywhere the {n} cases shown?", p.selected);
  const parts = [plural("{n} case is decided so", "{n} cases are decided so", p.cases) + ": "
    + plural("{n} message changes in the release.", "{n} messages change in the release.", p.messages)];
  if (p.unchanged) parts.push(plural("{n} is already decided so.", "{n} are already decided so.", p.unchanged));
  if (p.other) parts.push(plural("{n} spelling with two tags is left (decided one or two entities).",
    "{n} spellings with two tags are left (decided one or two entities).", p.other));
  if (p.redrawn) parts.push(plural("{n} surrogate of an earlier release is drawn again.", "{n} surrogates of an earlier release are drawn again.", p.redrawn));
  let readable = "";
  if (!hide) {
    const kinds = Object.entries(p.readable_tags).map(([t, n]) => `${t} ${number(n)}`).join(", ");
    const template = p.readable === 1 ? "1 hidden item becomes readable in 1 message ({kinds})."
      : p.readable_messages === 1 ? "{n} hidden items become readable in 1 message ({kinds})."
        : "{n} hidden items become readable in {m} messages ({kinds}).";
    readable = p.readable ? trf(template, { n: number(p.readable), m: number(p.readable_messages), kinds })
      : tr("No hidden item becomes readable.");
  }
  return { title, text: parts.join(" "), readable };
}

async function bulk(decision, note = "") {
  let preview;
  try {
    preview = await api("GET", "/api/consistency/bulk?" + query({ decision }));
  } catch (error) { say(error.message, true); return; }
  showBulk(preview, note);
}

function showBulk(preview, note = "") {
  const t = bulkText(preview);
  const examples = preview.examples.map((key) => el("li", { class: "spelling", text: key }));
  if (!preview.cases) {
    say(note || tr("Every case shown is already decided so: nothing to decide."));
    return;
  }
  openConfirm({ title: t.title, text: (note ? note + " " : "") + t.text, readable: t.readable, examples,
    yes: preview.decision === "hide" ? tr("Hide them everywhere") : tr("Show them everywhere"),
    run: () => bulkDecide(preview) });
}

async function bulkDecide(preview) {
  try {
    const done = await api("POST", "/api/consistency/bulk", { decision: preview.decision, cases: preview.selection, digest: preview.digest });
    await load();
    loadHistory().catch(() => {});
    say(plural("{n} case decided: {decision}.", "{n} cases decided: {decision}.", done.decided, {
      decision: tr(WORDS[done.decision] || done.decision) }));
  } catch (error) {
    if (error.status === 409 && error.data && error.data.preview) {
      await load();
      showBulk(error.data.preview, tr("Nothing was decided: the cases changed since the preview (someone decided one, or its messages changed). Here is the preview anew."));
      return;
    }
    say(error.message, true);
  }
}

// The reviewer's last consistency decisions that still apply, newest first (a decision for many
// cases is one entry): the first is what undo takes back, and undo names it (`seq`).
function historyText(entry) {
  const decision = tr(WORDS[entry.decision] || entry.decision);
  return entry.cases > 1 ? trf("{n} cases: {decision}", { n: number(entry.cases), decision })
    : trf("“{key}”: {decision}", { key: entry.key, decision });
}

async function loadHistory() {
  S.historyLoad = api("GET", "/api/consistency/recent?limit=3");
  const recent = await S.historyLoad;
  S.recent = recent;
  const list = $("history-list");
  list.replaceChildren(...recent.map((entry, index) => el("li", {
    "data-seq": String(entry.seq), text: historyText(entry),
    title: index === 0 ? tr("the next undo takes this one back") : "" })));
  if (!recent.length) list.append(el("li", { class: "empty", text: tr("nothing yet") }));
  $("history-undo").disabled = !recent.length;
}

// What an undo makes readable again, asked before anything is undone (the server's preview).
function undoQuestion(p, entry) {
  const kinds = Object.entries(p.readable_tags).map(([t, n]) => `${t} ${number(n)}`).join(", ");
  const template = p.readable === 1 ? "1 hidden item becomes readable in 1 message ({kinds})."
    : p.readable_messages === 1 ? "{n} hidden items become readable in 1 message ({kinds})."
      : "{n} hidden items become readable in {m} messages ({kinds}).";
  const title = p.cases > 1 ? trf("Undo the decision for {n} cases?", { n: number(p.cases) })
    : trf("Undo “{key}”: {decision}?", { key: entry.key, decision: tr(WORDS[entry.decision] || entry.decision) });
  return { title, readable: trf(template, { n: number(p.readable), m: number(p.readable_messages), kinds }),
           text: tr("Each case gets back the decision it had before (or none): what the decision hid becomes readable again in the release."),
           examples: p.examples.map((key) => el("li", { class: "spelling", text: key })) };
}

async function undo(digest) {
  try { await S.historyLoad; } catch (_) { /* an older list: the server checks what it names */ }
  const entry = S.recent[0];
  if (!entry) { say(tr("Nothing to undo.")); return; }
  let done;
  try {
    done = await api("POST", "/api/consistency/undo", digest ? { seq: entry.seq, digest } : { seq: entry.seq });
  } catch (error) {
    const data = error.data || {};
    if (error.status === 409 && data.preview) {  // asked first (or the cases changed since the question)
      const q = undoQuestion(data.preview, entry);
      openConfirm({ title: q.title, readable: q.readable, examples: q.examples, yes: tr("Undo it"),
        text: (data.changed ? tr("The cases changed since the question: here it is anew.") + " " : "") + q.text,
        run: () => undo(data.preview.digest) });
      return;
    }
    if (error.status === 409) {
      await Promise.all([load(), loadHistory().catch(() => {})]);
      const c = data.conflict || {};
      say(c.kind === "later" ? trf("Nothing was undone: {who} decided “{key}” since; undoing would take that back too.", { who: c.reviewer, key: c.key })
        : tr("Nothing was undone: your last decision is no longer the one this page showed (another page of yours decided or undid since). Your last decisions are shown as they now are."), true);
      return;
    }
    say(error.message, true);
    return;
  }
  await Promise.all([load(), loadHistory().catch(() => {})]);
  if (!done.undone) { say(tr("Nothing to undo.")); return; }
  if (done.undone > 1) { say(trf("Undone: {n} cases of the decision for many cases.", { n: number(done.undone) })); return; }
  const c = done.cases[0];
  say(c.restored ? trf("Undone: “{key}” is decided {decision} again.", { key: c.key, decision: tr(WORDS[c.restored] || c.restored) })
    : trf("Undone: “{key}” is to decide again.", { key: c.key }));
}

function renderKeys() {
  const table = $("keys");
  table.replaceChildren();
  const seen = new Set();
  for (const action of Object.values(KEYMAP)) {
    if (seen.has(action)) continue;
    seen.add(action);
    const keys = el("td", {});
    Object.keys(KEYMAP).filter((k) => KEYMAP[k] === action).forEach((k, i) => {
      if (i) keys.append(" ");
      keys.append(el("kbd", { text: KEY_NAMES[k] || k }));
    });
    table.append(el("tr", { "data-action": action }, keys, el("td", { text: tr(ACTIONS[action].text) })));
  }
  table.append(el("tr", {}, el("td", {}, el("kbd", { text: "y" })), el("td", { text: tr("in a question: yes (Esc: cancel)") })));
}

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const confirm = $("confirm"), help = $("help");
  if (confirm.open) {
    if (event.key === "y") { event.preventDefault(); confirm.close(); const go = S.pending; S.pending = null; if (go) go(); }
    return; // Esc closes the dialog by itself; Enter presses Cancel, which has the focus
  }
  if (help.open) { if (KEYMAP[event.key] === "help") { event.preventDefault(); help.close(); } return; }
  const target = event.target;
  if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement) {
    if (event.key === "Escape") { event.preventDefault(); target.blur(); setFocus(S.focus); }
    return;
  }
  // Enter has no action here: it never presses the decision button that has the focus.
  if (event.key === "Enter") {
    event.preventDefault();
    if (document.activeElement instanceof HTMLButtonElement) document.activeElement.blur();
    return;
  }
  const action = KEYMAP[event.key];
  if (action === undefined) return;
  if (document.activeElement instanceof HTMLButtonElement) document.activeElement.blur();
  event.preventDefault();
  Promise.resolve(ACTIONS[action].run()).catch((error) => say(error.message, true));
}

function start() {
  document.addEventListener("keydown", onKey);
  // A button clicked with the mouse does not keep the focus: the next key is the page's, not the button's.
  document.addEventListener("click", (event) => {
    const button = event.target instanceof Element && event.target.closest("button");
    if (button && event.detail > 0 && !button.closest("dialog")) button.blur();
  });
  $("confirm-yes").addEventListener("click", () => { $("confirm").close(); const go = S.pending; S.pending = null; if (go) go(); });
  $("confirm-no").addEventListener("click", () => { $("confirm").close(); S.pending = null; });
  $("confirm").addEventListener("cancel", () => { S.pending = null; }); // Esc: nothing is decided
  $("confirm").addEventListener("close", () => setFocus(S.focus)); // the keys go on from the case
  $("help-button").addEventListener("click", () => $("help").showModal());
  $("help-close").addEventListener("click", () => $("help").close());
  $("page-prev").addEventListener("click", () => turn(-1));
  $("page-next").addEventListener("click", () => turn(1));
  $("bulk-hide").addEventListener("click", () => bulk("hide"));
  $("bulk-show").addEventListener("click", () => bulk("readable"));
  $("history-undo").addEventListener("click", () => undo());
  let typing = null;
  const refilter = () => { S.offset = 0; S.focus = 0; load(); };
  $("filter-q").addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(refilter, 250); });
  $("filters").addEventListener("submit", (event) => { event.preventDefault(); refilter(); });
  for (const id of ["filter-status", "filter-kind", "filter-tag"]) $(id).addEventListener("change", refilter);
  $("filter-clear").addEventListener("click", () => {
    for (const id of ["filter-q", "filter-status", "filter-kind", "filter-tag"]) $(id).value = "";
    refilter();
  });
  renderKeys();
  Promise.all([load(), loadHistory().catch((error) => say(error.message, true))])
    .then(() => document.body.setAttribute("data-ready", "true"));
}

start();
