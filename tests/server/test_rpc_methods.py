"""Every served method: a real call on the sample repository, its result checked against its published schema
(the dispatcher validates results; a departure would be an internal error), and the schemas' drift tests."""

from __future__ import annotations

import inspect
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from prooftext import Ladder, Query
from prooftext.adaptive import ladder
from prooftext.corpus.model import SENSITIVITIES
from prooftext.depth.policy import Mode
from prooftext.errors import RangeError, RequestError
from prooftext.index import Index
from prooftext.memory.store import KINDS, STATUSES
from prooftext.pack.render import FORMATS
from prooftext.schema_registry import check_params, load_schema, schema_names
from prooftext.select.query import MAX_QUERY_CHARS
from prooftext.server.context import Coalesced, ServerContext
from prooftext.server.methods import METHODS
from prooftext.tokens import TOKENIZERS

Call = Callable[..., Any]

EXPECTED_METHODS = {
    "context.adaptive",
    "context.pack",
    "context.select",
    "context.verify",
    "context.risk",
    "context.map",
    "context.read",
    "context.search",
    "index.refresh",
    "index.status",
    "memory.add",
    "memory.list",
    "memory.surface",
    "depth.classify",
    "turn.plan",
    "server.info",
}


def result(reply: dict[str, Any]) -> Any:
    assert "result" in reply, reply
    return reply["result"]


def test_the_method_table_is_the_issue_list_plus_risk_read_and_search() -> None:
    assert set(METHODS) == EXPECTED_METHODS


def test_every_method_publishes_params_and_result_schemas_and_nothing_else_is_published() -> None:
    published = {n for n in schema_names() if n.startswith("rpc-")}
    expected = {m.params_schema for m in METHODS.values()} | {m.result_schema for m in METHODS.values()}
    assert published == expected
    for name in published:
        assert load_schema(name)["$id"].startswith("urn:prooftext:rpc:")


def _param(method: str, name: str) -> dict[str, Any]:
    props: dict[str, Any] = load_schema(METHODS[method].params_schema)["properties"]
    return dict(props[name])


def test_schema_defaults_are_the_python_defaults() -> None:
    ladder_defaults, query_defaults = Ladder(), Query("")
    for name in (
        "min_tokens",
        "max_tokens",
        "token_step",
        "min_nodes",
        "max_nodes",
        "node_step",
        "min_coverage_bps",
        "min_evidence",
        "min_top_files",
    ):
        assert _param("context.adaptive", name)["default"] == getattr(ladder_defaults, name)
    assert _param("context.adaptive", "min_top_files")["maximum"] == ladder.MAX_TOP_FILES
    for name in ("max_tokens", "max_nodes", "max_depth", "clearance", "tokenizer", "unit"):
        assert _param("context.pack", name)["default"] == getattr(query_defaults, name)
    assert (
        _param("context.pack", "format")["default"]
        == inspect.signature(Index.pack).parameters["format"].default
    )


def test_schema_enumerations_are_the_python_ones() -> None:
    assert set(_param("context.pack", "tokenizer")["enum"]) == set(TOKENIZERS)
    assert set(_param("context.pack", "format")["enum"]) == set(FORMATS)
    assert set(_param("context.pack", "clearance")["enum"]) == set(SENSITIVITIES)
    assert set(_param("memory.add", "kind")["enum"]) == set(KINDS)
    assert set(_param("memory.list", "status")["enum"]) == set(STATUSES)
    assert set(_param("turn.plan", "mode")["enum"]) == {m.value for m in Mode}


def test_context_adaptive_returns_the_adaptive_artifact_whose_prompt_is_for_the_model(call: Call) -> None:
    out = result(call("context.adaptive", {"query": "separability matrix of a compound model"}))
    assert out["schema"] == "prooftext.adaptive-context/v1"
    assert out["stop_reason"] in {"estimated_sufficient", "candidate_exhausted", "hard_limit_reached"}
    assert "separability_matrix" in out["packet"]["prompt"]
    assert out["rounds"] and out["packet"]["trace"]


def test_positional_and_named_params_give_the_same_packet(call: Call) -> None:
    named = result(call("context.pack", {"query": "slugify words", "max_tokens": 3000}))
    positional = result(call("context.pack", ["slugify words", 3000]))
    assert named == positional
    assert named["prompt_tokens"]["count"] <= 3000


def test_context_select_ranks_candidates(call: Call) -> None:
    out = result(call("context.select", {"query": "slugify", "limit": 3}))
    assert 1 <= len(out["candidates"]) <= 3
    assert out["candidates"][0]["path"] == "util/strings.py"


