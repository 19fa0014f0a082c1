"""``prooftext index``: build or refresh the index of a root, or report its status."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

import prooftext
from prooftext.cli.common import app, emit_json, write_out
from prooftext.cli.progress import progress_bar
from prooftext.errors import RequestError

# readable=False on every path: the project opens it and reports a failure by code (exit 1); click's own
# check would call an unreadable path a usage error (exit 64).
RootArg = Annotated[Path, typer.Argument(help="Root directory to index.", readable=False)]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


EXIT_PARTIAL = 3
"""``prooftext index`` finished, but some files could not be read (they are listed as ``unreadable``)."""


@app.command("index")
def index_command(
    root: RootArg = Path("."),
    status: Annotated[bool, typer.Option("--status", help="Report changes since the last index.")] = False,
    rebuild: Annotated[
        bool,
        typer.Option(
            "--rebuild", help="Empty the index store first and read every file (repairs a corrupt store)."
        ),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Index ROOT incrementally (unchanged files are skipped), or with --status report what changed."""
    if status and rebuild:
        raise RequestError("--status reads nothing; it cannot be combined with --rebuild", field="rebuild")
    if rebuild:
        prooftext.reset_index(root)
    with prooftext.open(root) as index:
        if status:
            result = index.status().to_dict()
            if as_json:
                emit_json(result)
            else:
                write_out(
                    f"{result['files_changed_since_index']} files changed since the last index "
                    f"({result['changed']} modified, {result['added']} new, {result['removed']} removed);"
                    f" {result['unchanged']} unchanged, {result['excluded']} left out with a reason"
                    + ("" if result["complete"] else "; the last refresh did not finish (run index)")
                    + "\n"
                )
            return
        with progress_bar(not as_json, "indexing") as progress:
            report = index.refresh(progress, count_edges=True)
    data = report.to_dict()
    if as_json:
        emit_json(data)
    else:
        skipped = sum(report.files_skipped.values())
        write_out(
            f"indexed {report.files_indexed} files ({report.files_unchanged} unchanged, {report.files_removed}"
            f" removed, {skipped} skipped), {report.nodes} nodes, {report.edges} edges in {data['seconds']} s\n"
        )
    if report.partial:
        # The index is usable but partial: a script must be able to tell, as it can from the report.
        raise typer.Exit(EXIT_PARTIAL)
