"""Catalogue E: queries and selection (the packet path, and the artifact selector for contradictions)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import prooftext
from helpers import pack_fields
from prooftext import Ladder, Query
from prooftext.errors import ProoftextError
from prooftext.select.query import MAX_QUERY_CHARS

from .conftest import Cli, Figure, MakeTree, error_code, run_python_parallel, write_tree


def _pack_error(root: Path, query: str, **kw: Any) -> str:
    with prooftext.open(root) as index, pytest.raises(ProoftextError) as caught:
        pack_fields(index, query, **kw)
    return caught.value.code


def test_E01_an_empty_query_is_an_error(indexed: Path, cli: Cli) -> None:
    for query in ("", "   ", "\n\t"):
        assert _pack_error(indexed, query) == "query_empty"
    status, out, _ = cli("adaptive-pack", "", "--root", indexed, "--json")
    assert status != 0 and error_code(out) == "query_empty"


def test_E02_a_stop_word_query_never_selects_the_whole_corpus(indexed: Path) -> None:
    with prooftext.open(indexed) as index:
        for compile_ in (index.pack, index.adaptive_pack):
            with pytest.raises(ProoftextError) as caught:
                compile_("the of and a")
            assert caught.value.code == "query_empty"
        required = index.pack(Query("the of and a", required=("modeling/__init__.py",)))
        with pytest.raises(ProoftextError) as seeded:  # a seed weighs what a search finds; it finds nothing
            index.pack(Query("the of and a", path_seeds=("modeling/__init__.py",)))
    assert [e.path for e in required.evidence] == ["modeling/__init__.py"]
    assert seeded.value.code == "query_empty"


def test_E03_a_query_past_the_length_limit_is_rejected_and_one_at_the_limit_is_bounded(indexed: Path) -> None:
    words = [f"w{i}" for i in range(100_000)]
    assert _pack_error(indexed, " ".join(words)) == "value_out_of_range"
    at_limit = " ".join(words)[: MAX_QUERY_CHARS - 40] + " separability matrix"
    with prooftext.open(indexed) as index:
        packet = index.pack(Query(at_limit, max_tokens=60_000))
        result = index.adaptive_pack(
            at_limit, ladder=Ladder(max_tokens=60_000, min_tokens=50_000, token_step=10_000)
        )
    assert packet.prompt_tokens.count <= 60_000
    assert result.stop_reason in {"candidate_exhausted", "hard_limit_reached", "estimated_sufficient"}


@pytest.mark.parametrize("query", ["!!! ???", "...", "😂🔥"])
def test_E04_punctuation_or_emoji_only_queries_are_deterministic_errors(indexed: Path, query: str) -> None:
    assert _pack_error(indexed, query) == "query_empty"


@pytest.mark.parametrize("query", ["模型", "Модели", "النماذج"])
def test_E04_non_latin_queries_select_deterministically(make_tree: MakeTree, query: str) -> None:
    root = make_tree({"docs/intl.md": "# 模型\n\n模型可以组合。 Модели можно комбинировать. النماذج\n"})
    with prooftext.open(root) as index:
        first = index.pack(query).to_dict()
        second = index.pack(query).to_dict()
    assert first == second and first["evidence"]


@pytest.mark.parametrize(
    "query", ["separab*", "sep?rability", "[sS]eparability", ".*", "a\\b", "(x|y)", "NEAR(a b)"]
)
def test_E05_regex_glob_and_fts_metacharacters_are_literals(indexed: Path, query: str) -> None:
    with prooftext.open(indexed) as index:
        try:
            first = index.pack(query)
        except ProoftextError as exc:
            assert exc.code == "query_empty"
            return
        second = index.pack(query)
    assert first.to_dict() == second.to_dict()  # deterministic
    assert f"{query}\n" in first.prompt  # the query is quoted as written
    if query in ("separab*", "sep?rability"):
        assert first.evidence == []  # no wildcard expansion


@pytest.mark.parametrize(
    "query", ["separability\x00matrix", "separability\x07matrix", "separability\x1b[31m"]
)
def test_E06_control_characters_in_the_query_are_rejected(indexed: Path, query: str) -> None:
    assert _pack_error(indexed, query) in {"invalid_request", "value_out_of_range"}


@pytest.mark.parametrize("budget", [0, -1, 1.5, 10**9, True])
def test_E07_invalid_budgets_are_errors_in_the_api(indexed: Path, budget: Any) -> None:
    assert _pack_error(indexed, "separability", max_tokens=budget) in {
        "invalid_request",
        "value_out_of_range",
    }


@pytest.mark.parametrize("budget", ["0", "-1", "99999999999"])
def test_E07_invalid_integer_budgets_are_errors_in_the_cli(indexed: Path, cli: Cli, budget: str) -> None:
    status, out, err = cli("pack", "separability", "--root", indexed, "--max-tokens", budget, "--json")
    assert status not in (0, 70) and "Traceback" not in err
    assert error_code(out) in {"value_out_of_range", "invalid_request", "usage"}


def test_E07_a_float_budget_in_the_cli_is_a_usage_error(indexed: Path, cli: Cli, figure: Figure) -> None:
    status, out, _ = cli("pack", "separability", "--root", indexed, "--max-tokens", "1.5", "--json")
    figure("unhandled_exceptions", int(status == 70))
    assert status == 64 and error_code(out) == "usage"


def test_E08_an_empty_corpus_is_candidate_exhausted(make_tree: MakeTree) -> None:
    root = make_tree({})
    with prooftext.open(root) as index:
        result = index.adaptive_pack("separability matrix")
    assert result.stop_reason == "candidate_exhausted" and result.packet.evidence == []


def test_E09_a_corpus_where_every_file_is_excluded_is_candidate_exhausted_with_reasons(
    make_tree: MakeTree, cli: Cli
) -> None:
    root = make_tree(
        {"a.bin": b"\0separability", "b.txt": "café".encode("latin-1"), "c.log": b"x" * 2_000_000}
    )
    status, out, _ = cli("index", root, "--json")
    skipped = json.loads(out)["files_skipped"]
    assert status == 0 and {k: skipped[k] for k in ("binary", "encoding", "size")} == {
        "binary": 1,
        "encoding": 1,
        "size": 1,
    }
    with prooftext.open(root) as index:
        result = index.adaptive_pack("separability matrix")
    assert result.stop_reason == "candidate_exhausted" and result.packet.evidence == []


CONTRA = {
    "SPEC.md": "# Spec\n\nThe retry policy is specified in the ADRs.\n",
    "docs/adr/a.md": "---\ncontradicts: [docs/adr/b.md]\n---\n# Retry policy A\n\nRetry the write three times.\n",
    "docs/adr/b.md": "---\ncontradicts: [docs/adr/a.md]\n---\n# Retry policy B\n\nNever retry the write.\n",
}


def _select(root: Path, text: str, **limits: Any) -> dict[str, Any]:
    lifecycle = pytest.importorskip("prooftext.artifacts.lifecycle")
    query_module = pytest.importorskip("prooftext.artifacts.query")
    out = root / ".prooftext" / "context"
    for name in ("manifest", "graph", "query", "selection"):
        (out / f"{name}.json").unlink(missing_ok=True)
    lifecycle.run_manifest(root, out / "manifest.json", "SPEC.md", [])
    lifecycle.run_index(out / "manifest.json", root, None, out / "graph.json")
    lifecycle.run_query(out / "graph.json", query_module.byte_query(text, **limits), out / "query.json")
    lifecycle.run_select(out / "graph.json", out / "query.json", out / "selection.json")
    selection: dict[str, Any] = json.loads((out / "selection.json").read_text())
    return selection


def _paths(entries: list[dict[str, Any]], graph: dict[str, Any]) -> set[str]:
    by_id = {n["node_id"]: n["path"] for n in graph["nodes"]}
    return {by_id[e["node_id"]] for e in entries if e["node_id"] in by_id}


def test_E10_contradicting_sources_are_selected_both_or_neither(make_tree: MakeTree) -> None:
    root = make_tree(CONTRA)
    graph_path = root / ".prooftext" / "context" / "graph.json"
    seen: set[int] = set()
    for max_bytes in (1024, 1500, 65_536):
        selection = _select(root, "retry policy write", max_bytes=max_bytes)
        graph = json.loads(graph_path.read_text())
        pair = {"docs/adr/a.md", "docs/adr/b.md"}
        sides = _paths(selection["nodes"], graph) & pair
        assert len(sides) in (0, 2), (max_bytes, sides)
        if not sides:  # excluded as one unit, with a reason and the component recorded
            dropped = [e for e in selection["excluded"] if e["component_id"] is not None]
            assert _paths(dropped, graph) >= pair and all(e["reason"] for e in dropped)
        seen.add(len(sides))
    assert seen == {0, 2}  # the budgets cover both outcomes


def test_E10_contradicting_sources_in_a_packet_are_both_or_neither(make_tree: MakeTree) -> None:
    root = make_tree(CONTRA)
    pair = {"docs/adr/a.md", "docs/adr/b.md"}
    seen: set[int] = set()
    with prooftext.open(root) as index:
        for budget in (150, 200, 260, 400, 4000):
            try:
                packet = index.pack(Query("retry policy write", max_tokens=budget))
            except ProoftextError as exc:  # a budget below the header is an error, never one side alone
                assert exc.code in {"budget_exceeded", "invalid_request"}
                continue
            sides = {e.path for e in packet.evidence} & pair
            assert len(sides) in (0, 2), (budget, sides)
            if not sides:
                reasons = {e["reason"] for e in packet.excluded if e["path"] in pair}
                assert reasons, "neither side selected, and no exclusion recorded"
            seen.add(len(sides))
    assert 2 in seen


def test_E11_a_contradiction_cycle_and_a_self_edge_terminate(make_tree: MakeTree) -> None:
    root = make_tree(
        {
            "SPEC.md": "# Spec\n\ncache policy\n",
            "docs/adr/a.md": "---\ncontradicts: [docs/adr/b.md, docs/adr/a.md]\n---\n# Cache A\n\ncache policy a\n",
            "docs/adr/b.md": "---\ncontradicts: [docs/adr/c.md]\n---\n# Cache B\n\ncache policy b\n",
            "docs/adr/c.md": "---\ncontradicts: [docs/adr/a.md]\n---\n# Cache C\n\ncache policy c\n",
        }
    )
    selection = _select(root, "cache policy")
    assert selection["artifact_type"] == "selection"
    with prooftext.open(root) as index:
        assert index.adaptive_pack("cache policy").stop_reason


def test_E12_ties_break_stably_100_runs_give_one_selection(make_tree: MakeTree, figure: Figure) -> None:
    files = {f"pkg/m{i}.py": "def tie_marker():\n    return 1\n" for i in range(6)}
    root = make_tree(files)
    with prooftext.open(root) as index:
        index.refresh()
        ids = {
            json.dumps(
                index.pack(Query("tie_marker", max_tokens=300), refresh=False).to_dict(), sort_keys=True
            )
            for _ in range(100)
        }
        evidence = index.pack(Query("tie_marker", max_tokens=300), refresh=False).evidence
    figure("determinism_runs", 100)
    figure("determinism_distinct", len(ids))
    assert len(ids) == 1
    assert [e.path for e in evidence] == sorted(e.path for e in evidence)  # ties fall back to the path order


def test_E13_the_same_content_under_two_paths_is_deduplicated_with_both_provenances(
    make_tree: MakeTree,
) -> None:
    body = "def duplicate_marker():\n    return 42\n"
    root = make_tree({"a/dup.py": body, "b/dup.py": body})
    with prooftext.open(root) as index:
        packet = index.pack("duplicate_marker")
    assert packet.prompt.count("return 42") == 1
    assert {"a/dup.py", "b/dup.py"} <= {e["path"] for e in packet.excluded} | {
        e.path for e in packet.evidence
    }


def test_E14_a_strongly_matching_secret_labelled_source_is_excluded_by_clearance(make_tree: MakeTree) -> None:
    root = make_tree(
        {
            "private/payroll.md": "# Payroll\n\npayroll_marker payroll_marker salaries of every employee\n",
            "docs/public.md": "# Notes\n\nThe payroll_marker process is described elsewhere.\n",
            "prooftext.toml": '[[labels]]\nglob = "private/**"\nsensitivity = "secret-or-prohibited"\n',
        }
    )
    with prooftext.open(root) as index:
        result = index.adaptive_pack("payroll_marker salaries", ladder=Ladder(min_evidence=1))
    data = result.to_dict()
    assert "salaries of every employee" not in result.prompt
    assert any(
        e["path"] == "private/payroll.md" and e["reason"] == "over_clearance"
        for e in data["packet"]["excluded"]
    )
    assert result.stop_reason in {"estimated_sufficient", "candidate_exhausted"}


DETERMINISM = """
import json, sys, prooftext
from prooftext.corpus import build_manifest
from prooftext.corpus.scan import scan
with prooftext.open(sys.argv[1]) as index:
    packet = index.pack("separability matrix of a compound model").to_dict()
    ladder = prooftext.Ladder(min_tokens=300, token_step=300)
    adaptive = index.adaptive_pack("separability matrix compound model", ladder=ladder).to_dict()
result = scan(sys.argv[1])
manifest = build_manifest(result.sources, result.excluded, result.candidate)
print(json.dumps([packet, adaptive, manifest["artifact_id"]], sort_keys=True))
"""


def test_E15_runs_under_different_hash_seeds_give_byte_identical_artifacts(
    repo: Path, tmp_path: Path, figure: Figure
) -> None:
    jobs = []
    for seed in ("0", "1", "4242"):
        files = {p.relative_to(repo).as_posix(): p.read_bytes() for p in repo.rglob("*") if p.is_file()}
        copy = write_tree(tmp_path / f"copy{seed}", files)
        jobs.append((DETERMINISM, [str(copy)], {"PYTHONHASHSEED": seed}))
    procs = run_python_parallel(jobs)
    assert all(p.returncode == 0 for p in procs), [p.stderr for p in procs]
    outputs = [p.stdout for p in procs]
    figure("determinism_runs", len(outputs))
    figure("determinism_distinct", len(set(outputs)))
    assert len(set(outputs)) == 1
