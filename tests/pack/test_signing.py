"""Signed packets: a packet or adaptive result signed with a key verifies as signed by that key; any edit
made after signing, even one rendered again so consistently that the files alone cannot tell, is forged;
another key's signature, or none, is reported as such; and an unknown top-level member is refused."""

from __future__ import annotations

import copy
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

import prooftext
from helpers import FORGERIES, rerendered
from prooftext.errors import ArtifactError, OutputExistsError, SigningKeyError
from prooftext.pack.verify import BIT_FORGED, BIT_UNSIGNED, KIND_KEY_MISMATCH, KIND_SIGNATURE, KIND_UNSIGNED

QUERY = "separability_matrix of a compound model"


@pytest.fixture
def key(tmp_path: Path) -> prooftext.SigningKey:
    return prooftext.SigningKey.generate(tmp_path / "keys" / "signing.key")


def _packet(root: Path, **query: Any) -> dict[str, Any]:
    with prooftext.open(root) as index:
        packet = index.pack(prooftext.Query(QUERY, max_nodes=8, **query)).to_dict()
    out: dict[str, Any] = json.loads(json.dumps(packet))
    return out


def test_a_packet_signed_with_a_key_verifies_as_signed_by_that_key(
    sample_repo: Path, key: prooftext.SigningKey
) -> None:
    report = prooftext.verify(prooftext.sign(_packet(sample_repo), key), sample_repo, key=key)
    assert report.ok
    assert report.to_dict()["signature"] == "valid"


@pytest.mark.parametrize("edit", list(FORGERIES), ids=list(FORGERIES))
def test_a_signed_packet_edited_and_rendered_again_consistently_is_forged(
    sample_repo: Path, key: prooftext.SigningKey, edit: str
) -> None:
    signed = prooftext.sign(_packet(sample_repo), key)
    forged = copy.deepcopy(signed)
    FORGERIES[edit](forged)
    forged = rerendered(forged, sample_repo)
    without_key = prooftext.verify(forged, sample_repo)
    assert without_key.ok and without_key.signature == "not_checked"  # the files alone cannot tell
    report = prooftext.verify(forged, sample_repo, key=key)
    assert report.status == BIT_FORGED
    assert [p["kind"] for p in report.problems] == [KIND_SIGNATURE]
    assert report.signature == "forged"


def test_an_unsigned_packet_verified_with_a_key_has_the_unsigned_bit(
    sample_repo: Path, key: prooftext.SigningKey
) -> None:
    report = prooftext.verify(_packet(sample_repo), sample_repo, key=key)
    assert report.status == BIT_UNSIGNED
    assert [p["kind"] for p in report.problems] == [KIND_UNSIGNED]


def test_a_packet_signed_by_another_key_is_forged_as_a_key_mismatch(
    sample_repo: Path, key: prooftext.SigningKey, tmp_path: Path
) -> None:
    other = prooftext.SigningKey.generate(tmp_path / "other.key")
    report = prooftext.verify(prooftext.sign(_packet(sample_repo), other), sample_repo, key=key)
    assert report.status == BIT_FORGED
    assert [p["kind"] for p in report.problems] == [KIND_KEY_MISMATCH]
    assert report.signature == "other_key"


def test_a_signed_packet_verified_without_a_key_says_its_signature_was_not_checked(
    sample_repo: Path, key: prooftext.SigningKey
) -> None:
    report = prooftext.verify(prooftext.sign(_packet(sample_repo), key), sample_repo)
    assert report.ok and report.to_dict()["signature"] == "not_checked"


def test_an_unsigned_packet_verified_without_a_key_reports_as_before(sample_repo: Path) -> None:
    assert "signature" not in prooftext.verify(_packet(sample_repo), sample_repo).to_dict()


@pytest.mark.parametrize("signed", [False, True], ids=["unsigned", "signed"])
def test_a_packet_with_an_unknown_top_level_member_is_refused(
    sample_repo: Path, key: prooftext.SigningKey, signed: bool
) -> None:
    packet = {**_packet(sample_repo), "approved_by": "auditor"}
    with pytest.raises(ArtifactError) as caught:
        prooftext.verify(prooftext.sign(packet, key) if signed else packet, sample_repo, key=key)
    assert caught.value.code == "artifact_invalid"


