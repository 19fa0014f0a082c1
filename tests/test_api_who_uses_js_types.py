"""Who-uses in TypeScript and JavaScript through the class the code states for a receiver: a construction, an
annotation, a class field or a constructor parameter property."""

from __future__ import annotations

from pathlib import Path

import prooftext
from helpers import found_by
from prooftext.api.risk import who_uses
from prooftext.api.who_uses_js_types import declared_result, field_class_name, local_class_name

SERVICE = {
    "src/repo.ts": """
        export interface Store {
          load(id: string): string;
        }

        export class UserRepository implements Store {
          load(id: string): string {
            return id;
          }
        }

        export class OrderRepository {
          load(id: string): string {
            return "";
          }
        }
        """,
    "src/service.ts": """
        import { OrderRepository, Store, UserRepository } from "./repo";

        export class UserService {
          private cache: UserRepository | null = null;

          constructor(private readonly repo: UserRepository, private readonly orders: OrderRepository) {}

          byField(id: string) {
            return this.repo.load(id);
          }

          byOtherField(id: string) {
            return this.orders.load(id);
          }

          byDeclaredField(id: string) {
            return this.cache?.load(id);
          }
        }

        export function byLocal(id: string) {
          const repo = new UserRepository();
          return repo.load(id);
        }

        export function byParameter(repo: UserRepository, id: string) {
          return repo.load(id);
        }

        export function byInterface(store: Store, id: string) {
          return store.load(id);
        }

        export function unknown(repo, id: string) {
          return repo.load(id);
        }

        export function asserted(repo: UserRepository | undefined, id: string) {
          return repo!.load(id);
        }
        """,
}


def test_a_method_called_on_a_receiver_whose_class_the_code_states_resolves_through_that_class(
    tmp_path: Path,
) -> None:
    """``this.repo.load()`` with ``constructor(private readonly repo: UserRepository)`` was only a possible use
    of every ``load``: it is a call of ``UserRepository.load`` and no use of ``OrderRepository.load``."""
    found = found_by(tmp_path, SERVICE, "UserRepository.load")
    assert found["src/service.ts:UserService.byField"] == "call"
    assert found["src/service.ts:byLocal"] == "call"
    assert found["src/service.ts:byParameter"] == "call"
    assert found["src/service.ts:byInterface"] == "possible"  # any class implementing Store
    assert found["src/service.ts:unknown"] == "possible"
    assert found["src/service.ts:asserted"] == "call"  # `repo!`: the same receiver
    assert "src/service.ts:UserService.byOtherField" not in found  # an OrderRepository
    assert found_by(tmp_path, {}, "OrderRepository.load")["src/service.ts:UserService.byOtherField"] == "call"


def test_a_local_is_typed_only_when_every_binding_states_the_same_class() -> None:
    signature = "find(id: string, svc: Service, other)"
    body = """find(id: string, svc: Service, other) {
        const local = new UserRepository();
        let later;
        later = new Cache();
        let mixed = new Cache();
        mixed = make();
        other = make();
    }"""
    assert local_class_name(signature, body, "local") == "UserRepository"
    assert local_class_name(signature, body, "later") == "Cache"  # declared empty, then constructed
    assert local_class_name(signature, body, "svc") == "Service"
    assert local_class_name(signature, body, "mixed") is None
    assert local_class_name(signature, body, "other") is None


def test_a_field_is_typed_by_its_declaration_a_parameter_property_or_a_construction() -> None:
    text = """class UserService {
      private cache: Cache;
      constructor(private readonly repo: UserRepository<User>, plain: Other) {
        this.cache = new Cache();
        this.mixed = new Cache();
      }
      reset() { this.mixed = make(); }
    }"""
    assert field_class_name(text, "cache") == "Cache"
    assert field_class_name(text, "repo") == "UserRepository"
    assert field_class_name(text, "plain") is None  # a parameter, no property
    assert field_class_name(text, "mixed") is None


