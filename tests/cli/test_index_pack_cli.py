"""The command line: index, pack, adaptive-pack and verify, with --json outputs and stable error codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from prooftext.cli import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_index_json_reports_files_nodes_edges_and_seconds(
    sample_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = _run(capsys, "index", str(sample_repo), "--json")
    data = json.loads(out)
    assert status == 0
    assert data["files_indexed"] == 5
    assert {"files_skipped", "nodes", "edges", "seconds"} <= set(data)


def test_index_status_reports_changed_files(sample_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _run(capsys, "index", str(sample_repo), "--json")
    (sample_repo / "util" / "strings.py").write_text("z = 3\n")
    status, out, _ = _run(capsys, "index", "--status", str(sample_repo), "--json")
    assert status == 0 and json.loads(out)["files_changed_since_index"] == 1


def test_index_status_counts_files_left_out_apart_from_unchanged_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01\x02")
    (tmp_path / ".gitignore").write_text("build/\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.py").write_text("x = 1\n")
    _, out, _ = _run(capsys, "index", str(tmp_path), "--json")
    skipped = json.loads(out)["files_skipped"]
    _, out, _ = _run(capsys, "index", "--status", str(tmp_path), "--json")
    status = json.loads(out)
    assert status["unchanged"] == status["indexed_files"] == 2  # a.py and .gitignore
    assert status["excluded"] == sum(skipped.values()) >= 2  # blob.bin and build/, besides the store
    _, text, _ = _run(capsys, "index", "--status", str(tmp_path))
    assert text.endswith(f"; 2 unchanged, {status['excluded']} left out with a reason\n")


def test_index_status_counts_a_link_made_since_the_last_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    _run(capsys, "index", str(tmp_path), "--json")
    (tmp_path / "alias.py").symlink_to(tmp_path / "a.py")
    _, text, _ = _run(capsys, "index", "--status", str(tmp_path))
    assert text.endswith("left out with a reason; 1 changes to what is left out\n")


def test_a_missing_root_is_one_json_error_with_a_stable_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = _run(capsys, "index", str(tmp_path / "nope"), "--json")
    assert status != 0
    assert json.loads(out) == {
        "error": {
            "code": "root_missing",
            "details": {"root": str(tmp_path / "nope")},
            "message": f"root does not exist: {tmp_path / 'nope'}",
        }
    }


def test_a_root_that_is_a_file_is_an_error_without_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "file.txt"
    target.write_text("x")
    status, _, err = _run(capsys, "index", str(target))
    assert status != 0
    assert "root_not_directory" in err and "Traceback" not in err


def test_pack_prints_the_prompt_and_a_summary(sample_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run(
        capsys, "pack", "separability_matrix", "--root", str(sample_repo), "--max-tokens", "900"
    )
    assert status == 0
    assert out.startswith("# Context packet")
    assert "excerpts" in err and "o200k_base" in err


@pytest.mark.parametrize("command", ["pack", "adaptive-pack"])
def test_the_summary_names_the_seeds_that_ranked_nothing(
    command: str, sample_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--root", str(sample_repo), "--seed", "util/strings.py", "--seed", "ghost.py"]
    status, _, err = _run(capsys, command, "lowercase words", *argv)
    assert status == 0
    assert err.splitlines()[-1] == "seeds naming no indexed file (ranked nothing): ghost.py"


def test_the_summary_counts_the_nodes_a_joined_excerpt_quotes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "w.py").write_text("def alpha_widget():\n    return 1\n\ndef beta_widget():\n    return 2\n")
    status, _, err = _run(capsys, "pack", "alpha_widget beta_widget", "--root", str(tmp_path))
    assert status == 0
    assert "packet: 1 excerpt quoting 2 nodes," in err


def test_the_summary_counts_a_function_quoted_as_head_and_tail_as_one_node(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nested = "def outer_widget():\n    a = 1\n\n    def inner():\n        return 2\n\n    return outer_widget_value\n"
    (tmp_path / "w.py").write_text(nested)
    status, _, err = _run(capsys, "pack", "outer_widget outer_widget_value", "--root", str(tmp_path))
    assert status == 0
    assert "packet: 1 excerpt," in err


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["pack", "", "--root", "{root}", "--json"], "query_empty"),
        (["pack", "x1", "--root", "{root}", "--tokenizer", "gpt2", "--json"], "unknown_name"),
        (["adaptive-pack", "the of", "--root", "{root}", "--json"], "query_empty"),
        (["adaptive-pack", "x1", "--root", "{root}", "--min-tokens", "9000", "--json"], "value_out_of_range"),
        (["adaptive-pack", "x1", "--root", "{root}", "--token-step", "0", "--json"], "value_out_of_range"),
        (["adaptive-pack", "x1", "--root", "{root}", "--min-evidence", "99", "--json"], "value_out_of_range"),
        (
            ["adaptive-pack", "x1", "--root", "{root}", "--min-top-files", "-1", "--json"],
            "value_out_of_range",
        ),
        (
            ["adaptive-pack", "x1", "--root", "{root}", "--min-coverage-bps", "10001", "--json"],
            "value_out_of_range",
        ),
        (["pack", "\udcff x1", "--root", "{root}", "--json"], "invalid_request"),
        (["adaptive-pack", "\udcff x1", "--root", "{root}", "--json"], "invalid_request"),
        (["pack", "x1", "--root", "{root}", "--require", "../x.py", "--json"], "path_outside_root"),
        (["pack", "x1", "--root", "{root}", "--require", "absent.py", "--json"], "source_missing"),
    ],
)
def test_bad_requests_fail_with_one_error_and_nothing_else(
    sample_repo: Path, capsys: pytest.CaptureFixture[str], argv: list[str], code: str
) -> None:
    status, out, _ = _run(capsys, *[a.replace("{root}", str(sample_repo)) for a in argv])
    assert status != 0
    lines = out.strip().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["error"]["code"] == code


def test_a_query_argument_that_is_not_utf8_is_an_invalid_request_naming_the_query(sample_repo: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "prooftext", "pack", b"\xff separability", "--root", sample_repo, "--json"],
        capture_output=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "invalid_request" and error["details"] == {"field": "query"}
    assert done.stderr == b""


def test_adaptive_pack_json_prints_the_result_artifact(
    sample_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = _run(
        capsys, "adaptive-pack", "separability_matrix", "--root", str(sample_repo), "--json"
    )
    data = json.loads(out)
    assert status == 0 and data["schema"] == "prooftext.adaptive-context/v1"


@pytest.mark.parametrize(
    ("tamper", "where"),
    [
        (lambda d: d.__setitem__("stop_reason", "bogus"), "/stop_reason"),
        (lambda d: d.__setitem__("digests", []), "/digests"),
        (lambda d: d.pop("estimator"), "estimator"),
    ],
    ids=["stop_reason", "digests", "estimator"],
)
def test_an_adaptive_result_whose_own_members_break_its_schema_is_refused_by_verify(
    sample_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], tamper: Any, where: str
) -> None:
    """Its selected packet would still verify: the result around it must be one the compiler could write."""
    _, out, _ = _run(capsys, "adaptive-pack", "separability_matrix", "--root", str(sample_repo), "--json")
    saved = tmp_path / "result.json"
    saved.write_text(out, encoding="utf-8")
    assert _run(capsys, "verify", str(saved), "--root", str(sample_repo))[0] == 0
    data = json.loads(out)
    tamper(data)
    saved.write_text(json.dumps(data), encoding="utf-8")
    status, out, _ = _run(capsys, "verify", str(saved), "--root", str(sample_repo), "--json")
    error = json.loads(out)["error"]
    assert status == 1 and error["code"] == "artifact_invalid" and where in error["message"]


def test_require_sufficient_exits_2_when_the_estimate_fails(
    sample_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Requirement: sacp.integration.require-sufficient"""
    argv = [
        "adaptive-pack",
        "separability zyzzyva",
        "--root",
        str(sample_repo),
        "--min-coverage-bps",
        "10000",
    ]
    status, out, _ = _run(capsys, *argv, "--require-sufficient")
    assert status == 2 and out  # the packet is still printed
    assert _run(capsys, *argv)[0] == 0
    status, out, _ = _run(capsys, *argv, "--require-sufficient", "--json")
    assert status == 2 and json.loads(out)["estimated_sufficient"] is False
    passing = [*argv[:4], "--min-evidence", "1", "--require-sufficient", "--json"]
    status, out, _ = _run(capsys, *passing)  # a passing estimate exits 0
    assert status == 0 and json.loads(out)["estimated_sufficient"] is True


