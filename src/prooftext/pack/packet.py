"""Compiling a packet: select under the ceilings, re-read and verify every source, render, count, digest.

A :class:`Compiler` ranks once and can then compile at any ceilings (the adaptive ladder compiles the same
ranked corpus at rising ceilings). Before a packet is emitted every source is re-read and its sha256 and
line ranges checked: a drifted optional source is excluded with a reason and the selection is redone; a
drifted required source is an error. The prompt is counted exactly; it never exceeds its ceiling.
"""

from __future__ import annotations

import functools
import sqlite3
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from prooftext.cache import BoundedCache
from prooftext.corpus.config import load_config
from prooftext.corpus.lines import LineText
from prooftext.corpus.secrets import Repeats, redacted_floor
from prooftext.errors import RequestError, SourceDriftError, UnknownNameError
from prooftext.pack.render import (
    DEFAULT_FORMAT,
    FORMAT_MARKDOWN,
    FORMATS,
    NONCE_PLACEHOLDER,
    Block,
    Excerpt,
    derive_nonce,
    digest,
    markdown_block_piece,
    markdown_header_piece,
    markdown_pieces,
    redacted,
    render,
    render_block,
)
from prooftext.pack.sources import Observation, StoreTexts, file_repeats, observe, ranges_fit
from prooftext.select.candidates import Candidate
from prooftext.select.policy import DEFAULT_POLICY, RankingPolicy
from prooftext.select.query import Query, validate
from prooftext.select.rank import RankResult, rank
from prooftext.select.selector import (
    Choice,
    Selection,
    choice_records,
    cut_records,
    fill,
    prepare,
    required_blocks,
)
from prooftext.select.terms import analyze
from prooftext.store.db import read_snapshot
from prooftext.tokens import BYTES_BASIS, Counter, TokenCount, count_floor, get_counter

PACKET_VERSION = "prooftext.packet/v1"
COST_CACHE_ENTRIES = 1 << 17
"""Measured excerpt costs kept per process: a node's cost is the same for every query that selects it."""
CostKey = tuple[str, str, str, str, str, str, int, int, int, int]
_COSTS: BoundedCache[CostKey, int] = BoundedCache(COST_CACHE_ENTRIES)
PieceKey = tuple[str, str, str, int, int, str, str, tuple[int, int] | None, bool]
_PIECES: BoundedCache[PieceKey, int] = BoundedCache(COST_CACHE_ENTRIES)
"""Counts of markdown block pieces (see :meth:`Compiler._piecewise_count`), shared like ``_COSTS``."""
FLOOR_MIN_CHARS = 1 << 12
"""A shorter excerpt gets no floor (zero): its floor could rule it out of almost no room, and it is cheap to
measure exactly, while finding a tokenizer's longest token costs a one-shot call milliseconds."""
FLOOR_REDACTION_CHARS = 1 << 14
"""An excerpt this long whose floor from its lines' lengths is within the query's ceiling is redacted for a
firmer floor: redacting costs a fraction of the render and count it may spare, and a render reuses it."""
REASON_EXACT_OVERFLOW = "over_budget_exact"
"""Dropped after the exact count of the whole prompt (token merges across block boundaries)."""


@dataclass(frozen=True)
class JoinedNode:
    """A node quoted inside another node's excerpt (its block also quotes the lines between them)."""

    node_id: str
    qualname: str
    start_line: int
    end_line: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "node_id": self.node_id,
            "qualname": self.qualname,
            "lines": [self.start_line, self.end_line],
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Evidence(Excerpt):
    """One excerpt of a packet: the node it quotes and why it was chosen, at its cost."""

    node_id: str
    qualname: str
    reason: str
    cost: int
    truncated_from: tuple[int, int] | None
    joined: tuple[JoinedNode, ...] = ()
    """Further nodes this excerpt quotes: neighbours of ``node_id`` in its file, taken as one block."""

    @property
    def node_ids(self) -> list[str]:
        return [self.node_id, *(j.node_id for j in self.joined)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "node_id": self.node_id,
            "qualname": self.qualname,
            "path": self.path,
            "lines": [self.start_line, self.end_line],
            "sha256": self.sha256,
            "authority": self.authority,
            "sensitivity": self.sensitivity,
            "reason": self.reason,
            "cost": self.cost,
            "truncated_from": list(self.truncated_from) if self.truncated_from else None,
            "joined": [j.to_dict() for j in self.joined],
        }