def test_a_function_s_own_parameter_named_like_an_imported_function_is_no_use_of_it_but_a_local_require_is(
    tmp_path: Path,
) -> None:
    """The text scan for a definition passed on as a value counted ``app.use(logger)`` inside ``function
    setup(logger)``, where ``logger`` is the parameter, not the imported function. A local is not read: it
    may be the ``require`` of the definition itself."""
    files = {
        "lib/logger.js": "function logger(req, res, next) {\n  next();\n}\nexports.logger = logger;\n",
        "app.js": """
            const { logger } = require('./lib/logger');

            function install(app) {
              app.use(logger);
            }

            function setup(app, logger) {
              app.use(logger);
            }

            function local(app) {
              const { logger } = require('./lib/logger');
              app.use(logger);
            }
            """,
    }
    found = found_by(tmp_path, files, "logger")
    assert found["app.js:install"] == "reference"
    assert "app.js:setup" not in found
    assert found["app.js:local"] == "reference"


CHAINS = {
    "src/schema.ts": """
        export interface BaseSchema {
          min(n: number): this;
          parse(data: unknown): unknown;
        }

        export interface StringSchema extends BaseSchema {
          trim(): this;
        }

        export interface NumberSchema extends BaseSchema {
          int(): this;
        }

        export function string(): StringSchema;
        export function string(pattern: RegExp): StringSchema;
        export function string(pattern?: RegExp): StringSchema {
          return make(pattern);
        }

        export function number(): NumberSchema {
          return make();
        }

        export async function later(): Promise<StringSchema> {
          return string();
        }

        function _enum(values: string[]): StringSchema {
          return make(values);
        }
        export { _enum as enum };
        """,
    "src/index.ts": """
        import { Context } from "./request";
        export * from "./schema";
        export { Context };
        """,
    "src/z.ts": """
        export * as z from "./index";
        """,
    "src/request.ts": """
        export class HonoRequest {
          header(name: string): string {
            return name;
          }
        }

        export class Context {
          #req: HonoRequest | undefined;
          get req(): HonoRequest {
            return new HonoRequest();
          }
          raw(): HonoRequest {
            return this.#req!;
          }
        }
        """,
    "src/bench.ts": """
        export abstract class Runner {
          abstract run(): void;
        }

        export class Quick extends Runner {
          run(): void {}
        }

        export function runner(name: string, options: object): Runner {
          return new Quick();
        }
        """,
    "src/use.ts": """
        import { z } from "./z";
        import { string } from "./index";
        import { Context } from "./index";
        import { runner } from "./bench";

        export function chained() {
          return z.string().min(5).trim();
        }

        export function numbers() {
          return z.number().min(1);
        }

        export function bare() {
          return string().parse("x");
        }

        export function assigned() {
          const schema = z
            .string()
            .trim();
          return schema.min(2);
        }

        export function listed() {
          return z.enum(["a"]).min(1);
        }

        export function promised() {
          return z.later().then((s) => s);
        }

        export function header(c: Context) {
          return c.req.header("x");
        }

        export function raw(c: Context) {
          return c.raw().header("y");
        }

        export async function timed() {
          const bench = runner("name", {
            quick: true,
          });
          bench.run();
        }
        """,
    "src/file.test.ts": """
        import { z } from "./z";

        const schema = z.number();

        test("a test outside any function", () => {
          schema.min(3);
        });
        """,
}


def test_a_method_called_on_a_call_s_result_resolves_through_the_class_the_called_function_declares(
    tmp_path: Path,
) -> None:
    """``z.string().min(5)`` was a possible use of every ``min``: ``string`` (found through the namespace ``z``,
    exported with ``export *``) declares it returns a ``StringSchema``, whose base declares ``min``, which
    returns ``this``; a variable assigned a call has that call's class, a getter its result's."""
    found = found_by(tmp_path, CHAINS, "BaseSchema.min")
    assert found["src/use.ts:chained"] == "call"
    assert found["src/use.ts:numbers"] == "call"
    assert found["src/use.ts:assigned"] == "call"  # `const schema = z.string().trim()` over three lines
    assert found["src/file.test.ts:src/file.test.ts"] == "call"  # a variable of the file
    trim = found_by(tmp_path, {}, "StringSchema.trim")
    assert trim["src/use.ts:chained"] == "call"  # `min` returns `this`: still a StringSchema
    assert "src/use.ts:numbers" not in trim
    assert found_by(tmp_path, {}, "BaseSchema.parse")["src/use.ts:bare"] == "call"  # an imported function
    headers = found_by(tmp_path, {}, "HonoRequest.header")  # `Context` imported and exported by index.ts
    assert headers["src/use.ts:header"] == "call"  # `c.req` through the getter
    assert headers["src/use.ts:raw"] == "call"  # `c.raw()` through the method
    assert found_by(tmp_path, {}, "Runner.run")["src/use.ts:timed"] == "call"
    assert found["src/use.ts:listed"] == "call"  # through `enum`, the name `_enum` is exported under
    assert found_by(tmp_path, {}, "_enum")["src/use.ts:listed"] == "call"
    assert found_by(tmp_path, {}, "Context")["src/use.ts:header"] == "reference"


