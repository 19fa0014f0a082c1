"""Data and history (vendored copies, minified or generated files, translation catalogues, change logs) are
weighed at the policy's data factor, found by path or by line length, unless the query names the file."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from helpers import write_tree
from prooftext.select.candidates import SCALE
from prooftext.select.corpus_facts import find_data_files, find_third_party
from prooftext.select.policy import DEFAULT_POLICY
from under_policy import ranked_under

ROUTER = """'use strict';

// Match a request path against a route and collect its named parameters.
function matchRoute(route, requestPath) {
  const found = route.regexp.exec(requestPath);
  if (!found) return null;
  const params = {};
  route.keys.forEach(function (key, i) { params[key] = found[i + 1]; });
  return params;
}

module.exports = { matchRoute: matchRoute };
"""


def _history() -> str:
    entries = [
        f"4.{v}.0 / 2020-01-{v:02d}\n==================\n\n  * router: fix route match with parameters {v}\n"
        for v in range(20, 0, -1)
    ]
    return "History\n=======\n\n" + "\n".join(entries)


def _tree(root: Path) -> Path:
    write_tree(root, {"lib/router.js": ROUTER, "History.md": _history()})
    return root


def _history_weight(root: Path, query: str, data_factor: float = DEFAULT_POLICY.data_factor) -> int:
    hits = ranked_under(root, query, replace(DEFAULT_POLICY, data_factor=data_factor))
    return int(next(h for h in hits if h["path"] == "History.md")["components"]["deweight"])


def test_a_change_log_is_weighed_at_the_data_factor_below_the_code_it_speaks_of(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    query = "how does the router match a route with parameters?"
    assert _history_weight(root, query) == round(DEFAULT_POLICY.data_factor * SCALE)
    assert _history_weight(root, query, data_factor=1.0) == SCALE
    assert ranked_under(root, query, DEFAULT_POLICY)[0]["path"] == "lib/router.js"


def test_a_query_that_names_the_file_lifts_the_data_factor(tmp_path: Path) -> None:
    weight = _history_weight(_tree(tmp_path), "what does History.md say about route parameters?")
    assert weight == round(DEFAULT_POLICY.doc_factor * SCALE)  # a document still, no longer data


def test_data_files_are_found_by_path_and_by_minified_line_length() -> None:
    dense = DEFAULT_POLICY.dense_line_bytes
    files = {
        path: (fid, "code", "0" * 64, size, lines)
        for fid, (path, size, lines) in enumerate(
            [
                ("src/app.py", 4_000, 120),
                ("static/jquery-3.6.0.min.js", 90_000, 2),
                ("vendor/lib/util.js", 2_000, 80),
                ("astropy/extern/jquery/data/js/jquery.dataTables.js", 50_000, 1_500),  # vendored, no version
                ("sklearn/externals/_arff.py", 40_000, 1_100),
                ("src/extern.py", 2_000, 60),  # a module of that name is code
                ("locale/de/LC_MESSAGES/app.po", 9_000, 400),
                ("CHANGES.rst", 30_000, 900),
                ("docs/whatsnew/3.1.rst", 5_000, 200),
                ("api/service_pb2.py", 7_000, 150),
                ("api/service.pb.go", 9_000, 300),  # protobuf's generated code in other languages
                ("api/service_grpc.pb.go", 5_000, 200),
                ("web/service_pb.js", 6_000, 250),
                ("package-lock.json", 400_000, 12_000),  # dependency lock files are generated
                ("Cargo.lock", 60_000, 2_400),
                ("web/yarn.lock", 80_000, 3_000),
                ("package.json", 2_000, 60),  # the manifest is not
                ("assets/bundle.js", dense * 10 + 1, 10),  # minified-long lines, no telling path
                ("assets/app.js", dense * 10, 10),
            ]
        )
    }
    found = {path for path, entry in files.items() if entry[0] in find_data_files(files, DEFAULT_POLICY)}
    assert found == set(files) - {"src/app.py", "src/extern.py", "assets/app.js", "package.json"}


def _facts(entries: dict[str, str]) -> dict[str, tuple[int, str, str, int, int]]:
    """File facts of ``entries`` (path: text of its SHA-256 stand-in): code by suffix, 40 lines each."""
    code = (".py", ".c", ".h", ".js")
    return {
        path: (fid, "code" if path.endswith(code) else "text", sha.ljust(64, "0"), 2_000, 40)
        for fid, (path, sha) in enumerate(entries.items())
    }


def _third_party(files: dict[str, tuple[int, str, str, int, int]]) -> set[str]:
    return {path for path, entry in files.items() if entry[0] in find_third_party(files, DEFAULT_POLICY)}


BUNDLED_C = {
    "LICENSE.rst": "a",
    **{f"pkg/module{n}.py": str(n) for n in range(8)},  # the main language: most code files
    "pkg/wcs/wrap.c": "2",  # the project's own C, beside a license of nobody's
    "cextern/wcslib/COPYING": "b",
    "cextern/wcslib/C/wcs.c": "3",
    "cextern/wcslib/C/wcs.h": "4",
    "cextern/wcslib/README": "5",
    "cextern/cfitsio/licenses/License.txt": "c",  # a license directory speaks for the one above it
    "cextern/cfitsio/lib/ricecomp.c": "6",
    "cextern/trim_wcslib.sh": "7",
}


def test_a_directory_with_a_license_of_its_own_and_no_code_in_the_main_language_is_a_third_party_copy() -> (
    None
):
    found = _third_party(_facts(BUNDLED_C))
    assert found == {
        "cextern/wcslib/COPYING",
        "cextern/wcslib/C/wcs.c",
        "cextern/wcslib/C/wcs.h",
        "cextern/wcslib/README",
        "cextern/cfitsio/licenses/License.txt",
        "cextern/cfitsio/lib/ricecomp.c",
    }


def test_a_licensed_copy_in_the_main_language_is_the_projects_own_fork() -> None:
    files = _facts(
        {
            "LICENSE": "a",
            "src/black/linegen.py": "1",
            "src/blib2to3/LICENSE": "b",
            "src/blib2to3/pgen2/driver.py": "2",
        }
    )
    assert _third_party(files) == set()


def test_a_license_text_the_root_or_another_directory_shares_is_the_projects_own() -> None:
    files = _facts(
        {
            "LICENSE": "a",
            "packages/core/index.js": "1",
            "packages/native/LICENSE": "a",  # the root's text: a package of the same project
            "packages/native/binding.c": "2",
            "libs/one/LICENSE": "b",  # one text in two directories: the project's own packages
            "libs/one/one.c": "3",
            "libs/two/LICENSE": "b",
            "libs/two/two.c": "4",
        }
    )
    assert _third_party(files) == set()


def test_licenses_in_documentation_and_tests_and_at_the_root_mark_nothing() -> None:
    files = _facts(
        {
            "docs/license.md": "b",
            "docs/api.c": "1",
            "tests/fixtures/LICENSE": "c",
            "tests/fixtures/lib.c": "2",
            "LICENSE": "a",
            "main.c": "3",
            "app/main.py": "4",
            "app/more.py": "5",
        }
    )
    assert _third_party(files) == set()


def test_no_license_pattern_finds_no_third_party_copy() -> None:
    files = _facts(BUNDLED_C)
    policy = replace(DEFAULT_POLICY, license_name_pattern="")
    assert find_third_party(files, policy) == set()


def test_a_third_party_copy_is_weighed_as_data_below_the_code_that_wraps_it(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "LICENSE": "Copyright the project authors.\n",
            "pkg/__init__.py": "from pkg.wcs import pixel_to_world\n",
            "pkg/wcs.py": "def pixel_to_world(pixels):\n    '''Convert pixel coordinates to world coordinates.'''\n    return pixels\n",
            "cextern/wcslib/COPYING": "WCSLIB is licensed under the LGPL, copyright its authors.\n",
            "cextern/wcslib/wcs.c": "/* Convert pixel coordinates to world coordinates. */\nint wcsp2s(double *pixel, double *world) {\n  /* pixel to world */\n  return 0;\n}\n",
        },
    )
    hits = ranked_under(tmp_path, "convert pixel coordinates to world coordinates", DEFAULT_POLICY)
    weights = {h["path"]: int(h["components"]["deweight"]) for h in hits}
    assert weights["cextern/wcslib/wcs.c"] == round(DEFAULT_POLICY.data_factor * SCALE)
    assert hits[0]["path"] == "pkg/wcs.py"
