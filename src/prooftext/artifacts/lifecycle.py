"""The lifecycle commands over files: load inputs strictly, build, self-validate, publish exclusively.

Every output is encoded canonically, re-parsed with every reader check, scanned for absolute roots, and
created exclusively; commands that know the repository root refuse outputs inside the candidate and verify
the CandidateIdentity once more immediately before publication. ``validate`` and ``compare`` have no side
effects. The CLI and the context integrity gate (``tests/gates``) both call these functions.
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import prooftext.canonical as canonical
from prooftext.artifacts.compaction import build_compaction
from prooftext.artifacts.compare import compare_snapshots
from prooftext.artifacts.fsck import FsckReport, fsck
from prooftext.artifacts.indexer import build_graph, spec_source
from prooftext.artifacts.loader import encode_artifact, load_artifact, parse_artifact, read_artifact_bytes
from prooftext.artifacts.manifest import build_context_manifest
from prooftext.artifacts.models import Graph, HostSummaryProposal, Manifest, Query, Selection, Snapshot
from prooftext.artifacts.observe import Roots, require_candidate
from prooftext.artifacts.outputs import require_output_outside_candidate
from prooftext.artifacts.proposal import build_proposal
from prooftext.artifacts.publish import check_no_absolute_roots, publish_exclusive
from prooftext.artifacts.quality import build_quality_report
from prooftext.artifacts.query import build_query
from prooftext.artifacts.recheck import Recheck, recheck_sources
from prooftext.artifacts.selector import select
from prooftext.artifacts.snapshot import build_snapshot, publication_check
from prooftext.corpus.safeio import existing_directory, read_bounded
from prooftext.errors import RequestError
from prooftext.select.query import Query as SelectQuery

P = ParamSpec("P")
R = TypeVar("R")

MAX_CLAIMS_FILE_BYTES = 8 * 1024 * 1024
SUMMARY_COUNTS = ("sources", "nodes", "edges", "extracts", "excluded", "retained", "digests", "claims")


@dataclass(frozen=True)
class Published:
    artifact_type: str
    artifact_id: str
    output: Path
    size: int
    counts: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {
            "artifact_type": self.artifact_type,
            "artifact_id": self.artifact_id,
            "output": str(self.output),
            "bytes": self.size,
            "counts": self.counts,
        }


def file_arguments(*names: str, optional: tuple[str, ...] = ()) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Check the file arguments ``names`` and ``optional`` of a lifecycle function before it runs: each is a
    path (a string is taken as one), or None for an ``optional`` one; anything else is ``invalid_request``
    naming the argument. (Roots are checked as roots: a root that is not a path is ``root_invalid``.)"""

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        signature = inspect.signature(func)

        @functools.wraps(func)
        def checked(*args: P.args, **kwargs: P.kwargs) -> R:
            bound = signature.bind(*args, **kwargs)
            for name in (*names, *optional):
                if name in bound.arguments:
                    value = bound.arguments[name]
                    bound.arguments[name] = _file_path(value, name, name in optional)
            return func(*bound.args, **bound.kwargs)

        return checked

    return decorate


def _file_path(value: object, name: str, optional: bool) -> Path | None:
    if value is None and optional:
        return None
    if not isinstance(value, (str, os.PathLike)) or not isinstance(os.fspath(value), str):
        raise RequestError(f"{name} must be a path, not {type(value).__name__}", field=name)
    return Path(value)


def explicit_root(path: Path, what: str) -> Path:
    """An existing directory given on the command line, made absolute (never serialized)."""
    return existing_directory(path, what)


def roots_of(repository: Path, owner: Path | None, what: str = "--repository-root") -> Roots:
    return Roots(
        explicit_root(repository, what),
        explicit_root(owner, "--owner-root") if owner is not None else None,
    )


def publish_artifact(
    artifact: dict[str, Any],
    output: Path,
    roots: Roots | None = None,
    final_check: Callable[[], None] | None = None,
) -> Published:
    data = encode_artifact(artifact)
    if roots is not None:
        check_no_absolute_roots(data, roots.absolute_forms())
    publish_exclusive(output, data, before=final_check)
    counts = {key: len(artifact[key]) for key in SUMMARY_COUNTS if isinstance(artifact.get(key), list)}
    return Published(artifact["artifact_type"], artifact["artifact_id"], output, len(data), counts)


def _candidate_check(artifact: dict[str, Any], roots: Roots) -> Callable[[], None]:
    return lambda: publication_check(artifact, roots)


@file_arguments("output")
def run_manifest(
    root: Path,
    output: Path,
    specification: str | None,
    required: list[str],
    owner_root: Path | None = None,
    owner_sources: list[str] | None = None,
) -> Published:
    roots = roots_of(root, owner_root, "ROOT")
    require_output_outside_candidate(roots.repository, output)
    artifact = build_context_manifest(roots, specification, required, owner_sources or [])
    manifest = Manifest.model_validate(artifact)
    spec = spec_source(manifest.sources).locator.path
    return publish_artifact(
        artifact, output, roots, lambda: require_candidate(manifest.candidate, roots.repository, spec)
    )