@dataclass
class Packet:
    query: Query
    format: str
    nonce: str
    prompt: str
    prompt_tokens: TokenCount
    blake3: str
    evidence: list[Evidence]
    evidence_texts: list[str]
    excluded: list[dict[str, Any]]
    omitted: int
    trace: dict[str, Any] = field(default_factory=dict)

    @property
    def truncated_count(self) -> int:
        return sum(1 for e in self.evidence if e.truncated_from is not None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": PACKET_VERSION,
            "query": self.query.to_dict(),
            "format": self.format,
            "nonce": self.nonce,
            "prompt": self.prompt,
            "prompt_tokens": self.prompt_tokens.to_dict(),
            "blake3": self.blake3,
            "evidence": [e.to_dict() for e in self.evidence],
            "excluded": self.excluded,
            "omitted": self.omitted,
            "trace": self.trace,
        }


def check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise UnknownNameError(f"format must be one of {', '.join(FORMATS)}", field="format")
    return fmt


@functools.cache
def _single_token_digit_groups(basis: str) -> bool:
    counter = get_counter(basis)
    return all(count == 1 for count in counter.count_many([f"{n:03d}" for n in range(1000)]))


def nonce_invariant(counter: Counter) -> bool:
    """Whether a prompt's count is the same for every nonce: bytes always; a tokenizer when every group
    of three digits (how both patterns split the 18-digit nonce) is one token."""
    return counter.basis == BYTES_BASIS or _single_token_digit_groups(counter.basis)


def _excerpt_lines(text: LineText, start: int, end: int) -> list[str]:
    """Lines ``start..end`` of ``text`` as ``text.slice(start, end)`` splits at its line feeds."""
    lines = text.lines[start - 1 : end]
    if end < text.count or text.terminated:
        lines.append("")  # the slice ends with a line feed
    return lines


def excerpt_floor(text: LineText, start: int, end: int) -> tuple[int, int]:
    """The characters of lines ``start..end`` of ``text``: at least how many redaction keeps (see
    :func:`~prooftext.corpus.secrets.redacted_floor`), found from their lengths alone, and how many there are."""
    lines = _excerpt_lines(text, start, end)
    return redacted_floor(lines), sum(map(len, lines)) + len(lines) - 1 if lines else 0


def _distinct(candidates: list[Candidate]) -> list[Candidate]:
    """Each node once, where it first comes: a source that ``required`` names twice is quoted once."""
    first: dict[str, Candidate] = {}
    for cand in candidates:
        first.setdefault(cand.node_id, cand)
    return list(first.values())


def _refuse_drift(bad: dict[str, Observation], required: set[str], drifted: dict[str, Observation]) -> None:
    """A required source that failed verification is an error; so is one a fill took again after it had
    drifted (a broken invariant: an error, never a selection loop that cannot end)."""
    for path, seen in bad.items():
        if path in required or path in drifted:
            kind = "required" if path in required else "drifted"
            raise SourceDriftError(
                f"{kind} source {path} failed verification: {seen.reason} {seen.detail}",
                path=path,
                reason=seen.reason,
            )


