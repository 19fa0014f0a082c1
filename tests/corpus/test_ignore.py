from __future__ import annotations

import os
import shutil
import subprocess
import warnings
from pathlib import Path

import pytest

from prooftext.corpus.config import CorpusConfig
from prooftext.corpus.model import REMEDIES, Exclusion
from prooftext.corpus.walk import walk
from prooftext.errors import ConfigError

from .conftest import MakeTree

GIT = shutil.which("git")


def adopted(root: Path, config: CorpusConfig | None = None) -> list[str]:
    return [stat.path for stat in walk(root, config or CorpusConfig()).stats]


def reasons(root: Path, config: CorpusConfig | None = None) -> dict[str, str]:
    return {e.path: e.reason for e in walk(root, config or CorpusConfig()).excluded}


def test_a_nested_gitignore_applies_relative_to_its_directory_and_negation_reincludes(
    make_tree: MakeTree,
) -> None:
    root = make_tree(
        {
            ".gitignore": "*.log\n",
            "a.log": "",
            "pkg/.gitignore": "!keep.log\n/local.txt\n",
            "pkg/keep.log": "",
            "pkg/other.log": "",
            "pkg/local.txt": "",
            "pkg/sub/local.txt": "",
        }
    )
    assert adopted(root) == [".gitignore", "pkg/.gitignore", "pkg/keep.log", "pkg/sub/local.txt"]
    assert reasons(root) == {"a.log": "ignored", "pkg/local.txt": "ignored", "pkg/other.log": "ignored"}


def test_an_ignored_directory_is_one_exclusion_and_is_not_descended(make_tree: MakeTree) -> None:
    root = make_tree({".gitignore": "build/\n", "build/a.py": "", "build/deep/b.py": "", "src/build": "file"})
    result = walk(root, CorpusConfig())
    assert result.excluded == [Exclusion("build", "ignored", ".gitignore line 1: build/")]
    assert [s.path for s in result.stats] == [".gitignore", "src/build"]


def test_a_file_inside_an_ignored_directory_cannot_be_reincluded(make_tree: MakeTree) -> None:
    root = make_tree({".gitignore": "out/\n!out/keep.md\n", "out/keep.md": ""})
    assert adopted(root) == [".gitignore"]


def test_contents_ignored_with_double_star_can_be_reincluded_as_in_git(make_tree: MakeTree) -> None:
    root = make_tree({".gitignore": "d/**\n!d/keep.md\n", "d/keep.md": "", "d/x": "", "d/e/y": ""})
    assert adopted(root) == [".gitignore", "d/keep.md"]
    assert reasons(root) == {"d/e": "ignored", "d/x": "ignored"}


def test_prooftext_ignore_file_excludes_and_a_gitignore_negation_does_not_reinclude(
    make_tree: MakeTree,
) -> None:
    root = make_tree(
        {
            ".prooftext/ignore": "# local\n*.gen.py\nvendor/\n",
            ".gitignore": "!*.gen.py\n",
            "a.gen.py": "",
            "a.py": "",
            "vendor/lib.py": "",
        }
    )
    assert adopted(root) == [".gitignore", "a.py"]
    assert reasons(root) == {".prooftext": "internal", "a.gen.py": "ignored", "vendor": "ignored"}


def test_configured_excludes_are_gitignore_patterns_relative_to_the_root(make_tree: MakeTree) -> None:
    root = make_tree({"app.min.js": "", "web/lib.min.js": "", "web/lib.js": "", "docs/x.md": ""})
    config = CorpusConfig(exclude=("*.min.js", "/docs"))
    assert adopted(root, config) == ["web/lib.js"]


def test_the_prooftext_and_git_directories_are_always_excluded_as_internal(make_tree: MakeTree) -> None:
    root = make_tree(
        {
            ".prooftext/index.sqlite": "x",
            ".git/HEAD": "ref: refs/heads/main\n",
            "sub/.git": "gitdir: ../.git/modules/sub\n",
            ".gitignore": "!.prooftext/\n!.git/\n",
            "a.py": "",
        }
    )
    result = walk(root, CorpusConfig())
    assert [s.path for s in result.stats] == [".gitignore", "a.py"]
    assert {(e.path, e.reason) for e in result.excluded} == {
        (".git", "internal"),
        (".prooftext", "internal"),
        ("sub/.git", "internal"),
    }


