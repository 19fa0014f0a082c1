"""A model in the loop: both backends against real HTTP servers on 127.0.0.1, answering from the prompt."""

from __future__ import annotations

import dataclasses
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from tests.fake_chat_server import EVAL_DURATION_NS, LOAD_DURATION_NS, FakeChatServer
from tests.fake_eval_model import NOT_MENTIONED, EvalModel, LocomoModel, SweModel, load_tasks

import prooftext
import prooftext.cli.eval
import prooftext.eval.model_summary as model_summary
from prooftext.cli import main
from prooftext.cli.eval import print_tables
from prooftext.errors import (
    ArtifactError,
    DeclarationRequiredError,
    RangeError,
    RequestError,
    UnknownNameError,
)
from prooftext.eval.answers import (
    locomo_score,
    multi_hop_f1,
    parse_localization,
    porter_stem,
    swe_score,
    token_f1,
)
from prooftext.eval.common import RunOptions
from prooftext.eval.model import Instruction, ModelPlan, ModelSettings, answer_key
from prooftext.eval.model_summary import TERMINAL_VALUE_COLUMNS, cost_table, model_table, model_tables
from prooftext.eval.run import evaluate
from prooftext.eval.runs import LocomoRun, QualityBar, SwebenchRun

from .conftest import SweFixture
from .evaldata import CONVERSATION

MODEL = "tiny"
LOCOMO_BAR = QualityBar(None, "answer_f1", 0.5, 0.2, "full")
SWE_BAR = QualityBar(None, "success", 0.5, 0.2, "fixed")


# --- scoring ----------------------------------------------------------------------------------------------


def test_porter_stems_match_the_published_examples() -> None:
    pairs = {
        "caresses": "caress",
        "ponies": "poni",
        "agreed": "agre",
        "hopping": "hop",
        "relational": "relat",
        "generalizations": "gener",
        "running": "run",
        "filing": "file",
        "sky": "sky",
    }
    assert {w: porter_stem(w) for w in pairs} == pairs


def test_locomo_f1_normalizes_stems_and_scores_each_category_as_the_paper_does() -> None:
    assert token_f1("The violins!", "violin") == 1.0
    assert token_f1("a green parrot", "parrot named Kiwi") == pytest.approx(2 * 0.5 * (1 / 3) / (0.5 + 1 / 3))
    assert multi_hop_f1("pottery, violin", "violin, pottery, chess") == pytest.approx(2 / 3)
    assert locomo_score("Kiwi", "Kiwi", 4) == {"f1": 1.0, "em": True, "success": True}
    assert locomo_score("the Kiwi", "Kiwi; a bird", 3)["em"] is True  # open-domain: first part only
    assert locomo_score(NOT_MENTIONED, None, 5)["success"] is True
    assert locomo_score("blue", None, 5)["f1"] == 0.0


def test_a_localization_answer_in_a_fence_parses_and_prose_is_unparseable() -> None:
    found = parse_localization('```json\n{"files": ["./a.py"], "functions": ["a.py::C.m", "f"]}\n```')
    assert found is not None and found.files == ("a.py",)
    assert found.functions == (("a.py", "C.m"), (None, "f"))
    assert parse_localization("The bug is in a.py") is None
    assert parse_localization('{"files": "a.py"}') is None
    score = swe_score(
        '{"files": ["a.py"], "functions": ["a.py::C.m"]}', ["a.py", "b.py"], {"a.py": ["C", "g"]}
    )
    assert (score["success"], score["file_recall"], score["function_recall"]) == (False, 0.5, 0.5)
    assert swe_score("prose", ["a.py"], {})["parsed"] is False


# --- servers ----------------------------------------------------------------------------------------------


@pytest.fixture
def swe_tasks(swe_fixture: SweFixture, tmp_path: Path) -> Path:
    """The fixture's two readable tasks, the second one's issue asking for a malformed answer."""
    tasks = load_tasks(swe_fixture.tasks)[:2]
    tasks[0]["fix_spans"] = {"pkg/alpha.py": ["frobnicate_widget"]}
    tasks[1]["problem_statement"] += " MALFORMED"
    path = tmp_path / "swe_tasks.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in tasks), encoding="utf-8")
    return path


def _responder(swe_tasks: Path | None = None) -> EvalModel:
    return EvalModel(LocomoModel([CONVERSATION]), SweModel(load_tasks(swe_tasks)) if swe_tasks else None)


@pytest.fixture
def ollama() -> Iterator[FakeChatServer]:
    with FakeChatServer(models=(MODEL,), responder=_responder(), apis=("ollama",)) as server:
        yield server


