"""Re-checking a saved packet: its shape, its digest, and every excerpt against the source it quotes.

A packet is first checked against the packet schema that ``context.verify`` publishes for its ``packet``
parameter; one whose shape does not conform (a missing field, a wrong type, another version) raises
:class:`~prooftext.errors.ArtifactError` naming the first failing place, whichever interface (command
line, Python API, JSON-RPC) handed it over. A digest's form and a line number's lower bound are left to
the checks, which report them as a failed verification.

The result is a bitmask, as the ``verify`` command's exit status: 1 digest mismatch (the prompt is not what
the packet says, an excerpt differs from its source, an excerpt's authority or sensitivity is not what
the root's configuration gives its path, the packet's nonce is not the one the renderer derives from its
query and excerpts, or the packet breaks a limit its own query declares), 2 missing or stale source, 4 I/O
error; with a signing key (see :mod:`prooftext.pack.signing`), 8 unsigned (the value carries no signature)
and 16 forged (a signature that does not match the value under this key, kind ``signature``, or one made
with another key, kind ``key_mismatch``). Without a key a signature is not checked, and the report says so.
A problem about one excerpt names its ``path`` and its ``lines`` (the packet's 1-based inclusive range).

An adaptive result is checked whole: its top-level members must be the ones its schema names (as a lone
packet's must), and its signature covers all of it; its selected packet is then verified as a packet.

The limits a packet's ``query`` declares are checked against the packet itself, since a tampered query
re-renders byte for byte (the prompt holds only the query's text): the prompt is recounted in the basis
the query declares (``bytes`` when its unit is bytes, else its tokenizer), and ``prompt_tokens`` must
name that basis (kind ``basis``) and that count (kind ``token_count``); the count must be within
``max_tokens`` and the quoted nodes (each excerpt and the nodes it ``joined``) within ``max_nodes`` (kind
``ceiling``, naming the ``field``); no excerpt may be shortened unless ``allow_truncated`` is true (kind
``truncation``); and no excerpt's sensitivity may be above ``clearance`` (kind ``clearance``). A query
field that is missing or not a known value is such a failure too: a packet that declares no limit cannot
show that it keeps one.

Not covered: what the prompt does not show and the files cannot answer. ``excluded``, ``omitted``,
``trace``, each excerpt's ``node_id``, ``qualname``, ``reason``, ``cost`` and ``joined`` entries, and the
query's ``max_edges``, ``max_depth``, ``required``, ``path_seeds`` and ``as_of`` are the compiler's
record, neither digested nor re-derived: a packet can be edited there and still verify.

The nonce is never taken from the packet: the renderer derives it from the content and rejects any value
that occurs in the query or an excerpt, so that no text can close its own block. A packet whose query holds
its nonce could forge an evidence block that re-renders byte for byte; verify derives the nonce again
(:func:`~prooftext.pack.render.derive_nonce`) and reports kind ``nonce`` when it differs, and when the
sources cannot all be read it still reports a nonce that occurs in the query.

A packet's paths are the packet author's claim, so verify reads only files that a scan of the root would
adopt. One walk of the root (:func:`~prooftext.corpus.walk.walk`, under the root's configuration) lists the
candidates, opening nothing but ``.gitignore`` files; a path it does not list (outside the root, through a
symlink, ignored or excluded, internal, not a regular file, over a size limit) is never opened. A listed
file goes through the scan's own reader first, and one it refuses (a credential in its path or its text
under the ``exclude`` policy, binary, not UTF-8) is never compared with the packet. Both are reported as
kind ``source_excluded`` (bit 2) with the scan's ``reason`` code, so verify cannot be used to digest, or to
compare text with, a file the index would never quote.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import prooftext.canonical as canonical
import prooftext.pack.repomap as repomap
import prooftext.pack.signing as signing
import prooftext.pack.sources as sources
from prooftext.corpus import secrets
from prooftext.corpus.config import CorpusConfig, load_config
from prooftext.corpus.labels import labels_for
from prooftext.corpus.lines import LineText
from prooftext.corpus.model import (
    REASON_CHANGED,
    REASON_SECRET,
    REASON_UNREADABLE,
    SENSITIVITIES,
    Exclusion,
    FileStat,
    SourceFile,
)
from prooftext.corpus.read import read_source_at
from prooftext.corpus.safeio import Refusal, display_name, open_root, read_bounded, split_portable
from prooftext.corpus.walk import walk
from prooftext.errors import ArtifactError, NotFoundError
from prooftext.pack.render import Block, derive_nonce, digest, render
from prooftext.pack.signing import SigningKey
from prooftext.pack.sources import file_repeats, observe
from prooftext.select.query import UNIT_BYTES, UNIT_TOKENS
from prooftext.tokens import BYTES_BASIS, TOKENIZERS, get_counter

BIT_DIGEST = 1
BIT_SOURCE = 2
BIT_IO = 4
BIT_UNSIGNED = 8
BIT_FORGED = 16
KIND_UNSIGNED = "unsigned"
KIND_SIGNATURE = "signature"
KIND_KEY_MISMATCH = "key_mismatch"

PACKET_SCHEMA = "rpc-context.verify.params.schema.json"
PACKET_RULES = "#/properties/packet/else/else"
"""Where that schema states what a lone packet must be (the published packet and the fields verify reads)."""
CHECKED_BY_VERIFICATION = ("pattern", "minimum")
"""Schema keywords left to the checks below, which report them as a failed verification, not a refusal: a
digest of the wrong form cannot match its source, a line number below 1 is ``range_invalid``."""
ADAPTIVE_SCHEMA_FILE = "adaptive-context-v1.schema.json"
_REFERENCED_SCHEMAS = (PACKET_SCHEMA, ADAPTIVE_SCHEMA_FILE)
_MESSAGE_CHARS = 200

KIND_EXCLUDED = "source_excluded"
"""An excerpt whose path a scan of the root would not adopt; the problem's ``reason`` is the scan's code."""
IO_REASONS = frozenset({REASON_UNREADABLE, REASON_CHANGED})
"""Scan refusals saying that a read failed, not that the file is no source: reported as I/O errors."""
NOT_LISTED = "no file a scan of the root would read"
KIND_BASIS = "basis"
KIND_CEILING = "ceiling"
KIND_CLEARANCE = "clearance"
KIND_TRUNCATION = "truncation"
PACKET = "packet"
MAP = "map"
DECLARES = {PACKET: "the packet's query declares", MAP: "the map's settings declare"}
"""Where each kind of artifact declares its limits, as its problems say it."""


@dataclass
class VerifyReport:
    status: int = 0
    problems: list[dict[str, Any]] = field(default_factory=list)
    checked: int = 0
    signature: str | None = None
    """How the value's signature checked out (:mod:`prooftext.pack.signing`): ``valid``, ``forged``,
    ``other_key``, ``unsigned`` or ``not_checked``; None for an unsigned value verified without a key."""
    artifact: str = PACKET
    """What is verified (:data:`PACKET` or :data:`MAP`), as its problems name it."""

    @property
    def declares(self) -> str:
        """Where the artifact declares its limits, as its problems say it (``the packet's query declares``)."""
        return DECLARES[self.artifact]

    @property
    def ok(self) -> bool:
        return self.status == 0

    def add(self, bit: int, **problem: Any) -> None:
        self.status |= bit
        self.problems.append(problem)

    def to_dict(self) -> dict[str, Any]:
        out = {"ok": self.ok, "status": self.status, "checked": self.checked, "problems": self.problems}
        if self.signature is not None:
            out["signature"] = self.signature
        return out


@functools.cache
def _lenient_validator() -> Any:
    """The strict validator class with the keywords that verification checks itself (naming what failed) off."""
    # Imported here: jsonschema costs a tenth of a second, which `pack` and `import prooftext` should not pay.
    from jsonschema.validators import extend

    from prooftext.schema_registry import StrictValidator

    def checked_later(*args: Any) -> Iterator[Any]:
        yield from ()

    return extend(StrictValidator, validators=dict.fromkeys(CHECKED_BY_VERIFICATION, checked_later))


@functools.cache
def _packet_validator() -> Any:
    from prooftext.schema_registry import load_schema, registry_of

    packet_rules = {"$ref": load_schema(PACKET_SCHEMA)["$id"] + PACKET_RULES}
    return _lenient_validator()(packet_rules, registry=registry_of(_REFERENCED_SCHEMAS))


def check_packet(packet: object) -> dict[str, Any]:
    """The packet, when it conforms to the packet schema; else :class:`ArtifactError` naming the first
    failing place (errors ordered by place, so the same packet always names the same one)."""
    if not isinstance(packet, dict):
        raise ArtifactError("a packet must be a JSON object", field="packet")
    _refuse_first_error(_packet_validator(), packet, "packet", PACKET_SCHEMA)
    return packet


def _refuse_first_error(validator: Any, value: object, what: str, schema: str) -> None:
    """:class:`ArtifactError` naming the first place where ``value`` fails ``validator`` (errors ordered by
    place, so the same value always names the same one); nothing when it conforms."""
    errors = sorted(validator.iter_errors(value), key=lambda e: [str(p) for p in e.absolute_path])
    if not errors:
        return
    from prooftext.schema_registry import innermost  # loaded with the validator

    error = innermost(errors[0])
    place = [str(p) for p in error.absolute_path]
    if error.validator == "required" and isinstance(error.instance, dict):
        place += [name for name in error.validator_value if name not in error.instance][:1]
    raise ArtifactError(
        f"{what} does not match its schema at /{'/'.join(place)}: {error.message[:_MESSAGE_CHARS]}",
        field=".".join([what, *place]),
        schema=schema,
    )


def _label_mismatch(item: dict[str, Any], config: CorpusConfig, artifact: str = PACKET) -> str | None:
    """Why an excerpt's labels are not the ones the indexer gives its path now, or None when they are."""
    expected = labels_for(item["path"], config)
    if (item["authority"], item["sensitivity"]) == (expected.authority, expected.sensitivity):
        return None
    return (
        f"the {artifact} claims authority {item['authority']!r}, sensitivity {item['sensitivity']!r};"
        f" the root's configuration gives this path authority {expected.authority!r},"
        f" sensitivity {expected.sensitivity!r}"
    )


ADAPTIVE_RESULT_SCHEMA = "prooftext.adaptive-context/v1"
"""The schema id of an adaptive result, which carries its selected packet under ``packet``."""
MAX_PACKET_FILE_BYTES = 64 * 1024 * 1024
"""A saved packet file is at most this large (64 MiB)."""


@functools.cache
def _adaptive_members() -> frozenset[str]:
    from prooftext.schema_registry import load_schema

    return frozenset(load_schema(ADAPTIVE_SCHEMA_FILE)["properties"])


def _check_adaptive_shape(value: dict[str, Any]) -> None:
    """An adaptive result's own members as its schema states them (a stop reason it names, its rounds'
    digests, its estimator); its selected packet is left to the packet's checks, which report a tampered
    excerpt as a failed verification rather than a refusal."""
    from prooftext.schema_registry import result_problems

    problems = [p for p in result_problems(ADAPTIVE_SCHEMA_FILE, value) if not p.startswith("/packet")]
    if problems:
        place = [part for part in problems[0].split(":", 1)[0].split("/") if part]
        raise ArtifactError(
            f"adaptive result does not match its schema: {problems[0][:_MESSAGE_CHARS]}",
            field=".".join([PACKET, *place])[:_MESSAGE_CHARS],
            schema=ADAPTIVE_RESULT_SCHEMA,
        )


def packet_of(value: object) -> dict[str, Any]:
    """The packet a saved value holds: the value itself, or an adaptive result's selected packet (a result
    with a top-level member its schema does not name is refused)."""
    if isinstance(value, dict) and value.get("schema") == ADAPTIVE_RESULT_SCHEMA:
        unknown = sorted(set(value) - _adaptive_members())
        if unknown:
            raise ArtifactError(
                f"adaptive result does not match its schema: unknown member {unknown[0][:80]!r}",
                field=f"packet.{unknown[0][:80]}",
                schema=ADAPTIVE_RESULT_SCHEMA,
            )
        _check_adaptive_shape(value)
        value = value.get("packet")
    if not isinstance(value, dict):
        raise ArtifactError("a packet must be a JSON object", field="packet")
    return value


def read_packet_file(path: Path | str) -> Any:
    """The value saved in ``path`` (by ``pack --json`` or ``adaptive-pack --json``): a regular file of at
    most :data:`MAX_PACKET_FILE_BYTES` holding strict JSON. A path that names no file (nor a link to one),
    the empty path included, raises :class:`~prooftext.errors.NotFoundError`, not the error of a malformed
    packet."""
    if not str(path):
        raise NotFoundError("packet path is empty: give a packet file", field="packet")
    return canonical.load(read_bounded(Path(path), MAX_PACKET_FILE_BYTES, "packet file"))


def verify_value(
    value: object, root: Path, config: CorpusConfig | None = None, key: SigningKey | None = None
) -> VerifyReport:
    """Verify a packet, an adaptive result (its selected packet) or a repository map, as saved JSON or as
    the object itself (whose ``to_dict()`` gives it, as :func:`~prooftext.pack.signing.sign` takes), and
    with ``key`` its signature too."""
    to_dict = None if isinstance(value, dict) else getattr(value, "to_dict", None)
    if callable(to_dict):
        value = to_dict()
    if isinstance(value, dict) and str(value.get("version")).startswith(MAP_VERSION_PREFIX):
        report = verify_map(value, root, config)
        _check_signature(report, value, key)
        return report
    packet = packet_of(value)
    report = verify_packet(packet, root, config)
    assert isinstance(value, dict)  # packet_of refused anything else
    _check_signature(report, value, key)
    return report


def _check_signature(report: VerifyReport, value: dict[str, Any], key: SigningKey | None) -> None:
    state = signing.signature_state(value, key)
    report.signature = None if key is None and state == signing.UNSIGNED else state
    if state == signing.UNSIGNED and key is not None:
        detail = f"a key was given, but the {report.artifact} is not signed"
        report.add(BIT_UNSIGNED, kind=KIND_UNSIGNED, detail=detail)
    elif state == signing.OTHER_KEY and key is not None:
        detail = f"signed by key {value[signing.SIGNATURE].get('key_id')!r}, not by this key {key.key_id!r}"
        report.add(BIT_FORGED, kind=KIND_KEY_MISMATCH, detail=detail)
    elif state == signing.FORGED:
        detail = (
            f"the signature does not match the {report.artifact} under this key: it was changed after signing"
        )
        report.add(BIT_FORGED, kind=KIND_SIGNATURE, detail=detail)


def verify_packet(packet: dict[str, Any], root: Path, config: CorpusConfig | None = None) -> VerifyReport:
    """Check a packet dictionary (as ``pack --json`` writes it) against the files under ``root``.

    Labels are derived again from ``config`` (by default the root's ``prooftext.toml``), never taken from
    the packet: a packet rewritten to claim more authority, or less sensitivity, fails with kind
    ``labels``."""
    check_packet(packet)
    config = config if config is not None else load_config(root)
    report = VerifyReport()
    prompt: str = packet["prompt"]
    if digest(prompt) != packet["blake3"]:
        report.add(BIT_DIGEST, kind="digest", detail="BLAKE3 of the prompt does not match")
    _check_declared_limits(report, packet)
    blocks: list[Block] = []
    admission = _Admission(root, config)
    for item in packet["evidence"]:
        path, (start, end), sha = item["path"], item["lines"], item["sha256"]
        seen = admission.check(path, sha, start, end)
        report.checked += 1
        if isinstance(seen, Unread):
            report.add(seen.bit, **seen.problem(), lines=[start, end])
            continue
        mismatch = _label_mismatch(item, config)
        if mismatch is not None:
            report.add(BIT_DIGEST, kind="labels", path=path, lines=[start, end], detail=mismatch)
        truncated = item.get("truncated_from")
        blocks.append(
            Block(
                path,
                start,
                end,
                sha,
                item["authority"],
                item["sensitivity"],
                seen.slice(start, end),
                tuple(truncated) if truncated else None,
                file_repeats(path, sha, seen),
            )
        )
    query = packet["query"].get("text", "")
    complete = report.status & (BIT_SOURCE | BIT_IO) == 0
    _check_nonce(report, packet["nonce"], query, blocks if complete else None)
    if complete:
        rebuilt = render(packet["format"], query, blocks, packet["nonce"])
        if rebuilt != prompt:
            report.add(BIT_DIGEST, kind="content", detail="the prompt's evidence differs from its sources")
    return report


def _check_declared_limits(report: VerifyReport, packet: dict[str, Any]) -> None:
    """The limits the packet's query declares, checked against the packet (see the module notes)."""
    query: dict[str, Any] = packet["query"]
    count = _check_count(report, packet["prompt"], packet["prompt_tokens"], query)
    if count is not None:
        _check_ceiling(report, query, "max_tokens", count)
    nodes = sum(1 + len(item.get("joined", ())) for item in packet["evidence"])
    _check_ceiling(report, query, "max_nodes", nodes)
    if query.get("allow_truncated") is not True:
        for item in packet["evidence"]:
            if item["truncated_from"] is not None:
                detail = "the excerpt is shortened, but the packet's query does not allow truncation"
                report.add(
                    BIT_DIGEST,
                    kind=KIND_TRUNCATION,
                    path=item["path"],
                    lines=list(item["lines"]),
                    detail=detail,
                )
    _check_clearance(report, query.get("clearance"), packet["evidence"])


def declared_basis(query: dict[str, Any]) -> str | None:
    """What the query's counts are in (as :attr:`~prooftext.select.query.Query.basis`), None if unknown."""
    unit, tokenizer = query.get("unit"), query.get("tokenizer")
    if unit == UNIT_BYTES:
        return BYTES_BASIS
    known = isinstance(tokenizer, str) and tokenizer in TOKENIZERS
    return tokenizer if unit == UNIT_TOKENS and known else None


def _check_count(
    report: VerifyReport, prompt: str, claimed: dict[str, Any], query: dict[str, Any]
) -> int | None:
    """The prompt's count in the basis its query declares (None when it declares none), after checking
    that ``prompt_tokens`` names that basis and that count."""
    basis = declared_basis(query)
    if basis is None:
        named = f"{query.get('unit')!r}, {query.get('tokenizer')!r}"
        detail = f"{report.declares} no known unit and tokenizer: {named}"
        report.add(BIT_DIGEST, kind=KIND_BASIS, detail=detail)
        return None
    count = get_counter(basis).count(prompt)
    if claimed["basis"] != basis:
        detail = f"prompt_tokens counts in {claimed['basis']!r}; {report.declares} {basis!r}"
        report.add(BIT_DIGEST, kind=KIND_BASIS, detail=detail)
    elif claimed["count"] != count:
        report.add(
            BIT_DIGEST, kind="token_count", detail="the prompt's exact token count differs from the packet's"
        )
    return count


def _check_ceiling(report: VerifyReport, query: dict[str, Any], name: str, used: int) -> None:
    ceiling = query.get(name)
    if isinstance(ceiling, bool) or not isinstance(ceiling, int):
        report.add(BIT_DIGEST, kind=KIND_CEILING, field=name, detail=f"{report.declares} no {name}")
    elif used > ceiling:
        detail = f"the {report.artifact} uses {used}, above the {name} {report.declares}, {ceiling}"
        report.add(BIT_DIGEST, kind=KIND_CEILING, field=name, detail=detail)


_LEVELS = {name: level for level, name in enumerate(SENSITIVITIES)}


def _check_clearance(report: VerifyReport, clearance: object, evidence: list[dict[str, Any]]) -> None:
    """Every excerpt's claimed sensitivity within the query's clearance (the labels check ties the claim
    to the root's configuration)."""
    if not isinstance(clearance, str) or clearance not in _LEVELS:
        detail = f"{report.declares} no known clearance: {clearance!r}"
        report.add(BIT_DIGEST, kind=KIND_CLEARANCE, detail=detail)
        return
    for item in evidence:
        # An unknown label ranks above every clearance, as the selector ranks it.
        if _LEVELS.get(item["sensitivity"], len(SENSITIVITIES)) > _LEVELS[clearance]:
            sensitivity = item["sensitivity"]
            detail = f"sensitivity {sensitivity!r} is above the {report.artifact}'s clearance {clearance!r}"
            report.add(
                BIT_DIGEST, kind=KIND_CLEARANCE, path=item["path"], lines=list(item["lines"]), detail=detail
            )


@dataclass(frozen=True)
class Unread:
    """An excerpt whose source was not read, or read and found unusable: the problem verify reports."""

    kind: str
    path: str
    detail: str
    bit: int = BIT_SOURCE
    reason: str | None = None
    """The scan's reason code, for kind ``source_excluded``."""

    def problem(self) -> dict[str, Any]:
        extra = {} if self.reason is None else {"reason": self.reason}
        return {"kind": self.kind, "path": self.path, "detail": self.detail, **extra}


class _Admission:
    """Which files a scan of ``root`` adopts; only those are read. The walk runs once, at the first
    excerpt, so a packet without evidence costs none."""

    def __init__(self, root: Path, config: CorpusConfig) -> None:
        self.root = root
        self.config = config

    @functools.cached_property
    def _walked(self) -> tuple[dict[str, FileStat], dict[str, Exclusion]]:
        result = walk(self.root, self.config)
        return {s.path: s for s in result.stats}, {e.path: e for e in result.excluded}

    def check(self, path: str, sha256: str, start: int, end: int) -> LineText | Unread:
        """The source's text, re-read and checked against the excerpt, or why it is not usable."""
        refused = self.refusal(path)
        if refused is not None:
            return refused
        seen = observe(self.root, path, sha256, [(start, end)])
        if seen.text is None:
            bit = BIT_IO if seen.io_error else BIT_SOURCE
            return Unread(seen.reason or sources.REASON_MISSING, path, seen.detail, bit)
        return seen.text

    def refusal(self, path: str) -> Unread | None:
        """None when the scan adopts ``path``; else why not. The file is read (by the scan's own reader, for
        the checks only its text can answer) only when its path spells no credential and the walk lists it."""
        in_path = secrets.path_findings(path)
        if in_path:  # the scan records such a path redacted: the credential is not echoed either
            shown = secrets.redact_path(path)
            return _excluded(shown, Exclusion(shown, REASON_SECRET, secrets.describe(in_path, in_path=True)))
        stats, _ = self._walked
        stat = stats.get(path)
        if stat is None:
            return self._unlisted(path)
        outcome = _read_candidate(self.root, stat, self.config)
        return _excluded(path, outcome) if isinstance(outcome, Exclusion) else None

    def _unlisted(self, path: str) -> Unread:
        """A path the walk did not list: excluded (itself or a directory above it), or no source at all."""
        try:
            parts = split_portable(path)
        except Refusal as refusal:  # a bad locator is a bad packet, not an I/O failure
            return Unread(sources.REASON_LOCATOR, path, f"{display_name(path)}: {refusal.detail}")
        _, excluded = self._walked
        for depth in range(len(parts), 0, -1):
            exclusion = excluded.get("/".join(parts[:depth]))
            if exclusion is not None:
                return _excluded(path, exclusion)
        return Unread(sources.REASON_MISSING, path, f"{path}: {NOT_LISTED}")


def _read_candidate(root: Path, stat: FileStat, config: CorpusConfig) -> SourceFile | Exclusion:
    """The scan's own reader on one walk entry: a ``SourceFile``, or the ``Exclusion`` it records."""
    root_fd = open_root(root)
    try:
        return read_source_at(root_fd, stat, config)
    finally:
        os.close(root_fd)


def _excluded(path: str, exclusion: Exclusion) -> Unread:
    """The scan's exclusion of ``path`` (or of a directory above it) as a problem: a failed read stays an
    I/O error, anything else means the file is no source."""
    why = f"{exclusion.reason}: {exclusion.detail}" if exclusion.detail else exclusion.reason
    if exclusion.reason in IO_REASONS:
        return Unread(sources.REASON_UNREADABLE, path, f"{path}: {why}", BIT_IO)
    above = "" if exclusion.path == path else f" (directory {exclusion.path})"
    detail = f"a scan of the root does not adopt it{above}: {why}"
    return Unread(KIND_EXCLUDED, path, detail, reason=exclusion.reason)


def _check_nonce(report: VerifyReport, nonce: str, query: str, blocks: list[Block] | None) -> None:
    """The packet's nonce must be the renderer's: derived from the query and every excerpt (``blocks``,
    None when some source could not be read) and occurring in none of their text."""
    if blocks is not None:
        if nonce != derive_nonce(query, blocks):
            report.add(
                BIT_DIGEST,
                kind="nonce",
                detail="the packet's nonce is not the one its query and excerpts derive",
            )
    elif nonce in query:
        report.add(BIT_DIGEST, kind="nonce", detail="the packet's nonce occurs in its query text")


# -- repository maps -------------------------------------------------------------------------------------------

MAP_SCHEMA = "rpc-context.map.result.schema.json"
MAP_VERSION_PREFIX = repomap.MAP_VERSION.rsplit("/", 1)[0] + "/"
"""A value whose version starts so is a map (of this version or another), checked as a map."""


@functools.cache
def _map_validator() -> Any:
    from prooftext.schema_registry import load_schema

    return _lenient_validator()(load_schema(MAP_SCHEMA))


def check_map(value: dict[str, Any]) -> dict[str, Any]:
    """The map, when it conforms to the map schema; else :class:`ArtifactError` naming the first failing
    place."""
    _refuse_first_error(_map_validator(), value, "map", MAP_SCHEMA)
    return value


def verify_map(value: dict[str, Any], root: Path, config: CorpusConfig | None = None) -> VerifyReport:
    """Check a repository map (as ``map --json`` writes it) against the files under ``root``, as a packet
    is checked: its digest, its exact count in the basis its settings declare and within their
    ``max_tokens``, every entry's file (admitted by a scan, its SHA-256, the entry's range and quoted line
    within it, its labels as the configuration gives them, its sensitivity within the clearance), the nonce
    the entries derive, and the prompt re-rendered from the files. The settings' query, paths and
    identifiers, each entry's kind, qualified name, node id and rank, ``omitted`` and ``trace`` are the
    builder's record, neither digested nor re-derived."""
    check_map(value)
    config = config if config is not None else load_config(root)
    report = VerifyReport(artifact=MAP)
    prompt: str = value["prompt"]
    if digest(prompt) != value["blake3"]:
        report.add(BIT_DIGEST, kind="digest", detail="BLAKE3 of the prompt does not match")
    settings: dict[str, Any] = value["settings"]
    query = {**settings, "text": settings["query"]}
    count = _check_count(report, prompt, value["prompt_tokens"], query)
    if count is not None:
        _check_ceiling(report, query, "max_tokens", count)
    _check_clearance(report, settings.get("clearance"), value["entries"])
    rebuilt = _MapRebuild(root, config, report)
    for item in value["entries"]:
        rebuilt.add(item)
    if rebuilt.complete:
        if value["nonce"] != repomap.map_nonce(rebuilt.entries, rebuilt.quoted):
            detail = "the map's nonce is not the one its entries derive"
            report.add(BIT_DIGEST, kind="nonce", detail=detail)
        if repomap.render_map(value["nonce"], rebuilt.lines) != prompt:
            report.add(BIT_DIGEST, kind="content", detail="the map's prompt differs from its sources")
    return report


class _MapRebuild:
    """A map's prompt rebuilt entry by entry from the files a scan admits, each file read once."""

    def __init__(self, root: Path, config: CorpusConfig, report: VerifyReport) -> None:
        self.config = config
        self.report = report
        self.admission = _Admission(root, config)
        self.entries: list[repomap.MapEntry] = []
        self.lines: list[str] = []
        self.quoted: list[str] = []
        self.read: dict[tuple[str, str], LineText | Unread] = {}
        self.complete = True
        self.current: tuple[str, str] | None = None

    def _source(self, item: dict[str, Any]) -> LineText | Unread:
        path, sha, lines = item["path"], item["sha256"], item["lines"]
        key = (path, sha)
        if key not in self.read:
            seen = self.read[key] = self.admission.check(path, sha, 1, 1)
            if isinstance(seen, Unread):
                self.report.add(seen.bit, **seen.problem(), lines=lines)
        seen = self.read[key]
        if not isinstance(seen, Unread):  # every entry claims its labels, a symbol's as its file's
            mismatch = _label_mismatch(item, self.config, MAP)
            if mismatch is not None:
                self.report.add(BIT_DIGEST, kind="labels", path=path, lines=lines, detail=mismatch)
        return seen

    def add(self, item: dict[str, Any]) -> None:
        path, (start, end), sha, line = item["path"], item["lines"], item["sha256"], item["line"]
        self.report.checked += 1
        structure = _map_structure(item, self.current)
        if structure is not None:
            self.report.add(BIT_DIGEST, kind="structure", path=path, lines=[start, end], detail=structure)
        if item["kind"] == repomap.KIND_FILE:
            self.current = (path, sha)
        seen = self._source(item)
        if isinstance(seen, Unread):
            self.complete = False
            return
        span = [start, end] if line is None else [start, line, end]
        if not sources.ranges_fit(seen, [(start, end)]) or span != sorted(span):
            detail = f"lines {start}-{end} (quoting {line}) outside 1-{seen.count}, or the quote outside them"
            self.report.add(
                BIT_SOURCE, kind=sources.REASON_RANGE, path=path, lines=[start, end], detail=detail
            )
            self.complete = False
            return
        entry = repomap.MapEntry(path, item["kind"], item["qualname"], start, end, line, item["depth"], sha,
                                 item["authority"], item["sensitivity"], item["node_id"], item["rank"])  # fmt: skip
        text = "" if line is None else repomap.quoted_line(seen, line, path, file_repeats(path, sha, seen))
        self.entries.append(entry)
        self.lines.append(repomap.entry_line(entry, text))
        if line is not None:
            self.quoted.append(text)


def _map_structure(item: dict[str, Any], current: tuple[str, str] | None) -> str | None:
    """Why an entry is out of place (a symbol must follow its file's entry, with that file's digest), or
    None."""
    if item["kind"] == repomap.KIND_FILE:
        if item["line"] is not None or item["depth"] != 0:
            return "a file entry quotes no line and sits at depth 0"
        return None
    if item["line"] is None or item["depth"] < 1:
        return "a symbol entry quotes a line and sits below its file"
    if current != (item["path"], item["sha256"]):
        return "a symbol entry must follow the entry of its file, with the same sha256"
    return None
