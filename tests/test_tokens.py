"""Exact token counts: pinned tiktoken counts from the packaged BPE files, the bytes basis, and damage."""

from __future__ import annotations

import gzip
import hashlib
import marshal
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import tiktoken_ext.openai_public as openai_public
from hypothesis import given, settings
from hypothesis import strategies as st

from prooftext import tokens
from prooftext.errors import CorruptTokenizerError, RequestError, TokenizerError, UnknownNameError

ENCODINGS = ("cl100k_base", "o200k_base")

# Computed once with tiktoken 0.14 over the packaged BPE files (same ids as tiktoken's own registry).
PINNED: list[tuple[str, str, int]] = [
    ("o200k_base", "hello world", 2),
    ("cl100k_base", "hello world", 2),
    ("o200k_base", "", 0),
    ("cl100k_base", "", 0),
    ("o200k_base", "Hello, World!", 4),
    ("cl100k_base", "Hello, World!", 4),
    ("o200k_base", "The quick brown fox jumps over the lazy dog.", 10),
    ("cl100k_base", "The quick brown fox jumps over the lazy dog.", 10),
    ("o200k_base", "def f(x):\n    return x + 1\n", 11),
    ("cl100k_base", "def f(x):\n    return x + 1\n", 11),
    ("o200k_base", "naïve café — 東京", 6),
    ("cl100k_base", "naïve café — 東京", 8),
    ("o200k_base", "\U0001f602\U0001f602", 2),
    ("cl100k_base", "\U0001f602\U0001f602", 4),
    ("o200k_base", "1234567890", 4),
    ("cl100k_base", "1234567890", 4),
]
PINNED_IDS: dict[tuple[str, str], list[int]] = {
    ("o200k_base", "hello world"): [24912, 2375],
    ("cl100k_base", "hello world"): [15339, 1917],
}
SPECIAL_TEXT = ["<|endoftext|>", "<|endofprompt|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>"]


def packaged_bpe(name: str) -> bytes:
    """The decompressed BPE file shipped in package data, read independently of the loader."""
    path = resources.files("prooftext").joinpath("data", "bpe", f"{name}.tiktoken.gz")
    return gzip.decompress(path.read_bytes())


def pinned_sha256(name: str) -> str:
    return tokens._SPECS[name].sha256


@pytest.mark.parametrize(("name", "text", "expected"), PINNED, ids=[f"{n}-{t!r}" for n, t, _ in PINNED])
def test_tiktoken_counts_are_pinned(name: str, text: str, expected: int) -> None:
    assert tokens.count(text, name) == tokens.TokenCount(expected, name)


@pytest.mark.parametrize(("key", "ids"), list(PINNED_IDS.items()), ids=[k[0] for k in PINNED_IDS])
def test_token_ids_match_the_published_encodings(key: tuple[str, str], ids: list[int]) -> None:
    name, text = key
    counter = tokens.get_counter(name)
    assert isinstance(counter, tokens.TiktokenCounter)
    assert counter.encode(text) == ids
    assert counter.decode(ids) == text


