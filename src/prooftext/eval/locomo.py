"""LoCoMo: evidence-turn recall against prompt tokens for six ways of giving a model the history.

Arms (``@B`` = at token budget ``B``):

- ``full``: the whole history (budget-independent; it holds every evidence turn),
- ``last_n@B``: the most recent turns that fit, contiguous,
- ``bm25@B``: bm25s over turns, packed in rank order (skipping turns that overflow),
- ``fixed@B``: ``Index.pack`` over the conversation's transcript, ``adaptive@B``: ``Index.adaptive_pack``,
- ``oracle``: exactly the evidence turns (budget-independent; its tokens are the floor),
- ``bm25_top5``: the first five bm25 turns, unbudgeted (comparable to DRAGON's top-5 recall of 56.7).

The lexical arms render selected turns in transcript order, each as ``[date] Speaker: text``. Evidence recall
is the LoCoMo definition: per question the share of its evidence turns in the context, averaged over
questions that have evidence; the all-evidence rate is the share with every evidence turn present.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prooftext.adaptive.ladder import DEFAULT_MIN_TOKENS, Ladder, climbing_to
from prooftext.errors import RangeError
from prooftext.eval.answers import locomo_score
from prooftext.eval.arms import DEFAULT_BUDGETS, LOCOMO_ARMS
from prooftext.eval.common import elapsed_ms, error_record
from prooftext.eval.executor import Emit
from prooftext.eval.lexical import Bm25Ranker, pack_whole, terms
from prooftext.eval.locomo_data import Conversation, Question, sample_questions
from prooftext.eval.model import ModelClient, ModelPlan, not_sent
from prooftext.index import Index, open_index
from prooftext.pack.packet import Packet
from prooftext.select.query import Query
from prooftext.tokens import DEFAULT_TOKENIZER, Counter, get_counter

BUDGETED_ARMS: tuple[str, ...] = ("last_n", "bm25", "fixed", "adaptive")
UNBUDGETED_ARMS: tuple[str, ...] = ("full", "oracle", "bm25_top5")
TURN_K1 = 1.2
TURN_B = 0.75
TOP_K = 5
PROMPT_KEY = "_prompt"
"""A packed arm's prompt text, carried from the packer to the model and never into a row."""
TRANSCRIPT_FILE = "transcript.md"


@dataclass(frozen=True)
class LocomoConfig:
    work_dir: Path
    budgets: tuple[int, ...] = DEFAULT_BUDGETS
    arms: tuple[str, ...] = LOCOMO_ARMS
    tokenizer: str = DEFAULT_TOKENIZER
    questions_per_conversation: int | None = None
    allow_truncated: bool = False

    def __post_init__(self) -> None:
        # Refused up front: a bad count would otherwise fail inside a worker, once per conversation.
        if self.questions_per_conversation is not None and self.questions_per_conversation < 1:
            raise RangeError(
                f"questions per conversation must be at least 1, not {self.questions_per_conversation}",
                field="questions",
            )

    def arm_parameters(self) -> dict[str, dict[str, Any]]:
        lexical = {"render": "[date] Speaker: text, transcript order", "tokenizer": self.tokenizer}
        packed = {
            "transcript": "Markdown, one ## section per session, one line per turn",
            "allow_truncated": self.allow_truncated,
            "tokenizer": self.tokenizer,
        }
        params: dict[str, dict[str, Any]] = {
            "full": {**lexical, "turns": "all"},
            "last_n": {**lexical, "budgets": list(self.budgets), "packing": "most recent, contiguous"},
            "bm25": {**lexical, "budgets": list(self.budgets), "k1": TURN_K1, "b": TURN_B},
            "fixed": {**packed, "budgets": list(self.budgets)},
            "adaptive": {
                **packed,
                "budgets": list(self.budgets),
                "min_tokens": f"min({DEFAULT_MIN_TOKENS}, budget)",
            },
            "oracle": {**lexical, "turns": "evidence only"},
        }
        out = {arm: params[arm] for arm in self.arms}
        if "bm25" in self.arms:
            out["bm25_top5"] = {"k": TOP_K, "k1": TURN_K1, "b": TURN_B}
        return out

    def arm_keys(self) -> list[str]:
        """The arms as a run's rows name them: ``full``, ``oracle``, ``bm25_top5`` and ``arm@budget``."""
        keys = [a for a in ("full", "oracle") if a in self.arms]
        keys += ["bm25_top5"] if "bm25" in self.arms else []
        return keys + [f"{a}@{b}" for a in BUDGETED_ARMS if a in self.arms for b in self.budgets]


