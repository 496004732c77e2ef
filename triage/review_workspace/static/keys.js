// The reviewer's own keys: a JSON object in this browser's storage, laid over the page's key map
// (KEYMAP in review.js) when the page opens, e.g. {"messages": {"x": "markNTA", "n": null}}:
// x marks NTA, n does nothing. Views: any, messages, words; actions: those of the help panel.
// Edited in the help panel (?); a wrong entry is refused there with a one-line reason.
"use strict";

const KEYS_STORED = "triage-keys";

function storedKeys() {
  try { return localStorage.getItem(KEYS_STORED) || ""; } catch (_) { return ""; }
}

// Why a key map is refused (one line), or null when it can be used.
function keysProblem(custom, keymap) {
  if (custom === null || typeof custom !== "object" || Array.isArray(custom)) return "give a JSON object of views";
  const actions = new Set(Object.values(keymap).flatMap((view) => Object.values(view)));
  for (const [view, keys] of Object.entries(custom)) {
    if (!(view in keymap)) return `unknown view “${view}” (use ${Object.keys(keymap).join(", ")})`;
    if (keys === null || typeof keys !== "object" || Array.isArray(keys)) return `“${view}” must be an object of key: action`;
    for (const [key, action] of Object.entries(keys)) {
      if (action !== null && !actions.has(action)) return `unknown action “${action}” for key “${key}”`;
    }
  }
  return null;
}

// KEYMAP with the stored keys laid over it (changed in place); a wrong stored map is left out.
function applyCustomKeys(keymap) {
  const text = storedKeys();
  if (!text) return keymap;
  let custom;
  try { custom = JSON.parse(text); } catch (_) { return keymap; }
  if (keysProblem(custom, keymap)) return keymap;
  for (const [view, keys] of Object.entries(custom)) {
    for (const [key, action] of Object.entries(keys)) {
      if (action === null) delete keymap[view][key];
      else keymap[view][key] = action;
    }
  }
  return keymap;
}

function initKeySettings(keymap) {
  const field = document.getElementById("keys-json"), problem = document.getElementById("keys-problem");
  field.value = storedKeys();
  field.addEventListener("keydown", (event) => event.stopPropagation()); // typing is not a review key
  document.getElementById("keys-save").addEventListener("click", () => {
    const text = field.value.trim();
    if (text) {
      let custom;
      try { custom = JSON.parse(text); } catch (error) { problem.textContent = trf("not JSON: {why}", { why: error.message }); return; }
      const why = keysProblem(custom, keymap);
      if (why) { problem.textContent = tr(why); return; }
    }
    try {
      if (text) localStorage.setItem(KEYS_STORED, text); else localStorage.removeItem(KEYS_STORED);
    } catch (_) { problem.textContent = tr("this browser does not let the page store settings"); return; }
    location.reload();
  });
  document.getElementById("keys-reset").addEventListener("click", () => {
    try { localStorage.removeItem(KEYS_STORED); } catch (_) { /* nothing stored */ }
    location.reload();
  });
}
