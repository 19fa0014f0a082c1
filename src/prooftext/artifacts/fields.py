"""Field types shared by the artifact models: ids, digests, portable paths, timestamps and enumerations (the
authority, freshness and sensitivity labels are the corpus's own types, :mod:`prooftext.corpus.model`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from prooftext.artifacts.limits import (
    MAX_DETAIL_CHARS,
    MAX_LABEL_CHARS,
    MAX_NAME_CHARS,
    MAX_PATH_CHARS,
    MAX_TEXT_CHARS,
    SCHEMA_VERSION,
)
from prooftext.canonical import MAX_SAFE_INTEGER

ID_PATTERN = r"^[0-9A-F]{64}$"
SHA256_PATTERN = r"^[0-9a-f]{64}$"
GIT_OBJECT_PATTERN = r"^[0-9a-f]{40}(?:[0-9a-f]{24})?$"
PATH_PATTERN = r"^(?!/)(?!.*//)(?!(?:.*/)?\.\.?(?:/|$))(?!.*/$)[ -\[\]-~]+$"
"""A portable ASCII POSIX relative path: printable ASCII without backslash, no empty, ``.`` or ``..``
component, no leading or trailing slash. An absolute root can never match it."""
TIMESTAMP_PATTERN = (
    r"^[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]Z$"
)
"""UTC instants as ``YYYY-MM-DDTHH:MM:SSZ``: one spelling each, so string order is time order."""
TOKEN_PATTERN = r"^[a-z][a-z0-9_-]*$"

ArtifactId = Annotated[str, Field(pattern=ID_PATTERN)]
Sha256 = Annotated[str, Field(pattern=SHA256_PATTERN)]
GitObject = Annotated[str, Field(pattern=GIT_OBJECT_PATTERN)]
PortablePath = Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS, pattern=PATH_PATTERN)]
Timestamp = Annotated[str, Field(pattern=TIMESTAMP_PATTERN)]
Count = Annotated[int, Field(ge=0, le=MAX_SAFE_INTEGER)]
PositiveCount = Annotated[int, Field(ge=1, le=MAX_SAFE_INTEGER)]
LineRange = Annotated[list[Count], Field(min_length=2, max_length=2)]
NodeText = Annotated[str, Field(max_length=MAX_TEXT_CHARS)]
Name = Annotated[str, Field(max_length=MAX_NAME_CHARS)]
Label = Annotated[str, Field(max_length=MAX_LABEL_CHARS)]
Detail = Annotated[str, Field(max_length=MAX_DETAIL_CHARS)]
ReasonCode = Annotated[str, Field(min_length=1, max_length=MAX_LABEL_CHARS, pattern=TOKEN_PATTERN)]

Clearance = Literal["public", "repository-private", "owner-private"]
"""What a query may read: never ``secret-or-prohibited``, which no active artifact carries."""
RootScope = Literal["repository", "owner"]
SourceKind = Literal["code", "doc", "config", "data", "text"]
NodeKind = Literal["file", "section", "symbol", "chunk"]
EdgeType = Literal["contains", "imports", "references", "links", "contradicts"]
ProvenanceType = Literal["scan", "owner-record", "record", "tool-observation", "generated"]
Phase = Literal["required", "traversal", "identifier", "lexical"]
SelectReason = Literal["required", "traversal", "identifier", "lexical", "contradiction"]
Decision = Literal["none", "must", "approval", "security", "disclosure", "data-loss"]
Unit = Literal["canonical_utf8_bytes"]


class Strict(BaseModel):
    """Immutable, closed, coercion-free: what the artifact says is exactly what was written."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, regex_engine="python-re")


class CandidateModel(Strict):
    """CandidateIdentity: git HEAD (when a work tree), repository digest, canonical specification digest."""

    git_head: GitObject | None
    repository_sha256: Sha256
    source_spec_sha256: Sha256


class Envelope(Strict):
    schema_version: Literal["1.0"]
    artifact_id: ArtifactId


def artifact_head(artifact_type: str, candidate: CandidateModel, **parent_ids: str) -> dict[str, Any]:
    """What every artifact body begins with: the schema version, its type, the ids of the artifacts it
    derives from (``graph_id=...``) and the candidate they describe."""
    return {
        "schema_version": SCHEMA_VERSION,
        "artifact_type": artifact_type,
        **parent_ids,
        "candidate": candidate.model_dump(mode="json"),
    }
