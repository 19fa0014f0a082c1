"""Host summary proposals: a host's (model's) summary of a Snapshot, always ``untrusted-proposal``.

Each claim links to selected nodes by the exact digest of their extract text. A proposal is evidence to
check, never authority: a claim that bears on a Must, approval, security, disclosure or data-loss decision
must also link at least one extract that is not untrusted.
"""

from __future__ import annotations

from typing import Any

from prooftext import canonical
from prooftext.artifacts.governance import UNTRUSTED_PROPOSAL
from prooftext.artifacts.limits import SCHEMA_VERSION
from prooftext.artifacts.models import Snapshot
from prooftext.errors import NotFoundError, RequestError

ARTIFACT_TYPE = "host-summary-proposal"
DECISION_NONE = "none"


def _link(snapshot_digests: dict[str, str], link: Any, where: str) -> dict[str, Any]:
    if isinstance(link, str):
        digest = snapshot_digests.get(link)
        if digest is None:
            raise NotFoundError(
                f"{where}: node {link[:16]}... is not an extract of the snapshot", field="links"
            )
        return {"node_id": link, "text_sha256": digest}
    if isinstance(link, dict):
        return {"node_id": link.get("node_id"), "text_sha256": link.get("text_sha256")}
    raise RequestError(f"{where}: a link is a node id or an object", field="links")


def _claim(snapshot_digests: dict[str, str], claim: Any, index: int) -> dict[str, Any]:
    where = f"claims[{index}]"
    if not isinstance(claim, dict) or not isinstance(claim.get("links"), list):
        raise RequestError(f"{where} must be an object with text, decision and links", field="claims")
    return {
        "text": claim.get("text"),
        "decision": claim.get("decision", DECISION_NONE),
        "links": [_link(snapshot_digests, link, where) for link in claim["links"]],
    }


def build_proposal(snapshot: Snapshot, claims: list[Any]) -> dict[str, Any]:
    """A proposal artifact for ``snapshot``; links may be node ids (digests are filled in) or objects."""
    digests = {e.node_id: e.text_sha256 for e in snapshot.extracts}
    body = {
        "schema_version": SCHEMA_VERSION,
        "artifact_type": ARTIFACT_TYPE,
        "snapshot_id": snapshot.artifact_id,
        "candidate": snapshot.candidate.model_dump(mode="json"),
        "authority": UNTRUSTED_PROPOSAL,
        "sensitivity": snapshot.sensitivity,
        "claims": [_claim(digests, claim, index) for index, claim in enumerate(claims)],
    }
    return canonical.with_artifact_id(body)
