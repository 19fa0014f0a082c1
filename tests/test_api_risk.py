"""Risk of changing: an over-long target is a coded range error naming ``targets``, never an internal one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import prooftext
from prooftext.api.risk import MAX_TARGET_CHARS, RISK_MAX_DEPTH, RISK_MAX_LIMIT, risk_of_changing
from prooftext.errors import RangeError, RequestError


@pytest.mark.parametrize(
    "target",
    ["x" * 49_999, "/".join(["ab"] * 17_000), "y" * (MAX_TARGET_CHARS + 1)],
    ids=["name", "path", "just-over"],
)
def test_a_target_longer_than_any_path_is_refused_naming_targets(sample_repo: Path, target: str) -> None:
    with prooftext.open(sample_repo) as index, pytest.raises(RangeError) as info:
        index.refresh()
        risk_of_changing(index, [target])
    assert info.value.details["field"] == "targets"


def test_a_target_at_the_limit_is_looked_up(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        index.refresh()
        result = risk_of_changing(index, ["z" * MAX_TARGET_CHARS])
    assert result["targets"][0]["matches"] == []


@pytest.mark.parametrize(
    ("targets", "options", "field"),
    [
        ("CompoundModel", {}, "targets"),
        ([], {}, "targets"),
        ([5], {}, "targets"),
        (["\ud800"], {}, "targets"),
        (["x"] * 65, {}, "targets"),
        (["CompoundModel"], {"depth": 10**30}, "depth"),
        (["CompoundModel"], {"depth": 0}, "depth"),
        (["CompoundModel"], {"depth": None}, "depth"),
        (["CompoundModel"], {"depth": 1.5}, "depth"),
        (["CompoundModel"], {"limit": 0}, "limit"),
        (["CompoundModel"], {"limit": 1001}, "limit"),
    ],
)
def test_a_request_outside_the_schema_s_ranges_is_refused_naming_its_field(
    sample_repo: Path, targets: object, options: dict[str, object], field: str
) -> None:
    """The Python door holds the JSON-RPC schema's ranges: a huge depth used to walk forever, and a lone
    string was read as its letters."""
    with prooftext.open(sample_repo) as index, pytest.raises(RequestError) as info:
        risk_of_changing(index, targets, **options)  # type: ignore[arg-type]
    assert info.value.details["field"] == field


def test_the_deepest_widest_request_is_answered(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        index.refresh()
        result = risk_of_changing(index, ["CompoundModel"], depth=RISK_MAX_DEPTH, limit=RISK_MAX_LIMIT)
    assert result["targets"][0]["matches"] and not result["truncated"]


def test_a_credential_given_as_a_target_is_redacted_in_the_result(sample_repo: Path) -> None:
    token = "gh" + "p_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC2dF4gH6"
    with prooftext.open(sample_repo) as index:
        index.refresh()
        result = risk_of_changing(index, [token, f"docs/{token}.md"])
    assert token not in json.dumps(result)
    assert [t["ref"] for t in result["targets"]] == result["unresolved"]
    assert result["unresolved"] == ["[REDACTED:github-token]", "docs/[REDACTED:github-token].md"]


def test_the_answer_refreshes_the_index_first_so_a_new_caller_is_named(sample_repo: Path) -> None:
    """As ``pack``, ``search`` and ``repository_map`` do: a stale index used to answer with yesterday's
    callers, and a root never indexed with "nothing depends on this"."""
    (sample_repo / "fresh.py").write_text(
        "from modeling.separable import is_separable\n\n\ndef brand_new(t):\n    return is_separable(t)\n",
        encoding="utf-8",
    )
    with prooftext.open(sample_repo) as index:
        result = risk_of_changing(index, ["is_separable"])
    assert result["unresolved"] == []
    assert "fresh.py" in result["files_affected"]


def test_without_refresh_the_answer_reads_the_index_as_it_is(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        index.refresh()
        (sample_repo / "fresh.py").write_text("def brand_new():\n    return 1\n", encoding="utf-8")
        result = risk_of_changing(index, ["brand_new"], refresh=False)
    assert result["unresolved"] == ["brand_new"]


def test_a_refresh_flag_that_is_not_a_boolean_is_refused(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index, pytest.raises(RequestError) as info:
        risk_of_changing(index, ["CompoundModel"], refresh="no")  # type: ignore[arg-type]
    assert info.value.details["field"] == "refresh"


@pytest.mark.parametrize(
    "target", ["separable.separability_matrix", "modeling.separable.separability_matrix"]
)
def test_a_function_named_with_its_module_is_that_module_s_definition(sample_repo: Path, target: str) -> None:
    """``helpers.url_for`` names the function of that module, as ``Flask.url_for`` names the method of that
    class; it used to be unresolved."""
    with prooftext.open(sample_repo) as index:
        plain = risk_of_changing(index, ["separability_matrix"])
        named = risk_of_changing(index, [target])
    assert named["unresolved"] == []
    assert named["targets"][0]["matches"] == plain["targets"][0]["matches"]
    assert named["dependents"] == plain["dependents"]


@pytest.mark.parametrize(
    "target", ["core.separability_matrix", "separable.CompoundModel", "nowhere.is_separable"]
)
def test_a_module_that_does_not_define_the_name_resolves_nothing(sample_repo: Path, target: str) -> None:
    with prooftext.open(sample_repo) as index:
        result = risk_of_changing(index, [target])
    assert result["unresolved"] == [target]


def test_a_path_left_out_of_the_index_is_unresolved_with_a_note_saying_why(sample_repo: Path) -> None:
    """It used to be reported as a ``directory`` with no matches and no word of the exclusion, which reads as
    "nothing depends on this"."""
    (sample_repo / ".gitignore").write_text("modeling/generated.py\n", encoding="utf-8")
    (sample_repo / "modeling" / "generated.py").write_text("def made():\n    return 1\n", encoding="utf-8")
    with prooftext.open(sample_repo) as index:
        result = risk_of_changing(index, ["modeling/generated.py", "modeling/typo.py"])
    assert [t["kind"] for t in result["targets"]] == ["path", "path"]
    assert result["unresolved"] == ["modeling/generated.py", "modeling/typo.py"]
    assert any("modeling/generated.py" in n and "ignored" in n for n in result["notes"])
    assert any("modeling/typo.py" in n and "no indexed file" in n for n in result["notes"])