def test_a_result_that_names_no_class_of_the_tree_or_an_override_leaves_the_call_possible(
    tmp_path: Path,
) -> None:
    found = found_by(tmp_path, CHAINS, "Quick.run")
    assert found["src/use.ts:timed"] == "possible"  # a `Runner` may be a `Quick`
    assert declared_result("async function later(): Promise<StringSchema> {") == "Promise"


def test_a_function_s_declared_result_is_the_annotation_after_its_parameters() -> None:
    assert declared_result("export function string(params?: string | Params): ZodString {") == "ZodString"
    assert declared_result("min(n: number, params?: (x: number) => void): this;") == "this"
    assert declared_result("get req(): HonoRequest<P, I['out']> {") == "HonoRequest"
    assert declared_result("const make = (x: number): Repo =>") == "Repo"
    assert declared_result("async run()") is None
    assert declared_result("pick(): { a: number } {") is None  # an object type names no class


def test_a_variable_assigned_a_call_states_the_call_spelled_as_a_receiver() -> None:
    body = """run() {
      const bench = metabench("name", {
        quick: true,
      });
      const schema = z.string()
        .min(5);
      const sum = count() + 1;
      const waited = await load();
    }"""
    assert local_class_name("run()", body, "bench") == "metabench()"
    assert local_class_name("run()", body, "schema") == "z.string().min()"
    assert local_class_name("run()", body, "sum") is None
    assert local_class_name("run()", body, "waited") == "await load()"  # what its promise holds


def test_an_awaited_result_is_what_the_declared_promise_holds() -> None:
    assert declared_result("async find(id: string): Promise<User>", awaited=True) == "User"
    assert declared_result("async find(id: string): Promise<User>") == "Promise"
    assert (
        declared_result("request = (input: string): Response | Promise<Response> =>", awaited=True)
        == "Response"
    )
    assert declared_result("find(id): Promise<User | undefined>", awaited=True) == "User"
    assert declared_result("find(id): User | null", awaited=True) == "User"  # awaiting a plain value
    assert declared_result("pair(): Promise<User> | Promise<Admin>", awaited=True) is None


AWAITED = {
    "src/users.ts": """
        export class User {
          greet() {
            return "hi";
          }
        }

        export class Admin {
          greet() {
            return "hello";
          }
        }

        export async function findUser(): Promise<User> {
          return new User();
        }

        export class Repo {
          async one(): Promise<User> {
            return new User();
          }
        }
        """,
    "src/app.ts": """
        import { Repo, findUser } from './users'

        export async function byFunction() {
          const user = await findUser();
          return user.greet();
        }

        export async function byMethod(repo: Repo) {
          const user = await repo.one();
          return user.greet();
        }

        export function notAwaited() {
          const pending = findUser();
          return pending.greet();
        }

        export async function byUnknown() {
          const user = await loadFromElsewhere();
          return user.greet();
        }
        """,
}


def test_a_variable_assigned_an_awaited_call_holds_what_its_promise_holds(tmp_path: Path) -> None:
    """``const user = await findUser()`` with ``findUser(): Promise<User>`` holds a ``User``: ``user.greet()``
    calls ``User.greet`` (it was a possible caller)."""
    found = found_by(tmp_path, AWAITED, "User.greet")
    assert found["src/app.ts:byFunction"] == "call"
    assert found["src/app.ts:byMethod"] == "call"
    assert "src/app.ts:notAwaited" not in found  # a Promise, one of the runtime's types
    assert found["src/app.ts:byUnknown"] == "possible"  # a function this repository does not define


