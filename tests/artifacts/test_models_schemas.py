"""The eight shipped schemas: Draft 2020-12, generated from the typed models, never drifting from them."""

from __future__ import annotations

from typing import Any, get_args

import pytest
from jsonschema import Draft202012Validator
from pydantic import ValidationError

from prooftext.artifacts import fields
from prooftext.artifacts.limits import ARTIFACT_MAX_BYTES, MAX_TEXT_CHARS
from prooftext.artifacts.loader import schema_file
from prooftext.artifacts.models import ARTIFACT_TYPES, Locator
from prooftext.artifacts.schema_gen import DRAFT_2020_12, drifted, generate
from prooftext.corpus.kinds import KINDS
from prooftext.corpus.model import AUTHORITIES, FRESHNESS, SENSITIVITIES
from prooftext.errors import SchemaViolationError
from prooftext.graph.model import EDGE_TYPES
from prooftext.schema_registry import load_schema, schema_names, validate_against

SEED_SCHEMAS = {
    "context-manifest.schema.json",
    "context-graph.schema.json",
    "context-query.schema.json",
    "context-selection.schema.json",
    "context-snapshot.schema.json",
    "context-compaction.schema.json",
    "context-host-summary-proposal.schema.json",
    "context-quality-report.schema.json",
}


def _defs(schema: dict[str, Any], name: str) -> dict[str, Any]:
    return dict(schema["$defs"][name]["properties"])


def test_the_eight_seed_schemas_are_shipped() -> None:
    assert {schema_file(t) for t in ARTIFACT_TYPES} == SEED_SCHEMAS
    assert set(schema_names()) >= SEED_SCHEMAS


def test_shipped_schemas_never_drift_from_the_models() -> None:
    assert drifted() == [], "run: python -m prooftext.artifacts.schema_gen"


@pytest.mark.parametrize("artifact_type", ARTIFACT_TYPES)
def test_each_schema_is_draft_2020_12_and_closed(artifact_type: str) -> None:
    schema = load_schema(schema_file(artifact_type))
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == DRAFT_2020_12
    assert schema["additionalProperties"] is False
    assert schema["properties"]["artifact_type"]["const"] == artifact_type
    assert schema["properties"]["schema_version"]["const"] == "1.0"
    assert schema["properties"]["artifact_id"]["pattern"] == "^[0-9A-F]{64}$"
    assert schema["x-max-canonical-bytes"] == ARTIFACT_MAX_BYTES[artifact_type]
    assert schema == generate(artifact_type)


def test_text_caps_are_in_the_schemas() -> None:
    graph = load_schema("context-graph.schema.json")
    assert _defs(graph, "GraphNode")["text"]["maxLength"] == MAX_TEXT_CHARS == 65_536
    snapshot = load_schema("context-snapshot.schema.json")
    assert _defs(snapshot, "Extract")["text"]["maxLength"] == MAX_TEXT_CHARS
    proposal = load_schema("context-host-summary-proposal.schema.json")
    assert _defs(proposal, "Claim")["text"]["maxLength"] == MAX_TEXT_CHARS


def test_query_limits_are_the_seeds() -> None:
    limits = _defs(load_schema("context-query.schema.json"), "QueryLimits")
    bounds = {name: (limits[name]["minimum"], limits[name]["maximum"]) for name in limits}
    assert bounds == {
        "max_bytes": (1024, 8_388_608),
        "max_nodes": (1, 4096),
        "max_edges": (0, 16_384),
        "max_depth": (0, 8),
    }


def test_label_orders_match_the_corpus() -> None:
    node = load_schema("context-graph.schema.json")["$defs"]["GraphNode"]["properties"]
    assert tuple(node["authority"]["enum"]) == AUTHORITIES
    assert tuple(node["sensitivity"]["enum"]) == SENSITIVITIES
    assert get_args(fields.Clearance) == SENSITIVITIES[:-1]
    assert tuple(node["freshness"]["enum"]) == FRESHNESS
    assert get_args(fields.SourceKind) == KINDS
    assert get_args(fields.EdgeType) == EDGE_TYPES


def test_quality_report_schema_has_no_aggregate_score() -> None:
    properties = set(load_schema("context-quality-report.schema.json")["properties"])
    assert not {p for p in properties if "score" in p or "aggregate" in p}


@pytest.mark.parametrize(
    "path",
    ["/etc/passwd", "a/../b", "../a", "a//b", "a/", "./a", "a\\b", "caf\u00e9.md", "", "a/./b"],
)
def test_portable_paths_in_schema_and_model_agree(path: str) -> None:
    locator = {"root_scope": "repository", "path": path, "sha256": "0" * 64, "line_range": [1, 0]}
    schema = load_schema("context-manifest.schema.json")
    validator = Draft202012Validator({**schema["$defs"]["Locator"], "$defs": schema["$defs"]})
    assert not validator.is_valid(locator)
    with pytest.raises(ValidationError):
        Locator.model_validate(locator)


def test_a_portable_path_is_accepted_by_both() -> None:
    locator = {"root_scope": "repository", "path": "docs/a b-1.md", "sha256": "0" * 64, "line_range": [1, 3]}
    schema = load_schema("context-manifest.schema.json")
    assert Draft202012Validator({**schema["$defs"]["Locator"], "$defs": schema["$defs"]}).is_valid(locator)
    assert Locator.model_validate(locator).path == "docs/a b-1.md"


def test_a_schema_violation_says_where_the_first_one_is_in_its_message() -> None:
    """Outside ``--json`` the message is all a user sees: a count alone would not say what to fix."""
    with pytest.raises(SchemaViolationError) as caught:
        validate_against("rpc-turn.plan.params.schema.json", {"text": "hi", "window_tokens": 0})
    assert caught.value.message.startswith("1 schema violation(s) against rpc-turn.plan.params.schema.json")
    assert caught.value.message.endswith("the first at /window_tokens: 0 is less than the minimum of 1")