def test_context_verify_accepts_a_packet_or_an_adaptive_result(call: Call) -> None:
    adaptive = result(call("context.adaptive", {"query": "separability matrix"}))
    assert result(call("context.verify", {"packet": adaptive}))["ok"] is True
    assert result(call("context.verify", {"packet": adaptive["packet"]}))["ok"] is True


def test_context_verify_reports_a_drifted_source(call: Call, sample_repo: Path) -> None:
    packet = result(call("context.pack", {"query": "slugify"}))
    (sample_repo / "util" / "strings.py").write_text("def slugify(text):\n    return text\n")
    report = result(call("context.verify", {"packet": packet}))
    assert report["ok"] is False and report["status"] & 2


def test_context_risk_lists_dependents_files_and_covering_memory(call: Call) -> None:
    result(call("memory.add", {"kind": "decision", "text": "separability_matrix stays a pure function"}))
    result(
        call("memory.add", {"kind": "constraint", "strength": "hard", "text": "Never change slugify output"})
    )
    out = result(call("context.risk", {"targets": ["separability_matrix"]}))
    via = {(d["qualname"], d["via"]) for d in out["dependents"]}
    assert ("CompoundModel.separable", "references separability_matrix") in via
    assert ("is_separable", "references separability_matrix") in via
    assert out["files_affected"] == ["modeling/core.py", "modeling/separable.py"]
    assert [d["text"] for d in out["decisions"]] == ["separability_matrix stays a pure function"]
    assert out["constraints"] == [] and out["unresolved"] == []


def test_context_risk_follows_imports_of_a_file_and_reports_unknown_targets(call: Call) -> None:
    out = result(call("context.risk", {"targets": ["modeling/separable.py", "no_such_symbol"], "depth": 2}))
    assert {
        "path": "modeling/core.py",
        "via": "imports modeling/separable.py",
        "distance": 1,
    }.items() <= next(d for d in out["dependents"] if d["via"].startswith("imports")).items()
    assert out["unresolved"] == ["no_such_symbol"]
    directory = result(call("context.risk", {"targets": ["util"]}))
    assert directory["targets"][0]["kind"] == "directory"


def test_index_refresh_and_status(call: Call, sample_repo: Path) -> None:
    (sample_repo / "util" / "more.py").write_text("def extra():\n    return 1\n")
    status = result(call("index.status"))
    assert status == {**status, "added": 1, "fresh": False}
    refreshed = result(call("index.refresh"))
    assert refreshed["files_indexed"] == 1
    assert result(call("index.status"))["fresh"] is True


def test_memory_add_list_and_surface(call: Call) -> None:
    added = result(
        call("memory.add", {"kind": "constraint", "strength": "soft", "text": "Prefer numpy arrays"})
    )
    assert added["record"]["source"] == "rpc" and added["record"]["status"] == "active"
    listed = result(call("memory.list", {"kind": "constraint"}))
    assert [r["text"] for r in listed["records"]] == ["Prefer numpy arrays"]
    task = "should we keep numpy arrays in separability_matrix?"
    surfaced = result(call("memory.surface", {"task": task}))
    assert surfaced["recall"] is True  # a word of a memory record: the tier's gate searches memory
    assert surfaced["push"]["decided_by"] == "tier" and surfaced["push"]["push"]
    assert [i["text"] for i in surfaced["items"]] == ["Prefer numpy arrays"]
    quiet = result(call("memory.surface", {"task": "sounds good to me"}))  # no recall signal, relevant
    assert quiet["recall"] is False and quiet["items"] == [] and quiet["push"]["decided_by"] == "trigger"
    off_topic = [{"kind": "user", "text": f"Lunch on day {i} was soup and bread."} for i in range(6)]
    pushed = result(call("memory.surface", {"task": "sounds good to me", "context": off_topic}))
    assert pushed["push"] == {
        "decided_by": "trigger",
        "push": True,
        "reason": "proactive push: the trigger fired (low_relevant_ratio)",
    }
    assert [i["text"] for i in pushed["items"]] == ["Prefer numpy arrays"]


def test_memory_surface_never_searches_for_a_greeting(call: Call) -> None:
    out = result(call("memory.surface", {"task": "hi"}))
    assert out["recall"] is False and out["items"] == [] and out["select"] is None
    assert out["gate"]["tier"] == "surface"


def test_depth_classify(call: Call) -> None:
    assert result(call("depth.classify", ["thanks!"]))["decision"]["tier"] == "surface"
    deep = result(call("depth.classify", {"text": "please analyze this", "attachment": True}))
    assert deep["decision"]["tier"] == "deep"