class Compiler:
    """Rank once for a query over an index; compile packets at any ceilings."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        root: Path,
        query: Query,
        fmt: str = DEFAULT_FORMAT,
        *,
        additive: bool = False,
        policy: RankingPolicy = DEFAULT_POLICY,
    ) -> None:
        """``additive``: count markdown prompts piece by piece (see :func:`render.markdown_pieces`), for
        callers that compile many packets from one ranking: each distinct block is encoded once, not once
        per round. The sum is exact (the cuts fall where no pre-token can span; property-tested).
        ``policy``: the ranking's knobs."""
        self.conn = conn
        self.root = root
        self.query = validate(query)
        self.format = check_format(fmt)
        self.counter: Counter = get_counter(query.basis)
        self.texts = StoreTexts(conn)
        with read_snapshot(conn):  # the required and traversed nodes come from the state the ranking read
            self.ranked: RankResult = rank(conn, self.query, analyze(self.query.text), policy)
            prepared = prepare(conn, self.query, self.ranked.candidates, policy)
        self.required, self.optional, self.traversal = (
            _distinct(prepared.required),
            prepared.optional,
            prepared.traversal,
        )
        self.components = prepared.components
        self.cut = cut_records(prepared.cut)
        self._rendered: dict[
            tuple[tuple[str, str, int, int, str, Repeats | None], ...], tuple[str, str, int]
        ] = {}
        self.additive = additive and self.format == FORMAT_MARKDOWN and nonce_invariant(self.counter)
        self._header_counts: dict[bool, int] = {}
        """The header piece's count, with and without evidence after it (see :meth:`_piecewise_count`)."""
        self._costs: dict[tuple[str, int, int, int, int], int] = {}
        self._floors: dict[tuple[str, str, int, int], int] = {}
        self._read: dict[tuple[str, str], LineText] = {}
        """Sources read and verified by this compilation: its rounds, milliseconds apart, share one read
        (text and digest always come from the same bytes, so a packet never mixes two states of a file)."""
        # Header and footer counted together, as the empty packet renders them: apart, a token merged
        # across the cut (JSON's `[` and `]`) would be counted twice or not at all.
        self.header_cost = self.counter.count(render(self.format, self.query.text, [], NONCE_PLACEHOLDER))
        self._prime_costs()
        self._kernel: int | None = None

    @staticmethod
    def _block(
        cand: Candidate, start: int, end: int, text: LineText, truncated: bool, repeats: Repeats | None = None
    ) -> Block:
        return Block(
            cand.path,
            start,
            end,
            cand.file_sha256,
            cand.authority,
            cand.sensitivity,
            text.slice(start, end),
            (cand.start_line, cand.end_line) if truncated else None,
            repeats,
        )

    def _cost_key(self, cand: Candidate, start: int, end: int) -> CostKey:
        """Everything a block's rendering depends on, and nothing else: nodes that quote the same lines (a
        minified file's symbols all sit on one line) share one count."""
        whole = (start, end) == (cand.start_line, cand.end_line)
        truncated_from = (0, 0) if whole else (cand.start_line, cand.end_line)
        return (self.format, self.counter.basis, cand.path, cand.file_sha256, cand.authority,
                cand.sensitivity, *truncated_from, start, end)  # fmt: skip

    def _render_for_cost(self, cand: Candidate, start: int, end: int) -> str:
        text = self.texts.get(cand.path, cand.file_sha256)
        block = self._block(cand, start, end, text, (start, end) != (cand.start_line, cand.end_line))
        return render_block(self.format, block, NONCE_PLACEHOLDER, 1)

    def _prime_costs(self) -> None:
        """Measure every whole excerpt not yet known in one parallel batch; truncations are measured on demand.
        An optional excerpt whose floor is above the query's ceiling fits no room of it and is left out."""
        todo = {}
        ceiling = self.query.max_tokens
        optional = [c for c in self.optional if self.floor(c, c.start_line, c.end_line) <= ceiling]
        for cand in [*self.required, *optional]:
            key = self._cost_key(cand, cand.start_line, cand.end_line)
            if _COSTS.get(key) is None:
                todo[key] = cand
        blocks = [self._render_for_cost(c, c.start_line, c.end_line) for c in todo.values()]
        for key, value in zip(todo, self.counter.count_many(blocks), strict=True):
            _COSTS.put(key, value)

    def cost(self, cand: Candidate, start: int, end: int) -> int:
        # A plain dict in front of the shared, locked cache: fills ask for the same excerpts every round.
        local = (cand.node_id, cand.start_line, cand.end_line, start, end)
        value = self._costs.get(local)
        if value is not None:
            return value
        key = self._cost_key(cand, start, end)
        value = _COSTS.get(key)
        if value is None:
            value = self.counter.count(self._render_for_cost(cand, start, end))
            _COSTS.put(key, value)
        self._costs[local] = value
        return value

    @functools.cached_property
    def _store_redacted(self) -> bool:
        """Whether a stored text is, redaction included, what rendering its re-read source quotes: every
        rule is line-local and the scan stored the source redacted. Not so when allowlist pragmas keep a
        value in the store that rendering redacts anyway (then the floor redacts to be sure). Read only
        when a floor needs it: most packs never do."""
        return not load_config(self.root).secrets_allow_pragma

    def floor(self, cand: Candidate, start: int, end: int) -> int:
        """A count the excerpt's block never goes below (its exact cost when this compilation knows it).

        The block quotes the redacted excerpt, each character at least one UTF-8 byte (escapes and control
        pictures only add), and no unit of the basis covers more than
        :attr:`~prooftext.tokens.Counter.longest_token` bytes. What redaction keeps is bounded from the
        lines' lengths alone (:func:`excerpt_floor`), without rendering, redacting or counting; when that
        leaves a long excerpt within the query's ceiling (few, long lines: a credential may run a whole
        line), its redacted text is measured instead, still neither flagged nor counted. An excerpt shorter
        than :data:`FLOOR_MIN_CHARS` gets zero."""
        known = self._costs.get((cand.node_id, cand.start_line, cand.end_line, start, end))
        if known is not None:
            return known
        key = (cand.path, cand.file_sha256, start, end)
        value = self._floors.get(key)
        if value is None:
            text = self.texts.get(cand.path, cand.file_sha256)
            kept, chars = excerpt_floor(text, start, end)
            if self._store_redacted:  # the stored text is what rendering quotes, redacted already
                kept = chars
            value = count_floor(self.counter, kept) if chars >= FLOOR_MIN_CHARS else 0
            if not self._store_redacted and value <= self.query.max_tokens and chars >= FLOOR_REDACTION_CHARS:
                # Lines long enough to hide a credential of any length: the redacted text itself.
                shown = redacted(text.slice(start, end), cand.path, None)
                value = max(value, count_floor(self.counter, len(shown)))
            self._floors[key] = value
        return value

    def _render(self, blocks: list[Block]) -> tuple[str, str, int]:
        """Nonce, prompt and exact count of a block list; rounds that select the same blocks share them."""
        key = tuple((b.path, b.sha256, b.start_line, b.end_line, b.text, b.repeats) for b in blocks)
        known = self._rendered.get(key)
        if known is None:
            nonce = derive_nonce(self.query.text, blocks)
            if self.additive:
                prompt = "".join(markdown_pieces(self.query.text, blocks, nonce))
                count = self._piecewise_count(blocks)
            else:
                prompt = render(self.format, self.query.text, blocks, nonce)
                count = self.counter.count(prompt)
            known = (nonce, prompt, count)
            self._rendered[key] = known
        return known

    def _piecewise_count(self, blocks: list[Block]) -> int:
        """The prompt's count as the sum of its pieces', each measured once per process (with the
        placeholder nonce, whose digit groups are single tokens, so the count does not depend on the nonce;
        a block piece's count depends only on the block, so every query that quotes it shares it)."""
        last = len(blocks) - 1
        if bool(blocks) not in self._header_counts:
            piece = markdown_header_piece(self.query.text, NONCE_PLACEHOLDER, bool(blocks))
            self._header_counts[bool(blocks)] = self.counter.count(piece)
        basis = self.counter.basis
        keys: list[PieceKey] = [
            (basis, b.path, b.sha256, b.start_line, b.end_line, b.authority, b.sensitivity, b.truncated_from, i == last)
            for i, b in enumerate(blocks)
        ]  # fmt: skip
        known = [_PIECES.get(k) for k in keys]
        missing = [i for i, count in enumerate(known) if count is None]
        measured = self.counter.count_many(
            [markdown_block_piece(blocks[i], NONCE_PLACEHOLDER, keys[i][-1]) for i in missing]
        )
        counts = dict(zip(missing, measured, strict=True))
        for i, count in counts.items():
            _PIECES.put(keys[i], count)
        # Counts come from this call, never re-read from the cache, which may have evicted them meanwhile.
        return self._header_counts[bool(blocks)] + sum(counts.get(i, c or 0) for i, c in enumerate(known))

    def kernel_cost(self) -> int:
        """Header plus required evidence: the minimum context kernel, counted exactly as the packet that
        quotes only the required evidence renders (its nonce included), from the indexed texts."""
        if self._kernel is None:
            blocks = [
                self._block(c, c.start_line, c.end_line, self.texts.get(c.path, c.file_sha256), False)
                for c, _joined in required_blocks(self.required)
            ]
            self._kernel = self._render(blocks)[2]
        return self._kernel

    def _verify(self, sel: Selection) -> tuple[dict[str, LineText], dict[str, Observation]]:
        ranges: dict[str, list[tuple[int, int]]] = {}
        digests: dict[str, str] = {}
        for choice in sel.chosen:
            ranges.setdefault(choice.candidate.path, []).append((choice.start_line, choice.end_line))
            digests[choice.candidate.path] = choice.candidate.file_sha256
        good: dict[str, LineText] = {}
        bad: dict[str, Observation] = {}
        for path in sorted(ranges):
            text = self._read.get((path, digests[path]))
            if text is not None and ranges_fit(text, ranges[path]):
                good[path] = text
                continue
            seen = observe(self.root, path, digests[path], ranges[path])
            if seen.text is None:
                bad[path] = seen
            else:
                good[path] = self._read[(path, digests[path])] = seen.text
        return good, bad

    def _select_verified(
        self, ceiling: int, nodes: int
    ) -> tuple[Selection, dict[str, LineText], list[dict[str, Any]]]:
        query = self.query.with_ceilings(ceiling, nodes)
        kernel = self.kernel_cost()
        drifted: dict[str, Observation] = {}
        required_paths = {c.path for c in self.required}
        # Terminates: a fill takes nothing from a drifted path (nor a contradiction component with a side
        # there), so every pass that fails verification adds a new path to ``drifted``, of finitely many.
        while True:
            sel = fill(query, self.required, self.optional, self.cost, self.header_cost, self.components,
                       self.cut, drifted=drifted.keys(), kernel=kernel, floor=self.floor)  # fmt: skip
            good, bad = self._verify(sel)
            _refuse_drift(bad, required_paths, drifted)
            if not bad:
                break
            drifted.update(bad)
        excluded = [
            {"path": p, "reason": o.reason, "detail": o.detail, "io_error": o.io_error}
            for p, o in sorted(drifted.items())
        ]
        return sel, good, excluded

    def _read_block(self, choice: Choice, text: LineText) -> Block:
        """A chosen excerpt from the file as read from disk, with the file's credentials to redact."""
        cand = choice.candidate
        repeats = file_repeats(cand.path, cand.file_sha256, text)
        return self._block(cand, choice.start_line, choice.end_line, text, choice.truncated, repeats)

    def compile(self, max_tokens: int | None = None, max_nodes: int | None = None) -> Packet:
        ceiling = self.query.max_tokens if max_tokens is None else max_tokens
        nodes = self.query.max_nodes if max_nodes is None else max_nodes
        sel, texts, drift_excluded = self._select_verified(ceiling, nodes)
        chosen = list(sel.chosen)
        n_required = len(required_blocks(self.required))
        while True:
            blocks = [self._read_block(c, texts[c.candidate.path]) for c in chosen]
            nonce, prompt, count = self._render(blocks)
            if count <= ceiling or len(chosen) <= n_required:
                break
            dropped = chosen.pop()
            sel.excluded.extend(choice_records(dropped, REASON_EXACT_OVERFLOW))
            sel.omitted += dropped.nodes
        if count > ceiling:
            raise RequestError(
                f"required evidence renders to {count} {self.query.basis}, above {ceiling}",
                field="max_tokens",
            )
        return self._packet(sel, chosen, blocks, nonce, prompt, count, drift_excluded, ceiling, nodes)

    def _packet(
        self,
        sel: Selection,
        chosen: list[Choice],
        blocks: list[Block],
        nonce: str,
        prompt: str,
        count: int,
        drift_excluded: list[dict[str, Any]],
        ceiling: int,
        nodes: int,
    ) -> Packet:
        evidence = [
            Evidence(
                path=c.candidate.path,
                start_line=c.start_line,
                end_line=c.end_line,
                sha256=c.candidate.file_sha256,
                authority=c.candidate.authority,
                sensitivity=c.candidate.sensitivity,
                node_id=c.candidate.node_id,
                qualname=c.candidate.qualname,
                reason=c.candidate.reason,
                cost=c.cost,
                truncated_from=(c.candidate.start_line, c.candidate.end_line) if c.truncated else None,
                joined=tuple(
                    JoinedNode(j.node_id, j.qualname, j.start_line, j.end_line, j.reason) for j in c.joined
                ),
            )
            for c in chosen
        ]
        trace = {
            "ranking": self.ranked.trace,
            "traversal": self.traversal,
            "selected": [c.to_dict() for c in chosen],
            "header_cost": self.header_cost,
            "ceilings": {"max_tokens": ceiling, "max_nodes": nodes},
        }
        return Packet(
            query=replace(self.query, max_tokens=ceiling, max_nodes=nodes),
            format=self.format,
            nonce=nonce,
            prompt=prompt,
            prompt_tokens=TokenCount(count, self.query.basis),
            blake3=digest(prompt),
            evidence=evidence,
            evidence_texts=[b.text for b in blocks],
            excluded=[*drift_excluded, *sel.excluded],
            omitted=sel.omitted,
            trace=trace,
        )
