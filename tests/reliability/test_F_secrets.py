"""Catalogue F1-F6: secrets. Fakes are built at test time (``fakes.py``); no literal secret is committed.

F1 is the leak test: every planted value is searched for in every output byte stream (CLI stdout and
stderr of index, pack, adaptive-pack and verify, a real subprocess's stderr, the Python API's packet and
trace, the manifest, the store's files, log records and JSON-RPC responses), under both policies.
"""

from __future__ import annotations

import base64
import json
import logging
import random
import string
from pathlib import Path

import pytest

import prooftext
from prooftext import Ladder
from prooftext.corpus import build_manifest, secrets
from prooftext.corpus.config import CorpusConfig, load_config
from prooftext.corpus.model import REASON_SECRET
from prooftext.corpus.scan import scan
from prooftext.errors import ConfigError
from prooftext.pack.verify import verify_packet

from .conftest import Cli, Figure, MakeTree, all_output_bytes, run_cli_subprocess
from .fakes import PLANT_NAMES, fake_secrets, negatives, plant, secret_values

QUERY = "rotate deployment credentials for the billing service"


def _secret_tree(values: dict[str, str]) -> dict[str, str]:
    """One file per family, in several kinds of file, each also about the query's topic."""
    topic = "# Rotate deployment credentials for the billing service.\n"
    files: dict[str, str] = {}
    kinds = ("settings.py", "deploy.env", "notes.md", "values.yaml", "README.txt")
    for index, (rule, value) in enumerate(sorted(values.items())):
        name = f"conf/{rule}.{kinds[index % len(kinds)].split('.', 1)[1]}"
        if rule in PLANT_NAMES:
            name = f"conf/{rule}/{PLANT_NAMES[rule]}"
        files[name] = topic + plant(rule, value) + "rotation_window = 30\n"
    files["billing/service.py"] = (
        '"""The billing service: it reads deployment credentials from the vault and rotates them."""\n\n'
        "def rotate_credentials(vault):\n    return vault.rotate('billing')\n"
    )
    files["docs/deploy.md"] = "# Deployment\n\nRotate credentials for the billing service every 30 days.\n"
    return files


def _rpc_responses(root: Path, query: str) -> list[bytes]:
    try:
        from prooftext.server.context import Limits, ServerContext
        from prooftext.server.dispatcher import Dispatcher
    except ImportError:  # the server is optional for this case; G tests cover its absence
        return []
    ctx = ServerContext.open(root, Limits(), "rpc")
    try:
        dispatcher = Dispatcher(ctx)
        requests = [
            {"jsonrpc": "2.0", "id": 1, "method": "index.refresh", "params": {}},
            {"jsonrpc": "2.0", "id": 2, "method": "context.pack", "params": {"query": query}},
            {"jsonrpc": "2.0", "id": 3, "method": "context.adaptive", "params": {"query": query}},
            {"jsonrpc": "2.0", "id": 4, "method": "index.status", "params": {}},
        ]
        return [dispatcher.handle(json.dumps(r).encode()) or b"" for r in requests]
    finally:
        ctx.close()


def _mcp_responses(root: Path, query: str) -> list[str]:
    """The MCP tools' results through the SDK's in-process client (text content and structured content)."""
    try:
        import asyncio

        from mcp import Client

        from prooftext.server.context import ServerContext
        from prooftext.server.dispatcher import Dispatcher
        from prooftext.server.mcp_server import create_mcp_server
    except ImportError:
        return []
    ctx = ServerContext.open(root, interface="mcp")

    async def session() -> list[str]:
        async with Client(create_mcp_server(Dispatcher(ctx))) as client:
            calls = [
                ("adaptive_context", {"query": query}),
                ("pack_context", {"query": query, "max_tokens": 4000}),
                ("search", {"query": query, "limit": 20}),
                ("index_status", {}),
            ]
            out = []
            for name, arguments in calls:
                result = await client.call_tool(name, arguments)
                out.append(json.dumps([c.model_dump(mode="json") for c in result.content]))
                out.append(json.dumps(result.structured_content))
            return out

    try:
        return asyncio.run(session())
    finally:
        ctx.close()


