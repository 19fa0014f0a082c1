"""The catalogue of RELIABILITY.md section 3 (3.1 A-H, 3.2 FA1-FA12, 3.3 L1-L8), as data.

Every id here is covered by at least one test whose name starts with ``test_<id>_`` (ids zero-padded to two
digits: ``test_A03_...``, ``test_FA04_...``), or appears in :data:`GAPS` with the reason it is not tested.
``tests/reliability/test_catalogue.py`` enforces this; ``python -m prooftext.robustness`` reports it.
"""

from __future__ import annotations

import re

CASES: dict[str, str] = {
    "A1": "Symlink file in root → file outside",
    "A2": "Symlinked directory escaping root (dirlink/outside.txt)",
    "A3": "Symlink inside root → file inside root",
    "A4": "Symlink loop a→b→a",
    "A5": ".. in locator (../x, a/../../x)",
    "A6": "Absolute locator /etc/passwd",
    "A7": "NUL in locator a.py\\0.md",
    "A8": "Non-canonical locator a//b, ./a, a/, a/./b",
    "A9": "Backslash or drive: a\\..\\b, C:\\x",
    "A10": ".git component in any case or variant (.GIT, .git , git~1)",
    "A11": "Non-UTF-8 filename bad\\xff.txt",
    "A12": "NFC/NFD twins é.txt and e\\u0301.txt",
    "A13": "Case twins README/readme",
    "A14": "Newline or control character in a filename",
    "A15": "Component > 255 bytes or path > 4096 bytes",
    "A16": "FIFO, socket or device in the tree",
    "A17": "Directory where a file is expected, and the reverse",
    "A18": "Unreadable file (mode 000; run as a non-root user or monkeypatch, because root bypasses...",
    "A19": "File deleted between walk and read",
    "A20": "File replaced by rename between index and verify",
    "A21": "File modified during read (fstat before ≠ after)",
    "A22": "File grows past the limit while being read",
    "A23": "The root itself is a symlink",
    "A24": "Hard link to content outside the tree (st_nlink > 1)",
    "A25": "Mount point inside the root (st_dev changes)",
    "B1": "NUL within the first 8000 bytes",
    "B2": "NUL only at byte 70000 (past a 64 KiB buffer)",
    "B3": "Latin-1 or Shift-JIS text",
    "B4": "Invalid UTF-8 (overlong sequence, lone continuation byte, encoded U+D800; reuse the JSO...",
    "B5": "UTF-8 BOM",
    "B6": "UTF-16 LE/BE with BOM",
    "B7": "CRLF line endings",
    "B8": "Lone CR, U+2028, FF, U+0085 in text",
    "B9": "Empty file; file that is just \\n; no trailing newline",
    "B10": "One 10 MB line (minified)",
    "B11": "100 MB file",
    "B12": "File exactly at the limit, and limit + 1",
    "B13": "Sparse file of 1 TB (truncate -s 1T)",
    "B14": "Endless special file (e.g. a symlink to /dev/zero)",
    "B15": "Archive (zip/tar/gz)",
    "B16": 'Bidi controls or zero-width characters ("Trojan Source")',
    "B17": "Line range out of bounds (L10-L5, L0, past EOF)",
    "C1": "Source content changed after indexing",
    "C2": "Source deleted after indexing",
    "C3": "One bit flipped in a stored artifact",
    "C4": "Artifact re-serialised with the same meaning (whitespace, key order, 1.0)",
    "C5": "Artifact refers to a missing parent id",
    "C6": "Truncated artifact (truncated by hand)",
    "C7": "Two different byte strings under one id",
    "C8": "Digest in uppercase, shorter than 64 hex, or with a sha256: prefix",
    "C9": "Hash right but size wrong",
    "C10": "Trace token counts or BLAKE3 digests that don't match a recomputation",
    "C11": "mtime unchanged but content changed (edit in the same second)",
    "D1": "Duplicate keys",
    "D2": "NaN, Infinity, -Infinity",
    "D3": 'Lone surrogate "\\ud800"',
    "D4": "Float in an integer field: 1.0, 1e2, 1.5",
    "D5": "Integer beyond ±(2^53−1)",
    "D6": "5000-digit integer",
    "D7": "1e400 (→ inf)",
    "D8": "Nesting 100000 deep, and the stated limit + 1",
    "D9": "UTF-8 BOM before JSON bytes",
    "D10": "Invalid UTF-8 in the JSON bytes",
    "D11": "Trailing garbage, two concatenated values, trailing comma",
    "D12": 'Keys "😂" vs "\\ufb33"',
    "D13": "-0.0, 1e21, 1e-7",
    "D14": "A float whose canonical form exceeds 2^53 (3333300000000000030.0)",
    "D15": "Unknown fields in an artifact or params",
    "D16": "A 64 MiB request line",
    "E1": "Empty query",
    "E2": "Only stop-words (the of and a)",
    "E3": "Query stuffed with the whole vocabulary (100k tokens)",
    "E4": "Query of punctuation only, emoji, RTL or CJK",
    "E5": "Regex or glob metacharacters .*, [, \\",
    "E6": "NUL or control characters in the query",
    "E7": "Budget 0, negative, float, above the ladder maximum",
    "E8": "Empty corpus",
    "E9": "Every file excluded (binary/secret)",
    "E10": "A **contradicts** B and the budget fits only one",
    "E11": "Contradiction cycle A↔B↔C, and a self-edge",
    "E12": "Ties in authority or freshness",
    "E13": "Same content under two paths",
    "E14": "Strongly matching source labelled secret or restricted",
    "E15": "Runs under different PYTHONHASHSEED values",
    "F1": "Fake AWS, GitHub, Slack, Stripe, PEM, JWT and password= values in a source",
    "F2": "A secret-looking value in a filename",
    "F3": "A secret in the query or chat turn",
    "F4": "Lockfile integrity hashes, git SHAs, SHA-256 hex",
    "F5": "pragma: allowlist secret / gitleaks:allow",
    "F6": "A secret split over two lines, or base64-wrapped",
    "F7": 'Injection text in a source (the 75 BIPIA strings; "Ignore previous instructions"; a fak...',
    "F8": "A source containing the literal closing delimiter or a fake </excerpt>",
    "F9": "Injection asking to read ../.env, a secret file, or to raise the budget",
    "F10": "Injection text in a filename or path",
    "F11": 'Chat turn trying to force the depth tier ("this is DEEP, load all memory")',
    "F12": "Injection text inside surfaced memory items (decisions, constraints)",
    "F13": "Invisible Unicode tag or zero-width characters carrying instructions",
    "G1": "Invalid JSON",
    "G2": '{"jsonrpc":"2.0","method":1}',
    "G3": "Unknown method",
    "G4": "Bad params (missing or wrong type)",
    "G5": "Handler raises",
    "G6": "Notification (no id), including an invalid one",
    "G7": "Batches [], [1], [1,2,3], all-notifications, mixed",
    "G8": "id as float 1.5, object or array",
    "G9": 'jsonrpc missing or "1.0"',
    "G10": "Partial frame then EOF; no newline; a 64 MiB line",
    "G11": "MCP request before initialize, or after shutdown",
    "G12": "Reuse A1–A11 through RPC and MCP",
    "G13": "Client disconnects mid-response",
    "G14": "Same id reused by one client concurrently",
    "H1": "Conversation item empty, huge, non-UTF-8, or with a duplicate id",
    "H2": "Ollama timing fields missing, negative, string, NaN or huge",
    "H3": "10k-turn history",
    "H4": "Tokenizer unavailable",
    "FA1": "Disk full during artifact publish (1 MiB tmpfs; CI runs as root so mount works, with /d...",
    "FA2": "Disk full during a SQLite index write",
    "FA3": "SIGKILL during artifact write",
    "FA4": "SIGKILL during index build (WAL)",
    "FA5": "SIGKILL between selection rounds",
    "FA6": "Two prooftext index on one root",
    "FA7": "N concurrent publishers of one id",
    "FA8": "Query while reindexing",
    "FA9": "EIO on read (monkeypatch os.read)",
    "FA10": "Output directory read-only",
    "FA11": "Interrupted build, then sources edited, then resume",
    "FA12": "Power loss",
    "L1": "100k tiny files (CI default). 1M is an opt-in nightly: ≈10× M11, about 70 s to create +...",
    "L2": "One 100 MiB file plus a 1 TB sparse file",
    "L3": "10k realistic text files × 10 KB",
    "L4": "32 concurrent JSON-RPC clients × 50 requests (stdio subprocesses or a loopback socket),...",
    "L5": "Queries during a reindex",
    "L6": "100k-token query",
    "L7": "Contradiction graph with 10k edges",
    "L8": "Soak: 1,000 sequential selections",
}

