"""Scoring a model's answer: LoCoMo's token-level F1 and exact match, and SWE-bench file and function
localization from a small JSON answer.

LoCoMo (Maharana et al., ACL 2024; ``task_eval/evaluation.py`` of snap-research/locomo): an answer and the
gold answer are normalized (lower case, commas and punctuation removed, the words a, an, the and "and"
dropped, whitespace collapsed), each word is Porter-stemmed, and the F1 of the two bags of stems is the score.
Per category, as the paper's code does: multi-hop (1) splits both on commas and averages, over the gold parts,
the best F1 of any predicted part; open-domain (3) keeps the gold answer up to its first ``;``; adversarial (5)
scores 1 when the answer says "no information available" or "not mentioned", else 0. Exact match: the two
normalized answers hold the same set of words. The stemmer is Porter's original algorithm (1980); NLTK's
default mode, which the paper's code uses, adds extensions that change the stems of a few rare words.

SWE-bench localization: the answer is one JSON object ``{"files": [...], "functions": [...]}`` (a code fence
around it is allowed). Anything else is *unparseable*, counted as such and never as a silent miss.
"""

from __future__ import annotations

import json
import re
import string
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

CATEGORY_MULTI_HOP = 1
CATEGORY_OPEN_DOMAIN = 3
CATEGORY_ADVERSARIAL = 5
ADVERSARIAL_PHRASES = ("no information available", "not mentioned")
"""An adversarial question (no answer in the conversation) is answered right when the reply says one of these."""
SUCCESS_SCORE = 0.5
"""A LoCoMo question succeeds when its score (F1, or the adversarial 0/1) is at least this."""

_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
_PUNCTUATION = frozenset(string.punctuation)


# --- Porter's stemmer (the original algorithm) ------------------------------------------------------------


def _consonant(word: str, i: int) -> bool:
    char = word[i]
    if char in "aeiou":
        return False
    if char == "y":
        return i == 0 or not _consonant(word, i - 1)
    return True


def _measure(stem: str) -> int:
    """Porter's m: the number of vowel-consonant sequences in ``stem``."""
    forms = "".join("c" if _consonant(stem, i) else "v" for i in range(len(stem)))
    return forms.count("vc")


def _has_vowel(stem: str) -> bool:
    return any(not _consonant(stem, i) for i in range(len(stem)))


def _double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _consonant(word, len(word) - 1)


def _cvc(word: str) -> bool:
    """Consonant, vowel, consonant at the end, the last not w, x or y."""
    n = len(word)
    return (
        n >= 3
        and _consonant(word, n - 3)
        and not _consonant(word, n - 2)
        and _consonant(word, n - 1)
        and word[-1] not in "wxy"
    )


_STEP2 = {
    "ational": "ate",
    "tional": "tion",
    "enci": "ence",
    "anci": "ance",
    "izer": "ize",
    "abli": "able",
    "alli": "al",
    "entli": "ent",
    "eli": "e",
    "ousli": "ous",
    "ization": "ize",
    "ation": "ate",
    "ator": "ate",
    "alism": "al",
    "iveness": "ive",
    "fulness": "ful",
    "ousness": "ous",
    "aliti": "al",
    "iviti": "ive",
    "biliti": "ble",
}
_STEP3 = {"icate": "ic", "ative": "", "alize": "al", "iciti": "ic", "ical": "ic", "ful": "", "ness": ""}
_STEP4 = (
    "al",
    "ance",
    "ence",
    "er",
    "ic",
    "able",
    "ible",
    "ant",
    "ement",
    "ment",
    "ent",
    "ion",
    "ou",
    "ism",
    "ate",
    "iti",
    "ous",
    "ive",
    "ize",
)


def _longest(word: str, suffixes: Sequence[str]) -> str | None:
    found = [s for s in suffixes if word.endswith(s)]
    return max(found, key=len) if found else None


