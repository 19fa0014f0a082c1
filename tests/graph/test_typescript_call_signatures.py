"""An interface of generic call signatures, one per line with no ``;`` between them (``<I>(h: H<I>): R``), is
TypeScript the grammar misreads: it takes the next signature's ``<`` for a comparison and loses the rest of
the file to one error. Such a file is read again with each of those lines ending the one above; its symbols
and their lines are those of the file as written."""

from __future__ import annotations

import textwrap

from prooftext.graph import NODE_SYMBOL
from prooftext.graph.extract import extract

SOURCE = textwrap.dedent(
    """
    export interface HandlerInterface<E> {
      <I extends Input = {}>(handler: H<E, I>): Hono<E>

      <
        I extends Input = {},
        I2 extends Input = I,
      >(handler1: H<E, I>, handler2: H<E, I2>): Hono<E>
    }

    export class Factory<E> {
      createApp = (options?: Options): Hono<E> => new Hono(options)
    }

    export const createMiddleware = <E>(middleware: MiddlewareHandler<E>): MiddlewareHandler<E> =>
      middleware
    """
).lstrip("\n")


def test_the_symbols_after_an_interface_of_call_signatures_are_read_with_the_file_s_own_text() -> None:
    graph = extract("src/factory.ts", SOURCE)
    found = {n.qualname: (n.start_line, n.end_line) for n in graph.nodes if n.kind == NODE_SYMBOL}
    assert found["HandlerInterface"] == (1, 8)
    assert found["Factory"] == (10, 12)
    assert found["createMiddleware"] == (14, 15)
    # signatures are read from the file as written, not from the text parsed
    assert not any(";" in (n.signature or "") for n in graph.nodes)