def _streams(root: Path, cli: Cli, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> dict[str, str]:
    out: dict[str, str] = {}
    with caplog.at_level(logging.DEBUG):
        for name, argv in {
            "index": ("index", root, "--json"),
            "index-text": ("index", root),
            "pack-json": ("pack", QUERY, "--root", root, "--json"),
            "pack-text": ("pack", QUERY, "--root", root),
            "adaptive-json": ("adaptive-pack", QUERY, "--root", root, "--json", "--max-tokens", "4000"),
            "pack-xml": ("pack", QUERY, "--root", root, "--format", "xml"),
            "pack-jsonfmt": ("pack", QUERY, "--root", root, "--format", "json"),
        }.items():
            status, stdout, stderr = cli(*argv)
            assert status == 0, stderr
            out[name] = stdout + stderr
            if name == "pack-json":
                saved = tmp_path / "packet.json"
                saved.write_text(stdout)
        status, stdout, stderr = cli("verify", saved, "--root", root, "--json")
        assert status == 0, stdout + stderr
        out["verify"] = stdout + stderr
        with prooftext.open(root) as index:
            packet = index.pack(QUERY)
            result = index.adaptive_pack(QUERY, ladder=Ladder(max_tokens=4000))
            out["api"] = json.dumps([packet.to_dict(), result.to_dict(), index.search(QUERY)])
        for i, reply in enumerate(_rpc_responses(root, QUERY)):
            out[f"rpc-{i}"] = reply.decode("utf-8")
        for i, text in enumerate(_mcp_responses(root, QUERY)):
            out[f"mcp-{i}"] = text
        result_scan = scan(root)
        out["manifest"] = json.dumps(
            build_manifest(result_scan.sources, result_scan.excluded, result_scan.candidate)
        )
    out["logs"] = "\n".join(r.getMessage() + str(r.exc_info or "") for r in caplog.records)
    out["store"] = all_output_bytes(root).decode("utf-8", errors="replace")
    proc = run_cli_subprocess("pack", QUERY, "--root", str(root), "--json")
    out["subprocess"] = proc.stdout + proc.stderr
    return out


def _leaks(streams: dict[str, str], values: list[str]) -> dict[str, int]:
    return {
        name: sum(text.count(v) for v in values)
        for name, text in streams.items()
        if any(v in text for v in values)
    }


def test_F01_under_the_exclude_policy_fake_credentials_are_left_out_and_appear_in_no_output_stream(
    make_tree: MakeTree, cli: Cli, tmp_path: Path, caplog: pytest.LogCaptureFixture, figure: Figure
) -> None:
    values = fake_secrets()
    root = make_tree({**_secret_tree(values), "prooftext.toml": '[scan]\nsecrets = "exclude"\n'})
    streams = _streams(root, cli, tmp_path, caplog)
    leaks = _leaks(streams, secret_values(values))
    figure("secret_leaks", sum(leaks.values()))
    assert leaks == {}
    assert any(name.startswith("rpc-") for name in streams) and any(
        name.startswith("mcp-") for name in streams
    )
    excluded = {e.path: e for e in scan(root).excluded}
    secret_files = [p for p in _secret_tree(values) if p.startswith("conf/")]
    assert {p: excluded[p].reason for p in secret_files} == dict.fromkeys(secret_files, REASON_SECRET)
    for path in secret_files:
        rule = path.removeprefix("conf/").split("/")[0].split(".")[0]
        assert rule in excluded[path].detail and "at line 2" in excluded[path].detail
    assert "billing/service.py" in streams["pack-text"]  # the clean sources still answer the query


def test_F01_by_default_sources_are_indexed_with_placeholders_and_nothing_leaks(
    make_tree: MakeTree, cli: Cli, tmp_path: Path, caplog: pytest.LogCaptureFixture, figure: Figure
) -> None:
    values = fake_secrets()
    files = _secret_tree(values)
    root = make_tree(files)
    assert load_config(root).secrets == "redact"
    streams = _streams(root, cli, tmp_path, caplog)
    leaks = _leaks(streams, secret_values(values))
    figure("secret_leaks", sum(leaks.values()))
    assert leaks == {}
    result = scan(root)
    adopted = {s.path for s in result.sources}
    key_file = next(p for p in files if p.startswith("conf/private-key."))
    assert {e.path for e in result.excluded if e.reason == REASON_SECRET} == {key_file}
    assert {p for p in files if p.startswith("conf/")} - adopted == {key_file}
    assert "[REDACTED:" in streams["pack-text"] and "redacted:1" in streams["pack-text"]
    packet = json.loads(streams["pack-json"])
    assert verify_packet(packet, root).ok  # redaction is re-applied identically when re-verifying


def test_F01_a_source_that_gained_a_secret_after_indexing_is_redacted_in_the_prompt(indexed: Path) -> None:
    """Defence in depth: even a source the scan never saw with a secret renders without the value."""
    value = fake_secrets()["github-token"]
    target = indexed / "util" / "strings.py"
    with prooftext.open(indexed) as index:
        index.refresh()
    target.write_text(target.read_text() + f'SLUG_TOKEN = "{value}"\n')
    with prooftext.open(indexed) as index:
        stale = index.pack("slugify lowercase words", refresh=False)
        fresh = index.pack("slugify lowercase words")
    assert value not in stale.prompt and value not in fresh.prompt


@pytest.mark.parametrize("rule", sorted(fake_secrets()))
def test_F01_every_rule_family_is_detected_and_redacted(rule: str) -> None:
    value = fake_secrets()[rule]
    text = plant(rule, value)
    paths = [PLANT_NAMES[rule]] if rule in PLANT_NAMES else ["app/settings.py", "deploy.env", "notes.md"]
    for path in paths:
        found = secrets.find_secrets(text, path=path)
        assert found, (rule, path)
        redacted = secrets.redact_text(text, path)
        assert not any(part in redacted for part in secret_values({rule: value}))
        assert secrets.redact_text(redacted, path) == redacted  # idempotent


def test_F01_every_rule_has_a_true_positive_fixture_built_at_test_time() -> None:
    assert set(fake_secrets()) == set(secrets.RULE_IDS)


def test_F01_exclusion_details_name_rules_and_lines_never_values() -> None:
    values = fake_secrets()
    text = "".join(plant(rule, value) for rule, value in sorted(values.items()))
    detail = secrets.describe(secrets.find_secrets(text, path="x.env"))
    assert detail.startswith("credential: ") and not any(v in detail for v in secret_values(values))


def test_F02_a_credential_in_a_file_name_is_excluded_under_a_redacted_path(
    make_tree: MakeTree, cli: Cli, figure: Figure
) -> None:
    key = fake_secrets()["aws-access-key-id"]
    root = make_tree(
        {f"keys/{key}.txt": "nothing secret inside\n", f"{key}/x.py": "x = 1\n", "a.py": "y = 2\n"}
    )
    result = scan(root)
    assert [s.path for s in result.sources] == ["a.py"]
    recorded = [(e.path, e.reason) for e in result.excluded]
    assert all(
        reason == REASON_SECRET and "[REDACTED:aws-access-key-id#" in path for path, reason in recorded
    )
    assert len(recorded) == 2 and len({p for p, _ in recorded}) == 2  # two distinct records
    status, out, err = cli("index", root, "--json")
    manifest = json.dumps(build_manifest(result.sources, result.excluded, result.candidate))
    leaks = sum(s.count(key) for s in (out, err, manifest, all_output_bytes(root).decode("latin-1")))
    figure("secret_leaks", leaks)
    assert status == 0 and leaks == 0


def test_F03_a_secret_in_the_query_is_not_logged_and_not_persisted(
    indexed: Path, cli: Cli, caplog: pytest.LogCaptureFixture, figure: Figure
) -> None:
    value = fake_secrets()["stripe-secret-key"]
    query = f"separability matrix {value}"
    with caplog.at_level(logging.DEBUG):
        status, out, err = cli("pack", query, "--root", indexed, "--json")
    stored = all_output_bytes(indexed).decode("latin-1")
    logged = sum(r.getMessage().count(value) for r in caplog.records)
    leaks = (
        out.count(value) + err.count(value) + stored.count(value) + logged
    )  # the packet echoes it redacted
    figure("secret_leaks", leaks)
    assert status == 0 and leaks == 0


def test_F04_digests_uuids_and_lockfile_hashes_are_not_secrets(make_tree: MakeTree) -> None:
    neg = negatives()
    lock = {
        "name": "x",
        "lockfileVersion": 3,
        "packages": {"node_modules/a": {"integrity": neg["npm-integrity"]}},
    }
    root = make_tree(
        {
            "package-lock.json": json.dumps(lock),
            "ids.py": "".join(
                f'{k.replace("-", "_").upper()} = "{v}"\n' for k, v in neg.items() if "password" not in k
            ),
            "auth.py": "\n".join(v for k, v in neg.items() if k.startswith("password")) + "\n",
            "go.sum": f"example.com/m v1.0.0 h1:{base64.b64encode(bytes(range(32))).decode()}\n",
        }
    )
    result = scan(root)
    assert result.excluded == []
    for source in result.sources:
        assert secrets.high_entropy_count(source.text, source.path) == 0, source.path


EXAMPLE_LINES = {
    "src/app/config.py": "    SECRET_KEY = 'development key'\n",
    "release/deploy.xsh": 'password = getpass("Password: ")\n',
    "docs/views.rst": "password = request.form['password']\n",
    "docs/forms.rst": "password = PasswordField('New Password', [\n",
    "docs/tests.rst": "data={'username': username, 'password': password}\n",
    "scripts/release.py": 'url = f"https://{token}:x-oauth-basic@github.com/{SLUG}.git"\n',
    "tests/test_data.py": 'url = "ftp://anonymous:data%40observatory.org@ftp.observatory.org/pub/finals.daily"\n',
    "tests/test_mirror.py": 'url = "ftp://FTP:guest@ftp.observatory.org/pub/"\n',
}
"""Lines of real repositories (docs, docstrings, release scripts) that name a credential without holding
one: prose in quotes, a call or a lookup, a name closing a literal, a URL whose user part is a template, an
anonymous FTP login (RFC 1635: the password is an e-mail address by convention)."""


@pytest.mark.parametrize("path", sorted(EXAMPLE_LINES))
def test_F04_prose_calls_lookups_and_templated_urls_are_not_credentials(path: str) -> None:
    assert secrets.find_secrets(EXAMPLE_LINES[path], path=path) == []


@pytest.mark.parametrize(
    "shape",
    ['password = "{v}"\n', "password = {v}\n", "password: {v})\n", 'u = "https://alice:{v}@example.org/"\n'],
)
def test_F04_those_exceptions_still_catch_a_literal_value(shape: str) -> None:
    value = fake_secrets()["password-assignment"]
    text = shape.format(v=value)
    for path in ("notes.rst", "deploy.env"):
        found = secrets.find_secrets(text, path=path)
        assert found and value not in secrets.redact_text(text, path), (shape, path)


def test_F04_prooftext_never_scans_its_own_store(indexed: Path) -> None:
    assert {e.path: e.reason for e in scan(indexed).excluded} == {".prooftext": "internal"}


def test_F04_a_random_looking_string_is_only_labelled(make_tree: MakeTree) -> None:
    rng = random.Random(5)
    blob = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(40))
    root = make_tree({"blob.py": f'def blob_marker():\n    return "{blob}"\n'})
    assert [s.path for s in scan(root).sources] == ["blob.py"]
    with prooftext.open(root) as index:
        prompt = index.pack("blob_marker").prompt
    assert blob in prompt and "high-entropy:1" in prompt


