"""Where outputs may go: outside the publication candidate, or where its repository digest ignores them.

An output written into the candidate changes the candidate (its repository digest covers every adopted
file), so a command that knows the repository root refuses such a path up front. The internal directories
(``.prooftext/``, ``.git/``) and ignored paths are fine; ``.prooftext/context/`` is the natural home.
"""

from __future__ import annotations

import os
from pathlib import Path

from prooftext.corpus.config import load_config
from prooftext.corpus.ignore import IgnoreMatcher, is_internal, load_gitignore, root_matcher
from prooftext.corpus.safeio import Refusal, open_dir_at, open_root
from prooftext.errors import CandidateMismatchError

SUGGESTED_DIR = ".prooftext/context"


def _relative_parts(repository: Path, output: Path) -> tuple[str, ...] | None:
    root = Path(os.path.realpath(repository))
    target = Path(os.path.realpath(output))
    try:
        return target.relative_to(root).parts
    except ValueError:
        return None


def _ignored(root_fd: int, parts: tuple[str, ...], matcher: IgnoreMatcher) -> bool:
    fd = os.dup(root_fd)
    try:
        for depth, part in enumerate(parts[:-1]):
            directory = "/".join(parts[:depth])
            text = load_gitignore(fd, directory)
            if text is not None:
                matcher = matcher.with_gitignore(directory, text)
            if matcher.is_ignored("/".join(parts[: depth + 1]), True):
                return True
            try:
                child = open_dir_at(fd, part)
            except Refusal:
                break  # the directory does not exist yet: deeper ignore files cannot exist either
            os.close(fd)
            fd = child
        else:
            text = load_gitignore(fd, "/".join(parts[:-1]))
            if text is not None:
                matcher = matcher.with_gitignore("/".join(parts[:-1]), text)
        return matcher.is_ignored("/".join(parts), False)
    finally:
        os.close(fd)


def output_in_candidate(repository: Path, output: Path) -> bool:
    """True when writing ``output`` would add a file to the repository's candidate digest."""
    parts = _relative_parts(repository, output)
    if not parts or any(is_internal(part) for part in parts):
        return False
    root_fd = open_root(repository)
    try:
        matcher = root_matcher(root_fd, load_config(repository).exclude)
        return not _ignored(root_fd, parts, matcher)
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
