"""The method table: each JSON-RPC method, its published params/result schemas, and a thin handler.

Handlers only translate validated params into one call of the Python API and return its dictionary; the
core decides everything. Models receive only a packet's ``prompt``: the trace travels to the caller in the
same result, for the caller to keep out of model context.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from prooftext import api
from prooftext.errors import ArtifactError
from prooftext.pack.verify import verify_packet
from prooftext.server.context import ServerContext
from prooftext.tokens import DEFAULT_TOKENIZER

Handler = Callable[[ServerContext, dict[str, Any]], dict[str, Any]]

ADAPTIVE_SCHEMA_ID = "prooftext.adaptive-context/v1"


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


def _tuples(params: dict[str, Any], *names: str) -> dict[str, Any]:
    return {k: tuple(v) if k in names else v for k, v in params.items()}


def context_adaptive(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    _fresh(ctx, params)
    query = params.pop("query")
    result = ctx.index.adaptive_pack(query, refresh=False, **_tuples(params, "required", "path_seeds"))
    return result.to_dict()


def context_pack(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    _fresh(ctx, params)
    query = params.pop("query")
    packet = ctx.index.pack(query, refresh=False, **_tuples(params, "required", "path_seeds"))
    return packet.to_dict()


def context_select(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    _fresh(ctx, params)
    return {"candidates": ctx.index.search(params["query"], limit=params.get("limit", 20))}


def context_verify(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    packet = params["packet"]
    if packet.get("schema") == ADAPTIVE_SCHEMA_ID:
        packet = packet["packet"]
    if not isinstance(packet, dict):
        raise ArtifactError("a packet must be a JSON object", field="packet")
    return verify_packet(packet, ctx.root).to_dict()


def context_risk(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    _fresh(ctx, params)
    targets = params.pop("targets")
    return api.risk_of_changing(ctx.index, targets, **params)


def index_refresh(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    return dict(ctx.index.refresh().to_dict())


def index_status(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    return dict(ctx.status().to_dict())


def memory_add(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    params.setdefault("source", ctx.interface)
    return api.memory_add(ctx.root, params.pop("kind"), params.pop("text"), **params)


def memory_list(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    return api.memory_list(ctx.root, **params)


def memory_surface(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    renamed = {"attachment": "has_attachment"}
    kwargs = {renamed.get(k, k): v for k, v in params.items() if k != "task"}
    return api.recall_memory(ctx.root, params["task"], **kwargs)


def depth_classify(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    return api.depth_report(params.pop("text"), **params)


def turn_plan(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    basis = params.get("tokenizer", DEFAULT_TOKENIZER)
    retriever = api.index_retriever_for(ctx.index, basis, before=ctx.ensure_fresh)
    return api.turn_plan(ctx.root, params.pop("text"), retriever=retriever, **params)


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