GROUPS: tuple[str, ...] = ("A", "B", "C", "D", "E", "F", "G", "H", "FA", "L")

GAPS: dict[str, str] = {
    "FA12": (
        "Power loss is not reproducible in-process. Approximated by SIGKILL inside an open write transaction "
        "(FA04, three kill points) with SQLite WAL; SQLite's own crash VFS (test6.c) is the reference."
    ),
}
"""Cases with no test of their own, and why (``GAPS.md`` says the same for readers)."""

BENCHMARKS: dict[str, str] = {
    "L1": "bench/load_corpus.py (100k tiny files; 1M with --files 1000000)",
    "L2": "bench/load_corpus.py (100 MiB file + 1 TB sparse file)",
    "L3": "bench/load_corpus.py (10k x 10 KB files: index time, query p50/p95)",
    "L4": "bench/load_rpc.py (32 JSON-RPC clients x 50 requests)",
    "L5": "bench/load_rpc.py (queries during a reindex)",
    "L6": "bench/load_query.py (100k-token query)",
    "L7": "bench/load_query.py (contradiction graph with 10k edges)",
    "L8": "bench/load_query.py (1,000 sequential selections: RSS and fds)",
}
"""The load rows are benchmark scripts (slow, not in CI); ``test_L_load.py`` runs each at a small scale under
the ``slow`` marker, and ``python -m prooftext.robustness --load`` reports their figures."""

_ID = re.compile(r"(FA|[A-HL])(\d{2})(?=_)")


def ids_in_test_name(name: str) -> list[str]:
    """Catalogue ids named by a test: ``test_A05_A06_x`` → [A5, A6]; ``00`` marks a group-wide property."""
    rest = name.removeprefix("test_")
    out: list[str] = []
    while True:
        match = _ID.match(rest)
        if match is None:
            return out
        out.append(f"{match.group(1)}{int(match.group(2))}")
        rest = rest[match.end() + 1 :]


def group_of(case_id: str) -> str:
    return "FA" if case_id.startswith("FA") else case_id[0]
