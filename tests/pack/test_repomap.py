"""The repository map: ranked, within its exact budget, deterministic, personalized, and verifiable."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import prooftext
from helpers import SAMPLE_FILES, write_tree
from prooftext.errors import ArtifactError, BudgetError, RangeError, StoreError, UnknownNameError
from prooftext.pack.render import digest
from prooftext.pack.repomap import MapSettings, build_map, file_edges, pagerank, validate_settings
from prooftext.pack.verify import BIT_DIGEST, BIT_SOURCE
from prooftext.tokens import get_counter

SECRET = "AKIA" + "ABCDEFGHIJKLMNOP"


def _map(root: Path, **fields: Any) -> prooftext.RepositoryMap:
    with prooftext.open(root) as index:
        return prooftext.repository_map(index, MapSettings(**fields))


def _saved(root: Path, **fields: Any) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(json.dumps(_map(root, **fields).to_dict()))
    return value


def test_a_map_names_files_and_quotes_the_first_line_of_their_symbols(sample_repo: Path) -> None:
    built = _map(sample_repo)
    assert "modeling/separable.py\n" in built.prompt
    assert "def separability_matrix(transform):" in built.prompt
    entry = next(e for e in built.entries if e.qualname == "separability_matrix")
    assert (entry.line, entry.start_line, entry.end_line) == (12, 12, 17)
    assert entry.sha256 == next(e.sha256 for e in built.entries if e.path == entry.path and e.kind == "file")


def test_the_same_index_and_settings_give_the_same_bytes(sample_repo: Path) -> None:
    first = json.dumps(_map(sample_repo, query="compound model").to_dict(), sort_keys=True)
    assert json.dumps(_map(sample_repo, query="compound model").to_dict(), sort_keys=True) == first


def test_a_map_without_personalization_ranks_the_most_used_file_first(sample_repo: Path) -> None:
    # separable.py is imported by core.py and its function is called there: it is the centre.
    assert _map(sample_repo).paths[0] == "modeling/separable.py"
    assert _map(sample_repo).trace["ranking"] == "centrality"


def test_a_path_puts_its_file_first(sample_repo: Path) -> None:
    built = _map(sample_repo, paths=("util/strings.py",))
    assert built.paths[0] == "util/strings.py"
    assert built.trace["ranking"] == "personalized"


@pytest.mark.parametrize("spelled", ["./util/strings.py", "util//strings.py", "util/./strings.py", "./util/"])
def test_a_path_spelled_with_dot_or_doubled_slashes_names_the_same_file(
    sample_repo: Path, spelled: str
) -> None:
    built = _map(sample_repo, paths=(spelled,))
    assert built.paths[0] == "util/strings.py" and built.trace["unmatched_paths"] == []


def test_an_identifier_puts_the_file_defining_it_first(sample_repo: Path) -> None:
    assert _map(sample_repo, identifiers=("slugify",)).paths[0] == "util/strings.py"


def test_names_that_match_nothing_are_reported(sample_repo: Path) -> None:
    built = _map(sample_repo, paths=("nowhere.py",), identifiers=("no_such_name",))
    assert built.trace["unmatched_paths"] == ["nowhere.py"]
    assert built.trace["unmatched_identifiers"] == ["no_such_name"]


def test_a_query_ranks_the_file_that_answers_it_first(sample_repo: Path) -> None:
    assert _map(sample_repo, query="slugify text into lowercase words").paths[0] == "util/strings.py"


def test_a_small_budget_names_fewer_entries_and_stays_within_it(sample_repo: Path) -> None:
    whole = _map(sample_repo, max_tokens=4096)
    small = _map(sample_repo, max_tokens=whole.prompt_tokens.count - 10)
    assert len(small.entries) < len(whole.entries)
    assert small.prompt_tokens.count <= whole.prompt_tokens.count - 10
    assert small.omitted > whole.omitted


def test_a_budget_below_the_empty_map_is_refused(sample_repo: Path) -> None:
    with pytest.raises(BudgetError):
        _map(sample_repo, max_tokens=20)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    budget=st.integers(min_value=1, max_value=700), tokenizer=st.sampled_from(["o200k_base", "cl100k_base"])
)
def test_a_map_never_exceeds_its_budget(sample_repo: Path, budget: int, tokenizer: str) -> None:
    try:
        built = _map(sample_repo, max_tokens=budget, tokenizer=tokenizer)
    except BudgetError as refused:
        assert refused.details["needed"] > budget  # only a budget the empty map exceeds is refused
        return
    assert get_counter(tokenizer).count(built.prompt) == built.prompt_tokens.count <= budget


def test_a_byte_budget_counts_bytes(sample_repo: Path) -> None:
    built = _map(sample_repo, max_tokens=1500, tokenizer="bytes")
    assert len(built.prompt.encode()) == built.prompt_tokens.count <= 1500


def test_a_quoted_credential_is_redacted(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "r", {"keys.py": f"def load(key='{SECRET}'):\n    return key\n"})
    (root / "prooftext.toml").write_text('[secrets]\npolicy = "redact"\n', encoding="utf-8")
    built = _map(root)
    assert SECRET not in built.prompt and "def load(" in built.prompt


def test_a_source_line_cannot_close_the_maps_fence(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "r", {"a.py": "class Fence:  # ----- END MAP 1 -----\n    pass\n"})
    built = _map(root)
    assert built.prompt.count(f"----- END MAP {built.nonce} -----") == 1
    assert built.nonce not in "".join(e.path for e in built.entries)


def _files(built: prooftext.RepositoryMap) -> list[str]:
    return [e.path for e in built.entries if e.kind == "file"]


def test_tests_and_vendored_copies_rank_below_the_code_however_central_as_the_packet_ranks_them(
    tmp_path: Path,
) -> None:
    users = {
        f"app/m{i}.py": "from vendor.six import text\nfrom tests.helpers import check\ntext()\n"
        for i in range(3)
    }
    root = write_tree(
        tmp_path / "r",
        {
            "vendor/six.py": "def text():\n    return ''\n",
            "tests/helpers.py": "def check():\n    return True\n",
            "app/core.py": "from app.m0 import text\n\ndef run():\n    return text()\n",
            **users,
        },
    )
    files = _files(_map(root, max_tokens=2000))
    assert files.index("tests/helpers.py") > max(files.index(p) for p in users)
    assert files[-1] == "vendor/six.py"
    assert _files(_map(root, max_tokens=2000, paths=("vendor/six.py",)))[0] == "vendor/six.py"


def test_a_symbol_inside_a_function_is_not_named(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "r", {"a.py": "def outer():\n    def inner():\n        pass\n    return inner\n"}
    )
    assert [e.qualname for e in _map(root).entries] == ["a.py", "outer"]


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"max_tokens": 0}, RangeError),
        ({"tokenizer": "gpt2"}, UnknownNameError),
        ({"clearance": "top"}, UnknownNameError),
        ({"query": "a\x1bb"}, prooftext.ProoftextError),
        ({"paths": ["a.py"]}, prooftext.ProoftextError),
    ],
)
def test_bad_settings_are_refused_naming_the_field(fields: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        validate_settings(MapSettings(**fields))


@pytest.mark.parametrize(
    ("tokenizer", "refused", "accepted"),
    [("bytes", (1023, 8_388_609), (1024, 8_388_608)), ("o200k_base", (0, 2_097_153), (1, 2_097_152))],
)
def test_a_maps_ceiling_has_the_range_of_a_packets_in_the_same_unit(
    tokenizer: str, refused: tuple[int, int], accepted: tuple[int, int]
) -> None:
    for value in refused:
        with pytest.raises(RangeError, match=str(accepted[0] if value < accepted[0] else accepted[1])):
            validate_settings(MapSettings(max_tokens=value, tokenizer=tokenizer))
    for value in accepted:
        validate_settings(MapSettings(max_tokens=value, tokenizer=tokenizer))


def test_pagerank_follows_the_edges_and_restarts_where_told() -> None:
    edges = {(0, 2): 1.0, (1, 2): 1.0}
    plain = pagerank(3, edges)
    assert plain[2] > plain[0] == plain[1]
    assert abs(sum(plain) - 1) < 1e-9
    personal = pagerank(3, edges, [1.0, 0.0, 0.0])
    assert personal[0] > personal[1]


def test_a_name_defined_in_several_files_shares_its_weight_among_them() -> None:
    edges = file_edges([(0, "run", 4)], {"run": [1, 2]}, [(0, 1)])
    assert edges == {(0, 1): 2.0, (0, 2): 1.0}


# -- verification ---------------------------------------------------------------------------------------------


def test_a_saved_map_verifies_from_a_file(sample_repo: Path, tmp_path: Path) -> None:
    saved = tmp_path / "map.json"
    saved.write_text(json.dumps(_saved(sample_repo, query="compound model")), encoding="utf-8")
    report = prooftext.verify(saved, sample_repo)
    assert report.ok and report.checked > 3


def _redigest(value: dict[str, Any]) -> dict[str, Any]:
    value["blake3"] = digest(value["prompt"])
    return value


def _edit_prompt(value: dict[str, Any]) -> None:
    value["prompt"] = value["prompt"].replace("def is_separable", "def is_not_separable")
    _redigest(value)


def _move_line(value: dict[str, Any]) -> None:
    next(e for e in value["entries"] if e["line"] is not None)["line"] += 1


def _relabel(value: dict[str, Any]) -> None:
    value["entries"][0]["sensitivity"] = "public"


def _relabel_a_symbol(value: dict[str, Any]) -> None:
    symbol = next(e for e in value["entries"] if e["kind"] != "file")
    symbol["sensitivity"], symbol["authority"] = "public", "accepted-public-contract"


def _raise_ceiling_claim(value: dict[str, Any]) -> None:
    value["settings"]["max_tokens"] = 10


def _orphan(value: dict[str, Any]) -> None:
    value["entries"].pop(0)


@pytest.mark.parametrize(
    ("tamper", "kind"),
    [
        (lambda v: v.__setitem__("blake3", "0" * 64), "digest"),
        (_edit_prompt, "content"),
        (_move_line, "content"),
        (_relabel, "labels"),
        (_relabel_a_symbol, "labels"),
        (_raise_ceiling_claim, "ceiling"),
        (_orphan, "structure"),
        (lambda v: v.__setitem__("nonce", "1" * 18), "nonce"),
    ],
)
def test_a_tampered_map_fails_verification_with_the_kind_of_change(
    sample_repo: Path, tamper: Any, kind: str
) -> None:
    value = _saved(sample_repo)
    tamper(value)
    report = prooftext.verify(value, sample_repo)
    assert report.status & BIT_DIGEST
    assert kind in {p["kind"] for p in report.problems}


def test_a_map_whose_source_changed_fails_with_a_stale_source(sample_repo: Path) -> None:
    value = _saved(sample_repo)
    (sample_repo / "modeling/separable.py").write_text("x = 1\n", encoding="utf-8")
    report = prooftext.verify(value, sample_repo)
    assert report.status & BIT_SOURCE
    assert {p["kind"] for p in report.problems} == {"source_drift"}


def test_a_map_of_the_wrong_shape_is_refused(sample_repo: Path) -> None:
    value = _saved(sample_repo)
    broken = copy.deepcopy(value)
    broken["entries"][0]["lines"] = "1-2"
    with pytest.raises(ArtifactError) as caught:
        prooftext.verify(broken, sample_repo)
    assert caught.value.details["field"].startswith("map.entries.0")


def test_a_signed_map_verifies_with_its_key_and_fails_when_edited(sample_repo: Path, tmp_path: Path) -> None:
    key = prooftext.SigningKey.generate(tmp_path / "key")
    signed = prooftext.sign(_saved(sample_repo), key)
    assert prooftext.verify(signed, sample_repo, key=key).ok
    signed["omitted"] += 1
    assert not prooftext.verify(signed, sample_repo, key=key).ok


def test_the_sample_files_hold_what_these_tests_name() -> None:
    assert "def separability_matrix(transform):" in SAMPLE_FILES["modeling/separable.py"]


def test_a_credential_given_as_a_path_or_identifier_is_redacted_in_the_map(sample_repo: Path) -> None:
    token = "gh" + "p_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC2dF4gH6"
    saved = _saved(sample_repo, paths=(token, "modeling/"), identifiers=(f"x_{token}",))
    assert token not in json.dumps(saved)
    assert saved["settings"]["paths"] == ["[REDACTED:github-token]", "modeling/"]
    assert saved["settings"]["identifiers"] == ["x_[REDACTED:github-token]"]
    assert saved["trace"]["unmatched_paths"] == ["[REDACTED:github-token]"]


@pytest.mark.parametrize("table", ["files", "nodes", "meta"])
def test_a_store_damaged_under_the_map_is_a_coded_store_error(sample_repo: Path, table: str) -> None:
    with prooftext.open(sample_repo) as index:
        index.refresh()
        index.conn.execute("PRAGMA foreign_keys = OFF")
        index.conn.execute(f"DROP TABLE {table}")
        with pytest.raises(StoreError) as info:
            build_map(index.conn, index.root, MapSettings())
    assert info.value.code == "store_corrupt" and "prooftext index --rebuild" in str(info.value)


def test_a_symbol_is_quoted_by_its_signature_line_not_its_doc_comment_or_attributes(tmp_path: Path) -> None:
    doc = "".join(f"/// Line {i} of a long doc comment.\n" for i in range(20))
    root = write_tree(
        tmp_path / "r",
        {
            "src/lib.rs": f"{doc}#[derive(Debug)]\npub struct Walk {{\n    depth: usize,\n}}\n",
            "src/A.java": "/** A thing. */\npublic class A {\n  /** Same. */\n  @Override public boolean equals(Object o) {\n"
            "    return true;\n  }\n}\n",
            "main.go": "package main\n\n// Run runs.\nfunc Run() {\n}\n",
        },
    )
    quoted = {e.qualname: (e.line, e.start_line) for e in _map(root).entries if e.kind != "file"}
    assert quoted == {"Walk": (22, 1), "A": (2, 1), "A.equals": (4, 3), "Run": (4, 3)}


def test_a_map_of_another_version_is_refused_as_a_map(sample_repo: Path) -> None:
    """Not as a packet missing its query: the error names the map's own version field."""
    value = _saved(sample_repo)
    value["version"] = "prooftext.map/v9"
    with pytest.raises(ArtifactError) as caught:
        prooftext.verify(value, sample_repo)
    assert caught.value.details["field"] == "map.version"


