"""The review workspace's store: one module per job of `Workspace`
(triage.review_workspace.workspace composes them)."""
