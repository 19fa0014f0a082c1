"""Who-uses on C: a call names a function by linkage. A file's own definition is the one it calls; a
``static`` function only from its file and the files including it; a function with external linkage is the
one definition of its name, the nearest the caller when platforms or programs define it apart, and possible
when two are as near. A prototype (whose name the grammar reads as a type), a function pointer parameter of
the name and a type of the name are no use; a function-like macro of the name makes a call possible. A
function named without a call (a callback passed on, a table's entry, ``&f``) is a reference, under the same
rules."""

from __future__ import annotations

from pathlib import Path

import pytest

import prooftext
from helpers import indexed_tree
from prooftext.api.risk import who_uses

TREE = {
    "src/util.h": """
        #ifndef UTIL_H
        #define UTIL_H
        UTIL_API util_int (util_size) (const char *s);
        static inline int clamp(int x) { return x < 0 ? 0 : x; }
        #endif
        """,
    "src/util.c": """
        #include "util.h"
        int util_size(const char *s) {
          return clamp(0) + helper(s);
        }
        static int helper(const char *s) {
          return 0;
        }
        """,
    "src/main.c": """
        #include "util.h"
        static int helper(const char *s) {
          return 1;
        }
        int main(void) {
          return util_size("x") + helper("y") + poll_once();
        }
        void run(int (*util_size)(const char *)) {
          util_size("z");
        }
        """,
    "src/other.c": """
        int other(void) {
          return clamp(3);
        }
        """,
    "src/unix/poll.c": """
        int poll_once(void) {
          return 0;
        }
        int tick(void) {
          return poll_once();
        }
        """,
    "src/win/poll.c": """
        int poll_once(void) {
          return 1;
        }
        int tick(void) {
          return poll_once();
        }
        """,
    "src/unix/timer.c": """
        int timer(void) {
          return poll_once();
        }
        """,
    "tools/fetch.c": """
        void usage(void) {
        }
        int main(void) {
          usage();
          return 0;
        }
        """,
    "tools/push.c": """
        void usage(void) {
        }
        int main(void) {
          usage();
          return 0;
        }
        """,
    "src/fast.h": """
        static inline int measure(const char *s) { return 0; }
        """,
    "src/measure.c": """
        int measure(const char *s) {
          return 1;
        }
        """,
    "src/report.c": """
        #include "fast.h"
        int report(void) {
          return measure("r");
        }
        """,
    "src/timer.h": """
        API int (on_tick) (void *loop);
        """,
    "src/loop.c": """
        #include "timer.h"
        static const struct entry table[] = {{"tick", on_tick}, {NULL, NULL}};
        int on_tick(void *loop) {
          return 0;
        }
        void start(void *loop) {
          timer_start(loop, on_tick, 10);
        }
        void hook(struct handler *h) {
          h->on_tick = &on_tick;
        }
        """,
    "src/unrelated.c": """
        /* on_tick is documented elsewhere */
        void log_it(struct timer *t) {
          puts("on_tick");
          t->on_tick = 0;
          t.on_tick = 0;
        }
        void shadow(void) {
          int on_tick = 3;
          use(on_tick);
        }
        """,
    "src/trace.h": """
        #define traced(x) log_call(#x, x)
        """,
    "src/traced.c": """
        #include "trace.h"
        int traced(int x) {
          return x;
        }
        """,
    "src/caller.c": """
        #include "trace.h"
        int caller(void) {
          return traced(1);
        }
        """,
    "test/test_poll.c": """
        TEST_IMPL(helper) {
          return poll_once() + tick();
        }
        """,
}


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_tree(tmp_path_factory.mktemp("c_tree"), TREE)


def _dependents(root: Path, path: str, name: str) -> dict[tuple[str, str], str]:
    """``(caller's path, qualname): found_by`` of who-uses of the function ``name`` defined in ``path``."""
    with prooftext.open(root) as index:
        node_id = index.conn.execute(
            "SELECT n.id FROM nodes n JOIN files f ON f.id = n.file_id WHERE f.path = ? AND n.name = ?"
            " AND n.kind = 'symbol'",
            (path, name),
        ).fetchone()[0]
        return {(d["path"], d["qualname"]): d["found_by"] for d in who_uses(index, node_id)}


