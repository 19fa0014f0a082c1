"""The answer cache, the endpoint a model run records and answers the parser refuses, against real HTTP
servers on 127.0.0.1."""

from __future__ import annotations

import html
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.fake_chat_server import FakeChatServer
from tests.fake_eval_model import EvalModel, LocomoModel

from prooftext.cli import main
from prooftext.errors import ArtifactError
from prooftext.eval.answers import swe_score
from prooftext.eval.common import RunOptions
from prooftext.eval.model import ModelSettings
from prooftext.eval.run import evaluate
from prooftext.eval.runs import LocomoRun, QualityBar

from .evaldata import CONVERSATION

MODEL = "tiny"
BAR = QualityBar(None, "answer_f1", 0.5, 0.2, "full")
SECRET = "sk-proj-Zq8kW3vN7tYb2LmX"


@pytest.fixture
def ollama() -> Iterator[FakeChatServer]:
    responder = EvalModel(LocomoModel([CONVERSATION]), None)
    with FakeChatServer(models=(MODEL,), responder=responder, apis=("ollama",)) as server:
        yield server


def _run(data: Path, endpoint: str) -> LocomoRun:
    return LocomoRun(data, "4096", "full", "bytes", bar=BAR, model=ModelSettings(MODEL, "ollama", endpoint))


@pytest.mark.parametrize(
    "damage",
    [
        '{"schema": "prooftext.eval-answer/v2", "timings": [1], "text": 5}',
        '{"schema": "prooftext.eval-answer/v2"}',
        '{"schema": "prooftext.eval-answer/v2", "text": "Kiwi", "timings": {}, "usage": {}, "wall_ms": "x"}',
        '{"schema": "prooftext.eval-answer/v2", "text": "Kiwi", "timings": {"eval_count": "3"}}',
        "[]",
        '{"schema": "prooftext.eval-answer/v2", "text": "Kiw',
    ],
)
def test_a_damaged_cached_answer_is_asked_again_and_replaced_instead_of_failing_the_run(
    locomo_file: Path, ollama: FakeChatServer, tmp_path: Path, damage: str
) -> None:
    first = evaluate(_run(locomo_file, ollama.url), RunOptions(out_dir=tmp_path)).to_dict()
    cached = sorted((tmp_path / "answers").glob("*/*.json"))
    assert first["answers"]["asked"] == len(cached) > 0
    cached[0].write_text(damage, encoding="utf-8")
    again = evaluate(_run(locomo_file, ollama.url), RunOptions(out_dir=tmp_path)).to_dict()
    assert again["answers"] == {**first["answers"], "asked": 1, "cached": len(cached) - 1}
    assert again["arms"]["full"]["success"] == first["arms"]["full"]["success"]
    assert json.loads(cached[0].read_text(encoding="utf-8"))["text"]  # the fresh answer replaced it


