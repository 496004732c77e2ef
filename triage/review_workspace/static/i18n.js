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
    "changed": "modifiés", "disagreements": "désaccords", "stale": "modifié", "queue + audit": "file + audit", "queue": "file", "audit": "audit", "any tag": "toute étiquette",
    "anyone": "tout relecteur", "any review": "toute relecture", "double review": "double relecture",
    "awaiting 2nd reviewer": "2e relecteur attendu", "decided by both": "décidés par les deux",
    "in disagreement": "en désaccord", "Double review": "Double relecture", "Differences:": "Différences :", "none": "aucune",
    "by {who} only": "par {who} seulement", "only {who} hides it so": "{who} seulement le masque ainsi",
    "{who} hides this; {me} leaves it readable": "{who} masque ceci ; {me} le laisse lisible",
    "The two decisions in the order of the reviewers' names, with the words each hid. What they differ on is marked:":
      "Les deux décisions dans l'ordre des noms des relecteurs, avec les mots que chacun a masqués. Ce qui les distingue est marqué :",
    "hidden by this reviewer only, or hidden otherwise (another tag, other boundaries);":
      "masqué par ce relecteur seulement, ou masqué autrement (une autre étiquette, d'autres limites) ;",
    "words": "mots", "left readable here, hidden by the other reviewer.": "laissés lisibles ici, masqués par l'autre relecteur.",
    "list order": "ordre de la liste", "riskiest first": "les plus risqués d'abord",
    "input order": "ordre du fichier", "Decide all found…": "Décider tous les trouvés…", "Clear the filters": "Effacer les filtres",
    "hidden (released as its tag)": "masqué (publié sous son étiquette)", "show originals": "voir les originaux",
    "Accept": "Accepter", "Hide selection": "Masquer la sélection", "Skip": "Mettre de côté", "Undo": "Défaire",
    "Back": "Retour", "Reset": "Rétablir", "Last decisions": "Dernières décisions", "Decide a word once": "Décider un mot une fois",
    "Learnt words": "Mots appris", "Keyboard": "Clavier", "Confirm": "Confirmer", "Cancel": "Annuler", "Close": "Fermer",
    "Make “{spelling}” an ordinary word?": "Faire de « {spelling} » un mot ordinaire ?",
    "It is in {messages} messages: {readable} hidden items become readable in {where} messages, for example:":
      "Il est dans {messages} messages : {readable} éléments masqués deviennent lisibles dans {where} messages, par exemple :",
    "{n} hidden items become readable in 1 message ({kinds}).": "{n} éléments masqués deviennent lisibles dans 1 message ({kinds}).",
    "{n} hidden item becomes readable in 1 message ({kinds}).": "{n} élément masqué devient lisible dans 1 message ({kinds}).",
    "{n} hidden items become readable in {m} messages ({kinds}).": "{n} éléments masqués deviennent lisibles dans {m} messages ({kinds}).",
    "Release them": "Les publier", "Release the contact details the machines hid?": "Publier les coordonnées masquées par les machines ?",
    "NTA makes {n} hidden items of message {id} readable ({kinds}):": "NTA rend lisibles {n} éléments masqués du message {id} ({kinds}) :",
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
      "Ce que ce corpus (et votre lexique) a appris de vos décisions. Défaire retire une entrée.",
    "Adjudicate": "Arbitrer", "Disagreements": "Désaccords", "tag:": "étiquette :", "learn a name as:": "apprendre un nom comme :",
    "nothing yet": "rien encore", "Nothing learnt yet.": "Rien d'appris encore.", "nothing found": "rien trouvé", "empty": "vide",
    "No word left to decide in the pending messages.": "Plus aucun mot à décider dans les messages en attente.",
    "audit: released by the machines": "audit : publié par les machines",
    "next / previous disagreement": "désaccord suivant / précédent", "lead": "principal",
    "You review as {name}: your decisions are credited to this name.": "Vous relisez en tant que {name} : vos décisions sont enregistrées sous ce nom.", "Adjudicate (the lead reviewer)": "Arbitrer (le relecteur principal)",
    "keep the first / the second decision, or edit the message (on AZERTY: & é without Shift)":
      "garder la première / la seconde décision, ou modifier le message (en AZERTY : & é sans Maj)",
    "this help (Esc closes it)": "cette aide (Échap la ferme)",
    "next view: messages, words, learnt (and adjudicate for the lead reviewer)": "vue suivante : messages, mots, appris (et arbitrage pour le relecteur principal)",
    "accept what is shown (hidden words hidden, the rest released)": "accepter ce qui est affiché (mots masqués masqués, le reste publié)",
    "mark TA (keep what is hidden)": "marquer TA (garder ce qui est masqué)", "mark NTA (nothing to hide)": "marquer NTA (rien à masquer)",
    "skip: the message comes back after the pending ones": "mettre de côté : le message revient après ceux en attente",
    "undo your last decision or skip (the list of your last decisions is on the left)": "défaire votre dernière décision ou mise de côté (la liste de vos dernières décisions est à gauche)",
    "back to the previous message": "retour au message précédent", "hide / show the focused word": "masquer / montrer le mot sélectionné",
    "hide the selected characters (dragging over them does it too)": "masquer les caractères sélectionnés (les glisser le fait aussi)",
    "next word (Words view: next spelling)": "mot suivant (vue Mots : graphie suivante)",
    "previous word (Words view: previous spelling)": "mot précédent (vue Mots : graphie précédente)",
    "next highlighted or hidden word": "mot surligné ou masqué suivant", "previous highlighted or hidden word": "mot surligné ou masqué précédent",
    "reset the message to the machines' proposal": "revenir à la proposition des machines", "go to a message by its id": "aller à un message par son id",
    "show or hide the originals of hidden words": "voir ou cacher les originaux des mots masqués",
    "Words view: learn the focused spelling as a name, with the chosen tag": "vue Mots : apprendre la graphie comme un nom, avec l'étiquette choisie",
    "Words view: learn the focused spelling as an ordinary word": "vue Mots : apprendre la graphie comme un mot ordinaire",
    "a message mostly in another language: release its words, keep hidden what was found by its form (numbers, addresses, links, codes)":
      "un message surtout dans une autre langue : publier ses mots, garder masqué ce qui a été trouvé par sa forme (numéros, adresses, liens, codes)",
    "Words view: every occurrence of the focused spelling, each a name or a word": "vue Mots : toutes les occurrences de la graphie, chacune un nom ou un mot",
    "Words view: learn into this corpus or into my lexicon (every future corpus)": "vue Mots : apprendre dans ce corpus ou dans mon lexique (tout corpus à venir)",
    // Status lines, the list of last decisions, the dialogs (review.js, bulk.js, adjudicate.js, team.js, keys.js).
    "TA · {n} hidden item": "TA · {n} élément masqué", "TA · {n} hidden items": "TA · {n} éléments masqués", "the next undo takes this one back": "le prochain « Défaire » reprend celle-ci",
    "Undo the last one": "Défaire la dernière", "Space": "Espace", "Enter": "Entrée", "Esc": "Échap", "Everywhere": "Partout",
    "Decided {label} by {who}. Change it if needed.": "Décidé {label} par {who}. Modifiez-le si besoin.",
    "The text changed since it was decided: please look again.": "Le texte a changé depuis la décision : relisez-le.",
    "hidden as {tag}: click or h to show it": "masqué comme {tag} : clic ou h pour le montrer",
    "hidden before as {tag}: click or h to hide it again": "masqué avant comme {tag} : clic ou h pour le masquer à nouveau",
    "click or h to hide": "clic ou h pour masquer",
    "Few of its words are French ordinary words: its unknown words are rarely names.": "Peu de ses mots sont des mots français ordinaires : ses mots inconnus sont rarement des noms.",
    "message {id}": "message {id}",
    "Select the characters to hide first, then press {key}.": "Sélectionnez d'abord les caractères à masquer, puis appuyez sur {key}.",
    "Select characters inside the message.": "Sélectionnez des caractères dans le message.",
    "The selection holds only spaces.": "La sélection ne contient que des espaces.",
    "Hidden “{text}” as {tag}. Digits change its tag.": "« {text} » masqué comme {tag}. Les chiffres changent son étiquette.",
    "Nothing is hidden: hide what identifies someone (h, or select and m), or press n for NTA.":
      "Rien n'est masqué : masquez ce qui identifie quelqu'un (h, ou sélectionner puis m), ou appuyez sur n pour NTA.",
    "Nothing to undo.": "Rien à défaire.",
    "Undone: {n} decisions of the bulk decision.": "Défait : {n} décisions de la décision groupée.",
    "Undone: message {id} is pending again.": "Défait : le message {id} est de nouveau en attente.",
    "Undone: message {id} is skipped again.": "Défait : le message {id} est de nouveau mis de côté.",
    "Undone: message {id} is decided again.": "Défait : le message {id} est de nouveau décidé.",
    "Undone: message {id} is in disagreement again.": "Défait : le message {id} est de nouveau en désaccord.",
    "Undone: message {id} is {status} again.": "Défait : le message {id} est de nouveau « {status} ».",
    "All {n} messages of the list are decided. Next: triage release.": "Les {n} messages de la liste sont décidés. Ensuite : triage release.",
    "{n} pending message": "{n} message en attente", "{n} pending messages": "{n} messages en attente",
    "Name, as {tag}": "Nom, comme {tag}", "into:": "dans :",
    "my lexicon (every future corpus)": "mon lexique (tout corpus à venir)", "my lexicon": "mon lexique",
    "Learnt “{spelling}” as a name ({tag}) ({scope}): {summary}.": "« {spelling} » appris comme nom ({tag}) ({scope}) : {summary}.",
    "Learnt “{spelling}” as an ordinary word ({scope}): {summary}.": "« {spelling} » appris comme mot ordinaire ({scope}) : {summary}.",
    "Make “{spelling}” a name?": "Faire de « {spelling} » un nom ?", "{why}. It {summary}, for example:": "{why}. Par exemple :", // the server's summary is English: `why` says it
    "name ({tag})": "nom ({tag})", "ordinary word": "mot ordinaire",
    "No highlighted or hidden word in this message.": "Aucun mot surligné ou masqué dans ce message.",
    "Back to the machines' proposal: {n} item hidden.": "Retour à la proposition des machines : {n} élément masqué.",
    "Back to the machines' proposal: {n} items hidden.": "Retour à la proposition des machines : {n} éléments masqués.",
    "Back to the machines' proposal: nothing hidden.": "Retour à la proposition des machines : rien de masqué.",
    "Back to the machines' proposal": "Revenir à la proposition des machines",
    "No message “{id}” in the review list.": "Aucun message « {id} » dans la liste à relire.",
    "{total} message found: {new} decided for the first time, {changed} decided differently, {unchanged} unchanged":
      "{total} message trouvé — décidé pour la première fois : {new} ; décidé autrement : {changed} ; inchangé : {unchanged}",
    "{total} messages found: {new} decided for the first time, {changed} decided differently, {unchanged} unchanged":
      "{total} messages trouvés — décidés pour la première fois : {new} ; décidés autrement : {changed} ; inchangés : {unchanged}",
    ", {held} left to the team (another reviewer's, a double review or a disagreement)":
      " ; laissés à l'équipe (ceux d'un autre relecteur, une double relecture ou un désaccord) : {held}",
    ". One undo ({key}) takes it all back.": ". Un seul « Défaire » ({key}) reprend le tout.",
    "TA, hides {tags}": "TA, masque {tags}",
    "{n} message decided at once (undo: {key}).": "{n} message décidé d'un coup (défaire : {key}).",
    "{n} messages decided at once (undo: {key}).": "{n} messages décidés d'un coup (défaire : {key}).",
    "“{spelling}”: {n} occurrence in {m} messages": "« {spelling} » : {n} occurrence dans {m} messages",
    "“{spelling}”: {n} occurrences in {m} messages": "« {spelling} » : {n} occurrences dans {m} messages",
    "occurrence {n}": "occurrence {n}", "name (hide)": "nom (masquer)", "word (show)": "mot (montrer)",
    "released by the machines, outside the review list: learn the word to change it": "publié par les machines, hors de la liste à relire : apprenez le mot pour le changer",
    "{n} occurrence is outside the review list (released by the machines): learning it as a name for this corpus hides it too.":
      "{n} occurrence est hors de la liste à relire (publiée par les machines) : apprendre le mot comme nom pour ce corpus la masque aussi.",
    "{n} occurrences are outside the review list (released by the machines): learning the word as a name for this corpus hides them too.":
      "{n} occurrences sont hors de la liste à relire (publiées par les machines) : apprendre le mot comme nom pour ce corpus les masque aussi.",
    "Nothing changed: choose name or word for an occurrence first.": "Rien n'a changé : choisissez d'abord nom ou mot pour une occurrence.",
    "Occurrences applied: {n}; messages decided: {m} (undo: {key} in Messages).": "Occurrences appliquées : {n} ; messages décidés : {m} (défaire : {key} dans Messages).",
    "{key} is for messages mostly in another language; this one is not.": "{key} sert aux messages surtout dans une autre langue ; celui-ci ne l'est pas.",
    "No disagreement left to resolve.": "Plus aucun désaccord à arbitrer.", "Keep {who}'s": "Garder celle de {who}", "Edit": "Modifier",
    "Message {id}: {who}'s decision kept ({label}).": "Message {id} : la décision de {who} est gardée ({label}).",
    "Disagreement: what either reviewer hid is shown. Decide it to resolve it.": "Désaccord : ce que l'un ou l'autre relecteur a masqué est affiché. Décidez-le pour l'arbitrer.",
    "Messages two reviewers decided blind, differently. Keep one decision:": "Messages que deux relecteurs ont décidés à l'aveugle, différemment. Garder une décision :",
    "; edit it:": "; la modifier :", "; move:": "; se déplacer :",
    "The two reviewers of this message disagree: the lead reviewer resolves it (Adjudicate).": "Les deux relecteurs de ce message ne sont pas d'accord : le relecteur principal tranche (Arbitrer).",
    "Double review: another reviewer decides this message too; neither sees the other's decision.": "Double relecture : un autre relecteur décide aussi ce message ; aucun ne voit la décision de l'autre.",
    "{who} is reviewing this message now: your decision would be refused.": "{who} relit ce message en ce moment : votre décision serait refusée.",
    "Nothing hidden (NTA).": "Rien de masqué (NTA).", "skipped it": "l'a mis de côté", "undid a decision: it is now {label}": "a défait une décision : il est maintenant {label}",
    "decided it blind": "l'a décidé à l'aveugle", "resolved it": "l'a arbitré", "changed it": "l'a modifié", " at {when}": " le {when}",
    "{n} is with other reviewers (being reviewed, or waiting for the second reviewer of a double review)": "{n} est chez d'autres relecteurs (en cours de relecture, ou en attente du second relecteur d'une double relecture)",
    "{n} are with other reviewers (being reviewed, or waiting for the second reviewer of a double review)": "{n} sont chez d'autres relecteurs (en cours de relecture, ou en attente du second relecteur d'une double relecture)",
    "{n} disagreement waits for the lead reviewer": "{n} désaccord attend le relecteur principal", "{n} disagreements wait for the lead reviewer": "{n} désaccords attendent le relecteur principal",
    "Nothing left for you: {parts}.": "Plus rien pour vous : {parts}.", "; ": " ; ",
    "Each word the machines were unsure of, with the pending messages it appears in. A decision here applies to this corpus or to your lexicon (every future corpus).":
      "Chaque mot dont les machines n'étaient pas sûres, avec les messages en attente où il apparaît. Une décision ici s'applique à ce corpus ou à votre lexique (tout corpus à venir).",
    "move,": "se déplacer,", "name (with the tag chosen by a digit: 3 SUR for a nickname),": "nom (avec l'étiquette choisie par un chiffre : 3 SUR pour un surnom),",
    "ordinary word,": "mot ordinaire,", "this corpus or my lexicon.": "ce corpus ou mon lexique.",
    "Each occurrence is a name or a word on its own (homonyms: Rose the friend, a rose in the garden). Apply decides each message changed, with the rest of what it hides as it is now.":
      "Chaque occurrence est un nom ou un mot à part (homonymes : Rose l'amie, une rose du jardin). Appliquer décide chaque message changé, avec le reste de ce qu'il masque tel qu'il est maintenant.",
    "A JSON object laid over the keys above, kept in this browser, for example:": "Un objet JSON posé sur les touches ci-dessus, gardé dans ce navigateur, par exemple :",
    "(x marks NTA, n does nothing). The actions are the names of the help's table (data-action); the views: any, messages, words.":
      "(x marque NTA, n ne fait rien). Les actions sont les noms du tableau de l'aide (data-action) ; les vues : any, messages, words.",
    "give a JSON object of views": "donnez un objet JSON de vues", "not JSON: {why}": "pas du JSON : {why}",
    "this browser does not let the page store settings": "ce navigateur ne laisse pas la page enregistrer de réglages",
    "Views (v)": "Vues (v)", "Review list": "Liste à relire", "Search and filter the list": "Chercher et filtrer la liste",
    "Search the text or an id": "Chercher le texte ou un id", "Route": "Parcours", "Tag hidden": "Étiquette masquée", "Reviewer": "Relecteur",
    "Order": "Ordre", "Your last decisions": "Vos dernières décisions", "Tag of the hidden word": "Étiquette du mot masqué",
    "Why a human looks at these words": "Pourquoi un humain regarde ces mots", "Tag a name is learnt with": "Étiquette avec laquelle un nom est appris",
    "Where a word is learnt": "Où un mot est appris", "Your keys (JSON)": "Vos touches (JSON)",
    "Spellings decided differently across the corpus": "Graphies décidées différemment dans le corpus",
    // Templates: {name} is a count, an id or a word.
    "{done} / {total} decided": "{done} / {total} décidés",
    "queue {dq} / {q} · audit {da} / {a} decided": "file {dq} / {q} · audit {da} / {a} décidés",
    " · {n} skipped (back at the end)": " · {n} mis de côté (reviennent à la fin)",
    " · {n} disagreement for the lead": " · {n} désaccord pour le relecteur principal",
    " · {n} disagreements for the lead": " · {n} désaccords pour le relecteur principal",
    " · {n} s per message": " · {n} s par message", " · about {left} left": " · environ {left} restant",
    " · audit: {leaking} of {audited} still identifying ({share}, 95% CI {low}–{high})":
      " · audit : {leaking} sur {audited} encore identifiants ({share}, IC à 95 % {low}–{high})",
    "{first}–{last} of {total}": "{first}–{last} sur {total}", "machines: {label}": "machines : {label}",
    "Seek&Hide {seekhide} · model {model} p={p}": "Seek&Hide {seekhide} · modèle {model} p={p}", "risk {risk}": "risque {risk}",
    ": hide {n} item (TA)": " : masquer {n} élément (TA)", ": hide {n} items (TA)": " : masquer {n} éléments (TA)", ": nothing to hide (NTA)": " : rien à masquer (NTA)",
    "decided {label}": "décidé {label}",
    "{what}: {tags} (on AZERTY, the same keys without Shift: {azerty})": "{what} : {tags} (en AZERTY, les mêmes touches sans Maj : {azerty})",
    "the tag a name is learnt with": "l'étiquette avec laquelle un nom est appris", "tag of the focused hidden word": "étiquette du mot masqué sélectionné",
    "mostly another language ({share}% French words) · {keys}": "surtout une autre langue ({share} % de mots français) · {keys}",
    // A state-changing action refused because someone changed what it acts on since the page showed it.
    "Nothing was saved: {who} is reviewing message {id} now.": "Rien n'a été enregistré : {who} relit le message {id} en ce moment.",
    "Nothing was saved: the two reviewers of message {id} disagree; the lead reviewer resolves it.":
      "Rien n'a été enregistré : les deux relecteurs du message {id} ne sont pas d'accord ; le relecteur principal tranche.",
    "Nothing was saved: message {id} was changed by {who} since your page showed it. It is shown as it now is.":
      "Rien n'a été enregistré : le message {id} a été modifié par {who} depuis que votre page l'a affiché. Le voici tel qu'il est maintenant.",
    "Nothing was resolved: {who} changed message {id} since the page showed it. The disagreements are shown as they now are.":
      "Rien n'a été arbitré : {who} a modifié le message {id} depuis que la page l'a affiché. Les désaccords sont affichés tels qu'ils sont maintenant.",
    "Nothing was learnt: “{spelling}” changed since the page showed it (someone learnt it, or decided one of its messages). The words are shown as they now are.":
      "Rien n'a été appris : « {spelling} » a changé depuis que la page l'a affiché (quelqu'un l'a appris, ou a décidé un de ses messages). Les mots sont affichés tels qu'ils sont maintenant.",
    "Nothing was changed: entry {id} (“{spelling}”) was undone by {who} since the page showed it. The list is shown as it now is.":
      "Rien n'a été changé : l'entrée {id} (« {spelling} ») a été défaite par {who} depuis que la page l'a affichée. La liste est affichée telle qu'elle est maintenant.",
    "Nothing was undone: {who} acted on message {id} since; undoing would take that back too.":
      "Rien n'a été défait : {who} a agi sur le message {id} depuis ; défaire reprendrait aussi son action.",
    "Nothing was undone: your last decision is no longer the one this page showed (another page of yours acted or undid since). The list of your last decisions is shown as it now is.":
      "Rien n'a été défait : votre dernière décision n'est plus celle qu'affichait cette page (une autre de vos pages a agi ou annulé depuis). La liste de vos dernières décisions est affichée telle qu'elle est maintenant.",
    "Nothing was decided: the list changed since the preview (a message found, gone, or decided since). Here is the preview anew.":
      "Rien n'a été décidé : la liste a changé depuis l'aperçu (un message trouvé, disparu ou décidé depuis). Voici l'aperçu à nouveau.",
    "Nothing was decided: a message of this word changed since the concordance showed it (someone decided or skipped it). The occurrences are shown as they now are.":
      "Rien n'a été décidé : un message de ce mot a changé depuis que la concordance l'a affiché (quelqu'un l'a décidé ou mis de côté). Les occurrences sont affichées telles qu'elles sont maintenant.",
    "someone": "quelqu'un", "someone else": "quelqu'un d'autre",
    // The consistency page (consistency.html, consistency.js).
    "consistency": "cohérence", "Back to the messages": "Retour aux messages", "Keyboard shortcuts (?)": "Raccourcis clavier (?)",
    "Spellings hidden in some messages and readable in others, surrogates equal to a readable form, spellings with two tags: decide each once, for the whole corpus. The release applies the decision. Undecided cases come first, the riskiest first.":
      "Graphies masquées dans certains messages et lisibles dans d'autres, substituts égaux à une forme lisible, graphies sous deux étiquettes : décidez chacune une fois, pour tout le corpus. La publication applique la décision. Les cas à décider viennent d'abord, les plus risqués en tête.",
    "Filter the cases": "Filtrer les cas", "Search a spelling…": "Chercher une graphie…", "Search a spelling": "Chercher une graphie",
    "Status": "Statut", "to decide": "à décider", "Kind": "Sorte", "any kind": "toute sorte", "Tag": "Étiquette",
    "hidden here, readable there": "masqué ici, lisible là", "surrogate equal to a readable form": "substitut égal à une forme lisible",
    "two tags": "deux étiquettes", "The same decision for every case shown:": "La même décision pour tous les cas affichés :",
    "Hide all everywhere…": "Tout masquer partout…", "Show all everywhere…": "Tout montrer partout…",
    "Yes": "Oui", "confirms": "confirme", "cancels": "annule", "hidden": "masqué", "readable": "lisible",
    "Hide everywhere": "Masquer partout", "Show everywhere": "Montrer partout", "Homonyms: leave each as it is": "Homonymes : laisser chacun tel quel",
    "One entity (one tag)": "Une seule entité (une étiquette)", "Different entities": "Entités différentes",
    "next case": "cas suivant", "previous case": "cas précédent",
    "hide the spelling everywhere (asks first where it is readable)": "masquer la graphie partout (demande d'abord là où elle est lisible)",
    "show the spelling everywhere (asks first where it is hidden)": "montrer la graphie partout (demande d'abord là où elle est masquée)",
    "homonyms: a name where it is hidden, a word where it is readable": "homonymes : un nom là où elle est masquée, un mot là où elle est lisible",
    "two tags: one entity (one tag everywhere)": "deux étiquettes : une seule entité (une étiquette partout)",
    "two tags: different entities": "deux étiquettes : des entités différentes",
    "next page of cases": "page de cas suivante", "previous page of cases": "page de cas précédente",
    "search a spelling (Esc leaves the search)": "chercher une graphie (Échap quitte la recherche)",
    "in a question: yes (Esc: cancel)": "dans une question : oui (Échap : annuler)",
    "{n} message": "{n} message", "{n} messages": "{n} messages",
    "hidden in {hidden}, readable in {readable}": "masqué dans {hidden}, lisible dans {readable}",
    "({n} released with no human reading it)": "({n} publié sans qu'un humain le lise)",
    "({n} released with no human reading them)": "({n} publiés sans qu'un humain les lise)",
    "surrogate of an earlier release ({tag}), readable in {readable}": "substitut d'une publication antérieure ({tag}), lisible dans {readable}",
    "hidden as {tags}": "masqué comme {tags}", "decided by {who}": "décidé par {who}",
    "decided {decision} by {who}, then {more}: to decide again": "décidé « {decision} » par {who}, puis {more} : à décider à nouveau",
    "{n} more hidden": "{n} masqués de plus",
    "the share of its messages where it is hidden, times the messages where it is readable (those no human read count whole)":
      "la part de ses messages où elle est masquée, fois les messages où elle est lisible (ceux qu'aucun humain n'a lus comptent entier)",
    "no case: the corpus is consistent": "aucun cas : le corpus est cohérent",
    "cases {first}–{last} of {total}": "cas {first}–{last} sur {total}", "found ({all} in all)": "trouvés ({all} en tout)",
    "{n} to decide": "{n} à décider",
    "The same decision for the {n} case shown:": "La même décision pour le cas affiché :",
    "The same decision for the {n} cases shown:": "La même décision pour les {n} cas affichés :",
    "“{key}” is not decided so: its choices are {choices}.": "« {key} » ne se décide pas ainsi : ses choix sont {choices}.",
    "Show “{key}” everywhere?": "Montrer « {key} » partout ?", "Show it everywhere": "La montrer partout",
    "Show “{key}” in {where} where it is hidden: it becomes readable there in the release.":
      "Montrer « {key} » dans {where} où elle est masquée : elle y devient lisible dans la publication.",
    "Hide “{key}” everywhere?": "Masquer « {key} » partout ?", "Hide it everywhere": "La masquer partout",
    "Hide “{key}” in {where} where it is readable.": "Masquer « {key} » dans {where} où elle est lisible.",
    "“{key}”: {decision}": "« {key} » : {decision}",
    "Nothing was saved: “{key}” changed since the page showed it. The cases are shown as they now are.":
      "Rien n'a été enregistré : « {key} » a changé depuis que la page l'a affiché. Les cas sont affichés tels qu'ils sont maintenant.",
    "Hide everywhere the {n} case shown?": "Masquer partout le cas affiché ?", "Hide everywhere the {n} cases shown?": "Masquer partout les {n} cas affichés ?",
    "Show everywhere the {n} case shown?": "Montrer partout le cas affiché ?", "Show everywhere the {n} cases shown?": "Montrer partout les {n} cas affichés ?",
    "{n} case is decided so": "{n} cas est décidé ainsi", "{n} cases are decided so": "{n} cas sont décidés ainsi",
    "{n} message changes in the release.": "{n} message change dans la publication.",
    "{n} messages change in the release.": "{n} messages changent dans la publication.",
    "{n} is already decided so.": "{n} est déjà décidé ainsi.", "{n} are already decided so.": "{n} sont déjà décidés ainsi.",
    "{n} spelling with two tags is left (decided one or two entities).": "{n} graphie sous deux étiquettes est laissée (elle se décide une ou deux entités).",
    "{n} spellings with two tags are left (decided one or two entities).": "{n} graphies sous deux étiquettes sont laissées (elles se décident une ou deux entités).",
    "{n} surrogate of an earlier release is drawn again.": "{n} substitut d'une publication antérieure est tiré à nouveau.",
    "{n} surrogates of an earlier release are drawn again.": "{n} substituts d'une publication antérieure sont tirés à nouveau.",
    "1 hidden item becomes readable in 1 message ({kinds}).": "1 élément masqué devient lisible dans 1 message ({kinds}).",
    "No hidden item becomes readable.": "Aucun élément masqué ne devient lisible.",
    "Every case shown is already decided so: nothing to decide.": "Tous les cas affichés sont déjà décidés ainsi : rien à décider.",
    "Hide them everywhere": "Les masquer partout", "Show them everywhere": "Les montrer partout",
    "{n} case decided: {decision}.": "{n} cas décidé : {decision}.", "{n} cases decided: {decision}.": "{n} cas décidés : {decision}.",
    "Nothing was decided: the cases changed since the preview (someone decided one, or its messages changed). Here is the preview anew.":
      "Rien n'a été décidé : les cas ont changé depuis l'aperçu (quelqu'un en a décidé un, ou ses messages ont changé). Voici l'aperçu à nouveau.",
    "Your last consistency decisions": "Vos dernières décisions de cohérence", "Your last decisions:": "Vos dernières décisions :",
    "Undo the last one": "Défaire la dernière", "{n} cases: {decision}": "{n} cas : {decision}",
    "undo your last decision (a decision for many cases whole; asks first when hidden items become readable)":
      "défaire votre dernière décision (une décision pour plusieurs cas en entier ; demande d'abord si des éléments masqués deviennent lisibles)",
    "Undo the decision for {n} cases?": "Défaire la décision pour {n} cas ?", "Undo “{key}”: {decision}?": "Défaire « {key} » : {decision} ?",
    "Each case gets back the decision it had before (or none): what the decision hid becomes readable again in the release.":
      "Chaque cas retrouve la décision qu'il avait avant (ou aucune) : ce que la décision masquait redevient lisible dans la publication.",
    "Undo it": "La défaire", "The cases changed since the question: here it is anew.": "Les cas ont changé depuis la question : la voici à nouveau.",
    "Nothing was undone: {who} decided “{key}” since; undoing would take that back too.":
      "Rien n'a été défait : {who} a décidé « {key} » depuis ; défaire l'annulerait aussi.",
    "Nothing was undone: your last decision is no longer the one this page showed (another page of yours decided or undid since). Your last decisions are shown as they now are.":
      "Rien n'a été défait : votre dernière décision n'est plus celle que la page montrait (une autre de vos pages a décidé ou défait depuis). Vos dernières décisions sont affichées telles qu'elles sont maintenant.",
    "Undone: {n} cases of the decision for many cases.": "Défait : {n} cas de la décision pour plusieurs cas.",
    "Undone: “{key}” is decided {decision} again.": "Défait : « {key} » est de nouveau décidé « {decision} ».",
    "Undone: “{key}” is to decide again.": "Défait : « {key} » est de nouveau à décider.",
    "The review server does not answer: is `triage review` still running?": "Le serveur de relecture ne répond pas : `triage review` tourne-t-il encore ?",
    "The server answered {status} {text}.": "Le serveur a répondu {status} {text}.",
  },
};

