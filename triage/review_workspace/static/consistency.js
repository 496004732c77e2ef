"use strict";
// The consistency list: every case with a few of its messages, and one button per decision.
// Message text is inserted as text, never as HTML. Offsets from the server are code points of the
// text as written: they are turned into pieces of text with Array.from (code points), here only.

const BASE = location.pathname.replace(/\/[^/]*$/, "");
const WORDS = {
  hide: "Hide everywhere", readable: "Keep readable everywhere", homonyms: "Homonyms: leave each as it is",
  same: "One entity (one tag)", different: "Different entities",
};
const KINDS = {
  mixed: "hidden here, readable there", surrogate: "surrogate equal to a readable form", tags: "two tags",
};

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

async function api(method, path, body) {
  const response = await fetch(BASE + path, {
    method, credentials: "same-origin",
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    const error = new Error((data && data.error) || `${response.status} ${response.statusText}`);
    error.status = response.status; error.data = data; // decide() reloads the list on a 409
    throw error;
  }
  return data;
}

function say(text, error = false) {
  const status = document.getElementById("status");
  status.textContent = text;
  status.classList.toggle("error", error);
}

function example(item) {
  const points = Array.from(item.text);
  return el("li", {},
    points.slice(0, item.start).join(""),
    el("mark", { class: item.hidden ? "hidden" : "readable", title: item.hidden ? "hidden" : "readable",
                 text: points.slice(item.start, item.end).join("") }),
    points.slice(item.end).join(""));
}

function describe(c) {
  if (c.kind === "mixed") return `hidden in ${c.hidden} message${c.hidden === 1 ? "" : "s"}, readable in ${c.readable} message${c.readable === 1 ? "" : "s"}`;
  if (c.kind === "surrogate") return `surrogate of an earlier release (${c.surrogate.tag}), readable in ${c.readable} message${c.readable === 1 ? "" : "s"}`;
  return "hidden as " + Object.entries(c.tags).map(([t, n]) => `${t} (${n})`).join(" and ");
}

function render(cases) {
  const list = document.getElementById("cases");
  list.replaceChildren();
  const left = cases.filter((c) => !c.decision).length;
  document.getElementById("summary").textContent = cases.length
    ? `${cases.length} case${cases.length === 1 ? "" : "s"}, ${left} to decide`
    : "no case: the corpus is consistent";
  for (const c of cases) {
    const choices = el("div", { class: "choices" });
    for (const choice of c.choices) {
      const button = el("button", { type: "button", "aria-pressed": String(c.decision === choice),
                                    "data-choice": choice, text: WORDS[choice] || choice });
      button.addEventListener("click", () => ask(c, choice));
      choices.append(button);
    }
    if (c.decision) choices.append(el("span", { text: `decided by ${c.reviewer}` }));
    else if (c.outdated) choices.append(el("span", { text: `decided ${c.outdated.decision} by ${c.outdated.reviewer}, `
      + `then ${c.outdated.hidden_since} more hidden: to decide again` }));
    list.append(el("li", { class: "case" + (c.decision ? " decided" : ""), "data-kind": c.kind, "data-key": c.key },
      el("h2", {}, el("span", { class: "kind", text: KINDS[c.kind] || c.kind }), el("span", { text: c.key }),
         el("small", { text: describe(c) })),
      el("ul", { class: "examples" }, ...c.examples.map(example)),
      choices));
  }
}

async function load() {
  try {
    render(await api("GET", "/api/consistency"));
  } catch (error) {
    say(error.message, true);
  }
}

const plural = (n, one, many) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

// What "hide everywhere" and "keep readable everywhere" change, asked before anything is saved:
// the direction that releases text (readable) always asks, and so does hiding.
function question(c, choice) {
  if (choice === "readable" && c.hidden) {
    return { title: `Show “${c.key}” everywhere?`, yes: "Show it everywhere",
             text: `Show “${c.key}” in ${plural(c.hidden, "message", "messages")} where it is hidden: `
               + `it becomes readable there in the release.`, hidden: true };
  }
  if (choice === "hide" && c.readable) {
    return { title: `Hide “${c.key}” everywhere?`, yes: "Hide it everywhere",
             text: `Hide “${c.key}” in ${plural(c.readable, "message", "messages")} where it is readable.`, hidden: false };
  }
  return null;
}

function ask(c, choice) {
  const q = question(c, choice);
  if (!q) return decide(c, choice);
  const dialog = document.getElementById("confirm");
  document.getElementById("confirm-title").textContent = q.title;
  document.getElementById("confirm-text").textContent = q.text;
  document.getElementById("confirm-examples").replaceChildren(...c.examples.filter((e) => e.hidden === q.hidden).map(example));
  const yes = document.getElementById("confirm-yes");
  yes.textContent = q.yes;
  yes.onclick = () => { dialog.close(); decide(c, choice); };
  document.getElementById("confirm-no").onclick = () => dialog.close();
  dialog.showModal();
  document.getElementById("confirm-no").focus();
}

async function decide(c, choice) {
  try {
    await api("POST", "/api/consistency", { kind: c.kind, key: c.key, decision: choice, version: c.version });
    say(`'${c.key}': ${WORDS[choice] || choice}`);
    await load();
  } catch (error) {
    if (error.status === 409) {  // a colleague decided it, or its mentions changed: show it as it is, and why
      await load();
      say(`Nothing was saved: '${c.key}' changed since the page showed it (${error.message}). The cases are shown as they now are.`, true);
      return;
    }
    say(error.message, true);
  }
}

load();
