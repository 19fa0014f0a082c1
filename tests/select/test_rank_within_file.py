"""Ranking inside a file: nodes whose text holds the query come before nodes known only by their name."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from prooftext.select.policy import DEFAULT_POLICY, RankingPolicy
from under_policy import packed_under, ranked_under

SESSIONS = '''"""Sessions keep state across requests."""


def merge_setting(request_setting, session_setting):
    merged = dict(session_setting)
    merged.update(request_setting)
    for key in [k for k, v in merged.items() if v is None]:
        del merged[key]
    return merged


class Session:
    """Persists adapters."""

    def close(self):
        self.adapters.clear()

    def mount(self, prefix, adapter):
        self.adapters[prefix] = adapter

    def get_adapter(self, url):
        return self.adapters[url]
'''

FIELDS = '''"""Field helpers."""


def base_fields():
    """Removing a header: a header set to None is not sent, and merged fields are sent when removing none."""
    return {"User-Agent": "x", "Accept": "*/*"}
'''

ISSUE = (
    "Removing a default header of a session\n\n"
    "Setting a session header to None should remove it when the setting is merged, but None is sent."
)
POLICY = replace(DEFAULT_POLICY, fts_limit=3)
"""Few enough corpus-wide lexical hits that the ``Session`` methods are found by their names alone, as in a
large repository where the issue's words fill the corpus-wide hits first."""
NAMED_METHODS = ("Session.close", "Session.mount", "Session.get_adapter")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "sessions.py").write_text(SESSIONS, encoding="utf-8")
    (tmp_path / "fields.py").write_text(FIELDS, encoding="utf-8")
    return tmp_path


def _in_file(repo: Path, policy: RankingPolicy = POLICY) -> dict[str, dict[str, int]]:
    hits = ranked_under(repo, ISSUE, policy)
    return {h["qualname"]: h["components"] for h in hits if h["path"] == "sessions.py"}


def test_methods_named_like_the_subject_follow_the_function_that_holds_its_words(repo: Path) -> None:
    found = _in_file(repo)
    assert all(found[name].get("named_only") == 1 for name in NAMED_METHODS)
    assert "named_only" not in found["merge_setting"]
    assert all(found["merge_setting"]["rank_in_file"] < found[name]["rank_in_file"] for name in NAMED_METHODS)


def test_without_the_rule_a_class_name_in_the_subject_puts_every_method_first(repo: Path) -> None:
    found = _in_file(repo, replace(POLICY, named_only_last=False))
    assert all(found["merge_setting"]["rank_in_file"] > found[name]["rank_in_file"] for name in NAMED_METHODS)


def test_the_rule_is_recorded_in_the_ranking_trace(repo: Path) -> None:
    packet = packed_under(repo, ISSUE, POLICY)
    assert packet.trace["ranking"]["policy"]["named_only_last"] is True
