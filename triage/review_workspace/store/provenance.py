"""What classify noted in the workspace: the model that classified the corpus, the settings that
change its output (for the release and its datasheet), and the known names it was given (for a
later `classify --workspace`; they never leave this private file).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from triage.review_workspace.store.common import DEFAULT_AUDIT


class Provenance:
    """How the corpus was classified: the model, the settings, the known names."""

    def record_model(self, path: str | os.PathLike[str] | None) -> None:
        """Note which model classified the corpus (its file and SHA-256), for the release's datasheet."""
        from triage import model as model_module

        if isinstance(path, model_module.Model):  # a model in memory (the Python API)
            data, name = path.data, path.path.name if path.path else "a model trained in memory"
        else:
            chosen = Path(path) if path else model_module.default_model_path()
            data, name = chosen.read_bytes(), chosen.name if path else f"the embedded model ({chosen.name})"
        digest = hashlib.sha256(data).hexdigest()[:16]
        with self._transaction():
            self._set_meta(model=f"{name}, sha256 {digest}")

    def record_classify(self, settings: dict) -> None:
        """Note how classify made the corpus (its command and the settings that change its output,
        triage.jobs.classify_record), with this workspace's audit sample size and seed, for the
        release and its datasheet."""
        with self._transaction():
            meta = self.meta()
            settings = {**settings, "audit_size": int(meta.get("audit_size", DEFAULT_AUDIT)),
                        "audit_seed": int(meta.get("audit_seed", 0))}
            self._set_meta(classify=json.dumps(settings, ensure_ascii=False, sort_keys=True))

    def keep_known_names(self, known) -> None:
        """Keep the known names classify was given (a triage.seekhide.KnownNames), so that a later
        `classify --workspace` without `--known-names` hides them again. They stay in this private
        file, never in a release or its datasheet."""
        record = {"source": known.source, "count": known.count, "entries": [list(e) for e in known.entries]}
        with self._transaction():
            self._set_meta(known_names=json.dumps(record, ensure_ascii=False))

    def kept_known_names(self):
        """The known names an earlier classify was given (keep_known_names), or None."""
        from triage.seekhide.known import KnownNames

        try:
            record = json.loads(self.meta().get("known_names") or "null")
            if not isinstance(record, dict):
                return None
            entries = tuple((str(w), str(t), int(p)) for w, t, p in record["entries"])
        except (ValueError, TypeError, KeyError):
            return None
        if not entries:
            return None
        return KnownNames(entries, record.get("source"), None, int(record.get("count") or 0))

    def classify_settings(self) -> dict | None:
        """What `record_classify` noted, or None (a workspace made by `review`, or by an older classify)."""
        recorded = self.meta().get("classify")
        try:
            found = json.loads(recorded) if recorded else None
        except ValueError:
            return None
        return found if isinstance(found, dict) else None