def test_a_symlinked_gitignore_is_not_followed_or_used(make_tree: MakeTree) -> None:
    root = make_tree({"rules": "*.py\n", "a.py": ""})
    os.symlink("rules", root / ".gitignore")
    assert adopted(root) == ["a.py", "rules"]
    assert reasons(root) == {".gitignore": "symlink"}


def test_an_unusable_nested_gitignore_excludes_its_directory_rather_than_failing_open(
    make_tree: MakeTree,
) -> None:
    root = make_tree({"pkg/a.py": "", "top.py": ""})
    os.mkfifo(root / "pkg" / ".gitignore")
    result = walk(root, CorpusConfig())
    assert [s.path for s in result.stats] == ["top.py"]
    assert [(e.path, e.reason) for e in result.excluded] == [("pkg", "unreadable")]
    assert result.excluded[0].detail == "pkg/.gitignore: not a regular file"


def test_an_unreadable_prooftext_ignore_is_a_config_error(make_tree: MakeTree) -> None:
    root = make_tree({"a.py": "", "elsewhere": "*.py\n"})
    (root / ".prooftext").mkdir()
    os.symlink("../elsewhere", root / ".prooftext" / "ignore")
    with pytest.raises(ConfigError) as info:
        walk(root, CorpusConfig())
    assert info.value.details["file"] == ".prooftext/ignore"


INVALID_PATTERNS = pytest.mark.parametrize(
    "pattern", ["\\", "[z-a]", "src/[9-0]*.py"], ids=["lone_backslash", "reversed_range", "nested_range"]
)


@INVALID_PATTERNS
def test_an_invalid_pattern_in_a_nested_gitignore_excludes_its_directory_naming_the_line(
    make_tree: MakeTree, pattern: str
) -> None:
    root = make_tree({"pkg/a.py": "", "pkg/.gitignore": f"*.log\n{pattern}\n", "top.py": ""})
    result = walk(root, CorpusConfig())
    assert [s.path for s in result.stats] == ["top.py"]
    assert [(e.path, e.reason) for e in result.excluded] == [("pkg", "ignore_invalid")]
    assert result.excluded[0].detail.startswith(
        f"pkg/.gitignore: line 2, {pattern!r}, is not a valid pattern"
    )
    assert "fix or remove the pattern" in REMEDIES["ignore_invalid"]
    assert "position" not in result.excluded[0].detail  # a position in the translated expression misleads


@INVALID_PATTERNS
def test_an_invalid_pattern_in_the_root_gitignore_is_a_config_error_naming_the_line(
    make_tree: MakeTree, pattern: str
) -> None:
    root = make_tree({".gitignore": f"{pattern}\n", "a.py": ""})
    with pytest.raises(ConfigError) as info:
        walk(root, CorpusConfig())
    assert info.value.details["file"] == ".gitignore"
    assert f"line 1, {pattern!r}, is not a valid pattern" in str(info.value)
    assert str(info.value).endswith("fix or remove that line")
    assert "position" not in str(info.value)


@INVALID_PATTERNS
def test_an_invalid_pattern_in_prooftext_ignore_is_a_config_error_naming_the_line(
    make_tree: MakeTree, pattern: str
) -> None:
    root = make_tree({".prooftext/ignore": f"# local\n*.log\n{pattern}\n", "a.py": ""})
    with pytest.raises(ConfigError) as info:
        walk(root, CorpusConfig())
    assert info.value.details["file"] == ".prooftext/ignore"
    assert f"line 3, {pattern!r}, is not a valid pattern" in str(info.value)
    assert str(info.value).endswith("fix or remove that line")
    assert "position" not in str(info.value)


GIT_TREE = {
    ".gitignore": "*.tmp\nbuild/\n/only_root.txt\nlogs/**\n!logs/keep.log\ndocs/*.html\n!docs/index.html\n",
    "only_root.txt": "",
    "a/only_root.txt": "",
    "x.tmp": "",
    "a/x.tmp": "",
    "a/.gitignore": "!x.tmp\nsecret*\n!secret.example\n",
    "a/secret.env": "",
    "a/secret.example": "",
    "a/b/.gitignore": "*\n!*.py\n!*/\n",
    "a/b/c.py": "",
    "a/b/c.txt": "",
    "a/b/d/e.py": "",
    "a/b/d/e.md": "",
    "build/out.js": "",
    "src/build/x.js": "",
    "logs/keep.log": "",
    "logs/other.log": "",
    "logs/deep/z.log": "",
    "docs/index.html": "",
    "docs/page.html": "",
    "docs/sub/page.html": "",
    "trailing.txt": "",
    "sp/.gitignore": "trailing.txt   \n\\#hash\n",
    "sp/trailing.txt": "",
    "sp/#hash": "",
    "plain.py": "",
}


