"""LLM backends (Ollama native, OpenAI-compatible) over httpx, and the shape-only signal report."""

from __future__ import annotations

from prooftext.llm.backends import (
    BACKENDS,
    ChatBackend,
    ChatResult,
    OllamaBackend,
    OpenAIBackend,
    make_backend,
)
from prooftext.llm.signal import SignalReport, signal_report, truncation_check

__all__ = [
    "BACKENDS",
    "ChatBackend",
    "ChatResult",
    "OllamaBackend",
    "OpenAIBackend",
    "SignalReport",
    "make_backend",
    "signal_report",
    "truncation_check",
]
