"""The index store: WAL, versioned schema, FTS5 with split identifiers, incremental refresh."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import prooftext
from helpers import eio_on
from prooftext.corpus.config import CorpusConfig
from prooftext.errors import ConfigError, StoreCorruptError, StoreSchemaError
from prooftext.store import db, refresh
from prooftext.store.schema import SCHEMA_VERSION


def _indexed(root: Path) -> prooftext.RefreshReport:
    with prooftext.open(root) as index:
        return index.refresh(count_edges=True)


def test_the_store_is_sqlite_in_wal_mode_under_dot_prooftext(sample_repo: Path) -> None:
    _indexed(sample_repo)
    conn = sqlite3.connect(sample_repo / ".prooftext" / "index.sqlite")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_first_refresh_indexes_every_file_and_reports_counts(sample_repo: Path) -> None:
    report = _indexed(sample_repo)
    assert report.files_indexed == 5
    assert report.nodes > 5 and report.edges > 0
    assert "internal" not in report.files_skipped or report.files_skipped["internal"] >= 1


def test_a_second_refresh_skips_unchanged_files(sample_repo: Path) -> None:
    _indexed(sample_repo)
    report = _indexed(sample_repo)
    assert (report.files_indexed, report.files_unchanged, report.files_removed) == (0, 5, 0)


def test_only_the_changed_file_is_reextracted_and_deleted_files_are_removed(sample_repo: Path) -> None:
    _indexed(sample_repo)
    (sample_repo / "util" / "strings.py").write_text("def kebab(text):\n    return text\n")
    (sample_repo / "docs" / "guide.md").unlink()
    report = _indexed(sample_repo)
    assert (report.files_indexed, report.files_removed) == (1, 1)
    with prooftext.open(sample_repo) as index:
        names = {r[0] for r in index.conn.execute("SELECT name FROM nodes")}
        fts = index.conn.execute("SELECT count(*) FROM nodes_fts").fetchone()[0]
        nodes = index.conn.execute("SELECT count(*) FROM nodes").fetchone()[0]
    assert "kebab" in names and "slugify" not in names
    assert fts == nodes


def test_each_committed_batch_of_a_refresh_has_its_own_generation(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reader between two batches must not find a generation that also names another state."""
    _indexed(sample_repo)
    for path in ("util/strings.py", "modeling/core.py", "modeling/separable.py"):
        target = sample_repo / path
        target.write_text(target.read_text() + "\n# edited\n")
    (sample_repo / "docs" / "guide.md").unlink()
    monkeypatch.setattr(refresh, "BATCH_FILES", 1)
    reader = db.connect(sample_repo)
    seen: dict[object, frozenset[tuple[str, str]]] = {}

    def observe(done: int, total: int) -> None:
        state = frozenset(reader.execute("SELECT path, sha256 FROM files"))
        generation = refresh.read_meta(reader, "generation")
        assert seen.get(generation, state) == state
        seen[generation] = state

    with prooftext.open(sample_repo) as index:
        observe(0, 0)
        report = index.refresh(observe)
        observe(0, 0)
    assert (report.files_indexed, report.files_removed) == (3, 1)
    assert len(seen) == 5  # before, after each of the three batches, after the removal


def test_a_file_that_reading_now_excludes_leaves_the_index_and_moves_the_generation(
    sample_repo: Path,
) -> None:
    _indexed(sample_repo)
    with prooftext.open(sample_repo) as index:
        before = refresh.read_meta(index.conn, "generation")
    target = sample_repo / "util" / "strings.py"
    key = "-----BEGIN RSA PRIV" + "ATE KEY-----\n" + ("a1B2c3D4e5F6g7H8" * 4 + "\n") * 3 + "-----END RSA PRIV"
    target.write_text(target.read_text() + 'KEY = """' + key + 'ATE KEY-----"""\n')  # always excluded
    report = _indexed(sample_repo)
    assert (report.files_indexed, report.files_removed, report.files_skipped.get("secret")) == (0, 1, 1)
    with prooftext.open(sample_repo) as index:
        assert refresh.read_meta(index.conn, "generation") != before
        paths = {r[0] for r in index.conn.execute("SELECT path FROM files")}
        fts = index.conn.execute("SELECT count(*) FROM nodes_fts").fetchone()[0]
        nodes = index.conn.execute("SELECT count(*) FROM nodes").fetchone()[0]
    assert "util/strings.py" not in paths
    assert fts == nodes


