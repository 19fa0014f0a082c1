"""A contradiction component whose side no longer reads back as ranked is left out whole, with a reason
for every member, and the packet is compiled in at most one selection pass per drifted source."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import prooftext
import prooftext.pack.packet as packet_module
from helpers import write_tree

QUERY = "how are retries configured attempts backoff"
SIDE_A = "---\ncontradicts: [docs/b.md]\n---\n# Retry policy\n\nRetries are configured with three attempts.\n"
SIDE_B = "# Retries\n\nRetries are configured with five attempts of backoff.\n"
OTHER = "def retries():\n    return 'configured attempts'\n"
SIDES = ("docs/a.md", "docs/b.md")
MAX_PASSES = 8
"""A guard, not a tolerance: the compilations below need at most 2 passes; an endless loop stops here."""


@pytest.fixture
def passes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the selection passes of a compilation; raises instead of looping past ``MAX_PASSES``."""
    calls: list[int] = []
    original = packet_module.fill

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) > MAX_PASSES:
            raise AssertionError(f"selection did not settle after {MAX_PASSES} passes")
        return original(*args, **kwargs)

    monkeypatch.setattr(packet_module, "fill", counted)
    return calls


def _edit(root: Path) -> None:
    (root / "docs/b.md").write_text("# Retries\n\nRetries are never configured.\n", encoding="utf-8")


def _delete(root: Path) -> None:
    (root / "docs/b.md").unlink()


def _swap(root: Path) -> None:
    a, b = root / "docs/a.md", root / "docs/b.md"
    text_a, text_b = a.read_text(encoding="utf-8"), b.read_text(encoding="utf-8")
    a.write_text(text_b, encoding="utf-8")
    b.write_text(text_a, encoding="utf-8")


@pytest.mark.parametrize(("change", "drifted"), [(_edit, 1), (_delete, 1), (_swap, 2)])
def test_a_contradiction_side_changed_after_ranking_leaves_the_component_out_and_the_rest_in(
    tmp_path: Path, passes: list[int], change: Callable[[Path], None], drifted: int
) -> None:
    root = write_tree(tmp_path / "repo", {"docs/a.md": SIDE_A, "docs/b.md": SIDE_B, "src/retry.py": OTHER})
    with prooftext.open(root) as index:
        index.refresh()
        change(root)
        packet = index.pack(QUERY, refresh=False)
    assert len(passes) <= 1 + drifted
    assert [e.path for e in packet.evidence] == ["src/retry.py"]
    members = [e for e in packet.excluded if e.get("node_id") and e["path"] in SIDES]
    assert {e["path"] for e in members} == set(SIDES), "both sides are recorded, not only the drifted one"
    assert all(e["reason"] for e in members)
    assert packet.omitted == 0, "a drifted source is not a lack of room: a larger packet would not quote it"


def test_a_contradiction_partner_that_is_an_empty_file_is_quoted_with_its_side(
    tmp_path: Path, passes: list[int]
) -> None:
    side = "---\ncontradicts: [docs/empty.md]\n---\n# Retry policy\n\nRetries are configured with backoff.\n"
    root = write_tree(tmp_path / "repo", {"docs/a.md": side, "docs/empty.md": ""})
    with prooftext.open(root) as index:
        packet = index.pack("retries configured backoff")
    assert len(passes) == 1
    quoted = {e.path: (e.start_line, e.end_line) for e in packet.evidence}
    assert quoted == {"docs/a.md": (1, 6), "docs/empty.md": (1, 1)}
    assert packet.evidence_texts[list(quoted).index("docs/empty.md")] == ""
    assert not [e for e in packet.excluded if e["reason"] == "range_invalid"]
