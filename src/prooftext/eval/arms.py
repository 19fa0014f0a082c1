"""The arms and budgets the benchmarks run by default (named here, apart from the harness, so that the run
requests in :mod:`prooftext.eval.runs` load without it)."""

from __future__ import annotations

ARM_FULL = "full"
ARM_BM25 = "bm25"
ARM_FIXED = "fixed"
ARM_ADAPTIVE = "adaptive"
SWEBENCH_ARMS: tuple[str, ...] = (ARM_FULL, ARM_BM25, ARM_FIXED, ARM_ADAPTIVE)
DEFAULT_BUDGET = 8000
"""The SWE-bench packed arms' token budget."""
DEFAULT_BUDGETS: tuple[int, ...] = (512, 1024, 2048, 4096, 8192)
"""LoCoMo's budgets."""
LOCOMO_ARMS: tuple[str, ...] = ("full", "last_n", "bm25", "fixed", "adaptive", "oracle")
