from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from prooftext.corpus.config import (
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_MAX_TOTAL_BYTES,
    MAX_FILE_BYTES_LIMIT,
    UTF8_BOM,
    CorpusConfig,
    LabelRule,
    load_config,
)
from prooftext.errors import AuthorityError, ConfigError, RootMissingError

FULL = """
[scan]
max_file_bytes = 2048
max_total_bytes = 4096
exclude = ["*.min.js", "build/"]
specification = "SPEC.md"

[[labels]]
glob = "docs/adr/**"
authority = "accepted-public-contract"
sensitivity = "public"

[[labels]]
glob = "tests/**"
authority = "verified-evidence"
kind = "code"

[other_tool]
anything = 1
"""


def test_a_missing_config_file_gives_the_defaults(tmp_path: Path) -> None:
    config = load_config(tmp_path)
    assert config == CorpusConfig()
    assert (config.max_file_bytes, config.max_total_bytes) == (
        DEFAULT_MAX_FILE_BYTES,
        DEFAULT_MAX_TOTAL_BYTES,
    )
    assert DEFAULT_MAX_FILE_BYTES == 1_048_576


def test_the_documented_format_loads_and_other_tables_are_left_alone(tmp_path: Path) -> None:
    (tmp_path / "prooftext.toml").write_text(FULL)
    config = load_config(tmp_path)
    assert config.max_file_bytes == 2048
    assert config.max_total_bytes == 4096
    assert config.exclude == ("*.min.js", "build/")
    assert config.specification == "SPEC.md"
    assert config.label_rules == (
        LabelRule(glob="docs/adr/**", authority="accepted-public-contract", sensitivity="public"),
        LabelRule(glob="tests/**", authority="verified-evidence", kind="code"),
    )


def test_a_corrupt_toml_file_is_a_config_error_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "prooftext.toml").write_text("[scan\nmax_file_bytes = ")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    assert info.value.details["file"] == "prooftext.toml"
    assert "not valid TOML" in info.value.message


def test_a_non_utf8_config_file_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "prooftext.toml").write_bytes(b"[scan]\n# \xff\n")
    with pytest.raises(ConfigError, match="UTF-8"):
        load_config(tmp_path)


def test_a_config_file_a_windows_editor_saved_with_a_utf8_bom_loads_as_without_it(tmp_path: Path) -> None:
    (tmp_path / "prooftext.toml").write_bytes(UTF8_BOM + FULL.encode())
    with_bom = load_config(tmp_path)
    (tmp_path / "prooftext.toml").write_text(FULL)
    assert with_bom == load_config(tmp_path)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (UTF8_BOM + UTF8_BOM + b"[scan]\n", "not valid TOML"),
        (b"[scan]\n" + UTF8_BOM, "not valid TOML"),
        (UTF8_BOM + b"[scan]\n# \xff\n", "not UTF-8 (byte 12)"),
    ],
)
def test_only_one_leading_bom_is_forgiven_and_other_bad_bytes_stay_config_errors(
    tmp_path: Path, data: bytes, message: str
) -> None:
    (tmp_path / "prooftext.toml").write_bytes(data)
    with pytest.raises(ConfigError, match=re.escape(message)) as info:
        load_config(tmp_path)
    assert info.value.details["file"] == "prooftext.toml"


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("[scan]\nmax_file_bytes = '1'\n", "scan.max_file_bytes"),
        ("[scan]\nmax_file_bytes = 0\n", "scan.max_file_bytes"),
        ("[scan]\nmax_total_bytes = true\n", "scan.max_total_bytes"),
        ("[scan]\nmax_total_bytes = 1.5\n", "scan.max_total_bytes"),
        ("[scan]\nmax_file_bytes = 9007199254740992\n", "scan.max_file_bytes"),
        ("[scan]\nmax_total_bytes = 9223372036854775807\n", "scan.max_total_bytes"),
        ("[scan]\nexclude = 'x'\n", "scan.exclude"),
        ("[scan]\nexclude = [1]\n", "scan.exclude"),
        ("[scan]\nexclude = ['*.py', '\\']\n", "scan.exclude[1]"),
        ("[scan]\nexclude = ['*.py', '[z-a]']\n", "scan.exclude[1]"),
        ("[scan]\nexclude = ['*.py', '[[:vowel:]]*']\n", "scan.exclude[1]"),
        ("[scan]\nspecification = '../SPEC.md'\n", "scan.specification"),
        ("[scan]\nspecification = '/abs/SPEC.md'\n", "scan.specification"),
        ("[scan]\nmax_files = 3\n", "scan.max_files"),
        ("scan = 3\n", "scan"),
        ("labels = 'x'\n", "labels"),
        ("[[labels]]\nauthority = 'repository-record'\n", "labels[0].glob"),
        ("[[labels]]\nglob = 'a'\ncolour = 'red'\n", "labels[0].colour"),
        ("[[labels]]\nglob = 'a'\nsensitivity = 3\n", "labels[0].sensitivity"),
        ("[[labels]]\nglob = 'a'\nsensitivity = 'classified'\n", "labels[0].sensitivity"),
        ("secrets = 'exclude'\n", "secrets"),
        ("colour = [1, 2]\n", "colour"),
        ("[scna]\nmax_file_bytes = 10\n", "scna"),
        ("[Scan]\nmax_file_bytes = 10\n", "Scan"),
        ("[[label]]\nglob = 'docs/**'\n", "label"),
    ],
)
def test_an_ill_typed_config_is_a_config_error_naming_file_and_key(
    tmp_path: Path, text: str, key: str
) -> None:
    (tmp_path / "prooftext.toml").write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    assert info.value.details["key"] == key
    assert info.value.details["file"] == "prooftext.toml"
    assert info.value.code == "config_invalid"


