"""The context artifact lifecycle: Manifest → Graph → Query → Selection → Snapshot → Compaction.

Eight immutable canonical JSON artifacts (schema 1.0, content-addressed ``artifact_id``), each with a
shipped Draft 2020-12 JSON Schema generated from :mod:`prooftext.artifacts.models`. Building blocks:

* :mod:`~prooftext.artifacts.manifest` — a Manifest from a scan (and explicit owner records);
* :mod:`~prooftext.artifacts.indexer` — the Graph, re-observed through explicit roots;
* :mod:`~prooftext.artifacts.query` and :mod:`~prooftext.artifacts.selector` — the pure selector;
* :mod:`~prooftext.artifacts.snapshot`, :mod:`~prooftext.artifacts.compaction`,
  :mod:`~prooftext.artifacts.proposal`, :mod:`~prooftext.artifacts.compare`,
  :mod:`~prooftext.artifacts.quality` — the rest of the lifecycle;
* :mod:`~prooftext.artifacts.loader` (validation), :mod:`~prooftext.artifacts.publish` (exclusive output),
  :mod:`~prooftext.artifacts.governance` (authority, sensitivity, freshness rules), and
  :mod:`~prooftext.artifacts.fsck`.

The package itself loads nothing: the models (and their schema library) load with the modules that use them.
"""
