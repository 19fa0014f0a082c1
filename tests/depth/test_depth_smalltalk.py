"""The small-talk grammar: shared lists, and what they let a form say."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prooftext.depth import Tier, classify_detailed, smalltalk
from prooftext.depth.smalltalk import (
    FILLERS,
    FORMS,
    LONG_WORD_TYPO_MIN,
    SHARED,
    _one_edit,
    expand,
    normalize,
    vocabulary,
)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("that's a really true statement", "yes"),
        ("that is an absolutely correct answer", "yes"),
        ("that's a totally false statement", "no"),
        ("thats an utterly wrong answer", "no"),
    ],
)
def test_a_shared_list_inside_another_is_expanded(text: str, kind: str) -> None:
    d = classify_detailed(text)
    assert d.tier is Tier.SURFACE
    assert [p.kind for p in d.small_talk if p.kind != "filler"] == [kind]


def test_no_form_or_shared_list_keeps_a_name_after_expansion() -> None:
    texts = [*SHARED.values(), *FILLERS, *(f for forms in FORMS.values() for f in forms)]
    assert not [t for t in texts if "{" in expand(t) or "}" in expand(t)]


@pytest.mark.parametrize("text", [":D", ":P thanks!", ":-D hello", ":O wow", ":) ok"])
def test_a_message_opening_with_an_emoticon_is_not_a_command(text: str) -> None:
    d = classify_detailed(text)
    assert "command" not in d.never_surface
    assert d.tier is (Tier.STANDARD if text == ":D" else Tier.SURFACE)


@pytest.mark.parametrize("text", ["/help", ":q", "!run tests", ":Dx"])
def test_a_message_opening_with_a_slash_colon_or_bang_word_is_a_command(text: str) -> None:
    assert "command" in classify_detailed(text).never_surface


def test_a_message_of_more_small_talk_words_than_the_limit_is_never_surface_even_without_spaces() -> None:
    assert classify_detailed("\N{WAVING HAND SIGN}" * 24).tier is Tier.SURFACE
    many = classify_detailed("\N{WAVING HAND SIGN}" * 25)
    assert many.tier is not Tier.SURFACE and "long" in many.never_surface
    assert "long" in classify_detailed("\N{THUMBS UP SIGN}" * 16_384).never_surface


LONG_KNOWN = sorted(w for w in vocabulary() if len(w) >= LONG_WORD_TYPO_MIN)


@st.composite
def _misspelled(draw: st.DrawFn) -> str:
    """A long known word with one or two random edits (or none)."""
    word = draw(st.sampled_from(LONG_KNOWN))
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(word) - 1))
        letter = draw(st.sampled_from("aeioulnrst"))
        edit = draw(st.sampled_from(["insert", "delete", "replace", "swap"]))
        if edit == "insert":
            word = word[:at] + letter + word[at:]
        elif edit == "delete":
            word = word[:at] + word[at + 1 :]
        elif edit == "replace":
            word = word[:at] + letter + word[at + 1 :]
        elif at + 1 < len(word):
            word = word[:at] + word[at + 1] + word[at] + word[at + 2 :]
    return word


@settings(max_examples=400, deadline=None, derandomize=True)
@given(_misspelled())
def test_a_typo_maps_to_the_one_long_known_word_within_one_edit(word: str) -> None:
    near = sorted(v for v in LONG_KNOWN if _one_edit(word, v))
    expected = (
        near[0] if word not in vocabulary() and len(word) >= LONG_WORD_TYPO_MIN and len(near) == 1 else None
    )
    steps = normalize(word).steps
    if any(s.startswith("repeated_letters:") for s in steps):
        expected = None  # repeated letters fold onto a known word first
    assert [s for s in steps if s.startswith("typo:")] == ([f"typo:{word}->{expected}"] if expected else [])


def test_looking_for_typos_compares_a_word_with_a_few_known_words_not_all(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = []

    def counting(a: str, b: str) -> bool:
        calls.append(b)
        return _one_edit(a, b)

    monkeypatch.setattr(smalltalk, "_one_edit", counting)
    words = [f"zq{i:06d}x" for i in range(200)] + ["apprecaite"]
    assert normalize(" ".join(words)).steps == ("typo:apprecaite->appreciate",)
    assert len(calls) <= 5 * len(words)


def test_a_64_kib_word_is_normalized() -> None:
    assert normalize("q" * 65_536 + " hi").words[-1] == "hi"