// The server's errors by code (triage/review_workspace/codes.py), in each language but English (the
// server's own `error` line). `{name}` is a param (a number in the page's way), `{name:one|many}` the
// form for the number `name`, `{name?a=x|b=y}` the text for its value (else the value itself).
const ACTIONS_FR = "action?decide=décidé|review=relu|adjudicate=arbitré|import=importé une décision sur|skip=mis de côté|undo=défait une décision sur";
const ERRORS = {
  fr: {
    error: "Refusé : {detail}",
    internal: "erreur interne du serveur de relecture (voir sa console)",
    too_large: "requête trop grande (au plus {max} octets)",
    host_refused: "refusé : ce serveur ne répond qu'à sa propre adresse ({host})",
    host_refused_every: "refusé : ce serveur ne répond qu'aux adresses de cet ordinateur",
    other_site: "refusé : une requête venue d'un autre site",
    token_refused: "refusé : ouvrez l'adresse que `triage review` a affichée, ou votre propre lien (il porte votre jeton ; un lien révoqué n'ouvre plus la page)",
    link_refused: "refusé : jeton erroné, ou lien révoqué",
    not_found: "introuvable : {method} {path}",
    method_not_allowed: "méthode non permise : {method} {path}",
    http_error: "erreur HTTP {status} : {method} {path}",
    not_json: "la requête n'est pas du JSON (UTF-8, imbriqué sur quelques niveaux au plus)",
    not_object: "la requête doit être un objet JSON",
    lone_surrogate: "la requête contient un demi-caractère isolé (\\ud800-\\udfff) : ce n'est pas du texte",
    not_whole: "{value} n'est pas un nombre entier",
    out_of_range: "{value} est hors limites",
    spelling_too_long: "un mot ou une expression à apprendre a au plus {max} caractères",
    search_too_long: "une recherche a au plus {max} caractères",
    after_rank_invalid: "after_rank doit être un nombre entier",
    filters_invalid: "les filtres doivent être un objet de valeurs texte (q, status, kind, tag, reviewer, double)",
    marks_not_list: "les marques doivent être une liste",
    message_unknown: "aucun message « {id} » dans la liste de relecture",
    not_lead_link: "refusé : seul le lien du relecteur principal arbitre les désaccords, pas celui de {name}",
    not_lead_server: "seul le relecteur principal arbitre les désaccords (lancez `triage review --lead`)",
    nta_contact: "NTA rendrait lisibles {n} {n:coordonnée|coordonnées} que les machines ont masquées ({kinds}) : envoyez release_contact: true pour les publier, ou décidez TA",
    lexicon_unusable: "le lexique de l'utilisateur est inutilisable : {detail}",
    workspace_full: "impossible d'écrire {display} : disque plein ; rien n'est perdu, libérez de la place et réessayez",
    workspace_read_only: "impossible d'écrire {display} : en lecture seule (le fichier ou son dossier) ; rendez-les modifiables et réessayez",
    workspace_damaged: "{display} est endommagé : {detail} ; restaurez-le depuis une sauvegarde (le fichier classé peut en refaire un, sans les décisions)",
    workspace_busy: "{display} est utilisé par un autre processus triage ; réessayez quand il aura fini",
    workspace_unavailable: "impossible de lire ou d'écrire {display} : {detail}",
    workspace_swapped: "{path} n'est plus l'espace de relecture ouvert au démarrage (le fichier a été remplacé ou déplacé) : rien n'a été écrit ; relancez `triage review`",
    label_unknown: "l'étiquette de décision doit être TA ou NTA, pas « {label} »",
    tag_unknown: "étiquette inconnue « {tag} » ; utilisez l'une de : {tags}",
    span_outside: "le passage [{start}, {end}] dépasse du message ({length} caractères)",
    spans_invalid: "les passages doivent être une liste de [début, fin, ÉTIQUETTE]",
    spans_overlap: "des passages se chevauchent",
    list_kind_unknown: "la sorte doit être l'une de : {kinds}",
    status_unknown: "statut inconnu « {status} » ; utilisez {statuses} (séparés par des virgules)",
    double_filter_unknown: "filtre de double relecture inconnu « {double} » ; utilisez l'un de : {filters}",
    sort_unknown: "l'ordre doit être l'un de : {sorts}",
    lease_held: "le message {id} est en cours de relecture par {reviewer} (jusqu'à {until} UTC) : regardez-en un autre",
    lease_assigned: "le message {id} est attribué à {reviewer} (jusqu'à {until} UTC) : rien n'a été enregistré",
    disputed: "message {id} : ses deux relecteurs sont en désaccord ; le relecteur principal tranche (rien n'a été enregistré)",
    version_invalid: "version doit être celle du message, telle qu'envoyée avec lui",
    decided_since: "le message {id} a été {status?decided=décidé|skipped=mis de côté|disputed=mis en désaccord} par {reviewer} depuis que votre page l'a chargé : rien n'a été enregistré ; voyez sa décision",
    changed_since: "message {id} : {reviewer} l'a {" + ACTIONS_FR + "} depuis que votre page l'a affiché : rien n'a été {refused?saved=enregistré|skipped=mis de côté|resolved=arbitré} ; voyez-le tel qu'il est maintenant",
    text_hash_invalid: "text_hash doit être l'empreinte du texte du message, telle qu'envoyée avec lui",
    text_changed: "le texte du message {id} a changé depuis son affichage (le corpus a été classé à nouveau) : rien n'a été enregistré, regardez-le à nouveau",
    nta_hides_nothing: "un message NTA ne masque rien ; marquez-le TA pour masquer des mots",
    undo_seq_invalid: "seq doit être celui de l'action, tel que `recent` le donne",
    undo_not_last: "impossible de défaire : votre dernière décision n'est plus celle que votre page montrait (défaite, ou suivie d'une autre, dans une autre page) : rien n'a été défait",
    undo_later: "impossible de défaire : {reviewer} a {" + ACTIONS_FR + "} le message {id} depuis ; défaire l'annulerait aussi : rien n'a été défait",
    no_disagreement: "le message {id} n'a aucun désaccord à arbitrer",
    learn_empty: "donnez un mot ou une expression à apprendre",
    learn_kind_unknown: "la sorte doit être l'une de : {kinds}",
    scope_unknown: "la portée doit être l'une de : {scopes}",
    confirm_invalid: "confirm doit valoir true ou false",
    learn_digest_invalid: "digest doit être celui que la vue Mots ou l'aperçu a donné pour cette graphie",
    learn_frequent: "« {key} » est un mot ordinaire fréquent : l'apprendre comme nom le masquerait dans {messages} {messages:message|messages} ; confirmez pour continuer",
    learn_phrase_user: "« {key} » est une expression : une expression ne s'apprend que pour ce corpus",
    learn_word_confirm: "apprendre « {key} » comme mot ordinaire le montre dans {messages} {messages:message|messages} : {readable} {readable:élément masqué devient lisible|éléments masqués deviennent lisibles} dans {readable_messages} {readable_messages:message|messages} ; confirmez avec l'empreinte de l'aperçu pour continuer",
    word_changed: "« {key} » a changé depuis son affichage (quelqu'un l'a appris ou désappris, ou a décidé, mis de côté ou défait un message qui le contient) : rien n'a été appris ; regardez-le à nouveau",
    word_learnt_by: "« {key} » a été appris par {reviewer} comme {kind?name=nom|word=mot ordinaire} : rien n'a été appris ; envoyez l'empreinte du mot pour l'apprendre à nouveau",
    learnt_unknown: "aucune entrée apprise « {entry} » (voir `triage review CLASSIFIED --learnt`)",
    learnt_undone: "l'entrée apprise {entry} (« {spelling} ») a déjà été défaite ou remplacée : rien n'a été changé",
    learnt_undone_meanwhile: "l'entrée apprise {entry} (« {spelling} ») a été défaite par quelqu'un d'autre entre-temps : rien n'a été changé",
    bulk_action_unknown: "l'action doit être l'une de : {actions}",
    bulk_digest_invalid: "digest doit être celui de l'aperçu (il nomme les messages affichés)",
    bulk_expected_invalid: "expected doit être le nombre de messages que l'aperçu a affichés",
    bulk_changed: "la liste a changé depuis l'aperçu ({now} {now:message|messages} maintenant ; un message trouvé, disparu ou décidé depuis) : rien n'a été décidé, regardez l'aperçu à nouveau",
    concordance_empty: "donnez un mot ou une expression",
    marks_invalid: "les marques doivent être une liste de {id, start, end, as: name ou word, text_hash, version}",
    occurrence_changed: "le message {id} a été décidé ou mis de côté depuis que la concordance l'a affiché : rien n'a été enregistré ; regardez-le à nouveau",
    case_kind_unknown: "la sorte doit être l'une de : {kinds}, pas « {kind} »",
    case_choice_unknown: "un cas {kind?mixed=masqué ici, lisible là|surrogate=de substitut|tags=à deux étiquettes} se décide {choices}, pas « {decision} »",
    case_status_unknown: "le statut doit être undecided ou decided, pas « {status} »",
    case_tag_unknown: "l'étiquette doit être l'une de : {tags}, pas « {tag} »",
    bulk_decision_unknown: "une décision pour plusieurs cas est hide ou readable, pas « {decision} »",
    consistency_key_missing: "un cas de cohérence a besoin de sa graphie",
    consistency_version_invalid: "version doit être celle du cas, telle qu'envoyée avec lui",
    consistency_gone: "« {key} » n'est plus un cas (ses mentions ont changé) depuis que votre page l'a affiché : rien n'a été enregistré ; regardez-le à nouveau",
    consistency_decided_since: "« {key} » a été décidé ({decision?hide=masquer partout|readable=montrer partout|homonyms=homonymes|same=une seule entité|different=entités différentes}) par {reviewer} depuis que votre page l'a affiché : rien n'a été enregistré ; regardez-le à nouveau",
    consistency_changed: "« {key} » a changé (ses mentions, ou sa décision) depuis que votre page l'a affiché : rien n'a été enregistré ; regardez-le à nouveau",
    consistency_decided_by: "« {key} » a été décidé ({decision?hide=masquer partout|readable=montrer partout|homonyms=homonymes|same=une seule entité|different=entités différentes}) par {reviewer} : rien n'a été enregistré ; envoyez la version du cas pour le décider à nouveau",
    consistency_show_confirm: "montrer « {key} » partout rend {n} {n:élément masqué lisible|éléments masqués lisibles} dans {m} {m:message|messages} : envoyez la version du cas pour confirmer",
    cases_invalid: "les cas doivent être une liste de paires [sorte, graphie]",
    cases_empty: "aucun cas à décider : la liste des cas est vide",
    cases_too_many: "au plus {n} cas à la fois",
    consistency_digest_invalid: "digest doit être celui de l'aperçu, tel qu'envoyé avec lui",
    consistency_bulk_confirm: "décider {n} cas à la fois ({decision?hide=masquer partout|readable=montrer partout}) demande la confirmation de l'aperçu : envoyez son empreinte",
    consistency_bulk_changed: "les cas ont changé depuis l'aperçu (décidés par quelqu'un, ou leurs mentions ont changé) : rien n'a été décidé ; regardez l'aperçu à nouveau",
    consistency_undo_seq_invalid: "seq doit être celui de la décision, tel que la liste des dernières décisions de cohérence le donne",
    consistency_undo_digest_invalid: "digest doit être celui de l'aperçu de l'annulation, tel qu'envoyé avec lui",
    consistency_undo_not_last: "impossible de défaire : votre dernière décision de cohérence n'est plus celle que votre page montrait (défaite, ou suivie d'une autre, dans une autre page) : rien n'a été défait",
    consistency_undo_later: "impossible de défaire : {reviewer} a décidé « {key} » depuis ; défaire l'annulerait aussi : rien n'a été défait",
    consistency_undo_confirm: "défaire rend {n} {n:élément masqué lisible|éléments masqués lisibles} dans {m} {m:message|messages} : envoyez l'empreinte de l'aperçu pour confirmer",
    consistency_undo_changed: "les cas ont changé depuis l'aperçu de l'annulation (décidés par quelqu'un, ou leurs mentions ont changé) : rien n'a été défait ; regardez l'aperçu à nouveau",
    reviewer_missing: "un nom de relecteur est nécessaire",
  },
};

