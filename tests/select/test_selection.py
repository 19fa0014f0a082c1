"""Selection: required first and never evicted, optional in rank order, every exclusion with a reason."""

from __future__ import annotations

from pathlib import Path

import pytest

import prooftext
from prooftext.errors import BudgetError, PathOutsideRootError, SourceMissingError
from prooftext.select.query import Query
from prooftext.select.selector import REASON_HEAD_LEFT_OUT, REASON_RANK_CUTOFF
from prooftext.select.tuned import MIN_RANKED_CANDIDATES, UNITS_PER_CANDIDATE, ranked_window


def test_required_paths_come_first_even_without_lexical_evidence(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        packet = index.pack(Query("separability_matrix", required=("util/strings.py",)))
    assert packet.evidence[0].path == "util/strings.py"
    assert packet.evidence[0].reason == "required"


def test_required_evidence_above_the_ceiling_is_a_budget_error(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index, pytest.raises(BudgetError):
        index.pack(Query("separability", required=("modeling/separable.py",), max_tokens=120))


def test_a_ceiling_below_the_header_and_query_is_a_budget_error_that_blames_no_required_evidence(
    sample_repo: Path,
) -> None:
    with prooftext.open(sample_repo) as index, pytest.raises(BudgetError) as caught:
        index.pack(Query("separability", max_tokens=20))
    assert caught.value.message.startswith("the packet's header, query and required evidence need ")
    assert caught.value.details["needed"] > caught.value.details["ceiling"] == 20


def test_a_required_path_outside_the_root_is_refused(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index, pytest.raises(PathOutsideRootError):
        index.pack(Query("x", required=("../etc/passwd",)))


def test_a_required_path_absent_from_the_index_is_refused(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index, pytest.raises(SourceMissingError):
        index.pack(Query("x", required=("nope.py",)))


def test_path_seeds_rank_a_file_higher_but_never_add_an_unindexed_one(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        seeded = index.pack(Query("lowercase words", path_seeds=("util/strings.py", "ghost.py")))
    assert seeded.evidence[0].path == "util/strings.py"
    assert all(e.path != "ghost.py" for e in seeded.evidence)


def test_a_seed_that_names_no_indexed_file_is_listed_with_its_reason(sample_repo: Path) -> None:
    seeds = ("util/strings.py", "ghost.py", "../../etc/passwd", "ghost.py")
    with prooftext.open(sample_repo) as index:
        ranking = index.pack(Query("lowercase words", path_seeds=seeds)).trace["ranking"]
    assert ranking["unused_seeds"] == [
        {"path": "ghost.py", "reason": "not_indexed"},
        {"path": "../../etc/passwd", "reason": "not_indexed"},
    ]


def test_the_node_ceiling_is_respected_and_omissions_are_recorded(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        packet = index.pack(Query("separability matrix compound model", max_nodes=1))
    assert len(packet.evidence) == 1
    assert packet.omitted >= 1
    assert any(e["reason"] == "node_ceiling" for e in packet.excluded)


def test_search_records_rank_components_for_each_hit(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        index.refresh()
        hits = index.search("separability_matrix")
    top = hits[0]
    assert top["qualname"] == "separability_matrix"
    assert top["phase"] == "identifier"
    assert {"file_score", "identifier", "lexical"} <= set(top["components"])


NESTED = '''def build_digest_header(method, url):
    """Build the header."""

    def md5_utf8(x):
        return x

    def sha_utf8(x):
        return x

    qop_value = "auth"
    base = f"qop={qop_value}"
    return base + " digest_marker"
'''


def test_a_functions_body_after_its_nested_definitions_is_an_excerpt(tmp_path: Path) -> None:
    """The lines after a function's last nested definition belong to no child node; they are its tail."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "auth.py").write_text(NESTED, encoding="utf-8")
    with prooftext.open(root) as index:
        packet = index.pack("build_digest_header qop_value digest_marker")
    nodes = {tuple(s["excerpt_range"]) for s in packet.trace["selected"]}
    nodes |= {(j.start_line, j.end_line) for e in packet.evidence for j in e.joined}
    assert (9, 12) in nodes  # the tail: from after the last nested definition to the return
    assert (1, 3) in nodes  # the head: signature and docstring
    ranges = sorted((e.start_line, e.end_line) for e in packet.evidence if e.path == "auth.py")
    lines = [line for start, end in ranges for line in range(start, end + 1)]
    assert len(lines) == len(set(lines))  # no line is quoted twice


def test_a_functions_tail_is_not_quoted_without_its_head(tmp_path: Path) -> None:
    """The tail weighs what the whole function matched, here only its docstring: when the head does not fit,
    the two lines after the nested definition are left out with their reason, not quoted alone."""
    root = tmp_path / "repo"
    root.mkdir()
    doc = "\n".join(f"    zebra quokka line {i} explains the walrus" for i in range(40))
    nested = "\n    def count(x):\n        return x\n\n    return count(group)\n"
    (root / "wild.py").write_text(f'def herd(group):\n    """\n{doc}\n    """\n{nested}', encoding="utf-8")
    with prooftext.open(root) as index:
        roomy = index.pack(Query("zebra quokka walrus", max_tokens=2000))
        tight = index.pack(Query("zebra quokka walrus", max_tokens=400))
    assert [(e.start_line, e.end_line) for e in roomy.evidence] == [(1, 48)]  # head and tail, joined
    assert tight.evidence == []
    reasons = {tuple(x["lines"]): x["reason"] for x in tight.excluded}
    assert reasons == {(1, 44): "over_budget", (47, 48): REASON_HEAD_LEFT_OUT}


MESSAGES = {
    "shapes.py": (
        "def validate_shape(dims):\n"
        "    if not dims:\n"
        '        raise ValueError("shape functions must have arguments")\n'
        "    return dims\n"
    ),
    "functions.py": (
        "def shape_functions(dims):\n"
        '    """Shape functions: arguments, dims, and the functions of a shape."""\n'
        "    return [shape for shape in dims if shape]\n"
    ),
}


def test_a_node_holding_the_quoted_error_message_ranks_first_and_says_why(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    for name, text in MESSAGES.items():
        (root / name).write_text(text, encoding="utf-8")
    query = "Shape functions fail: ValueError: shape functions must have arguments"
    with prooftext.open(root) as index:
        index.refresh()
        hits = index.search(query)
        packet = index.pack(query)
    assert hits[0]["qualname"] == "validate_shape"
    assert hits[0]["reason"] == "phrase" and hits[0]["components"]["node_phrase"] == 1_000_000
    assert hits[0]["components"]["phrase"] > 0
    assert "shape functions must have" in packet.trace["ranking"]["phrase_runs"]


def test_the_subject_line_keeps_its_words_searched_among_many_rarer_tokens(tmp_path: Path) -> None:
    """Fifty rare tokens from an example would push the title's common words out of the searched terms."""
    root = tmp_path / "repo"
    root.mkdir()
    noise = [f"tok{i:02d}x" for i in range(50)]
    common = "".join(f"def common_{i}():\n    return 'indexing matrix {i}'\n\n" for i in range(8))
    (root / "common.py").write_text(common, encoding="utf-8")
    (root / "matrix_index.py").write_text(
        "def strange_indexing(matrix):\n    return matrix.indexing_behaviour()\n", encoding="utf-8"
    )
    (root / "noise.py").write_text(
        "".join(f"def use_{t}():\n    return '{t}'\n\n" for t in noise), encoding="utf-8"
    )
    query = "Strange indexing behaviour of a matrix\n\n" + " ".join(noise)
    with prooftext.open(root) as index:
        index.refresh()
        hits = index.search(query, limit=200)
        packet = index.pack(Query(query, max_tokens=400))
    subject_hits = [h for h in hits if h["components"].get("node_subject")]
    assert subject_hits and subject_hits[0]["qualname"] == "strange_indexing"
    assert packet.trace["ranking"]["subject_terms"] == ["strange", "indexing", "behaviour", "matrix"]
    assert {"strange", "indexing", "behaviour", "matrix"} <= set(packet.trace["ranking"]["fts_terms"])


def test_candidates_ranked_below_the_window_are_recorded_never_dropped(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    body = "".join(f"def widget_{i:03d}():\n    return 'sprocket widget {i}'\n\n" for i in range(260))
    (root / "widgets.py").write_text(body, encoding="utf-8")
    with prooftext.open(root) as index:
        index.refresh()
        ranked = index.search("sprocket widget", limit=1000)
        packet = index.pack(Query("sprocket widget", max_tokens=2000))
    window = ranked_window(packet.query)
    assert window == MIN_RANKED_CANDIDATES and len(ranked) > window
    cut = [e for e in packet.excluded if e["reason"] == REASON_RANK_CUTOFF]
    assert [e["node_id"] for e in cut] == [c["node_id"] for c in ranked[window:]]
    assert packet.omitted >= len(cut)
    chosen = {i for e in packet.evidence for i in e.node_ids}
    accounted = chosen | {e["node_id"] for e in packet.excluded}
    assert {c["node_id"] for c in ranked} <= accounted


def test_the_window_grows_with_the_ceiling() -> None:
    assert ranked_window(Query(text="q", max_tokens=8000)) == MIN_RANKED_CANDIDATES
    assert ranked_window(Query(text="q", max_tokens=100_000)) == 100_000 // UNITS_PER_CANDIDATE
