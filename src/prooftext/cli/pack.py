"""``prooftext pack``, ``adaptive-pack`` and ``verify``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from prooftext import canonical
from prooftext.adaptive import ladder as d
from prooftext.cli.common import app, emit_json, write_out
from prooftext.errors import ArtifactError, ProoftextError
from prooftext.index import open_index, resolve_root
from prooftext.pack.packet import Packet
from prooftext.pack.render import DEFAULT_FORMAT
from prooftext.pack.verify import verify_packet
from prooftext.select import query as q
from prooftext.tokens import DEFAULT_TOKENIZER

EXIT_INSUFFICIENT = 2
"""``adaptive-pack --require-sufficient`` exits with this when the estimator does not pass (SACP §8)."""

QueryArg = Annotated[str, typer.Argument(help="What the context is for (a question, an issue text).")]
# readable=False on every path: the project opens it and reports a failure by code (exit 1); click's own
# check would call an unreadable path a usage error (exit 64).
RootOpt = Annotated[
    Path, typer.Option("--root", help="Root directory of the indexed corpus.", readable=False)
]
FormatOpt = Annotated[str, typer.Option("--format", help="markdown, xml or json.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result artifact as JSON on stdout.")]
TokenizerOpt = Annotated[str, typer.Option("--tokenizer", help="o200k_base, cl100k_base or bytes.")]
RequireOpt = Annotated[
    list[str] | None, typer.Option("--require", help="A path or node id that must be included.")
]
SeedOpt = Annotated[list[str] | None, typer.Option("--seed", help="A path to rank higher (a hint only).")]


def _summary(text: str) -> None:
    sys.stderr.write(text + "\n")


def _unused_seeds(packet: Packet) -> None:
    ranking = packet.trace.get("ranking")
    unused = ranking.get("unused_seeds", []) if isinstance(ranking, dict) else []
    if unused:
        _summary(
            "seeds naming no indexed file (ranked nothing): " + ", ".join(str(u["path"]) for u in unused)
        )


def _excerpts(packet: Packet) -> str:
    nodes = len({i for e in packet.evidence for i in e.node_ids})  # a head and a tail are one node
    count = f"{len(packet.evidence)} excerpts"
    return count if nodes == len(packet.evidence) else f"{count} quoting {nodes} nodes"


@app.command("pack")
def pack_command(
    query: QueryArg,
    root: RootOpt = Path("."),
    max_tokens: Annotated[
        int, typer.Option("--max-tokens", help="Hard ceiling on the prompt.")
    ] = q.DEFAULT_MAX_TOKENS,
    max_nodes: Annotated[int, typer.Option("--max-nodes")] = q.DEFAULT_MAX_NODES,
    fmt: FormatOpt = DEFAULT_FORMAT,
    tokenizer: TokenizerOpt = DEFAULT_TOKENIZER,
    require: RequireOpt = None,
    seed: SeedOpt = None,
    allow_truncated: Annotated[bool, typer.Option("--allow-truncated")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Compile a packet for QUERY at a fixed budget (the index is refreshed first if stale)."""
    with open_index(root) as index:
        packet = index.pack(
            query,
            max_tokens=max_tokens,
            max_nodes=max_nodes,
            format=fmt,
            tokenizer=tokenizer,
            required=tuple(require or ()),
            path_seeds=tuple(seed or ()),
            allow_truncated=allow_truncated,
        )
    if as_json:
        emit_json(packet.to_dict())
        return
    write_out(packet.prompt)
    _summary(
        f"packet: {_excerpts(packet)}, {packet.prompt_tokens.count} {packet.prompt_tokens.basis},"
        f" {packet.omitted} omitted, blake3 {packet.blake3[:16]}"
    )
    _unused_seeds(packet)


