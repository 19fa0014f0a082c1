"""Catalogue FA: faults. Disk full, SIGKILL, concurrent writers, EIO, read-only outputs.

Every fault test ends the same way: no data lost (earlier artifacts and index rows unchanged, every input
processed or listed with a reason), no half-written artifact visible, and a clean integrity check
(``PRAGMA integrity_check`` plus re-hashing every indexed source, through ``prooftext fsck``'s checker).

Kills are deterministic, never timed: the child process runs the real code with one function wrapped so
that it SIGKILLs itself at an exact point (the k-th row inserted inside a write transaction, the second
estimator call, half-way through an artifact's bytes). Coordination with children uses pipes, not sleeps.
Disk-full uses a real tmpfs when the suite runs as root (``mount`` permitted), else it is skipped with the
reason; FA12 (power loss) is approximated by SIGKILL, see ``GAPS.md``.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import sqlite3
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

import prooftext
from helpers import tmpfs
from prooftext.corpus import safeio
from prooftext.corpus.scan import scan
from prooftext.errors import ArtifactError, OutputExistsError, ProoftextError, StoreError

from .conftest import PYTHON, REPO, Cli, Figure, MakeTree, run_python, write_tree

fsck_module = pytest.importorskip("prooftext.artifacts.fsck")
publish = pytest.importorskip("prooftext.artifacts.publish")
lifecycle = pytest.importorskip("prooftext.artifacts.lifecycle")

from helpers import SAMPLE_FILES, eio_on  # noqa: E402

SPEC = {"SPEC.md": "# Spec\n\nThe separability matrix is specified here.\n"}


def many_files(count: int, lines: int = 6) -> dict[str, str]:
    return {
        f"pkg/mod{i:04d}.py": "".join(f"def func_{i}_{j}(x):\n    return x + {j}\n" for j in range(lines))
        for i in range(count)
    }


def store_state(root: Path) -> dict[str, Any]:
    """What the index holds: integrity, rows per table, and every (path, sha256) with its node count."""
    conn = sqlite3.connect(f"file:{root / '.prooftext' / 'index.sqlite'}?mode=ro", uri=True)
    try:
        integrity = [r[0] for r in conn.execute("PRAGMA integrity_check")]
        files = {
            path: (sha, nodes)
            for path, sha, nodes in conn.execute(
                "SELECT f.path, f.sha256, (SELECT count(*) FROM nodes n WHERE n.file_id = f.id) FROM files f"
            )
        }
        node_ids = sorted(r[0] for r in conn.execute("SELECT id FROM nodes"))
        orphans = conn.execute(
            "SELECT count(*) FROM nodes WHERE file_id NOT IN (SELECT id FROM files)"
        ).fetchone()[0]
    finally:
        conn.close()
    return {"integrity": integrity, "files": files, "node_ids": node_ids, "orphans": orphans}


def fsck_problems(root: Path) -> int:
    report = fsck_module.fsck(root)
    return len(report.problems)


def expected_state(files: dict[str, str], tmp_path: Path, name: str = "reference") -> dict[str, Any]:
    """The store of a clean, uninterrupted build of the same files in a fresh root."""
    root = write_tree(tmp_path / name, files)
    with prooftext.open(root) as index:
        index.refresh()
    return store_state(root)


def _same_index(actual: dict[str, Any], expected: dict[str, Any]) -> bool:
    return actual["files"] == expected["files"] and actual["node_ids"] == expected["node_ids"]


# --- FA1 / FA2: disk full ---------------------------------------------------------------------------------


def test_FA01_disk_full_during_artifact_publish_leaves_no_file_and_old_artifacts_intact(
    tmp_path: Path, figure: Figure
) -> None:
    root = write_tree(tmp_path / "repo", {**SAMPLE_FILES, **SPEC})
    with tmpfs(tmp_path / "out", "256k") as out:
        lifecycle.run_manifest(root, out / "manifest.json", "SPEC.md", [])
        before = (out / "manifest.json").read_bytes()
        free = os.statvfs(out)
        filler_bytes = free.f_bavail * free.f_frsize - 8 * 1024  # leave 8 KiB: less than a graph needs
        with open(out / "filler", "wb") as handle:
            handle.write(b"\0" * filler_bytes)
        with pytest.raises(ArtifactError) as caught:
            lifecycle.run_index(out / "manifest.json", root, None, out / "graph.json")
        assert "No space left" in caught.value.message
        names = sorted(p.name for p in out.iterdir())
        lost = int((out / "manifest.json").read_bytes() != before)
        figure("data_lost", lost)
        assert names == ["filler", "manifest.json"] and lost == 0
        (out / "filler").unlink()
        lifecycle.run_index(out / "manifest.json", root, None, out / "graph.json")  # works once space is back


def test_FA01_enospc_from_write_in_publish_removes_the_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loop-free variant of FA1 (no mount needed): ``os.write`` fails with ENOSPC mid-file."""
    calls = []

    def full(fd: int, data: Any) -> int:
        calls.append(len(data))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(publish.os, "write", full)
    with pytest.raises(ArtifactError):
        publish.publish_exclusive(tmp_path / "a.json", b"{}" * 10_000)
    assert calls and list(tmp_path.iterdir()) == []


