"""The reply timeout of a model in the loop: declared, validated, and a timed-out answer counted as failed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.fake_chat_server import FakeChatServer

from prooftext.cli import main
from prooftext.eval.model import ModelSettings
from prooftext.llm.backends import READ_TIMEOUT_S

from .conftest import SweFixture

MODEL = "tiny"


def _swe_argv(swe_fixture: SweFixture, tmp_path: Path) -> list[str]:
    declared = tmp_path / "bar.json"
    declared.write_text(
        json.dumps(
            {"metric": "success", "threshold": 0.5, "permitted_regression": 0.1, "reference_arm": "bm25"}
        )
    )
    argv = ["eval", "swebench", "--tasks", str(swe_fixture.tasks), "--repo-map", str(swe_fixture.repo_map)]
    return [*argv, "--arms", "bm25", "--limit", "2", "--tokenizer", "bytes", "--declare", str(declared)]


def test_answers_a_silent_server_never_gives_fail_by_code_and_the_timeout_is_declared(
    swe_fixture: SweFixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    with FakeChatServer(models=(MODEL,), fault="silent") as server:
        argv = [*_swe_argv(swe_fixture, tmp_path), "--model", MODEL, "--endpoint", server.url]
        code = main([*argv, "--timeout", "0.2", "--out", str(out), "--json"])
    error = json.loads(capsys.readouterr().out)["error"]
    assert code == 1 and error["code"] == "all_tasks_failed"  # every answer timed out: the run still ended
    assert error["details"]["summary"]["answers"]["errors"] == len(server.requests) > 0
    rows = [json.loads(line) for line in (out / "tasks.jsonl").read_text().splitlines()]
    failures = [a["model"]["repeats"][0]["error"] for r in rows for a in r["arms"].values()]
    assert failures and all(f["code"] == "backend_unavailable" for f in failures)
    assert all("--timeout" in f["message"] for f in failures)
    assert json.loads((out / "declaration.json").read_text())["model"]["timeout_s"] == 0.2


@pytest.mark.parametrize("value", ["0", "-3", "inf", "nan"])
def test_a_timeout_that_is_not_a_positive_number_is_refused_before_the_run(
    swe_fixture: SweFixture, tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    argv = [*_swe_argv(swe_fixture, tmp_path), "--model", MODEL, "--endpoint", "http://127.0.0.1:9"]
    code = main([*argv, "--timeout", value, "--out", str(tmp_path / "out"), "--json"])
    error = json.loads(capsys.readouterr().out)["error"]
    assert code == 1 and error["code"] == "value_out_of_range" and error["details"]["field"] == "timeout"
    assert not (tmp_path / "out").exists()


def test_a_timeout_without_a_model_is_refused_naming_it(
    swe_fixture: SweFixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main([*_swe_argv(swe_fixture, tmp_path), "--timeout", "5", "--json"])
    error = json.loads(capsys.readouterr().out)["error"]
    assert code == 1 and error["code"] == "invalid_request" and "--timeout" in error["message"]


def test_model_settings_default_to_the_backends_reply_timeout() -> None:
    settings = ModelSettings(MODEL)
    assert settings.timeout == READ_TIMEOUT_S and settings.to_dict()["timeout_s"] == READ_TIMEOUT_S
