// The page's languages: English (as written in index.html and review.js) and French, one table
// per language below (English text -> French text). The language is the one chosen in the header
// (remembered in this browser), else the browser's own. Only the page's own words are translated:
// message text, ids, spellings and reasons are never looked up here.
"use strict";

const LANGUAGES = { en: "English", fr: "Français" };
const TRANSLATIONS = {
  fr: {
    "review": "relecture", "Messages": "Messages", "Words": "Mots", "Learnt": "Appris", "Consistency": "Cohérence", "loading…": "chargement…",
    "Queue": "File", "Found": "Trouvés", "‹ prev": "‹ préc.", "next ›": "suiv. ›", "Search text or id…": "Chercher un texte ou un id…",
    "any status": "tout statut", "to look at": "à regarder", "pending": "en attente", "decided": "décidés", "skipped": "mis de côté",
    "changed": "modifiés", "disagreements": "désaccords", "queue + audit": "file + audit", "queue": "file", "audit": "audit", "any tag": "toute étiquette",
    "anyone": "tout relecteur", "list order": "ordre de la liste", "riskiest first": "les plus risqués d'abord",
    "input order": "ordre du fichier", "Decide all found…": "Décider tous les trouvés…", "Clear the filters": "Effacer les filtres",
    "hidden (released as its tag)": "masqué (publié sous son étiquette)", "show originals": "voir les originaux",
    "Accept": "Accepter", "Hide selection": "Masquer la sélection", "Skip": "Mettre de côté", "Undo": "Annuler",
    "Back": "Retour", "Reset": "Rétablir", "Last decisions": "Dernières décisions", "Decide a word once": "Décider un mot une fois",
    "Learnt words": "Mots appris", "Keyboard": "Clavier", "Confirm": "Confirmer", "Cancel": "Annuler", "Close": "Fermer",
    "Apply": "Appliquer", "Learn it anyway": "L'apprendre quand même", "Go to a message": "Aller à un message",
    "Message id": "Id du message", "Go": "Aller", "Decide all the messages found": "Décider tous les messages trouvés",
    "Decision": "Décision", "Decide them": "Les décider", "NTA: nothing to hide": "NTA : rien à masquer",
    "accept the machines' proposal (hidden words hidden)": "accepter la proposition des machines (mots masqués masqués)",
    "tag of the names": "étiquette des noms", "Every occurrence": "Toutes les occurrences", "Ordinary word": "Mot ordinaire",
    "spelling": "graphie", "as": "comme", "scope": "portée", "by": "par", "when": "quand", "this corpus": "ce corpus",
    "your lexicon": "votre lexique", "Language": "Langue", "Change the keys": "Changer les touches",
    "Save the keys": "Enregistrer les touches", "Back to the standard keys": "Revenir aux touches standard",
    "Every key works without Shift, on QWERTY and AZERTY keyboards.": "Toutes les touches marchent sans Maj, en QWERTY comme en AZERTY.",
    "What this corpus (and your lexicon) learnt from your decisions. Undo takes an entry back.":
      "Ce que ce corpus (et votre lexique) a appris de vos décisions. Annuler retire une entrée.",
  },
};

function pageLanguage() {
  let chosen = null;
  try { chosen = localStorage.getItem("triage-language"); } catch (_) { /* storage off: the browser's */ }
  if (chosen && (chosen === "en" || chosen in TRANSLATIONS)) return chosen;
  const browser = (navigator.languages && navigator.languages[0]) || navigator.language || "en";
  return browser.toLowerCase().startsWith("fr") ? "fr" : "en";
}

const LANG = pageLanguage();
const TABLE = TRANSLATIONS[LANG] || {};

// The text in the page's language: `tr("Skip")`.
function tr(text) {
  return TABLE[text] || text;
}

// Never translated: what comes from the messages and the workspace.
const UNTRANSLATED = "#message, #item-list .snippet, .neighbours, .examples, #conc-rows, #reasons, #learnt-rows td, #word-list h3, #recent";

function translateNode(root) {
  if (LANG === "en") return;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes = [];
  while (walker.nextNode()) nodes.push(walker.currentNode);
  for (const node of nodes) {
    const parent = node.parentElement;
    if (!parent || parent.closest(UNTRANSLATED)) continue;
    const text = node.nodeValue.trim();
    if (text && TABLE[text]) node.nodeValue = node.nodeValue.replace(text, TABLE[text]);
  }
  const elements = root.querySelectorAll ? root.querySelectorAll("[placeholder], [title], [aria-label]") : [];
  for (const element of elements) {
    if (element.closest(UNTRANSLATED)) continue;
    for (const name of ["placeholder", "title", "aria-label"]) {
      const value = element.getAttribute(name);
      if (value && TABLE[value]) element.setAttribute(name, TABLE[value]);
    }
  }
}

// The switch in the header; the page, translated now and as its script adds to it.
function initLanguage() {
  document.documentElement.lang = LANG;
  const select = document.getElementById("language");
  for (const [code, name] of Object.entries(LANGUAGES)) select.append(new Option(name, code));
  select.value = LANG;
  select.addEventListener("change", () => {
    try { localStorage.setItem("triage-language", select.value); } catch (_) { /* not remembered */ }
    location.reload();
  });
  translateNode(document.body);
  new MutationObserver((changes) => {
    for (const change of changes) for (const node of change.addedNodes) {
      if (node.nodeType === Node.ELEMENT_NODE) translateNode(node);
      else if (node.nodeType === Node.TEXT_NODE && node.parentElement) translateNode(node.parentElement);
    }
  }).observe(document.body, { childList: true, subtree: true });
}

initLanguage();
