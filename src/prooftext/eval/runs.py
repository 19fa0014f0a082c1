"""The evaluation's run requests: value objects that say what to run, with the defaults the command line
shows. Loaded without the harness (:mod:`prooftext.eval.run` runs them), so that showing them costs nothing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from prooftext.errors import RequestError
from prooftext.eval.arms import DEFAULT_BUDGET, DEFAULT_BUDGETS, LOCOMO_ARMS, SWEBENCH_ARMS
from prooftext.tokens import DEFAULT_TOKENIZER

if TYPE_CHECKING:
    from prooftext.eval.declare import Declaration
    from prooftext.eval.model import ModelSettings

AnyPath = Path | str
"""A file or directory, as a :class:`~pathlib.Path` or as text (read as a path where the run uses it)."""
Names = str | tuple[str, ...]
"""Names as a tuple, or as comma-separated text."""
Numbers = str | tuple[int, ...]
"""Positive integers as a tuple, or as comma-separated text."""


@dataclass(frozen=True)
class QualityBar:
    """The declared quality bar, as the caller gives it: a declaration file, and/or fields that replace the
    file's (or the benchmark's default) one by one. What was declared, and from where, is recorded."""

    file: AnyPath | None = None
    metric: str | None = None
    threshold: float | None = None
    permitted_regression: float | None = None
    reference_arm: str | None = None

    def resolve(
        self, default: Declaration, metrics: tuple[str, ...], model: ModelSettings | None = None
    ) -> Declaration:
        """The bar to judge by; with a model, every part must be declared (``declaration_required``)."""
        from prooftext.eval.declare import require_declared, resolve_declaration

        file = optional_path(self.file)
        if model is not None:
            require_declared(file, self.metric, self.threshold, self.permitted_regression, self.reference_arm)
        return resolve_declaration(
            default,
            file,
            self.metric,
            self.threshold,
            self.permitted_regression,
            metrics,
            self.reference_arm,
        )


@dataclass(frozen=True)
class SwebenchRun:
    """SWE-bench tasks, each at its base commit: full context vs BM25 vs fixed vs adaptive packets."""

    tasks: AnyPath
    repo_map: AnyPath
    arms: Names = SWEBENCH_ARMS
    budget: int = DEFAULT_BUDGET
    tokenizer: str = DEFAULT_TOKENIZER
    bar: QualityBar = QualityBar()
    repos: Names = ()
    """Only the tasks of these repositories (``owner/name``); every repository when empty."""
    instances: Names = ()
    """Only the tasks with these instance ids; every task when empty. A repository or instance id that no
    task has is refused (``unknown_name``, field ``repo`` or ``instance``) before anything runs, and so is
    an empty item such as ``"a,,b"`` or ``","`` (``invalid_request``)."""
    model: ModelSettings | None = None
    """A model in the loop: each arm's prompt within the budget is answered and scored (localization)."""


@dataclass(frozen=True)
class LocomoRun:
    """LoCoMo: evidence-turn recall against prompt tokens, per arm and budget."""

    data: AnyPath
    budgets: Numbers = DEFAULT_BUDGETS
    arms: Names = LOCOMO_ARMS
    tokenizer: str = DEFAULT_TOKENIZER
    questions: int | None = None
    """At most this many questions per conversation (evenly spaced); all when None."""
    allow_truncated: bool = False
    bar: QualityBar = QualityBar()
    model: ModelSettings | None = None
    """A model in the loop: each arm's prompt is answered and scored (the LoCoMo paper's F1)."""


@dataclass(frozen=True)
class DepthRun:
    """Depth tiers: surface precision and recall on CLINC150, LoCoMo questions wrongly called surface, and
    how often the standard tier's gates run: memory search on LoCoMo questions in their conversation,
    retrieval on SWE-bench issue titles with their repository open (``swebench`` tasks and ``repo_map``,
    each repository indexed once under the work directory)."""

    clinc: AnyPath
    locomo: AnyPath | None = None
    bar: QualityBar = QualityBar()
    swebench: AnyPath | None = None
    repo_map: AnyPath | None = None


Run = SwebenchRun | LocomoRun | DepthRun


def optional_path(value: AnyPath | None, field: str = "file") -> Path | None:
    """A path given as a :class:`~pathlib.Path` or as text, as the loaders read it (None stays None); any
    other value is an ``invalid_request`` naming ``field``."""
    return None if value is None else required_path(value, field)


def required_path(value: object, field: str) -> Path:
    """``value`` as a path: a :class:`~pathlib.Path` (or any ``os.PathLike``) or text, else an
    ``invalid_request`` naming ``field``."""
    if isinstance(value, str | os.PathLike):
        return Path(value)
    raise RequestError(f"{field} must be a path (text or a Path), not {type(value).__name__}", field=field)
