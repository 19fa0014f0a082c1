"""The small-talk grammar: shared lists, and what they let a form say."""

from __future__ import annotations

import pytest

from prooftext.depth import Tier, classify_detailed
from prooftext.depth.smalltalk import FILLERS, FORMS, SHARED, expand


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
