"""``context.map`` over JSON-RPC: a map within its budget, valid against its schema, that context.verify checks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from prooftext import result_problems

Call = Callable[..., Any]


def _result(reply: dict[str, Any]) -> Any:
    assert "result" in reply, reply
    return reply["result"]


def test_context_map_returns_a_map_within_its_budget_that_validates(call: Call) -> None:
    built = _result(call("context.map", {"max_tokens": 512}))
    assert built["version"] == "prooftext.map/v1"
    assert built["prompt_tokens"]["count"] <= 512
    assert result_problems("rpc-context.map.result.schema.json", built) == []
    assert {e["path"] for e in built["entries"]} >= {"modeling/separable.py"}


def test_context_map_takes_its_query_and_budget_by_position(call: Call) -> None:
    built = _result(call("context.map", ["slugify text", 400]))
    assert built["settings"]["query"] == "slugify text"
    assert built["entries"][0]["path"] == "util/strings.py"


def test_context_map_is_personalized_by_paths_and_identifiers(call: Call) -> None:
    by_path = _result(call("context.map", {"paths": ["util/strings.py"]}))
    by_name = _result(call("context.map", {"identifiers": ["slugify"]}))
    assert by_path["entries"][0]["path"] == by_name["entries"][0]["path"] == "util/strings.py"


def test_context_verify_checks_a_map_and_reports_a_drifted_source(call: Call, sample_repo: Path) -> None:
    built = _result(call("context.map", {}))
    assert _result(call("context.verify", {"packet": built}))["ok"] is True
    (sample_repo / "modeling" / "core.py").write_text("x = 1\n", encoding="utf-8")
    report = _result(call("context.verify", {"packet": built}))
    assert report["ok"] is False and report["status"] & 2


def test_context_map_refuses_an_unknown_parameter_and_a_bad_budget(call: Call) -> None:
    assert call("context.map", {"budget": 10})["error"]["code"] == -32602
    assert call("context.map", {"max_tokens": 0})["error"]["code"] == -32602
