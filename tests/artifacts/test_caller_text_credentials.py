"""Text a caller writes into an artifact (a query's text, a host proposal's claims) never carries a credential."""

from __future__ import annotations

import json
from typing import Any

from gates import fixture
from gates.context import Run, node_of
from prooftext.artifacts import lifecycle as lc
from prooftext.artifacts.query import byte_query
from prooftext.corpus.secrets import REDACTED_PREFIX
from prooftext.errors import ProoftextError

from .helpers import code_of, rewrite

KEY_ID = "AKIA" + "QWERTYUIOPASDFGH"  # an access-key-id shape, built at test time (never a literal secret)


def test_a_credential_in_the_query_text_is_redacted_in_the_query_and_its_selection(run: Run) -> None:
    lc.run_query(run.out("graph"), byte_query(f"budget checks {KEY_ID}"), run.out("q"))
    lc.run_select(run.out("graph"), run.out("q"), run.out("s"))
    for name in ("q", "s"):
        data = run.out(name).read_text(encoding="ascii")
        assert KEY_ID not in data and REDACTED_PREFIX in data


def test_a_hand_written_query_holding_a_credential_is_refused(run: Run) -> None:
    def leak(value: dict[str, Any]) -> None:
        value["text"] = f"budget {KEY_ID}"

    query = rewrite(run, "query", "q-leak", leak)
    assert code_of(lambda: lc.run_validate(query)) == "sensitivity_violation"
    assert code_of(lambda: lc.run_select(run.out("graph"), query, run.out("s"))) == "sensitivity_violation"
    assert not run.out("s").exists()


def _propose(run: Run, text: str) -> None:
    claims = run.repo / ".prooftext" / "claims.json"
    claims.write_text(json.dumps([{"text": text, "links": [node_of(run, fixture.DECISION)]}]), "utf-8")
    lc.run_propose(run.out("snapshot"), claims, run.out("proposal"))


def test_a_credential_in_a_claim_is_redacted_in_the_proposal_and_the_compaction(run: Run) -> None:
    run.snapshot()
    _propose(run, f"The deploy key is {KEY_ID}.")
    lc.run_compact(run.out("snapshot"), run.repo, run.owner, run.out("compaction"), run.out("proposal"))
    for name in ("proposal", "compaction"):
        data = run.out(name).read_text(encoding="ascii")
        assert KEY_ID not in data and REDACTED_PREFIX in data


def test_a_hand_written_proposal_holding_a_credential_is_refused(run: Run) -> None:
    run.snapshot()
    _propose(run, "The deploy key is in the vault.")

    def leak(value: dict[str, Any]) -> None:
        value["claims"][0]["text"] = f"The deploy key is {KEY_ID}."

    proposal = rewrite(run, "proposal", "p-leak", leak)
    assert code_of(lambda: lc.run_validate(proposal)) == "sensitivity_violation"
    compact = lambda: lc.run_compact(run.out("snapshot"), run.repo, run.owner, run.out("c"), proposal)  # noqa: E731
    assert code_of(compact) == "sensitivity_violation"
    assert not run.out("c").exists()


def test_a_claims_file_over_its_ceiling_is_refused_before_it_is_parsed(run: Run) -> None:
    run.snapshot()
    claims = run.repo / ".prooftext" / "claims.json"
    claims.write_bytes(b"[" + b" " * lc.MAX_CLAIMS_FILE_BYTES + b"]")
    error = code_and_message(lambda: lc.run_propose(run.out("snapshot"), claims, run.out("proposal")))
    assert error == ("limit_exceeded", True)
    assert not run.out("proposal").exists()


def code_and_message(action: Any) -> tuple[str, bool]:
    try:
        action()
    except ProoftextError as exc:
        return exc.code, "claims file" in exc.message and str(lc.MAX_CLAIMS_FILE_BYTES) in exc.message
    raise AssertionError("no error")
