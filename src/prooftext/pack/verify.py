"""Re-checking a saved packet: its shape, its digest, and every excerpt against the source it quotes.

A packet is first checked against the packet schema that ``context.verify`` publishes for its ``packet``
parameter; one whose shape does not conform (a missing field, a wrong type, another version) raises
:class:`~prooftext.errors.ArtifactError` naming the first failing place, whichever interface (command
line, Python API, JSON-RPC) handed it over. A digest's form and a line number's lower bound are left to
the checks, which report them as a failed verification.

The result is a bitmask, as the ``verify`` command's exit status: 1 digest mismatch (the prompt is not what
the packet says, an excerpt differs from its source, an excerpt's authority or sensitivity is not what
the root's configuration gives its path, or the packet's nonce is not the one the renderer derives from its
query and excerpts), 2 missing or stale source, 4 I/O error.

The nonce is never taken from the packet: the renderer derives it from the content and rejects any value
that occurs in the query or an excerpt, so that no text can close its own block. A packet whose query holds
its nonce could forge an evidence block that re-renders byte for byte; verify derives the nonce again
(:func:`~prooftext.pack.render.derive_nonce`) and reports kind ``nonce`` when it differs, and when the
sources cannot all be read it still reports a nonce that occurs in the query.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prooftext.corpus.config import CorpusConfig, load_config
from prooftext.corpus.labels import labels_for
from prooftext.errors import ArtifactError
from prooftext.pack.render import Block, derive_nonce, digest, render
from prooftext.pack.sources import REASON_MISSING, observe
from prooftext.tokens import get_counter

BIT_DIGEST = 1
BIT_SOURCE = 2
BIT_IO = 4

PACKET_SCHEMA = "rpc-context.verify.params.schema.json"
PACKET_RULES = "#/properties/packet/else"
"""Where that schema states what a lone packet must be (the published packet and the fields verify reads)."""
CHECKED_BY_VERIFICATION = ("pattern", "minimum")
"""Schema keywords left to the checks below, which report them as a failed verification, not a refusal: a
digest of the wrong form cannot match its source, a line number below 1 is ``range_invalid``."""
_REFERENCED_SCHEMAS = (PACKET_SCHEMA, "adaptive-context-v1.schema.json")
_MESSAGE_CHARS = 200


@dataclass
class VerifyReport:
    status: int = 0
    problems: list[dict[str, Any]] = field(default_factory=list)
    checked: int = 0

    @property
    def ok(self) -> bool:
        return self.status == 0

    def add(self, bit: int, **problem: Any) -> None:
        self.status |= bit
        self.problems.append(problem)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "status": self.status, "checked": self.checked, "problems": self.problems}


@functools.cache
def _packet_validator() -> Any:
    # Imported here: jsonschema costs a tenth of a second, which `pack` and `import prooftext` should not pay.
    from jsonschema.validators import extend

    from prooftext.schema_registry import StrictValidator, load_schema, registry_of

    def checked_later(*args: Any) -> Iterator[Any]:
        yield from ()

    strict = extend(StrictValidator, validators=dict.fromkeys(CHECKED_BY_VERIFICATION, checked_later))
    packet_rules = {"$ref": load_schema(PACKET_SCHEMA)["$id"] + PACKET_RULES}
    return strict(packet_rules, registry=registry_of(_REFERENCED_SCHEMAS))


def check_packet(packet: object) -> dict[str, Any]:
    """The packet, when it conforms to the packet schema; else :class:`ArtifactError` naming the first
    failing place (errors ordered by place, so the same packet always names the same one)."""
    if not isinstance(packet, dict):
        raise ArtifactError("a packet must be a JSON object", field="packet")
    errors = sorted(_packet_validator().iter_errors(packet), key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        from prooftext.schema_registry import innermost  # loaded with the validator above

        error = innermost(errors[0])
        place = [str(p) for p in error.absolute_path]
        if error.validator == "required" and isinstance(error.instance, dict):
            place += [name for name in error.validator_value if name not in error.instance][:1]
        raise ArtifactError(
            f"packet does not match its schema at /{'/'.join(place)}: {error.message[:_MESSAGE_CHARS]}",
            field=".".join(["packet", *place]),
            schema=PACKET_SCHEMA,
        )
    return packet


def _label_mismatch(item: dict[str, Any], config: CorpusConfig) -> str | None:
    """Why an excerpt's labels are not the ones the indexer gives its path now, or None when they are."""
    expected = labels_for(item["path"], config)
    if (item["authority"], item["sensitivity"]) == (expected.authority, expected.sensitivity):
        return None
    return (
        f"the packet claims authority {item['authority']!r}, sensitivity {item['sensitivity']!r};"
        f" the root's configuration gives this path authority {expected.authority!r},"
        f" sensitivity {expected.sensitivity!r}"
    )


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
    claimed = packet["prompt_tokens"]
    if get_counter(claimed["basis"]).count(prompt) != claimed["count"]:
        report.add(
            BIT_DIGEST, kind="token_count", detail="the prompt's exact token count differs from the packet's"
        )
    blocks: list[Block] = []
    for item in packet["evidence"]:
        path, (start, end), sha = item["path"], item["lines"], item["sha256"]
        seen = observe(root, path, sha, [(start, end)])
        report.checked += 1
        if seen.text is None:
            bit = BIT_IO if seen.io_error else BIT_SOURCE
            report.add(bit, kind=seen.reason or REASON_MISSING, path=path, detail=seen.detail)
            continue
        mismatch = _label_mismatch(item, config)
        if mismatch is not None:
            report.add(BIT_DIGEST, kind="labels", path=path, detail=mismatch)
        truncated = item.get("truncated_from")
        blocks.append(
            Block(
                path,
                start,
                end,
                sha,
                item["authority"],
                item["sensitivity"],
                seen.text.slice(start, end),
                tuple(truncated) if truncated else None,
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
