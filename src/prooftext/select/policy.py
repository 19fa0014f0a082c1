"""The ranking policy: every knob that can change which nodes a query ranks, or in what order.

A :class:`RankingPolicy` is a frozen value; :data:`DEFAULT_POLICY` is the tuned one. Each field states its
meaning in ``metadata["meaning"]``; ``docs/RANKING_NOTES.md`` records what was measured for it. A ranking
trace records :meth:`RankingPolicy.to_dict`, which is generated from the fields, so no knob can be left out:
fractions are recorded in thousandths (``*_milli``), as artifacts hold no floats.
"""

from __future__ import annotations

import functools
import math
import re
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from prooftext.errors import RangeError, RequestError
from prooftext.store.queries import FTS_COLUMNS

MILLI = 1000
"""Fractions are recorded in thousandths."""
DATA_PATH_PATTERN = "|".join(
    (
        r"(^|/)(vendor|vendored|_vendor|third[_-]?party|external|extern|externals|node_modules|bower_components)/",
        r"[-_.]v?\d+\.\d+(\.\d+)*([-.](min|slim|dev|beta\d*|rc\d*))*\.(js|mjs|css|map)$",
        r"\.min\.(js|mjs|css)$|\.(js|css)\.map$",
        r"\.(po|pot|mo)$|(^|/)(locale|locales|i18n|l10n)/",
        r"_pb2(_grpc)?\.pyi?$|\.pb\.(go|cc|h|swift)$|_pb\.(js|d\.ts)$|(^|/)generated/|\.generated\.",
        r"(^|/)(package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|composer\.lock|gemfile\.lock"
        r"|cargo\.lock|poetry\.lock|pipfile\.lock|pdm\.lock|uv\.lock|flake\.lock|go\.sum)$",
        r"(^|/)(changes|changelog|history|news|releases?|release[-_]notes|whatsnew)(\.[a-z]+)?$",
        r"(^|/)(changes|changelog|whatsnew|release[-_]notes|releases)/",
    )
)
"""Vendored copies, versioned or minified assets, translation catalogues, generated code, dependency lock
files and change logs, by path alone (the ranking's data and history files; minified ones are found by their
line length too)."""
TEST_PATH_PATTERN = "|".join(
    (
        r"(^|/)(tests?|testing|__tests__|testdata)(/|$)",
        r"(^|/)(Tests?|Testing|TestData)(/|$)|(^|/)[^/]+[.][A-Za-z]*Tests?/",
        r"(^|/)test_[^/]*$|_tests?\.[a-z]+$|(^|/)conftest\.py$",
        r"(^|/|\.)(test|spec)\.[cm]?[jt]sx?$|_spec\.(rb|lua)$",
        r"[a-z0-9]Tests?\.(php|java|kt|scala|cs|swift|m|mm|groovy)$|[a-z0-9](Spec|Suite)\.scala$",
        r"(^|/)src/([a-z][A-Za-z]*Test|testFixtures)/",
    )
)
"""Test directories (Jest's ``__tests__``, Go's ``testdata``; capitalized as Symfony's and SwiftPM's
``Tests/`` are; a .NET test project's ``Foo.Tests/``, ``Foo.UnitTests/``) and test files by their name:
Python's ``test_*.py`` and ``conftest.py``, Go's ``*_test.go``, JavaScript's and TypeScript's ``*.test.ts``,
``*.spec.js`` and ``test.ts``, Ruby's ``*_spec.rb`` and Lua's busted ``*_spec.lua``, the xUnit classes of
PHP, Java, Kotlin, Scala, C#, Swift and Objective-C (``FooTest.php``, ``FooTests.cs``; a capital ``T`` after
a lower-case letter or digit, so ``TypeSpec.java`` and ``ABTest.java`` are not), ScalaTest's and munit's ``FooSpec.scala`` and
``FooSuite.scala``, and Gradle's test source sets (``src/jvmTest/``, ``src/commonTest/``, ``src/androidTest/``,
``src/integrationTest/``, ``src/testFixtures/``)."""
MILLI_SUFFIX = "_milli"
MAX_COUNT = 1_000_000_000
"""The largest count or limit a policy may set."""
MAX_FRACTION = 1_000_000.0
"""The largest factor or weight a policy may set."""
FRACTION_AT_MOST = "at_most"
"""Metadata key: a smaller upper bound for a share or a decay."""


