"""Piecewise counting: a markdown prompt cut before each evidence fence counts exactly as the whole prompt,
for any excerpt text, label and nonce, in every basis."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import prooftext
from prooftext import Ladder
from prooftext.adaptive import compile as compile_module
from prooftext.pack import packet as packet_module
from prooftext.pack.render import NONCE_PLACEHOLDER, Block, markdown_pieces, render
from prooftext.tokens import TOKENIZERS, get_counter

TRICKY = [
    "-----",
    "\n",
    "\n\n",
    "/",
    "//",
    " ",
    "\t",
    "`",
    "-",
    "0",
    "123",
    "a",
    "é",
    "\r",
    "----- END",
    "»",
    "😀",
]
texts = st.lists(st.sampled_from(TRICKY) | st.text(max_size=12), max_size=12).map("".join)
blocks = st.lists(
    st.builds(
        Block,
        path=st.sampled_from(["a.py", "pkg/b c.md", "x/-y.txt"]),
        start_line=st.integers(1, 50),
        end_line=st.integers(50, 99),
        sha256=st.just("0" * 64),
        authority=st.sampled_from(["source", "generated"]),
        sensitivity=st.sampled_from(["public", "internal"]),
        text=texts,
        truncated_from=st.sampled_from([None, (1, 120)]),
    ),
    max_size=5,
)
nonces = st.integers(0, 10**18 - 1).map(lambda n: str(n).zfill(18))


@settings(max_examples=400, deadline=None)
@given(query=texts.filter(str.strip), blocks=blocks, nonce=nonces, basis=st.sampled_from(TOKENIZERS))
def test_the_pieces_of_a_prompt_count_as_the_whole_prompt_for_any_nonce(
    query: str, blocks: list[Block], nonce: str, basis: str
) -> None:
    counter = get_counter(basis)
    pieces = markdown_pieces(query, blocks, nonce)
    prompt = render("markdown", query, blocks, nonce)
    assert "".join(pieces) == prompt
    placeholder = markdown_pieces(query, blocks, NONCE_PLACEHOLDER)
    assert sum(counter.count_many(placeholder)) == counter.count(prompt)


def test_every_shipped_tokenizer_counts_any_nonce_alike() -> None:
    assert all(packet_module.nonce_invariant(get_counter(name)) for name in TOKENIZERS)


def test_adaptive_rounds_record_the_whole_prompts_count_and_match_plain_counting(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Requirement: sacp.round.steps (each round counts its prompt exactly)"""
    with prooftext.open(sample_repo) as index:
        index.refresh()
        piecewise = index.adaptive_pack(
            "separability matrix of compound models", ladder=Ladder(min_tokens=300, token_step=200)
        )
        counter = get_counter()
        assert len(piecewise.rounds) > 1
        assert all(counter.count(r.packet.prompt) == r.packet.prompt_tokens.count for r in piecewise.rounds)
        real = packet_module.Compiler
        monkeypatch.setattr(compile_module, "Compiler", lambda *a, **k: real(*a, **{**k, "additive": False}))
        plain = index.adaptive_pack(
            "separability matrix of compound models", ladder=Ladder(min_tokens=300, token_step=200)
        )
    assert plain.to_dict() == piecewise.to_dict()


def test_a_block_is_counted_once_per_process_and_a_second_query_quoting_it_counts_only_its_header(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    question = "separability matrix of compound models"
    with prooftext.open(sample_repo) as index:
        first = index.adaptive_pack(question, ladder=Ladder(min_tokens=300, token_step=200))
        counted: list[str] = []
        counter = get_counter()
        real_count, real_many = counter.count, counter.count_many
        monkeypatch.setattr(counter, "count", lambda text: counted.append(text) or real_count(text))
        monkeypatch.setattr(counter, "count_many", lambda texts: counted.extend(texts) or real_many(texts))
        second = index.adaptive_pack(question, ladder=Ladder(min_tokens=300, token_step=200))
    assert second.to_dict() == first.to_dict()
    assert counted and not any("----- BEGIN EVIDENCE" in text for text in counted)
    assert all(counter.count(r.packet.prompt) == r.packet.prompt_tokens.count for r in second.rounds)
