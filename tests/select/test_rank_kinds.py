"""Files that are not code (configuration, data, text) weigh as documentation does: evidence about the code,
below the code that the question is about."""

from __future__ import annotations

from pathlib import Path

from helpers import write_tree
from prooftext.select.candidates import SCALE
from prooftext.select.policy import DEFAULT_POLICY
from under_policy import ranked_under

RETRY = '''def retry_backoff(attempt, base_delay, max_delay):
    """Delay before the next retry: the base delay doubled per attempt, capped at the maximum delay."""
    return min(max_delay, base_delay * 2**attempt)
'''
CONFIG = "retry:\n  backoff: exponential\n  base_delay: 0.5\n  max_delay: 30\n  attempt_limit: 5\n"
DATA = '{"retry": {"backoff": "exponential", "base_delay": 0.5, "max_delay": 30, "attempt": 5}}\n'
TEXT = "retry backoff: base delay doubled per attempt up to the max delay\n"
QUERY = "how is the retry backoff delay computed from the base delay and the max delay per attempt?"


def test_configuration_data_and_text_files_weigh_as_documentation_and_code_ranks_first(
    tmp_path: Path,
) -> None:
    files = {"src/retry.py": RETRY, "conf/retry.yaml": CONFIG, "fixtures/retry.json": DATA, "NOTES": TEXT}
    write_tree(tmp_path, files)
    hits = ranked_under(tmp_path, QUERY, DEFAULT_POLICY)
    weights = {h["path"]: int(h["components"]["deweight"]) for h in hits}
    doc = round(DEFAULT_POLICY.doc_factor * SCALE)
    assert weights == {
        "src/retry.py": SCALE,
        "conf/retry.yaml": doc,
        "fixtures/retry.json": doc,
        "NOTES": doc,
    }
    assert hits[0]["path"] == "src/retry.py"
