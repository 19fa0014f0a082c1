"""A model in the loop: each arm's prompt goes to a chat model with a fixed, versioned task instruction, and
the answer is kept, timed, priced and cached.

The model sees the packet's prompt only (SACP §8) as the user message, after the benchmark's instruction as
the system message. Every answer is cached on disk under a key of (task, arm, repeat, model, backend,
endpoint, sampling settings, instruction version, prompt sha256), so a run that was stopped goes on where it stopped
and a rerun with the same settings sends nothing. A failed request is recorded in the row with its error code
and never cached: the next run asks again.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prooftext.canonical import MAX_SAFE_INTEGER
from prooftext.errors import ArtifactError, RangeError, RequestError, UnknownNameError, whole_number
from prooftext.eval.common import MS_PER_S, error_record, probe_writable
from prooftext.llm.backends import (
    BACKENDS,
    READ_TIMEOUT_S,
    ChatBackend,
    ChatResult,
    check_timeout,
    make_backend,
    shown_endpoint,
)
from prooftext.llm.signal import model_switched
from prooftext.tokens import get_counter

NS_PER_MS = 1_000_000
TOKENS_PER_PRICE_UNIT = 1_000_000
"""Prices are declared in US dollars per million tokens."""
MAX_REPEATS = 100
"""Answers per prompt at most (``--repeats``): enough for a mean and spread; more would ask a model server for
the same answer thousands of times."""
ANSWERS_SUBDIR = "answers"
CACHE_SCHEMA = "prooftext.eval-answer/v2"


@dataclass(frozen=True)
class Instruction:
    """A task instruction: its version id (part of every cache key) and its text."""

    version: str
    text: str
    max_output_tokens: int


LOCOMO_INSTRUCTION = Instruction(
    "prooftext.locomo-answer/v1",
    "You answer a question about a long conversation between two people. The user message holds the"
    " question and excerpts of the conversation. Answer with a short phrase, using the conversation's own"
    " words where you can: a name, a date, a place, an object or a few words, never a whole sentence. If the"
    " excerpts do not contain the answer, reply exactly: Not mentioned in the conversation.",
    64,
)
SWE_INSTRUCTION = Instruction(
    "prooftext.swe-localize/v1",
    "You localize a bug report in a code base. The user message holds the issue and excerpts of the"
    " repository's files. Name the files that must change to resolve the issue and the functions or classes"
    " in them that must change, most likely first. Reply with one JSON object and nothing else:"
    ' {"files": ["path/to/file.py"], "functions": ["path/to/file.py::Class.method"]}.'
    " Write paths exactly as the excerpts show them.",
    256,
)


@dataclass(frozen=True)
class ModelSettings:
    """Which model answers, and how: backend (``ollama`` or ``openai``), endpoint, repeats, sampling, the
    declared prices (US dollars per million input and output tokens; both or neither) and the reply timeout
    (seconds a request waits with nothing received from the server)."""

    model: str
    backend: str = "ollama"
    endpoint: str | None = None
    repeats: int = 1
    temperature: float | None = None
    seed: int | None = None
    price_input: float | None = None
    price_output: float | None = None
    answers_dir: Path | str | None = None
    """Where answers are cached; by default OUT/answers (no cache without an output directory)."""
    timeout: float = READ_TIMEOUT_S

    def check(self) -> None:
        if not isinstance(self.model, str) or not self.model.strip():
            raise RequestError("--model needs a model name", field="model")
        if self.backend not in BACKENDS:
            raise UnknownNameError(
                f"unknown backend {self.backend!r}; known: {', '.join(BACKENDS)}", field="backend"
            )
        check_timeout(self.timeout)
        make_backend(
            self.backend, self.endpoint
        ).close()  # a malformed endpoint fails here, before any answer
        if (
            isinstance(self.repeats, bool)
            or not isinstance(self.repeats, int)
            or not 1 <= self.repeats <= MAX_REPEATS
        ):
            raise RangeError(f"repeats must be from 1 to {MAX_REPEATS}, not {self.repeats}", field="repeats")
        if self.seed is not None:  # sent as JSON, whose readers read integers exactly up to 2**53 - 1
            whole_number("seed", self.seed, -MAX_SAFE_INTEGER, MAX_SAFE_INTEGER)
        if self.temperature is not None and not (math.isfinite(self.temperature) and self.temperature >= 0):
            raise RangeError(
                f"temperature must be a finite number >= 0, not {self.temperature}", field="temperature"
            )
        for name in ("price_input", "price_output"):
            value = getattr(self, name)
            if value is not None and not (math.isfinite(value) and value >= 0):
                raise RangeError(f"--{name.replace('_', '-')} must be a finite number >= 0", field=name)
        if (self.price_input is None) != (self.price_output is None):
            raise RequestError(
                "declare both prices (--price-input and --price-output, USD per million tokens) or neither",
                field="price_input" if self.price_input is None else "price_output",
            )

    def priced(self) -> bool:
        return self.price_input is not None and self.price_output is not None

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "backend": self.backend,
            "endpoint": None if self.endpoint is None else shown_endpoint(self.endpoint),
            "repeats": self.repeats,
            "temperature": self.temperature,
            "seed": self.seed,
            "price_input_usd_per_mtok": self.price_input,
            "price_output_usd_per_mtok": self.price_output,
            "timeout_s": self.timeout,
        }


@dataclass(frozen=True)
class ModelPlan:
    """What a unit needs to ask the model (picklable: no client, no open file)."""

    settings: ModelSettings
    instruction: Instruction
    tokenizer: str
    answers_dir: Path | None

    def record(self) -> dict[str, Any]:
        """The model part of the declaration written before the run."""
        return {
            **self.settings.to_dict(),
            "instruction": {
                "version": self.instruction.version,
                "text": self.instruction.text,
                "max_output_tokens": self.instruction.max_output_tokens,
            },
            "answers_dir": None if self.answers_dir is None else str(self.answers_dir),
        }


def model_plan(
    settings: ModelSettings | None, instruction: Instruction, tokenizer: str, out_dir: Path | None
) -> ModelPlan | None:
    """The plan a run's units follow (None without a model); answers are cached under ``answers_dir``, by
    default OUT/answers (no cache without an output directory)."""
    if settings is None:
        return None
    given = None if settings.answers_dir is None else Path(settings.answers_dir)
    answers = given or (out_dir / ANSWERS_SUBDIR if out_dir is not None else None)
    plan = ModelPlan(settings, instruction, tokenizer, None if answers is None else answers.resolve())
    if settings.answers_dir is not None:  # the default, under OUT, is checked with OUT
        AnswerCache(plan.answers_dir).check_writable()
    return plan


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def answer_key(plan: ModelPlan, task: str, arm: str, repeat: int, prompt_sha256: str) -> str:
    s = plan.settings
    parts = {
        "schema": CACHE_SCHEMA,
        "task": task,
        "arm": arm,
        "repeat": repeat,
        "model": s.model,
        "backend": s.backend,
        "endpoint": None if s.endpoint is None else shown_endpoint(s.endpoint),
        "temperature": s.temperature,
        "seed": s.seed,
        "max_output_tokens": plan.instruction.max_output_tokens,
        "instruction": plan.instruction.version,
        "prompt_sha256": prompt_sha256,
    }
    return sha256_text(json.dumps(parts, sort_keys=True))


class AnswerCache:
    """One JSON file per answer under ``root/<2 hex>/<key>.json``, written whole (temp file, then rename),
    so a run killed mid-write leaves no half answer and concurrent workers never see one."""

    def __init__(self, root: Path | None) -> None:
        self.root = root

    def _path(self, key: str) -> Path | None:
        return None if self.root is None else self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        path = self._path(key)
        if path is None:
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            return None  # absent, or unreadable: asked again
        return data if _well_formed(data) else None

    def check_writable(self) -> None:
        """Create the directory and write a file in it (removed at once), before a run asks anything: an
        ``artifact_invalid`` error naming the directory when it cannot be."""
        if self.root is None:
            return
        try:
            probe_writable(self.root)
        except OSError as exc:
            raise ArtifactError(f"cannot write to {self.root}: {exc.strerror}", path=str(self.root)) from None

    def put(self, key: str, record: dict[str, Any]) -> None:
        path = self._path(key)
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        except OSError as exc:
            raise ArtifactError(
                f"cannot write to {path.parent}: {exc.strerror}", path=str(path.parent)
            ) from None
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(record, handle, sort_keys=True)
            os.replace(temp, path)
        except OSError as exc:
            Path(temp).unlink(missing_ok=True)
            raise ArtifactError(f"cannot write {path}: {exc.strerror}", path=str(path)) from None
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise


def _counts(value: Any) -> bool:
    """Whether ``value`` is a mapping of names to counts or nulls, as a reply's timings and usage are."""
    return isinstance(value, dict) and all(
        v is None or (isinstance(v, int) and not isinstance(v, bool)) for v in value.values()
    )


