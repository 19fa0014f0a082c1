"""Test code inside a source file (Rust's ``mod tests``) is weighed as a test file's nodes are: it follows the
code it tests in its file, at the test factor, and counts at that factor in its file's signals. Test files
are found by the conventions of each language."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from prooftext.select.corpus_facts import find_test_files
from prooftext.select.policy import DEFAULT_POLICY, RankingPolicy
from prooftext.select.signals import is_test_code
from prooftext.store.queries import NodeIdentity
from under_policy import ranked_under

COLUMNS = """/// Whether a line is too wide.
pub fn exceeds_max_columns(line: &[u8], max_columns: u64) -> bool {
    line.len() as u64 > max_columns
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_columns_cuts_a_long_line() {
        let max_columns = 3;
        assert!(exceeds_max_columns(b"four", max_columns));
    }

    #[test]
    fn max_columns_keeps_a_short_line() {
        let max_columns = 10;
        assert!(!exceeds_max_columns(b"four", max_columns));
    }
}
"""
SPEC = """#[test]
fn max_columns_cuts_in_the_printer() {
    let max_columns = 3;
    assert!(exceeds_max_columns(b"four", max_columns));
}
"""
OTHER = """pub fn parse_{n}(text: &str) -> Vec<String> {{
    text.split(',').map(|part| part.trim().to_string()).collect()
}}
"""
QUERY = "how are lines longer than max_columns cut?"
NO_EXPANSION = {"neighbour_files": 0, "opening_files": 0}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "columns.rs").write_text(COLUMNS, encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "printer.rs").write_text(SPEC, encoding="utf-8")
    for n in range(8):  # words of other files, so that the query's words are rare
        (tmp_path / "src" / f"parse_{n}.rs").write_text(OTHER.format(n=n), encoding="utf-8")
    return tmp_path


def _by_name(repo: Path, **knobs: Any) -> dict[str, dict[str, Any]]:
    hits = ranked_under(repo, QUERY, replace(DEFAULT_POLICY, **NO_EXPANSION, **knobs))
    return {h["qualname"]: h for h in hits}


def test_a_test_module_follows_the_code_it_tests_at_the_test_factor(repo: Path) -> None:
    found = _by_name(repo)
    code = found["exceeds_max_columns"]
    tests = [found["tests.max_columns_cuts_a_long_line"], found["tests.max_columns_keeps_a_short_line"]]
    assert "test_code" not in code["components"]
    for test in tests:
        assert test["components"]["test_code"] == 1
        assert test["components"]["rank_in_file"] > code["components"]["rank_in_file"]
        assert test["priority"] < DEFAULT_POLICY.test_factor * code["priority"]


def test_without_test_scope_names_the_tests_rank_by_their_words_alone(repo: Path) -> None:
    found = _by_name(repo, test_scope_names=())
    assert not any("test_code" in hit["components"] for hit in found.values())
    assert found["tests.max_columns_cuts_a_long_line"]["priority"] > found["exceeds_max_columns"]["priority"]


def test_test_code_counts_at_the_test_factor_in_its_files_lexical_signal(repo: Path) -> None:
    """The signal is normalized by its best file: ``src/columns.rs`` weighing less lifts the other file."""
    spec = "max_columns_cuts_in_the_printer"
    weighed = _by_name(repo)[spec]["components"]["lexical"]
    unweighed = _by_name(repo, test_scope_names=())[spec]["components"]["lexical"]
    assert 0 < unweighed < weighed


def test_the_nodes_of_a_test_file_are_weighed_once_by_its_file(repo: Path) -> None:
    name = "max_columns_cuts_in_the_printer"
    found, plain = _by_name(repo)[name], _by_name(repo, test_scope_names=())[name]
    assert "test_code" not in found["components"] and found["components"]["deweight"] == 200_000
    assert found["components"]["rank_in_file"] == plain["components"]["rank_in_file"] == 0


def _row(qualname: str, symbol_kind: str, kind: str = "symbol") -> NodeIdentity:
    return NodeIdentity("N", kind, "src/a.rs", qualname.rsplit(".", 1)[-1], qualname, symbol_kind)


@pytest.mark.parametrize(
    ("qualname", "symbol_kind", "expected"),
    [
        ("tests", "module", True),
        ("tests.it_parses", "function", True),
        ("parser.tests.helpers.build", "function", True),
        ("test", "namespace", True),
        ("test", "function", False),  # a function that runs the tests is not a test
        ("Runner.test", "method", False),
        ("testing.build", "function", False),
        ("Tests.it_parses", "method", False),  # names are matched as written
    ],
)
def test_test_code_is_a_symbol_under_a_scope_of_the_named_names(
    qualname: str, symbol_kind: str, expected: bool
) -> None:
    names = DEFAULT_POLICY.test_scope_names
    assert is_test_code(_row(qualname, symbol_kind), names) is expected


def test_a_section_is_never_test_code() -> None:
    assert not is_test_code(_row("tests.Usage", "", kind="section"), ("tests",))


def test_the_policy_records_its_test_scope_names() -> None:
    assert DEFAULT_POLICY.to_dict()["test_scope_names"] == ["test", "tests"]
    assert RankingPolicy.from_dict({"test_scope_names": []}).test_scope_names == ()


@pytest.mark.parametrize(
    "path",
    [
        "tests/parser.py",
        "sympy/core/tests/test_basic.py",
        "testing/conftest.py",
        "pkg/router_test.go",
        "testdata/template/hello.tmpl",  # Go's test fixtures
        "src/__tests__/router.ts",  # Jest
        "src/addDays/test.ts",
        "src/router.test.tsx",
        "lib/router.spec.js",
        "lib/router.spec.mjs",
        "spec/models/user_spec.rb",
        "spec/01-unit/01-db/schema_spec.lua",  # busted
        "Tests/ApplicationTest.php",  # Symfony
        "Tests/ArgumentParserUnitTests/ParsingTests.swift",  # SwiftPM
        "Src/Newtonsoft.Json.Tests/JsonConvertTest.cs",  # a .NET test project
        "Src/Newtonsoft.Json.FuzzTests/Fuzz.cs",
        "src/Support/StrTest.php",  # xUnit classes outside a test directory
        "lib/RouterTests.cs",
        "core/src/main/scala/cats/EvalSuite.scala",
        "core/src/main/scala/cats/EvalSpec.scala",
        "okhttp/src/jvmTest/kotlin/okhttp3/FakeDns.kt",  # Gradle's test source sets
        "okio/src/commonTest/kotlin/okio/TestUtil.kt",
        "app/src/androidTest/java/com/example/RoutesScreen.kt",
        "lib/src/testFixtures/java/org/example/Fixtures.java",
    ],
)
def test_test_files_of_each_convention_are_found_by_path(path: str) -> None:
    assert find_test_files({1: path}, DEFAULT_POLICY) == {1}


@pytest.mark.parametrize(
    "path",
    [
        "werkzeug/test.py",  # a package's test client is its own code
        "src/spec.py",
        "src/latest.ts",
        "src/contest.js",
        "src/attest.ts",
        "docs/spec/index.md",
        "lib/inspect_spec.py",
        "lua/app/spec.lua",
        "src/main/java/com/squareup/javapoet/TypeSpec.java",  # a class named ...Spec, not a test
        "lib/ABTest.java",  # an A/B test feature
        "Src/Newtonsoft.Json.TestConsole/Program.cs",
        "Sources/ArgumentParser/Parsing/Test.swift",
        "src/Contest.php",
        "okhttp/src/jvmMain/kotlin/okhttp3/OkHttp.jvm.kt",  # a main source set
        "app/src/main/kotlin/com/example/latestTest/Screen.kt",  # a package, not a source set
    ],
)
def test_code_whose_name_only_resembles_a_test_is_not_a_test_file(path: str) -> None:
    assert find_test_files({1: path}, DEFAULT_POLICY) == set()