def test_F05_allowlist_pragmas_are_ignored_by_default_and_honoured_when_enabled(make_tree: MakeTree) -> None:
    value = fake_secrets()["github-token"]
    body = f'def pragma_marker():\n    return "{value}"  # pragma: allowlist secret\n'
    root = make_tree({"fixture.py": body})
    result = scan(root)
    assert [e.path for e in result.excluded] == []
    assert [value in s.text for s in result.sources] == [False]  # redacted: the pragma is not honoured
    config = CorpusConfig(secrets_allow_pragma=True)
    adopted = scan(root, config).sources
    assert [s.path for s in adopted] == ["fixture.py"]
    with prooftext.open(root, config) as index:
        prompt = index.pack("pragma_marker").prompt
    assert value not in prompt and "redacted:1" in prompt  # recorded, and still redacted in prompts


def test_F05_secrets_policy_values_are_validated(make_tree: MakeTree) -> None:
    root = make_tree({"prooftext.toml": '[scan]\nsecrets = "ignore"\n'})
    with pytest.raises(ConfigError) as caught:
        load_config(root)
    assert caught.value.details["key"] == "scan.secrets"
    with pytest.raises(ConfigError):
        CorpusConfig(secrets_allow_pragma="yes")  # type: ignore[arg-type]


def test_F06_split_and_encoded_secrets_are_a_documented_gap_labelled_when_random(make_tree: MakeTree) -> None:
    token = fake_secrets()["github-token"]
    wrapped = base64.b64encode(token.encode()).decode()
    split = f'PART_A = "{token[:20]}"\nPART_B = "{token[20:]}"\n'
    root = make_tree({"wrapped.py": f'def wrapped_marker():\n    return "{wrapped}"\n', "split.py": split})
    adopted = {s.path: s for s in scan(root).sources}
    assert set(adopted) == {"split.py", "wrapped.py"}  # not recognised: see GAPS.md (F6)
    assert secrets.high_entropy_count(adopted["wrapped.py"].text) >= 1  # but labelled in excerpts


