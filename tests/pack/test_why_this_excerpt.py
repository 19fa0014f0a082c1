"""Why this excerpt? A packet's trace explains every excerpt it quotes and every candidate it leaves out, and
an adaptive result's record of its selected round states the numbers of the packet it carries."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import prooftext
from helpers import write_tree
from prooftext.cli import main

QUESTION = "separability matrix of a compound model"
LEFT_OUT_FOR_ROOM_OR_RANK = {"over_budget", "node_ceiling", "over_budget_exact", "below_rank_cutoff"}
"""The reasons ``omitted`` counts: what a larger packet could still quote (a tree without contradictions)."""
REASONS = LEFT_OUT_FOR_ROOM_OR_RANK | {"covered", "head_left_out", "over_clearance", "duplicate_content"}


def _module(name: str) -> str:
    body = "".join(f"    step_{i} = matrix.separability(model, {i})\n" for i in range(12))
    return (
        f'"""The {name} part of a compound model."""\n\nimport math\n\n\n'
        f"def {name}_matrix(model, matrix):\n{body}    return step_0\n\n\n"
        f"def {name}_helper(model):\n    return model.compound\n"
    )


@pytest.fixture
def repo(sample_repo: Path) -> Path:
    """The sample repository with more files than a small packet quotes."""
    return write_tree(sample_repo, {f"parts/{n}.py": _module(n) for n in ("left", "right", "inner", "outer")})


def _packet(root: Path, fmt: str = "markdown", max_tokens: int = 600) -> dict[str, Any]:
    with prooftext.open(root) as index:
        return index.pack(prooftext.Query(QUESTION, max_tokens=max_tokens), format=fmt).to_dict()


def _adaptive(root: Path, **ladder: Any) -> dict[str, Any]:
    fields = {"min_tokens": 300, "token_step": 300, "max_tokens": 1500, **ladder}
    with prooftext.open(root) as index:
        return index.adaptive_pack(QUESTION, ladder=prooftext.Ladder(**fields)).to_dict()


def _packets(root: Path) -> list[dict[str, Any]]:
    plain = [_packet(root, fmt) for fmt in ("markdown", "xml", "json")]
    return [*plain, _adaptive(root)["packet"], _adaptive(root, allow_truncated=True)["packet"]]


def _ids(packet: dict[str, Any]) -> tuple[set[str], set[str]]:
    """The node ids the packet quotes (its excerpts' and those they joined) and those it left out."""
    quoted = {e["node_id"] for e in packet["evidence"]} | {
        j["node_id"] for e in packet["evidence"] for j in e["joined"]
    }
    return quoted, {str(x["node_id"]) for x in packet["excluded"] if "node_id" in x}


def test_every_excerpt_is_explained_by_its_own_trace_entry_in_order(repo: Path) -> None:
    for packet in _packets(repo):
        selected = packet["trace"]["selected"]
        assert packet["evidence"] and len(selected) == len(packet["evidence"])
        for excerpt, why in zip(packet["evidence"], selected, strict=True):
            for name in (
                "path",
                "lines",
                "node_id",
                "qualname",
                "reason",
                "cost",
                "authority",
                "sensitivity",
            ):
                assert why[name] == excerpt[name], name
            assert why["joined"] == [j["node_id"] for j in excerpt["joined"]]
            assert why["truncated"] == (excerpt["truncated_from"] is not None)
            assert {"phase", "priority", "components"} <= set(why)
            assert all(isinstance(v, int) and not isinstance(v, bool) for v in why["components"].values())


def test_every_ranked_candidate_is_quoted_or_left_out_with_a_reason_never_both(repo: Path) -> None:
    with prooftext.open(repo) as index:
        ranked = {hit["node_id"] for hit in index.search(QUESTION, limit=1000)}
    for packet in _packets(repo):
        quoted, left_out = _ids(packet)
        assert ranked <= quoted | left_out and not quoted & left_out
        assert left_out, "a small packet leaves candidates out"
        assert {x["reason"] for x in packet["excluded"]} <= REASONS


def test_omitted_counts_the_candidates_left_out_for_room_or_rank(repo: Path) -> None:
    for packet in _packets(repo):
        counted = [x for x in packet["excluded"] if x["reason"] in LEFT_OUT_FOR_ROOM_OR_RANK]
        assert packet["omitted"] == len(counted) > 0


@pytest.mark.parametrize(
    "ladder",
    [{}, {"allow_truncated": True}, {"min_coverage_bps": 10_000, "strong_share_bps": 0}, {"max_tokens": 300}],
)
def test_the_selected_rounds_record_states_the_numbers_of_the_packet_it_selected(
    repo: Path, ladder: dict[str, Any]
) -> None:
    data = _adaptive(repo, **ladder)
    packet = data["packet"]
    record = data["rounds"][data["selected_round"] - 1]
    ceilings = {"max_tokens": record["token_ceiling"], "max_nodes": record["node_ceiling"]}
    assert packet["trace"]["ceilings"] == ceilings
    assert {k: packet["query"][k] for k in ceilings} == ceilings
    assert data["attempted_ceilings"][data["selected_round"] - 1] == list(ceilings.values())
    assert record["blake3"] == packet["blake3"] == data["digests"][data["selected_round"] - 1]
    assert record["prompt_tokens"] == packet["prompt_tokens"]
    assert record["evidence_count"] == len(packet["evidence"]) == record["estimate"]["evidence_count"]
    assert record["evidence_paths"] == sorted({e["path"] for e in packet["evidence"]})
    assert record["omitted"] == packet["omitted"]
    truncated = sum(e["truncated_from"] is not None for e in packet["evidence"])
    assert record["truncated_evidence_count"] == truncated == record["estimate"]["truncated_evidence_count"]
    assert data["estimated_sufficient"] == record["estimate"]["estimated_sufficient"]
    assert data["kernel_tokens"] == packet["trace"]["header_cost"]  # nothing required: the header alone
    new = {i for r in data["rounds"] for i in r["new_evidence"]}
    assert _ids(packet)[0] <= new


def _summary(err: str, prefix: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith(prefix)]
    assert len(lines) == 1, err
    return lines[0]


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[str, str]:
    assert main(list(argv)) == 0
    out, err = capsys.readouterr()
    return out, err


def test_the_text_summary_of_pack_states_the_numbers_of_its_json_packet(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ("pack", QUESTION, "--root", str(repo), "--max-tokens", "600")
    prompt, err = _cli(capsys, *argv)
    packet = json.loads(_cli(capsys, *argv, "--json")[0])
    assert prompt == packet["prompt"]
    match = re.fullmatch(
        r"packet: (\d+) excerpts?(?: quoting (\d+) nodes)?, (\d+) (\S+), (\d+) omitted, blake3 ([0-9a-f]{16})",
        _summary(err, "packet: "),
    )
    assert match is not None
    excerpts, nodes, count, basis, omitted, digest = match.groups()
    assert int(excerpts) == len(packet["evidence"])
    assert int(nodes or excerpts) == len(_ids(packet)[0])
    assert (int(count), basis) == (packet["prompt_tokens"]["count"], packet["prompt_tokens"]["basis"])
    assert int(omitted) == packet["omitted"] and packet["blake3"].startswith(digest)


def test_the_text_summary_of_adaptive_pack_states_the_numbers_of_its_json_result(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ("adaptive-pack", QUESTION, "--root", str(repo), "--min-tokens", "300", "--token-step", "300")
    prompt, err = _cli(capsys, *argv, "--max-tokens", "1500")
    data = json.loads(_cli(capsys, *argv, "--max-tokens", "1500", "--json")[0])
    assert prompt == data["packet"]["prompt"]
    match = re.fullmatch(
        r"adaptive: (\d+) rounds?, stop (\w+), selected round (\d+), (\d+) (\S+), (\d+) excerpts?"
        r"(?: quoting (\d+) nodes)?",
        _summary(err, "adaptive: "),
    )
    assert match is not None
    rounds, stop, selected, count, basis, excerpts, nodes = match.groups()
    assert (int(rounds), stop, int(selected)) == (
        len(data["rounds"]),
        data["stop_reason"],
        data["selected_round"],
    )
    tokens = data["packet"]["prompt_tokens"]
    assert (int(count), basis) == (tokens["count"], tokens["basis"])
    assert int(excerpts) == len(data["packet"]["evidence"])
    assert int(nodes or excerpts) == len(_ids(data["packet"])[0])


def _cut(packet: prooftext.Packet) -> int:
    return sum(1 for x in packet.excluded if x["reason"] == "below_rank_cutoff")


def test_the_rank_cutoff_keeps_the_best_max_200_ceiling_over_40_and_an_adaptive_ceiling_is_the_ladders(
    tmp_path: Path,
) -> None:
    """As "Why this excerpt?" says: a packet considers the best ``max(200, ceiling / 40)`` candidates, and
    every rung of a ladder considers as many as its hard maximum allows."""
    lines = "".join(f"def gauge_{j}(x):\n    return x.gauge + {j}\n\n\n" for j in range(10))
    root = write_tree(tmp_path / "many", {f"m{i:02d}.py": lines for i in range(30)})
    with prooftext.open(root) as index:
        ranked = len(index.search("gauge reading", limit=1000))
        assert ranked > 200
        assert _cut(index.pack(prooftext.Query("gauge reading", max_tokens=2000))) == ranked - 200
        wide = prooftext.Ladder(min_tokens=2000, token_step=7000, max_tokens=40 * ranked)
        rounds = index.adaptive_pack("gauge reading", ladder=wide).rounds
        assert rounds[0].token_ceiling == 2000 and {_cut(r.packet) for r in rounds} == {0}
        narrow = prooftext.Ladder(min_tokens=2000, token_step=2000, max_tokens=4000)
        assert {_cut(r.packet) for r in index.adaptive_pack("gauge reading", ladder=narrow).rounds} == {
            ranked - 200
        }