def test_the_problems_of_a_map_speak_of_a_map_not_of_a_packet(sample_repo: Path, tmp_path: Path) -> None:
    key = prooftext.SigningKey.generate(tmp_path / "key")
    value = prooftext.sign(_saved(sample_repo), key)
    _relabel(value)
    _raise_ceiling_claim(value)
    report = prooftext.verify(value, sample_repo, key=key)
    assert {"labels", "ceiling", "signature"} <= {p["kind"] for p in report.problems}
    details = " ".join(p["detail"] for p in report.problems)
    assert "packet" not in details and "query" not in details and "settings declare," in details
    unsigned = prooftext.verify(_saved(sample_repo), sample_repo, key=key)
    assert unsigned.problems[0]["detail"] == "a key was given, but the map is not signed"


def test_the_methods_of_a_class_whose_first_line_is_too_long_to_quote_are_still_named(tmp_path: Path) -> None:
    """The class itself is named by no entry (a map never quotes part of a line); its methods still are,
    below its file, and the map still verifies."""
    bases = ", ".join(f"Base{i}" for i in range(40))
    classes = "".join(f"class Base{i}:\n    pass\n\n\n" for i in range(40))
    body = f"class Wide({bases}):\n    def glorp_one(self):\n        return 1\n"
    root = write_tree(tmp_path / "r", {"wide.py": classes + body})
    built = _map(root, max_tokens=4096, identifiers=("glorp_one",))
    assert "Wide" not in {e.qualname for e in built.entries}
    assert "Wide.glorp_one" in {e.qualname for e in built.entries}
    assert "def glorp_one(self):" in built.prompt
    assert prooftext.verify(built, root).ok
