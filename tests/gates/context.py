"""The context integrity gate: ``PYTHONPATH=tests python -m gates.context`` (from a source checkout)
prints one line per check, then ``PASS: CONTEXT-INTEGRITY`` as its last line.

It checks the eight shipped schemas against the typed models, runs the whole lifecycle on a fresh synthetic
fixture through the production command paths (exclusive publication included), validates every artifact,
checks exact reindexing, deterministic selection, snapshot re-observation, compaction, quality
reproduction, the no-aggregate rule and tamper detection, and then executes the success and fail-closed
paths of seven evaluation scenarios. Observations are compared with the checked-in expectations in
:mod:`gates.expectations`; a stored flag is never accepted as evidence by itself.
"""

from __future__ import annotations

import copy
import json
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from gates import fixture
from gates.expectations import EXPECTED
from prooftext import canonical
from prooftext.artifacts import lifecycle as lc
from prooftext.artifacts.loader import parse_value, schema_file
from prooftext.artifacts.models import MODELS, QUALITY_FIELDS
from prooftext.artifacts.query import byte_query
from prooftext.artifacts.schema_gen import drifted
from prooftext.errors import ProoftextError
from prooftext.schema_registry import load_schema

PASS_LINE = "PASS: CONTEXT-INTEGRITY"
FAIL_LINE = "FAIL: CONTEXT-INTEGRITY"
QUERY_TEXT = "How does charge reject a request over the budget? Is the release approval hard?"
OUTPUT_DIR = ".prooftext/context"
ENVELOPE_FIELDS = (
    "schema_version",
    "artifact_type",
    "artifact_id",
    "graph_id",
    "snapshot_id",
    "candidate",
    "sensitivity",
)
FORBIDDEN_WORDS = ("score", "aggregate")
STALE_AS_OF = "2030-01-01T00:00:00Z"
WINDOW = {
    "observed_at": "2024-06-01T00:00:00Z",
    "valid_from": "2024-01-01T00:00:00Z",
    "valid_until": "2024-12-31T23:59:59Z",
}


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str = ""


@dataclass
class GateResult:
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c.ok for c in self.checks)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "result": PASS_LINE if self.ok else FAIL_LINE,
            "checks": [{"name": c.name, "ok": c.ok, "detail": c.detail} for c in self.checks],
        }


def observe(action: Callable[[], object]) -> str:
    """``pass`` when the action succeeds, else the stable code of the error it raised."""
    try:
        action()
    except ProoftextError as exc:
        return exc.code
    return "pass"


# --- workspace -----------------------------------------------------------------------------------------


@dataclass
class Run:
    """One fresh fixture repository and owner root with the standard lifecycle outputs."""

    repo: Path
    owner: Path

    @classmethod
    def fresh(cls, base: Path, name: str) -> Run:
        return cls(fixture.write_repository(base / name / "repo"), fixture.write_owner(base / name / "owner"))

    def clone(self, base: Path, name: str) -> Run:
        """A copy of this run's roots and outputs (the outputs stay valid: they hold no absolute root)."""
        copy = Run(base / name / "repo", base / name / "owner")
        shutil.copytree(self.repo, copy.repo, symlinks=True)
        shutil.copytree(self.owner, copy.owner, symlinks=True)
        return copy

    def out(self, name: str) -> Path:
        return self.repo / OUTPUT_DIR / f"{name}.json"

    def manifest(self, name: str = "manifest", required: tuple[str, ...] = ()) -> Path:
        lc.run_manifest(
            self.repo, self.out(name), None, list(required), self.owner, sorted(fixture.OWNER_FILES)
        )
        return self.out(name)

    def graph(self, name: str = "graph", manifest: str = "manifest") -> Path:
        lc.run_index(self.out(manifest), self.repo, self.owner, self.out(name))
        return self.out(name)

    def query(self, name: str = "query", **limits: Any) -> Path:
        lc.run_query(self.out("graph"), byte_query(QUERY_TEXT, **limits), self.out(name))
        return self.out(name)

    def select(self, name: str = "selection", query: str = "query") -> Path:
        lc.run_select(self.out("graph"), self.out(query), self.out(name))
        return self.out(name)

    def snapshot(self, name: str = "snapshot", selection: str = "selection", owner: bool = True) -> Path:
        lc.run_snapshot(
            self.out("graph"), self.out(selection), self.repo, self.owner if owner else None, self.out(name)
        )
        return self.out(name)

    def value(self, name: str) -> Any:
        return canonical.load(self.out(name).read_bytes())

    def write_value(self, name: str, value: dict[str, Any]) -> Path:
        self.out(name).write_bytes(canonical.encode(canonical.with_artifact_id(value)))
        return self.out(name)

    def standard(self, **limits: Any) -> Run:
        self.manifest()
        self.graph()
        self.query(**limits)
        self.select()
        return self