ACCESSORS = {
    "src/context.ts": """
        export class Context {
          #res: string = "";
          get res(): string {
            return this.#res;
          }
          set res(value: string) {
            this.#res = value;
          }
          finish(): string {
            return this.res.trim();
          }
        }

        export class Other {
          get res(): string {
            return "";
          }
        }
        """,
    "src/use.ts": """
        import { Context, Other } from "./context";

        export function typed(c: Context) {
          return c.res.length;
        }

        export function assigns(c: Context) {
          c.res = "done";
        }

        export function appends(c: Context) {
          c.res += "!";
        }

        export function untyped(c) {
          return c.res;
        }

        export function other(o: Other) {
          return o.res;
        }

        export function mentioned() {
          return "c.res";
        }
        """,
}


def _accessor_users(root: Path, files: dict[str, str], qualname: str, kind: str) -> dict[str, str]:
    """Who-uses of the getter (``kind`` "get") or the setter of ``qualname``: both share the name."""
    found_by(root, files, qualname)
    with prooftext.open(root) as index:
        rows = index.conn.execute(
            "SELECT id, signature FROM nodes WHERE qualname = ? AND kind = 'symbol'", (qualname,)
        ).fetchall()
        node_id = next(i for i, signature in rows if signature.lstrip().startswith(kind + " "))
        return {f"{d['path']}:{d['qualname']}": d["found_by"] for d in who_uses(index, node_id)}


def test_a_getter_is_used_where_its_name_is_read_through_a_receiver_and_a_setter_where_it_is_assigned(
    tmp_path: Path,
) -> None:
    """The index records members' calls, not their reads: ``c.res`` was no use of ``get res()`` at all."""
    getter = _accessor_users(tmp_path, ACCESSORS, "Context.res", "get")
    assert getter["src/use.ts:typed"] == "reference"
    assert getter["src/context.ts:Context.finish"] == "reference"  # `this.res`
    assert getter["src/use.ts:appends"] == "reference"  # `+=` reads it too
    assert getter["src/use.ts:untyped"] == "possible"
    assert "src/use.ts:assigns" not in getter  # an assignment is the setter's
    assert "src/use.ts:other" not in getter  # another class's getter
    assert "src/use.ts:mentioned" not in getter  # a string
    setter = _accessor_users(tmp_path, {}, "Context.res", "set")
    assert setter["src/use.ts:assigns"] == "reference"
    assert setter["src/use.ts:appends"] == "reference"
    assert "src/use.ts:typed" not in setter
    assert _accessor_users(tmp_path, {}, "Other.res", "get")["src/use.ts:other"] == "reference"


RUNTIME_TYPES = {
    "src/text.ts": """
        export class Text {
          trim(): Text {
            return this;
          }
          then(): void {}
        }

        export function load(): Promise<Text> {
          return Promise.resolve(new Text());
        }
        """,
    "src/use.ts": """
        import { load } from "./text";

        export function clean(value: string) {
          return value.trim();
        }

        export function later() {
          return load().then(() => 1);
        }

        export function unknown(value) {
          return value.trim();
        }
        """,
}


def test_a_receiver_of_one_of_the_runtime_s_types_calls_none_of_the_repository_s_members(
    tmp_path: Path,
) -> None:
    """``value.trim()`` with ``value: string`` was a possible call of every ``trim``; so was ``.then()`` on
    a function's declared ``Promise``."""
    found = found_by(tmp_path, RUNTIME_TYPES, "Text.trim")
    assert "src/use.ts:clean" not in found
    assert found["src/use.ts:unknown"] == "possible"
    assert _who_uses(tmp_path, "Text.then") == {}  # (the risk report then lists the text's mentions)


def test_a_runtime_type_the_repository_declares_again_is_not_the_runtime_s(tmp_path: Path) -> None:
    files = {**RUNTIME_TYPES, "src/globals.d.ts": "interface String {\n  trim(): string;\n}\n"}
    assert found_by(tmp_path, files, "Text.trim")["src/use.ts:clean"] == "possible"


def _who_uses(root: Path, qualname: str) -> dict[str, str]:
    """Who-uses of the first definition of ``qualname`` (without the risk report's text mentions)."""
    with prooftext.open(root) as index:
        index.refresh()
        row = index.conn.execute(
            "SELECT id FROM nodes WHERE qualname = ? AND kind = 'symbol' ORDER BY start_line", (qualname,)
        ).fetchone()
        return {f"{d['path']}:{d['qualname']}": d["found_by"] for d in who_uses(index, row[0])}
