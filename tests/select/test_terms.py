"""What a query text names: identifiers by how they are spelled, paths, modules, search terms."""

from __future__ import annotations

from prooftext.select.terms import (
    PHRASE_WINDOW,
    WEIGHT_BACKTICK,
    WEIGHT_CAMEL,
    WEIGHT_DOTTED,
    WEIGHT_SNAKE,
    WEIGHT_TRACEBACK,
    analyze,
    hyphenated_names,
    phrases,
    subject_terms,
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


def test_abbreviations_written_with_dots_are_not_code() -> None:
    analysis = analyze("Mixed dtypes (e.g. a TZDate, i.e. a subclass) break Date.from_parts; cf. A.T too")
    assert {"e", "g", "i"}.isdisjoint(analysis.identifiers)
    assert analysis.modules == ("Date.from_parts", "A.T")
    assert analysis.identifiers["from_parts"] == analysis.identifiers["T"] == WEIGHT_DOTTED


def test_search_terms_keep_whole_identifiers_and_their_parts() -> None:
    terms = analyze("separability_matrix").terms
    assert terms[:3] == ("separability_matrix", "separability", "matrix")


def test_error_messages_become_runs_of_consecutive_words() -> None:
    runs = phrases("Calling it raises `ValueError: The Max/Min functions must have arguments.` today")
    assert ("max", "min", "functions", "must") in runs
    assert all(len(run) == PHRASE_WINDOW for run in runs)
    assert not any("today" in run for run in runs)  # the message ends at the closing backtick


def test_traceback_source_lines_and_quoted_messages_are_literals() -> None:
    text = (
        '  File "/site/pkg/models.py", line 12, in content\n'
        "    self._content = bytes().join(self.iter_content(CHUNK_SIZE)) or bytes()\n"
        'it printed "write() argument must be str, not bytes"\n'
    )
    runs = phrases(text)
    assert ("self", "_content", "bytes", "join") in runs
    assert ("argument", "must", "be", "str") in runs


def test_a_line_labelled_by_a_severity_or_an_exception_name_is_a_message() -> None:
    text = (
        "ERROR: No matching distribution found for foo==1.0\n"
        "httpx.InvalidURL: Invalid port: ':abc'\n"
        "Note: this is prose, not a message\n"
        "TODO: also prose here\n"
    )
    runs = phrases(text)
    assert ("no", "matching", "distribution", "found") in runs
    assert ("invalid", "port", "abc") in runs
    assert not any("prose" in run for run in runs)


def test_the_exception_that_labels_a_message_and_its_module_are_not_names_the_query_asks_for() -> None:
    analysis = analyze("rich.errors.MarkupError: closing tag '[/bold]' doesn't match any open tag")
    assert "MarkupError" not in analysis.identifiers
    assert analysis.modules == ()
    assert ("closing", "tag", "bold", "doesn") in analysis.phrases  # the message is still read
    assert "markuperror" in analysis.terms  # and the name still searched as a word


def test_an_exception_named_in_prose_is_still_a_name() -> None:
    analysis = analyze("InvalidURL is raised where a ValueError would do")
    assert {"InvalidURL", "ValueError"} <= set(analysis.identifiers)


def test_a_message_shorter_than_a_window_is_one_run() -> None:
    assert phrases('it says "Invalid IDNA hostname" here') == [("invalid", "idna", "hostname")]


def test_paths_single_tokens_and_printed_formulas_are_not_literals() -> None:
    text = 'File "/home/u/.pyenv/versions/2.7.6/lib/python2.7/site.py", line 3\nsaid "Poly(a*x**5 + x**4, x)"'
    assert phrases(text) == []
    assert analyze("no literal text here").phrases == ()


def test_hyphenated_message_ids_and_options_are_literal_runs_of_their_words() -> None:
    runs = phrases("too-many-arguments fires; is --max-line-length read? set --collect-only")
    assert ("too", "many", "arguments") in runs
    assert ("max", "line", "length") in runs
    assert ("collect", "only") in runs


def test_two_part_hyphenated_words_are_names_only_as_options_or_quoted() -> None:
    text = "a read-only, well-known file; `good-names` and 'bad-names' and --rc-file"
    assert hyphenated_names(text) == [("good", "names"), ("bad", "names"), ("rc", "file")]


def test_hyphens_inside_paths_and_urls_are_not_names() -> None:
    text = "C:\\lib\\site-packages\\x.py and /usr/lib/site-packages/y.py and docs/how-to-use-it.html"
    assert hyphenated_names(text) == []


def test_a_long_hyphenated_name_is_searched_by_its_first_window_of_words() -> None:
    assert phrases("see consider-using-dict-items-comprehension") == [("consider", "using", "dict", "items")]


def test_the_first_line_of_a_query_of_several_lines_is_its_subject() -> None:
    text = "\n  cse() has strange behaviour for MatrixSymbol indexing\n\nExample:\n    x0 = a[0, 0]\n"
    assert subject_terms(text) == [
        "cse",
        "strange",
        "behaviour",
        "matrixsymbol",
        "matrix",
        "symbol",
        "indexing",
    ]
    assert analyze(text).subject == tuple(subject_terms(text))


def test_a_query_of_one_line_has_no_subject_apart_from_itself() -> None:
    assert subject_terms("cse() has strange behaviour for MatrixSymbol indexing") == []
