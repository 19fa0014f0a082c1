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


def test_a_credential_shown_again_unflagged_in_its_file_is_redacted_in_every_excerpt(tmp_path: Path) -> None:
    key = "9f8e7d6c5b4a" + "39281706f5e4d3c2"
    doc = textwrap.dedent(f"""\
        # Configuration

        Set the key in your settings:

            SECRET_KEY = '{key}'

        # Generating a key

        The generator prints a new one each time, for example:

            '{key}'
        """)
    padding = "".join(f"Setting number {n} is described here at some length.\n" for n in range(200))
    text = doc.replace("# Generating", padding + "\n# Generating")
    (tmp_path / "config.md").write_text(text)
    bare = text.splitlines().index(f"    '{key}'") + 1
    with prooftext.open(tmp_path) as index:
        packet = index.pack(prooftext.Query("generating a key generator prints", max_tokens=1024))
        stored = index.conn.execute("SELECT text FROM files WHERE path = 'config.md'").fetchone()[0]
        report = index.verify(packet.to_dict())
    assert (key in stored) is False and stored.count("[REDACTED:password-assignment]") == 2
    assert any(6 < e.start_line <= bare <= e.end_line for e in packet.evidence)  # without the assignment
    assert (key in packet.prompt) is False and "[REDACTED:password-assignment]" in packet.prompt
    assert report.ok  # the prompt is rebuilt from the file with the same redaction


def test_a_credential_in_the_query_is_redacted_before_it_is_quoted(tmp_path: Path) -> None:
    (tmp_path / "deploy.md").write_text("# Deploy\n\nRotate the deploy token every month.\n")
    with prooftext.open(tmp_path) as index:
        packet = index.pack(f"why does the deploy token {TOKEN} fail?")
    dumped = json.dumps(packet.to_dict())
    assert (TOKEN in dumped) is False and "deploy token [REDACTED:github-token] fail" in packet.prompt


def test_a_credential_given_as_a_path_seed_is_redacted_in_the_packet_and_its_trace(tmp_path: Path) -> None:
    (tmp_path / "deploy.md").write_text("# Deploy\n\nRotate the deploy token every month.\n")
    with prooftext.open(tmp_path) as index:
        packet = index.pack(prooftext.Query("deploy token", path_seeds=(TOKEN, "deploy.md")))
        adaptive = index.adaptive_pack(prooftext.Query("deploy token", path_seeds=(TOKEN,)))
    saved = packet.to_dict()
    assert TOKEN not in json.dumps(saved) and TOKEN not in json.dumps(adaptive.to_dict())
    assert saved["query"]["path_seeds"] == ["[REDACTED:github-token]", "deploy.md"]