@dataclass(frozen=True)
class RankingPolicy:
    """Every result-changing knob of the ranking, with today's tuned values as defaults."""

    fts_weights: tuple[float, ...] = field(
        default=(10.0, 1.0, 3.0, 1.0),
        metadata={"meaning": "BM25 column weights for title, labels, path and content."},
    )
    fts_limit: int = field(default=300, metadata={"meaning": "Lexical hits read per query."})
    max_fts_terms: int = field(
        default=40,
        metadata={
            "meaning": "The rarest query terms searched; a long issue text otherwise makes every node a hit."
        },
    )
    max_term_probes: int = field(
        default=200,
        metadata={"meaning": "Query terms (in first-seen order) whose frequency is probed at all."},
    )
    common_term_share: float = field(
        default=0.2,
        metadata={
            "meaning": "A term in more than this share of nodes (and more than min_common_cap) is too common.",
            FRACTION_AT_MOST: 1.0,
        },
    )
    min_common_cap: int = field(
        default=50, metadata={"meaning": "A term in at most this many nodes is never too common to search."}
    )
    phrase_limit: int = field(
        default=1000, metadata={"meaning": "Nodes read for the query's literal phrases (best BM25 first)."}
    )
    singular_terms: bool = field(
        default=True,
        metadata={"meaning": "A plural query word is searched in its singular too (groups, group)."},
    )
    subject_limit: int = field(default=300, metadata={"meaning": "Nodes read for the query's subject line."})
    subject_columns: tuple[str, ...] = field(
        default=("title", "path"),
        metadata={"meaning": "The full-text columns the subject is matched in (all when empty)."},
    )
    file_top_nodes: int = field(
        default=3,
        metadata={"meaning": "A file's lexical, phrase and subject signals sum its best this-many nodes."},
    )
    test_factor: float = field(
        default=0.2,
        metadata={"meaning": "Factor on the fused score of a test file, and on test code in any other file."},
    )
    doc_factor: float = field(
        default=0.5,
        metadata={
            "meaning": "Factor on the fused score of a documentation file, or of any other file that is not"
            " code (configuration, data, text)."
        },
    )
    test_path_pattern: str = field(
        default=TEST_PATH_PATTERN,
        metadata={"meaning": "A file whose path matches this pattern is a test file."},
    )
    test_scope_names: tuple[str, ...] = field(
        default=("test", "tests"),
        metadata={
            "meaning": "A symbol whose qualified name passes through a scope of one of these names (Rust's"
            " mod tests), or a module or namespace of such a name, is test code."
        },
    )
    doc_path_pattern: str = field(
        default=r"(^|/)(docs?|examples?|bench(mark)?s?|demos?)(/|$)|(^|/)(conf|setup)\.py$",
        metadata={"meaning": "A file whose path matches this pattern is a documentation file."},
    )
    data_factor: float = field(
        default=0.1,
        metadata={
            "meaning": "Factor on the fused score of a data or history file (vendored, minified, generated,"
            " a translation catalogue, a change log), unless the query names its path."
        },
    )
    data_path_pattern: str = field(
        default=DATA_PATH_PATTERN,
        metadata={"meaning": "A file whose lower-cased path matches this pattern is data or history."},
    )
    license_name_pattern: str = field(
        default=r"(^|/)(licen[cs]e|copying)([._-][a-z0-9]+)*$",
        metadata={
            "meaning": "A directory holding a file whose lower-cased path matches this pattern, with a text"
            " no other directory's license has, and no code in the repository's main language, is a"
            " third-party copy: data (empty: none is)."
        },
    )
    dense_line_bytes: int = field(
        default=300,
        metadata={"meaning": "A file with more bytes per line on average than this is minified data."},
    )
    local_weight: float = field(
        default=0.25,
        metadata={
            "meaning": "How much a node's own evidence (four signals, each 0..1) lifts it over its file."
        },
    )
    node_decay: float = field(
        default=0.95,
        metadata={"meaning": "Priority factor per rank inside a file.", FRACTION_AT_MOST: 1.0},
    )
    named_only_last: bool = field(
        default=True,
        metadata={
            "meaning": "A node known only by its name or path follows its file's nodes whose text matched."
        },
    )
    opening_files: int = field(
        default=20, metadata={"meaning": "Best code files with a candidate that offer their opening lines."}
    )
    opening_factor: float = field(
        default=0.5, metadata={"meaning": "An opening weighs this much of its file's best candidate."}
    )
    neighbour_files: int = field(
        default=3, metadata={"meaning": "Best files whose best candidates offer their neighbouring nodes."}
    )
    neighbour_nodes: int = field(
        default=3, metadata={"meaning": "Best candidates per such file that offer their neighbours."}
    )
    neighbour_factor: float = field(
        default=0.5, metadata={"meaning": "A neighbour weighs this much of the candidate beside it."}
    )
    tail_kinds: tuple[str, ...] = field(
        default=("function", "method"),
        metadata={"meaning": "Symbol kinds whose lines after their last child are an excerpt of their own."},
    )

    def __post_init__(self) -> None:
        hints = _hints()
        for spec in fields(self):
            value = _checked(spec.name, hints[spec.name], getattr(self, spec.name))
            object.__setattr__(self, spec.name, value)
            for item in value if isinstance(value, tuple) else (value,):
                _check_range(spec.name, item, spec.metadata.get(FRACTION_AT_MOST, MAX_FRACTION))
        self._check_shapes()

    def _check_shapes(self) -> None:
        if len(self.fts_weights) != len(FTS_COLUMNS):
            raise RangeError(
                f"fts_weights must hold {len(FTS_COLUMNS)} values, one per column",
                field=_where("fts_weights"),
            )
        unknown = [c for c in self.subject_columns if c not in FTS_COLUMNS]
        if unknown or len(set(self.subject_columns)) != len(self.subject_columns):
            raise RangeError(
                f"subject_columns must be distinct names among {', '.join(FTS_COLUMNS)}",
                field=_where("subject_columns"),
            )
        for name in (
            "test_path_pattern",
            "doc_path_pattern",
            "data_path_pattern",
            "license_name_pattern",
        ):
            try:
                compiled(getattr(self, name))
            except re.error as exc:
                raise RangeError(f"{name} is not a valid pattern: {exc}", field=_where(name)) from None

    def common_cap(self, total: int) -> int:
        """How many of ``total`` (nodes for a term, files for a path component) a word may occur in before it
        is too common to say anything."""
        return max(self.min_common_cap, int(self.common_term_share * total))

    def meanings(self) -> dict[str, str]:
        """Each knob's name and its one-line meaning."""
        return {spec.name: spec.metadata["meaning"] for spec in fields(self)}

    def to_dict(self) -> dict[str, Any]:
        """Every knob, canonical-JSON safe: fractions as integer thousandths under ``<name>_milli``, tuples
        as lists."""
        out: dict[str, Any] = {}
        for spec in fields(self):
            value = getattr(self, spec.name)
            if _is_fraction(_hints()[spec.name]):
                out[spec.name + MILLI_SUFFIX] = (
                    [round(v * MILLI) for v in value] if isinstance(value, tuple) else round(value * MILLI)
                )
            else:
                out[spec.name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RankingPolicy:
        """The policy :meth:`to_dict` recorded; a knob left out keeps its default value."""
        if not isinstance(data, Mapping):
            raise RequestError("a ranking policy must be an object", field="policy")
        kinds = _hints()
        by_key = {name + MILLI_SUFFIX if _is_fraction(kind) else name: name for name, kind in kinds.items()}
        values: dict[str, Any] = {}
        for key, raw in data.items():
            name = by_key.get(key)
            if name is None:
                raise RequestError(f"unknown ranking policy field {key!r}", field=_where(key))
            value = tuple(raw) if isinstance(raw, list) else raw
            if _is_fraction(kinds[name]):
                value = _from_milli(key, value)
            values[name] = value
        return cls(**values)


@functools.cache
def compiled(pattern: str) -> re.Pattern[str]:
    """A path pattern of the policy, compiled once."""
    return re.compile(pattern)


@functools.cache
def _hints() -> dict[str, Any]:
    return typing.get_type_hints(RankingPolicy)


def _where(name: str) -> str:
    return f"policy.{name}"


def _is_fraction(kind: Any) -> bool:
    return kind is float or typing.get_args(kind)[:1] == (float,)


def _scalar(kind: Any, value: object) -> bool:
    if kind is bool:
        return isinstance(value, bool)
    if kind in (int, float):
        return (
            isinstance(value, int | float)
            and not isinstance(value, bool)
            and (kind is float or isinstance(value, int))
        )
    return isinstance(value, kind)


def _checked(name: str, kind: Any, value: object) -> object:
    """``value`` if it has the knob's type (a fraction as a float, a sequence as a tuple), else an error."""
    items = typing.get_args(kind)
    if items:
        if not isinstance(value, tuple) or not all(_scalar(items[0], item) for item in value):
            raise RequestError(f"{name} must be a list of {items[0].__name__} values", field=_where(name))
        return tuple(float(item) for item in value) if items[0] is float else value
    if not _scalar(kind, value):
        raise RequestError(f"{name} must be a {kind.__name__}, got {value!r}", field=_where(name))
    return float(value) if isinstance(value, int | float) and kind is float else value


def _check_range(name: str, value: object, at_most: float) -> None:
    """A count within 0..MAX_COUNT; a fraction within 0..``at_most`` in whole thousandths."""
    if isinstance(value, float):
        if not (math.isfinite(value) and 0.0 <= value <= at_most):
            raise RangeError(f"{name} must be within 0..{at_most}, got {value}", field=_where(name))
        if round(value * MILLI) / MILLI != value:
            raise RangeError(f"{name} must be a whole number of thousandths, got {value}", field=_where(name))
    elif isinstance(value, int) and not isinstance(value, bool) and not 0 <= value <= MAX_COUNT:
        raise RangeError(f"{name} must be within 0..{MAX_COUNT}, got {value}", field=_where(name))


def _from_milli(key: str, value: object) -> object:
    def one(item: object) -> float:
        if not isinstance(item, int) or isinstance(item, bool):
            raise RequestError(f"{key} must hold integers (thousandths), got {item!r}", field=_where(key))
        return item / MILLI

    return tuple(one(item) for item in value) if isinstance(value, tuple) else one(value)


DEFAULT_POLICY = RankingPolicy()
"""The tuned ranking."""
