"""``bench/history_probe.py``: commits of a small repository become tasks, and the ranking finds their files.

The repository's history: a first import of three source files (too many to be an answer), a version bump
(housekeeping), a router change with its test, a session change with a ``Co-authored-by:`` trailer, the
removal of a module (its answer is no longer in the tree), a release bot's conventional commit and a subject
too short to say anything.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from helpers import bench_module

ROUTER = '''def match_route(pattern, path):
    """Match a route pattern with parameters such as <int:id> against a request path."""
    converters = {"int": int, "str": str}
    return converters, pattern, path
'''
SESSION = '''def rotate_secret_key(app, fallback_keys):
    """Sign sessions with the new secret key and still accept the fallback keys."""
    return app, fallback_keys
'''
CACHE = "def legacy_cache():\n    return {}\n"


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def _commit(root: Path, message: str, files: dict[str, str | None]) -> None:
    for name, text in files.items():
        path = root / name
        if text is None:
            _git(root, "rm", "-q", name)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        _git(root, "add", name)
    _git(root, "-c", "user.name=T", "-c", "user.email=t@example.org", "commit", "-q", "-m", message)


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("history")
    _git(root, "init", "-q")
    first = {
        "pkg/router.py": "def match_route():\n    pass\n",
        "pkg/session.py": "x = 1\n",
        "pkg/cache.py": CACHE,
    }
    _commit(root, "Import the first version of the package layout", first)
    _commit(root, "Bump version to 1.1 for the next development cycle", {"pkg/version.txt": "1.1\n"})
    router = {"pkg/router.py": ROUTER, "tests/test_router.py": "def test_match():\n    pass\n"}
    _commit(root, "Match route parameters with converters in the router", router)
    message = (
        "Rotate secret keys without dropping the signed sessions\n\nCo-authored-by: Jane Doe <j@example.org>"
    )
    _commit(root, message, {"pkg/session.py": SESSION, "docs/sessions.md": "# Sessions\n"})
    _commit(root, "Remove the legacy cache module from the package", {"pkg/cache.py": None})
    _commit(root, "chore(main): release 1.2.0 (#12)", {"pkg/session.py": SESSION + "\n"})  # a release bot's
    _commit(root, "Fix the router", {"pkg/router.py": ROUTER + "\n"})
    return root


@pytest.fixture(scope="module")
def rows(history: Path) -> list[dict[str, Any]]:
    return list(bench_module("history_probe").probe(history, {"default": {}}, commits=10, scan=100))


def test_commits_that_changed_one_or_two_present_source_files_become_tasks(
    rows: list[dict[str, Any]],
) -> None:
    assert [r["answer"] for r in rows] == [["pkg/session.py"], ["pkg/router.py"]]


def test_the_query_is_the_message_without_its_trailers(rows: list[dict[str, Any]]) -> None:
    assert rows[0]["query"].startswith("Rotate secret keys without dropping the signed sessions")
    assert "Jane Doe" not in rows[0]["query"]


def test_the_ranking_and_the_baseline_both_find_the_changed_file_first(rows: list[dict[str, Any]]) -> None:
    for row in rows:
        assert row["ranking"]["1"] and row["ranking"]["top5"][0] == row["answer"][0]
        assert row["bm25"]["1"]


def test_the_report_gives_each_variant_and_the_baseline(
    history: Path, rows: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    bench_module("history_probe").report(history, rows)
    out = capsys.readouterr().out
    assert "2 tasks" in out
    assert "bm25 over source files: Acc@1 100.0  Acc@5 100.0" in out
    assert "default: Acc@1 100.0  Acc@5 100.0" in out


def test_a_folder_without_git_history_stops_with_a_message_instead_of_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    pass\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="has no git history to read"):
        list(bench_module("history_probe").probe(tmp_path, {"default": {}}, commits=10, scan=100))
