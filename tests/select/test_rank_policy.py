"""The ranking policy: every knob is a field with a meaning, the trace records all of them, a recorded policy
reads back as the same value, and the default policy holds the tuned values."""

from __future__ import annotations

from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pytest

import prooftext
from prooftext import canonical
from prooftext.adaptive.compile import AdaptiveResult
from prooftext.errors import RangeError, RequestError
from prooftext.select.policy import DEFAULT_POLICY, RankingPolicy
from under_policy import packed_under

DEFAULT_SNAPSHOT: dict[str, Any] = {
    "fts_weights_milli": [10000, 1000, 3000, 1000],
    "fts_limit": 300,
    "max_fts_terms": 40,
    "max_term_probes": 200,
    "common_term_share_milli": 200,
    "min_common_cap": 50,
    "phrase_limit": 1000,
    "singular_terms": True,
    "subject_limit": 300,
    "subject_columns": ["title", "path"],
    "file_top_nodes": 3,
    "test_factor_milli": 200,
    "doc_factor_milli": 500,
    "test_path_pattern": r"(^|/)(tests?|testing|__tests__|testdata)(/|$)"
    r"|(^|/)(Tests?|Testing|TestData)(/|$)|(^|/)[^/]+[.][A-Za-z]*Tests?/"
    r"|(^|/)test_[^/]*$|_tests?\.[a-z]+$"
    r"|(^|/)conftest\.py$|(^|/|\.)(test|spec)\.[cm]?[jt]sx?$|_spec\.(rb|lua)$"
    r"|[a-z0-9]Tests?\.(php|java|kt|scala|cs|swift|m|mm|groovy)$|[a-z0-9](Spec|Suite)\.scala$"
    r"|(^|/)src/([a-z][A-Za-z]*Test|testFixtures)/",
    "test_scope_names": ["test", "tests"],
    "doc_path_pattern": r"(^|/)(docs?|examples?|bench(mark)?s?|demos?)(/|$)|(^|/)(conf|setup)\.py$",
    "data_factor_milli": 100,
    "data_path_pattern": r"(^|/)(vendor|vendored|_vendor|third[_-]?party|external|extern|externals|node_modules|bower_components)/|[-_.]v?\d+\.\d+(\.\d+)*([-.](min|slim|dev|beta\d*|rc\d*))*\.(js|mjs|css|map)$|\.min\.(js|mjs|css)$|\.(js|css)\.map$|\.(po|pot|mo)$|(^|/)(locale|locales|i18n|l10n)/|_pb2(_grpc)?\.pyi?$|\.pb\.(go|cc|h|swift)$|_pb\.(js|d\.ts)$|(^|/)generated/|\.generated\.|(^|/)(package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|composer\.lock|gemfile\.lock|cargo\.lock|poetry\.lock|pipfile\.lock|pdm\.lock|uv\.lock|flake\.lock|go\.sum)$|(^|/)(changes|changelog|history|news|releases?|release[-_]notes|whatsnew)(\.[a-z]+)?$|(^|/)(changes|changelog|whatsnew|release[-_]notes|releases)/",
    "license_name_pattern": r"(^|/)(licen[cs]e|copying)([._-][a-z0-9]+)*$",
    "dense_line_bytes": 300,
    "local_weight_milli": 250,
    "node_decay_milli": 950,
    "named_only_last": True,
    "opening_files": 20,
    "opening_factor_milli": 500,
    "neighbour_files": 3,
    "neighbour_nodes": 3,
    "neighbour_factor_milli": 500,
    "tail_kinds": ["function", "method"],
}
"""The tuned values, as the trace records them."""

ISSUE = "compress_payload drops bytes\n\nA payload is compressed wrongly: compress_payload loses the tail."


def _changed(name: str) -> RankingPolicy:
    """The default policy with one knob set to another valid value."""
    value = getattr(DEFAULT_POLICY, name)
    if isinstance(value, bool):
        other: object = not value
    elif isinstance(value, float):
        other = 0.125 if value != 0.125 else 0.25
    elif isinstance(value, int):
        other = value + 1
    elif name == "subject_columns":
        other = ("title",)
    elif isinstance(value, tuple):
        other = tuple(reversed(value))
    else:
        other = value + "|^never$"
    return replace(DEFAULT_POLICY, **{name: other})


def test_the_default_policy_holds_the_tuned_values() -> None:
    assert DEFAULT_POLICY.to_dict() == DEFAULT_SNAPSHOT


def test_every_field_is_recorded_and_has_a_one_line_meaning() -> None:
    recorded = DEFAULT_POLICY.to_dict()
    names = [spec.name for spec in fields(RankingPolicy)]
    assert len(recorded) == len(names)
    for name in names:
        assert name in recorded or f"{name}_milli" in recorded, name
    meanings = DEFAULT_POLICY.meanings()
    assert list(meanings) == names
    assert all(meaning and "\n" not in meaning for meaning in meanings.values())


