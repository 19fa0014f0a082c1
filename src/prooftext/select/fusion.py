"""Fusion: file signals normalized and summed into a file score, and each node's priority from its file's
score, its rank inside its file and its own evidence."""

from __future__ import annotations

from collections import defaultdict

from prooftext.select.candidates import PHASE_IDENTIFIER, PHASE_LEXICAL, SCALE, Candidate, candidate_from_row
from prooftext.select.corpus_facts import CorpusFacts
from prooftext.select.policy import RankingPolicy
from prooftext.select.signals import SIGNALS, Evidence, deweight
from prooftext.store.queries import NodeRow

NODE_SIGNALS = ("node_lexical", "node_identifier", "node_phrase", "node_subject")
"""A node's own signals, in the order its components list them."""
WHOLE_MATCH_SIGNALS = frozenset({"path", "seed"})
"""Signals that score a file named outright 1 (a mention that fits n files gives each 1/n): divided by their
largest value only when it is above 1, so that the share stays a share (``pyproject.toml`` fitting three
files is a third of a mention for each, not a whole one)."""
TEXT_NODE_SIGNALS = 3
"""The first this-many of :data:`NODE_SIGNALS` read a node's text; the subject reads only its name and path."""

FileParts = dict[int, dict[str, float]]
"""Per file: each signal normalized, the test or documentation factor, and the fused ``file_score``."""
_NO_EVIDENCE = (0.0, 0.0, 0.0, 0.0)
_Entry = tuple[bool, bool, float, str, int, tuple[float, float, float, float], NodeRow]


def normalized(values: dict[int, float], floor: float = 0.0) -> dict[int, float]:
    """``values`` divided by their maximum, or by ``floor`` when that is larger (nothing when no value is
    positive)."""
    top = max(max(values.values(), default=0.0), floor)
    return {k: v / top for k, v in values.items()} if top > 0 else {}


def micro(value: float) -> int:
    """A score in millionths, as components record it."""
    return round(value * SCALE)


def fuse(signals: dict[str, dict[int, float]], corpus: CorpusFacts, policy: RankingPolicy) -> FileParts:
    """Each file's score: the sum of its normalized signals (equal weights), times its de-weighting."""
    norm = {
        name: normalized(values, 1.0 if name in WHOLE_MATCH_SIGNALS else 0.0)
        for name, values in signals.items()
    }
    files = {fid for values in norm.values() for fid in values}
    fused: FileParts = {}
    for fid in files:
        parts = {name: norm[name].get(fid, 0.0) for name in SIGNALS}
        parts["deweight"] = deweight(fid, corpus, policy, named=parts["path"] > 0)
        parts["file_score"] = sum(parts[name] for name in SIGNALS) * parts["deweight"]
        fused[fid] = parts
    return fused


def evidence_reason(rowid: int, ev: Evidence, path_only: set[int]) -> str:
    """The reason a node found by evidence carries: its strongest kind of evidence (``path`` for a node of
    ``path_only``, whatever its searches scored through the path)."""
    if rowid in path_only:
        return "path"
    if rowid in ev.node_phrase:
        return "phrase"
    if rowid in ev.node_lexical:
        return "lexical"
    return "subject" if rowid in ev.node_subject else "path"


def _within_file(ev: Evidence, policy: RankingPolicy) -> dict[int, list[_Entry]]:
    """Each file's nodes with their order keys: late ones (known only by name) last, test code before them,
    then by the sum of their own normalized signals (desc) and node id."""
    lexical, identifier, phrase, subject = (
        normalized(ev.node_lexical),
        normalized(ev.node_identifier),
        normalized(ev.node_phrase),
        normalized(ev.node_subject),
    )
    by_file: dict[int, list[_Entry]] = defaultdict(list)
    path_only = ev.path_only
    for rowid, row in ev.rows.items():
        own = (
            _NO_EVIDENCE  # its file's path matched, not its text: no evidence of its own
            if rowid in path_only
            else (
                lexical.get(rowid, 0.0),
                identifier.get(rowid, 0.0),
                phrase.get(rowid, 0.0),
                subject.get(rowid, 0.0),
            )
        )
        named_only = policy.named_only_last and not any(own[:TEXT_NODE_SIGNALS])
        test = rowid in ev.test_code
        by_file[row.file_id].append((named_only, test, -sum(own), row.node_id, rowid, own, row))
    return by_file


def node_candidates(ev: Evidence, fused: FileParts, policy: RankingPolicy) -> dict[int, Candidate]:
    """A candidate per node of the evidence: its priority is its file's score, decayed by its rank inside its
    file and lifted by its own evidence, and weighed as a test file's when it is test code; its components
    record each."""
    out: dict[int, Candidate] = {}
    path_only = ev.path_only
    for fid, entries in _within_file(ev, policy).items():
        parts = fused.get(fid, {"file_score": 0.0})
        file_components = {k: micro(v) for k, v in parts.items()}
        for rank, (late, test, neg_local, _node_id, rowid, own, row) in enumerate(sorted(entries)):
            in_phase = rowid in ev.identifier_phase
            cand = candidate_from_row(
                row,
                PHASE_IDENTIFIER if in_phase else PHASE_LEXICAL,
                "identifier" if in_phase else evidence_reason(rowid, ev, path_only),
            )
            cand.priority = micro(
                parts["file_score"]
                * (policy.node_decay**rank)
                * (1.0 - neg_local * policy.local_weight)
                * (policy.test_factor if test else 1.0)
            )
            components = file_components.copy()
            components.update(zip(NODE_SIGNALS, map(micro, own), strict=True))
            components["rank_in_file"] = rank
            if late:
                components["named_only"] = 1
            if rowid in path_only:
                components["path_only"] = 1
            if test:
                components["test_code"] = 1
            cand.components = components
            out[rowid] = cand
    return out