@pytest.fixture
def store_on_tmpfs(tmp_path: Path) -> Any:
    root = write_tree(tmp_path / "repo", many_files(5, 2))
    with tmpfs(root / ".prooftext", "320k"):
        yield root


def _fill_with_new_sources(root: Path) -> None:
    text = "\n".join(f"paragraph {i} " + " ".join(f"word{i}x{j}" for j in range(14)) for i in range(150))
    write_tree(root, {f"notes/n{i:02d}.md": text + f"\nunique{i}\n" for i in range(40)})


def test_FA02_disk_full_during_an_index_write_rolls_back_and_the_old_index_stays_usable(
    store_on_tmpfs: Path, figure: Figure
) -> None:
    root = store_on_tmpfs
    with prooftext.open(root) as index:
        index.refresh()
        before = store_state(root)
        answer = index.pack("func_3_1", refresh=False).prompt
    _fill_with_new_sources(root)
    with prooftext.open(root) as index:
        with pytest.raises(Exception):  # noqa: B017  (the error class is FA02's other test)
            index.refresh()
        after = store_state(root)
        assert index.pack("func_3_1", refresh=False).prompt == answer
    lost = sum(1 for p, v in before["files"].items() if after["files"].get(p) != v)
    figure("data_lost", lost)
    figure("fsck_errors_after_faults", int(after["integrity"] != ["ok"]) + after["orphans"])
    assert after["integrity"] == ["ok"] and after["orphans"] == 0 and lost == 0
    assert all(nodes > 0 for _, nodes in after["files"].values())  # no file row without its nodes
    assert len(after["files"]) % 128 in (len(before["files"]) % 128, 5)  # whole batches only


def test_FA02_disk_full_during_an_index_write_is_a_stable_store_error(
    store_on_tmpfs: Path, cli: Cli, figure: Figure
) -> None:
    root = store_on_tmpfs
    cli("index", root, "--json")
    _fill_with_new_sources(root)
    status, out, _ = cli("index", root, "--json")
    figure("unhandled_exceptions", int(status == 70))
    assert status not in (0, 70) and json.loads(out)["error"]["code"] == "disk_full"


def _fill_disk(where: Path) -> Path:
    """Write a filler file in ``where`` until the file system refuses a single byte more."""
    filler = where / "filler"
    with open(filler, "wb", buffering=0) as handle:
        for size in (64 * 1024, 1024, 1):
            try:
                while True:
                    handle.write(b"\0" * size)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
    return filler


def _store_listing(root: Path) -> list[str]:
    return sorted(p.name for p in (root / ".prooftext").iterdir())


