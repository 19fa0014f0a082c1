"""``prooftext map``: a ranked outline of the repository within an exact token budget."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from prooftext.cli.common import app, note, root_option, write_out
from prooftext.cli.pack import KeyOpt, SignOpt, emit_signed, signing_key_for

if TYPE_CHECKING:
    import prooftext

_DEFAULT_TOKENS = 1024
_DEFAULT_TOKENIZER = "o200k_base"


UNMATCHED = {
    "unmatched_paths": "--path naming no indexed file or directory",
    "unmatched_identifiers": "--identifier naming no indexed symbol",
}
"""The map's trace records of what personalized nothing, as the stderr note says them."""


@app.command("map")
def map_command(
    root: Annotated[Path, root_option("Root directory of the indexed corpus.")] = Path("."),
    max_tokens: Annotated[
        int,
        typer.Option(
            "--max-tokens",
            help="Hard ceiling on the whole rendered map, in tokens of --tokenizer (bytes with --tokenizer bytes).",
        ),
    ] = _DEFAULT_TOKENS,
    tokenizer: Annotated[
        str, typer.Option("--tokenizer", help="What the ceiling counts: o200k_base, cl100k_base or bytes.")
    ] = _DEFAULT_TOKENIZER,
    query: Annotated[
        str,
        typer.Option("--query", help="Text (an issue, a question) to rank the map around; none by default."),
    ] = "",
    path: Annotated[
        list[str] | None,
        typer.Option("--path", help="A file or directory to rank the map around (repeatable)."),
    ] = None,
    identifier: Annotated[
        list[str] | None,
        typer.Option(
            "--identifier", help="A symbol name or qualified name (Class.method) to rank around (repeatable)."
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the map artifact as JSON on stdout (`verify` checks it).")
    ] = False,
    sign: SignOpt = False,
    key: KeyOpt = None,
) -> None:
    """A ranked outline of the repository (files, classes, functions, sections) within an exact token budget; personalized by --query, --path or --identifier, by graph centrality without them."""
    import prooftext

    signing_key = signing_key_for(sign, as_json, key, root)
    settings = prooftext.MapSettings(
        max_tokens=max_tokens,
        tokenizer=tokenizer,
        query=query,
        paths=tuple(path or ()),
        identifiers=tuple(identifier or ()),
    )
    with prooftext.open(root) as index:
        built = prooftext.repository_map(index, settings)
    if as_json:
        emit_signed(built.to_dict(), signing_key)
    else:
        write_out(built.prompt)
        tokens = built.prompt_tokens
        note(
            f"map: {len(built.paths)} files, {len(built.entries) - len(built.paths)} symbols,"
            f" {tokens.count} {tokens.basis}, {built.omitted} omitted, blake3 {built.blake3[:16]}"
        )
    _unmatched_notes(built, settings)


def _unmatched_notes(built: prooftext.RepositoryMap, settings: prooftext.MapSettings) -> None:
    """What personalized nothing, on stderr with or without ``--json`` (the trace records it too)."""
    for key, what in UNMATCHED.items():
        if built.trace.get(key):
            note(f"{what} (ranked nothing): {', '.join(map(str, built.trace[key]))}")
    if built.trace.get("ranking") == "centrality" and settings.personalized:
        note("nothing given matched: the map is ranked by centrality alone")
