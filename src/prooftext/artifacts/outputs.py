"""Where outputs may go: outside the publication candidate, or where its repository digest ignores them.

An output written into the candidate changes the candidate (its repository digest covers every adopted
file), so a command that knows the repository root refuses such a path up front. The internal directories
(``.prooftext/``, ``.git/``) and ignored paths are fine; ``.prooftext/context/`` is the natural home.
"""

from __future__ import annotations

import os
from pathlib import Path

from prooftext.corpus.config import load_config
from prooftext.corpus.ignore import ignored_below, is_internal, root_matcher
from prooftext.corpus.safeio import Refusal, open_root
from prooftext.errors import CandidateMismatchError

SUGGESTED_DIR = ".prooftext/context"


def _relative_parts(repository: Path, output: Path) -> tuple[str, ...] | None:
    root = Path(os.path.realpath(repository))
    target = Path(os.path.realpath(output))
    try:
        return target.relative_to(root).parts
    except ValueError:
        return None


def output_in_candidate(repository: Path, output: Path) -> bool:
    """True when writing ``output`` would add a file to the repository's candidate digest."""
    parts = _relative_parts(repository, output)
    if not parts or any(is_internal(part) for part in parts):
        return False
    root_fd = open_root(repository)
    try:
        matcher = root_matcher(root_fd, load_config(repository).exclude)
        return not ignored_below(root_fd, parts, matcher)
    except Refusal:
        return True  # an ignore file that cannot be read decides nothing: fail closed
    finally:
        os.close(root_fd)


def require_output_outside_candidate(repository: Path, output: Path) -> None:
    if output_in_candidate(repository, output):
        raise CandidateMismatchError(
            f"the output {output.name} would change the publication candidate; write it under "
            f"{SUGGESTED_DIR}/ or an ignored path",
            reason="output_inside_candidate",
        )
