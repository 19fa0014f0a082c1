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


def dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


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
        """Create the directory, write the declaration, and open a fresh rows file."""
        if self.out_dir is None:
            return
        try:
            self.out_dir.mkdir(parents=True, exist_ok=True)
            self._write(DECLARATION_FILE, json.dumps(declaration, sort_keys=True, indent=2) + "\n")
            self._rows = (self.out_dir / ROWS_FILE).open("w", encoding="utf-8")
        except OSError as exc:
            raise ArtifactError(f"cannot write to {self.out_dir}: {exc.strerror}") from None

    def row(self, row: dict[str, Any]) -> None:
        if self._rows is not None:
            self._rows.write(dumps(row) + "\n")
            self._rows.flush()

    def finish(self, summary: dict[str, Any], report_html: str | None) -> None:
        self.close()
        self._write(SUMMARY_FILE, json.dumps(summary, sort_keys=True, indent=2) + "\n")
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
