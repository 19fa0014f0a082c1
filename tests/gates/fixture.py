"""The synthetic, public fixture repository of the context gate and tests (no owner or runtime content).

A canonical specification links an accepted decision; the decision and a draft note contradict each other;
a small ledger package is called by its tests; draft notes are untrusted observations. The owner root holds
two owner records that contradict each other.
"""

from __future__ import annotations

from pathlib import Path

SPECIFICATION = "SPEC.md"
DECISION = "docs/decisions/0001-budget.md"
DRAFT = "docs/notes/budget-draft.md"
LEDGER = "ledger/budget.py"
TESTS = "tests/test_budget.py"
OWNER_RECORD = "approvals/release.md"
OWNER_DRAFT = "approvals/draft.md"

REPOSITORY_FILES: dict[str, str] = {
    "prooftext.toml": (
        "[scan]\n"
        f'specification = "{SPECIFICATION}"\n'
        "\n"
        "[[labels]]\n"
        f'glob = "{SPECIFICATION}"\n'
        'sensitivity = "public"\n'
        "\n"
        "[[labels]]\n"
        'glob = "docs/decisions/**"\n'
        'authority = "accepted-public-contract"\n'
        'sensitivity = "public"\n'
        "\n"
        "[[labels]]\n"
        'glob = "docs/notes/**"\n'
        'authority = "untrusted-observation"\n'
        "\n"
        "[[labels]]\n"
        'glob = "tests/**"\n'
        'authority = "verified-evidence"\n'
    ),
    ".gitignore": "out/\n",
    SPECIFICATION: (
        "# Ledger specification\n"
        "\n"
        "The ledger charges every request against a hard byte budget.\n"
        "\n"
        "## Budget\n"
        "\n"
        "Budgets are decided in [the budget decision](docs/decisions/0001-budget.md).\n"
    ),
    DECISION: (
        "---\n"
        f"contradicts: [{DRAFT}]\n"
        "---\n"
        "# Decision: hard budgets\n"
        "\n"
        "A request that does not fit the budget is rejected, never truncated.\n"
    ),
    DRAFT: ("# Draft: soft budgets\n\nA request that does not fit the budget could be truncated to fit.\n"),
    "ledger/__init__.py": '"""The ledger package."""\n',
    LEDGER: (
        '"""Charging requests against a budget."""\n'
        "\n"
        "\n"
        "def allocate_budget(total):\n"
        '    """A fresh budget of ``total`` bytes."""\n'
        '    return {"left": total}\n'
        "\n"
        "\n"
        "def charge(budget, cost):\n"
        '    """Reject a request that does not fit; never truncate it."""\n'
        '    if cost > budget["left"]:\n'
        '        raise ValueError("over budget")\n'
        '    budget["left"] -= cost\n'
        "    return budget\n"
    ),
    TESTS: (
        "from ledger.budget import allocate_budget, charge\n"
        "\n"
        "\n"
        "def test_charge_rejects_over_budget():\n"
        "    budget = allocate_budget(10)\n"
        "    charge(budget, 4)\n"
        '    assert budget["left"] == 6\n'
    ),
}

OWNER_FILES: dict[str, str] = {
    OWNER_RECORD: (
        "---\n"
        f"contradicts: [{OWNER_DRAFT}]\n"
        "---\n"
        "# Release approval\n"
        "\n"
        "The owner approves hard budgets for the ledger release.\n"
    ),
    OWNER_DRAFT: "# Draft approval\n\nThe owner may approve soft budgets instead.\n",
}


def write_files(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def write_repository(root: Path) -> Path:
    """The fixture repository under ``root`` (created)."""
    return write_files(root, REPOSITORY_FILES)


def write_owner(root: Path) -> Path:
    """The fixture owner root under ``root`` (created)."""
    return write_files(root, OWNER_FILES)