def test_a_new_label_rule_relabels_files_that_did_not_change(sample_repo: Path) -> None:
    _indexed(sample_repo)
    (sample_repo / "prooftext.toml").write_text(
        '[[labels]]\nglob = "docs/**"\nsensitivity = "owner-private"\n'
    )
    report = _indexed(sample_repo)
    assert (report.files_indexed, report.files_unchanged) == (6, 0)
    with prooftext.open(sample_repo) as index:
        assert _sensitivity(index, "docs/guide.md") == "owner-private"
    again = _indexed(sample_repo)
    assert (again.files_indexed, again.files_unchanged) == (0, 6)


OWNER_PRIVATE_DOCS = '[[labels]]\nglob = "docs/**"\nsensitivity = "owner-private"\n'


def _sensitivity(index: prooftext.Index, path: str) -> str:
    return str(index.conn.execute("SELECT sensitivity FROM files WHERE path = ?", (path,)).fetchone()[0])


def test_a_long_lived_handle_follows_an_edit_of_the_configuration(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        index.refresh()
        (sample_repo / "prooftext.toml").write_text(OWNER_PRIVATE_DOCS)
        status = index.status()
        assert (status.changed, status.added, status.unchanged) == (5, 1, 0)
        index.refresh()
        assert _sensitivity(index, "docs/guide.md") == "owner-private"
        (sample_repo / "prooftext.toml").write_text('[scan]\nsecrets = "shred"\n')
        with pytest.raises(ConfigError):
            index.refresh()


def test_saving_the_config_with_a_bom_and_a_comment_reads_no_source_again(sample_repo: Path) -> None:
    config = sample_repo / "prooftext.toml"
    config.write_text(OWNER_PRIVATE_DOCS)
    _indexed(sample_repo)
    config.write_bytes(b"\xef\xbb\xbf# saved by a Windows editor\n" + OWNER_PRIVATE_DOCS.encode())
    report = _indexed(sample_repo)
    # Only prooftext.toml itself, an indexed source, is read again: the settings did not change.
    assert (report.files_indexed, report.files_unchanged) == (1, 5)
    with prooftext.open(sample_repo) as index:
        assert _sensitivity(index, "docs/guide.md") == "owner-private"


def test_a_handle_given_a_configuration_keeps_it(sample_repo: Path) -> None:
    with prooftext.open(sample_repo, config=CorpusConfig()) as index:
        index.refresh()
        (sample_repo / "prooftext.toml").write_text(OWNER_PRIVATE_DOCS)
        index.refresh()
        assert _sensitivity(index, "docs/guide.md") == "repository-private"


def test_a_store_read_under_earlier_rules_reads_every_file_once_more(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _indexed(sample_repo)
    monkeypatch.setattr(refresh, "READING_REVISION", refresh.READING_REVISION + 1)
    report = _indexed(sample_repo)
    assert (report.files_indexed, report.files_unchanged, report.files_removed) == (5, 0, 0)
    with prooftext.open(sample_repo) as index:
        files = index.conn.execute("SELECT count(*) FROM files").fetchone()[0]
        fts = index.conn.execute("SELECT count(*) FROM nodes_fts").fetchone()[0]
        nodes = index.conn.execute("SELECT count(*) FROM nodes").fetchone()[0]
    assert (files, fts) == (5, nodes)
    assert _indexed(sample_repo).files_unchanged == 5


def test_a_store_read_with_other_parser_versions_reads_every_file_once_more(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _indexed(sample_repo)
    upgraded = (*refresh.parser_versions(), ("tree_sitter_python", "99.0.0"))
    monkeypatch.setattr(refresh, "parser_versions", lambda: upgraded)
    assert _indexed(sample_repo).files_indexed == 5


def test_status_counts_changes_since_the_last_index_without_reading(sample_repo: Path) -> None:
    _indexed(sample_repo)
    (sample_repo / "new.py").write_text("x = 1\n")
    (sample_repo / "util" / "strings.py").write_text("y = 2\n")
    with prooftext.open(sample_repo) as index:
        status = index.status().to_dict()
    assert status["added"] == 1 and status["changed"] == 1
    assert status["files_changed_since_index"] == 2 and status["fresh"] is False


def test_stat_signatures_are_read_from_a_covering_index_not_past_the_file_texts(sample_repo: Path) -> None:
    _indexed(sample_repo)
    conn = db.connect(sample_repo)
    plan = " ".join(str(row[-1]) for row in conn.execute("EXPLAIN QUERY PLAN " + refresh.KNOWN_SQL))
    assert "COVERING INDEX files_stat" in plan


def test_a_rewrite_that_keeps_size_and_mtime_is_noticed_and_read_again(sample_repo: Path) -> None:
    path = sample_repo / "util" / "strings.py"
    _indexed(sample_repo)
    before = path.stat()
    old = path.read_text(encoding="utf-8")
    new = old.replace("lower", "upper", 1)
    assert new != old and len(new) == len(old)
    # As ``cp -p`` or ``rsync -t`` leave it: new content, the old size and mtime (only the ctime moves).
    path.write_text(new, encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    with prooftext.open(sample_repo) as index:
        status = index.status()
        assert (status.changed, status.fresh) == (1, False)
        assert index.refresh().files_indexed == 1
        stored = index.conn.execute("SELECT text FROM files WHERE path = 'util/strings.py'").fetchone()[0]
    assert stored == new


def test_a_file_excluded_as_unreadable_is_read_again_once_it_can_be(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    eio_on(monkeypatch, "strings.py")
    report = _indexed(sample_repo)
    assert (report.files_indexed, report.files_skipped.get("unreadable")) == (4, 1)
    monkeypatch.undo()
    report = _indexed(sample_repo)
    assert (report.files_indexed, report.files_unchanged) == (1, 4)
    assert "unreadable" not in report.files_skipped
    with prooftext.open(sample_repo) as index:
        paths = {r[0] for r in index.conn.execute("SELECT path FROM files")}
        assert index.status().fresh
    assert "util/strings.py" in paths


def test_a_file_that_stays_unreadable_leaves_the_index_fresh_and_a_retry_keeps_its_generation(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    eio_on(monkeypatch, "strings.py")
    _indexed(sample_repo)
    with prooftext.open(sample_repo) as index:
        before = refresh.read_meta(index.conn, "generation")
        # Fresh: otherwise every request of a server would refresh while the file stays unreadable.
        status = index.status()
        assert (status.added, status.changed, status.fresh) == (0, 0, True)
        report = index.refresh()
        assert (report.files_indexed, report.files_skipped.get("unreadable")) == (0, 1)
        assert refresh.read_meta(index.conn, "generation") == before


def test_identifiers_are_searchable_whole_and_by_their_parts(sample_repo: Path) -> None:
    _indexed(sample_repo)
    conn = db.connect(sample_repo)

    def hits(term: str) -> int:
        return conn.execute(
            "SELECT count(*) FROM nodes_fts WHERE nodes_fts MATCH ?", (f'"{term}"',)
        ).fetchone()[0]

    assert hits("separability_matrix") > 0
    assert hits("separability") > 0
    assert hits("compound") > 0  # from CompoundModel, split on camelCase


def test_a_store_from_a_newer_version_is_refused(sample_repo: Path) -> None:
    _indexed(sample_repo)
    conn = sqlite3.connect(sample_repo / ".prooftext" / "index.sqlite")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreSchemaError):
        db.connect(sample_repo)


def test_a_corrupt_store_is_a_clear_error(sample_repo: Path) -> None:
    (sample_repo / ".prooftext").mkdir()
    (sample_repo / ".prooftext" / "index.sqlite").write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreCorruptError):
        db.connect(sample_repo)


def test_readers_are_not_blocked_while_a_writer_holds_its_transaction(sample_repo: Path) -> None:
    _indexed(sample_repo)
    writer = db.connect(sample_repo)
    reader = db.connect(sample_repo)
    with db.transaction(writer):
        writer.execute("DELETE FROM excluded")
        assert reader.execute("SELECT count(*) FROM files").fetchone()[0] == 5


KILL_SCRIPT = textwrap.dedent(
    """
    import os, signal, sys
    import prooftext
    from prooftext.store import refresh as r
    calls = {"n": 0}
    original = r._apply
    def dying(*args):
        calls["n"] += 1
        if calls["n"] == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return original(*args)
    r._apply = dying
    r.BATCH_FILES = 5
    r.PARALLEL_MIN_FILES = 10**9
    with prooftext.open(sys.argv[1]) as index:
        index.refresh()
    """
)


def test_a_refresh_killed_mid_run_is_completed_by_the_next_without_loss(tmp_path: Path) -> None:
    root = tmp_path / "many"
    for i in range(23):
        (root / f"pkg{i % 3}").mkdir(parents=True, exist_ok=True)
        (root / f"pkg{i % 3}" / f"m{i}.py").write_text(f"def function_{i}():\n    return {i}\n")
    proc = subprocess.run([sys.executable, "-c", KILL_SCRIPT, str(root)], capture_output=True, check=False)
    assert proc.returncode == -signal.SIGKILL
    with prooftext.open(root) as index:
        partial = index.conn.execute("SELECT count(*) FROM files").fetchone()[0]
        assert partial == 5  # exactly the first committed batch survived
        report = index.refresh()
        assert report.files_indexed == 18
        names = {r[0] for r in index.conn.execute("SELECT name FROM nodes WHERE kind = 'symbol'")}
    assert names == {f"function_{i}" for i in range(23)}
    assert os.path.exists(root / ".prooftext" / "index.sqlite")


def _write_fanout_corpus(root: Path, definitions: int) -> None:
    """``definitions`` modules each defining ``helper``, and one module calling it twice."""
    for n in range(definitions):
        (root / f"m{n}.py").write_text("def helper():\n    return 1\n")
    (root / "caller.py").write_text("def run():\n    helper()\n    return helper()\n")


def _reference_count(root: Path) -> int:
    """The edge count less every edge kind that is not a name reference."""
    with prooftext.open(root) as index:
        total = index.refresh(count_edges=True).edges
    conn = sqlite3.connect(root / ".prooftext" / "index.sqlite")
    others = sum(
        conn.execute(query).fetchone()[0]
        for query in (
            "SELECT count(*) FROM edges",
            "SELECT count(*) FROM imports WHERE resolved_path IS NOT NULL",
            "SELECT count(*) FROM contradicts",
            "SELECT count(*) FROM links",
        )
    )
    conn.close()
    assert total is not None
    return total - others


def test_the_edge_count_counts_a_name_reference_once_per_node_up_to_the_fanout_cap(tmp_path: Path) -> None:
    from prooftext.graph.resolve import MAX_REFERENCE_FANOUT

    at_cap, over_cap = tmp_path / "at", tmp_path / "over"
    at_cap.mkdir(), over_cap.mkdir()
    _write_fanout_corpus(at_cap, MAX_REFERENCE_FANOUT)
    _write_fanout_corpus(over_cap, MAX_REFERENCE_FANOUT + 1)
    assert _reference_count(at_cap) == 1
    assert _reference_count(over_cap) == 0


def _imports(root: Path) -> dict[str, str | None]:
    with prooftext.open(root) as index:
        index.refresh()
    conn = sqlite3.connect(root / ".prooftext" / "index.sqlite")
    try:
        rows = conn.execute(
            "SELECT i.module, i.resolved_path FROM imports i JOIN files f ON f.id = i.file_id"
        )
        return {str(module): resolved for module, resolved in rows}
    finally:
        conn.close()


def test_php_imports_follow_the_composer_manifest_and_are_resolved_again_when_it_changes(
    tmp_path: Path,
) -> None:
    for directory in ("lib/Support", "src/Support"):
        (tmp_path / directory).mkdir(parents=True)
        (tmp_path / directory / "Arr.php").write_text("<?php\nnamespace Acme\\Support;\nclass Arr {}\n")
    (tmp_path / "src" / "Gate.php").write_text(
        "<?php\nnamespace Acme;\nuse Acme\\Support\\Arr;\nclass Gate {}\n"
    )
    manifest = tmp_path / "composer.json"
    manifest.write_text('{"autoload": {"psr-4": {"Acme\\\\": "src/"}}}')
    assert _imports(tmp_path) == {"Acme\\Support\\Arr": "src/Support/Arr.php"}
    manifest.write_text(
        '{"autoload": {"psr-4": {"Acme\\\\": "src/", "Acme\\\\Support\\\\": "lib/Support/"}}}'
    )
    assert _imports(tmp_path) == {"Acme\\Support\\Arr": "lib/Support/Arr.php"}  # Gate.php was not read again


def test_scala_imports_resolve_to_the_defining_file_and_again_when_another_scala_file_changes(
    tmp_path: Path,
) -> None:
    package = tmp_path / "src" / "app" / "client"
    package.mkdir(parents=True)
    (package / "request.scala").write_text("package app.client\ncase class Request(uri: String)\n")
    (package / "backend.scala").write_text("package app.client\ntrait Backend\n")
    (tmp_path / "src" / "Main.scala").write_text("import app.client.Request\nobject Main\n")
    assert _imports(tmp_path) == {"app.client.Request": "src/app/client/request.scala"}
    (package / "request.scala").write_text("package app.client\ncase class Response(code: Int)\n")
    (package / "backend.scala").write_text("package app.client\ntrait Backend\ncase class Request()\n")
    assert _imports(tmp_path) == {"app.client.Request": "src/app/client/backend.scala"}  # Main unread


def test_kotlin_imports_resolve_to_the_defining_file_and_again_when_another_kotlin_file_changes(
    tmp_path: Path,
) -> None:
    core = tmp_path / "lib-core" / "common" / "src"  # the root package `app.lib`, its directories omitting it
    core.mkdir(parents=True)
    (core / "Builders.kt").write_text("package app.lib\nfun launch() {}\n")
    (core / "Jobs.kt").write_text("package app.lib\ninterface Job\n")
    (tmp_path / "Main.kt").write_text("import app.lib.launch\nfun main() = launch()\n")
    assert _imports(tmp_path) == {"app.lib.launch": "lib-core/common/src/Builders.kt"}
    (core / "Builders.kt").write_text("package app.lib\nfun async() {}\n")
    (core / "Jobs.kt").write_text("package app.lib\ninterface Job\nfun launch() {}\n")
    assert _imports(tmp_path) == {"app.lib.launch": "lib-core/common/src/Jobs.kt"}  # Main.kt unread


def test_a_lua_require_resolves_to_the_module_file_and_again_when_a_shallower_one_appears(
    tmp_path: Path,
) -> None:
    fixture = tmp_path / "spec" / "fixtures" / "app"
    fixture.mkdir(parents=True)
    (fixture / "db.lua").write_text("local M = {}\nfunction M.open() end\nreturn M\n")
    (tmp_path / "main.lua").write_text('local db = require("app.db")\ndb.open()\n')
    assert _imports(tmp_path) == {"app.db": "spec/fixtures/app/db.lua"}
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "db.lua").write_text("local M = {}\nfunction M.open() end\nreturn M\n")
    assert _imports(tmp_path) == {"app.db": "app/db.lua"}  # main.lua unread
