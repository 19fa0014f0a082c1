from __future__ import annotations

import pytest

from prooftext.corpus import labels as labels_module
from prooftext.corpus.config import CorpusConfig
from prooftext.corpus.labels import LabelRule, authority_allowed, labels_for, source_kind
from prooftext.corpus.model import Labels
from prooftext.errors import AuthorityError, ConfigError, FreshnessError


def test_labels_default_to_repository_record_candidate_bound_repository_private() -> None:
    assert labels_for("src/a.py", CorpusConfig()) == Labels(
        "repository-record", "candidate-bound", "repository-private"
    )


def test_only_the_declared_specification_is_canonical() -> None:
    config = CorpusConfig(specification="SPEC.md")
    assert labels_for("SPEC.md", config).authority == "canonical-specification"
    assert labels_for("docs/SPEC.md", config).authority == "repository-record"


def test_later_rules_override_earlier_ones_field_by_field() -> None:
    config = CorpusConfig(
        label_rules=(
            LabelRule(glob="docs/**", sensitivity="public", kind="text"),
            LabelRule(glob="docs/adr/**", authority="accepted-public-contract"),
            LabelRule(glob="docs/adr/secret.md", sensitivity="owner-private"),
        )
    )
    assert labels_for("docs/adr/0001.md", config) == Labels("accepted-public-contract", sensitivity="public")
    assert labels_for("docs/adr/secret.md", config).sensitivity == "owner-private"
    assert source_kind("docs/adr/0001.md", config) == "text"
    assert source_kind("src/a.py", config) == "code"


@pytest.mark.parametrize(
    ("authority", "glob"),
    [
        ("accepted-public-contract", "docs/adr/**"),
        ("accepted-public-contract", "**/decisions/**"),
        ("accepted-public-contract", "design-notes/**"),
        ("accepted-public-contract", "DESIGN.md"),
        ("verified-evidence", "tests/**"),
        ("verified-evidence", "pkg/fixtures/**"),
        ("repository-record", "**"),
        ("untrusted-observation", "logs/**"),
    ],
)
def test_a_rule_inside_its_structural_area_is_accepted(authority: str, glob: str) -> None:
    config = CorpusConfig(label_rules=(LabelRule(glob=glob, authority=authority),))
    assert config.label_rules[0].authority == authority


@pytest.mark.parametrize(
    ("authority", "glob"),
    [
        ("accepted-public-contract", "src/**"),
        ("accepted-public-contract", "**/*.md"),
        ("verified-evidence", "src/**"),
        ("owner-approved", "docs/adr/**"),
        ("canonical-specification", "SPEC.md"),
    ],
)
def test_an_authority_rule_outside_its_structural_area_is_rejected_with_authority_invalid(
    authority: str, glob: str
) -> None:
    with pytest.raises(AuthorityError) as info:
        CorpusConfig(label_rules=(LabelRule(glob=glob, authority=authority),))
    assert info.value.code == "authority_invalid"
    assert info.value.details["key"] == "labels[0].authority"


def test_a_bare_directory_glob_is_judged_by_what_it_contains() -> None:
    config = CorpusConfig(label_rules=(LabelRule(glob="tests", authority="verified-evidence"),))
    assert labels_for("pkg/tests/test_a.py", config).authority == "verified-evidence"
    with pytest.raises(AuthorityError):
        CorpusConfig(label_rules=(LabelRule(glob="src", authority="verified-evidence"),))


def test_a_rule_matching_a_path_outside_its_area_at_scan_time_is_rejected_with_authority_invalid(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = CorpusConfig(label_rules=(LabelRule(glob="**/adr/**", authority="accepted-public-contract"),))
    assert labels_for("x/adr/1.md", config).authority == "accepted-public-contract"
    # The per-path check is the backstop for globs whose text looks inside an area but whose matches are not.
    monkeypatch.setitem(labels_module._AREAS, "accepted-public-contract", ("docs/adr/**",))
    assert not authority_allowed("accepted-public-contract", "x/adr/1.md")
    with pytest.raises(AuthorityError) as info:
        labels_for("x/adr/1.md", config)
    assert info.value.code == "authority_invalid"
    assert info.value.details == {"key": "labels[0].authority", "path": "x/adr/1.md"}


def test_a_rule_asking_for_immutable_or_expiring_freshness_is_rejected() -> None:
    for freshness in ("immutable", "expires-at"):
        with pytest.raises(FreshnessError):
            CorpusConfig(label_rules=(LabelRule(glob="**", freshness=freshness),))


@pytest.mark.parametrize(
    "rule",
    [
        LabelRule(glob=""),
        LabelRule(glob="!docs/**"),
        LabelRule(glob="**", authority="trusted"),
        LabelRule(glob="**", sensitivity="top-secret"),
        LabelRule(glob="**", kind="binary"),
        LabelRule(glob="docs/\\"),
        LabelRule(glob="docs/[z-a]"),
    ],
)
def test_an_ill_formed_rule_is_a_config_error(rule: LabelRule) -> None:
    with pytest.raises(ConfigError):
        CorpusConfig(label_rules=(rule,))
