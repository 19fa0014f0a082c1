"""The door's ``__all__`` is exactly its public names: every name it lists resolves, every public name it
holds is listed, and the list is the reviewed one below (a change to the public API is a diff here)."""

from __future__ import annotations

import types

import prooftext

PUBLIC_NAMES = {
    # the index and its value objects
    "open",
    "Index",
    "IndexStatus",
    "RefreshReport",
    "Exclusion",
    "reset_index",
    "Query",
    "Ladder",
    "RankingPolicy",
    "Packet",
    "MapSettings",
    "RepositoryMap",
    "repository_map",
    "AdaptiveResult",
    "VerifyReport",
    "verify",
    # the context framework's artifact lifecycle
    "artifact_query",
    "context_manifest",
    "context_index",
    "context_query",
    "context_select",
    "context_snapshot",
    "context_propose",
    "context_compact",
    "context_quality",
    "context_compare",
    "context_validate",
    "Published",
    "fsck",
    "FsckReport",
    # the conversation side
    "Conversation",
    "TurnRequest",
    "TurnPlan",
    "Reply",
    "check_turn",
    "turn_plan",
    "index_retriever_for",
    "parse_mode",
    "depth_report",
    "DepthReport",
    "MemoryStore",
    "MemoryRecord",
    "recall_memory",
    "memory_export",
    "memory_import",
    "risk_of_changing",
    "read_range",
    "visible_text",
    "make_backend",
    "ChatBackend",
    "SignalReport",
    # signed packets
    "SigningKey",
    "sign",
    # evaluation
    "evaluate",
    "EvalReport",
    "SwebenchRun",
    "LocomoRun",
    "DepthRun",
    "QualityBar",
    "RunOptions",
    "ModelSettings",
    # foundations the adapters need
    "ProoftextError",
    "TokenCount",
    "count",
    "content_id",
    "load_json",
    "load_schema",
    "check_params",
    "result_problems",
    "start_every_worker",
    "watch_parent",
    "__version__",
}


def test_all_is_exactly_the_reviewed_public_names() -> None:
    assert set(prooftext.__all__) == PUBLIC_NAMES
    assert prooftext.__all__ == sorted(prooftext.__all__)


def test_every_listed_name_resolves() -> None:
    for name in prooftext.__all__:
        assert getattr(prooftext, name) is not None, name


def test_the_door_holds_no_public_name_it_does_not_list() -> None:
    for name in prooftext.__all__:  # load every lazy name first
        getattr(prooftext, name)
    held = {
        name
        for name, value in vars(prooftext).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert held == set(prooftext.__all__) - {"__version__"}
