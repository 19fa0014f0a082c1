"""``prooftext index``: build or refresh the index of a root, or report its status."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from prooftext.cli.common import app, emit_json, write_out
from prooftext.corpus.model import REASON_UNREADABLE
from prooftext.errors import RequestError
from prooftext.index import open_index, reset_index

# readable=False on every path: the project opens it and reports a failure by code (exit 1); click's own
# check would call an unreadable path a usage error (exit 64).
RootArg = Annotated[Path, typer.Argument(help="Root directory to index.", readable=False)]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


@contextmanager
def progress_callback(enabled: bool, label: str) -> Iterator[Callable[[int, int], None] | None]:
    """A rich progress bar on an interactive terminal, nothing otherwise."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, transient=True) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


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
        reset_index(root)
    with open_index(root) as index:
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
        with progress_callback(not as_json, "indexing") as progress:
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
    if report.files_skipped.get(REASON_UNREADABLE, 0):
        # The index is usable but partial: a script must be able to tell, as it can from the report.
        raise typer.Exit(EXIT_PARTIAL)