def _adaptive(root: Path) -> dict[str, Any]:
    with prooftext.open(root) as index:
        result = index.adaptive_pack(prooftext.Query(QUERY)).to_dict()
    out: dict[str, Any] = json.loads(json.dumps(result))
    return out


def test_an_adaptive_result_signed_with_a_key_verifies_and_an_edit_to_its_record_is_forged(
    sample_repo: Path, key: prooftext.SigningKey
) -> None:
    signed = prooftext.sign(_adaptive(sample_repo), key)
    assert prooftext.verify(signed, sample_repo, key=key).signature == "valid"
    signed["stop_reason"] = (  # another stop reason the schema names, so only the signature can tell
        "candidate_exhausted" if signed["stop_reason"] != "candidate_exhausted" else "hard_limit_reached"
    )
    assert prooftext.verify(signed, sample_repo, key=key).status == BIT_FORGED


def test_an_adaptive_result_with_an_unknown_top_level_member_is_refused(sample_repo: Path) -> None:
    with pytest.raises(ArtifactError) as caught:
        prooftext.verify({**_adaptive(sample_repo), "approved_by": "auditor"}, sample_repo)
    assert caught.value.code == "artifact_invalid"


def test_a_new_key_file_is_32_bytes_readable_by_its_owner_only(tmp_path: Path) -> None:
    key = prooftext.SigningKey.generate(tmp_path / "k")
    info = (tmp_path / "k").stat()
    assert stat.S_IMODE(info.st_mode) == 0o600 and info.st_size == 32
    assert prooftext.SigningKey.load(tmp_path / "k").key_id == key.key_id
    assert "secret" not in repr(key)


def test_an_existing_key_file_is_never_replaced(tmp_path: Path) -> None:
    prooftext.SigningKey.generate(tmp_path / "k")
    before = (tmp_path / "k").read_bytes()
    with pytest.raises(OutputExistsError):
        prooftext.SigningKey.generate(tmp_path / "k")
    assert (tmp_path / "k").read_bytes() == before


def test_a_key_is_never_created_or_read_inside_the_root(sample_repo: Path, tmp_path: Path) -> None:
    with pytest.raises(SigningKeyError):
        prooftext.SigningKey.generate(sample_repo / ".keys" / "k", root=sample_repo)
    assert not (sample_repo / ".keys").exists()
    prooftext.SigningKey.generate(tmp_path / "k")
    os.link(tmp_path / "k", sample_repo / "k")
    with pytest.raises(SigningKeyError):
        prooftext.SigningKey.load(sample_repo / "k", root=sample_repo)


