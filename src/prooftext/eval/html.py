"""A small self-contained HTML report: headings, tables, notes and matplotlib figures embedded as PNG.

Figures are drawn on a bare :class:`matplotlib.figure.Figure` (no pyplot state, no display needed) and
inlined as base64 ``data:`` URIs, so the file opens anywhere without its neighbours.
"""

from __future__ import annotations

import base64
import html
import io
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from prooftext.eval.common import require_eval_extra

if TYPE_CHECKING:
    from matplotlib.figure import Figure


FIGURE_DPI = 110
STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 72em; color: #222; }
table { border-collapse: collapse; margin: 0.6em 0 1.4em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #f2f2f2; }
pre { background: #f7f7f7; padding: 0.8em; overflow-x: auto; font-size: 0.8em; }
img { max-width: 100%; }
.note { color: #555; font-size: 0.9em; }
.finding { font-size: 1.0em; margin: 0.5em 0 0.4em; padding: 0.3em 0.6em; border-left: 3px solid #4c72b0;
  background: #f5f8fc; }
td.text, th.text { text-align: left; white-space: nowrap; }
"""


def pct(value: object) -> str:
    """A fraction as a percentage with one decimal; a dash when absent."""
    return f"{100 * float(value):.1f}" if isinstance(value, int | float) else "–"


def num(value: object, digits: int = 0) -> str:
    if not isinstance(value, int | float):
        return "–"
    return f"{value:,.{digits}f}"


class HtmlReport:
    def __init__(self, title: str) -> None:
        self.title = title
        self._parts: list[str] = []

    def heading(self, text: str, level: int = 2) -> None:
        self._parts.append(f"<h{level}>{html.escape(text)}</h{level}>")

    def note(self, text: str) -> None:
        self._parts.append(f'<p class="note">{html.escape(text)}</p>')

    def finding(self, text: str) -> None:
        """The one sentence that says what the next table or plot shows: what won, by how much."""
        self._parts.append(f'<p class="finding">{html.escape(text)}</p>')

    def table(self, headers: Sequence[str], rows: Sequence[Sequence[object]], text_columns: int = 1) -> None:
        """A table whose first ``text_columns`` columns are left-aligned text, the rest right-aligned."""

        def cls(i: int) -> str:
            return ' class="text"' if i < text_columns else ""

        head = "".join(f"<th{cls(i)}>{html.escape(str(h))}</th>" for i, h in enumerate(headers))
        body = "".join(
            "<tr>" + "".join(f"<td{cls(i)}>{html.escape(str(c))}</td>" for i, c in enumerate(row)) + "</tr>"
            for row in rows
        )
        self._parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")

    def json_block(self, value: Any) -> None:
        text = json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False)
        self._parts.append(f"<pre>{html.escape(text)}</pre>")

    def figure(self, fig: Figure, alt: str) -> None:
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=FIGURE_DPI, bbox_inches="tight")
        data = base64.b64encode(buffer.getvalue()).decode("ascii")
        self._parts.append(f'<p><img alt="{html.escape(alt)}" src="data:image/png;base64,{data}"></p>')

    def render(self) -> str:
        return (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{html.escape(self.title)}</title><style>{STYLE}</style></head><body>"
            f"<h1>{html.escape(self.title)}</h1>{''.join(self._parts)}</body></html>\n"
        )


def new_figure(width: float = 7.0, height: float = 4.0) -> Figure:
    require_eval_extra()
    from matplotlib.figure import Figure  # loaded only when a report is drawn: it costs a second at start-up

    return Figure(figsize=(width, height))


def bar_figure(title: str, counts: dict[str, int], xlabel: str) -> Figure:
    fig = new_figure(6.0, 3.2)
    ax = fig.add_subplot()
    keys = list(counts)
    ax.bar(range(len(keys)), [counts[k] for k in keys], color="#4c72b0")
    ax.set_xticks(range(len(keys)), keys)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("tasks")
    ax.set_title(title)
    return fig


def manifest_section(report: HtmlReport, manifest: dict[str, Any]) -> None:
    """Declared bar, datasets, tokenizer, arm parameters and code version, as recorded before the run."""
    report.heading("Declared before the run (SACP §9)")
    decl = manifest.get("declaration", {})
    regression = decl.get("permitted_regression")
    # Undeclared, the reference is the benchmark rule's choice after the run (the verdict names it).
    reference = decl.get("reference_arm") or ("chosen by the rule" if regression is not None else "–")
    report.table(
        ["metric", "threshold", "permitted regression", "reference arm", "source", "declared at"],
        [
            [
                decl.get("metric"),
                _value_text(decl.get("threshold")),
                _value_text(regression),
                reference,
                decl.get("source"),
                manifest.get("declared_at"),
            ]
        ],
    )
    datasets = manifest.get("datasets", {})
    report.table(
        ["dataset", "sha256", "path"],
        [[name, d.get("sha256"), d.get("path")] for name, d in datasets.items()],
    )
    code = manifest.get("code", {})
    report.table(
        ["prooftext", "git HEAD", "dirty", "python", "tokenizer", "cpus"],
        [
            [
                code.get("prooftext"),
                _value_text(code.get("git_head")),  # none when prooftext runs from outside a checkout
                yes_no(code.get("git_dirty")),
                code.get("python"),
                manifest.get("tokenizer"),
                manifest.get("cpus"),
            ]
        ],
    )
    report.heading("Arm parameters", 3)
    for arm, params in manifest.get("arms", {}).items():
        report.note(f"{arm}: " + "; ".join(f"{key} = {_value_text(value)}" for key, value in params.items()))


def _value_text(value: object) -> str:
    """A parameter as words: lists joined by commas, objects as ``key: value``, nothing as a dash."""
    if value is None:
        return "–"
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple):
        return ", ".join(_value_text(v) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_value_text(v)}" for k, v in value.items())
    return json.dumps(value, ensure_ascii=False)


def legend_outside(ax: Any) -> None:
    """The legend right of the axes, never over the data (the saved figure widens to hold it)."""
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)


def anchor_section(
    report: HtmlReport, heading: str, anchors: Sequence[dict[str, Any]], finding: str | None = None
) -> None:
    """Published results to read a run against: each system, its metric and its value."""
    report.heading(heading)
    if finding is not None:
        report.finding(finding)
    report.table(
        ["system", "metric", "value %"], [[a["name"], a["metric"], pct(a["value"])] for a in anchors]
    )


def yes_no(value: object) -> str:
    return "–" if value is None else ("yes" if value else "no")


def verdict_section(
    report: HtmlReport, verdict: dict[str, Any], metric: str, *, heading: bool = True
) -> None:
    """Per arm: the declared metric, the reference's value and the regression from it (columns left out
    when no arm has a reference), and pass/fail."""
    if heading:
        report.heading("Verdict against the declaration")
    referenced = any(isinstance(v.get("reference_value"), int | float) for v in verdict.values())
    references = {str(v["reference"]) for v in verdict.values() if v.get("reference")}
    fitted = any("fits_budget" in v for v in verdict.values())
    headers = ["arm", *(["fits budget"] if fitted else []), f"{metric} %"]
    reference = references.pop() if len(references) == 1 else "full"
    headers += [f"{reference} (reference) %", "regression (pts)"] if referenced else []
    headers += (
        ["meets threshold", "within regression", "passes"] if referenced else ["meets threshold", "passes"]
    )
    rows = []
    for arm, v in verdict.items():
        row = [arm, *([yes_no(v.get("fits_budget"))] if fitted else []), pct(v.get("value"))]
        if referenced:
            row += [pct(v.get("reference_value")), pct(v.get("regression"))]
        row.append(yes_no(v.get("meets_threshold")))
        if referenced:
            row.append(yes_no(v.get("within_regression")))
        row.append(yes_no(v.get("passes")))
        rows.append(row)
    report.table(headers, rows)