// A param as the page's language writes it: a number with its separators, else the text.
function errorValue(value) {
  return typeof value === "number" ? value.toLocaleString(LANG) : String(value === null || value === undefined ? "" : value);
}

// A server's error answer in the page's language: its code's text with its params, else (English, or
// a code the page does not know) the server's own line.
function errorText(data) {
  if (!data) return "";
  const template = (ERRORS[LANG] || {})[data.code];
  if (!template) return data.error || "";
  const params = data.params || {};
  return template.replace(/\{(\w+)(?::([^{}|]*)\|([^{}]*)|\?([^{}]*))?\}/g, (whole, name, one, many, choices) => {
    if (!(name in params)) return whole;
    const value = params[name];
    if (one !== undefined) return Math.abs(Number(value)) < 2 ? one : many; // French: 0 and 1 take the singular
    if (choices !== undefined) {
      for (const choice of choices.split("|")) {
        const [key, text] = choice.split("=");
        if (key === String(value)) return text;
      }
    }
    return errorValue(value);
  });
}

// What a failed request says: the server's error, its status, or that the server does not answer.
async function requestError(response) {
  const data = response ? await response.json().catch(() => null) : null;
  const text = !response ? tr("The review server does not answer: is `triage review` still running?")
    : errorText(data) || trf("The server answered {status} {text}.", { status: response.status, text: response.statusText });
  const error = new Error(text);
  error.status = response ? response.status : 0; error.data = data;
  return error;
}