@pytest.mark.parametrize("name", ENCODINGS)
def test_packaged_specs_equal_tiktokens_own_registry(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Pattern, special tokens and BPE hash equal tiktoken's definitions (no download: the load is faked)."""
    seen: dict[str, Any] = {}

    def fake_load(url: str, expected_hash: str | None = None) -> dict[bytes, int]:
        seen["hash"] = expected_hash
        return {}

    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", fake_load)
    upstream = getattr(openai_public, name)()
    spec = tokens._SPECS[name]
    assert spec.pattern == upstream["pat_str"]
    assert spec.special == upstream["special_tokens"]
    assert spec.sha256 == seen["hash"]
    assert hashlib.sha256(packaged_bpe(name)).hexdigest() == spec.sha256


def test_the_default_tokenizer_is_o200k_base() -> None:
    assert tokens.DEFAULT_TOKENIZER == "o200k_base"
    assert tokens.count("hello world") == tokens.TokenCount(2, "o200k_base")


def test_every_basis_is_listed() -> None:
    assert tokens.TOKENIZERS == ("cl100k_base", "o200k_base", "bytes")
    for basis in tokens.TOKENIZERS:
        assert tokens.get_counter(basis).basis == basis


def test_bytes_basis_counts_utf8_bytes() -> None:
    assert tokens.count("héllo 東京 😂", "bytes") == tokens.TokenCount(18, "bytes")
    assert tokens.count("", "bytes") == tokens.TokenCount(0, "bytes")


def test_count_returns_a_token_count_naming_its_basis() -> None:
    result = tokens.count("hello world", "cl100k_base")
    assert isinstance(result, tokens.TokenCount)
    assert result.basis == "cl100k_base"
    assert result.to_dict() == {"count": 2, "basis": "cl100k_base"}


def test_counters_are_cached_per_name() -> None:
    assert tokens.get_counter("o200k_base") is tokens.get_counter("o200k_base")


@pytest.mark.parametrize("name", ENCODINGS)
@pytest.mark.parametrize("special", SPECIAL_TEXT)
def test_special_token_text_counts_as_ordinary_text(name: str, special: str) -> None:
    counter = tokens.get_counter(name)
    assert isinstance(counter, tokens.TiktokenCounter)
    ids = counter.encode(f"before {special} after")
    assert not set(ids) & set(tokens._SPECS[name].special.values())
    assert counter.count(special) > 1
    assert counter.decode(counter.encode(special)) == special


def test_endoftext_counts_seven_ordinary_tokens_in_both_encodings() -> None:
    assert tokens.count("<|endoftext|>", "o200k_base").count == 7
    assert tokens.count("<|endoftext|>", "cl100k_base").count == 7


@pytest.mark.parametrize("name", ["gpt2", "p50k_base", "O200K_BASE", "", "bytes "])
def test_an_unknown_tokenizer_is_an_unknown_name_naming_the_field_as_in_pack_and_map(name: str) -> None:
    with pytest.raises(UnknownNameError) as info:
        tokens.get_counter(name)
    assert info.value.code == "unknown_name"
    assert info.value.details["field"] == "tokenizer"
    assert info.value.details["known"] == list(tokens.TOKENIZERS)
    with pytest.raises(UnknownNameError):
        tokens.count("x", name)


@pytest.mark.parametrize("name", ENCODINGS)
def test_parse_bpe_rejects_bytes_that_do_not_match_the_pin(name: str) -> None:
    with pytest.raises(CorruptTokenizerError) as info:
        tokens.parse_bpe(b"garbage", pinned_sha256(name), name)
    assert info.value.code == "tokenizer_corrupt"
    assert info.value.details["expected"] == pinned_sha256(name)
    assert info.value.details["actual"] == hashlib.sha256(b"garbage").hexdigest()


@pytest.mark.parametrize("data", [b"garbage", b"aGk= 1 2\n", b"!!!! 1\n", b"aGk= one\n"])
def test_parse_bpe_rejects_malformed_lines_even_when_the_hash_matches(data: bytes) -> None:
    with pytest.raises(CorruptTokenizerError) as info:
        tokens.parse_bpe(data, hashlib.sha256(data).hexdigest(), "test")
    assert info.value.code == "tokenizer_corrupt"


def test_parse_bpe_reads_a_well_formed_file() -> None:
    data = b"aGk= 0\nYQ== 1\n\n"
    assert tokens.parse_bpe(data, hashlib.sha256(data).hexdigest(), "test") == {b"hi": 0, b"a": 1}


def test_build_encoding_rejects_a_bpe_file_with_one_rank_changed() -> None:
    bpe = packaged_bpe("cl100k_base")
    first, rest = bpe.split(b"\n", 1)
    token, rank = first.split()
    damaged = token + b" " + str(int(rank) + 1).encode() + b"\n" + rest
    with pytest.raises(CorruptTokenizerError) as info:
        tokens.build_encoding("cl100k_base", damaged)
    assert info.value.code == "tokenizer_corrupt"
    with pytest.raises(CorruptTokenizerError):
        tokens.build_encoding("cl100k_base", bpe[:-1])


def _damaged_gzip() -> dict[str, bytes]:
    payload = gzip.compress(b"aGk= 0\n" * 1000, mtime=0)
    bad_block = bytearray(payload)
    bad_block[10] = 0xFF  # first deflate block header: reserved block type (zlib.error)
    bad_crc = bytearray(payload)
    bad_crc[-8] ^= 0xFF
    return {
        "truncated": payload[: len(payload) // 2],
        "bad_deflate_block": bytes(bad_block),
        "bad_crc": bytes(bad_crc),
        "not_gzip": b"garbage that is not gzip",
        "empty": b"",
        "valid_gzip_wrong_content": gzip.compress(b"aGk= 0\n", mtime=0),
    }


@pytest.mark.parametrize("name", ENCODINGS)
@pytest.mark.parametrize("damage", sorted(_damaged_gzip()))
def test_damaged_packaged_gzip_fails_with_tokenizer_corrupt(
    monkeypatch: pytest.MonkeyPatch, name: str, damage: str
) -> None:
    raw = _damaged_gzip()[damage]
    monkeypatch.setattr(tokens, "_packaged_bytes", lambda filename: raw)
    monkeypatch.setattr(tokens, "_cache", {})
    monkeypatch.setenv(tokens.CACHE_ENV, "")
    with pytest.raises(CorruptTokenizerError) as info:
        tokens.get_counter(name)
    assert info.value.code == "tokenizer_corrupt"
    assert isinstance(info.value, TokenizerError)
    assert name not in tokens._cache
    with pytest.raises(CorruptTokenizerError):
        tokens.count("hello", name)


def test_the_bytes_basis_survives_damaged_tokenizer_files(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens, "_packaged_bytes", lambda filename: b"")
    monkeypatch.setattr(tokens, "_cache", {})
    assert tokens.count("héllo", "bytes") == tokens.TokenCount(6, "bytes")


def test_a_truncated_copy_of_the_real_packaged_file_is_corrupt(monkeypatch: pytest.MonkeyPatch) -> None:
    real = tokens._packaged_bytes("cl100k_base.tiktoken.gz")
    monkeypatch.setattr(tokens, "_packaged_bytes", lambda filename: real[: len(real) - 100])
    with pytest.raises(CorruptTokenizerError) as info:
        tokens._read_packaged("cl100k_base.tiktoken.gz", "cl100k_base")
    assert info.value.code == "tokenizer_corrupt"


@pytest.mark.parametrize("basis", tokens.TOKENIZERS)
def test_lone_surrogates_count_as_the_replacement_character_in_every_basis(basis: str) -> None:
    """Such text has no UTF-8 form; every basis counts it the way tiktoken encodes it (U+FFFD), no crash."""
    assert tokens.count("a\ud800b", basis) == tokens.count("a\ufffdb", basis)
    assert tokens.count("\udfff", basis) == tokens.count("\ufffd", basis)


def test_a_split_surrogate_pair_counts_as_its_character() -> None:
    assert tokens.count("\ud83d\ude02", "bytes") == tokens.TokenCount(4, "bytes")


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=("Cs",))))
def test_bytes_count_equals_utf8_length(text: str) -> None:
    assert tokens.count(text, "bytes") == tokens.TokenCount(len(text.encode("utf-8")), "bytes")


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=60))
def test_tiktoken_counts_are_the_length_of_a_lossless_encoding(text: str) -> None:
    for name in ENCODINGS:
        counter = tokens.get_counter(name)
        assert isinstance(counter, tokens.TiktokenCounter)
        ids = counter.encode(text)
        assert counter.count(text) == len(ids)
        assert counter.decode(ids) == text