def node_of(run: Run, path: str, kind: str = "file") -> str:
    graph = run.value("graph")
    return str(next(n["node_id"] for n in graph["nodes"] if n["path"] == path and n["kind"] == kind))


# --- schema and lifecycle checks -----------------------------------------------------------------------


def schema_checks() -> Iterator[Check]:
    for artifact_type in MODELS:
        name = schema_file(artifact_type)
        try:
            Draft202012Validator.check_schema(load_schema(name))
            yield Check(f"schema {name}", True)
        except Exception as exc:  # a broken shipped schema, whatever the cause, fails the gate
            yield Check(f"schema {name}", False, type(exc).__name__)
    stale = drifted()
    yield Check("schemas match the typed models", not stale, ", ".join(stale))


def _claims(run: Run, snapshot: dict[str, Any], decision_source: str) -> Path:
    extract = next(e for e in snapshot["extracts"] if e["path"] == decision_source)
    path = run.repo / OUTPUT_DIR / f"claims-{decision_source.replace('/', '-')}.json"
    claims = [
        {"text": "Requests over budget are rejected.", "decision": "must", "links": [extract["node_id"]]}
    ]
    path.write_text(json.dumps(claims), encoding="utf-8")
    return path


def _no_aggregate(report: dict[str, Any]) -> bool:
    keys = set(report)
    expected = {*ENVELOPE_FIELDS, *QUALITY_FIELDS}
    return keys == expected and not any(word in key for key in keys for word in FORBIDDEN_WORDS)


def _tamper_rejected(run: Run) -> str:
    graph = copy.deepcopy(run.value("graph"))
    graph["nodes"][0]["text"] += " "
    return observe(lambda: parse_value(canonical.with_artifact_id(graph)))


def lifecycle_checks(base: Path, origin: Run) -> Iterator[Check]:
    run = origin.clone(base, "lifecycle")
    snapshot_path = run.snapshot()
    snapshot = run.value("snapshot")
    claims = _claims(run, snapshot, fixture.DECISION)
    lc.run_propose(snapshot_path, claims, run.out("proposal"))
    lc.run_compact(snapshot_path, run.repo, run.owner, run.out("compaction"), run.out("proposal"))
    lc.run_quality(run.out("graph"), snapshot_path, run.out("quality"))
    names = ("manifest", "graph", "query", "selection", "snapshot", "proposal", "compaction", "quality")
    for name in names:
        yield Check(f"validate {name}", observe(partial(lc.run_validate, run.out(name))) == "pass")
    yield Check("every artifact type produced", {run.value(n)["artifact_type"] for n in names} == set(MODELS))
    compaction = run.value("compaction")
    summary = compaction["host_summary"]
    yield Check(
        "host summary adopted as untrusted-proposal without decision authority",
        summary["authority"] == "untrusted-proposal" and summary["decision_authority"] is False,
    )
    yield Check(
        "compaction keeps every required extract",
        all(
            any(r["node_id"] == e["node_id"] for r in compaction["retained"])
            for e in snapshot["extracts"]
            if e["required"]
        ),
    )
    yield Check(
        "quality report has exactly the seed's fields, no aggregate", _no_aggregate(run.value("quality"))
    )
    yield Check(
        "compare of a snapshot with itself is identical",
        lc.run_compare(snapshot_path, snapshot_path)["identical"],
    )
    yield Check("tampered node is rejected", _tamper_rejected(run) == "artifact_id_mismatch")
    yield from host_summary_checks(run, snapshot_path)


def host_summary_checks(run: Run, snapshot_path: Path) -> Iterator[Check]:
    proposal = run.value("proposal")
    higher = {**proposal, "authority": "owner-approved"}
    yield Check(
        "a higher label on a proposal is rejected",
        observe(lambda: parse_value(canonical.with_artifact_id(higher))) == "authority_invalid",
    )
    claims = _claims(run, run.value("snapshot"), fixture.DRAFT)
    lc.run_propose(snapshot_path, claims, run.out("proposal-untrusted"))
    outcome = observe(
        lambda: lc.run_compact(
            snapshot_path, run.repo, run.owner, run.out("c2"), run.out("proposal-untrusted")
        )
    )
    yield Check(
        "a decision resting on untrusted text alone is rejected", outcome == "authority_invalid", outcome
    )


