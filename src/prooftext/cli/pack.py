"""``prooftext pack``, ``adaptive-pack`` and ``verify``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

import prooftext
from prooftext.cli.common import (
    app,
    counted,
    emit_json,
    key_path,
    note,
    packet_path,
    root_option,
    shown,
    write_out,
)
from prooftext.errors import RequestError

_QUERY = prooftext.Query("")
"""The defaults of a query's fields, which the options show."""
_LADDER = prooftext.Ladder()
_FORMAT = "markdown"

EXIT_INSUFFICIENT = 2
"""``adaptive-pack --require-sufficient`` exits with this when the estimator does not pass (SACP §8)."""

QueryArg = Annotated[str, typer.Argument(help="What the context is for (a question, an issue text).")]
# readable=False on every path: the project opens it and reports a failure by code (exit 1); click's own
# check would call an unreadable path a usage error (exit 64).
RootOpt = Annotated[Path, root_option("Root directory of the indexed corpus.")]
FormatOpt = Annotated[str, typer.Option("--format", help="How the prompt is written: markdown, xml or json.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result artifact as JSON on stdout.")]
VerifyJsonOpt = Annotated[
    bool,
    typer.Option(
        "--json", help="Print the verification report (checked, ok, problems, status) as JSON on stdout."
    ),
]
KeyJsonOpt = Annotated[bool, typer.Option("--json", help="Print the new key id and path as JSON on stdout.")]
TokenizerOpt = Annotated[
    str, typer.Option("--tokenizer", help="What the token counts count: o200k_base, cl100k_base or bytes.")
]
RequireOpt = Annotated[
    list[str] | None, typer.Option("--require", help="A path or node id that must be included.")
]
SeedOpt = Annotated[list[str] | None, typer.Option("--seed", help="A path to rank higher (a hint only).")]
SignOpt = Annotated[
    bool, typer.Option("--sign", help="Sign the JSON result with the signing key (needs --json).")
]
AllowTruncatedOpt = Annotated[
    bool,
    typer.Option(
        "--allow-truncated", help="Let an excerpt be shortened to fit the ceiling (by default it never is)."
    ),
]
_TOKEN_UNIT = "in tokens of --tokenizer (bytes with --tokenizer bytes)"
_BPS = "in basis points: 10000 = 100%, 3000 = 30%"
_LADDER_HELP = {
    "--min-tokens": f"Token ceiling of the first rung, {_TOKEN_UNIT}; by default {_LADDER.min_tokens}, or"
    " --max-tokens when that is smaller.",
    "--max-tokens": f"Token ceiling of the last rung (the hard maximum), {_TOKEN_UNIT}.",
    "--token-step": f"Tokens added to the ceiling at each rung, {_TOKEN_UNIT}.",
    "--min-nodes": "Node ceiling of the first rung: most nodes quoted, a count.",
    "--max-nodes": "Node ceiling of the last rung (the hard maximum), a count.",
    "--node-step": "Nodes added to the ceiling at each rung, a count.",
    "--min-coverage-bps": "Share of the query's words (stop words removed) the excerpts must hold to pass,"
    f" {_BPS}; 0 turns the condition off.",
    "--min-evidence": "Fewest excerpts a sufficient packet holds, a count.",
    "--min-top-files": "How many of the ranking's best files a sufficient packet must quote, a count;"
    " 0 turns the condition off.",
    "--strong-share-bps": "A ranked candidate weighing at least this share of the best one is strong, and a"
    f" sufficient packet quotes every strong one; {_BPS}; 0 turns the condition off.",
}
"""The help of each option of the adaptive ladder and its estimator: what it sets, and in which unit."""


def _ladder_option(flag: str) -> Any:
    return typer.Option(flag, help=_LADDER_HELP[flag])


KeyOpt = Annotated[
    Path | None,
    typer.Option(
        "--key",
        help="The signing key file (default $PROOFTEXT_KEY, else $XDG_CONFIG_HOME/prooftext/signing.key).",
        parser=key_path,
    ),
]

key_app = typer.Typer(help="The packet signing key.", no_args_is_help=True)
app.add_typer(key_app, name="key")


def signing_key_for(sign: bool, as_json: bool, key: Path | None, root: Path) -> prooftext.SigningKey | None:
    """The key ``--sign`` signs with, loaded before any work; a signature travels only in JSON. A ``--key``
    without ``--sign`` is refused rather than left unused, which would give an unsigned result."""
    if not sign:
        if key is not None:
            raise RequestError(
                "--key names the key --sign signs with: add --sign, or leave --key out", field="key"
            )
        return None
    if not as_json:
        raise RequestError("--sign signs the JSON result: add --json", field="sign")
    return prooftext.SigningKey.load(key, root=root)


def emit_signed(value: dict[str, object], key: prooftext.SigningKey | None) -> None:
    emit_json(value if key is None else prooftext.sign(value, key))


