"""The signals and the fusion are pure functions of the evidence, the corpus facts and the policy."""

from __future__ import annotations

import math
from dataclasses import replace

from prooftext.select.corpus_facts import CorpusFacts
from prooftext.select.fusion import fuse, node_candidates, normalized
from prooftext.select.policy import DEFAULT_POLICY
from prooftext.select.signals import (
    SIGNALS,
    Evidence,
    SignalInputs,
    choose_terms,
    deweight,
    file_signals,
)
from prooftext.select.terms import QueryAnalysis
from prooftext.store.queries import NodeRow

PATHS = {1: "pkg/app.py", 2: "tests/test_app.py", 3: "docs/guide.md", 4: "pkg/util/app.py"}


def _corpus() -> CorpusFacts:
    suffixes: dict[str, list[int]] = {}
    components: dict[str, set[int]] = {}
    for fid, path in PATHS.items():
        parts = path.split("/")
        for start in range(len(parts)):
            suffixes.setdefault("/".join(parts[start:]), []).append(fid)
        for word in {*parts[:-1], parts[-1].rsplit(".", 1)[0]}:
            components.setdefault(word, set()).add(fid)
    ids = {path: fid for fid, path in PATHS.items()}
    return CorpusFacts(dict(PATHS), ids, {2}, {3}, set(), suffixes, components)


def _row(rowid: int, file_id: int, name: str) -> NodeRow:
    return NodeRow(
        f"{rowid:064X}", "symbol", PATHS[file_id], name, name, "function", rowid, 1, 2, "0" * 64,
        "project", "public", "current", file_id, "code",
    )  # fmt: skip


def test_terms_are_chosen_rarest_first_then_the_subjects_uncommon_ones() -> None:
    counts = {"session": 40, "header": 3, "default": 90, "merge": 7}
    policy = replace(DEFAULT_POLICY, max_fts_terms=1)
    assert choose_terms(counts, 50, ["merge", "default"], policy) == ["header", "merge"]
    # When every term is common the least common ones are searched, and no common subject term.
    assert choose_terms({"a": 80, "b": 60}, 50, ["a"], DEFAULT_POLICY) == ["b", "a"]


def test_a_mention_that_fits_several_files_is_shared_among_them() -> None:
    analysis = QueryAnalysis(terms=("util",), identifiers={}, paths=("app.py",), modules=())
    inputs = SignalInputs(Evidence(), _corpus(), analysis, ("docs/guide.md", "absent.py"))
    signals = file_signals(inputs, DEFAULT_POLICY)
    assert list(signals) == list(SIGNALS)
    assert signals["path"] == {1: 0.5, 4: 0.5}
    assert signals["seed"] == {3: 1.0}
    assert set(signals["path_words"]) == {4}


def test_a_directory_too_common_to_say_anything_adds_no_path_word() -> None:
    analysis = QueryAnalysis(terms=("pkg", "util"), identifiers={}, paths=(), modules=())
    inputs = SignalInputs(Evidence(), _corpus(), analysis, ())
    policy = replace(DEFAULT_POLICY, min_common_cap=1, common_term_share=0.5)
    # "pkg" names 2 of 4 files, within the cap of 2; "util" names 1
    assert set(file_signals(inputs, policy)["path_words"]) == {1, 4}
    # a share of 0.25 caps at 1 file: "pkg" is the package's own directory, named by most questions
    narrow = replace(policy, common_term_share=0.25)
    assert file_signals(inputs, narrow)["path_words"] == {4: math.log(1 + 4 / 1)}


def test_tests_and_documents_take_the_policys_factors() -> None:
    corpus = _corpus()
    policy = replace(DEFAULT_POLICY, test_factor=0.1, doc_factor=0.3)
    assert [deweight(fid, corpus, policy) for fid in (1, 2, 3)] == [1.0, 0.1, 0.3]
    signals = {name: {} for name in SIGNALS} | {"lexical": {1: 2.0, 2: 4.0}, "seed": {3: 1.0}}
    fused = fuse(signals, corpus, policy)
    assert fused[2]["file_score"] == 1.0 * 0.1 and fused[1]["file_score"] == 0.5
    assert fused[3]["file_score"] == 1.0 * 0.3


def test_a_nodes_priority_decays_with_its_rank_in_its_file() -> None:
    ev = Evidence(rows={1: _row(1, 1, "first"), 2: _row(2, 1, "second")}, node_lexical={1: 4.0, 2: 2.0})
    fused = {1: {"file_score": 1.0}}
    policy = replace(DEFAULT_POLICY, node_decay=0.5, local_weight=0.0)
    nodes = node_candidates(ev, fused, policy)
    assert [nodes[1].priority, nodes[2].priority] == [1_000_000, 500_000]
    assert [nodes[1].components["rank_in_file"], nodes[2].components["rank_in_file"]] == [0, 1]
    assert normalized({1: 4.0, 2: 2.0}) == {1: 1.0, 2: 0.5}
