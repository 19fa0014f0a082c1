"""``prooftext context …`` (the context artifact lifecycle) and ``prooftext fsck``.

Every command has ``--json``; failures become one bounded JSON error object and a non-zero exit status in
:func:`prooftext.cli.common.run_app`. Publishing commands create one fresh output exclusively.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

import prooftext
from prooftext.cli.common import RootOpt, app, echo, emit_json, one_root, root_argument, root_path

context_app = typer.Typer(
    name="context",
    help="Context artifacts: manifest → index → query → select → snapshot → compact, compare, quality.",
    no_args_is_help=True,
    add_completion=False,
)
app.add_typer(context_app, name="context")

JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
# readable=False on every path: the project opens it and reports a failure by code (exit 1); click's own
# check would call an unreadable path a usage error (exit 64).
OutputOpt = Annotated[Path, typer.Option("--output", help="A new file (never overwritten).", readable=False)]
RepoOpt = Annotated[
    Path, typer.Option("--repository-root", help="The explicit repository root.", parser=root_path)
]
OwnerOpt = Annotated[
    Path | None,
    typer.Option("--owner-root", help="The explicit owner root (owner sources only).", parser=root_path),
]
ArtifactArg = Annotated[Path, typer.Argument(help="An artifact file.", readable=False)]
_ARTIFACT_QUERY = prooftext.artifact_query("")
"""The defaults of an artifact query, which the options show."""


def _report(published: prooftext.Published, as_json: bool) -> None:
    if as_json:
        emit_json(published.to_dict())
        return
    counts = ", ".join(f"{n} {key}" for key, n in published.counts.items())
    echo(
        f"wrote {published.artifact_type} {published.artifact_id[:16]} ({published.size} bytes"
        f"{', ' + counts if counts else ''}) to {published.output}"
    )


@context_app.command("manifest")
def manifest_command(
    output: OutputOpt,
    root: Annotated[
        Path | None,
        root_argument("Repository root to scan (default: the working directory)."),
    ] = None,
    root_option: RootOpt = None,
    specification: Annotated[
        str | None, typer.Option("--specification", help="Path of the canonical specification.")
    ] = None,
    required: Annotated[
        list[str] | None, typer.Option("--required", help="A repository path that must be adopted.")
    ] = None,
    owner_root: OwnerOpt = None,
    owner_source: Annotated[
        list[str] | None, typer.Option("--owner-source", help="An owner record (path under --owner-root).")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Write a Manifest of ROOT from a scan (and explicit owner records)."""
    _report(
        prooftext.context_manifest(
            one_root(root, root_option), output, specification, required or [], owner_root, owner_source or []
        ),
        as_json,
    )


