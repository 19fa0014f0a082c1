"""The eight shipped JSON Schemas (Draft 2020-12), generated from the typed models.

``python -m prooftext.artifacts.schema_gen`` rewrites ``src/prooftext/schemas/context-*.schema.json``; a test
fails whenever a shipped schema differs from what the models generate, so the two never drift.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from prooftext.artifacts.loader import schema_file
from prooftext.artifacts.models import MODELS

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_ID_PREFIX = "urn:prooftext:schema:"
SCHEMA_DIR = Path(__file__).resolve().parents[1] / "schemas"
_DROPPED_KEYS = frozenset({"title"})


def _clean(value: Any, parent_key: str = "") -> Any:
    """Drop pydantic's generated ``title`` annotations (never a property named title)."""
    if isinstance(value, dict):
        keep = parent_key in ("properties", "$defs")
        return {k: _clean(v, k) for k, v in value.items() if keep or k not in _DROPPED_KEYS}
    if isinstance(value, list):
        return [_clean(item) for item in value]
    return value


def generate(artifact_type: str) -> dict[str, Any]:
    """The schema of one artifact type, as shipped."""
    schema = _clean(MODELS[artifact_type].model_json_schema(mode="validation"))
    name = schema_file(artifact_type)
    return {
        "$schema": DRAFT_2020_12,
        "$id": f"{SCHEMA_ID_PREFIX}{name}",
        "description": f"prooftext context artifact: {artifact_type}, schema version 1.0",
        **schema,
    }


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=True) + "\n"


def write_all(directory: Path = SCHEMA_DIR) -> list[Path]:
    written = []
    for artifact_type in MODELS:
        path = directory / schema_file(artifact_type)
        path.write_text(render(generate(artifact_type)), encoding="utf-8")
        written.append(path)
    return written


def drifted(directory: Path = SCHEMA_DIR) -> list[str]:
    """Names of shipped schemas that differ from the models (or are missing)."""
    out = []
    for artifact_type in MODELS:
        path = directory / schema_file(artifact_type)
        if not path.is_file() or path.read_text(encoding="utf-8") != render(generate(artifact_type)):
            out.append(path.name)
    return out


if __name__ == "__main__":
    for written in write_all():
        sys.stdout.write(f"wrote {written.name}\n")
