"""Coverage-guided fuzzing of the strict JSON loader and canonical encoder with atheris (optional, not CI).

The property checked is the one an earlier atheris run found broken: whatever the strict loader
accepts, the canonical encoder writes back, and that output is a fixed point (load → encode → load →
encode gives the same bytes). Any other exception than ``CanonicalJSONError`` is a finding. The
deterministic counterpart in CI is ``tests/reliability/test_properties.py`` (hypothesis).

    .venv/bin/pip install atheris==3.0.0      # cp311 wheels exist; not a project dependency
    .venv/bin/python bench/load_fuzz_loader.py -atheris_runs=200000 [corpus_dir]
"""

from __future__ import annotations

import sys

from prooftext import canonical
from prooftext.errors import CanonicalJSONError


def check(data: bytes) -> None:
    try:
        value = canonical.load(data)
    except CanonicalJSONError:
        return
    encoded = canonical.encode(value)
    again = canonical.encode(canonical.load(encoded))
    if again != encoded:
        raise AssertionError(f"not a fixed point: {data[:80]!r} -> {encoded[:80]!r} -> {again[:80]!r}")


def main() -> None:
    try:
        import atheris  # type: ignore[import-not-found]
    except ImportError:
        sys.stderr.write("atheris is not installed: pip install atheris==3.0.0 (optional)\n")
        sys.exit(2)
    atheris.instrument_all()
    atheris.Setup(sys.argv, check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
