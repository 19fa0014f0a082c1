"""prooftext: compile just enough, provably genuine context for LLM applications.

``prooftext.open(root)`` returns an :class:`Index`; ``index.refresh()`` keeps it fresh incrementally,
``index.pack(query)`` compiles a packet at a fixed budget and ``index.adaptive_pack(query, ladder=...)`` climbs
the SACP ladder until the evidence estimator passes. Settings travel as value objects (:class:`Query`,
:class:`Ladder`, :class:`RankingPolicy`, ...), results are typed and have ``to_dict()``.

Everything in ``__all__`` is the public API, and the only part of the package the command line and the
servers use; the rest is internal. Heavy parts load on first use, so ``import prooftext`` stays cheap.
"""

import importlib as _importlib
import typing as _typing

from prooftext._version import __version__
from prooftext.canonical import content_id
from prooftext.canonical import load as load_json
from prooftext.errors import ProoftextError
from prooftext.errors import set_scrubber as _set_scrubber
from prooftext.tokens import TokenCount, count

if _typing.TYPE_CHECKING:
    from prooftext.adaptive.compile import AdaptiveResult
    from prooftext.adaptive.ladder import Ladder
    from prooftext.api.memory import DepthReport, depth_report, recall_memory
    from prooftext.api.ranges import read_range
    from prooftext.api.repomap import repository_map
    from prooftext.api.risk import risk_of_changing
    from prooftext.api.stores import fsck, memory_export, memory_import
    from prooftext.api.turns import Conversation, Reply, check_turn, index_retriever_for, turn_plan
    from prooftext.artifacts.byte_query import byte_query as artifact_query
    from prooftext.artifacts.fsck import FsckReport
    from prooftext.artifacts.lifecycle import Published
    from prooftext.artifacts.lifecycle import run_compact as context_compact
    from prooftext.artifacts.lifecycle import run_compare as context_compare
    from prooftext.artifacts.lifecycle import run_index as context_index
    from prooftext.artifacts.lifecycle import run_manifest as context_manifest
    from prooftext.artifacts.lifecycle import run_propose as context_propose
    from prooftext.artifacts.lifecycle import run_quality as context_quality
    from prooftext.artifacts.lifecycle import run_query as context_query
    from prooftext.artifacts.lifecycle import run_select as context_select
    from prooftext.artifacts.lifecycle import run_snapshot as context_snapshot
    from prooftext.artifacts.lifecycle import run_validate as context_validate
    from prooftext.conversation.turn import TurnPlan, TurnRequest
    from prooftext.corpus.model import Exclusion
    from prooftext.depth.policy import parse_mode
    from prooftext.eval.common import RunOptions
    from prooftext.eval.model import ModelSettings
    from prooftext.eval.run import EvalReport, evaluate
    from prooftext.eval.runs import DepthRun, LocomoRun, QualityBar, SwebenchRun
    from prooftext.index import Index, IndexStatus, reset_index, verify
    from prooftext.index import open_index as open
    from prooftext.llm.backends import ChatBackend, make_backend
    from prooftext.llm.signal import SignalReport
    from prooftext.memory.store import MemoryRecord, MemoryStore
    from prooftext.pack.packet import Packet
    from prooftext.pack.repomap import MapSettings, RepositoryMap
    from prooftext.pack.signing import SigningKey, sign
    from prooftext.pack.verify import VerifyReport
    from prooftext.schema_registry import check_params, load_schema, result_problems
    from prooftext.select.policy import RankingPolicy
    from prooftext.select.query import Query
    from prooftext.store.refresh import RefreshReport
    from prooftext.workers import start_every_worker, watch_parent