def _well_formed(data: Any) -> bool:
    """Whether a cached record is an answer as :func:`_raw` writes it; any other (a file damaged or edited
    by hand) is no answer, so it is asked again and replaced."""
    if not isinstance(data, dict) or data.get("schema") != CACHE_SCHEMA:
        return False
    wall = data.get("wall_ms")
    return (
        isinstance(data.get("text"), str)
        and all(
            isinstance(data.get(k), str | None) for k in ("model", "backend", "done_reason", "served_model")
        )
        and _counts(data.get("timings"))
        and _counts(data.get("usage"))
        and isinstance(wall, int | float)
        and not isinstance(wall, bool)
        and math.isfinite(wall)
    )


def _ms(value: int | None) -> float | None:
    return None if value is None else round(value / NS_PER_MS, 3)


def _raw(result: ChatResult, wall_ms: float) -> dict[str, Any]:
    return {
        "schema": CACHE_SCHEMA,
        "text": result.text,
        "model": result.model,
        "backend": result.backend,
        "done_reason": result.done_reason,
        "served_model": result.served_model,
        "timings": dict(result.timings),
        "usage": dict(result.usage),
        "wall_ms": wall_ms,
    }


Scorer = Callable[[str], dict[str, Any]]


class ModelClient:
    """Asks one model for a unit's answers; the backend is made on first use and closed with the client."""

    def __init__(self, plan: ModelPlan) -> None:
        self.plan = plan
        self.cache = AnswerCache(plan.answers_dir)
        self.counter = get_counter(plan.tokenizer)
        self._backend: ChatBackend | None = None

    def close(self) -> None:
        if self._backend is not None:
            self._backend.close()
            self._backend = None

    def _chat(self, prompt: str) -> tuple[ChatResult, float]:
        s = self.plan.settings
        if self._backend is None:
            self._backend = make_backend(s.backend, s.endpoint, read_timeout=s.timeout)
        started = time.perf_counter()
        result = self._backend.chat(
            [
                {"role": "system", "content": self.plan.instruction.text},
                {"role": "user", "content": prompt},
            ],
            model=s.model,
            max_output_tokens=self.plan.instruction.max_output_tokens,
            temperature=s.temperature,
            seed=s.seed,
        )
        return result, round((time.perf_counter() - started) * MS_PER_S, 3)

    def answer(self, task: str, arm: str, prompt: str, prompt_tokens: int, score: Scorer) -> dict[str, Any]:
        """Every repeat's answer to ``prompt`` (cached or asked), scored by ``score(text)``."""
        digest = sha256_text(prompt)
        repeats = []
        for repeat in range(self.plan.settings.repeats):
            key = answer_key(self.plan, task, arm, repeat, digest)
            raw = self.cache.get(key)
            cached = raw is not None
            if raw is None:
                try:
                    result, wall = self._chat(prompt)
                except Exception as exc:  # a failed answer is a measured outcome: recorded, not cached
                    repeats.append({"repeat": repeat, "ok": False, "error": error_record(exc)})
                    continue
                raw = _raw(result, wall)
                self.cache.put(key, raw)
            repeats.append(
                {
                    "repeat": repeat,
                    "ok": True,
                    "cached": cached,
                    **self._measure(raw, prompt_tokens),
                    **score(str(raw["text"])),
                }
            )
        return {"sent": True, "prompt_sha256": digest, "repeats": repeats}

    def _measure(self, raw: dict[str, Any], prompt_tokens: int) -> dict[str, Any]:
        """Tokens, cost and latency of one answer, from the server's own counts and timings where given."""
        timings: dict[str, Any] = raw.get("timings") or {}
        usage: dict[str, Any] = raw.get("usage") or {}
        server_prompt = timings.get("prompt_eval_count", usage.get("prompt_tokens"))
        server_output = timings.get("eval_count", usage.get("completion_tokens"))
        text = str(raw.get("text", ""))
        output = int(server_output) if isinstance(server_output, int) else self.counter.count(text)
        s = self.plan.settings
        billed_prompt = int(server_prompt) if isinstance(server_prompt, int) else prompt_tokens
        cost = (
            (billed_prompt * float(s.price_input or 0) + output * float(s.price_output or 0))
            / TOKENS_PER_PRICE_UNIT
            if s.priced()
            else None
        )
        served = raw.get("served_model")
        return {
            "text": text,
            "done_reason": raw.get("done_reason"),
            "served_model": served,
            "model_switched": model_switched(s.model, served if isinstance(served, str) else None),
            "server_prompt_tokens": server_prompt if isinstance(server_prompt, int) else None,
            "output_tokens": output,
            "output_tokens_source": "server" if isinstance(server_output, int) else "ours",
            "cost_usd": cost,
            "wall_ms": raw.get("wall_ms"),
            "load_ms": _ms(timings.get("load_duration")),
            "prompt_ms": _ms(timings.get("prompt_eval_duration")),
            "generation_ms": _ms(timings.get("eval_duration")),
        }


def not_sent(reason: str) -> dict[str, Any]:
    """An arm whose prompt did not go to the model (over the budget, or the arm failed to pack)."""
    return {"sent": False, "reason": reason, "repeats": []}