def _step1(word: str) -> str:
    if word.endswith("sses") or word.endswith("ies"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    if word.endswith("eed"):
        if _measure(word[:-3]) > 0:
            word = word[:-1]
    else:
        for suffix in ("ed", "ing"):
            if word.endswith(suffix) and _has_vowel(word[: -len(suffix)]):
                word = word[: -len(suffix)]
                if word.endswith(("at", "bl", "iz")):
                    word += "e"
                elif _double_consonant(word) and word[-1] not in "lsz":
                    word = word[:-1]
                elif _measure(word) == 1 and _cvc(word):
                    word += "e"
                break
    if word.endswith("y") and _has_vowel(word[:-1]):
        word = word[:-1] + "i"
    return word


def _replace(word: str, table: Mapping[str, str], minimum: int) -> str:
    suffix = _longest(word, list(table))
    if suffix is not None and _measure(word[: -len(suffix)]) > minimum:
        return word[: -len(suffix)] + table[suffix]
    return word


def _step4(word: str) -> str:
    suffix = _longest(word, _STEP4)
    if suffix is None:
        return word
    stem = word[: -len(suffix)]
    if suffix == "ion" and not stem.endswith(("s", "t")):
        return word
    return stem if _measure(stem) > 1 else word


def _step5(word: str) -> str:
    if word.endswith("e"):
        stem = word[:-1]
        m = _measure(stem)
        if m > 1 or (m == 1 and not _cvc(stem)):
            word = stem
    if word.endswith("ll") and _measure(word) > 1:
        word = word[:-1]
    return word


def porter_stem(word: str) -> str:
    """A lower-case word's Porter stem (words of one or two letters are their own stem)."""
    if len(word) <= 2:
        return word
    word = _step1(word)
    word = _replace(word, _STEP2, 0)
    word = _replace(word, _STEP3, 0)
    return _step5(_step4(word))


# --- LoCoMo -----------------------------------------------------------------------------------------------


def normalize_answer(text: str) -> str:
    text = text.replace(",", "").lower()
    text = "".join(ch for ch in text if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def _stems(text: str) -> list[str]:
    return [porter_stem(w) for w in normalize_answer(text).split()]


def token_f1(prediction: str, gold: str) -> float:
    """Token-level F1 of the stemmed, normalized answers (0 when they share no stem)."""
    predicted, wanted = _stems(prediction), _stems(gold)
    same = sum((Counter(predicted) & Counter(wanted)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(predicted), same / len(wanted)
    return 2 * precision * recall / (precision + recall)


def multi_hop_f1(prediction: str, gold: str) -> float:
    """The mean, over the comma-separated gold parts, of the best F1 of any comma-separated predicted part."""
    predicted = [p.strip() for p in prediction.split(",")]
    wanted = [g.strip() for g in gold.split(",")]
    return sum(max(token_f1(p, g) for p in predicted) for g in wanted) / len(wanted)


def exact_match(prediction: str, gold: str) -> bool:
    return set(normalize_answer(prediction).split()) == set(normalize_answer(gold).split())


def says_not_mentioned(answer: str) -> bool:
    lowered = answer.lower()
    return any(phrase in lowered for phrase in ADVERSARIAL_PHRASES)


def locomo_score(answer: str, gold: str | None, category: int) -> dict[str, Any]:
    """``f1`` (the paper's score for the category), ``em`` and ``success`` (score at least 0.5)."""
    if category == CATEGORY_ADVERSARIAL or gold is None:
        right = says_not_mentioned(answer)
        return {"f1": float(right), "em": right, "success": right}
    if category == CATEGORY_OPEN_DOMAIN:
        gold = gold.split(";")[0].strip()
    f1 = multi_hop_f1(answer, gold) if category == CATEGORY_MULTI_HOP else token_f1(answer, gold)
    return {"f1": f1, "em": exact_match(answer, gold), "success": f1 >= SUCCESS_SCORE}


# --- SWE-bench localization -------------------------------------------------------------------------------

_FENCE = re.compile(r"^```[A-Za-z]*\s*\n?(.*?)\n?```$", re.DOTALL)


@dataclass(frozen=True)
class Localization:
    files: tuple[str, ...]
    functions: tuple[tuple[str | None, str], ...]
    """``(path or None, dotted name)`` per named function: ``path::Class.method`` or ``Class.method``."""


def parse_localization(text: str) -> Localization | None:
    """The files and functions an answer names, or None when it is not the JSON object the instruction asks
    for (a code fence around it is allowed)."""
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):  # not JSON, or an integer too long or nesting too deep to read
        return None
    if not isinstance(data, dict):
        return None
    files = data.get("files")
    functions = data.get("functions", [])
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        return None
    if not isinstance(functions, list) or not all(isinstance(f, str) for f in functions):
        return None
    named: list[tuple[str | None, str]] = []
    for item in functions:
        path, sep, name = item.rpartition("::")
        named.append((_clean_path(path) if sep else None, name.strip()))
    return Localization(tuple(dict.fromkeys(_clean_path(f) for f in files)), tuple(named))


def _clean_path(path: str) -> str:
    return path.strip().removeprefix("./").removeprefix("/")


def _span_named(path: str, gold: str, named: Sequence[tuple[str | None, str]]) -> bool:
    """A gold span is named by ``Class.method`` itself, by a member of it (``Class`` by ``Class.method``),
    or by its last part alone (``method``), in its file or without a file."""
    for where, name in named:
        if where not in (None, path) or not name:
            continue
        if name == gold or name.startswith(gold + ".") or gold.endswith("." + name):
            return True
    return False


def swe_score(
    answer: str, gold_files: Sequence[str], gold_spans: Mapping[str, Sequence[str]]
) -> dict[str, Any]:
    """File and function localization of one answer: ``parsed``; ``file_hit`` (every gold file named, the
    task's success), ``file_recall``; ``function_hit`` and ``function_recall`` over the gold patch's
    function and class names (None when it names none); the files named."""
    found = parse_localization(answer)
    spans = [(p, s) for p, names in gold_spans.items() for s in names]
    if found is None:
        return {
            "parsed": False,
            "success": False,
            "file_hit": False,
            "file_recall": 0.0,
            "function_hit": False if spans else None,
            "function_recall": 0.0 if spans else None,
            "named_files": [],
        }
    named = set(found.files)
    hit = [g for g in gold_files if g in named]
    spans_hit = [s for s in spans if _span_named(s[0], s[1], found.functions)]
    return {
        "parsed": True,
        "success": len(hit) == len(gold_files),
        "file_hit": len(hit) == len(gold_files),
        "file_recall": len(hit) / len(gold_files) if gold_files else 0.0,
        "function_hit": len(spans_hit) == len(spans) if spans else None,
        "function_recall": len(spans_hit) / len(spans) if spans else None,
        "named_files": list(found.files),
    }
