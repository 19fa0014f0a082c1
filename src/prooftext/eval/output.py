"""Where a run writes: the declaration before it starts, rows as they arrive, the summary and the report."""

from __future__ import annotations

import json
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from prooftext.errors import ArtifactError

DECLARATION_FILE = "declaration.json"
ROWS_FILE = "tasks.jsonl"
SUMMARY_FILE = "summary.json"
REPORT_FILE = "report.html"
JSON_INDENT = 2


def dumps(value: Any) -> str:
    # allow_nan=False: NaN and Infinity are not JSON, so a non-finite number must fail loudly here rather
    # than leave a file that no strict reader accepts (inputs are checked to be finite before a run starts).
    return json.dumps(value, sort_keys=True, ensure_ascii=False, allow_nan=False)


def _document(value: Any) -> str:
    """A whole JSON file (declaration, summary): indented, ASCII, and like :func:`dumps` never NaN."""
    return json.dumps(value, sort_keys=True, indent=JSON_INDENT, allow_nan=False) + "\n"


class RunOutput:
    """An output directory (or none: then nothing is written)."""

    def __init__(self, out_dir: Path | None) -> None:
        self.out_dir = out_dir
        self._rows: IO[str] | None = None

    def _path(self, name: str) -> Path | None:
        return None if self.out_dir is None else self.out_dir / name

    def _write(self, name: str, text: str) -> None:
        path = self._path(name)
        if path is None:
            return
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise ArtifactError(f"cannot write {path}: {exc.strerror}") from None

    def start(self, declaration: dict[str, Any]) -> None:
        """Create the directory, write the declaration, and open a fresh rows file. An earlier run's summary
        and report are removed first, so a run that stops early never leaves them beside its own rows."""
        if self.out_dir is None:
            return
        try:
            self.out_dir.mkdir(parents=True, exist_ok=True)
            for stale in (SUMMARY_FILE, REPORT_FILE):
                (self.out_dir / stale).unlink(missing_ok=True)
            self._write(DECLARATION_FILE, _document(declaration))
            self._rows = (self.out_dir / ROWS_FILE).open("w", encoding="utf-8")
        except OSError as exc:
            raise ArtifactError(f"cannot write to {self.out_dir}: {exc.strerror}") from None

    def row(self, row: dict[str, Any]) -> None:
        if self._rows is not None:
            self._rows.write(dumps(row) + "\n")
            self._rows.flush()

    def finish(self, summary: dict[str, Any], report_html: str | None) -> None:
        self.close()
        self._write(SUMMARY_FILE, _document(summary))
        if report_html is not None:
            self._write(REPORT_FILE, report_html)

    def close(self) -> None:
        if self._rows is not None:
            self._rows.close()
            self._rows = None

    def __enter__(self) -> RunOutput:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