_LAZY: dict[str, tuple[str, str]] = {
    "AdaptiveResult": ("prooftext.adaptive.compile", "AdaptiveResult"),
    "ChatBackend": ("prooftext.llm.backends", "ChatBackend"),
    "Conversation": ("prooftext.api.turns", "Conversation"),
    "DepthReport": ("prooftext.api.memory", "DepthReport"),
    "DepthRun": ("prooftext.eval.runs", "DepthRun"),
    "EvalReport": ("prooftext.eval.run", "EvalReport"),
    "Exclusion": ("prooftext.corpus.model", "Exclusion"),
    "FsckReport": ("prooftext.artifacts.fsck", "FsckReport"),
    "Index": ("prooftext.index", "Index"),
    "IndexStatus": ("prooftext.index", "IndexStatus"),
    "Ladder": ("prooftext.adaptive.ladder", "Ladder"),
    "LocomoRun": ("prooftext.eval.runs", "LocomoRun"),
    "MapSettings": ("prooftext.pack.repomap", "MapSettings"),
    "MemoryRecord": ("prooftext.memory.store", "MemoryRecord"),
    "ModelSettings": ("prooftext.eval.model", "ModelSettings"),
    "MemoryStore": ("prooftext.memory.store", "MemoryStore"),
    "Packet": ("prooftext.pack.packet", "Packet"),
    "Published": ("prooftext.artifacts.lifecycle", "Published"),
    "QualityBar": ("prooftext.eval.runs", "QualityBar"),
    "Query": ("prooftext.select.query", "Query"),
    "RankingPolicy": ("prooftext.select.policy", "RankingPolicy"),
    "RefreshReport": ("prooftext.store.refresh", "RefreshReport"),
    "RepositoryMap": ("prooftext.pack.repomap", "RepositoryMap"),
    "Reply": ("prooftext.api.turns", "Reply"),
    "RunOptions": ("prooftext.eval.common", "RunOptions"),
    "SignalReport": ("prooftext.llm.signal", "SignalReport"),
    "SigningKey": ("prooftext.pack.signing", "SigningKey"),
    "SwebenchRun": ("prooftext.eval.runs", "SwebenchRun"),
    "TurnPlan": ("prooftext.conversation.turn", "TurnPlan"),
    "TurnRequest": ("prooftext.conversation.turn", "TurnRequest"),
    "VerifyReport": ("prooftext.pack.verify", "VerifyReport"),
    "artifact_query": ("prooftext.artifacts.byte_query", "byte_query"),
    "check_params": ("prooftext.schema_registry", "check_params"),
    "check_turn": ("prooftext.api.turns", "check_turn"),
    "context_compact": ("prooftext.artifacts.lifecycle", "run_compact"),
    "context_compare": ("prooftext.artifacts.lifecycle", "run_compare"),
    "context_index": ("prooftext.artifacts.lifecycle", "run_index"),
    "context_manifest": ("prooftext.artifacts.lifecycle", "run_manifest"),
    "context_propose": ("prooftext.artifacts.lifecycle", "run_propose"),
    "context_quality": ("prooftext.artifacts.lifecycle", "run_quality"),
    "context_query": ("prooftext.artifacts.lifecycle", "run_query"),
    "context_select": ("prooftext.artifacts.lifecycle", "run_select"),
    "context_snapshot": ("prooftext.artifacts.lifecycle", "run_snapshot"),
    "context_validate": ("prooftext.artifacts.lifecycle", "run_validate"),
    "depth_report": ("prooftext.api.memory", "depth_report"),
    "evaluate": ("prooftext.eval.run", "evaluate"),
    "fsck": ("prooftext.api.stores", "fsck"),
    "index_retriever_for": ("prooftext.api.turns", "index_retriever_for"),
    "load_schema": ("prooftext.schema_registry", "load_schema"),
    "make_backend": ("prooftext.llm.backends", "make_backend"),
    "memory_export": ("prooftext.api.stores", "memory_export"),
    "memory_import": ("prooftext.api.stores", "memory_import"),
    "open": ("prooftext.index", "open_index"),
    "parse_mode": ("prooftext.depth.policy", "parse_mode"),
    "read_range": ("prooftext.api.ranges", "read_range"),
    "recall_memory": ("prooftext.api.memory", "recall_memory"),
    "repository_map": ("prooftext.api.repomap", "repository_map"),
    "reset_index": ("prooftext.index", "reset_index"),
    "result_problems": ("prooftext.schema_registry", "result_problems"),
    "risk_of_changing": ("prooftext.api.risk", "risk_of_changing"),
    "sign": ("prooftext.pack.signing", "sign"),
    "start_every_worker": ("prooftext.workers", "start_every_worker"),
    "turn_plan": ("prooftext.api.turns", "turn_plan"),
    "verify": ("prooftext.index", "verify"),
    "visible_text": ("prooftext.pack.render", "visible"),
    "watch_parent": ("prooftext.workers", "watch_parent"),
}
"""Public names loaded on first use: the module and attribute each one is."""


def _redact(text: str) -> str:
    """Every credential in an error message redacted (loaded on the first error, not on import)."""
    from prooftext.corpus.secrets import redact_text

    return redact_text(text)


_set_scrubber(_redact)


def __getattr__(name: str) -> _typing.Any:
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'prooftext' has no attribute {name!r}")
    value = getattr(_importlib.import_module(target[0]), target[1])
    globals()[name] = value
    return value


__all__ = [
    "AdaptiveResult",
    "ChatBackend",
    "Conversation",
    "DepthReport",
    "DepthRun",
    "EvalReport",
    "Exclusion",
    "FsckReport",
    "Index",
    "IndexStatus",
    "Ladder",
    "LocomoRun",
    "MapSettings",
    "MemoryRecord",
    "MemoryStore",
    "ModelSettings",
    "Packet",
    "ProoftextError",
    "Published",
    "QualityBar",
    "Query",
    "RankingPolicy",
    "RefreshReport",
    "Reply",
    "RepositoryMap",
    "RunOptions",
    "SignalReport",
    "SigningKey",
    "SwebenchRun",
    "TokenCount",
    "TurnPlan",
    "TurnRequest",
    "VerifyReport",
    "__version__",
    "artifact_query",
    "check_params",
    "check_turn",
    "content_id",
    "context_compact",
    "context_compare",
    "context_index",
    "context_manifest",
    "context_propose",
    "context_quality",
    "context_query",
    "context_select",
    "context_snapshot",
    "context_validate",
    "count",
    "depth_report",
    "evaluate",
    "fsck",
    "index_retriever_for",
    "load_json",
    "load_schema",
    "make_backend",
    "memory_export",
    "memory_import",
    "open",
    "parse_mode",
    "read_range",
    "recall_memory",
    "repository_map",
    "reset_index",
    "result_problems",
    "risk_of_changing",
    "sign",
    "start_every_worker",
    "turn_plan",
    "verify",
    "visible_text",
    "watch_parent",
]
