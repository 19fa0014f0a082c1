"""Control characters in sources: every XML prompt is well-formed, no prompt carries a terminal control,
each such excerpt is flagged, and verify re-renders the same prompt from the unchanged source."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import prooftext
from helpers import write_tree
from prooftext.pack.injection import CONTROL, flags
from prooftext.pack.render import CONTROL_PICTURES, FORMATS, PICTURE_DEL, Block, excerpt_text, render

FORM_FEED_SOURCE = "def ff_widget():\n    x = 1\x0c\n    return x\n"
TERMINAL_SOURCE = 'def esc_widget():\n    s = "\x1b[2J\x1b]0;title\x07 back\x08x\x7f"\n    return s\n'
TERMINAL_CONTROLS = 5
"""ESC twice, BEL, backspace and DEL in ``TERMINAL_SOURCE``."""
NONCE = "123456789012345678"
PICTURE_OF = {chr(CONTROL_PICTURES + code): chr(code) for code in range(0x20)} | {PICTURE_DEL: "\x7f"}
PICTURES = re.compile("[\u2400-\u241f\u2421]")
NOT_PICTURED = re.compile("[\ufffd-\uffff]")
"""U+FFFE and U+FFFF show as U+FFFD, which cannot be mapped back: the texts of the round-trip property
hold none of them."""


def _block(text: str) -> Block:
    return Block("src/a.py", 1, max(1, text.count("\n")), "0" * 64, "repository-record", "public", text)


def _unpictured(text: str) -> str:
    return PICTURES.sub(lambda m: PICTURE_OF[m.group(0)], text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200), st.text(max_size=60))
def test_every_xml_prompt_is_well_formed_whatever_the_excerpt_and_query_hold(text: str, query: str) -> None:
    ET.fromstring(render("xml", query, [_block(text)], NONCE))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_no_markdown_or_xml_prompt_holds_a_control_and_the_xml_excerpt_maps_back_exactly(text: str) -> None:
    block = _block(text)
    for fmt in ("markdown", "xml"):
        assert CONTROL.search(render(fmt, "query", [block], NONCE)) is None
    if PICTURES.search(text) is None and NOT_PICTURED.search(text) is None:
        shown = ET.fromstring(render("xml", "query", [block], NONCE)).findtext("evidence") or ""
        quoted = excerpt_text(block)
        quoted = quoted if quoted.endswith("\n") else quoted + "\n"
        # The block opens with a line feed after its tag; an XML parser reads every CR as a line end.
        assert _unpictured(shown) == "\n" + re.sub("\r\n?", "\n", quoted)


def test_the_json_format_quotes_control_characters_exactly_as_string_escapes() -> None:
    block = _block(TERMINAL_SOURCE)
    prompt = render("json", "query", [block], NONCE)
    assert CONTROL.search(prompt) is None
    assert json.loads(prompt)["evidence"][0]["text"] == TERMINAL_SOURCE


def test_terminal_controls_are_flagged_with_their_count() -> None:
    assert flags(TERMINAL_SOURCE) == [f"control:{TERMINAL_CONTROLS}"]
    assert flags(FORM_FEED_SOURCE) == ["control:1"]
    assert flags("tab\tand\r\nline feeds\n") == []


@pytest.fixture
def control_repo(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "repo", {"ff.py": FORM_FEED_SOURCE, "esc.py": TERMINAL_SOURCE})


def test_a_form_feed_in_a_source_gives_a_well_formed_flagged_xml_prompt_that_verifies(
    control_repo: Path,
) -> None:
    with prooftext.open(control_repo) as index:
        packet = index.pack("ff_widget", format="xml")
        evidence = ET.fromstring(packet.prompt).find("evidence")
        assert evidence is not None and evidence.get("flags") == "control:1"
        assert "x = 1\u240c\n" in (evidence.text or "")
        assert index.verify(packet.to_dict()).ok


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_escape_sequence_never_reaches_a_prompt_raw_and_the_packet_still_verifies(
    control_repo: Path, fmt: str
) -> None:
    with prooftext.open(control_repo) as index:
        packet = index.pack("esc_widget", format=fmt)
        assert CONTROL.search(packet.prompt) is None
        assert f"control:{TERMINAL_CONTROLS}" in packet.prompt
        assert packet.evidence_texts[0] == TERMINAL_SOURCE  # the quoted bytes, which the sha256 pins
        assert index.verify(packet.to_dict()).ok
    if fmt == "markdown":
        assert '"\u241b[2J\u241b]0;title\u2407 back\u2408x\u2421"' in packet.prompt