@pytest.mark.skipif(GIT is None, reason="git is not installed")
def test_ignore_decisions_agree_with_git_on_a_mixed_tree(make_tree: MakeTree) -> None:
    root = make_tree(dict(GIT_TREE))
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run([GIT or "git", "init", "-q", str(root)], check=True, env=env)
    listed = subprocess.run(
        [GIT or "git", "-C", str(root), "ls-files", "--others", "--exclude-standard", "-z"],
        check=True,
        env=env,
        capture_output=True,
    ).stdout
    git_files = sorted(name for name in listed.decode().split("\0") if name)
    assert adopted(root) == git_files


def test_a_gitignore_starting_with_a_byte_order_mark_applies_its_first_pattern_as_git_does(
    make_tree: MakeTree,
) -> None:
    root = make_tree(
        {
            ".gitignore": "\ufeff*.log\n",
            "a.log": "",
            "pkg/.gitignore": "\ufeffsecret.txt\r\n",
            "pkg/secret.txt": "",
            "keep.py": "",
        }
    )
    assert adopted(root) == [".gitignore", "keep.py", "pkg/.gitignore"]
    assert reasons(root) == {"a.log": "ignored", "pkg/secret.txt": "ignored"}


def test_a_prooftext_ignore_starting_with_a_byte_order_mark_applies_its_first_pattern(
    make_tree: MakeTree,
) -> None:
    root = make_tree({".prooftext/ignore": "\ufeffdrafts/\n", "drafts/a.md": "", "b.md": ""})
    assert adopted(root) == ["b.md"]


def test_a_negated_directory_pattern_does_not_reinclude_the_files_inside_it_as_in_git(
    make_tree: MakeTree,
) -> None:
    root = make_tree(
        {".gitignore": "*.txt\n", "sub/.gitignore": "!keep/\n", "sub/keep/a.txt": "", "b.py": ""}
    )
    assert adopted(root) == [".gitignore", "b.py", "sub/.gitignore"]
    assert reasons(root) == {"sub/keep/a.txt": "ignored"}


def test_a_file_in_a_reincluded_directory_is_not_ignored_through_that_directory_as_in_git(
    make_tree: MakeTree,
) -> None:
    root = make_tree({".gitignore": "*/a\n", "q/.gitignore": "!*/\n", "q/a/f.txt": "", "r/a/g.txt": ""})
    assert adopted(root) == [".gitignore", "q/.gitignore", "q/a/f.txt"]
    assert reasons(root) == {"r/a": "ignored"}


def test_posix_character_classes_in_a_gitignore_match_as_in_git(make_tree: MakeTree) -> None:
    root = make_tree(
        {
            ".gitignore": "[[:digit:]]*.log\n*.[[:upper:]]\n[![:alnum:]]*.md\n",
            "1a.log": "",
            "a.log": "",
            "x.Z": "",
            "x.z": "",
            "_draft.md": "",
            "notes.md": "",
        }
    )
    assert adopted(root) == [".gitignore", "a.log", "notes.md", "x.z"]
    assert reasons(root) == {"1a.log": "ignored", "_draft.md": "ignored", "x.Z": "ignored"}


def test_an_unknown_character_class_in_a_nested_gitignore_excludes_its_directory_naming_the_line(
    make_tree: MakeTree,
) -> None:
    root = make_tree({"pkg/.gitignore": "*.tmp\n[[:vowel:]]*\n", "pkg/a.py": "", "b.py": ""})
    result = walk(root, CorpusConfig())
    assert [(e.path, e.reason) for e in result.excluded] == [("pkg", "ignore_invalid")]
    assert "line 2" in result.excluded[0].detail


def test_a_pattern_that_python_would_read_as_a_nested_set_prints_no_warning(make_tree: MakeTree) -> None:
    root = make_tree({".gitignore": "walk-[[.x.]]-once\nwalk-[a&&b]-once\n", "a.py": ""})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert adopted(root) == [".gitignore", "a.py"]