def _locomo(data: Path, endpoint: str, **model: Any) -> LocomoRun:
    settings = ModelSettings(MODEL, "ollama", endpoint, **model)
    return LocomoRun(data, "64,4096", "full,last_n,bm25", "bytes", bar=LOCOMO_BAR, model=settings)


def test_locomo_answers_are_scored_priced_timed_and_a_rerun_sends_nothing(
    locomo_file: Path, ollama: FakeChatServer, tmp_path: Path
) -> None:
    run = _locomo(
        locomo_file, ollama.url, repeats=2, temperature=0.0, seed=3, price_input=1.0, price_output=2.0
    )
    summary = evaluate(run, RunOptions(out_dir=tmp_path)).to_dict()
    arms = summary["arms"]
    # 4 questions x (full, bm25_top5, last_n@64, last_n@4096, bm25@64, bm25@4096) x 2 repeats
    assert len(ollama.requests) == 4 * 6 * 2
    sent = ollama.requests[0]["body"]
    assert sent["options"] == {"num_predict": 64, "temperature": 0.0, "seed": 3}
    assert [m["role"] for m in sent["messages"]] == ["system", "user"]
    assert (
        "prooftext.locomo-answer/v1"
        in json.loads((tmp_path / "declaration.json").read_text())["model"]["instruction"]["version"]
    )
    full = arms["full"]
    assert full["success"] == 1.0 and full["answer_f1"] == 1.0 and full["success_std"] == 0.0
    assert full["agreement"] == 1.0 and full["success_by_repeat"] == [1.0, 1.0]
    assert arms["last_n@64"]["success"] < 1.0  # the last turns alone miss the parrot and the recital
    model = full["model"]
    assert (
        model["load_ms_p50"] == LOAD_DURATION_NS / 1e6
        and model["generation_ms_p50"] == EVAL_DURATION_NS / 1e6
    )
    assert model["server_prompt_tokens_mean"] is not None and model["asked"] == 8 and model["cached"] == 0
    row = json.loads((tmp_path / "tasks.jsonl").read_text().splitlines()[0])
    answer = row["arms"]["full"]["model"]["repeats"][0]
    expected = (answer["server_prompt_tokens"] * 1.0 + answer["output_tokens"] * 2.0) / 1e6
    assert answer["cost_usd"] == pytest.approx(expected)
    assert model["cost_usd"] == pytest.approx(
        sum(
            r["arms"]["full"]["model"]["repeats"][k]["cost_usd"]
            for r in map(json.loads, (tmp_path / "tasks.jsonl").read_text().splitlines())
            for k in (0, 1)
        )
    )
    assert summary["reference"]["arm"] == "full" and summary["reference"]["declared_fits_budget"] is True
    assert summary["verdict"]["full"]["regression"] == 0.0 and summary["verdict"]["full"]["passes"]
    assert summary["verdict"]["last_n@64"]["reference"] == "full"
    assert set(summary["arms"]["full"]["by_category"]["4"]) >= {"answer_f1", "answer_em"}
    html = (tmp_path / "report.html").read_text()
    assert "Model task success vs prompt tokens" not in html  # figure titles live inside the PNGs
    assert html.count("<img") == 3 and "Model in the loop" in html and "Cost and latency" in html
    before_cost_plot = html[: html.index('alt="cost per question per arm"')]
    said = before_cost_plot[before_cost_plot.rindex('<p class="finding">') :]
    assert "Median model wall time" not in said  # the cost plot opens with the cost sentence

    again = evaluate(run, RunOptions(out_dir=tmp_path)).to_dict()
    assert len(ollama.requests) == 4 * 6 * 2  # every answer came from the cache
    assert again["answers"] == {"total": 48, "asked": 0, "cached": 48, "errors": 0}
    assert again["arms"]["full"]["model"]["spent_usd"] == 0.0
    assert again["arms"]["last_n@64"]["success"] == arms["last_n@64"]["success"]


def test_an_answer_from_one_server_is_not_reused_for_another() -> None:
    instruction = Instruction("prooftext.test/v1", "Answer.", 16)
    keys = {
        answer_key(
            ModelPlan(ModelSettings(MODEL, "ollama", url), instruction, "bytes", None), "t", "a", 0, "ab"
        )
        for url in ("http://127.0.0.1:1", "http://127.0.0.1:2", None)
    }
    assert len(keys) == 3


