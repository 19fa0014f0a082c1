"""Small-talk segmentation: how the time of ``smalltalk.segment`` grows with the message.

Usage: python bench/smalltalk_segment_bench.py [--sizes 100,200,400,800]

For each size, a message of that many words of small talk (``hi there`` repeated) is split by
``prooftext.depth.smalltalk.segment`` and by a reference that matches every span against each kind's
regular expression (the quadratic way, in ``tests/depth/test_depth_segment.py``). Printed per size: both
times as ratios against the first size's time of the same function, measured in this run, and the
reference's time over segment's. A linear segment doubles when the size doubles; the reference quadruples.
Last, a 64 KiB message (16,384 words) through segment alone, as a ratio against its smallest size.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from depth.test_depth_segment import reference_segment
from prooftext.depth.smalltalk import Segment, segment

Split = Callable[[tuple[str, ...]], tuple[Segment, ...] | None]


def _words(n: int) -> tuple[str, ...]:
    return (("hi", "there") * (n // 2 + 1))[:n]


def _seconds(split: Split, words: tuple[str, ...]) -> float:
    best = float("inf")
    for _ in range(3):
        began = time.perf_counter()
        split(words)
        best = min(best, time.perf_counter() - began)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,200,400,800")
    sizes = [int(s) for s in parser.parse_args().sizes.split(",")]
    segment(_words(2))  # build the automaton before timing
    base_new = base_ref = 0.0
    print(f"{'words':>7} {'segment x':>10} {'reference x':>12} {'reference/segment':>18}")
    for n in sizes:
        new, ref = _seconds(segment, _words(n)), _seconds(reference_segment, _words(n))
        base_new, base_ref = base_new or new, base_ref or ref
        print(f"{n:>7} {new / base_new:>10.1f} {ref / base_ref:>12.1f} {ref / new:>18.0f}")
    big = _seconds(segment, _words(16_384))
    print(f"{16_384:>7} {big / base_new:>10.1f} {'-':>12} {'-':>18}")


if __name__ == "__main__":
    main()