def turn_prompt(question: str, lines: Sequence[str]) -> str:
    return f"<question>\n{question.strip()}\n</question>\n<conversation>\n{''.join(lines)}</conversation>\n"


class _Lexical:
    """Per-conversation data for the lexical arms: turn blocks, their exact costs, a bm25 ranker."""

    def __init__(self, conv: Conversation, counter: Counter) -> None:
        self.conv = conv
        self.counter = counter
        self.blocks = [f"[{t.date}] {t.line_text}\n" for t in conv.turns]
        self.costs = [counter.count(b) for b in self.blocks]
        self.ids = [t.dia_id for t in conv.turns]
        self.ranker = Bm25Ranker([terms(t.line_text) for t in conv.turns], TURN_K1, TURN_B)

    def prompt(self, question: str, taken: Sequence[int]) -> str:
        return turn_prompt(question, [self.blocks[i] for i in sorted(taken)])

    def pack(
        self, question: str, order: Sequence[int], budget: int, skip: bool
    ) -> tuple[set[str], int, list[int]]:
        packed = pack_whole(
            order,
            lambda i: self.costs[i],
            lambda taken: self.prompt(question, taken),
            budget,
            self.counter,
            skip_overflow=skip,
        )
        return {self.ids[i] for i in packed.taken}, packed.prompt_tokens, packed.taken


def _recall(evidence: Sequence[str], present: set[str]) -> dict[str, Any]:
    if not evidence:
        return {"evidence_recall": None, "all_evidence": None}
    hit = sum(1 for e in evidence if e in present)
    return {"evidence_recall": hit / len(evidence), "all_evidence": hit == len(evidence)}


def _lexical_arms(
    lex: _Lexical, q: Question, cfg: LocomoConfig, prompts: dict[str, str] | None = None
) -> dict[str, dict[str, Any]]:
    """The lexical arms' scores; with ``prompts``, each arm's prompt text is kept there too."""
    out: dict[str, dict[str, Any]] = {}
    kept: dict[str, str] = {} if prompts is None else prompts
    everything = list(range(len(lex.blocks)))
    if "full" in cfg.arms:
        started = time.perf_counter()
        kept["full"] = lex.prompt(q.text, everything)
        tokens = lex.counter.count(kept["full"])
        out["full"] = {
            "prompt_tokens": tokens,
            "latency_ms": elapsed_ms(started),
            **_recall(q.evidence, set(lex.ids)),
        }
    if "oracle" in cfg.arms:
        wanted = [i for i, d in enumerate(lex.ids) if d in q.evidence]
        kept["oracle"] = lex.prompt(q.text, wanted)
        tokens = lex.counter.count(kept["oracle"])
        out["oracle"] = {"prompt_tokens": tokens, **_recall(q.evidence, {lex.ids[i] for i in wanted})}
    started = time.perf_counter()
    ranked = lex.ranker.rank(q.text, lex.ids)
    rank_ms = elapsed_ms(started)
    if "bm25" in cfg.arms:
        top = {lex.ids[i] for i in ranked[:TOP_K]}
        kept["bm25_top5"] = lex.prompt(q.text, ranked[:TOP_K])
        out["bm25_top5"] = {"prompt_tokens": lex.counter.count(kept["bm25_top5"])}
        out["bm25_top5"].update(_recall(q.evidence, top))
    for budget in cfg.budgets:
        if "last_n" in cfg.arms:
            started = time.perf_counter()
            present, tokens, taken = lex.pack(q.text, everything[::-1], budget, skip=False)
            if prompts is not None:
                kept[f"last_n@{budget}"] = lex.prompt(q.text, taken)
            out[f"last_n@{budget}"] = {"prompt_tokens": tokens, "latency_ms": elapsed_ms(started)}
            out[f"last_n@{budget}"].update(_recall(q.evidence, present))
        if "bm25" in cfg.arms:
            started = time.perf_counter()
            present, tokens, taken = lex.pack(q.text, ranked, budget, skip=True)
            if prompts is not None:
                kept[f"bm25@{budget}"] = lex.prompt(q.text, taken)
            out[f"bm25@{budget}"] = {
                "prompt_tokens": tokens,
                "latency_ms": round(rank_ms + elapsed_ms(started), 3),
            }
            out[f"bm25@{budget}"].update(_recall(q.evidence, present))
    return out


def _packet_scores(packet: Packet, latency: float, conv: Conversation, q: Question) -> dict[str, Any]:
    """What a packed arm measures for one question: prompt tokens, latency, excerpts, the turns they quote
    and the evidence recall."""
    present = conv.turns_in([(e.start_line, e.end_line) for e in packet.evidence])
    return {
        "prompt_tokens": packet.prompt_tokens.count,
        "latency_ms": latency,
        "excerpts": len(packet.evidence),
        "turns": len(present),
        **_recall(q.evidence, present),
        PROMPT_KEY: packet.prompt,
    }


