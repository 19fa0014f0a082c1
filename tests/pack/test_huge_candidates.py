"""An excerpt too long for the room is left out without being rendered, redacted or counted, and the floor
that rules it out never changes a packet: with and without it, every packet is the same, byte for byte."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

import prooftext
from helpers import pack_fields, write_tree
from prooftext.cli import main
from prooftext.pack import packet as packet_module
from prooftext.pack.packet import Compiler
from prooftext.pack.render import FORMATS, Block
from prooftext.select.candidates import Candidate
from prooftext.tokens import TiktokenCounter

QUERY = "reconcile widget ledger"
GENERATED = "gen/ledger_tables.py"
GENERATED_LINES = 3000
LONG_LINES = "notes/ledger_journal.txt"
SMALL = {
    "ledger/reconcile.py": (
        'def reconcile_widget_ledger(ledger):\n    """Reconcile the widget ledger."""\n    return ledger\n'
    ),
    "docs/ledger.md": "# Widget ledger\n\nThe widget ledger is reconciled nightly.\n",
}


def _generated(tag: str) -> str:
    """One function of many lines (generated code): a single candidate far larger than a small packet."""
    body = "".join(
        f"    ledger.widget_{i}_{tag} = reconcile_widget_entry({i}, 'journal batch {i % 97}')\n"
        for i in range(GENERATED_LINES)
    )
    return f"def reconcile_widget_ledger_tables(ledger):\n{body}    return ledger\n"


def _long_lines(tag: str) -> str:
    """Three lines of about 30 000 characters each: too long for a small packet, but few enough that only
    their redacted text shows it (a credential may run the whole length of a line)."""
    words = [f"reconcile widget ledger entry {i} of journal batch {i % 97} for {tag}" for i in range(500)]
    return "\n".join(" ".join(words[k::3]) for k in range(3)) + "\n"


@pytest.fixture
def index(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[prooftext.Index]:
    # Content unique to the test: excerpt costs are remembered per process, keyed by the file's digest.
    tag = request.node.name
    root = write_tree(tmp_path / "repo", {**SMALL, GENERATED: _generated(tag), LONG_LINES: _long_lines(tag)})
    with prooftext.open(root) as opened:
        opened.refresh()
        yield opened


def _record_renders(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, int]]:
    rendered: list[tuple[str, int, int]] = []
    real = packet_module.render_block

    def recording(fmt: str, block: Block, nonce: str, index: int) -> str:
        rendered.append((block.path, block.start_line, block.end_line))
        return real(fmt, block, nonce, index)

    monkeypatch.setattr(packet_module, "render_block", recording)
    return rendered


def _without_floor(monkeypatch: pytest.MonkeyPatch) -> None:
    def zero(self: Compiler, cand: Candidate, start: int, end: int) -> int:
        return 0

    monkeypatch.setattr(Compiler, "floor", zero)


def _longest_span(index: prooftext.Index, path: str) -> tuple[int, int]:
    hits = [h for h in index.search(QUERY, limit=50) if h["path"] == path]
    assert hits, "the file matches the query"
    start, end = max((h["excerpt_range"] for h in hits), key=lambda lines: lines[1] - lines[0])
    return start, end


def test_a_candidate_too_long_for_a_small_packet_is_never_rendered(
    index: prooftext.Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    start, end = _longest_span(index, GENERATED)
    assert end - start > GENERATED_LINES // 2
    rendered = _record_renders(monkeypatch)
    counted = _record_counts(monkeypatch)
    packet = pack_fields(index, QUERY, max_tokens=200)
    assert (GENERATED, start, end) not in rendered
    assert all(path != GENERATED for path, _, _ in rendered)
    assert counted and max(counted) < len(_generated("")) // 10
    left_out = [e for e in packet.excluded if e["path"] == GENERATED and e["lines"] == [start, end]]
    assert [e["reason"] for e in left_out] == ["over_budget"]


def test_a_truncated_excerpt_is_found_without_rendering_the_prefixes_that_cannot_fit(
    index: prooftext.Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = {"max_tokens": 400, "allow_truncated": True}
    rendered = _record_renders(monkeypatch)
    packet = pack_fields(index, QUERY, **options).to_dict()
    monkeypatch.undo()
    packet_module._COSTS.clear()  # measured again: every excerpt the fill asks for is rendered
    _without_floor(monkeypatch)
    every = _record_renders(monkeypatch)
    assert pack_fields(index, QUERY, **options).to_dict() == packet
    assert any(e["path"] == GENERATED and e["truncated_from"] for e in packet["evidence"])
    longest = max(end - start for path, start, end in rendered if path == GENERATED)
    assert longest < max(end - start for path, start, end in every if path == GENERATED)


CEILINGS = {"o200k_base": (200, 1200, 6000), "cl100k_base": (200, 1200, 6000), "bytes": (1024, 5000, 30000)}


@pytest.mark.parametrize("tokenizer", sorted(CEILINGS))
@pytest.mark.parametrize("fmt", FORMATS)
def test_the_floor_never_changes_a_packet(
    index: prooftext.Index, monkeypatch: pytest.MonkeyPatch, fmt: str, tokenizer: str
) -> None:
    queries = [
        {"max_tokens": ceiling, "allow_truncated": truncated, "tokenizer": tokenizer, "format": fmt}
        for ceiling in CEILINGS[tokenizer]
        for truncated in (False, True)
    ]
    with_floor = [pack_fields(index, QUERY, **q).to_dict() for q in queries]
    _without_floor(monkeypatch)
    assert [pack_fields(index, QUERY, **q).to_dict() for q in queries] == with_floor


def _record_counts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of every text a tokenizer counts."""
    lengths: list[int] = []
    real_count, real_many = TiktokenCounter.count, TiktokenCounter.count_many

    def count(self: TiktokenCounter, text: str) -> int:
        lengths.append(len(text))
        return real_count(self, text)

    def count_many(self: TiktokenCounter, texts: Sequence[str]) -> list[int]:
        lengths.extend(map(len, texts))
        return real_many(self, texts)

    monkeypatch.setattr(TiktokenCounter, "count", count)
    monkeypatch.setattr(TiktokenCounter, "count_many", count_many)
    return lengths


