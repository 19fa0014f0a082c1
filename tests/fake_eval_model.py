"""A deterministic stand-in for a model under evaluation, answering from the prompt alone.

LoCoMo: it finds the question in the prompt; it gives the gold answer when every evidence turn of that
question is quoted in the prompt, and "Not mentioned in the conversation." otherwise (so an arm's answer
success follows its evidence recall). SWE-bench: it finds the task by its issue text and names, as JSON, the
gold files (and their gold functions) whose paths the prompt quotes, or the first file the prompt quotes when
it quotes none; a task whose issue holds ``MALFORMED`` gets prose instead of JSON.

``python -m tests.fake_eval_model --locomo FILE --tasks FILE`` serves it on 127.0.0.1 (both wire formats)
and prints the URL, for a command-line run against it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tests.fake_chat_server import FakeChatServer

NOT_MENTIONED = "Not mentioned in the conversation."
MALFORMED_MARKER = "MALFORMED"
PROSE_ANSWER = "I think the bug is somewhere in the code."
ISSUE_CHARS = 120
"""A task is recognized by this much of its issue's first line."""
_PATHS = re.compile(r"\[start of ([^\]]+)\]|path=(\S+)")


def _prompt(body: Mapping[str, Any]) -> str:
    messages = body.get("messages") or []
    return "\n".join(str(m.get("content", "")) for m in messages if m.get("role") == "user")


class LocomoModel:
    def __init__(self, conversations: Sequence[Mapping[str, Any]]) -> None:
        self.questions: list[tuple[str, list[str], str | None]] = []
        for conv in conversations:
            turns = {
                str(t["dia_id"]): str(t.get("text", ""))
                for key, session in conv["conversation"].items()
                if key.startswith("session_") and isinstance(session, list)
                for t in session
            }
            for qa in conv["qa"]:
                ids = [i for e in qa.get("evidence", []) for i in re.split(r"[;\s]+", str(e))]
                needles = [turns[i][:60] for i in ids if i in turns]
                answer = qa.get("answer")
                self.questions.append(
                    (str(qa["question"]).strip(), needles, None if answer is None else str(answer))
                )
        self.questions.sort(key=lambda q: -len(q[0]))

    def __call__(self, body: Mapping[str, Any]) -> str:
        prompt = _prompt(body)
        for question, needles, answer in self.questions:
            if question in prompt:
                if answer is not None and needles and all(n in prompt for n in needles):
                    return answer
                return NOT_MENTIONED
        return NOT_MENTIONED


class SweModel:
    def __init__(self, tasks: Sequence[Mapping[str, Any]]) -> None:
        self.tasks = [(str(t["problem_statement"]).strip().split("\n")[0][:ISSUE_CHARS], t) for t in tasks]

    def __call__(self, body: Mapping[str, Any]) -> str:
        prompt = _prompt(body)
        for issue, task in self.tasks:
            if issue and issue in prompt:
                return self._answer(prompt, task)
        return json.dumps({"files": [], "functions": []})

    def _answer(self, prompt: str, task: Mapping[str, Any]) -> str:
        if MALFORMED_MARKER in str(task["problem_statement"]):
            return PROSE_ANSWER
        quoted = [a or b for a, b in _PATHS.findall(prompt)]
        gold = [str(f.get("base_path") or f["path"]) for f in task["fix_files"]]
        files = [g for g in gold if g in quoted] or quoted[:1]
        spans = task.get("fix_spans") or {}
        functions = [f"{path}::{name}" for path in files for name in spans.get(path, [])]
        return "```json\n" + json.dumps({"files": files, "functions": functions}) + "\n```"


class EvalModel:
    """Both responders behind one server: SWE-bench when the prompt holds a known issue, else LoCoMo."""

    def __init__(self, locomo: LocomoModel | None, swe: SweModel | None) -> None:
        self.locomo = locomo
        self.swe = swe

    def __call__(self, body: dict[str, Any]) -> str:
        system = " ".join(
            str(m.get("content", "")) for m in body.get("messages", []) if m.get("role") == "system"
        )
        if "localize" in system and self.swe is not None:
            return self.swe(body)
        if self.locomo is not None:
            return self.locomo(body)
        return NOT_MENTIONED


def load_tasks(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--locomo", type=Path)
    parser.add_argument("--tasks", type=Path)
    parser.add_argument("--model", default="fake-eval")
    args = parser.parse_args(argv)
    locomo = LocomoModel(json.loads(args.locomo.read_text(encoding="utf-8"))) if args.locomo else None
    swe = SweModel(load_tasks(args.tasks)) if args.tasks else None
    server = FakeChatServer(models=(args.model,), responder=EvalModel(locomo, swe)).start()
    print(server.url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()
        sys.exit(0)


if __name__ == "__main__":
    main()