def _fixed(index: Index, conv: Conversation, q: Question, budget: int, cfg: LocomoConfig) -> dict[str, Any]:
    started = time.perf_counter()
    packet = index.pack(
        Query(q.text, max_tokens=budget, tokenizer=cfg.tokenizer, allow_truncated=cfg.allow_truncated),
        refresh=False,
    )
    return _packet_scores(packet, elapsed_ms(started), conv, q)


def _adaptive(
    index: Index, conv: Conversation, q: Question, budget: int, cfg: LocomoConfig
) -> dict[str, Any]:
    started = time.perf_counter()
    result = index.adaptive_pack(
        Query(q.text, tokenizer=cfg.tokenizer),
        ladder=climbing_to(Ladder(allow_truncated=cfg.allow_truncated), budget),
        refresh=False,
    )
    return {
        **_packet_scores(result.packet, elapsed_ms(started), conv, q),
        "stop_reason": result.stop_reason,
        "selected_round": result.selected_round,
        "rounds": len(result.rounds),
    }


def _prooftext_arms(
    index: Index, conv: Conversation, q: Question, cfg: LocomoConfig, prompts: dict[str, str]
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for budget in cfg.budgets:
        for arm, fn in (("fixed", _fixed), ("adaptive", _adaptive)):
            if arm not in cfg.arms:
                continue
            try:
                scores = fn(index, conv, q, budget, cfg)
                prompts[f"{arm}@{budget}"] = scores.pop(PROMPT_KEY)
                out[f"{arm}@{budget}"] = {"ok": True, **scores}
            except Exception as exc:  # a failure is a measured outcome: recorded, counted, never raised
                out[f"{arm}@{budget}"] = {"ok": False, "error": error_record(exc)}
    return out


def _question_row(
    conv: Conversation,
    q: Question,
    lex: _Lexical,
    index: Index | None,
    cfg: LocomoConfig,
    failure: dict[str, Any] | None,
    model: ModelClient | None = None,
) -> dict[str, Any]:
    prompts: dict[str, str] = {}
    arms = {
        name: {"ok": True, **values}
        for name, values in _lexical_arms(lex, q, cfg, prompts if model else None).items()
    }
    if index is not None:
        arms.update(_prooftext_arms(index, conv, q, cfg, prompts))
    elif failure is not None:
        for arm in ("fixed", "adaptive"):
            if arm in cfg.arms:
                arms.update({f"{arm}@{b}": {"ok": False, "error": failure} for b in cfg.budgets})
    if model is not None:

        def score(text: str) -> dict[str, Any]:
            return locomo_score(text, q.answer, q.category)

        for name, result in arms.items():
            prompt = prompts.get(name)
            result["model"] = (
                model.answer(q.qid, name, prompt, int(result["prompt_tokens"]), score)
                if result.get("ok") and prompt is not None
                else not_sent("the arm failed")
            )
    return {
        "qid": q.qid,
        "sample_id": conv.sample_id,
        "category": q.category,
        "evidence": list(q.evidence),
        "answer": q.answer,
        "arms": arms,
    }


def _conversation_index(conv: Conversation, cfg: LocomoConfig) -> Index:
    root = cfg.work_dir / conv.dir_name  # never the raw sample id: it could name any path
    root.mkdir(parents=True, exist_ok=True)
    path = root / TRANSCRIPT_FILE
    text = conv.transcript()
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    index = open_index(root)
    index.refresh()
    return index


@dataclass(frozen=True)
class ConversationRunner:
    """``runner(conversation, emit)``: a picklable unit function for the executors."""

    config: LocomoConfig
    model: ModelPlan | None = None

    def __call__(self, conv: Conversation, emit: Emit) -> int:
        cfg = self.config
        client = None if self.model is None else ModelClient(self.model)
        lex = _Lexical(conv, get_counter(cfg.tokenizer))
        questions = sample_questions(conv.questions, cfg.questions_per_conversation)
        index: Index | None = None
        failure: dict[str, Any] | None = None
        if {"fixed", "adaptive"} & set(cfg.arms):
            try:
                index = _conversation_index(conv, cfg)
            except Exception as exc:  # every packed arm of this conversation failed: recorded per question
                failure = error_record(exc)
        try:
            for q in questions:
                emit(_question_row(conv, q, lex, index, cfg, failure, client))
        finally:
            if index is not None:
                index.close()
            if client is not None:
                client.close()
        return len(questions)
