"""The method table: each JSON-RPC method, its published params/result schemas, and a thin handler.

Handlers only translate validated params into one call of the Python API and return its dictionary; the
core decides everything. Models receive only a packet's ``prompt``: the trace travels to the caller in the
same result, for the caller to keep out of model context.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import prooftext
from prooftext.errors import InsufficientContextError
from prooftext.server.context import ServerContext
from prooftext.server.hits import compact_hits

Handler = Callable[[ServerContext, dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Method:
    name: str
    handler: Handler
    positional: tuple[str, ...] = ()
    """Parameter names in order, for callers that send ``params`` as an array."""
    published: bool = True
    """Whether params and result are checked against ``rpc-<name>.*.schema.json`` (always, for served methods)."""
    repeatable: bool = True
    """Whether running it twice has the effect of once: a request a dead worker took down is run again only
    then (see :mod:`prooftext.server.runner`). Reads are; so is a refresh (one cut short is completed by the
    next); ``memory.add`` is not, since the dead worker may have stored the record already."""

    @property
    def params_schema(self) -> str:
        return f"rpc-{self.name}.params.schema.json"

    @property
    def result_schema(self) -> str:
        return f"rpc-{self.name}.result.schema.json"


def _fresh(ctx: ServerContext, params: dict[str, Any]) -> None:
    """One shared freshness check (coalesced across concurrent requests) unless the caller opts out."""
    if params.pop("refresh", True):
        ctx.ensure_fresh()


_LADDER_FIELDS = frozenset(f.name for f in fields(prooftext.Ladder))
_TOKENIZER = prooftext.Query("").tokenizer


def _query(params: dict[str, Any]) -> prooftext.Query:
    """The request's query: its text under ``query``, and every other query field it names."""
    text = params.pop("query")
    named: dict[str, Any] = {k: tuple(v) if k in ("required", "path_seeds") else v for k, v in params.items()}
    return prooftext.Query(text, **named)


def context_adaptive(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    _fresh(ctx, params)
    rungs = {k: params.pop(k) for k in list(params) if k in _LADDER_FIELDS}
    if "max_tokens" in rungs and "min_tokens" not in rungs:  # a small ceiling alone starts the ladder there
        rungs["min_tokens"] = min(rungs["max_tokens"], prooftext.Ladder().min_tokens)
    ladder = prooftext.Ladder(**rungs)
    options = {k: params.pop(k) for k in list(params) if k == "format"}
    require_sufficient = params.pop("require_sufficient", False)
    result = ctx.index.adaptive_pack(_query(params), ladder=ladder, refresh=False, **options)
    if require_sufficient and not result.estimated_sufficient:
        raise InsufficientContextError(
            f"the evidence estimator did not pass within max_tokens {ladder.max_tokens} "
            f"(stopped: {result.stop_reason}); raise max_tokens or narrow the query",
            stop_reason=result.stop_reason,
            max_tokens=ladder.max_tokens,
        )
    return ctx.signed(result.to_dict())


def context_pack(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    _fresh(ctx, params)
    options = {k: params.pop(k) for k in list(params) if k == "format"}
    packet = ctx.index.pack(_query(params), refresh=False, **options)
    return ctx.signed(packet.to_dict())


def context_select(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    _fresh(ctx, params)
    return {"candidates": ctx.index.search(params["query"], limit=params.get("limit", 20), refresh=False)}


def context_verify(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    return prooftext.verify(params["packet"], ctx.root, key=ctx.signing_key).to_dict()


def context_risk(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    _fresh(ctx, params)
    targets = params.pop("targets")
    return prooftext.risk_of_changing(ctx.index, targets, refresh=False, **params)


def context_map(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    _fresh(ctx, params)
    for name in ("paths", "identifiers"):
        if name in params:
            params[name] = tuple(params[name])
    settings = prooftext.MapSettings(**params)
    built = prooftext.repository_map(ctx.index, settings, refresh=False)
    return ctx.signed(built.to_dict())


def context_read(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    _fresh(ctx, params)
    return prooftext.read_range(ctx.index, params["path"], params.get("start", 1), params.get("end"))


def context_search(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    _fresh(ctx, params)
    return {"hits": compact_hits(ctx.index, params["query"], params.get("limit", 10))}


def index_refresh(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    return dict(ctx.index.refresh().to_dict())


def index_status(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    return dict(ctx.status().to_dict())


def memory_add(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    params.setdefault("source", ctx.interface)
    with prooftext.MemoryStore.open(ctx.root) as store:
        record = store.add(params.pop("kind"), params.pop("text"), **params)
    return {"record": record.to_dict()}


def memory_list(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    return {"records": [r.to_dict() for r in prooftext.MemoryStore.list_records(ctx.root, **params)]}


def memory_surface(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    renamed = {"attachment": "has_attachment"}
    kwargs = {renamed.get(k, k): v for k, v in params.items() if k != "task"}
    return prooftext.recall_memory(ctx.root, params["task"], **kwargs)


def depth_classify(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    return prooftext.depth_report(params.pop("text"), **params).to_dict()


def turn_plan(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    tokenizer = params.pop("tokenizer", _TOKENIZER)
    retriever = prooftext.index_retriever_for(ctx.index, tokenizer, before=ctx.ensure_fresh)
    turn = prooftext.TurnRequest(params.pop("thread", "main"), params.pop("text"), **params)
    return prooftext.turn_plan(ctx.root, turn, tokenizer=tokenizer, retriever=retriever, index=ctx.index)


def server_info(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    return {
        "index": ctx.status().to_dict(),
        "freshness_check": ctx.index.freshness_check,
        "jsonrpc": "2.0",
        "limits": ctx.limits.to_dict(),
        "methods": sorted(METHODS),
        "name": "prooftext",
        "root": str(ctx.root),
        "version": ctx.version,
    }


_TABLE: tuple[Method, ...] = (
    Method("context.adaptive", context_adaptive, ("query", "max_tokens")),
    Method("context.pack", context_pack, ("query", "max_tokens")),
    Method("context.select", context_select, ("query", "limit")),
    Method("context.verify", context_verify, ("packet",)),
    Method("context.risk", context_risk, ("targets", "depth")),
    Method("context.map", context_map, ("query", "max_tokens")),
    Method("context.read", context_read, ("path", "start", "end")),
    Method("context.search", context_search, ("query", "limit")),
    Method("index.refresh", index_refresh),
    Method("index.status", index_status),
    Method("memory.add", memory_add, ("kind", "text"), repeatable=False),
    Method("memory.list", memory_list, ("kind", "status")),
    Method("memory.surface", memory_surface, ("task",)),
    Method("depth.classify", depth_classify, ("text",)),
    Method("turn.plan", turn_plan, ("text", "thread")),
    Method("server.info", server_info),
)

METHODS: dict[str, Method] = {m.name: m for m in _TABLE}
