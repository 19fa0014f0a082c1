"""A declaration without a body (an interface or trait method, an overload) has its whole header as its
signature, however many lines it takes, as the file spells it: its first line alone (``retry(``) said
nothing."""

from __future__ import annotations

import textwrap

import pytest

from prooftext.graph import NODE_SYMBOL
from prooftext.graph.extract import extract

TYPESCRIPT = """
interface Client {
  retry(
    request: Request,
    attempts: number,
  ): Promise<Response>;
  close(): void;
}

abstract class Base {
  abstract send(
    body: string,
  ): void;
}

export function parse(
  text: string,
): number;
export function parse(text: string, radix: number): number;
export function parse(text: string, radix = 10): number {
  return Number.parseInt(text, radix);
}
"""

RUST = """
pub trait Sink {
    fn write_all(
        &mut self,
        bytes: &[u8],
    ) -> std::io::Result<()>;
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
"""

GO = """
package store

type Reader interface {
	Read(
		key string,
		into []byte,
	) (int, error)
	Close() error
}
"""


def _signatures(path: str, text: str) -> dict[str, list[str]]:
    graph = extract(path, textwrap.dedent(text).lstrip("\n"))
    out: dict[str, list[str]] = {}
    for node in graph.nodes:
        if node.kind == NODE_SYMBOL:
            out.setdefault(node.qualname, []).append(node.signature)
    return out


@pytest.mark.parametrize(
    ("path", "text", "qualname", "signature"),
    [
        (
            "a.ts",
            TYPESCRIPT,
            "Client.retry",
            "retry(\n    request: Request,\n    attempts: number,\n  ): Promise<Response>",
        ),
        ("a.ts", TYPESCRIPT, "Client.close", "close(): void"),
        ("a.ts", TYPESCRIPT, "Base.send", "abstract send(\n    body: string,\n  ): void"),
        (
            "a.rs",
            RUST,
            "Sink.write_all",
            "fn write_all(\n        &mut self,\n        bytes: &[u8],\n    ) -> std::io::Result<()>",
        ),
        ("a.go", GO, "Reader.Read", "Read(\n\t\tkey string,\n\t\tinto []byte,\n\t) (int, error)"),
    ],
)
def test_a_declaration_without_a_body_has_its_whole_header_as_signature(
    path: str, text: str, qualname: str, signature: str
) -> None:
    assert _signatures(path, text)[qualname][0] == signature


def test_each_overload_signature_of_a_typescript_function_keeps_its_whole_header() -> None:
    assert _signatures("a.ts", TYPESCRIPT)["parse"] == [
        "export function parse(\n  text: string,\n): number",
        "export function parse(text: string, radix: number): number",
        "export function parse(text: string, radix = 10): number",
    ]


def test_a_method_with_a_body_keeps_its_header_up_to_the_body() -> None:
    assert _signatures("a.rs", RUST)["Sink.flush"] == ["fn flush(&mut self) -> std::io::Result<()>"]