// The server's reasons for a word, phrase by phrase (the words themselves are kept as written).
const PHRASES = {
  fr: [
    [/^is a name and a word/, "est un nom et un mot"], [/^in the first-name list/, "dans la liste des prénoms"],
    [/^in the surname list/, "dans la liste des noms de famille"], [/^in your names list/, "dans votre liste de noms"],
    [/^an ordinary word, but the name scorer finds it name-like/, "un mot ordinaire, mais le score de nom le trouve proche d'un nom"],
    [/^in no list/, "dans aucune liste"], [/^hidden as a /, "masqué comme "], [/, capitalised/, ", avec une majuscule"],
    [/\(also a rare first name\)/, "(aussi un prénom rare)"], [/\(also a surname\)/, "(aussi un nom de famille)"],
    [/\(close to /, "(proche de "], [/\(as '/, "(comme '"], [/, after '([^']*)' \(a name often follows\)/, ", après '$1' (un nom suit souvent)"],
    [/\bfirst name\b/, "prénom"], [/\bsurname\b/, "nom de famille"], [/\bnickname\b/, "surnom"], [/\bphone number\b/, "numéro de téléphone"],
    [/\be-mail address\b/, "adresse e-mail"], [/\bweb address\b/, "adresse web"], [/\bpostal address\b/, "adresse postale"],
    [/^code$/, "code"], [/^place$/, "lieu"], [/^brand$/, "marque"],
  ],
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

// A text built from pieces: the template translated whole, then {name} replaced by its value.
function trf(template, values = {}) {
  let out = TABLE[template] || template;
  for (const [name, value] of Object.entries(values)) out = out.split(`{${name}}`).join(String(value));
  return out;
}

// A reason the server gives for a word, in the page's language.
function trReason(text) {
  let out = text;
  for (const [pattern, french] of PHRASES[LANG] || []) out = out.replace(pattern, french);
  return out;
}

// Never translated: what comes from the messages and the workspace.
const UNTRANSLATED = "#who, #message, #dispute-list .message, .differences, #item-list .snippet, .neighbours, .examples, #conc-rows, #reasons, #learnt-rows td, #word-list h3, #recent, .spelling";

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
