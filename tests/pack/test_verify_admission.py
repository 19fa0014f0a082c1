"""Verify reads only files a scan of the root would adopt: a crafted packet cannot make it open, digest or
compare any other file, and each such excerpt fails with kind ``source_excluded`` and the scan's reason."""

from __future__ import annotations

import hashlib
import json
import os
import random
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import prooftext
from helpers import redigested
from prooftext.corpus import safeio
from prooftext.corpus.config import load_config
from prooftext.corpus.labels import labels_for
from prooftext.corpus.lines import LineText
from prooftext.pack.render import Block, derive_nonce, render
from prooftext.pack.verify import BIT_SOURCE, KIND_EXCLUDED, verify_packet

QUERY = "separability_matrix of a compound model"
FAKE_TOKEN_SEED = 11
FAKE_TOKEN_CHARS = 36
PLACEHOLDER_TEXT = "x\n"
"""What a forger claims a file it cannot read holds (a FIFO's): only the refusal matters there."""


def _fake_token() -> str:
    """A GitHub-token-shaped fake, built at test time so no literal credential is committed."""
    rng = random.Random(FAKE_TOKEN_SEED)
    return (
        "gh"
        + "p_"
        + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(FAKE_TOKEN_CHARS))
    )


TOKEN = _fake_token()
SECRET_NAME = f"{TOKEN}.txt"

CONFIG = '[scan]\nexclude = ["vendor/**"]\nmax_file_bytes = 4096\nsecrets = "exclude"\n'
NOT_ADOPTED: dict[str, tuple[str, str]] = {
    # case: (path the packet quotes, the scan's reason for not adopting it)
    "ignored by .gitignore": ("debug.log", "ignored"),
    "below a directory .gitignore ignores": ("build/gen.py", "ignored"),
    "excluded by prooftext.toml": ("vendor/lib.py", "ignored"),
    "inside .git": (".git/config", "internal"),
    "inside .prooftext": (".prooftext/notes.md", "internal"),
    "over max_file_bytes": ("big.py", "size"),
    "a credential in its text": ("creds.py", "secret"),
    "a credential in its name": (SECRET_NAME, "secret"),
    "a FIFO": ("pipe", "not_regular"),
    "a symlink leaving the root": ("link.txt", "symlink"),
    "below a symlinked directory": ("linkdir/outside.txt", "symlink"),
}
NEVER_OPENED = set(NOT_ADOPTED) - {"a credential in its text"}
"""Every case but a credential in the text is decided without opening the file (the scan's reader must
read a text to find a credential in it, and then refuses it before anything is compared)."""


def _write_not_adopted(root: Path) -> None:
    files = {
        ".gitignore": "*.log\nbuild/\n",
        "prooftext.toml": CONFIG,
        "debug.log": "a log line\n",
        "build/gen.py": "generated = True\n",
        "vendor/lib.py": "vendored = True\n",
        ".git/config": "[core]\n",
        ".prooftext/notes.md": "internal notes\n",
        "big.py": "# big\n" * 1000,
        "creds.py": f'token = "{TOKEN}"\n',
        SECRET_NAME: "named after a credential\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    os.mkfifo(root / "pipe")
    outside = root.parent / "outside"
    outside.mkdir()
    (outside / "outside.txt").write_text("outside the root\n")
    (root / "link.txt").symlink_to(outside / "outside.txt")
    (root / "linkdir").symlink_to(outside)


@pytest.fixture
def packet(sample_repo: Path) -> dict[str, Any]:
    """A genuine packet, saved before the files a scan would not adopt appear."""
    with prooftext.open(sample_repo) as index:
        saved: dict[str, Any] = json.loads(json.dumps(index.pack(QUERY).to_dict()))
    _write_not_adopted(sample_repo)
    return saved


def _quoting(packet: dict[str, Any], root: Path, path: str) -> dict[str, Any]:
    """``packet`` rewritten to quote line 1 of ``path`` as its one excerpt, with the digest, labels, nonce
    and prompt derived exactly as the renderer does: a forgery only admission can catch."""
    target = root / path
    data = target.read_bytes() if target.is_file() else PLACEHOLDER_TEXT.encode()
    sha = hashlib.sha256(data).hexdigest()
    labels = labels_for(path, load_config(root))
    item = {**packet["evidence"][0], "path": path, "lines": [1, 1], "sha256": sha}
    item.update(authority=labels.authority, sensitivity=labels.sensitivity)
    item["truncated_from"] = None
    text = LineText(data.decode("utf-8")).slice(1, 1)
    block = Block(path, 1, 1, sha, labels.authority, labels.sensitivity, text, None)
    query = packet["query"]["text"]
    nonce = derive_nonce(query, [block])
    prompt = render(packet["format"], query, [block], nonce)
    return redigested({**packet, "evidence": [item], "nonce": nonce, "prompt": prompt})


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every name the safe reader opens (it opens one path component at a time)."""
    names: list[str] = []
    real_open = os.open

    def recording_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        names.append(os.fsdecode(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(safeio.os, "open", recording_open)
    yield names


@pytest.mark.parametrize("case", sorted(NOT_ADOPTED))
def test_a_packet_quoting_a_file_the_scan_would_not_adopt_fails_as_source_excluded_with_the_scans_reason(
    packet: dict[str, Any], sample_repo: Path, case: str
) -> None:
    path, reason = NOT_ADOPTED[case]
    report = verify_packet(_quoting(packet, sample_repo, path), sample_repo)
    assert report.status == BIT_SOURCE
    assert [(p["kind"], p["reason"]) for p in report.problems] == [(KIND_EXCLUDED, reason)]


@pytest.mark.parametrize("case", sorted(NEVER_OPENED))
def test_verify_never_opens_a_file_the_scan_would_not_adopt(
    packet: dict[str, Any], sample_repo: Path, opened: list[str], case: str
) -> None:
    path, _ = NOT_ADOPTED[case]
    forged = _quoting(packet, sample_repo, path)
    opened.clear()
    verify_packet(forged, sample_repo)
    assert Path(path).name not in opened


def test_a_path_spelling_a_credential_is_reported_redacted(packet: dict[str, Any], sample_repo: Path) -> None:
    report = verify_packet(_quoting(packet, sample_repo, SECRET_NAME), sample_repo)
    assert TOKEN not in json.dumps(report.to_dict())
    assert report.problems[0]["path"].startswith("[REDACTED:github-token#")


def test_a_genuine_packet_still_verifies_with_the_not_adopted_files_present(
    packet: dict[str, Any], sample_repo: Path
) -> None:
    assert verify_packet(packet, sample_repo).ok


@pytest.mark.parametrize("path", ["../outside/outside.txt", "/etc/hostname"])
def test_a_path_outside_the_root_stays_a_bad_locator_and_is_never_opened(
    packet: dict[str, Any], sample_repo: Path, opened: list[str], path: str
) -> None:
    forged = packet
    forged["evidence"][0]["path"] = path
    opened.clear()
    report = verify_packet(redigested(forged), sample_repo)
    assert [p["kind"] for p in report.problems if p.get("path") == path] == ["locator_invalid"]
    assert Path(path).name not in opened
