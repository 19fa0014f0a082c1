"""Reading artifacts back: bounded, strict, canonical, schema- and model-checked, id recomputed.

``parse_artifact`` is side-effect free. It accepts only the exact canonical bytes of a closed, strictly typed
artifact whose ``artifact_id`` recomputes, and then runs the semantic checks of its type. That proves the
artifact is well formed and self-consistent, not that it is genuine: a rehashed or hand-edited artifact
cannot authenticate itself, which is why snapshot and compaction re-observe every source through roots.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

import prooftext.canonical as canonical
from prooftext.artifacts.fields import Envelope
from prooftext.artifacts.limits import ARTIFACT_MAX_BYTES, MAX_ARTIFACT_BYTES
from prooftext.artifacts.models import MODELS
from prooftext.artifacts.semantic import check_semantics
from prooftext.corpus.safeio import read_bounded
from prooftext.errors import (
    ArtifactError,
    ArtifactIdMismatchError,
    AuthorityError,
    LimitError,
    SchemaViolationError,
)
from prooftext.schema_registry import validate_against

M = TypeVar("M", bound=Envelope)

MAX_CACHED_MODELS = 32
MAX_CACHED_BYTES = 8 * 1024 * 1024

MAX_REPORTED_ERRORS = 5
PROPOSAL_TYPE = "host-summary-proposal"
UNTRUSTED_PROPOSAL = "untrusted-proposal"
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def schema_file(artifact_type: str) -> str:
    return f"context-{artifact_type}.schema.json"


def read_artifact_bytes(path: Path) -> bytes:
    """The bytes of an artifact file: a regular file, at most the largest artifact ceiling."""
    return read_bounded(path, MAX_ARTIFACT_BYTES, "artifact file")


def _envelope(data: bytes, expected: str | None) -> dict[str, Any]:
    value = canonical.load(data)
    if not isinstance(value, dict):
        raise SchemaViolationError("an artifact is a JSON object")
    kind = value.get("artifact_type")
    if kind not in MODELS:
        raise SchemaViolationError(f"unknown artifact_type {str(kind)[:40]!r}", field="artifact_type")
    if expected is not None and kind != expected:
        raise ArtifactError(f"expected a {expected} artifact, got a {kind}", expected=expected, found=kind)
    if len(data) > ARTIFACT_MAX_BYTES[kind]:
        raise LimitError(f"a {kind} artifact is at most {ARTIFACT_MAX_BYTES[kind]} bytes")
    if canonical.encode(value) != data:
        raise ArtifactError("the artifact is not in canonical JSON form", reason="not_canonical")
    return value


def _precheck(value: dict[str, Any]) -> None:
    """Governance checks that must win over a generic schema error: a proposal's authority label."""
    if value["artifact_type"] == PROPOSAL_TYPE and value.get("authority") != UNTRUSTED_PROPOSAL:
        raise AuthorityError(f"a host summary proposal is always {UNTRUSTED_PROPOSAL}", field="authority")


def _model(value: dict[str, Any]) -> Envelope:
    model_type = MODELS[value["artifact_type"]]
    try:
        model = model_type.model_validate(value)
    except ValidationError as exc:
        places = [f"/{'/'.join(str(p) for p in e['loc'])}: {e['msg'][:200]}" for e in exc.errors()]
        raise SchemaViolationError(
            f"{len(places)} model violation(s)", errors=places[:MAX_REPORTED_ERRORS]
        ) from None
    if model.model_dump(mode="json", exclude_unset=True) != value:
        raise SchemaViolationError("the artifact does not round-trip through its model")
    return model


def _check_value(value: dict[str, Any], with_schema: bool) -> Envelope:
    """Schema, model, round trip, id and semantic checks of a loaded artifact value."""
    _precheck(value)
    if with_schema:
        validate_against(schema_file(value["artifact_type"]), value)
    model = _model(value)
    recomputed = canonical.artifact_id(value)
    if recomputed != value["artifact_id"]:
        raise ArtifactIdMismatchError(
            "artifact_id does not match the canonical content",
            recorded=value["artifact_id"],
            recomputed=recomputed,
        )
    check_semantics(model)
    return model


class _Verified:
    """Models that passed every check, by SHA-256 of their exact canonical bytes (a bounded LRU).

    Every check is a pure function of those bytes, so equal bytes always get the same verdict; only
    successes are remembered, and only for artifacts small enough to keep.
    """

    def __init__(self) -> None:
        self._models: OrderedDict[tuple[str, bool], Envelope] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, bool]) -> Envelope | None:
        with self._lock:
            model = self._models.get(key)
            if model is not None:
                self._models.move_to_end(key)
            return model

    def put(self, key: tuple[str, bool], size: int, model: Envelope) -> None:
        if size > MAX_CACHED_BYTES:
            return
        with self._lock:
            self._models[key] = model
            while len(self._models) > MAX_CACHED_MODELS:
                self._models.popitem(last=False)


_VERIFIED = _Verified()


def parse_artifact(data: bytes, expected: str | None = None, *, with_schema: bool = True) -> Envelope:
    """Every check ``context validate`` runs, on the exact bytes of an artifact.

    ``with_schema=False`` skips only the JSON Schema pass, for inputs of lifecycle commands: the strict
    model enforces the same constraints (the shipped schema is generated from it, and a test keeps the two
    identical), and the semantic checks still run. Outputs are always checked against the schema.
    """
    value = _envelope(data, expected)
    key = (canonical.sha256_hex(data), with_schema)
    model = _VERIFIED.get(key) or (_VERIFIED.get((key[0], True)) if not with_schema else None)
    if model is None:
        model = _check_value(value, with_schema)
        _VERIFIED.put(key, len(data), model)
    return model


def parse_value(value: dict[str, Any]) -> Envelope:
    """:func:`parse_artifact` of an in-memory artifact value (its canonical bytes)."""
    return parse_artifact(canonical.encode(value))


def artifact_type_of(model_type: type[Envelope]) -> str:
    return next(kind for kind, known in MODELS.items() if known is model_type)


def load_artifact(path: Path, model_type: type[M]) -> M:
    """Read and check an input artifact file of one type (model, ids and semantics)."""
    model = parse_artifact(read_artifact_bytes(path), artifact_type_of(model_type), with_schema=False)
    if not isinstance(model, model_type):  # parse_artifact dispatches on the checked artifact_type
        raise ArtifactError(f"expected a {artifact_type_of(model_type)} artifact")
    return model


def encode_artifact(artifact: dict[str, Any]) -> bytes:
    """Canonical bytes of a freshly built artifact, after every check a reader will run."""
    data = canonical.encode(artifact)
    parse_artifact(data, artifact.get("artifact_type"))
    return data


def dump(model: Envelope) -> dict[str, Any]:
    """The artifact value of a parsed model (exactly what was read)."""
    value: dict[str, Any] = model.model_dump(mode="json", exclude_unset=True)
    return value
