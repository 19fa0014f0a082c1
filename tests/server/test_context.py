"""The server context: closing it while the startup refresh still runs stops that refresh cleanly, and a
watching server answers each request from the files and rules on disk when it arrives."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import prooftext
from prooftext.server.context import ServerContext
from prooftext.server.dispatcher import Dispatcher
from prooftext.server.limits import Limits

FILES = 300
"""More than one batch of files, so that the refresh reports progress before it ends."""


@pytest.fixture
def many_files(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    for i in range(FILES):
        (root / f"mod_{i:03d}.py").write_text(f'def function_{i}():\n    return "value {i}"\n')
    return root


@pytest.fixture
def thread_failures() -> Iterator[list[threading.ExceptHookArgs]]:
    failures: list[threading.ExceptHookArgs] = []
    saved = threading.excepthook
    threading.excepthook = failures.append
    yield failures
    threading.excepthook = saved


def test_closing_during_the_startup_refresh_stops_it_and_waits_for_it(
    many_files: Path, thread_failures: list[threading.ExceptHookArgs]
) -> None:
    ctx = ServerContext.open(many_files, Limits(watch=False))
    heard: list[tuple[int, int]] = []

    def at_first_batch(done: int, total: int) -> None:
        heard.append((done, total))
        if len(heard) == 1:  # hold the refresh here until the server closes
            assert ctx.closing.wait(timeout=60)

    with ctx.progress_to(at_first_batch):
        ctx.warm_up()
        closer = threading.Thread(target=ctx.close)
        closer.start()
        closer.join(timeout=120)
    assert not closer.is_alive()
    assert not ctx.warming, "close returned while the startup refresh still ran"
    assert thread_failures == [], [f.exc_value for f in thread_failures]
    assert heard and heard[-1][0] < FILES, "the refresh went on after the server closed"
    with prooftext.open(many_files) as index:  # the store is whole: the next refresh completes it
        index.refresh()
        assert index.status().fresh


def test_a_startup_refresh_that_fails_logs_one_line_without_a_traceback(
    sample_repo: Path,
    thread_failures: list[threading.ExceptHookArgs],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ctx = ServerContext.open(sample_repo, Limits(watch=False))

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError("disk gone")

    monkeypatch.setattr(ctx.index, "refresh", broken)
    ctx.warm_up()
    ctx.close()
    assert thread_failures == []
    assert [r.getMessage() for r in caplog.records] == ["initial index refresh failed: disk gone"]
    assert all(r.exc_info is None for r in caplog.records)


def _call(dispatcher: Dispatcher, method: str, params: dict[str, object]) -> dict[str, object]:
    out = dispatcher.handle(
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    )
    assert out is not None
    reply: dict[str, object] = json.loads(out)
    return reply


def test_a_watching_server_applies_a_new_prooftext_ignore_rule_at_the_next_request(sample_repo: Path) -> None:
    ctx = ServerContext.open(sample_repo)
    dispatcher = Dispatcher(ctx)
    read = {"path": "modeling/separable.py"}
    try:
        for _ in range(2):  # the first request's walk installs the watches; the second is trusted
            assert "result" in _call(dispatcher, "context.read", read)
        rule = sample_repo / ".prooftext" / "ignore"
        rule.write_text("modeling/separable.py\n", encoding="utf-8")
        refused = _call(dispatcher, "context.read", read)
        assert refused["error"]["data"]["code"] == "source_excluded"  # type: ignore[index]
        rule.write_text("", encoding="utf-8")
        assert "result" in _call(dispatcher, "context.read", read)
    finally:
        ctx.close()


def test_the_process_of_a_pool_leaves_watching_the_root_to_its_workers(sample_repo: Path) -> None:
    pool = Limits(processes=2)
    parent = ServerContext.open(sample_repo, pool)
    worker = ServerContext.open(sample_repo, pool, worker=True)
    single = ServerContext.open(sample_repo)
    try:  # the pool's own process answers no request: events queued for it would only pile up
        assert parent.index.freshness_check["mode"] == "walk"
        assert worker.index.freshness_check == single.index.freshness_check
        assert worker.index.watch() == single.index.watch()
    finally:
        for ctx in (parent, worker, single):
            ctx.close()