def test_turn_plan_is_a_dry_run_with_retrieval_over_the_open_index(call: Call) -> None:
    out = result(call("turn.plan", {"text": "how is separability_matrix computed?", "thread": "t1"}))
    assert out["dry_run"] is True and out["thread"] == {
        "exists": False,
        "identity_kept": False,
        "name": "t1",
        "note": "new thread: no history",
    }
    steps = {s["name"]: s for s in out["plan"]["steps"]}
    assert steps["retrieval"]["ran"] is True
    assert result(call("turn.plan", ["hi"]))["plan"]["tier"] == "surface"


def test_turn_plan_and_memory_surface_name_the_window_alike(call: Call) -> None:
    for method in ("turn.plan", "memory.surface"):
        assert "window_tokens" in load_schema(METHODS[method].params_schema)["properties"], method
    planned = result(call("turn.plan", {"text": "hi", "window_tokens": 4096}))
    assert planned["plan"]["window"]["count"] == 4096
    refused = call("turn.plan", {"text": "hi", "window": 4096})  # the old name is gone, not an alias
    assert refused["error"]["code"] == -32602, refused
    small = call("turn.plan", {"text": "hi", "window_tokens": 5})
    assert small["error"]["data"]["field"] == "window_tokens", small


def test_server_info(call: Call, ctx: ServerContext) -> None:
    info = result(call("server.info"))
    assert info["root"] == str(ctx.root) and info["jsonrpc"] == "2.0"
    assert set(info["methods"]) == EXPECTED_METHODS
    assert info["index"]["fresh"] is True and info["limits"]["max_batch"] == ctx.limits.max_batch
    assert info["freshness_check"]["mode"] == ("watch" if sys.platform.startswith("linux") else "walk")


def test_an_edit_between_two_calls_is_seen_by_the_second(call: Call, ctx: ServerContext) -> None:
    assert result(call("index.status"))["fresh"] is True
    target = sorted(ctx.root.rglob("*.py"))[0]
    target.write_text(target.read_text(encoding="utf-8") + "\nEDITED = 1\n", encoding="utf-8")
    status = result(call("index.status"))
    assert status["fresh"] is False and status["changed"] == 1


def test_coalesced_gives_every_caller_a_run_that_started_after_it_arrived() -> None:
    started: list[float] = []
    gate = threading.Event()

    def slow() -> int:
        started.append(time.monotonic())
        gate.wait(5)
        return len(started)

    shared = Coalesced(slow)
    arrivals: list[float] = []
    results: list[int] = []

    def caller() -> None:
        arrivals.append(time.monotonic())
        results.append(shared())

    first = threading.Thread(target=caller)
    first.start()
    while not started:
        time.sleep(0.001)
    late = [threading.Thread(target=caller) for _ in range(5)]
    for t in late:
        t.start()
    while len(arrivals) < 6:
        time.sleep(0.001)
    gate.set()
    for t in [first, *late]:
        t.join(5)
    assert sorted(results) == [1, 2, 2, 2, 2, 2]
    assert len(started) == 2 and all(a <= started[1] for a in arrivals)


@pytest.mark.parametrize(
    ("params", "said"),
    [
        ({"query": "x", "limit": None}, 'limit: null is not of type "integer"'),
        ({"query": "x", "limit": True}, 'limit: true is not of type "integer"'),
        ({"query": "x", "limit": [1]}, 'limit: an array is not of type "integer"'),
    ],
)
def test_a_value_of_the_wrong_type_is_named_as_json_spells_it(params: dict[str, object], said: str) -> None:
    with pytest.raises(RequestError) as caught:
        check_params("rpc-context.search.params.schema.json", params)
    assert caught.value.message == f"invalid params: {said}" and caught.value.field == "limit"


@pytest.mark.parametrize("method", ["context.adaptive", "context.pack", "context.search", "context.select"])
def test_every_query_param_states_the_length_a_query_may_have(method: str) -> None:
    assert _param(method, "query")["maxLength"] == MAX_QUERY_CHARS


def test_a_text_that_is_too_long_is_refused_by_its_length_without_being_quoted() -> None:
    with pytest.raises(RangeError) as caught:
        check_params("rpc-context.search.params.schema.json", {"query": "q" * (MAX_QUERY_CHARS + 1)})
    said = (
        f"invalid params: query: a text of {MAX_QUERY_CHARS + 1} characters is longer than {MAX_QUERY_CHARS}"
    )
    assert (caught.value.message, caught.value.field) == (said, "query")
