"""A root whose path is not UTF-8 (a directory named in Latin-1): every read the index serves works on it, and
the store's own path never has to be decoded as text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import prooftext
from helpers import undecodable_directory, write_tree
from prooftext.server.context import ServerContext
from prooftext.server.dispatcher import Dispatcher
from prooftext.store.queries import generation


@pytest.fixture
def root(tmp_path: Path) -> Path:
    directory = undecodable_directory(tmp_path)
    write_tree(directory, {"z.py": "def zz():\n    pass\n"})
    with prooftext.open(directory) as index:
        index.refresh()
    return directory


def test_the_generation_names_a_store_whose_path_is_not_utf8(root: Path) -> None:
    with prooftext.open(root) as index:
        held = generation(index.conn)
    assert held is not None and Path(held[0]) == root / ".prooftext" / "index.sqlite"


def test_pack_adaptive_search_map_and_verify_work_on_a_root_whose_path_is_not_utf8(root: Path) -> None:
    with prooftext.open(root) as index:
        packet = index.pack("zz")
        adaptive = index.adaptive_pack("zz")
        hits = index.search("zz")
        built = prooftext.repository_map(index)
        assert [e.path for e in packet.evidence] == ["z.py"]
        assert [e.path for e in adaptive.packet.evidence] == ["z.py"]
        assert [h["path"] for h in hits] == ["z.py"]
        assert "z.py" in built.prompt
        assert index.verify(packet.to_dict()).ok
        assert index.verify(json.loads(json.dumps(built.to_dict()))).ok


def test_the_server_packs_and_maps_a_root_whose_path_is_not_utf8(root: Path) -> None:
    context = ServerContext.open(root)
    try:
        dispatcher = Dispatcher(context)
        for method, params in [
            ("context.pack", {"query": "zz"}),
            ("context.map", {}),
            ("context.search", ["zz"]),
        ]:
            message: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
            reply = dispatcher.handle(json.dumps(message).encode())
            assert reply is not None and "result" in json.loads(reply), (method, reply)
    finally:
        context.close()
