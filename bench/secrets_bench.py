"""Secret-detector benchmark: recall and false positives on the labelled corpus of ``tests/secret_corpus.py``.

Usage: python bench/secrets_bench.py [--json] [--holdout] [--detect-secrets] [--gitleaks GITLEAKS_TOML] [--gitleaks-bin GITLEAKS]

``--holdout`` scores the hold-out corpus of ``tests/secret_corpus_holdout.py`` (written blind to the detector's
rules) instead of the corpus the rules were tuned on.

Every arm sees each case's path and text. A positive is caught when one finding's span covers the whole
``value`` (in the text, or in the path for an ``in_path`` case); a negative is a false positive when the arm
reports anything at all for its text or path. Printed per arm: recall over positives, the false-positive
rate over negatives, a per-shape table, and the shape ids missed and fired on. Values are never printed.

Arms
    prooftext           ``prooftext.corpus.secrets.find_secrets`` and ``path_findings`` (always run).
    --detect-secrets    detect-secrets' default plugins and filters (``SecretsCollection.scan_file`` under
                        ``default_settings()`` on a temporary copy of each case); reported twice: all
                        plugins, and without the two high-entropy-string plugins. Scored per line (a
                        finding covers its whole line): detect-secrets reports lines, not spans. Needs detect-secrets
                        importable (e.g. run this script with a separate venv's python, ``src`` on
                        PYTHONPATH).
    --gitleaks TOML     gitleaks' rules from its ``config/gitleaks.toml``, re-implemented in Python: Go
                        regexes translated (mid-pattern ``(?i)``, ``\\z``), keywords, entropy, secret group,
                        global and per-rule allowlists (regexes on secret/match/line, stopwords, paths,
                        AND/OR), ``gitleaks:allow``. Rules that do not compile are skipped and counted.
                        Not done: recursive base64/hex decoding.
    --gitleaks-bin EXE  the real gitleaks binary (``gitleaks dir`` over a temporary copy of the corpus).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import subprocess
import sys
import tempfile
import time
import tomllib
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from prooftext.corpus.secrets import find_secrets, path_findings
from secret_corpus import Case, cases
from secret_corpus_holdout import holdout

Span = tuple[int, int]
PERCENT = 100


@dataclass
class Hits:
    """What an arm reported for one case: spans in the text and spans in the path."""

    text: list[Span] = field(default_factory=list)
    path: list[Span] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)


Detector = Callable[[Sequence[Case]], list[Hits]]


# --- scoring ----------------------------------------------------------------------------------------------


def _caught(case: Case, hits: Hits) -> bool:
    start, end = case.span()
    spans = hits.path if case.in_path else hits.text
    return any(s <= start and end <= e for s, e in spans)


@dataclass
class Score:
    arm: str
    positives: int
    caught: int
    negatives: int
    fired: int
    seconds: float
    shapes: dict[str, list[int]]  # shape -> [n, caught_or_fired]
    missed: list[str]
    fp_shapes: list[str]
    fp_rules: dict[str, int]
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "arm": self.arm,
            "recall": round(self.caught / max(1, self.positives), 4),
            "fp_rate": round(self.fired / max(1, self.negatives), 4),
            "positives": self.positives,
            "caught": self.caught,
            "negatives": self.negatives,
            "false_positives": self.fired,
            "seconds": round(self.seconds, 3),
            "per_shape": {k: {"n": v[0], "hit": v[1]} for k, v in sorted(self.shapes.items())},
            "missed_shapes": self.missed,
            "fp_shapes": self.fp_shapes,
            "fp_rules": self.fp_rules,
            "note": self.note,
        }


def score(arm: str, corpus: Sequence[Case], hits: Sequence[Hits], seconds: float, note: str = "") -> Score:
    shapes: dict[str, list[int]] = {}
    missed: list[str] = []
    fp_shapes: list[str] = []
    fp_rules: Counter[str] = Counter()
    caught = fired = 0
    for case, hit in zip(corpus, hits, strict=True):
        row = shapes.setdefault(case.shape, [0, 0])
        row[0] += 1
        if case.positive:
            ok = _caught(case, hit)
            caught += ok
            if not ok:
                missed.append(case.shape)
        else:
            ok = bool(hit.text or hit.path)
            fired += ok
            if ok:
                fp_shapes.append(case.shape)
                fp_rules.update(set(hit.rules))
        row[1] += ok
    n_pos = sum(c.positive for c in corpus)
    return Score(
        arm,
        n_pos,
        caught,
        len(corpus) - n_pos,
        fired,
        seconds,
        shapes,
        sorted(set(missed)),
        sorted(set(fp_shapes)),
        dict(fp_rules.most_common()),
        note,
    )


def _print(s: Score) -> None:
    print(f"== {s.arm} ({s.seconds:.2f}s){'  ' + s.note if s.note else ''}")
    print(
        f"recall {s.caught}/{s.positives} = {PERCENT * s.caught / max(1, s.positives):.1f}%   "
        f"false positives {s.fired}/{s.negatives} = {PERCENT * s.fired / max(1, s.negatives):.1f}%"
    )
    print(f"{'shape':36} {'n':>3} {'caught':>6} {'missed':>6}")
    for shape, (n, hit) in sorted(s.shapes.items()):
        if not shape.startswith("neg-"):
            print(f"{shape:36} {n:>3} {hit:>6} {n - hit:>6}")
    print(f"{'negative shape (fired)':36} {'n':>3} {'fired':>6}")
    for shape, (n, hit) in sorted(s.shapes.items()):
        if shape.startswith("neg-") and hit:
            print(f"{shape:36} {n:>3} {hit:>6}")
    print("missed positive shapes:", ", ".join(s.missed) or "-")
    print("false-positive shapes:", ", ".join(s.fp_shapes) or "-")
    if s.fp_rules:
        print("rules firing on negatives:", ", ".join(f"{k}={v}" for k, v in s.fp_rules.items()))
    print()


# --- prooftext --------------------------------------------------------------------------------------------


def prooftext_arm(corpus: Sequence[Case]) -> list[Hits]:
    out = []
    for case in corpus:
        text = find_secrets(case.text, path=case.path)
        in_path = path_findings(case.path)
        out.append(
            Hits(
                [(f.start, f.end) for f in text],
                [(f.start, f.end) for f in in_path],
                [f.rule for f in (*text, *in_path)],
            )
        )
    return out


# --- a temporary copy of the corpus (detect-secrets, gitleaks binary) -----------------------------------------


def _materialise(corpus: Sequence[Case], root: Path) -> list[str]:
    """Writes each case to ``root/NNNN/<path>``; returns the relative file names."""
    names = []
    for i, case in enumerate(corpus):
        name = f"{i:04d}/{case.path}"
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(case.text, encoding="utf-8")
        names.append(name)
    return names


def _line_spans(text: str, line_number: int, secret: str) -> list[Span]:
    """Every occurrence of ``secret`` on line ``line_number`` (1-based) of ``text``."""
    lines = text.split("\n")
    if not secret or not 1 <= line_number <= len(lines):
        return []
    offset = sum(len(line) + 1 for line in lines[: line_number - 1])
    line = lines[line_number - 1]
    spans = []
    at = line.find(secret)
    while at >= 0:
        spans.append((offset + at, offset + at + len(secret)))
        at = line.find(secret, at + 1)
    return spans


def _line_span(text: str, line_number: int) -> Span:
    start = 0
    for _ in range(line_number - 1):
        start = text.index("\n", start) + 1
    end = text.find("\n", start)
    return start, end if end >= 0 else len(text)


ENTROPY_PLUGINS = frozenset({"Base64 High Entropy String", "Hex High Entropy String"})


def detect_secrets_arm(corpus: Sequence[Case], *, entropy: bool = True) -> list[Hits]:
    from detect_secrets import SecretsCollection  # type: ignore[import-not-found]
    from detect_secrets.settings import default_settings  # type: ignore[import-not-found]

    out = [Hits() for _ in corpus]
    with tempfile.TemporaryDirectory() as tmp, default_settings():
        root = Path(tmp)
        names = _materialise(corpus, root)
        for i, name in enumerate(names):
            collection = SecretsCollection(root=str(root))
            collection.scan_file(name)
            for _filename, secret in collection:
                if not entropy and secret.type in ENTROPY_PLUGINS:
                    continue
                # Line-level: detect-secrets reports a line, and for regexes with a group (GitHub, Slack,
                # ...) its ``secret_value`` is only that group (``ghp``), so the finding's span is its line.
                out[i].text.append(_line_span(corpus[i].text, secret.line_number))
                out[i].rules.append(str(secret.type))
    return out


# --- gitleaks (rules re-implemented) ------------------------------------------------------------------------


def translate_go_regex(pattern: str) -> str:
    """Go RE2 to Python ``re``: a ``(?i)`` (or other flag set) after the start applies to the end of the
    enclosing group, alternatives included, so it becomes ``(?i:`` ... ``)`` closed before each ``|`` and
    reopened after it; ``\\z`` is ``\\Z``."""
    out: list[str] = []
    scoped: list[list[str]] = [[]]  # per open group (the pattern itself first): flag sets opened in it
    i = 0
    in_class = False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            out.append("\\Z" if nxt == "z" and not in_class else c + nxt)
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            out.append(c)
            if pattern[i + 1 : i + 2] == "^":  # a ']' right after '[' or '[^' is literal
                out.append("^")
                i += 1
            if pattern[i + 1 : i + 2] == "]":
                out.append("]")
                i += 1
            i += 1
            continue
        flags = re.match(r"\(\?([imsU-]+)\)", pattern[i:])
        if flags and (i > 0 or len(scoped) > 1):
            spelled = flags.group(1).replace("U", "")
            if spelled.strip("-"):
                out.append(f"(?{spelled}:")
                scoped[-1].append(spelled)
            i += len(flags.group(0))
            continue
        if c == "(":
            scoped.append([])
            out.append(c)
        elif c == ")" and len(scoped) > 1:
            out.append(")" * len(scoped.pop()) + c)
        elif c == "|":
            out.append(")" * len(scoped[-1]) + "|" + "".join(f"(?{f}:" for f in scoped[-1]))
        else:
            out.append(c)
        i += 1
    out.append(")" * len(scoped[0]))
    return "".join(out)


def _compile(pattern: str) -> re.Pattern[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # Go's ``[[`` is a literal '[' in a class
        try:
            return re.compile(pattern)
        except re.error:
            return re.compile(translate_go_regex(pattern))


def shannon(value: str) -> float:
    counts = Counter(value)
    n = len(value)
    return -sum(k / n * math.log2(k / n) for k in counts.values()) if n else 0.0


@dataclass
class _Allow:
    target: str
    condition: str
    regexes: list[re.Pattern[str]]
    paths: list[re.Pattern[str]]
    stopwords: list[str]

    def allows(self, secret: str, match: str, line: str, path: str) -> bool:
        subject = {"match": match, "line": line}.get(self.target, secret)
        checks = []
        if self.regexes:
            checks.append(any(r.search(subject) for r in self.regexes))
        if self.paths:
            checks.append(any(p.search(path) for p in self.paths))
        if self.stopwords:
            lowered = secret.lower()
            checks.append(any(w in lowered for w in self.stopwords))
        if not checks:
            return False
        return all(checks) if self.condition == "AND" else any(checks)


def _allow(raw: dict[str, Any]) -> _Allow:
    return _Allow(
        raw.get("regexTarget", "secret"),
        raw.get("condition", "OR"),
        [_compile(r) for r in raw.get("regexes", [])],
        [_compile(p) for p in raw.get("paths", [])],
        [w.lower() for w in raw.get("stopwords", [])],
    )


@dataclass
class _GRule:
    id: str
    regex: re.Pattern[str] | None
    path: re.Pattern[str] | None
    keywords: list[str]
    entropy: float
    secret_group: int
    allows: list[_Allow]


@dataclass
class Gitleaks:
    rules: list[_GRule]
    skipped: list[str]
    global_allow: _Allow

    @classmethod
    def load(cls, toml_path: Path) -> Gitleaks:
        cfg = tomllib.loads(toml_path.read_text(encoding="utf-8"))
        rules: list[_GRule] = []
        skipped: list[str] = []
        for raw in cfg.get("rules", []):
            try:
                allows = list(raw.get("allowlists", []))
                if "allowlist" in raw:
                    allows.append(raw["allowlist"])
                rules.append(
                    _GRule(
                        raw["id"],
                        _compile(raw["regex"]) if raw.get("regex") else None,
                        _compile(raw["path"]) if raw.get("path") else None,
                        [k.lower() for k in raw.get("keywords", [])],
                        float(raw.get("entropy", 0.0)),
                        int(raw.get("secretGroup", 0)),
                        [_allow(a) for a in allows],
                    )
                )
            except re.error:
                skipped.append(raw["id"])
        glob = cfg.get("allowlist", {})
        return cls(rules, skipped, _allow(glob))

    def scan(self, text: str, path: str) -> Hits:
        hits = Hits()
        if any(p.search(path) for p in self.global_allow.paths):
            return hits
        found = self._findings(text, path, hits)
        # gitleaks' ``filter``: a generic finding is dropped when another, specific rule found a secret
        # holding it on the same line.
        for rule_id, line, secret, span in found:
            if "generic" in rule_id and any(
                "generic" not in other and other_line == line and secret in other_secret
                for other, other_line, other_secret, _ in found
            ):
                continue
            hits.text.append(span)
            hits.rules.append(rule_id)
        return hits

    def _findings(self, text: str, path: str, hits: Hits) -> list[tuple[str, int, str, Span]]:
        found: list[tuple[str, int, str, Span]] = []
        lowered = text.lower()
        for rule in self.rules:
            if rule.path is not None and not rule.path.search(path):
                continue
            if rule.regex is None:
                if rule.path is not None:
                    hits.path.append((0, len(path)))
                    hits.rules.append(rule.id)
                continue
            if rule.keywords and not any(k in lowered for k in rule.keywords):
                continue
            for m in rule.regex.finditer(text):
                group = rule.secret_group
                if not group and m.re.groups:
                    group = next((g for g in range(1, m.re.groups + 1) if m.group(g)), 0)
                secret = m.group(group) if group else m.group(0)
                start, end = m.span(group) if group else m.span()
                if rule.entropy and shannon(secret) <= rule.entropy:
                    continue
                line_start = text.rfind("\n", 0, m.start()) + 1
                line_end = text.find("\n", m.end())
                line = text[line_start : line_end if line_end >= 0 else len(text)]
                if "gitleaks:allow" in line:
                    continue
                if self.global_allow.regexes and any(r.search(secret) for r in self.global_allow.regexes):
                    continue
                if any(w in secret.lower() for w in self.global_allow.stopwords):
                    continue
                if any(a.allows(secret, m.group(0), line, path) for a in rule.allows):
                    continue
                found.append((rule.id, text.count("\n", 0, m.start()), secret, (start, end)))
        return found


def gitleaks_arm(toml_path: Path) -> tuple[Detector, str]:
    engine = Gitleaks.load(toml_path)
    note = f"{len(engine.rules)} rules, {len(engine.skipped)} skipped (do not compile): {', '.join(engine.skipped) or '-'}"
    return (lambda corpus: [engine.scan(c.text, c.path) for c in corpus]), note


def gitleaks_bin_arm(exe: str) -> Detector:
    def run(corpus: Sequence[Case]) -> list[Hits]:
        out = [Hits() for _ in corpus]
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "corpus"
            names = _materialise(corpus, root)
            index = {name: i for i, name in enumerate(names)}
            report = Path(tmp) / "report.json"
            subprocess.run(
                [
                    exe,
                    "dir",
                    str(root),
                    "--report-format",
                    "json",
                    "--report-path",
                    str(report),
                    "--no-banner",
                ],
                check=False,
                capture_output=True,
            )
            for finding in json.loads(report.read_text(encoding="utf-8") or "[]"):
                name = Path(finding["File"]).resolve().relative_to(root.resolve()).as_posix()
                i = index.get(name)
                if i is None:
                    continue
                lines = range(
                    int(finding["StartLine"]), int(finding.get("EndLine", finding["StartLine"])) + 1
                )
                secret = finding.get("Secret", "")
                spans = [s for n in lines for s in _line_spans(corpus[i].text, n, secret)]
                out[i].text.extend(spans or [(0, 0)])
                out[i].rules.append(finding["RuleID"])
        return out

    return run


# --- main -------------------------------------------------------------------------------------------------


def _timed(arm: str, detector: Detector, corpus: Sequence[Case], note: str = "") -> Score:
    start = time.perf_counter()
    hits = detector(corpus)
    return score(arm, corpus, hits, time.perf_counter() - start, note)


def run_arms(args: argparse.Namespace, corpus: Sequence[Case]) -> Iterable[Score]:
    yield _timed("prooftext", prooftext_arm, corpus)
    if args.detect_secrets:
        yield _timed("detect-secrets (default plugins)", detect_secrets_arm, corpus)
        yield _timed(
            "detect-secrets (no high-entropy plugins)",
            lambda c: detect_secrets_arm(c, entropy=False),
            corpus,
        )
    if args.gitleaks:
        detector, note = gitleaks_arm(Path(args.gitleaks))
        yield _timed("gitleaks rules (python)", detector, corpus, note)
    if args.gitleaks_bin:
        yield _timed("gitleaks binary", gitleaks_bin_arm(args.gitleaks_bin), corpus)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    parser.add_argument(
        "--holdout", action="store_true", help="score the hold-out corpus (tests/secret_corpus_holdout.py)"
    )
    parser.add_argument(
        "--detect-secrets", action="store_true", help="also run detect-secrets' default plugins"
    )
    parser.add_argument("--gitleaks", metavar="TOML", help="also apply the rules of this gitleaks.toml")
    parser.add_argument("--gitleaks-bin", metavar="EXE", help="also run this gitleaks binary")
    args = parser.parse_args(argv)
    corpus = holdout() if args.holdout else cases()
    scores = list(run_arms(args, corpus))
    if args.json:
        print(json.dumps({"cases": len(corpus), "arms": [s.to_dict() for s in scores]}, indent=2))
    else:
        print(
            f"corpus: {sum(c.positive for c in corpus)} positives, {sum(not c.positive for c in corpus)} negatives\n"
        )
        for s in scores:
            _print(s)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
