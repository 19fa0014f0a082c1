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
ESCAPED = re.compile(r"\[U\+([0-9A-F]{4,5})\]")
"""A C1 control, bidirectional control or invisible character, written out."""
NOT_PICTURED = re.compile("[\ufffd-\uffff]|\\[U\\+")
"""U+FFFE and U+FFFF show as U+FFFD, which cannot be mapped back: the texts of the round-trip property
hold none of them."""


def _block(text: str) -> Block:
    return Block("src/a.py", 1, max(1, text.count("\n")), "0" * 64, "repository-record", "public", text)


def _unpictured(text: str) -> str:
    text = PICTURES.sub(lambda m: PICTURE_OF[m.group(0)], text)
    return ESCAPED.sub(lambda m: chr(int(m.group(1), 16)), text)


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
        # An XML parser reads a CRLF as a line end (a lone CR is shown as its picture); the block opens
        # with a line feed after its tag and ends with one.
        quoted = excerpt_text(block).replace("\r\n", "\n")
        quoted = quoted if quoted.endswith("\n") else quoted + "\n"
        assert _unpictured(shown) == "\n" + quoted


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


OVERWRITE_SOURCE = 'def cr_widget():\n    return "safe"\r    os.system("rm -rf ~")  #\n'
"""A lone carriage return: printed raw, the second half of the line would overwrite the first."""
C1_SOURCE = 'def csi_widget():\n    return "\x9b2J"\n'
TROJAN_SOURCE = 'def is_admin(user):\n    if user.role != "admin\u202e \u2066// check\u2069 \u2066":\n        return False\n'


@pytest.mark.parametrize("fmt", ["markdown", "xml"])
def test_a_lone_carriage_return_is_shown_as_its_picture_and_counted(fmt: str) -> None:
    prompt = render(fmt, "query", [_block(OVERWRITE_SOURCE)], NONCE)
    assert "\r" not in prompt and '"safe"\u240d    os.system' in prompt
    assert flags(OVERWRITE_SOURCE) == ["control:1"]


def test_a_crlf_line_end_is_ordinary_text() -> None:
    text = "def crlf_widget():\r\n    return 1\r\n"
    assert render("markdown", "query", [_block(text)], NONCE).count("\r\n") == 2
    assert flags(text) == []


@pytest.mark.parametrize("fmt", ["markdown", "xml"])
def test_a_c1_control_is_written_out_and_counted(fmt: str) -> None:
    prompt = render(fmt, "query", [_block(C1_SOURCE)], NONCE)
    assert "\x9b" not in prompt and 'return "[U+009B]2J"' in prompt
    assert flags(C1_SOURCE) == ["control:1"]


@pytest.mark.parametrize("fmt", ["markdown", "xml"])
def test_trojan_source_bidirectional_controls_are_written_out_and_flagged(fmt: str) -> None:
    prompt = render(fmt, "query", [_block(TROJAN_SOURCE)], NONCE)
    assert not any(c in prompt for c in "\u202e\u2066\u2069")
    assert '"admin[U+202E] [U+2066]// check[U+2069] [U+2066]"' in prompt
    assert flags(TROJAN_SOURCE) == ["bidi:4"]
    assert (
        json.loads(render("json", "query", [_block(TROJAN_SOURCE)], NONCE))["evidence"][0]["text"]
        == TROJAN_SOURCE
    )


def test_an_emoji_sequence_and_a_leading_byte_order_mark_stay_as_they_are() -> None:
    text = "\ufeff# Team \U0001f469\u200d\U0001f4bb notes\n"
    assert "\U0001f469\u200d\U0001f4bb" in render("markdown", "query", [_block(text)], NONCE)


def test_a_packet_quoting_controls_and_format_characters_verifies(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "repo", {"cr.py": OVERWRITE_SOURCE, "csi.py": C1_SOURCE, "trojan.py": TROJAN_SOURCE}
    )
    with prooftext.open(root) as index:
        packet = index.pack("cr_widget csi_widget is_admin")
        report = index.verify(packet.to_dict())
    assert len(packet.evidence) == 3 and report.ok
    assert CONTROL.search(packet.prompt) is None and "\u202e" not in packet.prompt


def test_the_command_line_prompt_carries_no_raw_carriage_return_c1_control_or_bidi_control(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from prooftext.cli import main

    root = write_tree(
        tmp_path / "repo", {"cr.py": OVERWRITE_SOURCE, "csi.py": C1_SOURCE, "trojan.py": TROJAN_SOURCE}
    )
    assert main(["pack", "cr_widget csi_widget is_admin", "--root", str(root)]) == 0
    prompt = capsys.readouterr().out
    assert (
        not any(c in prompt for c in "\r\x9b\u202e\u2066\u2069")
        and "[U+202E]" in prompt
        and "\u240d" in prompt
    )