def test_a_model_run_without_a_full_declaration_is_refused_before_it_starts(
    locomo_file: Path, tmp_path: Path
) -> None:
    settings = ModelSettings(MODEL, "ollama", "http://127.0.0.1:9")
    run = LocomoRun(
        locomo_file, "64", "full,bm25", "bytes", bar=QualityBar(None, "answer_f1", 0.5), model=settings
    )
    with pytest.raises(DeclarationRequiredError) as caught:
        evaluate(run, RunOptions(out_dir=tmp_path / "out"))
    assert caught.value.details["missing"] == ["permitted regression", "reference arm"]
    assert not (tmp_path / "out").exists()
    bar = dataclasses.replace(LOCOMO_BAR, reference_arm="adaptive@64")
    bad = LocomoRun(locomo_file, "64", "full", "bytes", bar=bar, model=settings)
    with pytest.raises(UnknownNameError):
        evaluate(bad, RunOptions())
    with pytest.raises(RequestError):
        evaluate(_locomo(locomo_file, "http://127.0.0.1:9", price_input=1.0), RunOptions())


@pytest.fixture
def openai_server(swe_tasks: Path) -> Iterator[FakeChatServer]:
    """An OpenAI-compatible server that reports no usage and fails its third request."""
    with FakeChatServer(
        models=(MODEL,), responder=_responder(swe_tasks), apis=("openai",), usage=False, fail_requests={3}
    ) as server:
        yield server


def _swe(
    tasks: Path, fixture: SweFixture, endpoint: str, bar: QualityBar = SWE_BAR, **kw: Any
) -> SwebenchRun:
    settings = ModelSettings(MODEL, "openai", endpoint, **kw)
    return SwebenchRun(tasks, fixture.repo_map, "full,bm25,fixed", 8000, "bytes", bar, model=settings)


def test_swe_localization_counts_unparseable_answers_and_a_server_error_resumes_on_rerun(
    swe_tasks: Path, swe_fixture: SweFixture, openai_server: FakeChatServer, tmp_path: Path
) -> None:
    run = _swe(swe_tasks, swe_fixture, openai_server.url)
    summary = evaluate(run, RunOptions(out_dir=tmp_path)).to_dict()
    assert len(openai_server.requests) == 2 * 3  # two tasks, three arms within the budget, one repeat
    assert summary["answers"] == {"total": 6, "asked": 5, "cached": 0, "errors": 1}
    rows = [json.loads(line) for line in (tmp_path / "tasks.jsonl").read_text().splitlines()]
    failed = [
        (r["instance_id"], arm)
        for r in rows
        for arm, a in r["arms"].items()
        if not a["model"]["repeats"][0]["ok"]
    ]
    assert len(failed) == 1
    errors = [
        a["model"]["repeats"][0]
        for r in rows
        for a in r["arms"].values()
        if not a["model"]["repeats"][0]["ok"]
    ]
    assert errors[0]["error"]["code"] == "backend_error"
    arms = summary["arms"]
    assert (
        sum(a["model"]["unparseable"] for a in arms.values()) >= 2
    )  # the malformed task, in every answered arm
    assert all(a["model"]["server_prompt_tokens_mean"] is None for a in arms.values())  # no usage reported
    assert all(a["model"]["load_ms_p50"] is None and a["model"]["wall_ms_p50"] > 0 for a in arms.values())
    assert arms["fixed"]["model"]["cost_usd"] is None  # no prices declared
    demo1 = next(r for r in rows if r["instance_id"] == "demo-1")
    answer = demo1["arms"]["fixed"]["model"]["repeats"][0]
    if answer["ok"]:
        assert answer["file_hit"] and answer["function_hit"] and answer["success"]

    openai_server.fail_requests = frozenset()
    again = evaluate(run, RunOptions(out_dir=tmp_path)).to_dict()
    assert len(openai_server.requests) == 2 * 3 + 1  # only the failed answer is asked again
    assert again["answers"] == {"total": 6, "asked": 1, "cached": 5, "errors": 0}
    assert again["arms"]["fixed"]["success"] == 0.5  # demo-1 found; the malformed demo-2 is a miss
    assert again["arms"]["fixed"]["function_accuracy"] == 1.0  # demo-2 names no gold function


