"""The Query: what to select, under which hard ceilings, for whom.

Limits follow the context framework: 1..4,096 nodes, 0..16,384 edges, traversal depth 0..8, and a byte
ceiling of 1,024..8,388,608 whenever the count is in bytes, whether the unit is ``bytes`` or the tokenizer
is ``bytes`` (one basis, one range: :attr:`Query.basis`). Path seeds are ranking hints only: they never
bypass manifest membership, range validation or digest checks. Every invalid field fails with one error
naming it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from datetime import datetime, timedelta
from typing import Any

from prooftext.corpus.lines import CONTROL_CHARACTERS, require_utf8
from prooftext.corpus.model import SENSITIVITIES
from prooftext.corpus.secrets import redact_text
from prooftext.errors import EmptyQueryError, RangeError, RequestError, UnknownNameError, whole_number
from prooftext.select.terms import analyze
from prooftext.tokens import BYTES_BASIS, DEFAULT_TOKENIZER, TOKENIZERS

UNIT_TOKENS = "tokens"
UNIT_BYTES = "bytes"
UNITS = (UNIT_TOKENS, UNIT_BYTES)

MIN_NODES, MAX_NODES = 1, 4096
MIN_EDGES, MAX_EDGES = 0, 16_384
MIN_DEPTH, MAX_DEPTH = 0, 8
MIN_BYTES, MAX_BYTES = 1024, 8_388_608
MIN_TOKENS, MAX_TOKENS = 1, 2_097_152
MAX_QUERY_CHARS = 65_536
"""Longer query text is rejected rather than silently cut (a whole issue thread fits well within it)."""

DEFAULT_MAX_TOKENS = 8000
DEFAULT_MAX_NODES = 64
DEFAULT_MAX_EDGES = 256
DEFAULT_MAX_DEPTH = 1
DEFAULT_CLEARANCE = "owner-private"
"""Everything a repository may hold except secrets; callers lower it to share packets more widely."""


@dataclass(frozen=True)
class Query:
    """What a packet is compiled for: the query text, its ceiling (tokens or bytes, counted by ``tokenizer``),
    the node and graph limits, the paths or node ids it must hold, the clearance its excerpts may carry,
    the generation it reads (``as_of``) and the paths to rank higher."""

    text: str
    max_tokens: int = DEFAULT_MAX_TOKENS
    unit: str = UNIT_TOKENS
    tokenizer: str = DEFAULT_TOKENIZER
    max_nodes: int = DEFAULT_MAX_NODES
    max_edges: int = DEFAULT_MAX_EDGES
    max_depth: int = DEFAULT_MAX_DEPTH
    required: tuple[str, ...] = ()
    clearance: str = DEFAULT_CLEARANCE
    as_of: str | None = None
    path_seeds: tuple[str, ...] = ()
    allow_truncated: bool = False
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def basis(self) -> str:
        """What a count of this query is measured in: a tokenizer name or ``bytes``."""
        return BYTES_BASIS if self.unit == UNIT_BYTES else self.tokenizer

    def with_ceilings(self, max_tokens: int, max_nodes: int) -> Query:
        return replace(self, max_tokens=max_tokens, max_nodes=max_nodes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "unit": self.unit,
            "tokenizer": self.tokenizer,
            "max_tokens": self.max_tokens,
            "max_nodes": self.max_nodes,
            "max_edges": self.max_edges,
            "max_depth": self.max_depth,
            "required": list(self.required),
            "clearance": self.clearance,
            "as_of": self.as_of,
            "path_seeds": list(self.path_seeds),
            "allow_truncated": self.allow_truncated,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Query:
        """The query :meth:`to_dict` recorded (a packet's ``query``), checked as :func:`validate` checks it; a
        field left out keeps its default, and an unknown one is refused, naming it."""
        if not isinstance(data, Mapping):
            raise RequestError("a query must be an object", field="query")
        known = {f.name for f in fields(cls)} - {"extra"}
        for key in data:
            if key not in known:
                raise RequestError(f"unknown query field {str(key)[:80]!r}", field=str(key)[:80])
        if "text" not in data:
            raise RequestError("a query needs its text", field="text")
        values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
        return validate(cls(**values))


def check_ceiling(value: object, basis: str) -> None:
    """``max_tokens`` in the range of what it counts (``basis``: a tokenizer's or ``bytes``), however the
    caller named the unit: a packet's query and a map's settings alike."""
    if basis == BYTES_BASIS:
        whole_number("max_tokens", value, MIN_BYTES, MAX_BYTES, " bytes")
    else:
        whole_number("max_tokens", value, MIN_TOKENS, MAX_TOKENS)


def _check_bool(name: str, value: object) -> None:
    # The field is recorded in the packet as given: a string "no" would read as a second kind of false.
    if not isinstance(value, bool):
        raise RequestError(f"{name} must be a boolean", field=name)


def _check_text(text: object) -> None:
    if not isinstance(text, str):
        raise RequestError("query text must be a string", field="query")
    if len(text) > MAX_QUERY_CHARS:
        raise RangeError(f"query is longer than {MAX_QUERY_CHARS} characters", field="query")
    require_utf8(text)
    if CONTROL_CHARACTERS.search(text):
        raise RequestError("query contains control characters", field="query")
    if not any(ch.isalnum() for ch in text):
        raise EmptyQueryError("query must contain at least one searchable term", field="query")


def _check_names(query: Query) -> None:
    if query.unit not in UNITS:
        raise UnknownNameError(f"unit must be one of {', '.join(UNITS)}", field="unit")
    if query.tokenizer not in TOKENIZERS:
        raise UnknownNameError(
            f"unknown tokenizer {query.tokenizer!r}; known: {', '.join(TOKENIZERS)}", field="tokenizer"
        )
    if query.clearance not in SENSITIVITIES:
        raise UnknownNameError(f"clearance must be one of {', '.join(SENSITIVITIES)}", field="clearance")


def _check_paths(name: str, paths: object) -> None:
    """A list of paths, each a non-empty string of Unicode text (a lone string is refused, not read as its
    letters)."""
    if isinstance(paths, (str, bytes)) or not isinstance(paths, (tuple, list)):
        raise RequestError(f"{name} must be a list of paths", field=name)
    for path in paths:
        if not isinstance(path, str) or not path or "\x00" in path:
            raise RequestError(f"{name} entries must be non-empty strings", field=name)
        require_utf8(path, name)


def _check_as_of(as_of: object) -> None:
    if as_of is None:
        return
    if not isinstance(as_of, str):
        raise RequestError("as_of must be an ISO 8601 UTC timestamp", field="as_of")
    try:
        moment = datetime.fromisoformat(as_of.replace("Z", "+00:00"))
    except ValueError:
        raise RequestError("as_of must be an ISO 8601 UTC timestamp", field="as_of") from None
    if moment.utcoffset() != timedelta(0):
        raise RequestError("as_of must carry a UTC offset (Z or +00:00)", field="as_of")


def redacted_all(values: tuple[str, ...]) -> tuple[str, ...]:
    """Each caller-given string with any credential redacted: a path or name a result records as given."""
    return tuple(redact_text(value) for value in values)


def validate(query: Query) -> Query:
    """Check every field and return the query, its text and path seeds with any credential redacted (the
    text is quoted in the prompt, the packet and the trace, the seeds in the packet and the trace); or raise
    one error naming the first bad field."""
    _check_text(query.text)
    _check_names(query)
    check_ceiling(query.max_tokens, query.basis)
    whole_number("max_nodes", query.max_nodes, MIN_NODES, MAX_NODES)
    whole_number("max_edges", query.max_edges, MIN_EDGES, MAX_EDGES)
    whole_number("max_depth", query.max_depth, MIN_DEPTH, MAX_DEPTH)
    _check_paths("required", query.required)
    _check_paths("path_seeds", query.path_seeds)
    _check_as_of(query.as_of)
    _check_bool("allow_truncated", query.allow_truncated)
    _check_searchable(query)
    text, seeds = redact_text(query.text), redacted_all(tuple(query.path_seeds))
    return (
        query
        if (text, seeds) == (query.text, query.path_seeds)
        else replace(query, text=text, path_seeds=seeds)
    )


def _check_searchable(query: Query) -> None:
    """A query that only required sources answer may be all stop words; otherwise it must search for
    something, or the packet would be empty with nothing left out to say why. Path seeds do not count:
    they weigh what a search finds, and find nothing themselves."""
    if query.required:
        return
    analysis = analyze(query.text)
    if not (analysis.terms or analysis.identifiers or analysis.paths or analysis.modules or analysis.phrases):
        raise EmptyQueryError(
            "query has no searchable term (only stop words); name what to find, or require a source",
            field="query",
        )
