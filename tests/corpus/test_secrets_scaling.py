"""Credential scanning is linear in the text, with the findings and redactions it always had.

Each hostile input below took minutes with the previous code (a private-key fragment line with a long run
of blanks: 15 s for 60 000; 10 000 tokens on one line: 11 s, growing with the square; a run of ``eyJa`` or
``sk-``: 13 s for 160 kB), and is sized so that a regression hangs the run instead of passing quietly. The
replaced pieces are kept below as the reference on small random inputs.
"""

from __future__ import annotations

import random
import re

import pytest

from prooftext.corpus import secrets
from prooftext.corpus.secrets import Finding, find_secrets, redact_text

SEED = 20_240_601
RUN = 600_000
TOKENS = 30_000
END = "-----END PRIVATE KEY-----"
OLD_PEM_BODY_LINE = re.compile(r"[ \t'\"]*[A-Za-z0-9+/=]{16,}[ \t'\",]*\\?n?[ \t'\",+]*")
PEM_PIECES = ("A", "n", "+", "/", "=", " ", "\t", "'", '"', ",", "\\", "x", "-", "A" * 8, "A" * 16, "\\n")
TOKEN_PIECES = (
    "sk-",
    "eyJ",
    "T3BlbkFJ",
    "a",
    "a" * 8,
    "A" * 16,
    ".",
    "-",
    "_",
    "proj-",
    " ",
    "\n",
    "eyJhbGciOiJ9",
)


@pytest.mark.parametrize("filler", [" ", "+", "'"], ids=["blanks", "pluses", "quotes"])
def test_a_key_fragment_line_with_a_huge_run_in_its_tail_is_decided_at_once(filler: str) -> None:
    text = f"marker\n{'A' * 16}{filler * RUN}!\n{END}\n"
    assert redact_text(text, "notes.txt") == text  # "!" ends no key body line: nothing to redact


def test_key_body_lines_cut_by_an_excerpt_are_still_redacted() -> None:
    body = [
        '    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n" +',
        "    'b3BlbnNzaC1rZXktdjEAAAAA',",
        "Zm9vYmFyYmF6cXV4cXV1eA==",
    ]
    lines = redact_text("\n".join(["intro", *body, END, "after"])).split("\n")
    assert lines == ["intro", *[secrets.placeholder(secrets.RULE_PRIVATE_KEY)] * len(body), END, "after"]


def test_key_body_lines_equal_the_replaced_regex() -> None:
    rng = random.Random(SEED)
    hits = 0
    for _ in range(100_000):
        line = "".join(rng.choice(PEM_PIECES) for _ in range(rng.randint(0, 10)))
        expected = OLD_PEM_BODY_LINE.fullmatch(line) is not None
        assert (secrets._PEM_BODY_LINE.fullmatch(line) is not None) == expected, repr(line)
        hits += expected
    assert hits > 1_000


def test_thousands_of_tokens_on_one_line_are_each_found() -> None:
    text = ("ghp_" + "a1" * 18 + " ") * TOKENS
    found = find_secrets(text)
    assert len(found) == TOKENS and {f.rule for f in found} == {"github-token"}
    assert [f.start for f in found[:2]] == [0, 41]


def test_thousands_of_checked_keys_on_one_line_with_pragmas_allowed() -> None:
    text = "AKIAABCDEFGHIJKLMNOP " * TOKENS
    found = find_secrets(text, allow_pragma=True)
    assert len(found) == TOKENS and not any(f.allowlisted for f in found)
    pragma = find_secrets(text + "# pragma: allowlist secret", allow_pragma=True)
    assert len(pragma) == TOKENS and all(f.allowlisted for f in pragma)


@pytest.mark.parametrize(
    "text",
    ["eyJa" * (RUN // 2), "sk-" * RUN + "T3BlbkFJ"],
    ids=["jwt_starts", "openai_starts"],
)
def test_a_huge_run_of_token_starts_is_scanned_at_once(text: str) -> None:
    assert find_secrets(text) == []


def test_token_rules_scanned_run_by_run_equal_a_full_finditer() -> None:
    rng = random.Random(SEED)
    rules = {rule.id: rule.pattern for rule in secrets.RULES}
    found = 0
    for _ in range(30_000):
        text = "".join(rng.choice(TOKEN_PIECES) for _ in range(rng.randint(1, 30)))
        for rule, anchor in secrets._RUN_ANCHORS.items():
            expected = [m.span() for m in rules[rule].finditer(text)]
            assert [m.span() for m in secrets._run_anchored(rules[rule], text, anchor)] == expected, text
            found += len(expected)
    assert found > 100


def _old_disjoint(findings: list[Finding]) -> list[Finding]:
    kept: list[Finding] = []
    for finding in sorted(findings, key=lambda f: (secrets._PRIORITY[f.rule], f.start, -f.end)):
        if all(finding.end <= k.start or k.end <= finding.start for k in kept):
            kept.append(finding)
    return sorted(kept, key=lambda f: (f.start, f.end))


def test_overlaps_resolve_as_comparing_every_pair_did() -> None:
    rng = random.Random(SEED)
    rules = list(secrets._PRIORITY)
    for _ in range(30_000):
        findings = []
        for _ in range(rng.randint(0, 10)):
            start = rng.randint(0, 30)
            findings.append(Finding(rng.choice(rules), 1, start, start + rng.choice((0, 1, 2, 3, 5, 8, 13))))
        assert secrets._disjoint(findings) == _old_disjoint(findings), findings


@pytest.mark.parametrize(("body", "found"), [(63, False), (64, True)])
def test_a_private_key_needs_64_base64_characters_of_body(body: int, found: bool) -> None:
    text = "-----BEGIN PRIVATE KEY-----\n" + "\\n" * 10 + "A" * body + "\n" + END + "\n"
    assert bool(find_secrets(text)) is found


URL_PIECES = (
    *("://", "https", "ftp", "a", "B1", "+", ".", "-", ":", "@", "/", " ", "x" * 19, "anonymous", "{", "'"),
    *("https://", "user:", "s3cret@", "host", "ftp://anonymous:", "git+ssh://"),
)


def test_urls_scanned_from_each_scheme_equal_a_full_finditer() -> None:
    rng = random.Random(SEED)
    pattern = next(rule.pattern for rule in secrets.RULES if rule.id == "url-credentials")
    found = 0
    for _ in range(30_000):
        text = "".join(rng.choice(URL_PIECES) for _ in range(rng.randint(1, 30)))
        expected = [m.span() for m in pattern.finditer(text)]
        assert [m.span() for m in secrets._url_anchored(pattern, text)] == expected, text
        found += len(expected)
    assert found > 300


def test_triggers_found_in_one_pass_are_those_each_search_finds() -> None:
    rng = random.Random(SEED)
    for words in (secrets._ALL_TRIGGERS, secrets._ALL_FOLDED_TRIGGERS):
        scan = secrets._Triggers.of(words)
        pieces = [
            *words,
            *(w[: len(w) // 2] for w in words),
            *(w[len(w) // 2 :] for w in words),
            " ",
            "x",
            "é",
        ]
        for _ in range(20_000):
            padding = "y" * rng.choice((0, 0, 1, 2000))
            text = padding.join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
            assert scan.present(text) == {w for w in words if w in text}, text


def test_triggers_are_found_in_a_text_holding_a_lone_surrogate() -> None:
    text = "a\udcffAKIA\ud800:aws"
    assert secrets._LITERAL_SCAN.present(text) == {"AKIA"}
    assert secrets._FOLDED_SCAN.present(secrets.fold(text)) == {":", "aws"}
