"""``prooftext pack``, ``adaptive-pack`` and ``verify``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

import prooftext
from prooftext.cli.common import app, emit_json, write_out

_QUERY = prooftext.Query("")
"""The defaults of a query's fields, which the options show."""
_LADDER = prooftext.Ladder()
_FORMAT = "markdown"

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


def _unused_seeds(packet: prooftext.Packet) -> None:
    ranking = packet.trace.get("ranking")
    unused = ranking.get("unused_seeds", []) if isinstance(ranking, dict) else []
    if unused:
        _summary(
            "seeds naming no indexed file (ranked nothing): " + ", ".join(str(u["path"]) for u in unused)
        )


def _excerpts(packet: prooftext.Packet) -> str:
    nodes = len({i for e in packet.evidence for i in e.node_ids})  # a head and a tail are one node
    count = f"{len(packet.evidence)} excerpts"
    return count if nodes == len(packet.evidence) else f"{count} quoting {nodes} nodes"


@app.command("pack")
def pack_command(
    query: QueryArg,
    root: RootOpt = Path("."),
    max_tokens: Annotated[
        int, typer.Option("--max-tokens", help="Hard ceiling on the prompt.")
    ] = _QUERY.max_tokens,
    max_nodes: Annotated[int, typer.Option("--max-nodes")] = _QUERY.max_nodes,
    fmt: FormatOpt = _FORMAT,
    tokenizer: TokenizerOpt = _QUERY.tokenizer,
    require: RequireOpt = None,
    seed: SeedOpt = None,
    allow_truncated: Annotated[bool, typer.Option("--allow-truncated")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Compile a packet for QUERY at a fixed budget (the index is refreshed first if stale)."""
    with prooftext.open(root) as index:
        packet = index.pack(
            prooftext.Query(
                query,
                max_tokens=max_tokens,
                max_nodes=max_nodes,
                tokenizer=tokenizer,
                required=tuple(require or ()),
                path_seeds=tuple(seed or ()),
                allow_truncated=allow_truncated,
            ),
            format=fmt,
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
    min_tokens: Annotated[int, typer.Option("--min-tokens")] = _LADDER.min_tokens,
    max_tokens: Annotated[int, typer.Option("--max-tokens")] = _LADDER.max_tokens,
    token_step: Annotated[int, typer.Option("--token-step")] = _LADDER.token_step,
    min_nodes: Annotated[int, typer.Option("--min-nodes")] = _LADDER.min_nodes,
    max_nodes: Annotated[int, typer.Option("--max-nodes")] = _LADDER.max_nodes,
    node_step: Annotated[int, typer.Option("--node-step")] = _LADDER.node_step,
    min_coverage_bps: Annotated[int, typer.Option("--min-coverage-bps")] = _LADDER.min_coverage_bps,
    min_evidence: Annotated[int, typer.Option("--min-evidence")] = _LADDER.min_evidence,
    min_top_files: Annotated[int, typer.Option("--min-top-files")] = _LADDER.min_top_files,
    strong_share_bps: Annotated[int, typer.Option("--strong-share-bps")] = _LADDER.strong_share_bps,
    allow_truncated: Annotated[bool, typer.Option("--allow-truncated")] = False,
    require_sufficient: Annotated[
        bool, typer.Option("--require-sufficient", help="Exit 2 when the estimator does not pass.")
    ] = False,
    fmt: FormatOpt = _FORMAT,
    tokenizer: TokenizerOpt = _QUERY.tokenizer,
    require: RequireOpt = None,
    seed: SeedOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Compile adaptively: expand along the token/node ladder until the evidence estimator passes."""
    with prooftext.open(root) as index:
        result = index.adaptive_pack(
            prooftext.Query(
                query, tokenizer=tokenizer, required=tuple(require or ()), path_seeds=tuple(seed or ())
            ),
            ladder=prooftext.Ladder(
                min_tokens=min_tokens,
                max_tokens=max_tokens,
                token_step=token_step,
                min_nodes=min_nodes,
                max_nodes=max_nodes,
                node_step=node_step,
                min_coverage_bps=min_coverage_bps,
                min_evidence=min_evidence,
                min_top_files=min_top_files,
                strong_share_bps=strong_share_bps,
                allow_truncated=allow_truncated,
            ),
            format=fmt,
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
    report = prooftext.verify(packet, root)
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
