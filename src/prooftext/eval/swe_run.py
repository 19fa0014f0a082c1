"""``run_swebench``: declare, plan shards, execute, summarize, report."""

from __future__ import annotations

import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from prooftext.eval.common import Progress, RunOptions, collect_rows
from prooftext.eval.declare import Declaration, manifest
from prooftext.eval.model import SWE_INSTRUCTION, ModelSettings, model_plan
from prooftext.eval.model_summary import run_totals
from prooftext.eval.output import RunOutput
from prooftext.eval.summary import swebench_summary
from prooftext.eval.swe_findings import budget_verdict, declared_reference, task_losses
from prooftext.eval.swe_report import compact_losses, swebench_report
from prooftext.eval.swebench import (
    ShardRunner,
    SweConfig,
    load_repo_map,
    load_tasks,
    plan_shards,
    select_tasks,
)

DEFAULT_SWEBENCH_DECLARATION = Declaration("gold_file_recall", 0.6, 0.4)
SWEBENCH_METRICS = (
    "acc@1",
    "acc@3",
    "acc@5",
    "acc@10",
    "all_gold_files",
    "gold_file_recall",
    "gold_line_recall",
    "mrr_all_gold",
)
"""The per-arm scores a declaration may name (higher is better; costs and latencies are reported, not gated)."""
"""Default bar: packets touch at least 60% of gold files, at most 40 points below full context."""


def run_swebench(
    tasks_path: Path,
    repo_map_path: Path,
    config: SweConfig,
    declaration: Declaration,
    options: RunOptions,
    progress: Progress | None = None,
    *,
    repos: tuple[str, ...] = (),
    instances: tuple[str, ...] = (),
    model: ModelSettings | None = None,
) -> dict[str, Any]:
    """Evaluate the tasks of ``repos`` among ``instances`` (every task when both are empty), the first
    ``limit`` of them, and return the summary (also written under ``out_dir``)."""
    tasks = select_tasks(load_tasks(tasks_path), repos, instances)[: options.limit]
    repo_map = load_repo_map(repo_map_path)
    with tempfile.TemporaryDirectory(prefix="prooftext-eval-") as scratch:
        work = options.work_root(scratch)
        config = replace(config, work_dir=work.resolve())
        shards = plan_shards(tasks, repo_map, options.workers, repo_map_path)
        record = manifest(
            "swebench", {"tasks": tasks_path}, declaration, config.tokenizer, config.arm_parameters()
        )
        record["run"] = {"tasks": len(tasks), "shards": len(shards), "workers": options.workers}
        record["run"].update({"repos": list(repos), "instances": list(instances), "limit": options.limit})
        plan = model_plan(model, SWE_INSTRUCTION, config.tokenizer, options.out_dir)
        if plan is not None:
            record["model"] = plan.record()
        with RunOutput(options.out_dir) as output:
            output.start(record)
            started = time.perf_counter()
            rows = collect_rows(ShardRunner(config, plan), shards, len(tasks), output, options, progress)
            summary = _summarize(rows, config, declaration, record, time.perf_counter() - started)
            output.finish(summary, swebench_report(record, summary, rows) if options.out_dir else None)
    return summary


def _summarize(
    rows: list[dict[str, Any]],
    config: SweConfig,
    declaration: Declaration,
    record: dict[str, Any],
    wall_s: float,
) -> dict[str, Any]:
    rows.sort(key=lambda r: str(r["instance_id"]))
    summary = swebench_summary(rows, config.arms, config.budget)
    summary["wall_s"] = round(wall_s, 1)
    summary["budget"] = config.budget
    summary["declaration"] = record["declaration"]
    summary["selection"] = {k: record["run"][k] for k in ("repos", "instances", "limit")}
    summary["reference"] = declared_reference(summary["arms"], declaration.metric, declaration.reference_arm)
    summary["verdict"] = budget_verdict(declaration, summary["arms"], summary["reference"]["arm"])
    summary["task_losses"] = compact_losses(task_losses(rows, config.arms, config.budget))
    summary["code"] = record["code"]
    summary["datasets"] = record["datasets"]
    summary.update(run_totals(rows, "model" in record))
    if "model" in record:
        summary["model"] = record["model"]
    return summary
