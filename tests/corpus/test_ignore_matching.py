"""Ignore and label globs are matched without backtracking, with pathspec's GitIgnoreSpec decisions.

pathspec still parses the patterns, and its regexes are the reference: on small inputs, where
backtracking is harmless, every decision below is compared with them. The hostile inputs are sized so
that the backtracking matchers took hours (each ``*a`` multiplied the time by about five; a 64-character
name against eight stars took 19 s): a regression hangs the run instead of passing quietly.
"""

from __future__ import annotations

import random

import pytest
from pathspec import GitIgnoreSpec

from prooftext.corpus import ignore
from prooftext.corpus.config import CorpusConfig
from prooftext.corpus.ignore import Globs, PatternSet
from prooftext.corpus.labels import LabelRule, labels_for, matches
from prooftext.corpus.walk import walk

from .conftest import MakeTree

STARS = 12
"""``*a`` repeated this often before ``*b``: far past the eight stars that took 19 s on 64 characters."""
HOSTILE_GLOB = "*a" * STARS + "*b"
LONG_NAME = "a" * 200
"""A name of the glob's letter without its final one: every split of it between the stars fails."""
MATCHING_NAME = "a" * 199 + "b"
DEEP_PATH = "/".join([LONG_NAME] * 16)
TRAILING_BLANKS = 4 << 20
"""Stripping one space at a time copied the line once per space: 15 s for 1 MiB, minutes for this."""

SEED = 20_240_601
CASES = 1_500
PATTERN_PIECES = ("a", "b", "*", "**", "?", "/", "!", "[ab]", "[!a]", "[]a]", "[%-0]", "\\*", "ab", ".")
PATH_PIECES = ("a", "b", "/", "ab", "aab", ".", "%", "\n")


def test_a_gitignore_glob_of_many_stars_decides_a_long_name_in_the_walk(make_tree: MakeTree) -> None:
    root = make_tree({".gitignore": HOSTILE_GLOB + "\n", LONG_NAME: "", MATCHING_NAME: ""})
    result = walk(root, CorpusConfig())
    assert [stat.path for stat in result.stats] == [".gitignore", LONG_NAME]
    assert [(e.path, e.reason) for e in result.excluded] == [(MATCHING_NAME, "ignored")]


def test_a_configured_exclude_of_many_stars_decides_a_long_name_in_the_walk(make_tree: MakeTree) -> None:
    root = make_tree({LONG_NAME: "", MATCHING_NAME: ""})
    result = walk(root, CorpusConfig(exclude=(HOSTILE_GLOB,)))
    assert [stat.path for stat in result.stats] == [LONG_NAME]


def test_many_stars_against_a_deep_path_of_long_names_for_files_and_directories() -> None:
    patterns = PatternSet.from_lines([HOSTILE_GLOB, f"!keep{HOSTILE_GLOB}", f"**/x/**/{HOSTILE_GLOB}/"])
    for is_dir in (False, True):
        assert patterns.check(DEEP_PATH, is_dir) is None
        assert patterns.check(f"{DEEP_PATH}b", is_dir) is True
        assert patterns.check(f"{DEEP_PATH}/keep{MATCHING_NAME}", is_dir) is False


def test_a_label_glob_of_many_stars_against_a_long_path() -> None:
    assert not matches((HOSTILE_GLOB,), DEEP_PATH)
    assert matches((HOSTILE_GLOB,), f"{DEEP_PATH}/{MATCHING_NAME}")
    config = CorpusConfig(label_rules=(LabelRule(f"docs/**/{HOSTILE_GLOB}", sensitivity="public"),))
    assert labels_for(f"docs/{DEEP_PATH}", config).sensitivity == "repository-private"
    assert labels_for(f"docs/{DEEP_PATH}b", config).sensitivity == "public"


def test_trailing_spaces_are_stripped_in_one_pass_keeping_an_escaped_last_one() -> None:
    assert ignore._lines("x" + " " * TRAILING_BLANKS) == ["x"]
    assert ignore._lines("a\\  \nb\\\\ \nc \\ \n \nd") == ["a\\ ", "b\\\\ ", "c \\ ", "", "d"]


def _random(rng: random.Random, pieces: tuple[str, ...], most: int) -> str:
    return "".join(rng.choice(pieces) for _ in range(rng.randint(1, most)))


def _rank(pattern: object, path: str) -> int:
    """pathspec's own test of one pattern: a match, and whether it went through the directory mark."""
    found = pattern.regex.search(path)  # type: ignore[attr-defined]
    if found is None:
        return ignore.NO_MATCH
    return ignore.DIRECTORY_MATCH if found.groupdict().get("ps_d") else ignore.PATH_MATCH


@pytest.mark.filterwarnings("ignore::FutureWarning")  # "[[" in a random bracket expression
@pytest.mark.parametrize("repeats_on_re", [ignore._MAX_RE_REPEATS, -1], ids=["as_shipped", "all_programs"])
def test_decisions_equal_pathspecs_own_on_random_patterns_and_paths(
    monkeypatch: pytest.MonkeyPatch, repeats_on_re: int
) -> None:
    monkeypatch.setattr(ignore, "_MAX_RE_REPEATS", repeats_on_re)
    rng = random.Random(SEED)
    outcomes: set[object] = set()
    for _ in range(CASES):
        lines = [_random(rng, PATTERN_PIECES, 8) for _ in range(rng.randint(1, 3))]
        try:
            spec = GitIgnoreSpec.from_lines(lines)
        except ignore.PATTERN_ERRORS:
            with pytest.raises(ignore.PATTERN_ERRORS):
                Globs.compile(lines)
            continue
        globs = Globs.compile(lines)
        if repeats_on_re < 0:
            anchored = [p for p in spec.patterns if p.include is not None and p.regex.pattern.startswith("^")]
            assert sum(glob.program is not None for glob in globs.globs) == len(anchored)
        for _ in range(8):
            path = _random(rng, PATH_PIECES, 10)
            assert globs.decide(path) == spec.check_file(path).include, (lines, path)
            live = [p for p in spec.patterns if p.include is not None]
            assert globs.any_at_start(path) == any(p.regex.match(path) for p in live), (lines, path)
            for pattern, glob in zip(live, globs.globs, strict=True):
                assert glob.search(path) == _rank(pattern, path), (pattern.regex.pattern, path)
                outcomes.add(_rank(pattern, path))
    assert outcomes == {ignore.NO_MATCH, ignore.DIRECTORY_MATCH, ignore.PATH_MATCH}
