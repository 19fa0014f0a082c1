"""A planned turn's gates read what the project knows: its thread's names, its memory and its repository."""

from __future__ import annotations

from pathlib import Path

import prooftext
from prooftext import TurnRequest
from prooftext.memory import MemoryStore

CODE = '''"""Sessions: cookies signed with the secret key."""


class SecureCookieSessionInterface:
    def get_signing_serializer(self, app):
        return app.secret_key


def session_cookie_name(app):
    return "session"
'''


def _step(result: dict[str, object], name: str) -> dict[str, object]:
    plan = result["plan"]
    assert isinstance(plan, dict)
    return next(s for s in plan["steps"] if s["name"] == name)


def test_a_question_about_the_open_repository_retrieves_and_small_talk_does_not(tmp_path: Path) -> None:
    """Requirement: depth.gate.retrieval"""
    (tmp_path / "sessions.py").write_text(CODE)
    asked = prooftext.turn_plan(tmp_path, TurnRequest("main", "how are session cookies signed?"))
    retrieval = _step(asked, "retrieval")
    assert retrieval["ran"], retrieval
    classify = _step(asked, "classify")
    detail = classify["detail"]
    assert isinstance(detail, dict) and detail["known_terms"]["repository"]["parts"] > 0
    assert any(r.startswith("repository_terms:") for r in detail["signal"]["retrieval_reasons"])
    chat = prooftext.turn_plan(tmp_path, TurnRequest("main", "i'd like to know how the ai is doing"))
    assert not _step(chat, "retrieval")["ran"] and not _step(chat, "memory_search")["ran"]


def test_names_in_the_stored_thread_and_questions_about_oneself_search_memory(tmp_path: Path) -> None:
    """Requirement: depth.gate.memory"""
    with MemoryStore.open(tmp_path) as store:
        store.append_message(
            "main", "user", "I went hiking with my sister Caroline near Lyon.", tier="standard"
        )
        store.append_message("main", "assistant", "That sounds lovely!", tier="standard")
    for text in ("When did Caroline go hiking?", "what's my name?", "did I tell you about my dog?"):
        memory = _step(prooftext.turn_plan(tmp_path, TurnRequest("main", text)), "memory_search")
        assert memory["ran"], (text, memory)
    other = _step(
        prooftext.turn_plan(tmp_path, TurnRequest("main", "When did Rosalind go hiking?")), "memory_search"
    )
    assert not other["ran"]
    elsewhere = prooftext.turn_plan(tmp_path, TurnRequest("other", "When did Caroline go hiking?"))
    assert not _step(elsewhere, "memory_search")["ran"]  # another thread does not know her