def test_a_new_key_is_never_written_into_a_repository_even_without_a_root(tmp_path: Path) -> None:
    """``cd repo && prooftext key init --key ./k.key``: a commit would publish the key."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    with pytest.raises(SigningKeyError) as caught:
        prooftext.SigningKey.generate(repo / "sub" / "k.key")
    assert caught.value.code == "signing_key_invalid" and "outside any repository" in str(caught.value)
    assert not (repo / "sub").exists()
    (repo / "worktree").mkdir()
    (repo / "worktree" / ".git").write_text("gitdir: elsewhere\n")  # a linked work tree's .git is a file
    with pytest.raises(SigningKeyError):
        prooftext.SigningKey.generate(repo / "worktree" / "k.key")
    assert prooftext.SigningKey.generate(tmp_path / "keys" / "k.key").path == tmp_path / "keys" / "k.key"


def test_a_key_file_open_to_others_is_refused(tmp_path: Path) -> None:
    prooftext.SigningKey.generate(tmp_path / "k")
    (tmp_path / "k").chmod(0o644)
    with pytest.raises(SigningKeyError) as caught:
        prooftext.SigningKey.load(tmp_path / "k")
    assert caught.value.code == "signing_key_invalid"


def test_a_key_named_through_a_symbolic_link_is_refused_saying_so_and_naming_the_file(tmp_path: Path) -> None:
    prooftext.SigningKey.generate(tmp_path / "keys" / "k")
    (tmp_path / "link").symlink_to(tmp_path / "keys" / "k")
    with pytest.raises(SigningKeyError, match="is a symbolic link") as caught:
        prooftext.SigningKey.load(tmp_path / "link")
    assert str(tmp_path / "keys" / "k") in caught.value.message
    assert prooftext.SigningKey.load(tmp_path / "keys" / "k").path == tmp_path / "keys" / "k"


def test_the_default_key_lives_in_the_user_config_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PROOFTEXT_KEY", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert prooftext.SigningKey.default_path() == tmp_path / "config" / "prooftext" / "signing.key"
    monkeypatch.setenv("PROOFTEXT_KEY", str(tmp_path / "elsewhere.key"))
    assert prooftext.SigningKey.default_path() == tmp_path / "elsewhere.key"


def test_a_key_that_is_not_bytes_is_a_signing_key_error() -> None:
    with pytest.raises(SigningKeyError):
        prooftext.SigningKey(None)  # type: ignore[arg-type]


def test_verify_takes_the_objects_sign_takes_as_well_as_their_saved_json(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        packet = index.pack("separability matrix")
        result = index.adaptive_pack("separability matrix")
        built = prooftext.repository_map(index)
    for value in (packet, result, built):
        assert prooftext.verify(value, sample_repo).ok
        assert prooftext.verify(value.to_dict(), sample_repo).ok


def _map(root: Path) -> dict[str, Any]:
    with prooftext.open(root) as index:
        out: dict[str, Any] = json.loads(json.dumps(prooftext.repository_map(index).to_dict()))
    return out


MALFORMED_SIGNATURES: dict[str, object] = {
    "another alg only": {"alg": "x"},
    "empty": {},
    "a string": "signed",
    "a null key id": {"alg": "blake3-keyed", "key_id": None, "mac": "0" * 64},
    "an extra member": {"alg": "blake3-keyed", "key_id": "0" * 16, "mac": "0" * 64, "by": "auditor"},
}


@pytest.mark.parametrize("with_key", [False, True], ids=["without key", "with key"])
@pytest.mark.parametrize("signature", list(MALFORMED_SIGNATURES), ids=list(MALFORMED_SIGNATURES))
@pytest.mark.parametrize("make", [_packet, _adaptive, _map], ids=["packet", "adaptive result", "map"])
def test_a_malformed_signature_member_is_refused_as_artifact_invalid_naming_it(
    sample_repo: Path, key: prooftext.SigningKey, make: Any, signature: str, with_key: bool
) -> None:
    value = {**make(sample_repo), "signature": MALFORMED_SIGNATURES[signature]}
    with pytest.raises(ArtifactError) as caught:
        prooftext.verify(value, sample_repo, key=key if with_key else None)
    assert caught.value.code == "artifact_invalid" and "signature" in caught.value.message


def test_an_adaptive_result_that_breaks_its_schema_names_the_field_at_fault(sample_repo: Path) -> None:
    """As a packet's or a map's refusal does: the member's place, under the ``packet`` parameter."""
    with pytest.raises(ArtifactError) as caught:
        prooftext.verify({**_adaptive(sample_repo), "stop_reason": "bogus"}, sample_repo)
    assert caught.value.details["field"] == "packet.stop_reason"


def test_a_signature_can_be_checked_from_the_documented_canonical_json(
    sample_repo: Path, key: prooftext.SigningKey
) -> None:
    """Another tool holding the key checks a MAC as the README says: keyed BLAKE3 of ``json.dumps`` with
    sorted keys and no whitespace; the key id is BLAKE3 in key-derivation mode over the key."""
    import blake3

    signed = prooftext.sign(_packet(sample_repo), key)
    signature = signed.pop("signature")
    body = json.dumps(signed, sort_keys=True, separators=(",", ":")).encode()
    assert blake3.blake3(body, key=key.secret).hexdigest() == signature["mac"]
    derived = blake3.blake3(key.secret, derive_key_context="prooftext packet signing key id v1")
    assert derived.hexdigest()[:16] == signature["key_id"]
