"""The terminal summary's sentences fit the terminal as its tables do (wrapped at word boundaries, never a
word cut); a pipe or file keeps one line per sentence. Counts read as English at one."""

from __future__ import annotations

from prooftext.cli.eval import note_lines
from prooftext.eval import locomo_findings

LONG = (
    "Within the 8,000-token budget, fixed has the highest gold-file recall: 82.3% at 7,974 prompt tokens on"
    " average; bm25 is 53.0 points lower (29.3%, 7,989 tokens); adaptive_with_a_very_long_name_indeed ties it."
)


def test_a_sentence_is_wrapped_to_the_terminal_width_at_word_boundaries() -> None:
    lines = note_lines([LONG, "short"], 80)
    assert max(len(line) for line in lines) <= 80 and len(lines) > 2
    assert " ".join(lines[:-1]) == LONG and lines[-1] == "short"


def test_without_a_terminal_each_sentence_stays_one_line() -> None:
    assert note_lines([LONG, "short"], None) == [LONG, "short"]


def test_the_evidence_normalization_sentence_uses_the_singular_for_one() -> None:
    stats = {"raw_entries": 6, "ids_repaired": 1, "ids_dropped": 1, "dropped": ["D"]}
    sentence = locomo_findings.normalization_sentence({**stats, "questions_without_evidence": 1})
    assert "1 id was repaired and 1 dropped (D); 1 question has no evidence and is never scored." in sentence


def test_the_evidence_normalization_sentence_lists_at_most_a_few_dropped_ids() -> None:
    dropped = [f"X{n}" for n in range(500)]
    stats = {"raw_entries": 600, "ids_repaired": 0, "ids_dropped": 500, "dropped": dropped}
    sentence = locomo_findings.normalization_sentence({**stats, "questions_without_evidence": 0})
    assert "X0, X1" in sentence and "X499" not in sentence and "and 490 more" in sentence
    assert len(sentence) < 400


def test_without_prices_equal_output_lengths_are_said_once_not_as_a_range() -> None:
    from prooftext.eval.model_summary import cost_sentence

    arms = {a: {"model": {"output_tokens_mean": 4.0}} for a in ("full", "fixed", "adaptive")}
    assert cost_sentence(arms).endswith("mean output tokens are 4 in every arm.")
    arms["full"]["model"]["output_tokens_mean"] = 9.0
    assert cost_sentence(arms).endswith("range from 4 (adaptive) to 9 (full).")


def test_names_from_the_data_are_printed_as_text_not_as_console_markup() -> None:
    import io

    from rich.console import Console

    import prooftext
    from prooftext.cli.eval import print_tables

    arm = {"prompt_tokens_mean": 10.0, "gold_line_recall": 0.5, "gold_file_recall": 0.5, "acc@5": 1.0}
    summary = {
        "tasks": 1,
        "budget": 100,
        "arms": {"fixed": arm, "adaptive": arm},
        "by_repo": {"demo/[/x]": {"fixed": arm}, "[bold]demo": {"fixed": arm}},
        "task_losses": [
            {
                "instance_id": "demo[/x]\x1b[31m",
                "repo": "demo/[/x]",
                "loss": 0.5,
                "best": ["fixed"],
                "losses": {"fixed": 0.5, "adaptive": 0.5},
                "best_value": 1.0,
            }
        ],
    }
    out = io.StringIO()
    print_tables(prooftext.EvalReport("swebench", summary), Console(file=out, width=80, color_system=None))
    text = out.getvalue()
    assert "demo/[/x]" in text and "[bold]demo" in text and "demo[/x]" in text and "\x1b" not in text


def test_a_sentence_never_sends_a_control_character_from_the_data_to_the_terminal() -> None:
    for width in (80, None):
        (line,) = note_lines(["dropped (D1:1\x1b]0;title\x07)"], width)
        assert "\x1b" not in line and "\x07" not in line and "D1:1" in line
