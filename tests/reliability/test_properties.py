"""Property tests (hypothesis): the strict loader, the canonical encoder, the locator parser, the ladder, the
budget, JSON-RPC framing, secret redaction and injection labels.

Every test runs derandomized (a fixed example sequence), so CI is deterministic; ``HYPOTHESIS_PROFILE=deep``
widens the search for a local fuzzing session. The optional coverage-guided target for the loader is
``bench/load_fuzz_loader.py`` (atheris; not in CI).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prooftext import canonical
from prooftext.adaptive.ladder import Ladder, first_rung, rungs
from prooftext.corpus import secrets
from prooftext.corpus.model import REASON_PATH
from prooftext.corpus.safeio import Refusal, name_problem, split_portable
from prooftext.errors import BudgetError, CanonicalJSONError
from prooftext.pack import injection
from prooftext.pack.injection import flags
from prooftext.select.candidates import Candidate
from prooftext.select.query import Query
from prooftext.select.selector import fill

from .fakes import fake_secrets, plant

DEEP = os.environ.get("HYPOTHESIS_PROFILE") == "deep"
EXAMPLES = 2000 if DEEP else 150
PROPERTY = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not DEEP,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

SAFE_INT = st.integers(min_value=-canonical.MAX_SAFE_INTEGER, max_value=canonical.MAX_SAFE_INTEGER)
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=20)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | SAFE_INT | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=20,
)


@PROPERTY
@given(JSON_VALUES)
def test_D00_canonical_encoding_is_a_fixed_point_of_the_strict_loader(value: Any) -> None:
    encoded = canonical.encode(value)
    assert encoded.isascii()
    assert canonical.load(encoded) == value
    assert canonical.encode(canonical.load(encoded)) == encoded
    assert canonical.is_canonical(encoded)


@PROPERTY
@given(st.binary(max_size=200))
def test_D00_the_strict_loader_rejects_arbitrary_bytes_only_with_its_own_errors(data: bytes) -> None:
    try:
        value = canonical.load(data)
    except CanonicalJSONError:
        return
    canonical.encode(value)  # whatever it accepts, it can write back


@PROPERTY
@given(st.text(max_size=60))
def test_D00_the_strict_loader_never_leaks_another_exception_for_text(text: str) -> None:
    with contextlib.suppress(CanonicalJSONError):
        canonical.load(text)


@PROPERTY
@given(st.dictionaries(TEXT, SAFE_INT, max_size=6))
def test_D00_keys_come_out_sorted_by_code_point(value: dict[str, int]) -> None:
    decoded = json.loads(canonical.encode(value))
    assert list(decoded) == sorted(value)


PATH_ALPHABET = st.sampled_from([*list("ab._-/\\\x00\n é"), "..", "//", "./", "\x7f", "\u202e"])


@PROPERTY
@given(st.lists(PATH_ALPHABET, max_size=12).map("".join))
def test_A00_the_locator_parser_accepts_only_portable_paths(path: str) -> None:
    try:
        parts = split_portable(path)
    except Refusal as refusal:
        assert refusal.reason == REASON_PATH
        return
    assert "/".join(parts) == path and parts
    assert all(name_problem(part) is None for part in parts)
    assert ".." not in parts and "." not in parts and "" not in parts
    assert not any(c in path for c in "\\\0\n\x7f\u202e")


@st.composite
def requests(draw: st.DrawFn) -> tuple[Ladder, int]:
    max_tokens = draw(st.integers(1, 50_000))
    min_tokens = draw(st.integers(1, max_tokens))
    max_nodes = draw(st.integers(1, 200))
    min_nodes = draw(st.integers(1, max_nodes))
    req = Ladder(
        min_tokens=min_tokens,
        max_tokens=max_tokens,
        token_step=draw(st.integers(1, 20_000)),
        min_nodes=min_nodes,
        max_nodes=max_nodes,
        node_step=draw(st.integers(1, 64)),
        min_evidence=1,
    )
    return req, draw(st.integers(0, 60_000))


@PROPERTY
@given(requests())
def test_E00_the_ladder_rises_monotonically_to_the_hard_limit_and_never_past_it(
    case: tuple[Ladder, int],
) -> None:
    req, kernel = case
    if kernel > req.max_tokens:
        with pytest.raises(BudgetError):
            first_rung(req, kernel)
        return
    climbed = rungs(req, kernel)
    assert climbed[0][0] >= kernel and climbed[0][0] >= req.min_tokens
    assert climbed[-1] == (req.max_tokens, req.max_nodes)
    for (t0, n0), (t1, n1) in itertools.pairwise(climbed):
        assert t0 <= t1 <= req.max_tokens and n0 <= n1 <= req.max_nodes and (t0, n0) != (t1, n1)
    steps = max(
        -(-(req.max_tokens - climbed[0][0]) // req.token_step),
        -(-(req.max_nodes - req.min_nodes) // req.node_step),
    )
    assert len(climbed) <= steps + 1


def _candidate(i: int, lines: int, sensitivity: str, start: int = 1) -> Candidate:
    return Candidate(
        node_id=f"{i:064X}",
        kind="symbol",
        path=f"f{i % 5}.py",
        name=f"n{i}",
        qualname=f"n{i}",
        symbol_kind="function",
        node_start=start,
        node_end=start + lines - 1,
        start_line=start,
        end_line=start + lines - 1,
        file_sha256="0" * 64,
        authority="repository-record",
        sensitivity=sensitivity,
        freshness="candidate-bound",
    )


@PROPERTY
@given(
    st.lists(
        st.tuples(
            st.integers(1, 40),
            st.sampled_from(["public", "repository-private", "secret-or-prohibited"]),
            st.integers(1, 80),
        ),
        max_size=25,
    ),
    st.integers(1, 3000),
    st.integers(1, 30),
    st.booleans(),
    st.integers(0, 200),
)
def test_E00_fill_never_exceeds_a_ceiling_and_records_every_candidate_it_skips(
    specs: list[tuple[int, str, int]], max_tokens: int, max_nodes: int, truncate: bool, header: int
) -> None:
    """Candidates of five files at any lines: apart, adjacent (so they may join), nested or overlapping."""
    optional = [_candidate(i, lines, sens, start) for i, (lines, sens, start) in enumerate(specs)]
    query = Query(
        text="budget property", max_tokens=max_tokens, max_nodes=max_nodes, allow_truncated=truncate
    )

    def cost(cand: Candidate, start: int, end: int) -> int:
        return 20 + 9 * (end - start + 1)

    if header > max_tokens:
        with pytest.raises(BudgetError):
            fill(query, [], optional, cost, header)
        return
    sel = fill(query, [], optional, cost, header)
    assert sel.total_cost <= max_tokens and sel.nodes <= max_nodes
    assert sel.total_cost == header + sum(c.cost for c in sel.chosen)
    assert sel.nodes == sum(c.nodes for c in sel.chosen)
    taken = {c.node_id for choice in sel.chosen for c in (choice.candidate, *choice.joined)}
    skipped = {str(e["node_id"]) for e in sel.excluded}
    assert (
        taken | skipped == {c.node_id for c in optional} and not taken & skipped
    )  # nothing dropped silently
    assert all(c.candidate.sensitivity != "secret-or-prohibited" for c in sel.chosen)
    for choice in sel.chosen:  # a block quotes every node it names, and costs what its lines cost
        assert choice.cost == cost(choice.candidate, choice.start_line, choice.end_line)
        assert all(choice.start_line <= m.start_line and m.end_line <= choice.end_line for m in choice.joined)


@st.composite
def planted_texts(draw: st.DrawFn) -> str:
    fakes = fake_secrets(draw(st.integers(0, 10_000)))
    fakes.pop(secrets.RULE_PRIVATE_KEY)
    filler = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30)
    parts: list[str] = []
    for _ in range(draw(st.integers(1, 6))):
        if draw(st.booleans()):
            rule = draw(st.sampled_from(sorted(fakes)))
            parts.append(plant(rule, fakes[rule]))
        else:
            parts.append(draw(filler) + "\n")
    return "".join(parts)


@PROPERTY
@given(planted_texts(), st.sampled_from(["a.py", "b.env", "c.md", "README"]))
def test_F00_redaction_removes_every_planted_value_is_idempotent_and_line_local(text: str, path: str) -> None:
    redacted = secrets.redact_text(text, path)
    assert secrets.redact_text(redacted, path) == redacted
    assert redacted.count("\n") == text.count("\n")
    whole = redacted.split("\n")
    for start, line in enumerate(text.split("\n")):
        assert secrets.redact_text(line, path) == whole[start]


@PROPERTY
@given(st.text(max_size=300), st.sampled_from(["x.py", "y.md", "package-lock.json"]))
def test_F00_injection_flags_are_deterministic_sorted_and_never_raise(text: str, path: str) -> None:
    first = flags(text, path)
    assert first == flags(text, path) == sorted(first)


# --- JSON-RPC framing ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rpc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    context_module = pytest.importorskip("prooftext.server.context")
    dispatcher_module = pytest.importorskip("prooftext.server.dispatcher")
    root = tmp_path_factory.mktemp("rpc") / "repo"
    root.mkdir()
    (root / "a.py").write_text("def ledger():\n    return 1\n")
    ctx = context_module.ServerContext.open(root, context_module.Limits(), "rpc")
    try:
        yield dispatcher_module.Dispatcher(ctx)
    finally:
        ctx.close()


ENVELOPE_VALUES = (
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False) | st.text(max_size=5)
)
METHODS = st.sampled_from(["index.status", "depth.classify", "server.info", "nope", "rpc.x", ""])
ENVELOPES = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.sampled_from(["2.0", "1.0", 2]) | ENVELOPE_VALUES,
        "method": METHODS | ENVELOPE_VALUES,
        "params": st.none()
        | st.dictionaries(st.sampled_from(["text", "x"]), ENVELOPE_VALUES, max_size=2)
        | st.lists(ENVELOPE_VALUES, max_size=2),
        "id": ENVELOPE_VALUES | st.lists(st.integers(), max_size=1),
        "extra": ENVELOPE_VALUES,
    },
)


def _check_reply(reply: Any, message: Any) -> None:
    assert reply["jsonrpc"] == "2.0" and ("result" in reply) != ("error" in reply)
    if "error" in reply:
        assert reply["error"]["code"] != -32603, reply
        assert isinstance(reply["error"]["message"], str)


@settings(PROPERTY, max_examples=min(EXAMPLES, 120))
@given(st.one_of(ENVELOPES, st.lists(ENVELOPES, max_size=4)))
def test_G00_any_envelope_gets_a_well_formed_answer_and_never_an_internal_error(
    rpc: Any, message: Any
) -> None:
    raw = rpc.handle(json.dumps(message).encode())
    if raw is None:
        items = message if isinstance(message, list) else [message]
        assert all(isinstance(m, dict) and "id" not in m for m in items) and items
        return
    reply = json.loads(raw)
    for item in reply if isinstance(reply, list) else [reply]:
        _check_reply(item, message)


@settings(PROPERTY, max_examples=min(EXAMPLES, 120))
@given(st.binary(max_size=120))
def test_G00_arbitrary_bytes_are_a_parse_or_request_error_with_a_null_id(rpc: Any, data: bytes) -> None:
    raw = rpc.handle(data)
    if raw is None:
        return
    reply = json.loads(raw)
    for item in reply if isinstance(reply, list) else [reply]:
        _check_reply(item, data)


REQUEST_PIECES = st.sampled_from(
    [
        "What are",
        " you",
        ". ",
        "\n",
        "Can you",
        " please ",
        "Write a script",
        "#",
        " '",
        "?",
        "1) ",
        "How do I",
        " fix",
        " the",
        " thing",
        "x=1",
        "(",
        "Please ",
        "- ",
        "**",
        "!",
        "Is this",
        "Describe the",
        "\t",
        '"',
        "`",
    ]
)


@PROPERTY
@given(st.lists(REQUEST_PIECES, max_size=30).map("".join))
def test_F00_the_fast_request_detector_equals_the_sentence_by_sentence_definition(text: str) -> None:
    reference = any(injection._is_request(m.group(0)) for m in injection._SENTENCE.finditer(text))
    assert injection._has_request(text) == reference
