"""Fixtures of the reliability suite: corpora, the CLI in-process, figures and known-bug markers.

Figures (RELIABILITY.md 3.4) are recorded with the ``figure`` fixture as ``record_property`` entries named
``figure:<name>``; ``PYTHONPATH=tests python -m reliability.robustness`` sums them over the run. A test
records its measured value *before* asserting on it, so a failing run still reports the number.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import prooftext
from helpers import SAMPLE_FILES, pack_fields
from prooftext.cli import main

Tree = dict[str, bytes | str]
MakeTree = Callable[[Tree], Path]
Figure = Callable[[str, int], None]
Cli = Callable[..., tuple[int, str, str]]

REPO = Path(__file__).resolve().parents[2]
PYTHON = sys.executable


def write_tree(root: Path, files: Tree) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return root


@pytest.fixture
def make_tree(tmp_path: Path) -> MakeTree:
    """``make_tree({"a/b.py": "x = 1\\n"})`` writes the files under a fresh root and returns the root."""
    root = tmp_path / "repo"
    root.mkdir(exist_ok=True)
    return lambda files: write_tree(root, files)


@pytest.fixture
def repo(make_tree: MakeTree) -> Path:
    """The small Python/Markdown sample repository of ``tests/helpers.py``."""
    return make_tree(dict(SAMPLE_FILES))


@pytest.fixture
def indexed(repo: Path) -> Path:
    with prooftext.open(repo) as index:
        index.refresh()
    return repo


@pytest.fixture
def figure(record_property: Callable[[str, object], None]) -> Figure:
    """``figure("secret_leaks", n)``: add ``n`` to a RELIABILITY.md 3.4 figure for this run."""

    def record(name: str, value: int) -> None:
        record_property(f"figure:{name}", int(value))

    return record


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Cli:
    """Run ``prooftext ARGV`` in-process: ``(status, stdout, stderr)``."""

    def run(*argv: str) -> tuple[int, str, str]:
        status = main([str(a) for a in argv])
        out, err = capsys.readouterr()
        return status, out, err

    return run


def run_python_parallel(
    jobs: list[tuple[str, list[str], dict[str, str]]], timeout: float = 120
) -> list[subprocess.CompletedProcess[str]]:
    """Several :func:`run_python` children at once (``(code, args, env)`` each), in order."""
    procs = []
    for code, args, env in jobs:
        full_env = {**os.environ, "PYTHONPATH": str(REPO / "tests"), **env}
        procs.append(
            subprocess.Popen(
                [PYTHON, "-c", code, *args],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=full_env,
                start_new_session=True,
            )
        )
    results = []
    for proc in procs:
        try:
            out, err = proc.communicate(timeout=timeout)
        finally:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
        results.append(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
    return results


PIPE_POLL_SECONDS = 0.5
"""How long one read of a child's pipes waits before looking whether the child has exited."""


def run_python(
    code: str, *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run ``python -c code args`` in a fresh interpreter and its own process group.

    The group is killed once the child has exited (or timed out), so helpers it started (a process pool
    orphaned by a SIGKILLed parent) can never hold its pipes open or outlive the test. The pipes are read
    all along: a child writing more than a pipe holds (64 KiB) would otherwise block forever.
    """
    full_env = {**os.environ, "PYTHONPATH": str(REPO / "tests"), **(env or {})}
    proc = subprocess.Popen(
        [PYTHON, "-c", code, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=full_env,
        start_new_session=True,
    )
    deadline = time.monotonic() + timeout
    done: tuple[str, str] | None = None
    try:
        while done is None:
            try:
                done = proc.communicate(timeout=PIPE_POLL_SECONDS)
            except subprocess.TimeoutExpired:
                if proc.poll() is not None or time.monotonic() > deadline:
                    break  # exited with its pipes held open by a helper, or timed out: kill, then drain
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
    out, err = done if done is not None else proc.communicate()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def run_cli_subprocess(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_python("import sys; from prooftext.cli import main; main()", *argv, env=env)


def known_bug(reason: str) -> pytest.MarkDecorator:
    """A case the code fails today because of a bug in a file this suite does not own (see the report).

    Not strict: when the owner fixes the bug the test passes (``XPASS``) without turning CI red, and
    ``PYTHONPATH=tests python -m reliability.robustness`` lists it under ``fixed_known_bugs`` so the marker
    can be removed.
    """
    return pytest.mark.xfail(strict=False, reason=f"BUG: {reason}")


def packet_json(root: Path, query: str = "separability matrix", **kw: Any) -> dict[str, Any]:
    with prooftext.open(root) as index:
        return pack_fields(index, query, **kw).to_dict()


def error_code(out: str) -> str:
    code: str = json.loads(out)["error"]["code"]
    return code


def all_output_bytes(root: Path) -> bytes:
    """Every byte prooftext persisted under the root's store directory (database, WAL, locks)."""
    store = root / ".prooftext"
    chunks: list[bytes] = []
    if store.is_dir():
        for path in sorted(store.rglob("*")):
            if path.is_file():
                chunks.append(path.read_bytes())
    return b"\n".join(chunks)