@file_arguments("manifest_path", "output")
def run_index(manifest_path: Path, repository: Path, owner: Path | None, output: Path) -> Published:
    roots = roots_of(repository, owner)
    require_output_outside_candidate(roots.repository, output)
    manifest = load_artifact(manifest_path, Manifest)
    artifact = build_graph(manifest, roots)
    return publish_artifact(artifact, output, roots, _candidate_check(artifact, roots))


@file_arguments("graph_path", "output")
def run_query(graph_path: Path, query: SelectQuery, output: Path) -> Published:
    """Publish ``query`` (a Query in bytes, see :func:`prooftext.artifacts.query.byte_query`) bound to the Graph."""
    graph = load_artifact(graph_path, Graph)
    return publish_artifact(build_query(graph, query), output)


@file_arguments("graph_path", "query_path", "output")
def run_select(graph_path: Path, query_path: Path, output: Path) -> Published:
    graph = load_artifact(graph_path, Graph)
    query = load_artifact(query_path, Query)
    return publish_artifact(select(graph, query), output)


@file_arguments("graph_path", "selection_path", "output")
def run_snapshot(
    graph_path: Path, selection_path: Path, repository: Path, owner: Path | None, output: Path
) -> Published:
    roots = roots_of(repository, owner)
    require_output_outside_candidate(roots.repository, output)
    graph = load_artifact(graph_path, Graph)
    selection = load_artifact(selection_path, Selection)
    artifact = build_snapshot(graph, selection, roots)
    return publish_artifact(artifact, output, roots, _candidate_check(artifact, roots))


CLAIMS_KEY = "claims"


def _claims(path: Path) -> list[Any]:
    value = canonical.load(read_bounded(path, MAX_CLAIMS_FILE_BYTES, "claims file"))
    if isinstance(value, dict) and set(value) != {CLAIMS_KEY}:
        extra = sorted(str(key) for key in value if key != CLAIMS_KEY)
        detail = f"unknown field {extra[0][:40]!r}" if extra else "no claims field"
        raise RequestError(f'the claims file {{"claims": [...]}} holds {detail}', field="claims")
    claims = value.get(CLAIMS_KEY) if isinstance(value, dict) else value
    if not isinstance(claims, list):
        raise RequestError(
            'the claims file holds a JSON list of claims (or {"claims": [...]})', field="claims"
        )
    return claims


@file_arguments("snapshot_path", "claims_path", "output")
def run_propose(snapshot_path: Path, claims_path: Path, output: Path) -> Published:
    snapshot = load_artifact(snapshot_path, Snapshot)
    return publish_artifact(build_proposal(snapshot, _claims(claims_path)), output)


@file_arguments("snapshot_path", "output", optional=("proposal_path",))
def run_compact(
    snapshot_path: Path, repository: Path, owner: Path | None, output: Path, proposal_path: Path | None
) -> Published:
    roots = roots_of(repository, owner)
    require_output_outside_candidate(roots.repository, output)
    snapshot = load_artifact(snapshot_path, Snapshot)
    proposal = load_artifact(proposal_path, HostSummaryProposal) if proposal_path is not None else None
    artifact = build_compaction(snapshot, proposal, roots)
    return publish_artifact(artifact, output, roots, _candidate_check(artifact, roots))


@file_arguments("graph_path", "snapshot_path", "output")
def run_quality(graph_path: Path, snapshot_path: Path, output: Path) -> Published:
    graph = load_artifact(graph_path, Graph)
    snapshot = load_artifact(snapshot_path, Snapshot)
    return publish_artifact(build_quality_report(graph, snapshot), output)


@file_arguments("base_path", "current_path")
def run_compare(base_path: Path, current_path: Path) -> dict[str, Any]:
    return compare_snapshots(load_artifact(base_path, Snapshot), load_artifact(current_path, Snapshot))


@file_arguments("path")
def run_validate(path: Path, repository: Path | None = None) -> dict[str, Any]:
    """Every schema, model, id and semantic check. With ``repository``, also re-hash every repository source
    the artifact names and the lines it quotes or digests (:mod:`prooftext.artifacts.recheck`): the first
    source that does not hold what the artifact says is raised. Nothing else is re-observed or
    authenticated (labels, provenance and the candidate are the publishing commands' to check)."""
    data = read_artifact_bytes(path)
    model = parse_artifact(data)
    value = model.model_dump(mode="json", exclude_unset=True)
    checks = ["canonical_json", "byte_ceiling", "json_schema", "model", "artifact_id", "semantics"]
    recheck = Recheck()
    if repository is not None:
        recheck = recheck_sources(model, explicit_root(repository, "--repository-root"))
        if recheck.findings:
            raise recheck.findings[0].error
    if recheck.checked:
        checks.append("source_digests")
    return {
        "valid": True,
        "artifact_type": value["artifact_type"],
        "artifact_id": value["artifact_id"],
        "bytes": len(data),
        "checks": checks,
        "reobserved": recheck.checked > 0,
        "sources_checked": recheck.checked,
        "owner_sources_skipped": len(recheck.skipped),
    }


def run_fsck(root: Path) -> FsckReport:
    """``prooftext fsck``: recompute the artifacts stored under ``root``, check its index store, and re-hash
    the sources both name (:mod:`prooftext.artifacts.recheck` for the artifacts')."""
    return fsck(explicit_root(root, "ROOT"))
