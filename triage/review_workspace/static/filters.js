// The list's search, filters and order (the page's list panel). Read by loadPage in review.js
// through listQuery(); the list's state lives here, apart from the message view's.
"use strict";

const FILTERS = ["q", "status", "kind", "tag", "reviewer", "double", "sort"];

// The query string of the list's current filters (empty values left out), starting with "&".
function listQuery() {
  let query = "";
  for (const name of FILTERS) {
    const field = document.getElementById(`filter-${name}`);
    const value = field ? field.value.trim() : "";
    if (value && !(name === "sort" && value === "rank")) query += `&${name}=${encodeURIComponent(value)}`;
  }
  return query;
}

// Whether the list shows anything but the whole list in its own order.
function listFiltered() {
  return listQuery() !== "";
}

// Fill the tag and reviewer choices, and reload the list (from its first item) when a filter changes.
function initFilters(info, reload) {
  const tags = document.getElementById("filter-tag");
  if (tags.options.length <= 1) for (const tag of info.tags) tags.append(new Option(tag, tag));
  fillReviewers(info.reviewers || []);
  let timer = null;
  for (const name of FILTERS) {
    const field = document.getElementById(`filter-${name}`);
    const go = () => { clearTimeout(timer); timer = setTimeout(() => reload(0), name === "q" ? 250 : 0); };
    field.addEventListener(name === "q" ? "input" : "change", go);
    // Esc leaves the filters: the review's keys work again.
    field.addEventListener("keydown", (event) => { if (event.key === "Escape") { event.preventDefault(); field.blur(); } });
  }
  document.getElementById("filters").addEventListener("submit", (event) => { event.preventDefault(); reload(0); });
  document.getElementById("filter-clear").addEventListener("click", () => {
    for (const name of FILTERS) {
      const field = document.getElementById(`filter-${name}`);
      field.value = name === "sort" ? "rank" : "";
    }
    reload(0);
  });
}

function fillReviewers(names) {
  const select = document.getElementById("filter-reviewer");
  const chosen = select.value;
  const known = new Set([...select.options].map((o) => o.value));
  for (const name of names) if (!known.has(name)) select.append(new Option(name, name));
  select.value = chosen;
}