def _fresh_counter(monkeypatch: pytest.MonkeyPatch, folder: Path) -> tokens.TiktokenCounter:
    monkeypatch.setenv(tokens.CACHE_ENV, str(folder))
    monkeypatch.setattr(tokens, "_cache", {})
    counter = tokens.get_counter("cl100k_base")
    assert isinstance(counter, tokens.TiktokenCounter)
    return counter


SAMPLE = "def separability_matrix(model):\n    return np.eye(2)  # héllo\n"


def test_parsed_ranks_are_cached_and_a_later_start_needs_no_parse(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    expected = _fresh_counter(monkeypatch, tmp_path).encode(SAMPLE)
    assert len(list(tmp_path.glob("cl100k_base-*.ranks"))) == 1
    monkeypatch.setattr(tokens, "parse_bpe", lambda *args: pytest.fail("parsed despite the cache"))
    assert _fresh_counter(monkeypatch, tmp_path).encode(SAMPLE) == expected


@pytest.mark.parametrize("damage", ["truncated", "flipped", "not_ranks"])
def test_a_damaged_cache_file_is_ignored_and_rewritten(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, damage: str
) -> None:
    expected = _fresh_counter(monkeypatch, tmp_path).encode(SAMPLE)
    (path,) = tmp_path.glob("*.ranks")
    good = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(good[: len(good) // 2])
    elif damage == "flipped":
        path.write_bytes(good[:-10] + bytes([good[-10] ^ 1]) + good[-9:])
    else:
        payload = marshal.dumps([1, 2, 3])
        path.write_bytes(tokens._RANKS_MAGIC + hashlib.sha256(payload).hexdigest().encode() + payload)
    assert _fresh_counter(monkeypatch, tmp_path).encode(SAMPLE) == expected
    assert path.read_bytes() == good


def test_an_empty_cache_setting_turns_the_cache_off(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(tokens.CACHE_ENV, "")
    monkeypatch.setattr(tokens, "_cache", {})
    assert tokens.cache_dir() is None
    assert tokens.count(SAMPLE, "cl100k_base").count > 0
    assert list(tmp_path.iterdir()) == []


def test_an_unwritable_cache_only_costs_the_parse(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    counter = _fresh_counter(monkeypatch, blocker / "cache")
    assert counter.count(SAMPLE) == tokens.count(SAMPLE, "cl100k_base").count


def test_the_default_cache_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(tokens.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert tokens.cache_dir() == tmp_path / "prooftext"


@pytest.mark.parametrize("name", ENCODINGS)
def test_the_longest_token_is_the_longest_byte_value_of_the_vocabulary(name: str) -> None:
    counter = tokens.get_counter(name)
    assert isinstance(counter, tokens.TiktokenCounter)
    assert counter.longest_token == max(len(value) for value in counter._encoding.token_byte_values())


def test_a_byte_is_the_longest_unit_of_the_bytes_basis() -> None:
    counter = tokens.get_counter("bytes")
    assert counter.longest_token == 1
    assert tokens.count_floor(counter, 1000) == 1000


RUNS = [" " * 4000, "-" * 4000, "=" * 4000, "\n" * 4000, "a" * 4000, "0" * 4000, "\t" * 4000, "*" * 4000]
"""Long runs of one character, where a vocabulary's longest tokens live."""


@pytest.mark.parametrize("text", RUNS, ids=lambda t: repr(t[0]))
@pytest.mark.parametrize("basis", tokens.TOKENIZERS)
def test_a_count_is_never_below_its_floor_on_long_runs(basis: str, text: str) -> None:
    counter = tokens.get_counter(basis)
    assert counter.count(text) >= tokens.count_floor(counter, len(text.encode("utf-8")))


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=400))
def test_a_count_is_never_below_its_bytes_over_the_longest_token(text: str) -> None:
    for basis in tokens.TOKENIZERS:
        counter = tokens.get_counter(basis)
        assert counter.count(text) >= tokens.count_floor(counter, len(text.encode("utf-8")))


def test_counting_what_is_not_text_or_a_basis_that_is_not_a_name_is_a_coded_error() -> None:
    with pytest.raises(RequestError) as caught:
        tokens.count(None)  # type: ignore[arg-type]
    assert caught.value.details["field"] == "text"
    with pytest.raises(UnknownNameError):
        tokens.count("x", basis=[])  # type: ignore[arg-type]
