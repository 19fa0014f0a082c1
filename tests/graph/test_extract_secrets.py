"""Names hold no credential: symbol and heading names are redacted as the text is in a prompt."""

from __future__ import annotations

import textwrap

import pytest

from prooftext.corpus.secrets import find_secrets, placeholder
from prooftext.graph import NODE_FILE, FileGraph
from prooftext.graph.extract import extract

TOKEN = "gh" + "p_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC2dF4gH6"  # split so no scanner takes this file for a leak
HIDDEN = placeholder("github-token")

PYTHON = textwrap.dedent(f"""\
    class Deploy:
        def {TOKEN}(self):  # pragma: allowlist secret
            return 1


    def ship():
        return Deploy().{TOKEN}()  # pragma: allowlist secret
    """)
MARKDOWN = f"# Deploy token {TOKEN} <!-- pragma: allowlist secret -->\n\n## Steps\n\nShip it.\n"


def _names(graph: FileGraph) -> list[str]:
    fields = [f for n in graph.nodes if n.kind != NODE_FILE for f in (n.name, n.qualname, n.signature)]
    return fields + [u.name for u in graph.uses]


@pytest.mark.parametrize(
    ("path", "text"), [("deploy.py", PYTHON), ("notes.md", MARKDOWN)], ids=["code", "doc"]
)
def test_no_name_of_an_allowlisted_credential_holds_it(path: str, text: str) -> None:
    names = _names(extract(path, text))
    assert not any(TOKEN in name for name in names)  # a bool: a failure must not print the token
    assert not any(find_secrets(name, path=path) for name in names)
    assert any(HIDDEN in name for name in names)


def test_a_redacted_method_keeps_its_place_and_its_callers() -> None:
    graph = extract("deploy.py", PYTHON)
    method = next(n for n in graph.nodes if n.name == HIDDEN)
    assert (method.qualname, method.symbol_kind, method.start_line, method.end_line) == (
        f"Deploy.{HIDDEN}",
        "method",
        2,
        3,
    )
    assert method.signature == f"def {HIDDEN}(self):  # pragma: allowlist secret"
    ship = next(n for n in graph.nodes if n.name == "ship")
    assert (ship.id, HIDDEN) in {(u.node_id, u.name) for u in graph.uses}


def test_a_section_under_a_redacted_heading_has_a_redacted_qualname() -> None:
    sections = [n.qualname for n in extract("notes.md", MARKDOWN).nodes if n.kind == "section"]
    title = f"Deploy token {HIDDEN} <!-- pragma: allowlist secret -->"
    assert sections == [title, f"{title} > Steps"]
