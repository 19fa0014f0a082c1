"""``prooftext context …`` and ``prooftext fsck``: --json everywhere, bounded errors, exclusive outputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer.main

import prooftext
import prooftext.cli.context  # registers the commands until cli/__init__ lists the module
from gates import context as gate
from gates import fixture
from prooftext.cli.common import app, run_app
from prooftext.corpus.model import SENSITIVITIES
from prooftext.errors import MAX_MESSAGE_CHARS

OUT = ".prooftext/context"


@pytest.fixture
def roots(tmp_path: Path) -> tuple[Path, Path]:
    return fixture.write_repository(tmp_path / "repo"), fixture.write_owner(tmp_path / "owner")


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any]:
    status = run_app(list(argv))
    out = capsys.readouterr().out
    return status, json.loads(out) if out.strip().startswith("{") else out


def lifecycle(capsys: pytest.CaptureFixture[str], repo: Path, owner: Path) -> dict[str, Path]:
    o = {
        name: repo / OUT / f"{name}.json"
        for name in ("manifest", "graph", "query", "selection", "snapshot", "compaction", "quality")
    }
    owner_args = ["--owner-root", str(owner)]
    steps = [
        [
            "context",
            "manifest",
            str(repo),
            "--output",
            str(o["manifest"]),
            *owner_args,
            *[x for p in sorted(fixture.OWNER_FILES) for x in ("--owner-source", p)],
        ],
        [
            "context",
            "index",
            str(o["manifest"]),
            "--repository-root",
            str(repo),
            *owner_args,
            "--output",
            str(o["graph"]),
        ],
        ["context", "query", str(o["graph"]), gate.QUERY_TEXT, "--output", str(o["query"])],
        ["context", "select", str(o["graph"]), str(o["query"]), "--output", str(o["selection"])],
        [
            "context",
            "snapshot",
            str(o["graph"]),
            str(o["selection"]),
            "--repository-root",
            str(repo),
            *owner_args,
            "--output",
            str(o["snapshot"]),
        ],
        [
            "context",
            "compact",
            str(o["snapshot"]),
            "--repository-root",
            str(repo),
            *owner_args,
            "--output",
            str(o["compaction"]),
        ],
        ["context", "quality", str(o["graph"]), str(o["snapshot"]), "--output", str(o["quality"])],
    ]
    for argv in steps:
        status, result = cli(capsys, *argv, "--json")
        assert status == 0, result
        assert result["artifact_id"] == json.loads(Path(result["output"]).read_bytes())["artifact_id"]
    return o


def test_the_whole_lifecycle_from_the_command_line(
    capsys: pytest.CaptureFixture[str], roots: tuple[Path, Path]
) -> None:
    repo, owner = roots
    o = lifecycle(capsys, repo, owner)
    status, report = cli(capsys, "context", "validate", str(o["compaction"]), "--json")
    assert status == 0 and report["valid"] and report["artifact_type"] == "compaction"
    status, delta = cli(capsys, "context", "compare", str(o["snapshot"]), str(o["snapshot"]), "--json")
    assert status == 0 and delta["identical"]
    status, text = cli(capsys, "context", "validate", str(o["graph"]))
    assert status == 0 and text.startswith("valid graph ")
    status, checked = cli(capsys, "fsck", str(repo), "--json")
    assert status == 0 and checked["artifacts_checked"] == 7


def test_errors_are_one_bounded_json_object_and_nothing_is_written(
    capsys: pytest.CaptureFixture[str], roots: tuple[Path, Path]
) -> None:
    repo, owner = roots
    o = lifecycle(capsys, repo, owner)
    before = o["selection"].read_bytes()
    status, error = cli(
        capsys,
        "context",
        "select",
        str(o["graph"]),
        str(o["query"]),
        "--output",
        str(o["selection"]),
        "--json",
    )
    assert status != 0 and error["error"]["code"] == "output_exists"
    assert o["selection"].read_bytes() == before
    status, error = cli(
        capsys,
        "context",
        "index",
        str(o["manifest"]),
        "--repository-root",
        str(repo),
        "--owner-root",
        str(owner),
        "--output",
        str(repo / "graph.json"),
        "--json",
    )
    assert (status, error["error"]["code"]) == (1, "candidate_mismatch") and not (
        repo / "graph.json"
    ).exists()
    status, error = cli(capsys, "context", "validate", str(repo / fixture.LEDGER), "--json")
    assert status != 0 and error["error"]["code"] == "json_syntax"
    assert len(error["error"]["message"]) <= MAX_MESSAGE_CHARS


def test_a_snapshot_without_the_owner_root_fails_closed(
    capsys: pytest.CaptureFixture[str], roots: tuple[Path, Path]
) -> None:
    repo, owner = roots
    o = lifecycle(capsys, repo, owner)
    target = repo / OUT / "snap2.json"
    status, error = cli(
        capsys,
        "context",
        "snapshot",
        str(o["graph"]),
        str(o["selection"]),
        "--repository-root",
        str(repo),
        "--output",
        str(target),
        "--json",
    )
    assert (status, error["error"]["code"]) == (1, "owner_root_invalid") and not target.exists()
    assert str(repo) not in json.dumps(error)


def test_fsck_exit_status_is_a_bitmask(capsys: pytest.CaptureFixture[str], roots: tuple[Path, Path]) -> None:
    repo, owner = roots
    o = lifecycle(capsys, repo, owner)
    value = json.loads(o["query"].read_bytes())
    value["text"] = "edited"
    o["query"].write_text(json.dumps(value, sort_keys=True, separators=(",", ":")), encoding="utf-8")
    status, report = cli(capsys, "fsck", str(repo), "--json")
    assert status == 1 and report["status"] == 1 and not report["ok"]


def test_validate_rehashes_sources_only_with_a_repository_root_and_says_which(
    capsys: pytest.CaptureFixture[str], roots: tuple[Path, Path]
) -> None:
    repo, owner = roots
    o = lifecycle(capsys, repo, owner)
    compaction = str(o["compaction"])
    status, text = cli(capsys, "context", "validate", compaction)
    assert status == 0 and text.rstrip().endswith("; sources not re-observed")
    status, text = cli(capsys, "context", "validate", compaction, "--repository-root", str(repo))
    scopes = [s["locator"]["root_scope"] for s in json.loads(o["compaction"].read_bytes())["sources"]]
    repository, owned = scopes.count("repository"), scopes.count("owner")
    assert status == 0 and text.rstrip().endswith(
        f"; {repository} repository source{'s' if repository != 1 else ''} re-hashed,"
        f" {owned} owner source{'s' if owned != 1 else ''} not re-hashed (validate reads the repository root"
        " only)"
    )
    (repo / fixture.SPECIFICATION).write_text("# Changed\n", encoding="utf-8")
    status, report = cli(capsys, "context", "validate", compaction, "--json")
    assert status == 0 and report["reobserved"] is False
    status, error = cli(capsys, "context", "validate", compaction, "--repository-root", str(repo), "--json")
    assert (status, error["error"]["code"]) == (1, "source_drift")
    assert error["error"]["details"]["path"] == fixture.SPECIFICATION


def test_the_clearance_option_names_exactly_the_levels_a_query_accepts(
    capsys: pytest.CaptureFixture[str], roots: tuple[Path, Path]
) -> None:
    repo, owner = roots
    paths = lifecycle(capsys, repo, owner)
    schema = json.loads((Path(prooftext.__file__).parent / "schemas/context-query.schema.json").read_text())
    accepted = schema["properties"]["clearance"]["enum"]
    option = next(
        p
        for p in typer.main.get_command(app).commands["context"].commands["query"].params
        if p.name == "clearance"
    )
    named = [level for level in SENSITIVITIES if level in (option.help or "")]
    assert named == accepted
    for level in SENSITIVITIES:
        out = repo / OUT / f"q-{level}.json"
        status, _ = cli(
            capsys,
            "context",
            "query",
            str(paths["graph"]),
            "budget",
            "--clearance",
            level,
            "--output",
            str(out),
            "--json",
        )
        assert (status == 0) == (level in accepted)


@pytest.mark.parametrize(
    ("checked", "skipped", "line"),
    [
        (
            1,
            1,
            "1 repository source re-hashed, 1 owner source not re-hashed (validate reads the repository root only)",
        ),
        (2, 0, "2 repository sources re-hashed"),
        (
            0,
            3,
            "0 repository sources re-hashed, 3 owner sources not re-hashed (validate reads the repository root only)",
        ),
    ],
)
def test_the_validate_line_counts_sources_in_plain_words(checked: int, skipped: int, line: str) -> None:
    from prooftext.cli.context import _validated

    result = {
        "artifact_type": "compaction",
        "artifact_id": "x",
        "reobserved": True,
        "sources_checked": checked,
        "owner_sources_skipped": skipped,
    }
    assert _validated(result) == f"valid compaction x; {line}"


@pytest.mark.parametrize(
    ("option", "value", "code"),
    [
        ("--max-bytes", "1023", "value_out_of_range"),
        ("--max-bytes", str(10**30), "value_out_of_range"),
        ("--max-nodes", "0", "value_out_of_range"),
        ("--max-nodes", "4097", "value_out_of_range"),
        ("--max-edges", "-1", "value_out_of_range"),
        ("--max-depth", "9", "value_out_of_range"),
        ("--clearance", "secret-or-prohibited", "unknown_name"),
        ("--clearance", "nope", "unknown_name"),
    ],
)
def test_a_query_option_out_of_its_range_is_refused_naming_the_option(
    capsys: pytest.CaptureFixture[str], roots: tuple[Path, Path], option: str, value: str, code: str
) -> None:
    """As every other command's options are: not as a schema violation of the artifact nobody wrote."""
    repo, owner = roots
    graph = lifecycle(capsys, repo, owner)["graph"]
    out = repo / OUT / "q-refused.json"
    argv = ["context", "query", str(graph), "budget", "--output", str(out), option, value]
    status, body = cli(capsys, *argv, "--json")
    assert status == 1 and not out.exists()
    field = option.removeprefix("--").replace("-", "_")
    assert body["error"]["code"] == code
    assert body["error"]["details"] == {"field": field, "option": option}
    assert run_app(argv) == 1
    assert capsys.readouterr().err.startswith(f"prooftext: error [{code}]: {option} ")


def test_a_required_reference_the_graph_lacks_is_named_by_the_required_option(
    capsys: pytest.CaptureFixture[str], roots: tuple[Path, Path]
) -> None:
    repo, owner = roots
    graph = lifecycle(capsys, repo, owner)["graph"]
    out = repo / OUT / "q-required.json"
    argv = ["context", "query", str(graph), "budget", "--output", str(out), "--required", "nope.md", "--json"]
    status, body = cli(capsys, *argv)
    assert status == 1 and body["error"]["code"] == "not_found"
    assert body["error"]["details"] == {"field": "required", "option": "--required"}
