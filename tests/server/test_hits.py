"""Search hits show what a packet shows: control, bidirectional and invisible characters in their visible
form, and the flags of the lines a hit was read from."""

from __future__ import annotations

from pathlib import Path

import pytest

import prooftext
from prooftext.server.hits import compact_hits


@pytest.mark.parametrize(
    ("source", "key", "shown", "flags"),
    [
        (
            'def gate(u="a\u202e\u200b"):\n    return u\n',
            "sig",
            'def gate(u="a[U+202E][U+200B]"):',
            "bidi:1,invisible:1",
        ),
        (
            'def gate(u):\n    """\x1b[2J clears the screen."""\n    return u\n',
            "snippet",
            '"""\u241b[2J clears',
            "control:1",
        ),
    ],
    ids=["bidi-and-invisible-in-the-signature", "escape-in-the-snippet"],
)
def test_a_hit_shows_controls_visibly_and_carries_the_flags_of_its_lines(
    tmp_path: Path, source: str, key: str, shown: str, flags: str
) -> None:
    (tmp_path / "gate.py").write_text(source, encoding="utf-8")
    with prooftext.open(tmp_path) as index:
        index.refresh()
        hit = next(h for h in compact_hits(index, "gate", 5) if h["path"] == "gate.py")
    assert hit["flags"] == flags and hit[key].startswith(shown)
    assert not any(ch in hit.get("sig", "") + hit.get("snippet", "") for ch in "\x1b\u202e\u200b")


def test_an_ordinary_hit_carries_no_flags(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        index.refresh()
        hits = compact_hits(index, "separability matrix", 5)
    assert hits and not any("flags" in hit for hit in hits)


@pytest.mark.parametrize("signature", ["def run():", "class A:", "def f(x):"])
def test_a_short_signature_is_kept_whole(tmp_path: Path, signature: str) -> None:
    (tmp_path / "short.py").write_text(
        f"{signature}\n    return value_of_the_short_one()\n", encoding="utf-8"
    )
    with prooftext.open(tmp_path) as index:
        index.refresh()
        hits = compact_hits(index, "short one", 5)
    assert [hit.get("sig") for hit in hits if hit["path"] == "short.py"] == [signature]
