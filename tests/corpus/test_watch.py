"""The directory watcher: a watched index learns of every change before the next status call, without a
walk when nothing changed, and falls back to walking where inotify is unavailable."""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import sys
from pathlib import Path

import pytest

import prooftext
from prooftext import index as index_module
from prooftext.corpus import watch as watch_module
from prooftext.corpus.watch import DirectoryWatcher

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux only")


class WalkCounter:
    """Counts tree walks and comparisons of a walk with the store made through the index."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.walks = 0
        self.comparisons = 0
        real_walk, real_plan = index_module.walk, index_module.plan

        def walking(*args: object, **kwargs: object) -> object:
            self.walks += 1
            return real_walk(*args, **kwargs)  # type: ignore[arg-type]

        def comparing(*args: object, **kwargs: object) -> object:
            self.comparisons += 1
            return real_plan(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(index_module, "walk", walking)
        monkeypatch.setattr(index_module, "plan", comparing)


@pytest.fixture
def watched(sample_repo: Path) -> prooftext.Index:
    index = prooftext.open(sample_repo)
    index.refresh()
    assert index.watch()
    index.status()  # the first walk installs the watches; the second, with them in place, is trusted
    index.status()
    yield index
    index.close()


def test_an_unchanged_tree_is_answered_without_a_walk(
    watched: prooftext.Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    counter = WalkCounter(monkeypatch)
    for _ in range(5):
        assert watched.status().fresh
    assert (counter.walks, counter.comparisons) == (0, 0)
    assert watched.freshness_check["mode"] == "watch"


def test_an_edit_is_seen_by_the_very_next_status_call(watched: prooftext.Index, sample_repo: Path) -> None:
    path = next(p for p in sorted(sample_repo.rglob("*.py")))
    path.write_text(path.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    status = watched.status()
    assert (status.changed, status.fresh) == (1, False)


def test_an_edit_costs_one_walk_shared_by_status_and_the_refresh(
    watched: prooftext.Index, sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counter = WalkCounter(monkeypatch)
    (sample_repo / "added.py").write_text("def added():\n    return 1\n", encoding="utf-8")
    assert watched.status().added == 1
    watched.refresh()
    assert watched.status().fresh
    assert watched.status().fresh
    assert counter.walks == 1
    assert counter.comparisons == 2  # the first status and the one after the refresh moved the store


def test_a_refresh_by_another_process_is_compared_without_walking_again(
    watched: prooftext.Index, sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (sample_repo / "added.py").write_text("def added():\n    return 1\n", encoding="utf-8")
    assert not watched.status().fresh
    with prooftext.open(sample_repo) as other:
        other.refresh()
    counter = WalkCounter(monkeypatch)
    assert watched.status().fresh
    assert (counter.walks, counter.comparisons) == (0, 1)


def test_files_in_a_new_directory_are_seen_before_and_after_it_is_watched(
    watched: prooftext.Index, sample_repo: Path
) -> None:
    (sample_repo / "fresh_pkg").mkdir()
    (sample_repo / "fresh_pkg" / "one.py").write_text("ONE = 1\n", encoding="utf-8")
    assert watched.status().added == 1
    watched.refresh()
    assert watched.status().fresh
    (sample_repo / "fresh_pkg" / "two.py").write_text("TWO = 2\n", encoding="utf-8")
    assert watched.status().added == 1


def test_a_deleted_directory_is_seen(watched: prooftext.Index, sample_repo: Path) -> None:
    victim = next(p for p in sorted(sample_repo.iterdir()) if p.is_dir() and not p.name.startswith("."))
    shutil.rmtree(victim)
    assert watched.status().removed >= 1


def test_writes_inside_the_store_are_not_changes(watched: prooftext.Index, sample_repo: Path) -> None:
    watcher = DirectoryWatcher(sample_repo)
    watcher.sync([""])
    before = watcher.epoch()
    (sample_repo / ".prooftext" / "scratch").write_text("x", encoding="utf-8")
    (sample_repo / ".git").mkdir(exist_ok=True)
    assert watcher.epoch() == before
    (sample_repo / "new.txt").write_text("x", encoding="utf-8")
    assert watcher.epoch() == before + 1
    watcher.close()


def test_without_inotify_every_status_walks_and_stays_correct(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watch_module, "_libc", lambda: None)
    index = prooftext.open(sample_repo)
    index.refresh()
    assert not index.watch()
    check = index.freshness_check
    assert check["mode"] == "walk" and "not available" in str(check["reason"])
    counter = WalkCounter(monkeypatch)
    assert index.status().fresh and index.status().fresh
    assert counter.walks == 2
    index.refresh()
    assert counter.walks == 3
    index.close()


def test_an_edit_of_the_prooftext_ignore_file_is_seen_by_the_very_next_status_call(
    watched: prooftext.Index, sample_repo: Path
) -> None:
    victim = sorted(p for p in sample_repo.rglob("*.py") if ".prooftext" not in p.parts)[0]
    rule = sample_repo / ".prooftext" / "ignore"
    rule.write_text(victim.relative_to(sample_repo).as_posix() + "\n", encoding="utf-8")
    assert watched.status().removed == 1
    watched.refresh()
    assert watched.status().fresh
    rule.unlink()
    assert watched.status().added == 1


QUEUE_LENGTH = Path("/proc/sys/fs/inotify/max_queued_events")
"""How many events the kernel queues for one watcher before it drops the rest for one overflow event."""


def _overflow(watcher_root: Path) -> None:
    """Queue more events than the kernel keeps, so that every later one is dropped for one overflow event:
    attribute changes that alternate between two files (the kernel merges only a repeat of its last event)."""
    limit = int(QUEUE_LENGTH.read_text(encoding="ascii")) if QUEUE_LENGTH.is_file() else 0
    if not 0 < limit <= 1 << 18:
        pytest.skip(f"the event queue's length is unknown or too long to fill here ({limit})")
    pair = [watcher_root / "overflow_a.txt", watcher_root / "overflow_b.txt"]
    for path in pair:
        path.write_text("x\n", encoding="utf-8")
    for turn in range(limit + 2):
        os.utime(pair[turn % 2], ns=(turn, turn))


def test_a_directory_removed_and_made_again_while_the_event_queue_overflowed_is_watched_again(
    watched: prooftext.Index, sample_repo: Path
) -> None:
    victim = next(p for p in sorted(sample_repo.iterdir()) if p.is_dir() and not p.name.startswith("."))
    _overflow(sample_repo)
    shutil.rmtree(victim)  # its removal (and the end of its watch) is among the events the kernel dropped
    victim.mkdir()
    (victim / "one.py").write_text("ONE = 1\n", encoding="utf-8")
    assert not watched.status().fresh
    watched.refresh()
    assert watched.status().fresh and watched.status().fresh
    (victim / "two.py").write_text("TWO = 2\n", encoding="utf-8")
    assert watched.status().added == 1


class _LimitedLibc:
    """The C library with inotify's per-user limits reached: ``inotify_add_watch`` (or with ``instances``,
    ``inotify_init1``) fails as the kernel fails it."""

    def __init__(self, real: object, instances: bool = False) -> None:
        self._real = real
        self._instances = instances

    def inotify_init1(self, flags: int) -> int:
        if self._instances:
            ctypes.set_errno(errno.EMFILE)
            return -1
        return int(self._real.inotify_init1(flags))  # type: ignore[attr-defined]

    def inotify_add_watch(self, fd: int, path: bytes, mask: int) -> int:
        ctypes.set_errno(errno.ENOSPC)
        return -1

    def inotify_rm_watch(self, fd: int, wd: int) -> int:
        return 0


def test_a_reached_watch_limit_falls_back_to_walking_and_names_the_limit_not_a_full_disk(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = watch_module._libc()
    monkeypatch.setattr(watch_module, "_libc", lambda: _LimitedLibc(real))
    with prooftext.open(sample_repo) as index:
        index.refresh()
        assert index.watch()
        assert index.status().fresh
        check = index.freshness_check
        assert check["mode"] == "walk"
        assert "fs.inotify.max_user_watches" in str(check["reason"])
        assert "No space left on device" not in str(check["reason"])
        (sample_repo / "added.py").write_text("ADDED = 1\n", encoding="utf-8")
        assert index.status().added == 1


def test_a_reached_instance_limit_names_the_limit(sample_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = watch_module._libc()
    monkeypatch.setattr(watch_module, "_libc", lambda: _LimitedLibc(real, instances=True))
    with prooftext.open(sample_repo) as index:
        assert not index.watch()
        assert "fs.inotify.max_user_instances" in str(index.freshness_check["reason"])


def test_an_edit_through_a_hard_link_from_outside_the_root_is_seen_by_the_very_next_status_call(
    sample_repo: Path, tmp_path: Path
) -> None:
    victim = sorted(p for p in sample_repo.rglob("*.py") if ".prooftext" not in p.parts)[0]
    elsewhere = tmp_path / "elsewhere.py"
    os.link(victim, elsewhere)  # a write through it is no event in the victim's directory
    with prooftext.open(sample_repo) as index:
        index.refresh()
        assert index.watch()
        assert index.status().fresh and index.status().fresh
        with elsewhere.open("a", encoding="utf-8") as out:
            out.write("# edited through the other link\n")
        assert index.status().changed == 1


def _mounted(root: Path, kind: str) -> str:
    """A ``/proc/self/mountinfo`` in which the file system holding ``root`` is of type ``kind``."""
    st = os.stat(root)
    device = f"{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
    return (
        "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
        f"27 1 {device} / /mnt/c\\040drive rw,relatime shared:1 - {kind} C:\\134 rw,aname=drvfs\n"
    )


@pytest.mark.parametrize(
    "kind", ["9p", "drvfs", "nfs4", "cifs", "virtiofs", "fakeowner", "fuse.sshfs", "fuse.grpcfuse", "vboxsf"]
)
def test_a_root_on_a_shared_or_network_file_system_is_walked_since_changes_made_elsewhere_raise_no_event(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    monkeypatch.setattr(watch_module, "_mountinfo", lambda: _mounted(sample_repo, kind))
    with prooftext.open(sample_repo) as index:
        assert not index.watch()
        reason = str(index.freshness_check["reason"])
        assert index.freshness_check["mode"] == "walk" and kind in reason, reason


@pytest.mark.parametrize(
    "kind", ["ext4", "btrfs", "xfs", "tmpfs", "overlay", "fuseblk", "fuse.fuse-overlayfs"]
)
def test_a_root_on_a_local_file_system_is_watched(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    monkeypatch.setattr(watch_module, "_mountinfo", lambda: _mounted(sample_repo, kind))
    with prooftext.open(sample_repo) as index:
        assert index.watch()
