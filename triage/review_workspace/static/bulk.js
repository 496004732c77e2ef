// Bulk decisions on the list's filtered items (a preview first, then the decision), and the Words
// view's concordance: every occurrence of a spelling with its context, each decided on its own.
// Message text is inserted as text only. Uses api(), el() and the list's filters (filters.js).
"use strict";

const BULK = { preview: null, filters: null };

function currentFilters() {
  const filters = {};
  for (const name of ["q", "status", "kind", "tag", "reviewer", "double"]) {
    const value = document.getElementById(`filter-${name}`).value.trim();
    if (value) filters[name] = value;
  }
  return filters;
}

async function openBulk() {
  BULK.filters = currentFilters();
  document.getElementById("bulk").showModal();
  await previewBulk();
}

async function previewBulk() {
  const action = document.getElementById("bulk-action").value;
  const query = new URLSearchParams({ action, ...BULK.filters }).toString();
  const text = document.getElementById("bulk-text"), list = document.getElementById("bulk-examples");
  list.replaceChildren();
  try {
    BULK.preview = await api("GET", `/api/bulk?${query}`);
  } catch (error) { text.textContent = error.message; return; }
  const p = BULK.preview;
  const undoKey = keysOf("messages", "undo").join(" ");
  text.textContent = trf(p.total === 1 ? "{total} message found: {new} decided for the first time, {changed} decided differently, {unchanged} unchanged"
    : "{total} messages found: {new} decided for the first time, {changed} decided differently, {unchanged} unchanged",
  { total: p.total, new: p.new, changed: p.changed, unchanged: p.unchanged }) +
    (p.held ? trf(", {held} left to the team (another reviewer's, a double review or a disagreement)", { held: p.held }) : "") +
    trf(". One undo ({key}) takes it all back.", { key: undoKey });
  if (p.readable) { // what the decision releases that a machine or a reviewer hid, said first
    const kinds = Object.entries(p.readable_tags).map(([tag, n]) => `${tag} ${n.toLocaleString()}`).join(", ");
    const template = p.readable === 1 ? "{n} hidden item becomes readable in 1 message ({kinds})."
      : p.readable_messages === 1 ? "{n} hidden items become readable in 1 message ({kinds})."
      : "{n} hidden items become readable in {m} messages ({kinds}).";
    text.prepend(el("b", { class: "releases", text: trf(template,
      { n: p.readable.toLocaleString(), m: p.readable_messages.toLocaleString(), kinds }) }), " ");
  }
  for (const ex of p.examples) {
    const after = ex.after.spans.length ? trf("TA, hides {tags}", { tags: ex.after.spans.map((s) => s[2]).join(" ") }) : "NTA";
    const before = ex.before ? `${ex.before.label} → ` : "";
    list.append(el("li", { "data-message-id": ex.id }, el("b", { text: `${before}${after}: ` }), document.createTextNode(ex.text)));
  }
  document.getElementById("bulk-yes").disabled = !(p.new + p.changed);
}

async function confirmBulk() {
  const p = BULK.preview;
  if (!p) return;
  try {
    const done = await api("POST", "/api/bulk", { action: p.action, digest: p.digest, expected: p.total, filters: BULK.filters });
    document.getElementById("bulk").close();
    await refreshState();
    await loadPage(0);
    loadHistory().catch(() => {}); // review.js: what undo names next
    say(trf(done.decided === 1 ? "{n} message decided at once (undo: {key})." : "{n} messages decided at once (undo: {key}).",
      { n: done.decided, key: keysOf("messages", "undo").join(" ") }));
  } catch (error) {
    document.getElementById("bulk-text").textContent = error.message;
    if (error.status === 409) { // the list changed since the preview: the preview anew, and why
      await previewBulk();
      const why = tr("Nothing was decided: the list changed since the preview (a message found, gone, or decided since). Here is the preview anew.");
      document.getElementById("bulk-text").prepend(el("b", { text: why }), " ");
      say(why, true);
    }
  }
}

// ---------------------------------------------------------------- concordance

const CONC = { data: null };

