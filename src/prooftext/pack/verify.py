"""Re-checking a saved packet: its digest, and every excerpt against the source it claims to quote.

The result is a bitmask, as the ``verify`` command's exit status: 1 digest mismatch (the prompt is not what
the packet says, or an excerpt differs from its source), 2 missing or stale source, 4 I/O error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prooftext.errors import ArtifactError
from prooftext.pack.render import Block, digest, render
from prooftext.pack.sources import REASON_MISSING, observe
from prooftext.tokens import get_counter

BIT_DIGEST = 1
BIT_SOURCE = 2
BIT_IO = 4


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


def _field(packet: dict[str, Any], name: str, kind: type) -> Any:
    value = packet.get(name)
    if not isinstance(value, kind):
        raise ArtifactError(f"packet field {name!r} is missing or not a {kind.__name__}", field=name)
    return value


def verify_packet(packet: dict[str, Any], root: Path) -> VerifyReport:
    """Check a packet dictionary (as ``pack --json`` writes it) against the files under ``root``."""
    report = VerifyReport()
    prompt = _field(packet, "prompt", str)
    if digest(prompt) != _field(packet, "blake3", str):
        report.add(BIT_DIGEST, kind="digest", detail="BLAKE3 of the prompt does not match")
    claimed = _field(packet, "prompt_tokens", dict)
    if get_counter(str(claimed.get("basis"))).count(prompt) != claimed.get("count"):
        report.add(
            BIT_DIGEST, kind="token_count", detail="the prompt's exact token count differs from the packet's"
        )
    blocks: list[Block] = []
    for item in _field(packet, "evidence", list):
        path, (start, end), sha = item["path"], item["lines"], item["sha256"]
        seen = observe(root, path, sha, [(start, end)])
        report.checked += 1
        if seen.text is None:
            bit = BIT_IO if seen.io_error else BIT_SOURCE
            report.add(bit, kind=seen.reason or REASON_MISSING, path=path, detail=seen.detail)
            continue
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
    if report.status & (BIT_SOURCE | BIT_IO) == 0:
        query = _field(packet, "query", dict).get("text", "")
        rebuilt = render(_field(packet, "format", str), query, blocks, _field(packet, "nonce", str))
        if rebuilt != prompt:
            report.add(BIT_DIGEST, kind="content", detail="the prompt's evidence differs from its sources")
    return report