def test_F01_detection_is_line_local_so_excerpt_redaction_equals_file_redaction() -> None:
    """Every rule but the private-key block (always excluded from the index) is line-local."""
    values = {k: v for k, v in fake_secrets().items() if k != secrets.RULE_PRIVATE_KEY}
    text = "".join(f"line {i}\n" + plant(rule, v) for i, (rule, v) in enumerate(sorted(values.items())))
    whole = secrets.redact_text(text, "x.env").split("\n")
    lines = text.split("\n")
    for start in range(0, len(lines), 3):
        for end in range(start + 1, min(len(lines), start + 9)):
            part = "\n".join(lines[start:end])
            assert secrets.redact_text(part, "x.env") == "\n".join(whole[start:end])


def test_F01_private_key_fragments_are_redacted_in_any_excerpt_cutting_the_block() -> None:
    """Files with private keys are always excluded; rendering still redacts any excerpt holding a marker.

    An excerpt strictly inside a key body (no marker line) is not recognised: see GAPS.md (F6).
    """
    body = fake_secrets()["private-key"]
    text = "prefix\n" + plant("private-key", body) + "suffix\n"
    lines = text.split("\n")
    body_lines = body.split("\n")
    markers = {i for i, line in enumerate(lines) if "-----" in line}
    for start in range(len(lines)):
        for end in range(start + 1, len(lines) + 1):
            if not markers & set(range(start, end)):
                continue
            redacted = secrets.redact_text("\n".join(lines[start:end]))
            assert not any(b in redacted for b in body_lines), (start, end)


