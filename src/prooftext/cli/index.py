"""``prooftext index``: build or refresh the index of a root, or report its status."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

import prooftext
from prooftext.cli.common import EXIT_PARTIAL, RootOpt, app, emit_json, one_root, root_argument, write_out
from prooftext.cli.progress import progress_bar
from prooftext.errors import RequestError

# readable=False on every path: the project opens it and reports a failure by code (exit 1); click's own
# check would call an unreadable path a usage error (exit 64).
RootArg = Annotated[
    Path | None,
    root_argument("Root directory to index (default: the working directory)."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


@app.command("index")
def index_command(
    root: RootArg = None,
    root_option: RootOpt = None,
    status: Annotated[
        bool,
        typer.Option(
            "--status",
            help="Report how many files changed since the last index, from file metadata only (nothing is"
            " read or created).",
        ),
    ] = False,
    rebuild: Annotated[
        bool,
        typer.Option(
            "--rebuild", help="Empty the index store first and read every file (repairs a corrupt store)."
        ),
    ] = False,
    excluded: Annotated[
        bool,
        typer.Option(
            "--excluded",
            help="After indexing, list every path left out, with its reason and what would change it.",
        ),
    ] = False,
    reason: Annotated[
        str | None,
        typer.Option("--reason", help="With --excluded: only this reason (secret, ignored, size, ...)."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Index ROOT incrementally (unchanged files are skipped), or with --status report what changed."""
    root = one_root(root, root_option)
    if status and (rebuild or excluded):
        flag = "--rebuild" if rebuild else "--excluded"
        raise RequestError(f"--status reads nothing; it cannot be combined with {flag}", field=flag[2:])
    if reason is not None and not excluded:
        raise RequestError("--reason filters the --excluded listing; give --excluded too", field="reason")
    if status:
        _report_status(prooftext.Index.status_of(root), as_json)
        return
    if reason is not None:
        prooftext.Exclusion.known_reason(reason)  # refused before the store is emptied or any file is read
    if rebuild:
        prooftext.reset_index(root)
    with prooftext.open(root) as index:
        with progress_bar(not (as_json or excluded), "indexing") as progress:
            report = index.refresh(progress, count_edges=True)
        left_out = index.exclusions(reason) if excluded else None
    if left_out is not None:
        _list_exclusions(left_out, as_json, reason)
    elif as_json:
        emit_json(report.to_dict())
    else:
        write_out(_summary(report))
    if report.partial:
        # The index is usable but partial: a script must be able to tell, as it can from the report.
        raise typer.Exit(EXIT_PARTIAL)


def _report_status(found: prooftext.IndexStatus, as_json: bool) -> None:
    result = found.to_dict()
    if as_json:
        emit_json(result)
    elif not found.indexed:
        write_out(
            f"not indexed yet: {result['added']} files to index, {result['excluded']} left out with a reason"
            " (run index)\n"
        )
    else:
        write_out(
            f"{result['files_changed_since_index']} files changed since the last index "
            f"({result['changed']} modified, {result['added']} new, {result['removed']} removed);"
            f" {result['unchanged']} unchanged, {result['excluded']} left out with a reason"
            + (
                f"; {result['exclusions_changed']} changes to what is left out"
                if result["exclusions_changed"]
                else ""
            )
            + ("" if result["complete"] else "; the last refresh did not finish (run index)")
            + "\n"
        )


def _summary(report: prooftext.RefreshReport) -> str:
    data = report.to_dict()
    line = (
        f"indexed {report.files_indexed} files ({report.files_unchanged} unchanged, {report.files_removed}"
        f" removed), {report.nodes} nodes, {report.edges} edges in {data['seconds']} s\n"
    )
    counts = sorted(report.files_skipped.items())
    if not counts:
        return line
    reasons = ", ".join(f"{n} {why}" for why, n in counts)
    return line + f"left out: {reasons} (list them: prooftext index --excluded [--reason R])\n"


def _list_exclusions(left_out: list[prooftext.Exclusion], as_json: bool, reason: str | None) -> None:
    if as_json:
        emit_json({"excluded": [{**e.to_dict(), "remedy": e.remedy} for e in left_out]})
        return
    by_reason: dict[str, list[prooftext.Exclusion]] = {}
    for exclusion in left_out:
        by_reason.setdefault(exclusion.reason, []).append(exclusion)
    lines: list[str] = []
    for why, group in sorted(by_reason.items()):
        lines.append(f"{why} ({len(group)}): {group[0].remedy}")
        lines.extend(f"  {e.path}" + (f"  [{e.detail}]" if e.detail else "") for e in group)
    none = "nothing was left out" + (f" with reason {reason}" if reason else "")
    write_out("\n".join(lines) + "\n" if lines else none + "\n")
