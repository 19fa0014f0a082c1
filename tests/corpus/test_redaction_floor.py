"""Redaction never takes a text below its floor: every line feed stays, and each line keeps the shorter of
its own length and a placeholder's. Packing relies on it to leave out excerpts that cannot fit without
redacting them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prooftext.corpus.secrets import MIN_PLACEHOLDER_CHARS, redact_text, redacted_floor, repeats_in
from secret_corpus import Case, negatives, positives

CASES = [*positives(), *negatives()]
KEY_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7" * 2


def _floor(text: str) -> int:
    return redacted_floor(text.split("\n"))


def test_the_corpus_holds_credentials_that_redaction_shortens() -> None:
    shortened = [c for c in CASES if len(redact_text(c.text, c.path)) < len(c.text)]
    assert len(shortened) > 50


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.shape)
def test_no_labelled_file_is_redacted_below_its_floor(case: Case) -> None:
    assert _floor(case.text) <= len(redact_text(case.text, case.path))


def test_a_line_that_is_one_long_credential_keeps_only_a_placeholder_and_the_floor_still_holds() -> None:
    token = "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0" * 40 + ".c2lnbmF0dXJlc2lnbmF0dXJl"
    redacted = redact_text(token + "\n")
    assert len(redacted) < 40
    assert _floor(token + "\n") == MIN_PLACEHOLDER_CHARS + 1 <= len(redacted)


def test_a_credential_recurring_elsewhere_in_its_file_is_redacted_there_without_going_below_the_floor() -> (
    None
):
    whole = 'API_TOKEN = "Zq7RkW2mXv9LpT4sNc8YhB3d"\nprint("Zq7RkW2mXv9LpT4sNc8YhB3d")\nplain line\n'
    excerpt = whole.split("\n", 1)[1]
    redacted = redact_text(excerpt, "app.py", repeats_in(whole, "app.py"))
    assert "Zq7R" not in redacted
    assert _floor(excerpt) <= len(redacted)


@pytest.mark.parametrize(
    "text",
    [
        f"-----BEGIN PRIVATE KEY-----\n{KEY_BODY}\n{KEY_BODY}\n-----END PRIVATE KEY-----\n",
        f"{KEY_BODY}\n{KEY_BODY}\n-----END RSA PRIVATE KEY-----\n",
        f"-----BEGIN EC PRIVATE KEY-----\n{KEY_BODY}\n  \n{KEY_BODY}\n",
    ],
    ids=["whole-block", "block-cut-at-its-start", "block-cut-at-its-end"],
)
def test_private_key_lines_redacted_one_by_one_keep_the_floor(text: str) -> None:
    redacted = redact_text(text, "key.pem")
    assert KEY_BODY not in redacted
    assert redacted.count("\n") == text.count("\n")
    assert _floor(text) <= len(redacted)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.lists(st.one_of(st.sampled_from([c.text for c in CASES]), st.text(max_size=30)), max_size=4),
        min_size=1,
        max_size=6,
    )
)
def test_mixtures_of_credentials_and_other_text_never_go_below_the_floor(parts: list[list[str]]) -> None:
    text = "\n".join(" ".join(line) for line in parts)
    assert _floor(text) <= len(redact_text(text, "mixed.txt"))