def test_a_few_very_long_lines_are_left_out_by_their_stored_length_never_rendered_or_counted(
    index: prooftext.Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _longest_span(index, LONG_LINES) == (1, 3)
    rendered = _record_renders(monkeypatch)
    counted = _record_counts(monkeypatch)
    packet = pack_fields(index, QUERY, max_tokens=200)
    assert all(path != LONG_LINES for path, _, _ in rendered)
    assert counted and max(counted) < len(_long_lines("")) // 10
    left_out = [e["reason"] for e in packet.excluded if e["path"] == LONG_LINES]
    assert left_out == ["over_budget"]


def test_with_allowlist_pragmas_the_floor_redacts_the_stored_text_and_changes_no_packet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pragma keeps a value in the stored text that rendering redacts anyway: the stored length is then no
    floor, so the floor measures the redacted text instead."""
    files = {
        **SMALL,
        LONG_LINES: _long_lines("pragma"),
        "prooftext.toml": "[scan]\nsecrets_allow_pragma = true\n",
    }
    root = write_tree(tmp_path / "repo", files)
    with prooftext.open(root) as index:
        index.refresh()
        rendered = _record_renders(monkeypatch)
        with_floor = pack_fields(index, QUERY, max_tokens=200).to_dict()
        assert all(path != LONG_LINES for path, _, _ in rendered)
        monkeypatch.undo()
        _without_floor(monkeypatch)
        assert pack_fields(index, QUERY, max_tokens=200).to_dict() == with_floor


def test_the_command_line_pack_leaves_a_huge_candidate_out_unrendered(
    index: prooftext.Index, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rendered = _record_renders(monkeypatch)
    status = main(["pack", QUERY, "--root", str(index.root), "--max-tokens", "200", "--json"])
    out = capsys.readouterr().out
    assert status == 0 and GENERATED not in [e["path"] for e in json.loads(out)["evidence"]]
    assert all(path not in (GENERATED, LONG_LINES) for path, _, _ in rendered)
