"""Catalogue C: integrity, provenance and staleness (``verify``, ``fsck`` and the artifact lifecycle)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import prooftext
from prooftext import canonical
from prooftext.errors import ArtifactError, OutputExistsError, ProoftextError

from .conftest import Cli, packet_json, write_tree

lifecycle = pytest.importorskip("prooftext.artifacts.lifecycle")
fsck_module = pytest.importorskip("prooftext.artifacts.fsck")
query_module = pytest.importorskip("prooftext.artifacts.query")
loader = pytest.importorskip("prooftext.artifacts.loader")

from helpers import FORGERIES, SAMPLE_FILES, rerendered  # noqa: E402
from prooftext.pack.verify import BIT_DIGEST, BIT_SOURCE, verify_packet  # noqa: E402

SPEC = {"SPEC.md": "# Spec\n\nThe separability matrix is specified here.\n"}


def build_artifacts(root: Path) -> Path:
    """manifest → graph → query → selection → snapshot under ``ROOT/.prooftext/context/``."""
    out = root / ".prooftext" / "context"
    lifecycle.run_manifest(root, out / "manifest.json", "SPEC.md", [])
    lifecycle.run_index(out / "manifest.json", root, None, out / "graph.json")
    lifecycle.run_query(
        out / "graph.json", query_module.byte_query("separability matrix"), out / "query.json"
    )
    lifecycle.run_select(out / "graph.json", out / "query.json", out / "selection.json")
    lifecycle.run_snapshot(out / "graph.json", out / "selection.json", root, None, out / "snapshot.json")
    return out


@pytest.fixture
def artifacts(tmp_path: Path) -> tuple[Path, Path]:
    root = write_tree(tmp_path / "repo", {**SAMPLE_FILES, **SPEC})
    return root, build_artifacts(root)


def fsck(root: Path) -> dict[str, Any]:
    report: dict[str, Any] = fsck_module.fsck(root).to_dict()
    return report


def test_C00_a_fresh_lifecycle_passes_fsck(artifacts: tuple[Path, Path], cli: Cli) -> None:
    root, _ = artifacts
    report = fsck(root)
    assert report["ok"] and report["artifacts_checked"] == 5 and report["store"] in {"ok", "absent"}


def test_C01_a_source_changed_after_indexing_is_excluded_as_stale_and_the_stop_reason_stays_honest(
    indexed: Path,
) -> None:
    target = indexed / "modeling" / "separable.py"
    target.write_text(target.read_text().replace("correlation", "CHANGED correlation"))
    with prooftext.open(indexed) as index:
        result = index.adaptive_pack("separability matrix compound model", refresh=False)
    packet = result.to_dict()["packet"]
    assert "CHANGED" not in result.prompt
    assert any(
        e["path"] == "modeling/separable.py" and e["reason"] == "source_drift" for e in packet["excluded"]
    )
    assert result.stop_reason in {"estimated_sufficient", "candidate_exhausted", "hard_limit_reached"}
    assert all(e.path != "modeling/separable.py" for e in result.packet.evidence)


def test_C02_a_deleted_source_fails_verification_and_retrieval(indexed: Path, cli: Cli) -> None:
    saved = packet_json(indexed)
    os.unlink(indexed / "modeling" / "separable.py")
    report = verify_packet(saved, indexed)
    assert report.status & BIT_SOURCE and {p["kind"] for p in report.problems} == {"source_missing"}
    status, out, _ = cli(
        "pack", "separability", "--root", indexed, "--require", "modeling/separable.py", "--json"
    )
    assert status != 0 and json.loads(out)["error"]["code"] == "source_missing"


def _flip(path: Path, marker: bytes) -> None:
    data = bytearray(path.read_bytes())
    data[data.index(marker)] ^= 0x01
    path.write_bytes(bytes(data))


def test_C03_one_flipped_bit_in_a_stored_artifact_is_an_id_mismatch(
    artifacts: tuple[Path, Path], cli: Cli
) -> None:
    root, out = artifacts
    _flip(out / "graph.json", b"separab")
    report = fsck(root)
    assert report["status"] & BIT_DIGEST
    assert [(p["path"], p["code"]) for p in report["problems"]] == [
        (".prooftext/context/graph.json", "artifact_id_mismatch")
    ]


def test_C04_an_artifact_reserialised_with_the_same_meaning_is_not_canonical(
    artifacts: tuple[Path, Path],
) -> None:
    root, out = artifacts
    value = json.loads((out / "graph.json").read_text())
    (out / "graph.json").write_text(json.dumps(value, indent=1, sort_keys=False))
    report = fsck(root)
    assert report["status"] & BIT_DIGEST and report["problems"][0]["path"] == ".prooftext/context/graph.json"


def test_C05_an_artifact_referring_to_a_missing_parent_fails_fsck(artifacts: tuple[Path, Path]) -> None:
    root, out = artifacts
    (out / "manifest.json").unlink()
    assert fsck(root)["status"] & BIT_DIGEST


def test_C06_a_truncated_artifact_fails_fsck(artifacts: tuple[Path, Path]) -> None:
    root, out = artifacts
    path = out / "graph.json"
    path.write_bytes(path.read_bytes()[:500])
    assert fsck(root)["status"] & BIT_DIGEST


def test_C07_a_second_byte_string_under_one_output_is_refused_and_never_overwrites(
    artifacts: tuple[Path, Path],
) -> None:
    _root, out = artifacts
    before = (out / "query.json").read_bytes()
    with pytest.raises(OutputExistsError):
        lifecycle.run_query(out / "graph.json", query_module.byte_query("compound model"), out / "query.json")
    assert (out / "query.json").read_bytes() == before
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize(
    "digest",
    [
        pytest.param(lambda d: d.upper(), id="uppercase"),
        pytest.param(lambda d: d[:63], id="short"),
        pytest.param(lambda d: "sha256:" + d, id="prefixed"),
    ],
)
def test_C08_malformed_digests_are_errors(artifacts: tuple[Path, Path], digest: Any) -> None:
    _, out = artifacts
    value = canonical.load((out / "manifest.json").read_bytes())
    value["sources"][0]["locator"]["sha256"] = digest(value["sources"][0]["locator"]["sha256"])
    with pytest.raises(ArtifactError):
        loader.parse_artifact(canonical.encode(canonical.with_artifact_id(value)))
    saved = packet_json(_with_index(out.parent.parent))
    saved["evidence"][0]["sha256"] = digest(saved["evidence"][0]["sha256"])
    assert not verify_packet(saved, out.parent.parent).ok


def _with_index(root: Path) -> Path:
    with prooftext.open(root) as index:
        index.refresh()
    return root


def test_C09_a_right_hash_with_a_wrong_size_is_refused(artifacts: tuple[Path, Path]) -> None:
    root, out = artifacts
    value = canonical.load((out / "manifest.json").read_bytes())
    value["sources"][0]["bytes"] += 1
    (out.parent / "wrong-size.json").write_bytes(canonical.encode(canonical.with_artifact_id(value)))
    with pytest.raises(ProoftextError) as caught:
        lifecycle.run_index(out.parent / "wrong-size.json", root, None, out.parent / "never.json")
    assert caught.value.code == "source_drift" and "bytes" in caught.value.message
    assert not (out.parent / "never.json").exists()


def test_C10_a_packet_whose_blake3_does_not_match_its_prompt_fails_verification(indexed: Path) -> None:
    saved = packet_json(indexed)
    saved["blake3"] = "0" * 64
    assert verify_packet(saved, indexed).status & BIT_DIGEST


def test_C10_a_packet_whose_token_count_does_not_match_a_recount_fails_verification(indexed: Path) -> None:
    saved = packet_json(indexed)
    saved["prompt_tokens"]["count"] += 7
    assert verify_packet(saved, indexed).status & BIT_DIGEST


def test_C11_an_edit_that_keeps_size_and_mtime_is_caught_by_the_hash(indexed: Path) -> None:
    target = indexed / "util" / "strings.py"
    st = os.stat(target)
    text = target.read_text()
    target.write_text(text.replace("Lowercase", "LOWERCASE"))  # same size
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(target).st_size == st.st_size
    with prooftext.open(indexed) as index:
        # Without a refresh the store still holds the old text: the hash refuses to quote it.
        stale = index.pack("slugify lowercase words joined by dashes", refresh=False)
        # A refresh notices the change (the inode's ctime moved) and reads the file again.
        fresh = index.pack("slugify lowercase words joined by dashes")
    assert "LOWERCASE" not in stale.prompt and "Lowercase words" not in stale.prompt
    assert any(e["path"] == "util/strings.py" and e["reason"] == "source_drift" for e in stale.excluded)
    assert "LOWERCASE words" in fresh.prompt and "Lowercase words" not in fresh.prompt


def test_C11_fsck_rehashes_indexed_sources(indexed: Path) -> None:
    target = indexed / "util" / "strings.py"
    st = os.stat(target)
    target.write_text(target.read_text().replace("Lowercase", "LOWERCASE"))
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    report = fsck(indexed)
    assert report["status"] & BIT_SOURCE
    assert [(p["kind"], p["path"]) for p in report["problems"]] == [("source_drift", "util/strings.py")]


def test_C00_fsck_from_the_cli_has_the_bitmask_exit_status(artifacts: tuple[Path, Path], cli: Cli) -> None:
    root, out = artifacts
    pytest.importorskip("prooftext.cli.context")  # registers `context` and `fsck` on the app
    status, stdout, _stderr = cli("fsck", root, "--json")
    assert status == 0 and json.loads(stdout)["ok"]
    _flip(out / "graph.json", b"separab")
    status, stdout, _ = cli("fsck", root, "--json")
    assert status == BIT_DIGEST and not json.loads(stdout)["ok"]


def _single_field_edits(packet: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """One copy of ``packet`` per field changed alone (not rendered again), as a careless editor would."""
    edits: list[tuple[str, dict[str, Any]]] = []

    def edited(name: str, change: Any) -> None:
        copy = json.loads(json.dumps(packet))
        change(copy)
        edits.append((name, copy))

    edited("prompt", lambda p: p.update(prompt=p["prompt"].replace("separab", "Separab", 1)))
    edited("blake3", lambda p: p.update(blake3="f" * 64))
    edited("nonce", lambda p: p.update(nonce="1" * len(p["nonce"])))
    edited("prompt_tokens", lambda p: p["prompt_tokens"].update(count=p["prompt_tokens"]["count"] - 1))
    for field in ("path", "sha256", "authority", "sensitivity"):
        other = {
            "path": "README.md",
            "sha256": "0" * 64,
            "authority": "owner-approved",
            "sensitivity": "public",
        }
        edited(f"evidence.{field}", lambda p, f=field, v=other[field]: p["evidence"][0].update({f: v}))
    edited("evidence.lines", lambda p: p["evidence"][0].update(lines=[1, p["evidence"][0]["lines"][1] + 1]))
    edited("query.text", lambda p: p["query"].update(text="something else"))
    edited("query.max_tokens", lambda p: p["query"].update(max_tokens=10))
    return edits


def test_C10_with_a_key_every_packet_edit_is_caught_re_rendered_forgeries_included(
    indexed: Path, tmp_path: Path, figure: Any
) -> None:
    key = prooftext.SigningKey.generate(tmp_path / "keys" / "audit.key")
    signed = prooftext.sign(packet_json(indexed), key)
    edits = _single_field_edits(signed)
    for name, forge in FORGERIES.items():
        copy = json.loads(json.dumps(signed))
        forge(copy)
        edits.append((f"re-rendered: {name}", rerendered(copy, indexed)))
    missed = [name for name, packet in edits if prooftext.verify(packet, indexed, key=key).ok]
    figure("packet_edits_tried", len(edits))
    figure("packet_edits_caught", len(edits) - len(missed))
    assert missed == [] and prooftext.verify(signed, indexed, key=key).ok
