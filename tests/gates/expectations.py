"""Checked-in expected observations of the context gate's seven evaluation scenarios.

These are never evidence by themselves: the gate executes each scenario's success and fail-closed paths on
a fresh fixture and compares what it observed with this table. An observation is ``pass`` (or a named
outcome) for a success path, and the stable error code for a fail-closed path; every scenario has both.
"""

from __future__ import annotations

EXPECTED: dict[str, dict[str, str]] = {
    "exact-reindex": {
        "reindex": "identical",
        "reselect": "identical",
        "requality": "identical",
        "rehashed_graph": "artifact_id_mismatch",
    },
    "deterministic-selection": {"replay": "pass", "tampered_selection": "selection_mismatch"},
    "candidate-binding": {
        "unchanged_candidate": "pass",
        "ignored_output": "pass",
        "changed_source": "candidate_mismatch",
        "output_inside_candidate": "candidate_mismatch",
        "later_operation_after_output_in_candidate": "candidate_mismatch",
    },
    "required-context-blocks": {
        "fresh": "pass",
        "drifted_required": "source_drift",
        "secret_required": "sensitivity_violation",
        "stale_required": "freshness_violation",
    },
    "optional-contradiction-atomic": {"intact": "included", "one_member_drifted": "excluded_atomically"},
    "traversal-frontier-blocks": {
        "within_bounds": "pass",
        "beyond_depth": "selection_blocked",
        "beyond_nodes": "selection_blocked",
    },
    "owner-root-governance": {
        "with_owner_root": "pass",
        "without_owner_root": "owner_root_invalid",
        "unused_owner_root": "owner_root_invalid",
    },
}
