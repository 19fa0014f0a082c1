"""What a query text names: identifiers by how they are spelled, paths, modules, lexical terms."""

from __future__ import annotations

from prooftext.select.terms import (
    WEIGHT_BACKTICK,
    WEIGHT_CAMEL,
    WEIGHT_SNAKE,
    WEIGHT_TRACEBACK,
    analyze,
    lexical_terms,
)


def test_backticked_names_get_the_backtick_weight() -> None:
    analysis = analyze("Calling `separability_matrix` on a nested model is wrong")
    assert analysis.identifiers["separability_matrix"] == WEIGHT_BACKTICK


def test_traceback_frames_give_paths_and_function_names() -> None:
    text = 'Traceback:\n  File "/usr/lib/site/astropy/modeling/core.py", line 12, in evaluate\n'
    analysis = analyze(text)
    assert "/usr/lib/site/astropy/modeling/core.py" in analysis.paths
    assert analysis.identifiers["evaluate"] == WEIGHT_TRACEBACK


def test_camel_and_snake_case_words_are_identifiers() -> None:
    analysis = analyze("CompoundModel breaks when n_inputs is large")
    assert analysis.identifiers["CompoundModel"] == WEIGHT_CAMEL
    assert analysis.identifiers["n_inputs"] == WEIGHT_SNAKE


def test_dotted_module_paths_are_recorded() -> None:
    assert "astropy.modeling.separable" in analyze("see astropy.modeling.separable for it").modules


def test_lexical_terms_drop_stop_words_and_keep_order() -> None:
    assert lexical_terms("How is the Separability matrix of a model computed?") == [
        "separability",
        "matrix",
        "model",
        "computed",
    ]


def test_search_terms_keep_whole_identifiers_and_their_parts() -> None:
    terms = analyze("separability_matrix").terms
    assert terms[:3] == ("separability_matrix", "separability", "matrix")


def test_seed_tokens_lowercase_ascii_only_and_keep_non_ascii_scalars_apart() -> None:
    from prooftext.select.rank import seed_tokens

    assert seed_tokens("Ärger HTTPServer x2") == {"Ä", "rger", "httpserver", "x2"}
