"""Argument types the benchmark scripts share: a count of at least one, and a directory that exists."""

from __future__ import annotations

import argparse
from pathlib import Path


def at_least_one(text: str) -> int:
    """An argparse count that must be at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def existing_directory(text: str) -> Path:
    """An argparse path that must name an existing directory (a usage error otherwise, not a traceback)."""
    path = Path(text)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is not an existing directory")
    return path