async function openConcordance(spelling) {
  const panel = document.getElementById("concordance");
  CONC.data = await api("GET", `/api/concordance?spelling=${encodeURIComponent(spelling)}`);
  const d = CONC.data;
  document.getElementById("conc-title").textContent =
    trf(d.occurrences.length === 1 ? "“{spelling}”: {n} occurrence in {m} messages" : "“{spelling}”: {n} occurrences in {m} messages",
      { spelling: d.spelling, n: d.occurrences.length, m: d.messages });
  const body = document.getElementById("conc-rows");
  body.replaceChildren();
  d.occurrences.forEach((o, index) => {
    const choice = el("select", { "aria-label": trf("occurrence {n}", { n: index + 1 }), "data-index": String(index) },
      new Option(tr("name (hide)"), "name"), new Option(tr("word (show)"), "word"));
    choice.value = o.hidden ? "name" : "word";
    choice.disabled = !o.listed;
    if (!o.listed) choice.title = tr("released by the machines, outside the review list: learn the word to change it");
    body.append(el("tr", { "data-message-id": o.id, class: o.hidden ? "is-name" : "" },
      el("td", { class: "kwic-before", text: o.before }), el("td", { class: "kwic-match", text: o.match }),
      el("td", { class: "kwic-after", text: o.after }), el("td", {}, choice)));
    choice.addEventListener("change", () => choice.closest("tr").classList.toggle("is-name", choice.value === "name"));
  });
  document.getElementById("conc-note").textContent = d.outside ?
    trf(d.outside === 1 ? "{n} occurrence is outside the review list (released by the machines): learning it as a name for this corpus hides it too."
      : "{n} occurrences are outside the review list (released by the machines): learning the word as a name for this corpus hides them too.", { n: d.outside }) : "";
  panel.hidden = false;
  panel.scrollIntoView({ block: "start" });
}

async function applyConcordance() {
  const d = CONC.data;
  if (!d) return;
  const marks = [];
  document.querySelectorAll("#conc-rows select").forEach((choice) => {
    const o = d.occurrences[Number(choice.dataset.index)];
    if (o.listed && (choice.value === "name") !== o.hidden) {
      marks.push({ id: o.id, start: o.start, end: o.end, as: choice.value, text_hash: o.text_hash, version: o.version });
    }
  });
  const status = document.getElementById("conc-status");
  if (!marks.length) { status.textContent = tr("Nothing changed: choose name or word for an occurrence first."); return; }
  try {
    const done = await api("POST", "/api/concordance", { marks, tag: document.getElementById("conc-tag").value });
    status.textContent = trf("Occurrences applied: {n}; messages decided: {m} (undo: {key} in Messages).",
      { n: marks.length, m: done.decided, key: keysOf("messages", "undo").join(" ") });
    await refreshState();
    loadHistory().catch(() => {}); // review.js: what undo names next
    await openConcordance(d.spelling);
  } catch (error) {
    status.textContent = error.message;
    if (error.status === 409) { // someone changed a message since: shown as it now is, and why
      await openConcordance(d.spelling);
      status.textContent = tr("Nothing was decided: a message of this word changed since the concordance showed it (someone decided or skipped it). The occurrences are shown as they now are.");
    }
  }
}

function initBulk() {
  document.getElementById("bulk-open").addEventListener("click", openBulk);
  document.getElementById("bulk-action").addEventListener("change", previewBulk);
  document.getElementById("bulk-yes").addEventListener("click", confirmBulk);
  document.getElementById("bulk-no").addEventListener("click", () => document.getElementById("bulk").close());
  document.getElementById("conc-apply").addEventListener("click", applyConcordance);
  document.getElementById("conc-close").addEventListener("click", () => { document.getElementById("concordance").hidden = true; });
  const tags = document.getElementById("conc-tag");
  for (const [, tag] of TAG_ORDER) tags.append(new Option(tag, tag));
}

// ------------------------------------------------------- another language

// Tags the machines find by their form (numbers, addresses, links, codes): kept hidden in a
// message in another language, where the words in no French list are rarely names.
const FORM_TAGS = new Set(["TEL", "MEL", "URL", "ADR", "COD"]);

// f: a message mostly in another language is decided at once: what the machines found by its
// form stays hidden, every word is released (TA if something stays hidden, else NTA).
async function decideForeign() {
  if (!S.item) return;
  if (!(S.item.language && S.item.language.foreign)) {
    say(trf("{key} is for messages mostly in another language; this one is not.", { key: keysOf("messages", "foreign").join(" ") }), true);
    return;
  }
  S.draft = S.draft.filter((span) => FORM_TAGS.has(span[2]));
  await decide(S.draft.length ? "TA" : "NTA");
}
