"""SWE-bench harness end to end on the synthetic two-commit repository, every metric checked by hand.

Tokens are counted in bytes here, so the full and bm25 arms' prompt sizes are plain string lengths of the
documented whole-file format. demo-1 (commit 1) asks about ``frobnicate_widget`` (only pkg/alpha.py defines
it; gold lines 2-3). demo-2 (commit 2) asks about ``quux_gadget`` (pkg/beta.py, gold lines 5-6) but its gold
also holds pkg/gamma.py line 1, which shares no word with the issue. demo-3 names a commit that does not exist.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from prooftext.adaptive.ladder import MAX_RUNGS, rungs, validate_ladder
from prooftext.eval.common import RunOptions
from prooftext.eval.declare import Declaration
from prooftext.eval.lexical import file_block, file_prompt
from prooftext.eval.swe_run import run_swebench
from prooftext.eval.swebench import SweConfig, load_tasks, plan_shards

from .conftest import SweFixture
from .evaldata import ALPHA, BETA_1, BETA_2, GAMMA, MISSING_COMMIT, NOTES, QUERY_1, QUERY_2, README, task

BUDGET = 4000
DECLARED = Declaration("gold_file_recall", 0.6, 0.4, "flags")


@pytest.fixture(scope="module")
def run(swe_fixture: SweFixture, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("swe-out")
    config = SweConfig(work_dir=Path("."), budget=BUDGET, tokenizer="bytes")
    summary = run_swebench(swe_fixture.tasks, swe_fixture.repo_map, config, DECLARED, RunOptions(out_dir=out))
    rows = {r["instance_id"]: r for r in map(json.loads, (out / "tasks.jsonl").read_text().splitlines())}
    return {"summary": summary, "rows": rows, "out": out}


def _full_size(query: str, files: dict[str, str]) -> int:
    blocks = "".join(file_block(p, t) for p, t in sorted(files.items()))
    return len(file_prompt(query, [])) + len(blocks)


def test_full_arm_is_the_whole_permitted_corpus(run: dict[str, Any]) -> None:
    one, two = run["rows"]["demo-1"]["arms"]["full"], run["rows"]["demo-2"]["arms"]["full"]
    files_1 = {"README.md": README, "docs/notes.txt": NOTES, "pkg/alpha.py": ALPHA, "pkg/beta.py": BETA_1}
    files_2 = {"README.md": README, "pkg/alpha.py": ALPHA, "pkg/beta.py": BETA_2, "pkg/gamma.py": GAMMA}
    assert one["prompt_tokens"] == _full_size(QUERY_1, files_1) and one["files"] == 4
    assert two["prompt_tokens"] == _full_size(QUERY_2, files_2)
    assert one["fits_budget"] and one["gold_line_recall"] == 1.0 and one["gold_file_recall"] == 1.0


def test_bm25_arm_ranks_and_packs_whole_code_files(run: dict[str, Any]) -> None:
    one, two = run["rows"]["demo-1"]["arms"]["bm25"], run["rows"]["demo-2"]["arms"]["bm25"]
    assert one["top_files"] == ["pkg/alpha.py"]
    assert one["acc"] == {"1": True, "3": True, "5": True, "10": True}
    assert one["prompt_tokens"] == len(file_prompt(QUERY_1, [file_block("pkg/alpha.py", ALPHA)]))
    assert (one["gold_file_recall"], one["gold_line_recall"], one["all_gold_files"]) == (1.0, 1.0, True)
    assert two["gold_ranks"] == {"pkg/beta.py": 1, "pkg/gamma.py": None}
    assert two["acc"] == {"1": False, "3": False, "5": False, "10": False}
    assert two["gold_file_recall"] == 0.5
    assert two["gold_line_recall"] == pytest.approx(2 / 3)  # beta 5-6 of beta 5-6 + gamma 1
    # Its per-task index is timed apart, in wall-clock and CPU time alike, not in the packing's figures.
    assert {"index_ms", "index_cpu_ms", "latency_ms", "cpu_ms"} <= one.keys()


def test_prooftext_arms_localize_and_pack_the_named_function(run: dict[str, Any]) -> None:
    for arm in ("fixed", "adaptive"):
        one, two = run["rows"]["demo-1"]["arms"][arm], run["rows"]["demo-2"]["arms"][arm]
        assert one["ok"] and one["top_files"][0] == "pkg/alpha.py" and one["acc"]["1"]
        assert (one["gold_file_recall"], one["gold_line_recall"]) == (1.0, 1.0)
        assert 0 < one["prompt_tokens"] <= BUDGET
        assert two["gold_ranks"]["pkg/beta.py"] == 1
        assert two["gold_file_recall"] == 0.5 and two["gold_line_recall"] == pytest.approx(2 / 3)
    adaptive = run["rows"]["demo-1"]["arms"]["adaptive"]
    assert adaptive["stop_reason"] in {"estimated_sufficient", "candidate_exhausted", "hard_limit_reached"}
    assert 1 <= adaptive["selected_round"] <= adaptive["rounds"]


def test_a_missing_commit_fails_every_arm_and_counts_as_a_miss(run: dict[str, Any]) -> None:
    row = run["rows"]["demo-3"]
    assert all(not a["ok"] and a["error"]["code"] == "not_found" for a in row["arms"].values())
    arms = run["summary"]["arms"]
    assert all(arms[a]["failures"] == 1 and arms[a]["tasks"] == 3 for a in arms)
    assert arms["bm25"]["acc@1"] == pytest.approx(1 / 3)  # demo-1 only; demo-2 lacks gamma; demo-3 failed
    assert arms["bm25"]["gold_file_recall"] == pytest.approx((1.0 + 0.5 + 0.0) / 3)
    assert arms["bm25"]["gold_line_recall"] == pytest.approx((1.0 + 2 / 3 + 0.0) / 3)
    assert arms["bm25"]["mrr_all_gold"] == pytest.approx(1 / 3)
    assert arms["full"]["fits_budget"] == 1.0 and arms["full"]["gold_file_recall"] == pytest.approx(2 / 3)


def test_a_missing_commit_says_it_is_not_in_the_git_directory_of_its_repo_map_entry(
    run: dict[str, Any], swe_fixture: SweFixture
) -> None:
    error = run["rows"]["demo-3"]["index"]["error"]
    assert error["code"] == "not_found"
    assert error["message"] == (
        f"commit {MISSING_COMMIT} is not in the git directory {swe_fixture.git_dir.resolve()}"
        " (repo map entry demo/demo)"
    )
    assert run["summary"]["arms"]["fixed"]["failure_codes"] == {"not_found": 1}


def test_refresh_is_incremental_from_commit_to_commit(run: dict[str, Any]) -> None:
    first, second = run["rows"]["demo-1"]["index"], run["rows"]["demo-2"]["index"]
    assert first["files_indexed"] == 4
    assert (second["files_indexed"], second["files_removed"], second["files_unchanged"]) == (2, 1, 2)
    index = run["summary"]["index"]["demo/demo"]
    assert (index["tasks"], index["refreshes"], index["errors"], index["files_indexed_total"]) == (3, 2, 1, 6)


def test_the_run_declares_first_and_reports_after(run: dict[str, Any], swe_fixture: SweFixture) -> None:
    out: Path = run["out"]
    declared = json.loads((out / "declaration.json").read_text())
    digest = hashlib.sha256(swe_fixture.tasks.read_bytes()).hexdigest()
    assert declared["datasets"]["tasks"]["sha256"] == digest
    assert declared["declaration"] == {
        "metric": "gold_file_recall",
        "threshold": 0.6,
        "permitted_regression": 0.4,
        "source": "flags",
    }
    assert declared["tokenizer"] == "bytes" and declared["arms"]["bm25"]["k1"] == 0.9
    assert declared["code"]["prooftext"]
    verdict = run["summary"]["verdict"]
    assert set(verdict) == {"bm25", "fixed", "adaptive"}
    assert verdict["bm25"]["value"] == pytest.approx(0.5) and not verdict["bm25"]["passes"]
    html = (out / "report.html").read_text()
    assert html.count("data:image/png;base64,") >= 3 and "61.7" in html and "84.7" in html
    assert 'src="http' not in html and "<script" not in html
    assert json.loads((out / "summary.json").read_text())["tasks"] == 3


def test_shards_are_contiguous_in_commit_time(swe_fixture: SweFixture) -> None:
    tasks = load_tasks(swe_fixture.tasks)
    one = plan_shards(tasks, {"demo/demo": swe_fixture.git_dir}, workers=1)
    assert [t.instance_id for t in one[0].tasks] == ["demo-3", "demo-1", "demo-2"]
    two = plan_shards(tasks, {"demo/demo": swe_fixture.git_dir}, workers=2)
    assert [[t.instance_id for t in s.tasks] for s in two] == [["demo-3", "demo-1"], ["demo-2"]]


def _absent_gold_row(fixture: SweFixture, tmp_path: Path, arms: tuple[str, ...]) -> dict[str, Any]:
    """The row of a task whose gold holds pkg/alpha.py lines 2-3 and pkg/absent.py (in no commit) lines 1-4."""
    gold = [("pkg/alpha.py", [[2, 3]]), ("pkg/absent.py", [[1, 4]])]
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps(task("demo-x", fixture.commit_1, QUERY_1, gold)) + "\n", encoding="utf-8")
    config = SweConfig(work_dir=Path("."), arms=arms, budget=BUDGET, tokenizer="bytes")
    out = tmp_path / "out"
    summary = run_swebench(tasks, fixture.repo_map, config, DECLARED, RunOptions(out_dir=out))
    assert summary["tasks_with_gold_not_indexed"] == 1
    row: dict[str, Any] = json.loads((out / "tasks.jsonl").read_text())
    return row


def test_full_context_misses_a_gold_file_the_corpus_lacks(swe_fixture: SweFixture, tmp_path: Path) -> None:
    row = _absent_gold_row(swe_fixture, tmp_path, ("full", "bm25"))
    full = row["arms"]["full"]
    assert row["gold_not_indexed"] == ["pkg/absent.py"]
    assert (full["gold_file_recall"], full["all_gold_files"]) == (0.5, False)
    assert full["gold_line_recall"] == pytest.approx(2 / 6)  # alpha 2-3 of alpha 2-3 + absent 1-4


@pytest.mark.parametrize("arms", [("fixed",), ("adaptive",), ("full",)])
def test_a_gold_file_the_corpus_lacks_is_named_whichever_arms_run(
    swe_fixture: SweFixture, tmp_path: Path, arms: tuple[str, ...]
) -> None:
    assert _absent_gold_row(swe_fixture, tmp_path, arms)["gold_not_indexed"] == ["pkg/absent.py"]


def _rows_of(
    fixture: SweFixture, tmp_path: Path, tasks: list[dict[str, Any]]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The summary and the rows by instance id of a run of ``tasks`` on the fixture's repository."""
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in tasks), encoding="utf-8")
    config = SweConfig(work_dir=Path("."), arms=("full", "bm25"), budget=BUDGET, tokenizer="bytes")
    out = tmp_path / "out"
    summary = run_swebench(path, fixture.repo_map, config, DECLARED, RunOptions(out_dir=out))
    rows = {r["instance_id"]: r for r in map(json.loads, (out / "tasks.jsonl").read_text().splitlines())}
    return summary, rows