def test_classes_that_span_punctuation_match_as_in_git(make_tree: MakeTree) -> None:
    root = make_tree(
        {".gitignore": "[[:punct:]]*\n[[:alnum:][:graph:]]\n", "#c": "", "_x.py": "", "ab.py": "", "b": ""}
    )
    assert adopted(root) == ["ab.py"]
    assert reasons(root) == {"#c": "ignored", ".gitignore": "ignored", "_x.py": "ignored", "b": "ignored"}


def test_an_ignored_path_names_the_file_line_and_pattern_that_ignore_it(make_tree: MakeTree) -> None:
    root = make_tree(
        {
            ".gitignore": "# build output\n\n*.log\n",
            "pkg/.gitignore": "\n!keep.log\nlocal/\n",
            ".prooftext/ignore": "drafts/\n",
            "a.log": "",
            "pkg/keep.log": "",
            "pkg/local/x.py": "",
            "drafts/a.md": "",
            "vendor.min.js": "",
        }
    )
    details = {e.path: e.detail for e in walk(root, CorpusConfig(exclude=("*.min.js",))).excluded}
    assert details == {
        ".prooftext": "",
        "a.log": ".gitignore line 3: *.log",
        "drafts": ".prooftext/ignore line 1: drafts/",
        "pkg/local": "pkg/.gitignore line 3: local/",
        "vendor.min.js": "[scan] exclude: *.min.js",
    }


def test_an_ignore_pattern_that_spells_a_credential_is_redacted_in_the_detail(make_tree: MakeTree) -> None:
    token = "gh" + "p_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    root = make_tree({".gitignore": f"{token}.txt\n", f"{token}.txt": ""})
    (excluded,) = walk(root, CorpusConfig()).excluded
    assert excluded.reason == "ignored" and token not in excluded.detail
    assert excluded.detail.startswith(".gitignore line 1: [REDACTED:")


def test_a_lone_exclamation_mark_in_a_gitignore_is_a_pattern_that_matches_nothing_as_in_git(
    make_tree: MakeTree,
) -> None:
    root = make_tree(
        {
            ".gitignore": "*.log\n!\n",
            "sub/.gitignore": "!\n*.tmp\n",
            "a.log": "",
            "!": "",
            "sub/c.tmp": "",
            "b.py": "",
        }
    )
    assert adopted(root) == ["!", ".gitignore", "b.py", "sub/.gitignore"]
    assert reasons(root) == {"a.log": "ignored", "sub/c.tmp": "ignored"}


def test_escaped_characters_in_a_bracket_expression_match_as_in_git(make_tree: MakeTree) -> None:
    names = ["a]b", "a-b", "c-d", "cxd", "cyd", "e]f", "eof", "g^h", "gxh"]
    root = make_tree({".gitignore": "a[\\]]b\nc[x\\-]d\ne[!\\]]f\ng[\\^]h\n", **dict.fromkeys(names, "")})
    assert adopted(root) == [".gitignore", "a-b", "cyd", "e]f", "gxh"]
    assert reasons(root) == dict.fromkeys(["a]b", "c-d", "cxd", "eof", "g^h"], "ignored")


def test_a_range_in_a_bracket_expression_may_end_in_an_escaped_character_as_in_git(
    make_tree: MakeTree,
) -> None:
    root = make_tree(
        {
            ".gitignore": "n[Z-\\^]\nv[\\[:digit:]]\n",
            **dict.fromkeys(["n[", "n]", "n_", "nY", "v[", "v:", "v1"], ""),
        }
    )
    assert adopted(root) == [".gitignore", "nY", "n_", "v1", "v:", "v["]
    assert reasons(root) == {"n[": "ignored", "n]": "ignored"}


def test_an_open_bracket_and_colon_without_a_class_are_members_of_the_bracket_as_in_git(
    make_tree: MakeTree,
) -> None:
    root = make_tree({".gitignore": "x[[:]y\n", **dict.fromkeys(["x[y", "x:y", "xay"], "")})
    assert adopted(root) == [".gitignore", "xay"]


def test_a_directory_named_gitignore_holds_no_patterns_and_is_walked_as_in_git(make_tree: MakeTree) -> None:
    root = make_tree({".gitignore/inner.txt": "", "a.py": "", "sub/.gitignore/x.log": "", "sub/b.py": ""})
    assert adopted(root) == [".gitignore/inner.txt", "a.py", "sub/.gitignore/x.log", "sub/b.py"]
    assert reasons(root) == {}