@app.command("adaptive-pack")
def adaptive_pack_command(
    query: QueryArg,
    root: RootOpt = Path("."),
    min_tokens: Annotated[int, typer.Option("--min-tokens")] = d.DEFAULT_MIN_TOKENS,
    max_tokens: Annotated[int, typer.Option("--max-tokens")] = d.DEFAULT_MAX_TOKENS,
    token_step: Annotated[int, typer.Option("--token-step")] = d.DEFAULT_TOKEN_STEP,
    min_nodes: Annotated[int, typer.Option("--min-nodes")] = d.DEFAULT_MIN_NODES,
    max_nodes: Annotated[int, typer.Option("--max-nodes")] = d.DEFAULT_MAX_NODES,
    node_step: Annotated[int, typer.Option("--node-step")] = d.DEFAULT_NODE_STEP,
    min_coverage_bps: Annotated[int, typer.Option("--min-coverage-bps")] = d.DEFAULT_MIN_COVERAGE_BPS,
    min_evidence: Annotated[int, typer.Option("--min-evidence")] = d.DEFAULT_MIN_EVIDENCE,
    min_top_files: Annotated[int, typer.Option("--min-top-files")] = d.DEFAULT_MIN_TOP_FILES,
    allow_truncated: Annotated[bool, typer.Option("--allow-truncated")] = False,
    require_sufficient: Annotated[
        bool, typer.Option("--require-sufficient", help="Exit 2 when the estimator does not pass.")
    ] = False,
    fmt: FormatOpt = DEFAULT_FORMAT,
    tokenizer: TokenizerOpt = DEFAULT_TOKENIZER,
    require: RequireOpt = None,
    seed: SeedOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Compile adaptively: expand along the token/node ladder until the evidence estimator passes."""
    with open_index(root) as index:
        result = index.adaptive_pack(
            query,
            min_tokens=min_tokens,
            max_tokens=max_tokens,
            token_step=token_step,
            min_nodes=min_nodes,
            max_nodes=max_nodes,
            node_step=node_step,
            min_coverage_bps=min_coverage_bps,
            min_evidence=min_evidence,
            min_top_files=min_top_files,
            allow_truncated=allow_truncated,
            format=fmt,
            tokenizer=tokenizer,
            required=tuple(require or ()),
            path_seeds=tuple(seed or ()),
        )
    if as_json:
        emit_json(result.to_dict())
    else:
        write_out(result.prompt)
        tokens = result.packet.prompt_tokens
        _summary(
            f"adaptive: {len(result.rounds)} rounds, stop {result.stop_reason}, selected round"
            f" {result.selected_round}, {tokens.count} {tokens.basis}, {_excerpts(result.packet)}"
        )
        _unused_seeds(result.packet)
    if require_sufficient and not result.estimated_sufficient:
        raise typer.Exit(EXIT_INSUFFICIENT)


@app.command("verify")
def verify_command(
    packet: Annotated[
        Path, typer.Argument(help="A packet saved by `pack --json` (or an adaptive result).", readable=False)
    ],
    root: RootOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Re-check a saved packet; exit bitmask: 1 digest, content, nonce or label mismatch, 2 missing or stale source, 4 I/O."""
    # The reader `context validate` uses: a FIFO is opened without blocking and refused, a device or an
    # oversized file is refused before it is read, so no input can hang verify or exhaust its memory.
    # Imported here: the artifacts package loads its models (0.3 s) that no other command here needs.
    from prooftext.artifacts.loader import read_artifact_bytes

    base = resolve_root(root)
    try:
        data = canonical.load(read_artifact_bytes(packet))
    except OSError as exc:
        raise ArtifactError(f"cannot read {packet}: {exc.strerror}") from None
    except ProoftextError:
        raise
    if isinstance(data, dict) and data.get("schema") == "prooftext.adaptive-context/v1":
        data = data.get("packet")
    if not isinstance(data, dict):
        raise ArtifactError("a packet must be a JSON object", field="packet")
    report = verify_packet(data, base)
    if as_json:
        emit_json(report.to_dict())
    else:
        for problem in report.problems:
            _summary(
                f"verify: {problem.get('kind')}: {problem.get('path', '')} {problem.get('detail', '')}".rstrip()
            )
        write_out("ok\n" if report.ok else f"failed (status {report.status})\n")
    if report.status:
        raise typer.Exit(report.status)
