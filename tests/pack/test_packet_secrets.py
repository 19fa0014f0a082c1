"""With allowlist pragmas honoured, a credential still reaches no packet: not its prompt, nor its JSON."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

import prooftext

TOKEN = "gh" + "p_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC2dF4gH6"  # split so no scanner takes this file for a leak
ALLOW_PRAGMA = "[scan]\nsecrets_allow_pragma = true\n"
TREES = {
    "heading": {"notes.md": f"# Deploy token {TOKEN} <!-- pragma: allowlist secret -->\n\nShip it.\n"},
    "method": {
        "deploy.py": textwrap.dedent(f"""\
            class Deploy:
                def {TOKEN}(self):  # pragma: allowlist secret
                    \"\"\"The deploy token.\"\"\"
                    return 1

                def other(self):
                    return 2
            """)
    },
}


@pytest.mark.parametrize("tree", sorted(TREES))
def test_a_credential_in_a_name_reaches_neither_the_prompt_nor_the_json(tmp_path: Path, tree: str) -> None:
    (tmp_path / "prooftext.toml").write_text(ALLOW_PRAGMA)
    for name, text in TREES[tree].items():
        (tmp_path / name).write_text(text)
    with prooftext.open(tmp_path) as index:
        packet = index.pack("deploy token")
    assert packet.evidence
    dumped = json.dumps(packet.to_dict())
    assert (TOKEN in dumped) is False  # a bool: a failure must not print the token either
    assert "[REDACTED:github-token]" in dumped