def test_F01_the_artifact_lifecycle_carries_no_planted_value(tmp_path: Path, figure: Figure) -> None:
    lifecycle = pytest.importorskip("prooftext.artifacts.lifecycle")
    query_module = pytest.importorskip("prooftext.artifacts.query")
    values = fake_secrets()
    files = {**_secret_tree(values), "SPEC.md": "# Spec\n\nRotate deployment credentials for billing.\n"}
    root = tmp_path / "repo"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    out = root / ".prooftext" / "context"
    lifecycle.run_manifest(root, out / "manifest.json", "SPEC.md", [])
    lifecycle.run_index(out / "manifest.json", root, None, out / "graph.json")
    lifecycle.run_query(out / "graph.json", query_module.byte_query(QUERY), out / "query.json")
    lifecycle.run_select(out / "graph.json", out / "query.json", out / "selection.json")
    lifecycle.run_snapshot(out / "graph.json", out / "selection.json", root, None, out / "snapshot.json")
    data = b"".join(p.read_bytes() for p in sorted(out.iterdir()))
    leaks = sum(data.count(v.encode()) for v in secret_values(values))
    figure("secret_leaks", leaks)
    manifest = json.loads((out / "manifest.json").read_text())
    assert leaks == 0
    listed = {s["locator"]["path"] for s in manifest["sources"] if s["locator"]["path"].startswith("conf/")}
    key_file = next(p for p in files if p.startswith("conf/private-key."))
    assert listed == {p for p in files if p.startswith("conf/")} - {key_file}  # redacted, never dropped
