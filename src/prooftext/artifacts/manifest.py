"""``context manifest``: a Manifest from a scan of the repository root, plus explicit owner records.

Repository sources come from :func:`prooftext.corpus.scan` and :func:`prooftext.corpus.build_manifest`;
paths that are not portable ASCII are moved to the exclusions (reason ``path_not_portable``). The declared
specification is the one ``canonical-specification`` source and is always required; ``required`` names more
repository paths that must be adopted. ``--specification`` names it only for a root that declares no
``[scan] specification``; another file than the declared one is ``authority_invalid``. Owner records are read
strictly through the explicit owner root and enter as ``owner-approved``, ``owner-private``, self-linked
``owner-record`` sources.

Every exclusion keeps its reason and names its path redacted (:func:`gov.redacted_record`): the walk and a
failed read record the raw path (only a path the reader adopts is checked for credentials), so a symlink,
FIFO, oversized, unreadable or ignored file under a name that spells a credential would otherwise carry it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import prooftext.artifacts.governance as gov
import prooftext.canonical as canonical
from prooftext.artifacts.fields import PATH_PATTERN
from prooftext.artifacts.observe import REASON_HARD_LINK, Roots, read_strict
from prooftext.corpus.config import CorpusConfig, load_config
from prooftext.corpus.kinds import kind_for
from prooftext.corpus.lines import count_lines
from prooftext.corpus.manifest import build_manifest
from prooftext.corpus.model import REASON_PATH
from prooftext.corpus.scan import ScanResult, scan
from prooftext.errors import ConfigError, RequestError, SourceMissingError

PROVENANCE_OWNER_RECORD = "owner-record"
FIRST_LINE = 1
SPEC_KEY = "scan.specification"
_PORTABLE = re.compile(PATH_PATTERN)


def _portable(entries: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    kept, moved = [], []
    for entry in entries:
        path = entry["locator"]["path"]
        if entry.get("hardlinked"):  # sources are read unlinked (see observe); say so at adoption time
            moved.append(
                {"path": path, "reason": REASON_HARD_LINK, "detail": "the file has other hard links"}
            )
        elif _PORTABLE.match(path):
            kept.append(entry)
        else:
            moved.append({"path": path, "reason": REASON_PATH, "detail": "not a portable ASCII path"})
    return kept, moved


def _redacted(entry: dict[str, Any]) -> dict[str, Any]:
    path, detail = gov.redacted_record(entry["path"], entry["detail"])
    return {**entry, "path": path, "detail": detail}


def _option_path(path: str) -> str:
    """A repository path as given on the command line: a leading ``./`` (as a shell completes it) is dropped."""
    return path.removeprefix("./")


def _specification(requested: str | None, declared: str | None) -> str:
    if requested is not None:
        requested = _option_path(requested)
        if not _PORTABLE.match(requested):
            raise RequestError(
                "--specification must be a portable relative path under the root (ASCII, '/' separators,"
                " no '.' or '..' components)",
                field="specification",
            )
    spec = requested or declared
    if spec is None:
        raise ConfigError(
            "a manifest needs the canonical specification: pass --specification or set [scan] specification",
            key=SPEC_KEY,
        )
    gov.check_declared_specification(declared, spec)
    return spec


def _scan(roots: Roots, config: CorpusConfig, spec: str, requested: str | None) -> ScanResult:
    """The scan with ``spec`` as its specification; a specification the caller named that the scan does not
    adopt is that option's fault, not the configuration's."""
    try:
        return scan(roots.repository, replace(config, specification=spec))
    except ConfigError as exc:
        if requested is None or exc.details.get("key") != SPEC_KEY:
            raise
        raise SourceMissingError(
            f"--specification {spec} is not an indexed source of the root (missing, ignored or excluded:"
            " `prooftext index --excluded` says why)",
            path=spec,
        ) from None


def _mark_required(sources: list[dict[str, Any]], required: set[str], spec: str) -> None:
    paths = {s["locator"]["path"] for s in sources}
    for path in sorted(required - paths):
        raise SourceMissingError(f"required path {path} is not an adopted source", path=path)
    for source in sources:
        if source["locator"]["path"] in required | {spec}:
            source["required"] = True


def owner_source(roots: Roots, path: str) -> dict[str, Any]:
    """An owner record read strictly through the owner root (never under a name that spells a credential)."""
    gov.check_path_secrets(gov.SCOPE_OWNER, path)
    data = read_strict(roots.root_for(gov.SCOPE_OWNER, path), path)
    digest = canonical.sha256_hex(data)
    return {
        "locator": {
            "root_scope": gov.SCOPE_OWNER,
            "path": path,
            "sha256": digest,
            "line_range": [FIRST_LINE, count_lines(data)],
        },
        "kind": kind_for(path),
        "authority": gov.OWNER_APPROVED,
        "freshness": gov.CANDIDATE_BOUND,
        "sensitivity": gov.OWNER_PRIVATE,
        "provenance": [
            {
                "type": PROVENANCE_OWNER_RECORD,
                "root_scope": gov.SCOPE_OWNER,
                "locator_path": path,
                "sha256": digest,
            }
        ],
        "bytes": len(data),
    }


def _path_list(paths: object, field: str) -> list[str]:
    """A list of paths; a lone string is refused rather than read as its letters."""
    if isinstance(paths, (str, bytes)) or not isinstance(paths, (list, tuple)):
        raise RequestError(f"{field} must be a list of paths", field=field)
    if not all(isinstance(path, str) for path in paths):
        raise RequestError(f"{field} entries must be strings", field=field)
    return [_option_path(path) for path in paths]


def build_context_manifest(
    roots: Roots, specification: str | None, required: list[str], owner_paths: list[str]
) -> dict[str, Any]:
    """The Manifest of the repository root (and owner records), with its artifact id."""
    required, owner_paths = _path_list(required, "required"), _path_list(owner_paths, "owner_sources")
    config = load_config(roots.repository)
    spec = _specification(specification, config.specification)
    if owner_paths and roots.owner is None:
        raise RequestError("--owner-source needs --owner-root", field="owner_source")
    result = _scan(roots, config, spec, specification)
    base = build_manifest(result.sources, result.excluded, result.candidate)
    sources, moved = _portable(base["sources"])
    _mark_required(sources, set(required), spec)
    sources += [owner_source(roots, path) for path in sorted(set(owner_paths))]
    roots.check_owner_used()
    sources.sort(key=lambda s: (s["locator"]["root_scope"], s["locator"]["path"]))
    redacted = [_redacted(entry) for entry in base["excluded"] + moved]
    excluded = sorted(redacted, key=lambda e: (e["path"], e["reason"], e["detail"]))
    body = {**base, "sources": sources, "excluded": excluded}
    return canonical.with_artifact_id(body)