def _key_init_root(key: Path | None, root: Path | None) -> Path | None:
    """The root a new key must stay outside of: the one named, else the working directory, except for the
    per-user default path (no ``--key``, no ``$PROOFTEXT_KEY``), which is outside any root by design: run
    from the home directory, the working directory holds it."""
    if root is not None:
        return root
    if prooftext.SigningKey.per_user_default(key):
        return None
    return Path(".")


@key_app.command("init")
def key_init_command(
    key: KeyOpt = None,
    root: Annotated[
        Path | None,
        root_option(
            "A root the key must stay outside of (when omitted, the working directory, unless the key goes"
            " to its default path under $XDG_CONFIG_HOME)."
        ),
    ] = None,
    as_json: KeyJsonOpt = False,
) -> None:
    """Create a new signing key (32 random bytes, mode 0600); an existing key file is never replaced."""
    created = prooftext.SigningKey.generate(key, root=_key_init_root(key, root))
    if as_json:
        emit_json({"key_id": created.key_id, "path": str(created.path)})
    else:
        write_out(shown(f"key {created.key_id} written to {created.path}") + "\n")


def _summary(text: str) -> None:
    note(text)


def _unused_seeds(packet: prooftext.Packet) -> None:
    ranking = packet.trace.get("ranking")
    unused = ranking.get("unused_seeds", []) if isinstance(ranking, dict) else []
    if unused:
        _summary(
            "seeds naming no indexed file (ranked nothing): " + ", ".join(str(u["path"]) for u in unused)
        )


INTERNAL_REASON = "internal"
"""The store and ``.git``, left out of every index: not worth a word."""


def _left_out(index: prooftext.Index, packet: prooftext.Packet) -> str | None:
    """For a packet with no excerpts: what the index left out, by reason, when it left out any file."""
    if packet.evidence:
        return None
    counts: dict[str, int] = {}
    for exclusion in index.exclusions():
        if exclusion.reason != INTERNAL_REASON:
            counts[exclusion.reason] = counts.get(exclusion.reason, 0) + 1
    if not counts:
        return None
    reasons = ", ".join(f"{n} {why}" for why, n in sorted(counts.items()))
    total = sum(counts.values())
    return (
        f"no excerpts; the index left out {counted(total, 'file')}: {reasons}"
        " (list them: prooftext index --excluded [--reason R])"
    )


def _excerpts(packet: prooftext.Packet) -> str:
    nodes = len({i for e in packet.evidence for i in e.node_ids})  # a head and a tail are one node
    count = counted(len(packet.evidence), "excerpt")
    return count if nodes == len(packet.evidence) else f"{count} quoting {nodes} nodes"


@app.command("pack")
def pack_command(
    query: QueryArg,
    root: RootOpt = Path("."),
    max_tokens: Annotated[
        int,
        typer.Option(
            "--max-tokens",
            help=f"Hard ceiling on the whole prompt, {_TOKEN_UNIT}.",
        ),
    ] = _QUERY.max_tokens,
    max_nodes: Annotated[
        int, typer.Option("--max-nodes", help="Most nodes (functions, classes, sections) quoted, a count.")
    ] = _QUERY.max_nodes,
    fmt: FormatOpt = _FORMAT,
    tokenizer: TokenizerOpt = _QUERY.tokenizer,
    require: RequireOpt = None,
    seed: SeedOpt = None,
    allow_truncated: AllowTruncatedOpt = False,
    as_json: JsonOpt = False,
    sign: SignOpt = False,
    key: KeyOpt = None,
) -> None:
    """Compile a packet for QUERY at a fixed budget (the index is refreshed first if stale)."""
    signing_key = signing_key_for(sign, as_json, key, root)
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
        left_out = None if as_json else _left_out(index, packet)
    if as_json:
        emit_signed(packet.to_dict(), signing_key)
        return
    write_out(packet.prompt)
    _summary(
        f"packet: {_excerpts(packet)}, {packet.prompt_tokens.count} {packet.prompt_tokens.basis},"
        f" {packet.omitted} omitted, blake3 {packet.blake3[:16]}"
    )
    _unused_seeds(packet)
    if left_out:
        _summary(left_out)


def _first_rung(min_tokens: int | None, max_tokens: int) -> int:
    """The first rung's ceiling: as given, else the default one, lowered to a smaller ``--max-tokens`` (as
    ``context.adaptive`` lowers it), so a small ceiling alone is a ladder of one rung."""
    if min_tokens is not None:
        return min_tokens
    return max(1, min(max_tokens, _LADDER.min_tokens))  # a ceiling below 1 is refused naming --max-tokens


def _print_adaptive(result: prooftext.AdaptiveResult, left_out: str | None) -> None:
    """The prompt on stdout; the summary, and what to know about the packet, on stderr."""
    write_out(result.prompt)
    tokens = result.packet.prompt_tokens
    _summary(
        f"adaptive: {counted(len(result.rounds), 'round')}, stop {result.stop_reason}, selected round"
        f" {result.selected_round}, {tokens.count} {tokens.basis}, {_excerpts(result.packet)}"
    )
    _unused_seeds(result.packet)
    if left_out:
        _summary(left_out)