def test_the_one_definition_with_external_linkage_is_what_another_file_calls(tree: Path) -> None:
    assert _dependents(tree, "src/util.c", "util_size") == {("src/main.c", "main"): "call"}


def test_a_prototype_s_name_read_as_a_type_is_no_use(tree: Path) -> None:
    assert ("src/util.h", "util.h") not in _dependents(tree, "src/util.c", "util_size")


def test_a_function_pointer_parameter_of_the_name_is_no_use(tree: Path) -> None:
    assert ("src/main.c", "run") not in _dependents(tree, "src/util.c", "util_size")


def test_a_static_function_is_called_from_its_own_file_only(tree: Path) -> None:
    assert _dependents(tree, "src/util.c", "helper") == {("src/util.c", "util_size"): "call"}
    assert _dependents(tree, "src/main.c", "helper") == {("src/main.c", "main"): "call"}


def test_a_header_s_static_inline_function_is_called_where_the_header_is_included(tree: Path) -> None:
    assert _dependents(tree, "src/util.h", "clamp") == {("src/util.c", "util_size"): "call"}


def test_a_header_s_static_inline_function_is_called_instead_of_a_definition_elsewhere(tree: Path) -> None:
    assert _dependents(tree, "src/fast.h", "measure") == {("src/report.c", "report"): "call"}
    assert _dependents(tree, "src/measure.c", "measure") == {}


def test_a_platform_s_definition_is_the_one_its_own_directory_calls(tree: Path) -> None:
    unix = _dependents(tree, "src/unix/poll.c", "poll_once")
    win = _dependents(tree, "src/win/poll.c", "poll_once")
    assert unix[("src/unix/timer.c", "timer")] == "call"
    assert ("src/unix/timer.c", "timer") not in win
    assert unix[("src/unix/poll.c", "tick")] == "call"
    assert ("src/win/poll.c", "tick") not in unix
    assert win[("src/win/poll.c", "tick")] == "call"


def test_a_file_calls_its_own_definition_of_a_name_two_programs_define(tree: Path) -> None:
    assert _dependents(tree, "tools/fetch.c", "usage") == {("tools/fetch.c", "main"): "call"}


def test_a_caller_as_near_to_two_definitions_may_call_either(tree: Path) -> None:
    assert _dependents(tree, "src/unix/poll.c", "poll_once")[("src/main.c", "main")] == "possible"
    assert _dependents(tree, "src/win/poll.c", "poll_once")[("test/test_poll.c", "TEST_IMPL")] == "possible"


def test_a_macro_s_argument_naming_a_function_is_no_parameter(tree: Path) -> None:
    assert _dependents(tree, "src/unix/poll.c", "tick")[("test/test_poll.c", "TEST_IMPL")] == "possible"


def test_a_function_named_without_a_call_is_referenced_by_a_callback_a_table_and_its_address(
    tree: Path,
) -> None:
    assert _dependents(tree, "src/loop.c", "on_tick") == {
        ("src/loop.c", "src/loop.c"): "reference",  # the table, at file scope
        ("src/loop.c", "start"): "reference",
        ("src/loop.c", "hook"): "reference",
    }


def test_a_comment_a_string_a_field_a_prototype_and_a_local_of_the_name_are_no_reference(tree: Path) -> None:
    found = _dependents(tree, "src/loop.c", "on_tick")
    assert ("src/unrelated.c", "log_it") not in found
    assert ("src/unrelated.c", "shadow") not in found
    assert ("src/timer.h", "src/timer.h") not in found


def test_a_function_like_macro_of_the_name_makes_a_call_possible(tree: Path) -> None:
    assert _dependents(tree, "src/traced.c", "traced") == {("src/caller.c", "caller"): "possible"}
