"""Synthetic evaluation data: a two-commit git repository with SWE-bench-style tasks, and a three-session
LoCoMo-style conversation. Every expectation in tests/eval is computed by hand from these."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ALPHA = (
    "def frobnicate_widget(x):\n"  # 1
    "    if x < 0:\n"  # 2
    "        raise ValueError(x)\n"  # 3
    "    return x * 2\n"  # 4
)
BETA_1 = "def unrelated_helper():\n    return None\n"
BETA_2 = (
    "def unrelated_helper():\n"  # 1
    "    return None\n"  # 2
    "\n"  # 3
    "\n"  # 4
    "def quux_gadget():\n"  # 5
    "    return 41\n"  # 6
)
GAMMA = "CONSTANT = 42\n"
README = "# Demo\n\nNothing to see.\n"
NOTES = "Old notes.\n"

FILES_1 = {"README.md": README, "docs/notes.txt": NOTES, "pkg/alpha.py": ALPHA, "pkg/beta.py": BETA_1}
FILES_2 = {"README.md": README, "pkg/alpha.py": ALPHA, "pkg/beta.py": BETA_2, "pkg/gamma.py": GAMMA}

QUERY_1 = "frobnicate_widget crashes when x is negative"
QUERY_2 = "quux_gadget gives the wrong answer"
MISSING_COMMIT = "0123456789abcdef0123456789abcdef01234567"


@dataclass(frozen=True)
class SweFixture:
    git_dir: Path
    commit_1: str
    commit_2: str
    tasks: Path
    repo_map: Path


def _git(cwd: Path, *args: str, when: str | None = None) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com"}
    env.update({"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"})
    if when:
        env.update({"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when})
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def make_repo(root: Path) -> tuple[Path, str, str]:
    """A repository with two commits (FILES_1 then FILES_2); returns its git dir and the commit ids."""
    root.mkdir(parents=True)
    _git(root, "init", "-q")
    _write(root, FILES_1)
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "one", when="2020-01-01T00:00:00Z")
    first = _git(root, "rev-parse", "HEAD")
    (root / "docs" / "notes.txt").unlink()
    _write(root, FILES_2)
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "two", when="2021-01-01T00:00:00Z")
    second = _git(root, "rev-parse", "HEAD")
    return root / ".git", first, second


def task(instance: str, commit: str, query: str, gold: list[tuple[str, list[list[int]]]]) -> dict[str, Any]:
    return {
        "instance_id": instance,
        "repo": "demo/demo",
        "base_commit": commit,
        "problem_statement": query,
        "fix_paths": [p for p, _ in gold],
        "splits": ["dev"],
        "fix_files": [
            {"path": p, "status": "modified", "base_path": p, "base_line_ranges": r} for p, r in gold
        ],
        "fix_spans": {},
    }


# --- a three-session conversation ------------------------------------------------------------------------


def _turn(speaker: str, dia: str, text: str, caption: str | None = None) -> dict[str, Any]:
    turn: dict[str, Any] = {"speaker": speaker, "dia_id": dia, "text": text}
    if caption:
        turn["blip_caption"] = caption
        turn["img_url"] = ["http://example.invalid/x.jpg"]
    return turn


CONVERSATION: dict[str, Any] = {
    "sample_id": "conv-t",
    "conversation": {
        "speaker_a": "Ann",
        "speaker_b": "Bob",
        "session_1_date_time": "1 May 2023",
        "session_1": [
            _turn("Ann", "D1:1", "Hi Bob!"),
            _turn("Bob", "D1:2", "I adopted a parrot named Kiwi.", "a photo of a green bird"),
        ],
        "session_2_date_time": "2 May 2023",
        "session_2": [
            _turn("Ann", "D2:1", "My violin recital went great."),
            _turn("Bob", "D2:2", "Congrats on the recital!"),
        ],
        "session_3_date_time": "3 May 2023",
        "session_3": [
            _turn("Ann", "D3:1", "I started pottery classes."),
            _turn("Bob", "D3:2", "Kiwi learned to whistle."),
        ],
    },
    "qa": [
        {
            "question": "What is the name of Bob's parrot?",
            "answer": "Kiwi",
            "evidence": ["D1:2"],
            "category": 4,
        },
        {
            "question": "What did Ann perform at her recital?",
            "answer": "violin",
            "evidence": ["D2:1; D2:2", "D:2:01"],
            "category": 1,
        },
        {
            "question": "What hobby did Ann start?",
            "answer": "pottery",
            "evidence": ["D3:1", "D9:9", "D"],
            "category": 2,
        },
        {"question": "What is Ann's favourite colour?", "evidence": [], "category": 5},
    ],
}
