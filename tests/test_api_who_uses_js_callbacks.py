"""Who-uses in TypeScript through the parameters of callbacks, typed by their context: a function assigned to
a variable annotated with a function type, a function returned where the enclosing one declares it returns
one, and a function passed to a function whose parameter declares one (``createMiddleware(async (c, next)
=> …)``)."""

from __future__ import annotations

from pathlib import Path

from helpers import found_by
from prooftext.api.who_uses_js_types import Contextual, function_type_parameter, local_bindings

MIDDLEWARE = {
    "src/context.ts": """
        export class Context {
          json(value: unknown) {
            return value;
          }
          header(name: string) {
            return name;
          }
        }

        export class Other {
          json(value: unknown) {
            return value;
          }
        }
        """,
    "src/types.ts": """
        import { Context } from './context'

        export type Next = () => Promise<void>
        export type MiddlewareHandler<
          E = any,
          P extends string = string,
        > = (c: Context, next: Next) => Promise<void>
        export type GetConnInfo = (c: Context) => string
        """,
    "src/factory.ts": """
        import type { MiddlewareHandler } from './types'
        import { Context } from './context'

        export const createMiddleware = <E = any>(middleware: MiddlewareHandler<E>): MiddlewareHandler<E> =>
          middleware

        export const onEach = (each: (c: Context, n: number) => void) => each
        """,
    "src/middleware.ts": """
        import type { GetConnInfo, MiddlewareHandler } from './types'

        export const returned = (name: string): MiddlewareHandler => {
          return async function returned(c, next) {
            c.json(name)
            await next()
          }
        }

        export const arrowBody = (): MiddlewareHandler =>
          async (c, next) => {
            c.json(1)
          }

        export const conninfo: GetConnInfo = (c) => c.header('x-real-ip')

        export const nested = (): MiddlewareHandler => {
          const handlers = [1].map(() => {
            return (c) => c.json(3)
          })
          return async (ctx, next) => {
            await next()
          }
        }

        export function untyped(c) {
          c.json(4)
        }
        """,
    "src/app.ts": """
        import { createMiddleware, onEach } from './factory'

        export const logged = createMiddleware(async (c, next) => {
          c.json(2)
          await next()
        })

        export const each = onEach((c, n) => c.json(n))
        """,
}


def test_a_callback_parameter_has_the_class_its_context_declares(tmp_path: Path) -> None:
    """``return async function (c, next)`` in a function declared to return a ``MiddlewareHandler`` (``(c:
    Context, next: Next) => …``) calls ``Context.json``; so does a function assigned to a variable annotated
    ``GetConnInfo``, or passed to ``createMiddleware(middleware: MiddlewareHandler)``. They were possible
    callers of every ``json``."""
    found = found_by(tmp_path, MIDDLEWARE, "Context.json")
    assert found["src/middleware.ts:returned"] == "call"
    assert found["src/middleware.ts:arrowBody"] == "call"
    assert found["src/app.ts:src/app.ts"] == "call"  # both callbacks agree: `c` is a Context
    assert found["src/middleware.ts:untyped"] == "possible"  # nothing states its class
    assert found_by(tmp_path, {}, "Context.header")["src/middleware.ts:conninfo"] == "call"
    typed = {"src/middleware.ts:returned", "src/middleware.ts:arrowBody", "src/app.ts:src/app.ts"}
    assert not typed & set(found_by(tmp_path, {}, "Other.json"))


def test_a_function_returned_from_a_nested_function_is_not_the_declared_result(tmp_path: Path) -> None:
    """``return (c) => c.json(3)`` inside a callback returns the callback's result, not the middleware's: its
    ``c`` is not known."""
    found = found_by(tmp_path, MIDDLEWARE, "Context.json")
    assert found["src/middleware.ts:nested"] == "possible"


def test_unannotated_parameters_are_bound_to_their_position_in_the_context_s_function_type() -> None:
    signature = "export const etag = (options?: Options): MiddlewareHandler =>"
    text = signature + " {\n  if (x) { return (a) => a }\n  return async function etag(c, next) {\n  }\n}"
    bindings = local_bindings(signature, text)
    assert bindings["c"] == [Contextual("MiddlewareHandler", 0)]
    assert bindings["next"] == [Contextual("MiddlewareHandler", 1)]
    assert "a" not in bindings  # a return inside a block
    typed = local_bindings("const info: GetConnInfo = (c, n: number) =>", "")
    assert typed == {"c": [Contextual("GetConnInfo", 0)], "n": ["number"]}
    passed = local_bindings("", "const x = wrap<E>(async (c) => c.json())\nif ((a + b) > 2) {}")
    assert passed == {"c": [Contextual("wrap", 0, called=True)], "x": [9]}


def test_a_function_type_states_its_parameters_classes_written_out_or_through_an_alias() -> None:
    alias = (
        "export type Handler<\n  E = any,\n  R extends Base<any> = any,\n> = (c: Context<E>, next: Next) => R"
    )
    assert function_type_parameter(alias, 0) == "Context"
    assert function_type_parameter(alias, 1) == "Next"
    assert function_type_parameter(alias, 2) is None
    assert function_type_parameter("(c: Context, n: number) => void", 0) == "Context"
    assert function_type_parameter("type Pair = [Context, Next]", 0) is None