def test_the_recorded_policy_is_canonical_json_and_reads_back_as_the_same_value() -> None:
    for policy in [DEFAULT_POLICY, *(_changed(spec.name) for spec in fields(RankingPolicy))]:
        recorded = policy.to_dict()
        assert canonical.load(canonical.encode(recorded)) == recorded
        assert RankingPolicy.from_dict(recorded) == policy


def test_each_knob_changes_the_recorded_policy_in_its_own_key_alone() -> None:
    default = DEFAULT_POLICY.to_dict()
    for spec in fields(RankingPolicy):
        recorded = _changed(spec.name).to_dict()
        assert [k for k in recorded if recorded[k] != default[k]] in ([spec.name], [f"{spec.name}_milli"])


def test_a_knob_left_out_keeps_its_default() -> None:
    assert RankingPolicy.from_dict({"fts_limit": 12}) == replace(DEFAULT_POLICY, fts_limit=12)
    assert RankingPolicy.from_dict({}) == DEFAULT_POLICY


@pytest.mark.parametrize(
    ("data", "error", "field"),
    [
        ({"fts_limits": 3}, RequestError, "policy.fts_limits"),
        ({"node_decay": 950}, RequestError, "policy.node_decay"),
        ({"node_decay_milli": 0.95}, RequestError, "policy.node_decay_milli"),
        ({"fts_limit": "300"}, RequestError, "policy.fts_limit"),
        ({"fts_limit": True}, RequestError, "policy.fts_limit"),
        ({"named_only_last": 1}, RequestError, "policy.named_only_last"),
        ({"tail_kinds": "function"}, RequestError, "policy.tail_kinds"),
        ({"fts_weights_milli": [1000, 1000, 1000, 1.5]}, RequestError, "policy.fts_weights_milli"),
        ({"fts_limit": -1}, RangeError, "policy.fts_limit"),
        ({"node_decay_milli": 1001}, RangeError, "policy.node_decay"),
        ({"test_factor_milli": -1}, RangeError, "policy.test_factor"),
        ({"fts_weights_milli": [1000, 1000]}, RangeError, "policy.fts_weights"),
        ({"fts_weights_milli": [1000, 1000, 1000, -1]}, RangeError, "policy.fts_weights"),
        ({"subject_columns": ["title", "body"]}, RangeError, "policy.subject_columns"),
        ({"subject_columns": ["path", "path"]}, RangeError, "policy.subject_columns"),
        ({"test_path_pattern": "(unclosed"}, RangeError, "policy.test_path_pattern"),
    ],
)
def test_unknown_fields_and_bad_values_are_refused_naming_the_field(
    data: dict[str, Any], error: type[RequestError], field: str
) -> None:
    with pytest.raises(error) as caught:
        RankingPolicy.from_dict(data)
    assert type(caught.value) is error
    assert caught.value.field == field


def test_a_fraction_that_thousandths_cannot_record_is_refused() -> None:
    with pytest.raises(RangeError, match="thousandths"):
        replace(DEFAULT_POLICY, node_decay=0.9512)
    with pytest.raises(RangeError, match="within"):
        replace(DEFAULT_POLICY, local_weight=float("nan"))


def test_a_recorded_policy_must_be_an_object() -> None:
    with pytest.raises(RequestError) as caught:
        RankingPolicy.from_dict([("fts_limit", 3)])  # type: ignore[arg-type]
    assert caught.value.field == "policy"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "codec.py").write_text(
        "import zlib\n\n\ndef compress_payload(data):\n    return zlib.compress(data)\n\n\n"
        "def unframe(blob):\n    return blob[4:]\n",
        encoding="utf-8",
    )
    return tmp_path


def test_the_trace_records_the_policy_the_packet_was_ranked_under(repo: Path) -> None:
    policy = replace(DEFAULT_POLICY, node_decay=0.9, neighbour_files=1)
    recorded = packed_under(repo, ISSUE, policy).trace["ranking"]["policy"]
    assert recorded == policy.to_dict() != DEFAULT_POLICY.to_dict()
    assert packed_under(repo, ISSUE, DEFAULT_POLICY).trace["ranking"]["policy"] == DEFAULT_SNAPSHOT


def test_the_adaptive_ladder_ranks_under_the_policy_it_is_given(repo: Path) -> None:
    packed_under(repo, ISSUE, DEFAULT_POLICY)  # refreshes the index
    policy = replace(DEFAULT_POLICY, neighbour_files=0)
    with_policy = _adaptive(repo, policy)
    assert with_policy.packet.trace["ranking"]["policy"] == policy.to_dict()
    assert _adaptive(repo, DEFAULT_POLICY).packet.trace["ranking"]["policy"] == DEFAULT_SNAPSHOT


def _adaptive(repo: Path, policy: RankingPolicy) -> AdaptiveResult:
    with prooftext.open(repo, ranking=policy) as index:
        return index.adaptive_pack(ISSUE, refresh=False)
