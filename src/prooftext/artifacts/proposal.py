"""Host summary proposals: a host's (model's) summary of a Snapshot, always ``untrusted-proposal``.

Each claim links to selected nodes by the exact digest of their extract text: a link to a node that is not
an extract of the Snapshot, a wrong digest, or an unknown field in a claim or link is refused. A proposal is evidence to
check, never authority: a claim that bears on a Must, approval, security, disclosure or data-loss decision
must also link at least one extract that is not untrusted. A credential in a claim's text is redacted.
"""

from __future__ import annotations

from typing import Any

import prooftext.canonical as canonical
from prooftext.artifacts.fields import artifact_head
from prooftext.artifacts.governance import UNTRUSTED_PROPOSAL
from prooftext.artifacts.models import Snapshot
from prooftext.corpus.secrets import redact_text
from prooftext.errors import NotFoundError, RequestError

ARTIFACT_TYPE = "host-summary-proposal"
DECISION_NONE = "none"


CLAIM_FIELDS = frozenset({"text", "decision", "links"})
LINK_FIELDS = frozenset({"node_id", "text_sha256"})
"""The only fields a claim and an object link may carry: anything else is refused, never dropped."""


def _unknown(value: dict[str, Any], allowed: frozenset[str], where: str) -> None:
    extra = sorted(str(key) for key in value if key not in allowed)
    if extra:
        raise RequestError(f"{where}: unknown field {extra[0][:40]!r}", field=where)


def _link(snapshot_digests: dict[str, str], link: Any, where: str) -> dict[str, Any]:
    """A link as a node id (its digest is filled in) or a ``{node_id, text_sha256}`` object; either way the
    node must be an extract of the snapshot and the digest its exact text digest."""
    node_id: object
    digest: object
    if isinstance(link, str):
        node_id, digest = link, snapshot_digests.get(link)
    elif isinstance(link, dict):
        _unknown(link, LINK_FIELDS, f"{where}.links")
        node_id, digest = link.get("node_id"), link.get("text_sha256")
    else:
        raise RequestError(f"{where}: a link is a node id or an object", field="links")
    known = snapshot_digests.get(node_id) if isinstance(node_id, str) else None
    if not isinstance(node_id, str) or known is None:
        raise NotFoundError(
            f"{where}: node {str(node_id)[:16]}... is not an extract of the snapshot", field="links"
        )
    if digest != known:
        raise RequestError(
            f"{where}: link {node_id[:16]}... does not carry its extract's text digest", field="links"
        )
    return {"node_id": node_id, "text_sha256": digest}


def _claim(snapshot_digests: dict[str, str], claim: Any, index: int) -> dict[str, Any]:
    where = f"claims[{index}]"
    if not isinstance(claim, dict) or not isinstance(claim.get("links"), list):
        raise RequestError(f"{where} must be an object with text, decision and links", field="claims")
    _unknown(claim, CLAIM_FIELDS, where)
    text = claim.get("text")
    return {
        "text": redact_text(text) if isinstance(text, str) else text,
        "decision": claim.get("decision", DECISION_NONE),
        "links": [_link(snapshot_digests, link, where) for link in claim["links"]],
    }


def build_proposal(snapshot: Snapshot, claims: list[Any]) -> dict[str, Any]:
    """A proposal artifact for ``snapshot``; links may be node ids (digests are filled in) or objects."""
    digests = {e.node_id: e.text_sha256 for e in snapshot.extracts}
    body = {
        **artifact_head(ARTIFACT_TYPE, snapshot.candidate, snapshot_id=snapshot.artifact_id),
        "authority": UNTRUSTED_PROPOSAL,
        "sensitivity": snapshot.sensitivity,
        "claims": [_claim(digests, claim, index) for index, claim in enumerate(claims)],
    }
    return canonical.with_artifact_id(body)