def test_the_model_tables_fit_an_80_column_terminal_without_losing_a_column(
    swe_tasks: Path, swe_fixture: SweFixture, openai_server: FakeChatServer, tmp_path: Path
) -> None:
    summary = evaluate(
        _swe(swe_tasks, swe_fixture, openai_server.url), RunOptions(out_dir=tmp_path)
    ).to_dict()
    arms = summary["arms"]
    tables = model_tables(summary, "swebench")
    assert all(len(headers) <= 1 + TERMINAL_VALUE_COLUMNS for _, headers, _ in tables)
    shown = [h for _, headers, _ in tables for h in headers[1:]]
    whole = [*model_table(arms, "swebench", 1)[1][1:], *cost_table(arms)[1][1:]]
    assert all(h in shown for h in whole)  # every column of the wide tables is in one narrow table
    out = io.StringIO()
    print_tables(prooftext.EvalReport("swebench", summary), Console(file=out, width=80, color_system=None))
    for header in ("unparseable", "gen ms", "errors"):
        assert header in out.getvalue()


def test_a_declared_reference_over_the_budget_is_named_and_another_compared_instead(
    swe_tasks: Path, swe_fixture: SweFixture, tmp_path: Path
) -> None:
    bar = dataclasses.replace(SWE_BAR, reference_arm="full")
    with FakeChatServer(models=(MODEL,), responder=_responder(swe_tasks)) as server:
        settings = ModelSettings(MODEL, "ollama", server.url)
        run = SwebenchRun(
            swe_tasks, swe_fixture.repo_map, "full,bm25,fixed", 40, "bytes", bar, model=settings
        )
        summary = evaluate(run, RunOptions(out_dir=tmp_path)).to_dict()
    reference = summary["reference"]
    assert reference["declared"] == "full" and reference["declared_fits_budget"] is False
    assert reference["arm"] != "full" and "does not fit the budget" in reference["why"]
    assert summary["arms"]["full"]["model"]["not_sent_reasons"] == {"over the budget": 2}
    assert summary["verdict"]["full"]["passes"] is False


def test_the_command_line_runs_a_model_and_exits_non_zero_when_every_task_fails(
    swe_tasks: Path, swe_fixture: SweFixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    declared = tmp_path / "bar.json"
    declared.write_text(
        json.dumps(
            {"metric": "success", "threshold": 0.5, "permitted_regression": 0.1, "reference_arm": "bm25"}
        )
    )
    base = ["eval", "swebench", "--tasks", str(swe_tasks), "--repo-map", str(swe_fixture.repo_map)]
    base += ["--arms", "bm25,fixed", "--tokenizer", "bytes", "--declare", str(declared), "--model", MODEL]
    with FakeChatServer(models=(MODEL,), responder=_responder(swe_tasks), apis=("openai",)) as server:
        code = main(
            [*base, "--backend", "openai", "--endpoint", server.url, "--out", str(tmp_path / "ok"), "--json"]
        )
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["answers"]["asked"] == 4 and out["model"]["backend"] == "openai"
    # no server at all: every answer fails, so every task fails
    code = main([*base, "--endpoint", "http://127.0.0.1:9", "--out", str(tmp_path / "down"), "--json"])
    (line,) = capsys.readouterr().out.splitlines()  # --json: one document, the error holding the summary
    error = json.loads(line)["error"]
    assert code == 1 and error["code"] == "all_tasks_failed"
    summary = error["details"]["summary"]
    assert summary["all_failed"] is True and error["details"]["tasks"] == summary["failed_tasks"] > 0
    assert (tmp_path / "down" / "report.html").exists()
    code = main([*base[:-2], "--model", MODEL, "--declare", str(tmp_path / "none.json")])
    assert code == 1


@pytest.mark.parametrize(
    "flags",
    [
        ["--repeats", "3"],
        ["--backend", "ollama"],
        ["--endpoint", "http://127.0.0.1:9", "--temperature", "0.2"],
        ["--price-input", "1", "--price-output", "1"],
        ["--seed", "7"],
        ["--answers", "cache"],
    ],
)
def test_a_model_option_without_a_model_is_refused_naming_it(
    locomo_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str]
) -> None:
    argv = ["eval", "locomo", "--data", str(locomo_file), "--budgets", "64", "--arms", "bm25"]
    code = main([*argv, "--out", str(tmp_path / "out"), *flags, "--json"])
    error = json.loads(capsys.readouterr().out)["error"]
    assert code == 1 and error["code"] == "invalid_request" and error["details"]["field"] == "model"
    assert all(f in error["message"] for f in flags if f.startswith("--")) and "--model" in error["message"]
    assert not (tmp_path / "out").exists()