def test_credentials_in_the_endpoint_reach_the_server_and_no_output_or_error(
    locomo_file: Path, ollama: FakeChatServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["eval", "locomo", "--data", str(locomo_file), "--budgets", "4096", "--arms", "full"]
    argv += ["--tokenizer", "bytes", "--model", MODEL, "--questions", "1", "--quality-metric", "answer_f1"]
    argv += ["--quality-threshold", "0.5", "--permitted-regression", "0.2", "--reference-arm", "full"]
    up = ollama.url.replace("http://", f"http://user:{SECRET}@")
    assert main([*argv, "--endpoint", up, "--out", str(tmp_path / "up"), "--json"]) == 0
    down = f"http://user:{SECRET}@127.0.0.1:9"
    assert main([*argv, "--endpoint", down, "--out", str(tmp_path / "down"), "--json"]) == 1
    printed = capsys.readouterr()
    assert ollama.requests and SECRET not in printed.out + printed.err
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(encoding="utf-8", errors="replace"), path
    declared = json.loads((tmp_path / "up" / "declaration.json").read_text(encoding="utf-8"))
    assert declared["model"]["endpoint"] == ollama.url.replace("http://", "http://[REDACTED]@")


def test_an_api_key_from_the_environment_reaches_an_openai_server_and_no_output(
    locomo_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROOFTEXT_API_KEY", SECRET)
    argv = ["eval", "locomo", "--data", str(locomo_file), "--budgets", "4096", "--arms", "full"]
    argv += ["--tokenizer", "bytes", "--model", MODEL, "--questions", "1", "--quality-metric", "answer_f1"]
    argv += ["--quality-threshold", "0.5", "--permitted-regression", "0.2", "--reference-arm", "full"]
    argv += ["--backend", "openai", "--json"]
    with FakeChatServer(models=(MODEL,), apis=("openai",), fault="500") as server:
        assert main([*argv, "--endpoint", server.url, "--out", str(tmp_path / "out")]) == 1
    printed = capsys.readouterr()
    assert {r["authorization"] for r in server.requests} == {f"Bearer {SECRET}"}
    assert SECRET not in printed.out + printed.err
    for path in (tmp_path / "out").rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(encoding="utf-8", errors="replace"), path


def test_a_cached_answer_that_cannot_be_replaced_fails_the_run_naming_the_file_and_no_old_report_stays(
    locomo_file: Path, ollama: FakeChatServer, tmp_path: Path
) -> None:
    evaluate(_run(locomo_file, ollama.url), RunOptions(out_dir=tmp_path))
    assert (tmp_path / "summary.json").exists() and (tmp_path / "report.html").exists()
    blocked = sorted((tmp_path / "answers").glob("*/*.json"))[0]
    blocked.unlink()
    blocked.mkdir()
    with pytest.raises(ArtifactError) as caught:
        evaluate(_run(locomo_file, ollama.url), RunOptions(out_dir=tmp_path))
    assert caught.value.details["path"] == str(blocked)
    # the stopped run's declaration and rows are there; the earlier run's summary and report are not
    assert (tmp_path / "declaration.json").exists() and (tmp_path / "tasks.jsonl").exists()
    assert not (tmp_path / "summary.json").exists() and not (tmp_path / "report.html").exists()


def test_an_answer_the_json_parser_refuses_for_its_size_or_depth_is_unparseable_not_a_crash() -> None:
    long_integer = '{"files": ["a.py"], "n": ' + "1" * 5000 + "}"
    deep = '{"files": ["a.py"], "n": ' + "[" * 100_000 + "}"
    for answer in (long_integer, deep):
        score = swe_score(answer, ["a.py"], {})
        assert (score["parsed"], score["success"]) == (False, False)


def test_answers_a_server_gave_as_another_model_are_counted_and_said_in_the_notes_and_report(
    locomo_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    responder = EvalModel(LocomoModel([CONVERSATION]), None)
    argv = ["eval", "locomo", "--data", str(locomo_file), "--budgets", "4096", "--arms", "full"]
    argv += ["--tokenizer", "bytes", "--model", MODEL, "--questions", "2", "--quality-metric", "answer_f1"]
    argv += ["--quality-threshold", "0.5", "--permitted-regression", "0.2", "--reference-arm", "full"]
    with FakeChatServer(
        models=(MODEL,), responder=responder, apis=("ollama",), served_as="mistral"
    ) as server:
        assert main([*argv, "--endpoint", server.url, "--out", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr().out
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    model = summary["arms"]["full"]["model"]
    assert model["served_models"] == {"mistral": model["answered"]} and model["switched"] == model["answered"]
    row = json.loads((tmp_path / "out" / "tasks.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert row["arms"]["full"]["model"]["repeats"][0]["served_model"] == "mistral"
    said = f"answered {model['switched']} of {model['answered']} answers as another model than '{MODEL}'"
    assert said in printed
    assert said in html.unescape((tmp_path / "out" / "report.html").read_text(encoding="utf-8"))
