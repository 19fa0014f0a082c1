"""The ranking's file signals: one pure function each, over a query's evidence and the corpus facts.

Each signal scores files; fusion normalizes each by its per-query maximum and sums them with equal weights
(see :mod:`prooftext.select.fusion`). :data:`SIGNALS` is the table, in the order the fusion sums them.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field

from prooftext.graph.model import NODE_SYMBOL
from prooftext.select.corpus_facts import CorpusFacts
from prooftext.select.policy import RankingPolicy
from prooftext.select.terms import MAX_PATH_PARTS, WEIGHT_CAMEL, QueryAnalysis
from prooftext.store.queries import NodeIdentity, NodeRow


@dataclass
class Evidence:
    """Raw per-query evidence, before fusion: the rows found and each node's own scores."""

    rows: dict[int, NodeRow] = field(default_factory=dict)
    node_lexical: dict[int, float] = field(default_factory=dict)
    node_identifier: dict[int, float] = field(default_factory=dict)
    node_phrase: dict[int, float] = field(default_factory=dict)
    node_subject: dict[int, float] = field(default_factory=dict)
    identifier_phase: set[int] = field(default_factory=set)
    file_identifier: dict[int, float] = field(default_factory=dict)
    path_hits: set[int] = field(default_factory=set)
    """Nodes a full-text search found through their file's path alone."""
    text_hits: set[int] = field(default_factory=set)
    """Nodes a full-text search found through their own text (title, labels or content)."""
    test_code: set[int] = field(default_factory=set)
    """Nodes of test code outside a test file (see :func:`is_test_code`): weighed as a test file's nodes."""

    @property
    def path_only(self) -> set[int]:
        """Nodes every full-text search that found them found through their path alone, and that define
        none of the query's identifiers: the path is evidence for their file, not for them."""
        return self.path_hits - self.text_hits - self.node_identifier.keys()


@dataclass(frozen=True)
class SignalInputs:
    """What the signals read: the query's evidence and analysis, its path seeds and the corpus facts."""

    evidence: Evidence
    corpus: CorpusFacts
    analysis: QueryAnalysis
    seeds: Sequence[str]


Signal = Callable[[SignalInputs, RankingPolicy], dict[int, float]]


def choose_terms(
    counts: dict[str, int], cap: int, subject: Sequence[str], policy: RankingPolicy
) -> list[str]:
    """The probed terms worth a search, from their node counts (``counts``, present terms only, in probe
    order): not too common (at most ``cap``), rarest first; when every term is common, the least common
    ones. Then the subject's terms that are not too common, whatever their rank."""
    ordered = sorted(counts, key=lambda t: (counts[t], t))
    rare = [t for t in ordered if counts[t] <= cap]
    chosen = (rare or ordered)[: policy.max_fts_terms]
    return chosen + [
        t for t in dict.fromkeys(subject) if t in counts and counts[t] <= cap and t not in chosen
    ]


@dataclass(frozen=True)
class IdentifierHits:
    """Definitions of names the query spells as code: each node's weight, the nodes of the identifier
    phase, and each file's weight (the sum over the names it defines)."""

    nodes: dict[int, float]
    phase: set[int]
    files: dict[int, float]


def identifier_hits(
    rows: Sequence[NodeRow], weights: dict[str, int], total_files: int, policy: RankingPolicy
) -> IdentifierHits:
    """Each definition weighs its name's weight in the query times how few files define that name; a name
    spelled as code (camelCase or stronger) puts its definitions in the identifier phase."""
    defining: dict[str, set[int]] = {}
    for row in rows:
        defining.setdefault(row.name, set()).add(row.file_id)
    nodes: dict[int, float] = {}
    phase: set[int] = set()
    per_file: dict[int, dict[str, float]] = defaultdict(dict)
    for row in rows:
        files = defining[row.name]
        spelled = weights[row.name]
        weight = spelled * math.log(1 + total_files / len(files))
        nodes[row.rowid] = max(nodes.get(row.rowid, 0.0), weight)
        per_file[row.file_id][row.name] = weight
        if spelled >= WEIGHT_CAMEL:
            phase.add(row.rowid)
    return IdentifierHits(nodes, phase, {fid: sum(names.values()) for fid, names in per_file.items()})


_SCOPE_KINDS = frozenset({"module", "namespace"})
"""Symbol kinds that are scopes of their own (Rust's ``mod``, C++'s and TypeScript's ``namespace``)."""


def is_test_code(row: NodeIdentity, scope_names: Collection[str]) -> bool:
    """Whether ``row`` is a symbol inside a scope named in ``scope_names`` (a qualified name passing through
    it, as Rust's unit tests pass through ``mod tests``), or a module or namespace so named."""
    if row.kind != NODE_SYMBOL:
        return False
    if row.symbol_kind in _SCOPE_KINDS and row.name in scope_names:
        return True
    return any(part in scope_names for part in row.qualname.split(".")[:-1])


def find_test_code(rows: Iterable[NodeRow], corpus: CorpusFacts, policy: RankingPolicy) -> set[int]:
    """The rowids of ``rows`` that are test code in a file that is not a test file (whose nodes its factor
    already weighs)."""
    names = frozenset(policy.test_scope_names)
    return {row.rowid for row in rows if row.file_id not in corpus.test_files and is_test_code(row, names)}