def test_an_answer_directory_that_cannot_be_written_is_refused_before_the_run(
    locomo_file: Path, swe_fixture: SweFixture, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory\n")
    locomo = _locomo(locomo_file, "http://127.0.0.1:9", answers_dir=blocker / "answers")
    settings = ModelSettings(MODEL, "ollama", "http://127.0.0.1:9", answers_dir=blocker / "answers")
    swe = SwebenchRun(
        swe_fixture.tasks, swe_fixture.repo_map, "fixed", 8000, "bytes", SWE_BAR, model=settings
    )
    for run in (locomo, swe):
        with pytest.raises(ArtifactError) as caught:
            evaluate(run, RunOptions(out_dir=tmp_path / "out"))
        assert str(blocker / "answers") in caught.value.message
        assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("backend", ["ollama", "openai"])
def test_a_malformed_endpoint_is_refused_when_the_settings_are_checked_before_any_answer(
    backend: str,
) -> None:
    with pytest.raises(RequestError) as caught:
        ModelSettings(MODEL, backend, "notaurl").check()
    assert caught.value.field == "endpoint"


@pytest.mark.parametrize(
    ("seed", "error"), [(10**30, RangeError), (-(2**53), RangeError), (True, RequestError)]
)
def test_a_seed_no_json_reader_reads_exactly_or_that_is_no_integer_is_refused_before_any_answer(
    seed: object, error: type[RequestError]
) -> None:
    with pytest.raises(error) as caught:
        ModelSettings(MODEL, "ollama", seed=seed).check()  # type: ignore[arg-type]
    assert caught.value.field == "seed"


def test_a_seed_within_the_exact_integers_of_json_is_accepted() -> None:
    ModelSettings(MODEL, "ollama", seed=2**53 - 1).check()
    ModelSettings(MODEL, "ollama", seed=-7).check()


def test_when_no_answer_arrived_no_arm_wins_and_the_failures_are_named_by_code() -> None:
    failed = {"answered": 0, "error_codes": {"backend_unavailable": 2}}
    arms = {
        "bm25": {"success": 0.0, "model": {**failed, "prompt_tokens_mean": 10.0}},
        "fixed": {"success": 0.0, "model": {**failed, "prompt_tokens_mean": 20.0}},
    }
    sentence = model_summary.success_sentence(arms)
    assert sentence == "No answer arrived from the model: every one failed (backend_unavailable 4)."
    summary = {
        "arms": arms,
        "answers": {"asked": 0, "cached": 0, "errors": 4},
        "failed_tasks": 2,
        "declaration": {"metric": "success", "threshold": 0.5, "permitted_regression": 0.1},
    }
    notes = model_summary.model_notes(summary)
    assert notes[0] == sentence
    assert "4 failed (backend_unavailable 4);" in notes[-1]


_TASK_WORD = re.compile(r"\btasks?\b", re.IGNORECASE)


def _words_of_report(html: str) -> str:
    """The report's text as a reader sees it: no embedded image data, no file names of the outputs."""
    return re.sub(r"<img [^>]*>", "", html).replace("tasks.jsonl", "")


def test_a_locomo_model_run_speaks_of_questions_not_tasks_in_its_text_and_keeps_its_json_keys(
    locomo_file: Path, ollama: FakeChatServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["eval", "locomo", "--data", str(locomo_file), "--budgets", "64", "--arms", "full,bm25"]
    argv += ["--tokenizer", "bytes", "--model", MODEL, "--endpoint", ollama.url, "--repeats", "2"]
    argv += ["--price-input", "1", "--price-output", "2", "--quality-metric", "success"]
    argv += ["--quality-threshold", "0.5", "--permitted-regression", "0.2", "--reference-arm", "full"]
    assert main([*argv, "--out", str(tmp_path / "text")]) == 0
    printed = capsys.readouterr().out
    assert "question" in printed and _TASK_WORD.findall(printed) == []
    report = _words_of_report((tmp_path / "text" / "report.html").read_text())
    assert "questions answered right" in report and _TASK_WORD.findall(report) == []
    assert main([*argv, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert "failed_tasks" in summary and "cost_usd_per_task" in summary["arms"]["full"]["model"]


def test_a_locomo_model_run_in_which_every_question_fails_says_so_in_questions(
    locomo_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["eval", "locomo", "--data", str(locomo_file), "--budgets", "64", "--arms", "bm25"]
    argv += ["--tokenizer", "bytes", "--model", MODEL, "--endpoint", "http://127.0.0.1:9"]
    argv += ["--quality-metric", "answer_f1", "--quality-threshold", "0.5", "--permitted-regression", "0.2"]
    argv += ["--reference-arm", "bm25_top5", "--out", str(tmp_path / "down")]
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert "every one of the 4 questions failed" in captured.err
    assert _TASK_WORD.findall(captured.out) == []
