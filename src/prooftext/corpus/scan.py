"""The whole scan: walk, read every candidate safely, label, and bind the candidate identity.

Progress is reported only through the optional ``progress(done, total)`` callback, once per candidate read.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from prooftext.corpus.config import CorpusConfig, load_config
from prooftext.corpus.identity import candidate_identity
from prooftext.corpus.model import CandidateIdentity, Exclusion, SourceFile
from prooftext.corpus.read import read_source_at
from prooftext.corpus.safeio import open_root
from prooftext.corpus.walk import walk
from prooftext.errors import ConfigError

Progress = Callable[[int, int], None]


@dataclass
class ScanResult:
    root: Path
    config: CorpusConfig
    sources: list[SourceFile]
    excluded: list[Exclusion]
    candidate: CandidateIdentity


def specification_paths(specification: str) -> list[str]:
    """The paths whose exclusion leaves ``specification`` out: itself and each directory above it (an
    excluded directory is one exclusion; the walk does not descend into it)."""
    parts = specification.split("/")
    return ["/".join(parts[:end]) for end in range(1, len(parts) + 1)]


def _why(specification: str, exclusion: Exclusion) -> str:
    where = "" if exclusion.path == specification else f" via its directory {exclusion.path!r}"
    detail = f": {exclusion.detail}" if exclusion.detail else ""
    return f"{exclusion.reason}{where}{detail}"


def specification_refusal(specification: str, excluded: Iterable[Exclusion]) -> ConfigError:
    """The error of a declared specification that was not adopted, with each exclusion that left it out
    (reason, and the directory when a whole directory was excluded), or "not found".

    The specification is the one ``canonical-specification`` source every artifact requires, so a scan or
    refresh without it fails closed rather than going on as if none were declared."""
    covering = set(specification_paths(specification))
    reasons = sorted(_why(specification, e) for e in excluded if e.path in covering)
    why = f"excluded ({'; '.join(reasons)})" if reasons else "not found"
    return ConfigError(
        f"the declared specification {specification!r} is {why}; it must be an indexed source"
        " (or change [scan] specification)",
        key="scan.specification",
    )


def _spec_sha256(config: CorpusConfig, sources: list[SourceFile], excluded: list[Exclusion]) -> str | None:
    """Digest of the declared specification, which must be adopted: a missing one fails closed."""
    if config.specification is None:
        return None
    for source in sources:
        if source.path == config.specification:
            return source.sha256
    raise specification_refusal(config.specification, excluded)


def _read_all(
    root: Path, config: CorpusConfig, progress: Progress | None
) -> tuple[list[SourceFile], list[Exclusion]]:
    result = walk(root, config)
    sources: list[SourceFile] = []
    excluded = list(result.excluded)
    total = len(result.stats)
    root_fd = open_root(root)
    try:
        for done, stat in enumerate(result.stats, start=1):
            outcome = read_source_at(root_fd, stat, config)
            if isinstance(outcome, SourceFile):
                sources.append(outcome)
            else:
                excluded.append(outcome)
            if progress is not None:
                progress(done, total)
    finally:
        os.close(root_fd)
    excluded.sort(key=lambda e: (e.path, e.reason))
    return sources, excluded


def scan(
    root: Path | str, config: CorpusConfig | None = None, progress: Progress | None = None
) -> ScanResult:
    """Scan ``root`` (config from ``ROOT/prooftext.toml`` unless given): adopted sources and exclusions."""
    root_path = Path(root)
    if config is None:
        config = load_config(root_path)
    sources, excluded = _read_all(root_path, config, progress)
    spec = _spec_sha256(config, sources, excluded)
    candidate = candidate_identity(root_path, [(s.path, s.sha256) for s in sources], spec)
    return ScanResult(root_path, config, sources, excluded, candidate)


def excluded_reasons(excluded: list[Exclusion]) -> dict[str, int]:
    """How many exclusions per reason code, keys sorted."""
    counts = Counter(e.reason for e in excluded)
    return dict(sorted(counts.items()))
