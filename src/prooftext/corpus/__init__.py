"""Safe corpus scan: walk, ignore rules, strict reading, labels, manifest and candidate identity."""

from prooftext.corpus.config import CorpusConfig, LabelRule, load_config
from prooftext.corpus.identity import candidate_identity, git_head, repository_sha256
from prooftext.corpus.kinds import KINDS, kind_for
from prooftext.corpus.labels import labels_for, source_kind
from prooftext.corpus.lines import count_lines, count_text_lines, line_slice
from prooftext.corpus.manifest import build_manifest
from prooftext.corpus.model import (
    AUTHORITIES,
    FRESHNESS,
    REASONS,
    SENSITIVITIES,
    CandidateIdentity,
    Exclusion,
    FileStat,
    Labels,
    SourceFile,
    WalkResult,
)
from prooftext.corpus.read import read_bytes_checked, read_source
from prooftext.corpus.scan import ScanResult, excluded_reasons, scan
from prooftext.corpus.walk import walk

__all__ = [
    "AUTHORITIES",
    "FRESHNESS",
    "KINDS",
    "REASONS",
    "SENSITIVITIES",
    "CandidateIdentity",
    "CorpusConfig",
    "Exclusion",
    "FileStat",
    "LabelRule",
    "Labels",
    "ScanResult",
    "SourceFile",
    "WalkResult",
    "build_manifest",
    "candidate_identity",
    "count_lines",
    "count_text_lines",
    "excluded_reasons",
    "git_head",
    "kind_for",
    "labels_for",
    "line_slice",
    "load_config",
    "read_bytes_checked",
    "read_source",
    "repository_sha256",
    "scan",
    "source_kind",
    "walk",
]