def test_FA02_on_a_full_disk_reads_succeed_and_a_write_fails_disk_full_leaving_no_stray_file(
    tmp_path: Path, cli: Cli
) -> None:
    with tmpfs(tmp_path / "disk", "2m") as disk:
        root = write_tree(disk / "repo", SAMPLE_FILES)
        assert cli("index", root, "--json")[0] == 0
        assert cli("memory", "add", "decision", "keep reads working", "--root", root, "--json")[0] == 0
        before = _store_listing(root)
        filler = _fill_disk(disk)
        status, out, _ = cli("index", root, "--status", "--json")
        assert status == 0 and json.loads(out)["fresh"] is True
        status, out, _ = cli("pack", "separability_matrix", "--root", root, "--json")
        assert status == 0 and json.loads(out)["evidence"]
        status, out, _ = cli("memory", "list", "--root", root, "--json")
        assert status == 0 and [r["text"] for r in json.loads(out)["records"]] == ["keep reads working"]
        status, out, _ = cli("fsck", root, "--json")
        assert status == 0 and json.loads(out)["ok"] is True
        assert _store_listing(root) == before
        (root / "added.py").write_text("")  # a new file the index must record: a write
        status, out, _ = cli("index", root, "--json")
        assert status == 1 and json.loads(out)["error"]["code"] == "disk_full"
        status, out, _ = cli("memory", "add", "decision", "one more", "--root", root, "--json")
        assert status == 1 and json.loads(out)["error"]["code"] == "disk_full"
        assert _store_listing(root) == before
        filler.unlink()
        assert cli("index", root, "--json")[0] == 0
        status, out, _ = cli("fsck", root, "--json")
        assert status == 0 and json.loads(out)["ok"] is True


def test_FA02_efbig_from_a_file_size_limit_is_handled_without_damage(tmp_path: Path) -> None:
    """The loop-free variant of FA2: RLIMIT_FSIZE in a child (SIGXFSZ ignored) makes writes fail."""
    root = write_tree(tmp_path / "repo", many_files(5, 2))
    with prooftext.open(root) as index:
        index.refresh()
    before = store_state(root)
    _fill_with_new_sources(root)
    size = max(p.stat().st_size for p in (root / ".prooftext").iterdir())
    code = (
        "import resource, signal, sys\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        f"resource.setrlimit(resource.RLIMIT_FSIZE, ({size + 64 * 1024}, {size + 64 * 1024}))\n"
        "from prooftext.cli import main\n"
        "sys.exit(main(['index', sys.argv[1], '--json']))\n"
    )
    proc = run_python(code, str(root))
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    after = store_state(root)
    assert after["integrity"] == ["ok"] and after["orphans"] == 0
    assert all(after["files"].get(p) == v for p, v in before["files"].items())


# --- FA3: SIGKILL during an artifact write ----------------------------------------------------------------

KILL_MID_PUBLISH = """
import os, signal, sys
from pathlib import Path
from prooftext.artifacts import publish
real_write = os.write
written = [0]
def dying_write(fd, data):
    if written[0] >= 1 << 20:
        os.kill(os.getpid(), signal.SIGKILL)
    n = real_write(fd, bytes(data)[: 1 << 16])
    written[0] += n
    return n
publish.os.write = dying_write
publish.publish_exclusive(Path(sys.argv[1]), b"[" + b"1," * (4 << 20) + b"1]")
"""


def test_FA03_sigkill_during_an_artifact_write_leaves_no_final_file(tmp_path: Path, figure: Figure) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "old.json").write_bytes(b'{"old":1}')
    proc = run_python(KILL_MID_PUBLISH, str(out / "big.json"))
    assert proc.returncode == -signal.SIGKILL
    figure("kills_survived", 1)  # the assertions below check it left nothing lost
    assert not (out / "big.json").exists()
    assert (out / "old.json").read_bytes() == b'{"old":1}'
    orphans = [p.name for p in out.iterdir() if p.name.endswith(".tmp")]
    figure("orphan_temps_left", len(orphans))
    assert len(orphans) == 1  # the one temp of the killed writer, never visible as the output


def test_FA03_the_orphan_temp_is_swept_by_the_next_run_or_fsck(tmp_path: Path, figure: Figure) -> None:
    root = write_tree(tmp_path / "repo", {**SAMPLE_FILES, **SPEC})
    out = root / ".prooftext" / "context"
    out.mkdir(parents=True)
    proc = run_python(KILL_MID_PUBLISH, str(out / "big.json"))
    assert proc.returncode == -signal.SIGKILL
    figure("kills_survived", 1)  # the assertions below check it left nothing lost
    fsck_module.fsck(root)
    lifecycle.run_manifest(root, out / "manifest.json", "SPEC.md", [])
    left = [p.name for p in out.iterdir() if p.name.endswith(".tmp")]
    figure("orphan_temps_swept", int(not left))
    assert left == []