def _file_top(ev: Evidence, scores: dict[int, float], policy: RankingPolicy) -> dict[int, float]:
    """Each file's best ``file_top_nodes`` node scores summed; test code counts at ``test_factor``."""
    per_file: dict[int, list[float]] = defaultdict(list)
    for rowid, score in scores.items():
        weight = policy.test_factor if rowid in ev.test_code else 1.0
        per_file[ev.rows[rowid].file_id].append(score * weight)
    top = policy.file_top_nodes
    return {fid: sum(sorted(values, reverse=True)[:top]) for fid, values in per_file.items()}


def lexical(inputs: SignalInputs, policy: RankingPolicy) -> dict[int, float]:
    """BM25 of the searched terms: the sum of a file's best node scores."""
    return _file_top(inputs.evidence, inputs.evidence.node_lexical, policy)


def identifier(inputs: SignalInputs, policy: RankingPolicy) -> dict[int, float]:
    """Definitions of names the query spells as code (see :func:`identifier_hits`)."""
    return inputs.evidence.file_identifier


def phrase(inputs: SignalInputs, policy: RankingPolicy) -> dict[int, float]:
    """Literal runs of the text the query quotes, each weighed by its rarity: a file's best node scores."""
    return _file_top(inputs.evidence, inputs.evidence.node_phrase, policy)


def subject(inputs: SignalInputs, policy: RankingPolicy) -> dict[int, float]:
    """BM25 of the subject's words in symbol names and paths: a file's best node scores."""
    return _file_top(inputs.evidence, inputs.evidence.node_subject, policy)


def _mentions(analysis: QueryAnalysis) -> list[str]:
    mentions = [p.lstrip("./") for p in analysis.paths]
    for module in analysis.modules:
        parts = module.split(".")
        mentions.append("/".join(parts) + ".py")
        mentions.append("/".join(parts) + "/__init__.py")
        if len(parts) > 1:
            mentions.append("/".join(parts[:-1]) + ".py")
    return [m for m in mentions if m]


def path(inputs: SignalInputs, policy: RankingPolicy) -> dict[int, float]:
    """Files a query names: a mention ending in the file's path, or the file's path ending in a mention."""
    corpus = inputs.corpus
    path_hits: dict[int, float] = defaultdict(float)
    for mention in _mentions(inputs.analysis):
        matched = set(corpus.suffixes.get(mention, ()))
        parts = mention.split("/")
        for start in range(max(1, len(parts) - MAX_PATH_PARTS), len(parts)):
            found = corpus.ids.get("/".join(parts[start:]))
            if found is not None:
                matched.add(found)
        # A mention that fits many files (``conftest.py``) says little about each of them.
        for fid in matched:
            path_hits[fid] += 1.0 / len(matched)
    return dict(path_hits)


def path_words(inputs: SignalInputs, policy: RankingPolicy) -> dict[int, float]:
    """Query words equal to a directory or module name, weighted by how few files carry that component; a
    component too common to say anything (the package's own directory, named by most of its questions) adds
    nothing, as a too common term is not searched."""
    corpus = inputs.corpus
    total = len(corpus.paths) or 1
    cap = policy.common_cap(total)
    scores: dict[int, float] = defaultdict(float)
    for term in dict.fromkeys(inputs.analysis.terms):  # in query order: the float sum is deterministic
        fids = corpus.components.get(term)
        if fids and len(fids) <= cap:
            weight = math.log(1 + total / len(fids))
            for fid in fids:
                scores[fid] += weight
    return dict(scores)


def seed(inputs: SignalInputs, policy: RankingPolicy) -> dict[int, float]:
    """The path seeds the query names that are indexed files."""
    return {inputs.corpus.ids[p]: 1.0 for p in inputs.seeds if p in inputs.corpus.ids}


SIGNALS: dict[str, Signal] = {
    "lexical": lexical,
    "identifier": identifier,
    "phrase": phrase,
    "subject": subject,
    "path": path,
    "path_words": path_words,
    "seed": seed,
}
"""Every file signal by name, in the order the fusion sums them and the components list them."""


def file_signals(inputs: SignalInputs, policy: RankingPolicy) -> dict[str, dict[int, float]]:
    """Every signal's file scores for one query."""
    return {name: signal(inputs, policy) for name, signal in SIGNALS.items()}


def deweight(fid: int, corpus: CorpusFacts, policy: RankingPolicy, named: bool = False) -> float:
    """Tests, documentation and other files that are not code (configuration, data, text) are evidence about
    the code, rarely the code an issue is about; data and history (vendored copies, minified or generated
    files, translation catalogues, change logs) are evidence about neither, unless the query names the file
    (``named``).

    The test and documentation factors apply whatever the query says: issues of a test framework always
    speak of tests, so lifting them for a "test" word let example test files crowd out the framework's own
    modules."""
    if fid in corpus.data_files and not named:
        return policy.data_factor
    if fid in corpus.test_files:
        return policy.test_factor
    if fid in corpus.doc_files:
        return policy.doc_factor
    return 1.0
