"""The minimum context kernel (header, query, required evidence, footer) is counted exactly as it renders:
a ceiling of exactly the kernel compiles, one below it is refused with the kernel as what is needed."""

from __future__ import annotations

from pathlib import Path

import pytest

import prooftext
from helpers import pack_fields, write_tree
from prooftext import Ladder
from prooftext.errors import BudgetError
from prooftext.pack.packet import Compiler
from prooftext.pack.render import FORMATS
from prooftext.select.query import Query

FILES = {"docs/retry.md": "# Retry\n\nRetries are configured with backoff.\n", "pkg/__init__.py": "X = 1\n"}
QUERY = "retries configured"
TOKENIZERS = ("cl100k_base", "o200k_base")
REQUIRED = ((), ("pkg/__init__.py",))


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tree(tmp_path_factory.mktemp("kernel") / "repo", FILES)


def _kernel(index: prooftext.Index, fmt: str, tokenizer: str, required: tuple[str, ...]) -> int:
    query = Query(text=QUERY, tokenizer=tokenizer, required=required)
    return Compiler(index.conn, index.root, query, fmt).kernel_cost()


@pytest.mark.parametrize("required", REQUIRED)
@pytest.mark.parametrize("tokenizer", TOKENIZERS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_a_ceiling_of_exactly_the_kernel_compiles_and_one_less_reports_the_kernel_as_needed(
    root: Path, fmt: str, tokenizer: str, required: tuple[str, ...]
) -> None:
    options = {"format": fmt, "tokenizer": tokenizer, "required": required}
    with prooftext.open(root) as index:
        index.refresh()
        kernel = _kernel(index, fmt, tokenizer, required)
        packet = pack_fields(index, QUERY, max_tokens=kernel, **options)
        with pytest.raises(BudgetError) as refused:
            pack_fields(index, QUERY, max_tokens=kernel - 1, **options)
    assert [e.path for e in packet.evidence] == list(required)
    assert packet.prompt_tokens.count == kernel
    assert refused.value.details["needed"] == kernel


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_adaptive_ladder_may_start_below_the_kernel_in_every_format(root: Path, fmt: str) -> None:
    with prooftext.open(root) as index:
        result = index.adaptive_pack(
            Query(QUERY, tokenizer="cl100k_base"), ladder=Ladder(min_tokens=1), format=fmt
        )
    first = result.rounds[0]
    assert first.raised_to_kernel and first.token_ceiling == result.kernel_tokens
    assert first.packet.prompt_tokens.count <= first.token_ceiling