def test_a_gold_range_past_the_end_of_its_file_at_the_base_commit_fails_the_task_naming_it(
    swe_fixture: SweFixture, tmp_path: Path
) -> None:
    past = [("pkg/beta.py", [[1, 2]]), ("pkg/alpha.py", [[1, 1], [3, 9]])]  # alpha.py has 4 lines
    summary, rows = _rows_of(
        swe_fixture,
        tmp_path,
        [
            task("demo-1", swe_fixture.commit_1, QUERY_1, [("pkg/alpha.py", [[1, 4]])]),
            task("demo-past", swe_fixture.commit_1, QUERY_1, past),
        ],
    )
    assert all(a["ok"] for a in rows["demo-1"]["arms"].values())  # a range ending on the last line holds
    errors = [a["error"] for a in rows["demo-past"]["arms"].values() if not a["ok"]]
    assert len(errors) == 2 and all(e == errors[0] for e in errors)
    assert errors[0]["code"] == "artifact_invalid"
    assert errors[0]["message"] == (
        "task demo-past: gold lines 3-9 of pkg/alpha.py are past the end of the file, which has 4 lines at"
        f" base_commit {swe_fixture.commit_1}"
    )
    assert errors[0]["details"] == {
        "instance_id": "demo-past",
        "file": "pkg/alpha.py",
        "line_range": [3, 9],
        "lines": 4,
        "field": "fix_files[1].base_line_ranges[1]",
    }
    assert "error" not in rows["demo-past"]["index"]  # the tree was built; the gold does not fit it
    assert summary["tasks"] == 2 and summary["failed_tasks"] == 1
    assert summary["arms"]["bm25"]["failure_codes"] == {"artifact_invalid": 1}


def test_the_adaptive_arm_widens_its_steps_to_climb_a_large_budget_within_the_rung_bound() -> None:
    for budget in (8_000, 2_000_000):
        ladder = validate_ladder(SweConfig(work_dir=Path("."), budget=budget).adaptive_ladder())
        assert ladder.max_tokens == budget
        assert len(rungs(ladder, kernel_tokens=0)) <= MAX_RUNGS
    assert SweConfig(work_dir=Path("."), budget=8_000).adaptive_ladder().token_step == 2_000
