"""The review server's errors by code. Each error the page can show carries a stable `code` and its
`params` besides its English text; the server sends all three (`{"error", "code", "params"}`) and the
page shows the error in its own language: static/i18n.js holds a text for every code (ERRORS), with
the same `{name}` params (`{name:one|many}` picks the form by the number `name`, `{name?a=x|*=y}` a
text by its value). The English text is what the API and the command line say."""

from __future__ import annotations


def coded(error: Exception, code: str, **params) -> Exception:
    """`error` with its code and params, to raise: `raise coded(BadOption(...), "tag_unknown", tag=tag)`."""
    error.code = code
    error.params = params
    return error


#: Every code the review server answers with, and the params it sends with it. The page has a text
#: for each (static/i18n.js, ERRORS); `error` is an error without a code of its own (its English
#: line is the `detail`).
PARAMS: dict[str, tuple[str, ...]] = {
    "error": ("detail",), "internal": (), "too_large": ("max",),
    "host_refused": ("host",), "host_refused_every": (), "other_site": (), "token_refused": (), "link_refused": (),
    "not_found": ("method", "path", "status"), "method_not_allowed": ("method", "path", "status"),
    "http_error": ("method", "path", "status"),
    "not_json": (), "not_object": (), "lone_surrogate": (), "not_whole": ("value",), "out_of_range": ("value",),
    "spelling_too_long": ("max",), "search_too_long": ("max",), "after_rank_invalid": (), "filters_invalid": (),
    "marks_not_list": (), "message_unknown": ("id",), "not_lead_link": ("name",), "not_lead_server": (),
    "nta_contact": ("n", "kinds"), "lexicon_unusable": ("detail",),
    "workspace_full": ("display",), "workspace_read_only": ("display",), "workspace_damaged": ("display", "detail"),
    "workspace_busy": ("display",), "workspace_unavailable": ("display", "detail"), "workspace_swapped": ("path",),
    "label_unknown": ("label",), "tag_unknown": ("tag", "tags"), "span_outside": ("start", "end", "length"),
    "spans_invalid": (), "spans_overlap": (), "list_kind_unknown": ("kinds",), "status_unknown": ("status", "statuses"),
    "double_filter_unknown": ("double", "filters"), "sort_unknown": ("sorts",),
    "lease_held": ("id", "reviewer", "until"), "lease_assigned": ("id", "reviewer", "until"), "disputed": ("id",),
    "version_invalid": (), "decided_since": ("id", "status", "reviewer"),
    "changed_since": ("id", "reviewer", "action", "refused"), "text_hash_invalid": (), "text_changed": ("id",),
    "nta_hides_nothing": (), "undo_seq_invalid": (), "undo_not_last": (), "undo_later": ("reviewer", "action", "id"),
    "no_disagreement": ("id",), "learn_empty": (), "learn_kind_unknown": ("kinds",), "scope_unknown": ("scopes",),
    "confirm_invalid": (), "learn_digest_invalid": (), "learn_frequent": ("key", "messages"),
    "learn_phrase_user": ("key",), "learn_word_confirm": ("key", "messages", "readable", "readable_messages"),
    "word_changed": ("key",), "word_learnt_by": ("key", "reviewer", "kind"), "learnt_unknown": ("entry",),
    "learnt_undone": ("entry", "spelling", "by"), "learnt_undone_meanwhile": ("entry", "spelling"),
    "bulk_action_unknown": ("actions",), "bulk_digest_invalid": (), "bulk_expected_invalid": (),
    "bulk_changed": ("now", "shown"), "concordance_empty": (), "marks_invalid": (), "occurrence_changed": ("id",),
    "case_kind_unknown": ("kind", "kinds"), "case_choice_unknown": ("kind", "decision", "choices"),
    "case_status_unknown": ("status",), "case_tag_unknown": ("tag", "tags"), "bulk_decision_unknown": ("decision",),
    "consistency_key_missing": (), "consistency_version_invalid": (),
    "consistency_gone": ("kind", "key", "decision", "reviewer"),
    "consistency_decided_since": ("kind", "key", "decision", "reviewer"),
    "consistency_changed": ("kind", "key", "decision", "reviewer"),
    "consistency_decided_by": ("kind", "key", "decision", "reviewer"), "consistency_show_confirm": ("key", "n", "m"),
    "cases_invalid": (), "cases_empty": (), "cases_too_many": ("n",), "consistency_digest_invalid": (),
    "consistency_bulk_confirm": ("n", "decision"), "consistency_bulk_changed": (),
    "consistency_undo_seq_invalid": (), "consistency_undo_digest_invalid": (), "consistency_undo_not_last": (),
    "consistency_undo_later": ("reviewer", "kind", "key"), "consistency_undo_confirm": ("n", "m"),
    "consistency_undo_changed": (), "reviewer_missing": (),
}