@context_app.command("index")
def index_command(
    manifest: ArtifactArg,
    repository_root: RepoOpt,
    output: OutputOpt,
    owner_root: OwnerOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Build the Graph of MANIFEST, re-observing every source through the explicit roots."""
    _report(prooftext.context_index(manifest, repository_root, owner_root, output), as_json)


@context_app.command("query")
def query_command(
    graph: ArtifactArg,
    text: Annotated[str, typer.Argument(help="What the context is for.")],
    output: OutputOpt,
    max_bytes: Annotated[
        int,
        typer.Option(
            "--max-bytes", help="Ceiling on the selection's cost: its nodes' and edges' sizes, in bytes."
        ),
    ] = _ARTIFACT_QUERY.max_tokens,
    max_nodes: Annotated[
        int, typer.Option("--max-nodes", help="Most graph nodes the selection holds, a count.")
    ] = _ARTIFACT_QUERY.max_nodes,
    max_edges: Annotated[
        int, typer.Option("--max-edges", help="Most graph edges the selection follows, a count.")
    ] = _ARTIFACT_QUERY.max_edges,
    max_depth: Annotated[
        int,
        typer.Option(
            "--max-depth",
            help="How far to traverse from a match, in edges (BFS depth); 0 turns traversal off.",
        ),
    ] = _ARTIFACT_QUERY.max_depth,
    clearance: Annotated[
        str,
        typer.Option(
            "--clearance",
            help="The most sensitive label the selection may hold: public, repository-private or"
            " owner-private (secret text never enters an artifact).",
        ),
    ] = _ARTIFACT_QUERY.clearance,
    as_of: Annotated[str | None, typer.Option("--as-of", help="UTC instant YYYY-MM-DDTHH:MM:SSZ.")] = None,
    required: Annotated[
        list[str] | None, typer.Option("--required", help="A node id or repository path.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Write a Query bound to GRAPH and its candidate."""
    query = prooftext.artifact_query(
        text, max_bytes, max_nodes, max_edges, max_depth, clearance, as_of, tuple(required or ())
    )
    _report(prooftext.context_query(graph, query, output), as_json)


@context_app.command("select")
def select_command(
    graph: ArtifactArg, query: ArtifactArg, output: OutputOpt, as_json: JsonOpt = False
) -> None:
    """Run the deterministic selector over GRAPH for QUERY."""
    _report(prooftext.context_select(graph, query, output), as_json)


@context_app.command("snapshot")
def snapshot_command(
    graph: ArtifactArg,
    selection: ArtifactArg,
    repository_root: RepoOpt,
    output: OutputOpt,
    owner_root: OwnerOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Rerun the selector, require byte equality, and re-observe every selected source."""
    _report(prooftext.context_snapshot(graph, selection, repository_root, owner_root, output), as_json)


@context_app.command("propose")
def propose_command(
    snapshot: ArtifactArg,
    claims: Annotated[
        Path, typer.Option("--claims", help="JSON list of {text, decision, links}.", readable=False)
    ],
    output: OutputOpt,
    as_json: JsonOpt = False,
) -> None:
    """Wrap a host's claims about SNAPSHOT as an untrusted HostSummaryProposal."""
    _report(prooftext.context_propose(snapshot, claims, output), as_json)


@context_app.command("compact")
def compact_command(
    snapshot: ArtifactArg,
    repository_root: RepoOpt,
    output: OutputOpt,
    owner_root: OwnerOpt = None,
    host_summary_proposal: Annotated[
        Path | None,
        typer.Option(
            "--host-summary-proposal",
            help="A HostSummaryProposal artifact (from `context propose`) whose checked claims are adopted.",
            readable=False,
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Compact SNAPSHOT extractively after re-observing it (optionally adopting a host proposal)."""
    _report(
        prooftext.context_compact(snapshot, repository_root, owner_root, output, host_summary_proposal),
        as_json,
    )


@context_app.command("quality")
def quality_command(
    graph: ArtifactArg, snapshot: ArtifactArg, output: OutputOpt, as_json: JsonOpt = False
) -> None:
    """Write the Quality Report of GRAPH and SNAPSHOT (no aggregate score)."""
    _report(prooftext.context_quality(graph, snapshot, output), as_json)


@context_app.command("compare")
def compare_command(base: ArtifactArg, current: ArtifactArg, as_json: JsonOpt = False) -> None:
    """Compare two snapshots structurally (no side effects)."""
    result = prooftext.context_compare(base, current)
    if as_json:
        emit_json(result)
        return
    ex = result["extracts"]
    echo(
        "identical"
        if result["identical"]
        else f"{len(ex['added'])} added, {len(ex['removed'])} removed, {len(ex['changed'])} changed, "
        f"{ex['unchanged']} unchanged extracts; bytes {result['bytes']['delta']:+d}"
    )


def _validated(result: dict[str, Any]) -> str:
    """The text line of ``context validate``: what was found valid, and whether its sources were re-hashed."""
    head = f"valid {result['artifact_type']} {result['artifact_id']}"
    if not result["reobserved"]:
        return f"{head}; sources not re-observed"
    skipped = result["owner_sources_skipped"]
    owner = (
        f", {_sources(skipped, 'owner')} not re-hashed (validate reads the repository root only)"
        if skipped
        else ""
    )
    return f"{head}; {_sources(result['sources_checked'], 'repository')} re-hashed{owner}"


def _sources(count: int, scope: str) -> str:
    return f"{count} {scope} source{'' if count == 1 else 's'}"


@context_app.command("validate")
def validate_command(
    artifact: ArtifactArg,
    repository_root: Annotated[
        Path | None,
        typer.Option(
            "--repository-root",
            help="Also re-hash every repository source the artifact names, and the lines it quotes or digests.",
            parser=root_path,
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Validate ARTIFACT: canonical form, schema, model, ids and semantics, and with --repository-root its source digests (no side effects)."""
    result = prooftext.context_validate(artifact, repository_root)
    if as_json:
        emit_json(result)
    else:
        echo(_validated(result))


@app.command("fsck")
def fsck_command(
    root: Annotated[
        Path | None,
        root_argument(
            "Root whose .prooftext/ store and artifacts are checked (default: the working directory)."
        ),
    ] = None,
    root_option: RootOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Recompute stored artifacts, check the index and memory stores, re-hash sources; exit bitmask: 1 damage, 2 missing or stale source, 4 I/O, 8 damaged memory store."""
    report = prooftext.fsck(one_root(root, root_option))
    if as_json:
        emit_json(report.to_dict())
    else:
        for problem in report.problems:
            line = (
                f"fsck: {problem.get('kind')}: {problem.get('path', '')} {problem.get('detail', '')}".rstrip()
            )
            echo(f"{line} (repair: {problem['repair']})" if "repair" in problem else line, err=True)
        for notice in report.notices:
            line = f"fsck: note: {notice.get('kind')}: {notice.get('path', '')} {notice.get('detail', '')}"
            echo(line.rstrip(), err=True)
        echo("ok" if report.status == 0 else f"failed (status {report.status})")
    if report.status:
        raise typer.Exit(report.status)
