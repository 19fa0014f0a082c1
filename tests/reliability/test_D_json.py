"""Catalogue D: JSON inputs (artifacts, RPC params, config) through the strict loader.

D12 and D13 differ from RFC 8785 by design (DESIGN.md "Fixed decisions"; ``tests/vectors/test_jcs.py``):
keys sort by code point, not UTF-16 units, and canonical artifacts hold integers only. The tests pin the
prooftext rule for each.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from prooftext import canonical
from prooftext.corpus.config import load_config
from prooftext.errors import CanonicalJSONError, ConfigError, ProoftextError

from .conftest import Cli, MakeTree


def _code(data: bytes | str) -> str:
    with pytest.raises(CanonicalJSONError) as caught:
        canonical.load(data)
    return caught.value.code


def test_D01_duplicate_keys_are_rejected() -> None:
    assert _code(b'{"a":1,"a":2}') == "json_duplicate_key"
    assert _code(b'{"a":{"b":1,"b":1}}') == "json_duplicate_key"


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_D02_non_finite_constants_are_rejected(constant: str) -> None:
    assert _code(f"[{constant}]".encode()) == "json_nonfinite"


@pytest.mark.parametrize("text", ['"\\ud800"', '{"\\udc00":1}', '"a\\ud83d"'])
def test_D03_lone_surrogates_are_rejected(text: str) -> None:
    assert _code(text.encode()) == "json_lone_surrogate"


@pytest.mark.parametrize("number", ["1.0", "1e2", "1.5", "-0.0"])
def test_D04_floats_where_integers_are_expected_are_rejected(number: str) -> None:
    assert _code(f'{{"max_tokens":{number}}}'.encode()) == "json_float"


@pytest.mark.parametrize("number", [str(2**53), str(-(2**53)), "99999999999999999999"])
def test_D05_integers_beyond_the_safe_range_are_rejected(number: str) -> None:
    assert _code(f"[{number}]".encode()) == "json_integer_range"
    assert canonical.load(f"[{2**53 - 1}]".encode()) == [2**53 - 1]


def test_D06_a_5000_digit_integer_is_rejected_cleanly() -> None:
    assert _code(("[" + "9" * 5000 + "]").encode()) == "json_integer_range"


def test_D07_an_overflowing_float_is_rejected() -> None:
    assert _code(b"[1e400]") == "json_float"


@pytest.mark.parametrize("depth", [canonical.MAX_DEPTH + 1, 100_000])
def test_D08_deep_nesting_is_rejected_without_a_recursion_error(depth: int) -> None:
    assert _code(("[" * depth + "]" * depth).encode()) == "json_too_deep"
    assert _code(('{"a":' * depth + "1" + "}" * depth).encode()) == "json_too_deep"
    ok = "[" * canonical.MAX_DEPTH + "]" * canonical.MAX_DEPTH
    assert canonical.load(ok.encode()) is not None


def test_D09_a_utf8_bom_is_rejected_in_bytes_and_in_text() -> None:
    assert _code(b"\xef\xbb\xbf{}") == "json_bom"
    assert _code("\ufeff{}") == "json_bom"


@pytest.mark.parametrize("data", [b'["\xff"]', b'["\xc0\xaf"]', b'["\xed\xa0\x80"]'])
def test_D10_invalid_utf8_is_rejected(data: bytes) -> None:
    assert _code(data) == "json_encoding"


@pytest.mark.parametrize("text", ['{"a":1}x', '{"a":1}{"b":2}', "[1,2,]", '{"a":1,}', "", " "])
def test_D11_trailing_garbage_concatenation_and_trailing_commas_are_syntax_errors(text: str) -> None:
    assert _code(text.encode()) == "json_syntax"


def test_D12_keys_sort_by_code_point_a_documented_difference_from_jcs() -> None:
    encoded = canonical.encode({"\U0001f602": 1, "\ufb33": 2})
    assert encoded == b'{"\\ufb33":2,"\\ud83d\\ude02":1}'
    assert canonical.encode(canonical.load(encoded)) == encoded  # a fixed point


def test_D13_numbers_are_integers_only_so_jcs_float_forms_do_not_arise() -> None:
    assert canonical.encode([0, -1, 10**15]) == b"[0,-1,1000000000000000]"
    for number in ("-0.0", "1e21", "1e-7"):
        assert _code(f"[{number}]".encode()) == "json_float"
    with pytest.raises(CanonicalJSONError):
        canonical.encode([1.0])


def test_D14_a_float_whose_canonical_form_exceeds_2_53_is_rejected() -> None:
    assert _code(b"[3333300000000000030.0]") == "json_float"
    assert _code(b"[3333300000000000030]") == "json_integer_range"


def test_D15_unknown_fields_in_an_artifact_are_rejected(tmp_path: Path) -> None:
    loader = pytest.importorskip("prooftext.artifacts.loader")
    lifecycle = pytest.importorskip("prooftext.artifacts.lifecycle")
    root = tmp_path / "repo"
    root.mkdir()
    (root / "SPEC.md").write_text("# Spec\n")
    out = tmp_path / "manifest.json"
    lifecycle.run_manifest(root, out, "SPEC.md", [])
    value: dict[str, Any] = canonical.load(out.read_bytes())
    value["surprise"] = 1
    with pytest.raises(ProoftextError):
        loader.parse_artifact(canonical.encode(canonical.with_artifact_id(value)))


def test_D15_unknown_keys_in_the_config_are_rejected(make_tree: MakeTree) -> None:
    root = make_tree({"prooftext.toml": "[scan]\nmax_file_bytez = 10\n"})
    with pytest.raises(ConfigError) as caught:
        load_config(root)
    assert caught.value.details["key"] == "scan.max_file_bytez"


def test_D15_unknown_params_in_a_json_rpc_request_are_invalid_params(indexed: Path) -> None:
    dispatcher_module = pytest.importorskip("prooftext.server.dispatcher")
    context_module = pytest.importorskip("prooftext.server.context")
    ctx = context_module.ServerContext.open(indexed, context_module.Limits(), "rpc")
    try:
        dispatcher = dispatcher_module.Dispatcher(ctx)
        request = {"jsonrpc": "2.0", "id": 1, "method": "context.pack", "params": {"query": "x", "bogus": 1}}
        reply = json.loads(dispatcher.handle(json.dumps(request).encode()))
        assert reply["error"]["code"] == -32602
    finally:
        ctx.close()


def test_D15_a_saved_packet_with_strict_json_problems_is_refused_by_verify(
    indexed: Path, tmp_path: Path, cli: Cli
) -> None:
    packet = tmp_path / "packet.json"
    packet.write_bytes(b'{"prompt":"x","prompt":"y"}')
    status, out, err = cli("verify", packet, "--root", indexed, "--json")
    assert status != 0 and json.loads(out)["error"]["code"] == "json_duplicate_key" and "Traceback" not in err