@app.command("adaptive-pack")
def adaptive_pack_command(
    query: QueryArg,
    root: RootOpt = Path("."),
    min_tokens: Annotated[int | None, _ladder_option("--min-tokens")] = None,
    max_tokens: Annotated[int, _ladder_option("--max-tokens")] = _LADDER.max_tokens,
    token_step: Annotated[int, _ladder_option("--token-step")] = _LADDER.token_step,
    min_nodes: Annotated[int, _ladder_option("--min-nodes")] = _LADDER.min_nodes,
    max_nodes: Annotated[int, _ladder_option("--max-nodes")] = _LADDER.max_nodes,
    node_step: Annotated[int, _ladder_option("--node-step")] = _LADDER.node_step,
    min_coverage_bps: Annotated[int, _ladder_option("--min-coverage-bps")] = _LADDER.min_coverage_bps,
    min_evidence: Annotated[int, _ladder_option("--min-evidence")] = _LADDER.min_evidence,
    min_top_files: Annotated[int, _ladder_option("--min-top-files")] = _LADDER.min_top_files,
    strong_share_bps: Annotated[int, _ladder_option("--strong-share-bps")] = _LADDER.strong_share_bps,
    allow_truncated: AllowTruncatedOpt = False,
    require_sufficient: Annotated[
        bool,
        typer.Option("--require-sufficient", help="Exit with status 2 when the estimator does not pass."),
    ] = False,
    fmt: FormatOpt = _FORMAT,
    tokenizer: TokenizerOpt = _QUERY.tokenizer,
    require: RequireOpt = None,
    seed: SeedOpt = None,
    as_json: JsonOpt = False,
    sign: SignOpt = False,
    key: KeyOpt = None,
) -> None:
    """Compile adaptively: expand along the token/node ladder until the evidence estimator passes."""
    signing_key = signing_key_for(sign, as_json, key, root)
    with prooftext.open(root) as index:
        result = index.adaptive_pack(
            prooftext.Query(
                query, tokenizer=tokenizer, required=tuple(require or ()), path_seeds=tuple(seed or ())
            ),
            ladder=prooftext.Ladder(
                min_tokens=_first_rung(min_tokens, max_tokens),
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
        left_out = None if as_json else _left_out(index, result.packet)
    if as_json:
        emit_signed(result.to_dict(), signing_key)
    else:
        _print_adaptive(result, left_out)
    if require_sufficient and not result.estimated_sufficient:
        raise typer.Exit(EXIT_INSUFFICIENT)


_DETAIL_OF_KIND = {"source_drift": "content changed since the packet ({detail})"}
"""A kind's code says what failed; for these kinds the line says it in words too."""


def _problem_lines(problems: list[dict[str, Any]]) -> list[str]:
    """One line per problem, naming the excerpt's path and line range when it is about one; the same
    problem of several excerpts of one file (a drifted file) is one line naming every range."""
    ranges: dict[tuple[str, str, str], list[str]] = {}
    for problem in problems:
        path, detail = str(problem.get("path", "")), str(problem.get("detail", ""))
        detail = detail.removeprefix(f"{path}: ") if path else detail
        key = (str(problem.get("kind")), path, detail)
        lines = problem.get("lines")
        spans = ranges.setdefault(key, [])
        if isinstance(lines, list) and len(lines) == 2:
            spans.append(f"L{lines[0]}-L{lines[1]}")
    out: list[str] = []
    for (kind, path, detail), spans in ranges.items():
        where = " ".join(filter(None, [path, ", ".join(dict.fromkeys(spans))]))
        said = _DETAIL_OF_KIND.get(kind, "{detail}").format(detail=detail) if detail else ""
        out.append(": ".join(filter(None, ["verify", where, kind, said])))
    return out


@app.command("verify")
def verify_command(
    packet: Annotated[
        Path,
        typer.Argument(
            help="A packet saved by `pack --json`, an adaptive result or a map saved by `map --json`.",
            parser=packet_path,
        ),
    ],
    root: RootOpt = Path("."),
    as_json: VerifyJsonOpt = False,
    key: Annotated[
        Path | None,
        typer.Option(
            "--key", help="Check the packet's signature with this signing key file.", parser=key_path
        ),
    ] = None,
) -> None:
    """Re-check a saved packet; exit bitmask: 1 digest, content, nonce or label mismatch, 2 missing, stale or excluded source, 4 I/O, 8 unsigned, 16 forged or signed by another key (8 and 16 only with --key)."""
    signing_key = None if key is None else prooftext.SigningKey.load(key, root=root)
    report = prooftext.verify(packet, root, key=signing_key)
    if as_json:
        emit_json(report.to_dict())
    else:
        for line in _problem_lines(report.problems):
            _summary(line)
        if report.signature is not None:
            _summary(f"verify: signature {report.signature}")
        write_out("ok\n" if report.ok else f"failed (status {report.status})\n")
    if report.status:
        raise typer.Exit(report.status)