def test_limits_up_to_the_largest_accepted_are_accepted(tmp_path: Path) -> None:
    (tmp_path / "prooftext.toml").write_text(
        f"[scan]\nmax_file_bytes = {MAX_FILE_BYTES_LIMIT}\nmax_total_bytes = 9007199254740991\n"
    )
    config = load_config(tmp_path)
    assert (config.max_file_bytes, config.max_total_bytes) == (MAX_FILE_BYTES_LIMIT, 2**53 - 1)


def test_a_file_limit_above_what_a_pack_rereads_is_refused_naming_the_key_and_the_limit(
    tmp_path: Path,
) -> None:
    # A larger limit would index files that every pack then drops as unreadable.
    (tmp_path / "prooftext.toml").write_text("[scan]\nmax_file_bytes = 20000000\n")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    assert info.value.code == "config_invalid"
    assert info.value.details == {"key": "scan.max_file_bytes", "file": "prooftext.toml"}
    assert f"at most {MAX_FILE_BYTES_LIMIT}" in info.value.message
    with pytest.raises(ConfigError):
        CorpusConfig(max_file_bytes=MAX_FILE_BYTES_LIMIT + 1)


@pytest.mark.parametrize(
    "rule",
    [
        "glob = 'docs/adr/**'\nauthority = 'owner-approved'",
        "glob = 'src/**'\nauthority = 'accepted-public-contract'",
        "glob = 'src/**'\nauthority = 'verified-evidence'",
        "glob = 'SPEC.md'\nauthority = 'canonical-specification'",
    ],
)
def test_a_config_rule_violating_the_authority_structure_is_rejected_with_authority_invalid(
    tmp_path: Path, rule: str
) -> None:
    (tmp_path / "prooftext.toml").write_text(f"[[labels]]\n{rule}\n")
    with pytest.raises(AuthorityError) as info:
        load_config(tmp_path)
    assert info.value.code == "authority_invalid"
    assert info.value.details == {"key": "labels[0].authority", "file": "prooftext.toml"}


def test_a_symlinked_config_file_is_refused_not_followed(tmp_path: Path) -> None:
    (tmp_path / "elsewhere.toml").write_text("[scan]\nmax_file_bytes = 5\n")
    os.symlink("elsewhere.toml", tmp_path / "prooftext.toml")
    with pytest.raises(ConfigError, match="symlink"):
        load_config(tmp_path)


def test_a_symlinked_config_file_is_refused_in_words_not_by_the_system_s_errno_text(tmp_path: Path) -> None:
    (tmp_path / "elsewhere.toml").write_text("[scan]\n")
    os.symlink("elsewhere.toml", tmp_path / "prooftext.toml")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    assert "is a symbolic link" in info.value.message
    assert "Too many levels" not in info.value.message


def test_loading_the_config_of_a_missing_root_is_a_root_error(tmp_path: Path) -> None:
    with pytest.raises(RootMissingError):
        load_config(tmp_path / "absent")


def test_a_config_built_from_lists_is_frozen_and_hashable() -> None:
    config = CorpusConfig(exclude=["*.log"], label_rules=[LabelRule(glob="docs/**", sensitivity="public")])  # type: ignore[arg-type]
    assert config.exclude == ("*.log",)
    assert hash(config) == hash(
        CorpusConfig(exclude=("*.log",), label_rules=(LabelRule("docs/**", sensitivity="public"),))
    )


def test_a_scan_setting_written_above_the_scan_table_is_refused_saying_where_it_goes(tmp_path: Path) -> None:
    (tmp_path / "prooftext.toml").write_text("secrets = 'exclude'\n[scan]\nmax_file_bytes = 10\n")
    with pytest.raises(ConfigError, match=re.escape("secrets is not a known key")) as info:
        load_config(tmp_path)
    assert "scan settings go under [scan]" in info.value.message


def test_a_table_named_almost_as_ours_is_refused_naming_the_one_meant(tmp_path: Path) -> None:
    (tmp_path / "prooftext.toml").write_text("[label]\nglob = 'docs/**'\nauthority = 'bogus'\n")
    with pytest.raises(ConfigError, match=re.escape("label is not a known table: did you mean labels?")):
        load_config(tmp_path)
