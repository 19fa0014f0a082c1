"""The public door: an index handle from ``prooftext.open``, search limits as published, and a core free of
adapters (``__all__`` itself is checked in ``test_exported_members.py``)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

import prooftext
from prooftext.errors import RangeError, RequestError
from prooftext.index import MIN_SEARCH_LIMIT
from prooftext.schema_registry import load_schema

SRC = Path(prooftext.__file__).resolve().parent
ADAPTER_PACKAGES = ("cli", "server")
ADAPTER_ONLY_IMPORTS = ("click", "typer", "rich", "mcp", "starlette", "uvicorn")


def test_open_returns_an_index_with_refresh(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    with prooftext.open(tmp_path) as index:
        assert isinstance(index, prooftext.Index)
        assert index.refresh().files_indexed == 1


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def test_the_core_never_imports_cli_mcp_or_http_libraries() -> None:
    offenders = []
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC)
        if rel.parts[0] in ADAPTER_PACKAGES:
            continue
        bad = _imports(path) & set(ADAPTER_ONLY_IMPORTS)
        if bad:
            offenders.append(f"{rel}: {sorted(bad)}")
    assert offenders == []


@pytest.mark.parametrize("limit", [-1, 0])
def test_search_refuses_a_limit_below_one_instead_of_slicing(sample_repo: Path, limit: int) -> None:
    with prooftext.open(sample_repo) as index, pytest.raises(RangeError) as caught:
        index.search("separability", limit=limit)
    assert caught.value.code == "value_out_of_range" and caught.value.field == "limit"


@pytest.mark.parametrize("limit", ["5", True, 2.0, None])
def test_search_refuses_a_limit_that_is_not_an_integer(sample_repo: Path, limit: Any) -> None:
    with prooftext.open(sample_repo) as index, pytest.raises(RequestError) as caught:
        index.search("separability", limit=limit)
    assert caught.value.code == "invalid_request" and caught.value.field == "limit"


def test_search_returns_at_most_limit_candidates_and_its_least_limit_is_the_published_one(
    sample_repo: Path,
) -> None:
    published = load_schema("rpc-context.select.params.schema.json")["properties"]["limit"]["minimum"]
    assert published == MIN_SEARCH_LIMIT
    with prooftext.open(sample_repo) as index:
        index.refresh()
        every = index.search("separability")
        assert len(every) > 1
        assert index.search("separability", limit=1) == every[:1]


def test_search_refreshes_a_stale_index_first_as_pack_does(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        found = index.search("separability")
        assert found and found == index.search("separability", refresh=False)
    (sample_repo / "brand_new.py").write_text("def separability_of_brand_new():\n    return 1\n")
    with prooftext.open(sample_repo) as index:
        assert "brand_new.py" not in {c["path"] for c in index.search("separability", refresh=False)}
        assert "brand_new.py" in {c["path"] for c in index.search("separability")}


def test_search_refuses_a_refresh_flag_that_is_not_a_boolean(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index, pytest.raises(RequestError) as caught:
        index.search("separability", refresh="no")  # type: ignore[arg-type]
    assert caught.value.field == "refresh"
