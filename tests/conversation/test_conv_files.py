"""A turn's attachments and active files are read like the corpus: what the index never holds is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

import prooftext
from prooftext import TurnRequest
from prooftext.conversation.files import ACTIVE_FILE, ATTACHMENT, TurnFile, read_turn_file
from prooftext.errors import ProoftextError, RequestError, SourceUnreadableError


@pytest.mark.parametrize(
    "path", [".git/config", ".git/HEAD", ".GIT/config", "sub/.git/config", ".prooftext/ignore"]
)
@pytest.mark.parametrize("role", [ATTACHMENT, ACTIVE_FILE])
def test_a_file_inside_git_or_the_project_store_is_refused_as_internal(
    tmp_path: Path, path: str, role: str
) -> None:
    target = tmp_path / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("[remote]\n\turl = https://example.org/repo\n")
    with pytest.raises(SourceUnreadableError) as raised:
        read_turn_file(tmp_path, TurnFile(role, path), thread="main")
    assert raised.value.details["reason"] == "internal" and path in str(raised.value)
    assert "example.org" not in str(raised.value)


def test_a_file_whose_name_only_starts_like_git_is_attached(tmp_path: Path) -> None:
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "notes.md").write_text("Release notes.\n")
    item = read_turn_file(tmp_path, TurnFile(ATTACHMENT, ".github/notes.md"), thread="main")
    assert "Release notes." in item.text


def _classified(root: Path, **files: list[str]) -> dict[str, object]:
    plan = prooftext.turn_plan(root, TurnRequest("main", "hi", **files))["plan"]
    assert isinstance(plan, dict)
    return next(s for s in plan["steps"] if s["name"] == "classify")["detail"]


def test_an_attached_file_counts_once_as_the_attachment_not_also_as_an_active_file(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("Basil wants sun.\n")
    (tmp_path / "open.md").write_text("Mint wants shade.\n")
    attached = _classified(tmp_path, attachments=["notes.md"])
    assert attached["never_surface"] == ["attachment"]
    assert _classified(tmp_path, active_files=["open.md"])["never_surface"] == ["active_files"]
    both = _classified(tmp_path, attachments=["notes.md"], active_files=["open.md"])
    assert both["never_surface"] == ["attachment", "active_files"]


@pytest.mark.parametrize(
    ("files", "field", "index", "code"),
    [
        ({"active_files": ["/etc/passwd"]}, "active_files", 0, "path_outside_root"),
        ({"attachments": ["notes.md", "sub/../../x"]}, "attachments", 1, "path_outside_root"),
        (
            {"attachments": ["notes.md"], "active_files": ["notes.md", "gone.md"]},
            "active_files",
            1,
            "source_missing",
        ),
    ],
)
def test_an_unreadable_turn_file_names_its_request_field_and_index(
    tmp_path: Path, files: dict[str, list[str]], field: str, index: int, code: str
) -> None:
    (tmp_path / "notes.md").write_text("Basil wants sun.\n")
    with pytest.raises(ProoftextError) as raised:
        prooftext.turn_plan(tmp_path, TurnRequest("main", "hi", mode="minimal", **files))
    assert raised.value.code == code
    assert raised.value.details["field"] == field and raised.value.details["index"] == index


def test_a_turn_file_that_is_not_a_string_names_its_index(tmp_path: Path) -> None:
    with pytest.raises(RequestError) as raised:
        prooftext.turn_plan(tmp_path, TurnRequest("main", "hi", active_files=["ok.md", 5]))  # type: ignore[list-item]
    assert raised.value.field == "active_files" and raised.value.details["index"] == 1


@pytest.mark.parametrize(("active", "field"), [(False, "attachments"), (True, "active_files")])
def test_a_chat_file_check_names_the_field_of_the_files_role(
    tmp_path: Path, active: bool, field: str
) -> None:
    with (
        prooftext.Conversation(tmp_path, create=False) as conversation,
        pytest.raises(ProoftextError) as raised,
    ):
        conversation.check_file("/etc/passwd", active=active)
    assert raised.value.code == "path_outside_root" and raised.value.details["field"] == field


@pytest.mark.parametrize("path", ["/etc/passwd", "nope.md", 5])
@pytest.mark.parametrize("active", [False, True])
def test_a_chat_file_check_of_one_path_names_no_index(tmp_path: Path, path: object, active: bool) -> None:
    with (
        prooftext.Conversation(tmp_path, create=False) as conversation,
        pytest.raises(ProoftextError) as raised,
    ):
        conversation.check_file(path, active=active)  # type: ignore[arg-type]
    assert "index" not in raised.value.details and "field" in raised.value.details