# --- the seven scenarios -------------------------------------------------------------------------------


def exact_reindex(base: Path, origin: Run) -> dict[str, str]:
    run = origin.clone(base, "reindex")
    run.graph("graph-again")
    run.select("selection-again")
    snapshot = run.snapshot()
    lc.run_quality(run.out("graph"), snapshot, run.out("q1"))
    lc.run_quality(run.out("graph"), snapshot, run.out("q2"))

    def same(a: str, b: str) -> str:
        return "identical" if run.out(a).read_bytes() == run.out(b).read_bytes() else "differs"

    return {
        "reindex": same("graph", "graph-again"),
        "reselect": same("selection", "selection-again"),
        "requality": same("q1", "q2"),
        "rehashed_graph": _tamper_rejected(run),
    }


def deterministic_selection(base: Path, origin: Run) -> dict[str, str]:
    """A well-formed selection whose node order was changed (and id recomputed) is not the selector's."""
    run = origin.clone(base, "replay")
    value = run.value("selection")
    value["nodes"].insert(1, value["nodes"].pop())
    run.write_value("tampered", {k: v for k, v in value.items() if k != "artifact_id"})
    return {
        "replay": observe(run.snapshot),
        "tampered_selection": observe(lambda: run.snapshot("snap-tampered", "tampered")),
    }


def candidate_binding(base: Path, origin: Run) -> dict[str, str]:
    run = origin.clone(base, "candidate")
    inside = observe(lambda: lc.run_index(run.out("manifest"), run.repo, run.owner, run.repo / "g.json"))
    lc.run_select(run.out("graph"), run.out("query"), run.repo / "selection.json")
    later = observe(run.snapshot)
    changed = origin.clone(base, "candidate-changed")
    unchanged = observe(lambda: changed.graph("graph-again"))
    ignored = observe(
        lambda: lc.run_index(
            changed.out("manifest"), changed.repo, changed.owner, changed.repo / "out/g.json"
        )
    )
    (changed.repo / fixture.LEDGER).write_text("def charge():\n    pass\n", encoding="utf-8")
    return {
        "unchanged_candidate": unchanged,
        "ignored_output": ignored,
        "changed_source": observe(lambda: changed.graph("graph-after-change")),
        "output_inside_candidate": inside,
        "later_operation_after_output_in_candidate": later,
    }


def _stale_required(base: Path) -> str:
    run = Run.fresh(base, "stale")
    run.manifest()
    value = run.value("manifest")
    for source in value["sources"]:
        if source["locator"]["path"] == fixture.OWNER_DRAFT:
            source.update({"freshness": "expires-at", "expires": WINDOW, "required": True})
    run.write_value("manifest-stale", {k: v for k, v in value.items() if k != "artifact_id"})
    run.graph(manifest="manifest-stale")
    run.query(as_of=STALE_AS_OF)
    return observe(run.select)


def required_context_blocks(base: Path, origin: Run) -> dict[str, str]:
    run = origin.clone(base, "required")
    lc.run_query(
        run.out("graph"),
        byte_query(QUERY_TEXT, required=(node_of(run, fixture.OWNER_RECORD),)),
        run.out("q-owner"),
    )
    run.select("sel-owner", "q-owner")
    fresh = observe(lambda: run.snapshot("snap-fresh", "sel-owner"))
    (run.owner / fixture.OWNER_RECORD).write_text("# Release approval\n\nRevoked.\n", encoding="utf-8")
    drifted_required = observe(lambda: run.snapshot("snap-drifted", "sel-owner"))
    secret = Run.fresh(base, "secret")
    with (secret.repo / "prooftext.toml").open("a", encoding="utf-8") as handle:
        handle.write(f'\n[[labels]]\nglob = "{fixture.LEDGER}"\nsensitivity = "secret-or-prohibited"\n')
    secret.manifest(required=(fixture.LEDGER,))
    return {
        "fresh": fresh,
        "drifted_required": drifted_required,
        "secret_required": observe(secret.graph),
        "stale_required": _stale_required(base),
    }