# --- FA4 / FA11: SIGKILL during an index build -------------------------------------------------------------

KILL_MID_INDEX = """
import os, signal, sys
from prooftext.store import refresh
refresh.PARALLEL_MIN_FILES = 10 ** 9  # read in this process: the kill point is then exact
real_insert = refresh._insert_file
count = [0]
def dying_insert(*args, **kwargs):
    count[0] += 1
    if count[0] == int(sys.argv[2]):
        os.kill(os.getpid(), signal.SIGKILL)  # inside an open BEGIN IMMEDIATE transaction
    return real_insert(*args, **kwargs)
refresh._insert_file = dying_insert
import prooftext
with prooftext.open(sys.argv[1]) as index:
    index.refresh()
"""


@pytest.mark.parametrize("kill_at", [1, 200, 333])
def test_FA04_sigkill_during_an_index_build_leaves_no_half_batch_and_a_rerun_completes(
    tmp_path: Path, figure: Figure, kill_at: int
) -> None:
    files = many_files(400, 2)
    root = write_tree(tmp_path / "repo", files)
    proc = run_python(KILL_MID_INDEX, str(root), str(kill_at))
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    figure("kills_survived", 1)  # the assertions below check it left nothing lost
    killed = store_state(root)
    assert killed["integrity"] == ["ok"] and killed["orphans"] == 0
    assert len(killed["files"]) == ((kill_at - 1) // 128) * 128  # committed batches only
    with prooftext.open(root) as index:
        index.refresh()
    final = store_state(root)
    problems = fsck_problems(root)
    figure("fsck_errors_after_faults", problems)
    figure("data_lost", int(not _same_index(final, expected_state(files, tmp_path))))
    assert problems == 0 and _same_index(final, expected_state(files, tmp_path))


def test_FA11_an_interrupted_build_then_edits_then_resume_matches_the_current_sources(
    tmp_path: Path, figure: Figure
) -> None:
    files = many_files(300, 2)
    root = write_tree(tmp_path / "repo", files)
    proc = run_python(KILL_MID_INDEX, str(root), "150")
    assert proc.returncode == -signal.SIGKILL
    figure("kills_survived", 1)  # the assertions below check it left nothing lost
    first, late = "pkg/mod0000.py", "pkg/mod0299.py"  # one committed before the kill, one not yet read
    files[first] = "def edited_first():\n    return 'new'\n"
    files[late] = "def edited_late():\n    return 'new'\n"
    del files["pkg/mod0010.py"]
    files["pkg/added.py"] = "def added():\n    return 1\n"
    write_tree(root, {first: files[first], late: files[late], "pkg/added.py": files["pkg/added.py"]})
    (root / "pkg" / "mod0010.py").unlink()
    with prooftext.open(root) as index:
        index.refresh()
    final = store_state(root)
    same = _same_index(final, expected_state(files, tmp_path))
    figure("data_lost", int(not same))
    assert same and fsck_problems(root) == 0


# --- FA5: SIGKILL between adaptive rounds ------------------------------------------------------------------

KILL_BETWEEN_ROUNDS = """
import os, signal, sys
from prooftext.adaptive import compile as adaptive
real_estimate = adaptive.estimate
calls = [0]
def dying_estimate(*args, **kwargs):
    calls[0] += 1
    if calls[0] == 2:
        os.kill(os.getpid(), signal.SIGKILL)  # round 1 done, round 2 compiled, not yet estimated
    return real_estimate(*args, **kwargs)
adaptive.estimate = dying_estimate
from prooftext.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_FA05_sigkill_between_adaptive_rounds_emits_nothing_and_a_rerun_is_byte_identical(
    indexed: Path, cli: Cli, figure: Figure
) -> None:
    argv = [
        "adaptive-pack",
        "separability matrix compound model",
        "--root",
        str(indexed),
        "--json",
        "--min-tokens",
        "150",
        "--token-step",
        "150",
        "--min-nodes",
        "1",
        "--node-step",
        "1",
        "--min-evidence",
        "9",
    ]
    status, clean, _ = cli(*argv)
    assert status == 0 and len(json.loads(clean)["rounds"]) >= 2
    proc = run_python(KILL_BETWEEN_ROUNDS, *argv)
    assert proc.returncode == -signal.SIGKILL and proc.stdout == ""  # no partial selection artifact
    figure("kills_survived", 1)  # the assertions below check it left nothing lost
    status, rerun, _ = cli(*argv)
    assert status == 0 and rerun == clean


# --- FA6 / FA8: concurrency --------------------------------------------------------------------------------

ANNOUNCED_INDEXER = """
import sys, fcntl
from prooftext.store import db
real_flock = fcntl.flock
def announced(fd, op):
    if op == fcntl.LOCK_EX:
        print("WAITING", flush=True)
    return real_flock(fd, op)
db.fcntl.flock = announced
from prooftext.cli import main
sys.exit(main(["index", sys.argv[1], "--json"]))
"""


def _spawn(code: str, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "tests")}
    return subprocess.Popen(
        [PYTHON, "-c", code, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_FA06_two_indexers_on_one_root_serialize_and_never_interleave(tmp_path: Path, figure: Figure) -> None:
    files = many_files(40, 3)
    root = write_tree(tmp_path / "repo", files)
    lock_dir = root / ".prooftext"
    lock_dir.mkdir()
    fd = os.open(lock_dir / "index.lock", os.O_RDWR | os.O_CREAT, 0o644)
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_EX)  # hold the writer lock until both indexers wait for it
    try:
        first, second = _spawn(ANNOUNCED_INDEXER, str(root)), _spawn(ANNOUNCED_INDEXER, str(root))
        assert first.stdout is not None and second.stdout is not None
        assert first.stdout.readline().strip() == "WAITING"
        assert second.stdout.readline().strip() == "WAITING"
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    outputs = [p.communicate(timeout=120) for p in (first, second)]
    assert [p.returncode for p in (first, second)] == [0, 0], outputs
    reports = [json.loads(out.strip().splitlines()[-1]) for out, _ in outputs]
    indexed = sorted(r["files_indexed"] for r in reports)
    assert indexed == [0, 40]  # one did all the work, the other found everything unchanged
    final = store_state(root)
    figure("data_lost", int(not _same_index(final, expected_state(files, tmp_path))))
    assert _same_index(final, expected_state(files, tmp_path)) and fsck_problems(root) == 0


PAUSED_INDEXER = """
import sys
from prooftext.store import refresh
real_insert = refresh._insert_file
paused = [False]
def pausing_insert(*args, **kwargs):
    if not paused[0]:
        paused[0] = True
        print("IN_TRANSACTION", flush=True)
        sys.stdin.readline()  # hold the write transaction open until the test says GO
    return real_insert(*args, **kwargs)
refresh._insert_file = pausing_insert
import prooftext
with prooftext.open(sys.argv[1]) as index:
    report = index.refresh()
print(report.files_indexed, flush=True)
"""


def test_FA08_queries_during_a_reindex_see_a_consistent_snapshot_and_no_lock_error(indexed: Path) -> None:
    with prooftext.open(indexed) as index:
        before = index.pack("separability matrix", refresh=False).to_dict()
    write_tree(indexed, {"modeling/extra.py": "def separability_extra():\n    return 'separability'\n"})
    (indexed / "modeling" / "core.py").write_text(
        (indexed / "modeling" / "core.py").read_text() + "# edited\n"
    )
    writer = _spawn(PAUSED_INDEXER, str(indexed))
    assert writer.stdout is not None and writer.stdin is not None
    try:
        assert writer.stdout.readline().strip() == "IN_TRANSACTION"
        answers = []
        with prooftext.open(indexed) as index:
            for _ in range(5):
                answers.append(index.pack("separability matrix", refresh=False).to_dict())
                assert index.status().indexed_files == 5
        # Excerpts of the file edited on disk drop out as stale; everything else is the old snapshot.
        for answer in answers:
            assert answer == answers[0]
            assert {e["path"] for e in answer["evidence"]} <= {e["path"] for e in before["evidence"]}
    finally:
        writer.stdin.write("GO\n")
        writer.stdin.flush()
        out, err = writer.communicate(timeout=120)
    assert writer.returncode == 0, err
    assert out.strip().splitlines()[-1] == "2"


def test_FA07_concurrent_publishers_of_one_output_create_it_exactly_once(
    tmp_path: Path, figure: Figure
) -> None:
    target = tmp_path / "out" / "graph.json"
    data = b'{"artifact":"same bytes"}'
    barrier = threading.Barrier(16)
    outcomes: list[str] = []
    lock = threading.Lock()

    def publisher() -> None:
        barrier.wait()
        try:
            publish.publish_exclusive(target, data)
            result = "created"
        except OutputExistsError:
            result = "exists"
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=publisher) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["created"] + ["exists"] * 15
    assert target.read_bytes() == data and [p.name for p in target.parent.iterdir()] == ["graph.json"]


# --- FA9 / FA10: I/O errors and read-only outputs -----------------------------------------------------------


def test_FA09_eio_on_read_excludes_that_file_with_a_reason_and_indexes_the_rest(
    make_tree: MakeTree, monkeypatch: pytest.MonkeyPatch, cli: Cli, figure: Figure
) -> None:
    root = make_tree(
        {"a.py": "def a():\n    return 1\n", "bad.py": "def bad():\n    pass\n", "z.md": "# Z\n"}
    )
    eio_on(monkeypatch, "bad.py")
    result = scan(root)
    assert [s.path for s in result.sources] == ["a.py", "z.md"]
    assert [(e.path, e.reason, e.detail) for e in result.excluded] == [
        ("bad.py", "unreadable", "Input/output error")
    ]
    _status, out, _ = cli("index", root, "--json")
    report = json.loads(out)
    silent = 3 - report["files_indexed"] - report["files_skipped"].get("unreadable", 0)
    figure("silent_drops", silent)
    assert report["files_indexed"] == 2 and silent == 0


def test_FA09_an_io_error_marks_the_build_partial_in_the_exit_status(
    make_tree: MakeTree, monkeypatch: pytest.MonkeyPatch, cli: Cli
) -> None:
    root = make_tree({"a.py": "x = 1\n", "bad.py": "y = 2\n"})
    eio_on(monkeypatch, "bad.py")
    status, _, _ = cli("index", root, "--json")
    assert status == 3  # partial: the index is usable, one file is listed as unreadable


def test_FA09_eio_when_re_verifying_a_source_is_reported_as_an_io_error(
    indexed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from prooftext.pack.verify import BIT_IO, verify_packet

    with prooftext.open(indexed) as index:
        saved = index.pack("separability matrix").to_dict()
    eio_on(monkeypatch, "separable.py")
    report = verify_packet(saved, indexed)
    assert report.status & BIT_IO


def test_FA10_a_read_only_output_directory_is_an_error_and_nothing_is_written(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "repo", {**SAMPLE_FILES, **SPEC})
    target = tmp_path / "ro"
    with tmpfs(target, "64k"):
        subprocess.run(["mount", "-o", "remount,ro", str(target)], check=True, capture_output=True)
        with pytest.raises(ProoftextError) as caught:
            lifecycle.run_manifest(root, target / "manifest.json", "SPEC.md", [])
        assert caught.value.code == "output_unwritable" and "Read-only" in caught.value.message
        assert list(target.iterdir()) == []


def test_FA10_a_read_only_root_cannot_hold_an_index_store(tmp_path: Path, cli: Cli) -> None:
    root = write_tree(tmp_path / "repo", dict(SAMPLE_FILES))
    with tmpfs(tmp_path / "ro-root", "1m") as ro:
        write_tree(ro, dict(SAMPLE_FILES))
        subprocess.run(["mount", "-o", "remount,ro", str(ro)], check=True, capture_output=True)
        status, out, err = cli("index", ro, "--json")
        assert status not in (0, 70) and json.loads(out)["error"]["code"] == "store_error"
        assert "Traceback" not in err
    assert root.is_dir()


def test_FA10_a_read_only_store_directory_fails_before_reading_sources(
    make_tree: MakeTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_tree({"a.py": "x = 1\n"})
    from prooftext.store import db

    def read_only(self: Path, *args: Any, **kwargs: Any) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(db.Path, "mkdir", read_only)
    reads: list[int] = []
    real_read = os.read
    monkeypatch.setattr(safeio.os, "read", lambda fd, n: reads.append(n) or real_read(fd, n))
    with pytest.raises(StoreError):
        prooftext.open(root)
    assert reads == []
