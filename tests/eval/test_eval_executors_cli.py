"""Executors (process pool, Dask LocalCluster) give the same rows as a serial run; the CLI adapters work."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

import prooftext.cli.eval  # noqa: F401  (registers the `eval` commands on the app)
from prooftext.cli import main
from prooftext.eval.common import RunOptions
from prooftext.eval.declare import Declaration
from prooftext.eval.executor import run_units
from prooftext.eval.swe_run import run_swebench
from prooftext.eval.swebench import ShardRunner, SweConfig, load_tasks, plan_shards

from .conftest import SweFixture

DECLARED = Declaration("gold_file_recall", 0.6, 0.4)
ARMS = ("bm25", "fixed")


def _key_metrics(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out = {}
    for row in rows:
        for arm, values in row["arms"].items():
            out[(row["instance_id"], arm)] = (
                values["ok"],
                values.get("acc"),
                values.get("gold_file_recall"),
                values.get("gold_line_recall"),
                values.get("prompt_tokens"),
            )
    return out


@pytest.fixture(scope="module")
def serial(swe_fixture: SweFixture, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    config = SweConfig(work_dir=tmp_path_factory.mktemp("serial"), arms=ARMS, tokenizer="bytes")
    shards = plan_shards(load_tasks(swe_fixture.tasks), {"demo/demo": swe_fixture.git_dir}, 1)
    rows: list[dict[str, Any]] = []
    run_units(ShardRunner(config), shards, rows.append)
    return _key_metrics(rows)


def test_process_pool_gives_the_serial_rows(
    swe_fixture: SweFixture, serial: dict[str, Any], tmp_path: Path
) -> None:
    config = SweConfig(work_dir=tmp_path, arms=ARMS, tokenizer="bytes")
    shards = plan_shards(load_tasks(swe_fixture.tasks), {"demo/demo": swe_fixture.git_dir}, 2)
    rows: list[dict[str, Any]] = []
    run_units(ShardRunner(config), shards, rows.append, workers=2)
    assert len(shards) == 2 and _key_metrics(rows) == serial
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == ["demo+demo-0", "demo+demo-1"]


@pytest.mark.skipif(
    importlib.util.find_spec("distributed") is None,
    reason="the dask extra is not installed (pip install 'prooftext[dask]')",
)
def test_dask_local_cluster_gives_the_serial_rows(
    swe_fixture: SweFixture, serial: dict[str, Any], tmp_path: Path
) -> None:
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=1,
        threads_per_worker=1,
        processes=False,
        host="127.0.0.1",
        protocol="tcp://",
        dashboard_address=None,
    ) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tcp://127.0.0.1:")
        config = SweConfig(work_dir=Path("."), arms=ARMS, tokenizer="bytes")
        options = RunOptions(out_dir=tmp_path, executor="dask", scheduler=address)
        summary = run_swebench(swe_fixture.tasks, swe_fixture.repo_map, config, DECLARED, options)
    rows = [json.loads(line) for line in (tmp_path / "tasks.jsonl").read_text().splitlines()]
    assert summary["tasks"] == 3 and _key_metrics(rows) == serial


def test_cli_swebench_json_and_errors(
    swe_fixture: SweFixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["eval", "swebench", "--tasks", str(swe_fixture.tasks), "--repo-map", str(swe_fixture.repo_map)]
    status = main([*argv, "--arms", "bm25", "--tokenizer", "bytes", "--work", str(tmp_path), "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert status == 0 and summary["arms"]["bm25"]["acc@1"] == pytest.approx(1 / 3)
    assert main([*argv, "--arms", "bm25,magic", "--json"]) != 0
    assert json.loads(capsys.readouterr().out)["error"]["code"] == "invalid_request"
    assert main([*argv, "--executor", "dask", "--json"]) != 0
    assert json.loads(capsys.readouterr().out)["error"]["details"]["field"] == "scheduler"


def test_cli_depth_and_locomo(locomo_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clinc = tmp_path / "clinc.json"
    clinc.write_text(json.dumps({"test": [["thanks", "thank_you"], ["what time is it", "time"]]}))
    assert main(["eval", "depth", "--clinc", str(clinc), "--locomo", str(locomo_file), "--json"]) == 0
    depth = json.loads(capsys.readouterr().out)
    assert depth["clinc"]["surface_recall"] == 1.0 and depth["locomo"]["questions"] == 4
    argv = ["eval", "locomo", "--data", str(locomo_file), "--budgets", "256", "--arms", "last_n,oracle"]
    assert main([*argv, "--json"]) == 0
    locomo = json.loads(capsys.readouterr().out)
    assert (
        set(locomo["arms"]) == {"oracle", "last_n@256"} and locomo["arms"]["oracle"]["evidence_recall"] == 1.0
    )
    assert main(["eval", "depth", "--clinc", str(clinc)]) == 0
    assert "precision 100.0%" in capsys.readouterr().out