def _component_outcome(snapshot: dict[str, Any], members: set[str]) -> str:
    included = {e["node_id"] for e in snapshot["extracts"]} & members
    excluded = [x for x in snapshot["excluded"] if x["node_id"] in members and x["stage"] == "observation"]
    if included == members:
        return "included"
    whole = len(excluded) == len(members) and len({x["component_id"] for x in excluded}) == 1
    return "excluded_atomically" if whole and not included else "partial"


def optional_contradiction_atomic(base: Path, origin: Run) -> dict[str, str]:
    run = origin.clone(base, "atomic")
    members = {node_of(run, fixture.OWNER_RECORD), node_of(run, fixture.OWNER_DRAFT)}
    run.snapshot("intact")
    (run.owner / fixture.OWNER_DRAFT).write_text("# Draft approval\n\nChanged.\n", encoding="utf-8")
    run.snapshot("drifted")
    return {
        "intact": _component_outcome(run.value("intact"), members),
        "one_member_drifted": _component_outcome(run.value("drifted"), members),
    }


def traversal_frontier_blocks(base: Path, origin: Run) -> dict[str, str]:
    run = origin.clone(base, "traversal")
    outcomes = {}
    for name, limits in (
        ("within_bounds", {"max_depth": 8}),
        ("beyond_depth", {"max_depth": 1}),
        ("beyond_nodes", {"max_depth": 8, "max_nodes": 2}),
    ):
        run.query(f"q-{name}", **limits)
        outcomes[name] = observe(partial(run.select, f"s-{name}", f"q-{name}"))
    return outcomes


def owner_root_governance(base: Path, origin: Run) -> dict[str, str]:
    run = origin.clone(base, "owner")
    lc.run_query(run.out("graph"), byte_query(QUERY_TEXT, clearance="repository-private"), run.out("q-repo"))
    run.select("sel-repo", "q-repo")
    return {
        "with_owner_root": observe(run.snapshot),
        "without_owner_root": observe(lambda: run.snapshot("snap-no-owner", owner=False)),
        "unused_owner_root": observe(lambda: run.snapshot("snap-unused", "sel-repo")),
    }


SCENARIOS: dict[str, Callable[[Path, Run], dict[str, str]]] = {
    "exact-reindex": exact_reindex,
    "deterministic-selection": deterministic_selection,
    "candidate-binding": candidate_binding,
    "required-context-blocks": required_context_blocks,
    "optional-contradiction-atomic": optional_contradiction_atomic,
    "traversal-frontier-blocks": traversal_frontier_blocks,
    "owner-root-governance": owner_root_governance,
}


def scenario_checks(base: Path, origin: Run) -> Iterator[Check]:
    for name, scenario in SCENARIOS.items():
        try:
            observed = scenario(base, origin)
        except ProoftextError as exc:
            observed = {"error": exc.code}
        expected = EXPECTED.get(name)
        detail = json.dumps(observed, sort_keys=True)
        yield Check(f"scenario {name}", observed == expected, detail)


def _guarded(name: str, checks: Callable[[], Iterator[Check]]) -> list[Check]:
    try:
        return list(checks())
    except ProoftextError as exc:
        return [Check(name, False, f"{exc.code}: {exc.message[:200]}")]


def _guarded_run(base: Path, result: GateResult) -> Run | None:
    """The manifest → graph → query → selection run every check starts from (a copy each time)."""
    try:
        return Run.fresh(base, "origin").standard()
    except ProoftextError as exc:
        result.checks.append(Check("lifecycle origin", False, f"{exc.code}: {exc.message[:200]}"))
        return None


def run_gate() -> GateResult:
    """Every check on a fresh fixture in a temporary directory (removed afterwards)."""
    result = GateResult()
    with tempfile.TemporaryDirectory(prefix="prooftext-gate-") as tmp:
        base = Path(tmp)
        result.checks += _guarded("schemas", schema_checks)
        origin = _guarded_run(base, result)
        if origin is not None:
            result.checks += _guarded("lifecycle", lambda: lifecycle_checks(base, origin))
            result.checks += _guarded("scenarios", lambda: scenario_checks(base, origin))
    return result


def render(result: GateResult) -> str:
    """The report: one line per check, then the verdict, PASS or FAIL, as the last line (what a reader of
    the end of a log sees)."""
    lines = [
        f"{'ok  ' if c.ok else 'FAIL'} {c.name}{': ' + c.detail if c.detail and not c.ok else ''}"
        for c in result.checks
    ]
    lines.append(PASS_LINE if result.ok else FAIL_LINE)
    return "\n".join(lines) + "\n"


def main() -> int:
    result = run_gate()
    sys.stdout.write(render(result))
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
