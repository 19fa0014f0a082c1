"""Text primitives: identifier splitting, the versioned stop lists, query terms and the fence nonce."""

from __future__ import annotations

import blake3

from prooftext.text import (
    CHAT_STOPWORDS_V1,
    NONCE_DIGITS,
    STOPWORDS_V1,
    STOPWORDS_VERSION,
    ascii_tokens,
    fence_nonce,
    identifier_parts,
    identifiers,
    lexical_terms,
    singulars,
)


def test_identifiers_split_on_case_changes_underscores_and_digits() -> None:
    assert identifier_parts("HTTPServer_v2") == ("http", "server", "v", "2")
    assert identifier_parts("separabilityMatrix") == ("separability", "matrix")
    assert identifier_parts("separability_matrix") == ("separability", "matrix")
    assert identifier_parts("__init__") == ("init",)


def test_the_two_stop_lists_stay_apart_and_versioned() -> None:
    assert STOPWORDS_VERSION == "prooftext-stopwords-v1"
    assert {"the", "of", "is", "yourselves"} <= STOPWORDS_V1
    assert CHAT_STOPWORDS_V1 < STOPWORDS_V1 and len(CHAT_STOPWORDS_V1) == 60
    assert "yourselves" not in CHAT_STOPWORDS_V1


def test_lexical_terms_drop_stop_words_and_keep_order() -> None:
    assert lexical_terms("How is the Separability matrix of a model computed?") == [
        "separability",
        "matrix",
        "model",
        "computed",
    ]


def test_the_nonce_is_blake3_of_the_material_and_a_counter() -> None:
    seed = blake3.blake3(b"query\x00a.py").digest()
    first = int.from_bytes(blake3.blake3(seed + (0).to_bytes(8, "big")).digest()[:8], "big")
    expected = str(first % 10**NONCE_DIGITS).zfill(NONCE_DIGITS)
    assert fence_nonce([b"query", b"\x00a.py"], []) == expected == fence_nonce([b"query\x00a.py"], ["x"])


def test_the_nonce_is_re_derived_until_no_text_contains_it() -> None:
    first = fence_nonce([b"m"], [])
    second = fence_nonce([b"m"], ["text", f"holds {first}"])
    assert len(second) == NONCE_DIGITS and second != first
    assert fence_nonce([b"m"], [f"holds {first}"]) == second


def test_ascii_tokens_lowercase_ascii_only_and_split_non_ascii_scalars() -> None:
    assert ascii_tokens("Charge_BUDGET v2") == {"charge", "budget", "v2"}
    assert ascii_tokens("Ärger über") == {"Ä", "rger", "ü", "ber"}
    assert ascii_tokens("...") == frozenset()


def test_identifiers_are_exact() -> None:
    assert identifiers("does charge() call allocate_budget?") >= {"charge", "allocate_budget"}


def test_a_plural_offers_the_forms_its_singular_may_take_and_other_words_none() -> None:
    assert singulars("groups") == ("group",)
    assert singulars("classes") == ("classe", "class")
    assert singulars("queries") == ("querie", "queri", "query")
    assert "cookie" in singulars("cookies")
    for word in ("status", "analysis", "class", "args2", "bus", "its", "numerous"):
        assert singulars(word) == ()
