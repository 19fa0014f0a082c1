"""prooftext: compile just enough, provably genuine context for LLM applications.

``prooftext.open(root)`` returns an :class:`Index`; ``index.refresh()`` keeps it fresh incrementally,
``index.pack(...)`` compiles a packet at a fixed budget and ``index.adaptive_pack(...)`` climbs the SACP
ladder until the evidence estimator passes. Everything in ``__all__`` is the public API; the rest is
internal. Heavy parts load on first use, so ``import prooftext`` stays cheap for the command line.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from prooftext._version import __version__
from prooftext.canonical import content_id
from prooftext.canonical import load as load_json
from prooftext.errors import ProoftextError
from prooftext.tokens import TokenCount, count

if TYPE_CHECKING:
    from prooftext.adaptive.compile import AdaptiveResult
    from prooftext.adaptive.ladder import AdaptiveRequest
    from prooftext.eval.common import RunOptions
    from prooftext.eval.run import DepthRun, EvalReport, LocomoRun, QualityBar, SwebenchRun, evaluate
    from prooftext.index import Index, IndexStatus, reset_index
    from prooftext.index import open_index as open
    from prooftext.pack.packet import Packet
    from prooftext.pack.verify import VerifyReport
    from prooftext.select.query import Query
    from prooftext.store.refresh import RefreshReport


_LAZY: dict[str, tuple[str, str]] = {
    "AdaptiveRequest": ("prooftext.adaptive.ladder", "AdaptiveRequest"),
    "AdaptiveResult": ("prooftext.adaptive.compile", "AdaptiveResult"),
    "DepthRun": ("prooftext.eval.run", "DepthRun"),
    "EvalReport": ("prooftext.eval.run", "EvalReport"),
    "Index": ("prooftext.index", "Index"),
    "IndexStatus": ("prooftext.index", "IndexStatus"),
    "LocomoRun": ("prooftext.eval.run", "LocomoRun"),
    "Packet": ("prooftext.pack.packet", "Packet"),
    "Query": ("prooftext.select.query", "Query"),
    "QualityBar": ("prooftext.eval.run", "QualityBar"),
    "RefreshReport": ("prooftext.store.refresh", "RefreshReport"),
    "RunOptions": ("prooftext.eval.common", "RunOptions"),
    "SwebenchRun": ("prooftext.eval.run", "SwebenchRun"),
    "VerifyReport": ("prooftext.pack.verify", "VerifyReport"),
    "evaluate": ("prooftext.eval.run", "evaluate"),
    "check_params": ("prooftext.schema_registry", "check_params"),
    "load_schema": ("prooftext.schema_registry", "load_schema"),
    "open": ("prooftext.index", "open_index"),
    "result_problems": ("prooftext.schema_registry", "result_problems"),
    "reset_index": ("prooftext.index", "reset_index"),
    "watch_parent": ("prooftext.workers", "watch_parent"),
}


def __getattr__(name: str) -> Any:
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'prooftext' has no attribute {name!r}")
    value = getattr(importlib.import_module(target[0]), target[1])
    globals()[name] = value
    return value


__all__ = [
    "AdaptiveRequest",
    "AdaptiveResult",
    "DepthRun",
    "EvalReport",
    "Index",
    "IndexStatus",
    "LocomoRun",
    "Packet",
    "ProoftextError",
    "QualityBar",
    "Query",
    "RefreshReport",
    "RunOptions",
    "SwebenchRun",
    "TokenCount",
    "VerifyReport",
    "__version__",
    "check_params",
    "content_id",
    "count",
    "evaluate",
    "load_json",
    "load_schema",
    "open",
    "reset_index",
    "result_problems",
    "watch_parent",
]
