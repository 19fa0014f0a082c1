"""The evaluation harness (SACP §9): full vs lexical vs fixed vs adaptive context, on pinned tasks.

- :mod:`prooftext.eval.swe_run` — SWE-bench: each task at its ``base_commit``, file Acc@k, gold-file and
  gold-hunk recall inside the packet, exact prompt tokens, latency, stop reasons, selected rounds.
- :mod:`prooftext.eval.locomo_run` — LoCoMo: evidence-turn recall against prompt tokens, per category.
- :mod:`prooftext.eval.depth` — depth tiers: surface precision and recall on CLINC150, LoCoMo false surfaces.

Every run declares its quality bar first (:mod:`prooftext.eval.declare`), writes per-task rows, a summary
and a self-contained ``report.html``, and runs serially, on a local process pool or on Dask
(:mod:`prooftext.eval.executor`).
"""