def test_verify_exit_status_is_a_bitmask(
    sample_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = _run(capsys, "pack", "separability_matrix", "--root", str(sample_repo), "--json")
    saved = tmp_path / "packet.json"
    saved.write_text(out)
    assert _run(capsys, "verify", str(saved), "--root", str(sample_repo))[0] == 0
    (sample_repo / "modeling" / "separable.py").write_text("tampered = True\n")
    assert _run(capsys, "verify", str(saved), "--root", str(sample_repo))[0] == 2
    forged = json.loads(out)
    forged["blake3"] = "0" * 64
    saved.write_text(json.dumps(forged))
    assert _run(capsys, "verify", str(saved), "--root", str(sample_repo))[0] == 3


def test_the_installed_script_runs_end_to_end(sample_repo: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "prooftext", "pack", "compound model", "--root", str(sample_repo)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "BEGIN EVIDENCE" in proc.stdout


@pytest.mark.parametrize("command", ["pack", "adaptive-pack", "verify"])
def test_a_root_option_naming_a_file_says_the_root_is_a_file_not_that_it_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    target = tmp_path / "app.py"
    target.write_text("x = 1\n")
    first = str(tmp_path / "packet.json") if command == "verify" else "separability"
    status, out, _ = _run(capsys, command, first, "--root", str(target), "--json")
    error = json.loads(out)["error"]
    assert status == 1 and error["code"] == "root_not_directory"
    assert error["message"] == f"root is a file, not a directory: {target}"


def test_a_root_below_a_file_is_not_a_directory_rather_than_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "app.py").write_text("x = 1\n")
    status, out, _ = _run(capsys, "index", str(tmp_path / "app.py" / "src"), "--json")
    error = json.loads(out)["error"]
    assert status == 1 and error["code"] == "root_not_directory"
    assert "a part of its path is a file" in error["message"]


def test_adaptive_pack_with_a_ceiling_below_the_first_rung_starts_the_ladder_there(
    sample_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As ``context.adaptive`` does: ``--max-tokens 1000`` alone used to be refused because the default first
    rung (2000) lay above it."""
    args = (
        "adaptive-pack",
        "separability_matrix",
        "--root",
        str(sample_repo),
        "--json",
        "--max-tokens",
        "1000",
    )
    status, out, _ = _run(capsys, *args)
    assert status == 0
    request = json.loads(out)["request"]
    assert (request["min_tokens"], request["max_tokens"]) == (1000, 1000)


def test_adaptive_pack_still_refuses_a_first_rung_given_above_the_ceiling(
    sample_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ("adaptive-pack", "separability_matrix", "--root", str(sample_repo), "--json")
    status, out, _ = _run(capsys, *args, "--max-tokens", "1000", "--min-tokens", "2000")
    assert status == 1 and json.loads(out)["error"]["code"] == "value_out_of_range"


def test_the_adaptive_summary_counts_one_round_and_one_excerpt_in_the_singular(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "w.py").write_text("def alpha_widget():\n    return 1\n")
    status, _, err = _run(capsys, "adaptive-pack", "alpha_widget", "--root", str(tmp_path))
    assert status == 0
    assert err.startswith("adaptive: 1 round, ") and ", 1 excerpt" in err and "excerpts" not in err
