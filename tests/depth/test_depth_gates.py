"""The standard tier's gates: memory search on recall signals, retrieval on relevance signals."""

from __future__ import annotations

import pytest

from prooftext.depth import (
    KnownTerms,
    Mode,
    RepositoryTerms,
    Tier,
    memory_terms_in,
    names_in,
    should_recall_memory,
)

THREAD = [
    "Hey Mel! I went to the LGBTQ support group with Caroline yesterday.",
    "That sounds great. Did you go to Paris after that?",
    "Yes, and my dog Bailey came along.",
]
REPOSITORY = RepositoryTerms.build(
    ["SecureCookieSessionInterface", "session_cookie_name", "get_signing_serializer", "Blueprint", "url_for"],
    ["src/flask/sessions.py", "src/flask/blueprints.py", "docs/config.rst"],
    ["Configuration Handling", "Sessions"],
)


@pytest.mark.parametrize(
    "text",
    [
        "what's my name?",
        "did I tell you about my dog?",
        "what did we talk about yesterday?",
        "Do you remember the restaurant?",
        "you said something about a book",
        "where do I work?",
    ],
)
def test_references_to_earlier_talk_and_to_oneself_run_memory_search(text: str) -> None:
    """Requirement: depth.gate.memory"""
    gate = should_recall_memory(text)
    assert gate.tier is Tier.STANDARD and gate.recall, gate.reasons


def test_names_the_thread_mentions_run_memory_search_and_sentence_starts_are_not_names() -> None:
    names = names_in(THREAD)
    assert {"mel", "caroline", "lgbtq", "paris", "bailey"} <= names
    assert not {"hey", "that", "yes"} & names
    known = KnownTerms(names=names)
    assert should_recall_memory("When did Caroline go to the support group?", known=known).recall
    assert should_recall_memory("Is Paris nice in spring", known=known).recall
    assert not should_recall_memory("Is Rome nice in spring", known=known).recall


def test_words_of_memory_records_run_memory_search() -> None:
    known = KnownTerms(memory=memory_terms_in(["Prefer numpy arrays over lists"]))
    gate = should_recall_memory("should the matrix code keep numpy", known=known)
    assert gate.recall and any("memory_term:numpy" in r for r in gate.reasons)


@pytest.mark.parametrize(
    "text",
    [
        "how are session cookies signed?",
        "Blueprint names should not contain dots",
        "where is url_for defined",
        "Configuration handling ignores the env prefix",
        "crash in src/flask/app.py on startup",
    ],
)
def test_questions_about_the_open_repository_run_retrieval(text: str) -> None:
    """Requirement: depth.gate.retrieval"""
    gate = should_recall_memory(text, known=KnownTerms(repository=REPOSITORY))
    assert gate.retrieval, gate.reasons


def test_without_an_open_repository_its_names_are_no_signal() -> None:
    assert not should_recall_memory("Blueprint names should not contain dots").retrieval


@pytest.mark.parametrize(
    "text",
    [
        "hello there, how are you?",
        "thanks a lot!",
        "ok bye",
        "i'd like to know how the ai is doing",
        "sounds good to me",
        "that's wrong, i'm afraid",
    ],
)
def test_small_talk_runs_neither_gate_even_with_everything_known(text: str) -> None:
    known = KnownTerms(names=names_in(THREAD), repository=REPOSITORY)
    gate = should_recall_memory(text, known=known)
    assert not gate.recall and not gate.retrieval, gate.reasons


def test_the_gates_are_recorded_separately_in_the_policy() -> None:
    gate = should_recall_memory("what's my name?", known=KnownTerms(repository=REPOSITORY))
    assert gate.recall and not gate.retrieval
    assert "memory search on (personal_question)" in gate.policy.reasons[0]
    assert "retrieval off (no relevance signal)" in gate.policy.reasons[0]
    assert should_recall_memory("hi", mode=Mode.FULL).retrieval
