"""The one exception tree: unique stable codes, JSON-RPC codes in range, documented, bounded output."""

from __future__ import annotations

import re

import pytest

from prooftext import errors
from prooftext.errors import MAX_MESSAGE_CHARS, ProoftextError, RequestError

CLASSES = errors.all_error_classes()
TREE_LINE = re.compile(
    r"^(?P<indent>[ │├└─]*?)(?P<name>[A-Z]\w*Error)\s+(?P<code>[a-z_]+)(?:\s+(?P<rpc>-\d+))?"
)


def documented_tree() -> dict[str, tuple[str, int | None, str | None]]:
    """Class name → (code, rpc code or None, documented parent) from the ``errors`` module docstring."""
    assert errors.__doc__ is not None
    out: dict[str, tuple[str, int | None, str | None]] = {}
    stack: list[str] = []  # the documented ancestors of the current line
    for line in errors.__doc__.splitlines():
        match = TREE_LINE.match(line.removeprefix("    "))
        if match:
            depth = len(match.group("indent")) // 4
            del stack[depth:]
            rpc = match.group("rpc")
            out[match.group("name")] = (
                match.group("code"),
                int(rpc) if rpc else None,
                stack[-1] if stack else None,
            )
            stack.append(match.group("name"))
    return out


def make(cls: type[ProoftextError], message: str = "boom") -> ProoftextError:
    if issubclass(cls, RequestError):
        return cls(message, field="query")
    return cls(message)


def test_the_tree_is_rooted_at_prooftext_error_and_has_every_class_once() -> None:
    assert CLASSES[0] is ProoftextError
    assert len(CLASSES) == len(set(CLASSES))
    assert all(issubclass(cls, Exception) for cls in CLASSES)
    module_classes = {
        obj
        for obj in vars(errors).values()
        if isinstance(obj, type) and issubclass(obj, ProoftextError) and obj.__module__ == errors.__name__
    }
    assert module_classes == set(CLASSES)


def test_every_code_is_unique() -> None:
    codes = [cls.code for cls in CLASSES]
    assert len(codes) == len(set(codes)), sorted(c for c in codes if codes.count(c) > 1)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_code_is_a_snake_case_string_defined_on_the_class_itself(cls: type[ProoftextError]) -> None:
    assert "code" in vars(cls), "a subclass must not inherit its parent's code"
    assert isinstance(cls.code, str)
    assert re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)*", cls.code)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_rpc_codes_are_server_errors_or_invalid_params_for_request_errors(cls: type[ProoftextError]) -> None:
    assert isinstance(cls.rpc_code, int)
    if issubclass(cls, RequestError):
        assert cls.rpc_code == -32602
    else:
        assert -32099 <= cls.rpc_code <= -32000


def test_each_top_level_family_has_its_own_rpc_code_shared_by_its_members() -> None:
    families = ProoftextError.__subclasses__()
    rpc = [family.rpc_code for family in families]
    assert len(rpc) == len(set(rpc))
    assert ProoftextError.rpc_code not in rpc
    for family in families:
        for cls in CLASSES:
            if issubclass(cls, family):
                assert cls.rpc_code == family.rpc_code, cls.__name__


def test_the_docstring_tree_documents_every_class_with_its_code_and_nothing_else() -> None:
    tree = documented_tree()
    assert set(tree) == {cls.__name__ for cls in CLASSES}
    for cls in CLASSES:
        code, rpc, _ = tree[cls.__name__]
        assert code == cls.code, cls.__name__
        if rpc is not None:
            assert rpc == cls.rpc_code, cls.__name__


def test_the_docstring_tree_gives_the_rpc_code_of_every_top_level_family() -> None:
    tree = documented_tree()
    for family in [ProoftextError, *ProoftextError.__subclasses__()]:
        assert tree[family.__name__][1] == family.rpc_code, family.__name__


def test_the_docstring_tree_indentation_matches_the_class_hierarchy() -> None:
    tree = documented_tree()
    by_name = {cls.__name__: cls for cls in CLASSES}
    for name, (_, _, parent) in tree.items():
        cls = by_name[name]
        expected = None if cls is ProoftextError else cls.__bases__[0].__name__
        assert parent == expected, name


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_error_serializes_to_its_code_and_message(cls: type[ProoftextError]) -> None:
    error = make(cls)
    assert str(error) == "boom"
    out = error.to_dict()
    assert out["code"] == cls.code
    assert out["message"] == "boom"


def test_to_dict_omits_details_when_there_are_none() -> None:
    assert ProoftextError("x").to_dict() == {"code": "error", "message": "x"}


def test_request_errors_name_the_offending_field() -> None:
    error = errors.EmptyQueryError("empty query", field="query")
    assert error.field == "query"
    assert error.to_dict() == {"code": "query_empty", "message": "empty query", "details": {"field": "query"}}
    with pytest.raises(TypeError):
        errors.RangeError("no field")  # type: ignore[call-arg]


def test_messages_are_bounded_to_max_message_chars() -> None:
    error = ProoftextError("x" * (MAX_MESSAGE_CHARS * 5))
    message = error.to_dict()["message"]
    assert len(message) == MAX_MESSAGE_CHARS
    assert message.endswith("…")
    assert str(error) == message


def test_a_message_of_exactly_the_limit_is_kept_whole() -> None:
    text = "y" * MAX_MESSAGE_CHARS
    assert ProoftextError(text).to_dict()["message"] == text
    assert ProoftextError(text + "z").to_dict()["message"] == "y" * (MAX_MESSAGE_CHARS - 1) + "…"


def test_string_details_are_bounded_and_other_details_kept() -> None:
    error = errors.SourceDriftError("changed", path="p" * 10_000, sizes=[1, 2], count=3)
    details = error.to_dict()["details"]
    assert len(details["path"]) == MAX_MESSAGE_CHARS
    assert details["sizes"] == [1, 2]
    assert details["count"] == 3
