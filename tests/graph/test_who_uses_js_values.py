"""Who-uses in JavaScript and TypeScript: a definition passed on as a value, exported through an object,
and a bare name a file binds to something else."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import prooftext
from prooftext.api.risk import risk_of_changing, who_uses


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


def _dependents(root: Path, target: str) -> dict[str, dict[str, Any]]:
    with prooftext.open(root) as index:
        index.refresh()
        result = risk_of_changing(index, [target])
    return {f"{d['path']}:{d['qualname']}": d for d in result["dependents"]}


VALUES = {
    "lib/middleware.js": """
        function logger(req, res, next) {
          next();
        }

        function helper() {
          return 1;
        }

        exports.logger = logger;
        exports.helper = helper;
        exports.all = [exports.helper];
        """,
    "lib/app.js": """
        const { logger } = require('./middleware');

        function setup(app) {
          app.use(logger);
        }

        function options() {
          return { logger, other: 1 };
        }

        // logger is mentioned here only
        function notAUse() {
          return { logger: 2, name: 'logger' };
        }
        """,
    "src/retry.ts": """
        export function shouldRetry(error: Error): boolean {
          return Boolean(error);
        }
        """,
    "src/client.ts": """
        import {
          shouldRetry,
        } from './retry.js';

        export class Client {
          hooks = [shouldRetry];

          check(error: Error) {
            return [error].filter(shouldRetry);
          }
        }
        """,
}


def test_a_javascript_function_passed_on_as_a_value_is_a_reference_in_the_code_that_passes_it(
    tmp_path: Path,
) -> None:
    _write(tmp_path, VALUES)
    found = _dependents(tmp_path, "logger")
    assert (found["lib/app.js:setup"]["found_by"], found["lib/app.js:setup"]["line"]) == ("reference", 4)
    assert found["lib/app.js:options"]["found_by"] == "reference"  # `{ logger }`: a shorthand property
    assert "lib/app.js:notAUse" not in found  # a key, a string and a comment name no value
    mine = found["lib/middleware.js:lib/middleware.js"]
    assert (mine["found_by"], mine["line"]) == ("reference", 9)  # `exports.logger = logger`


def test_a_typescript_function_passed_on_as_a_value_through_a_multi_line_import_is_a_reference(
    tmp_path: Path,
) -> None:
    _write(tmp_path, VALUES)
    found = _dependents(tmp_path, "shouldRetry")
    assert found["src/client.ts:Client.check"]["found_by"] == "reference"
    assert found["src/client.ts:src/client.ts"]["found_by"] == "import"


def test_a_bare_name_a_javascript_file_imports_from_elsewhere_or_defines_itself_is_no_use(
    tmp_path: Path,
) -> None:
    _write(
        tmp_path,
        {
            "src/delay.ts": "export default function delay(ms: number) {\n  return ms;\n}\n",
            "test/a.ts": "import { setTimeout as delay } from 'node:timers/promises';\n\nfunction wait() {\n  return delay(3);\n}\n",
            "test/d.ts": "import delay from './helpers.js';\n\nfunction pause() {\n  return delay(4);\n}\n",
            "test/helpers.ts": "export default function sleep(ms: number) {\n  return ms;\n}\n",
            "test/e.ts": "import delay from 'delay';\n\nfunction nap() {\n  return delay(5);\n}\n",
            "test/b.js": "function createApp() {\n  return delay(1);\n}\n\nfunction delay(n) {\n  return n;\n}\n",
            "test/c.js": "function later(fn) {\n  return delay(fn);\n}\n",
        },
    )
    with prooftext.open(tmp_path) as index:
        index.refresh()
        [(node_id,)] = index.conn.execute(
            "SELECT n.id FROM nodes n JOIN files f ON f.id = n.file_id WHERE f.path = 'src/delay.ts'"
            " AND n.name = 'delay'"
        ).fetchall()
        found = {f"{d['path']}:{d['qualname']}": d["found_by"] for d in who_uses(index, node_id)}
    # test/a.ts calls Node's, test/d.ts its helper's, test/b.js its own; test/c.js binds `delay` nowhere, and
    # test/e.ts imports a package this repository might be
    assert found == {"test/c.js:later": "possible", "test/e.ts:nap": "possible"}


def test_a_name_defined_again_case_after_case_in_one_file_is_the_nearest_definition_before_it(
    tmp_path: Path,
) -> None:
    _write(
        tmp_path,
        {
            "test/fetch.js": """
                test('first', async () => {
                  const customFetch = async () => 1;
                  await ky({ fetch: customFetch });
                  await customFetch();
                });

                test('second', async () => {
                  const customFetch = async () => 2;
                  await ky({ fetch: customFetch });
                  await customFetch();
                });
                """,
        },
    )
    with prooftext.open(tmp_path) as index:
        index.refresh()
        ids = index.conn.execute(
            "SELECT id FROM nodes WHERE name = 'customFetch' ORDER BY start_line"
        ).fetchall()
        lines = [[(d["found_by"], d["line"]) for d in who_uses(index, node_id)] for (node_id,) in ids]
    assert lines == [[("call", 4)], [("reference", 9)]]  # the file's code, at each case's own use


def test_a_javascript_function_exported_in_an_object_literal_is_called_through_a_require_of_its_file(
    tmp_path: Path,
) -> None:
    _write(
        tmp_path,
        {
            "lib/express.js": """
                module.exports = {
                  create: createApplication,
                  helper,
                };

                function createApplication() {
                  return 1;
                }

                function helper() {
                  return 2;
                }
                """,
            "index.js": "module.exports = require('./lib/express');\n",
            "app.js": "const express = require('.');\nconst { helper: help } = require('./lib/express');\n\nfunction start() {\n  return express.create() + help();\n}\n",
        },
    )
    found = _dependents(tmp_path, "createApplication")
    assert (found["index.js:index.js"]["found_by"], found["index.js:index.js"]["line"]) == ("import", 1)
    assert found["app.js:start"]["found_by"] == "call"
    assert _dependents(tmp_path, "helper")["app.js:start"]["found_by"] == "call"


def test_a_name_destructured_from_an_object_or_spelled_in_a_template_string_is_no_use(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "src/timeout.ts": "export default function timeout(ms: number) {\n  return ms;\n}\n",
            "src/ky.ts": """
                import timeout from './timeout.js';

                function options(input: Options) {
                  const {
                    hooks,
                    timeout,
                  } = input;
                  return hooks;
                }

                function check(ms: number) {
                  throw new RangeError(`The \\`timeout\\` option ${ms}`);
                }

                function passes() {
                  return { timeout, other: 1 };
                }
                """,
        },
    )
    found = _dependents(tmp_path, "timeout")
    assert found["src/ky.ts:passes"]["found_by"] == "reference"
    assert "src/ky.ts:options" not in found
    assert "src/ky.ts:check" not in found


def test_every_overload_of_a_typescript_function_keeps_the_uses_in_its_own_file(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "src/parse.ts": """
                export const parsers = [parse];

                export function parse(a: string): string;
                export function parse(a: number): number;
                export function parse(a: unknown): unknown {
                  return a;
                }
                """,
        },
    )
    with prooftext.open(tmp_path) as index:
        index.refresh()
        ids = index.conn.execute("SELECT id FROM nodes WHERE name = 'parse' ORDER BY start_line").fetchall()
        lines = [[d["line"] for d in who_uses(index, node_id)] for (node_id,) in ids]
    assert lines == [[1], [1], [1]]


PROTOTYPES = {
    "lib/response.js": """
        var res = Object.create(http.ServerResponse.prototype);

        res.send = function send(body) {
          return body;
        };

        res.json = function json(obj) {
          return this.send(JSON.stringify(obj));
        };
        """,
    "lib/view.js": """
        function View(name) {
          this.path = this.lookup(name);
        }

        View.prototype.lookup = function lookup(name) {
          return this.resolve(name);
        };

        View.prototype.resolve = function resolve(name) {
          return name;
        };

        function Other() {
          this.lookup('x');
        }
        """,
}


def test_this_inside_a_function_assigned_to_an_object_s_property_is_that_object(tmp_path: Path) -> None:
    _write(tmp_path, PROTOTYPES)
    assert _dependents(tmp_path, "res.send")["lib/response.js:json"]["found_by"] == "call"
    lookup = _dependents(tmp_path, "View.prototype.lookup")
    assert lookup["lib/view.js:View"]["found_by"] == "call"  # the constructor of View.prototype
    assert lookup["lib/view.js:Other"]["found_by"] == "possible"
    assert _dependents(tmp_path, "View.prototype.resolve")["lib/view.js:View.lookup"]["found_by"] == "call"


def test_a_class_method_passed_on_through_this_is_a_reference_in_its_class(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "src/ky.ts": """
                export class Ky {
                  setup() {
                    return [1].map(this.retry);
                  }

                  retry(n: number) {
                    return n;
                  }
                }

                export class Other {
                  setup() {
                    return [1].map(this.retry);
                  }
                }
                """,
        },
    )
    found = _dependents(tmp_path, "Ky.retry")
    assert (found["src/ky.ts:Ky.setup"]["found_by"], found["src/ky.ts:Ky.setup"]["line"]) == ("reference", 3)
    assert "src/ky.ts:Other.setup" not in found


def test_a_bare_name_in_its_own_file_does_not_name_a_typescript_class_member(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "src/schemas.ts": """
                export interface ZodType {
                  array(): ZodArray;
                  optional(): ZodOptional;
                }

                export function array(of: unknown) {
                  return of;
                }

                export function build() {
                  return array(1);
                }
                """,
        },
    )
    found = _dependents(tmp_path, "ZodType.array")
    assert found["src/schemas.ts:build"]["found_by"] == "possible"  # only its name is in the text


def test_a_typescript_keyword_spelled_like_a_function_is_no_use_of_it(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "src/schemas.ts": """
                export function readonly<T>(inner: T) {
                  return inner;
                }

                export function tuple(items: readonly string[], more: readonly [number]) {
                  return items;
                }

                export function wrap(items: string[]) {
                  return items.map(readonly as (x: string) => string);
                }
                """,
        },
    )
    found = _dependents(tmp_path, "readonly")
    assert "src/schemas.ts:tuple" not in found
    assert found["src/schemas.ts:wrap"]["found_by"] == "reference"


def test_a_typescript_type_spelled_like_a_function_is_no_use_of_it(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "src/schemas.ts": """
                export function string(params?: string | Params): ZodString {
                  return make(params);
                }

                export function email(params: string | Params) {
                  return params;
                }
                """,
        },
    )
    found = _dependents(tmp_path, "string")
    assert found["src/schemas.ts:email"]["found_by"] == "possible"  # only its name is in the text


NAMESPACES = {
    "src/schemas.ts": "export function object(shape: unknown) {\n  return shape;\n}\n",
    "src/external.ts": "export * from './schemas.js';\n",
    "src/index.ts": "import * as z from './external.js';\nexport * from './external.js';\nexport { z, z as default };\n",
    "src/mini.ts": "export * as m from './external.js';\n",
    "test/a.test.ts": "import { z } from '../src/index.js';\n\nfunction build() {\n  return z.object({});\n}\n",
    "test/b.test.ts": "import { m } from '../src/mini.js';\n\nfunction build() {\n  return m.object({});\n}\n",
    "test/c.test.ts": "import { z } from 'zod';\n\nfunction build() {\n  return z.object({});\n}\n",
}


def test_a_call_through_a_namespace_another_file_exports_by_name_is_a_call(tmp_path: Path) -> None:
    _write(tmp_path, NAMESPACES)
    found = _dependents(tmp_path, "object")
    assert found["test/a.test.ts:build"]["found_by"] == "call"  # `import * as z` + `export { z }`
    assert found["test/b.test.ts:build"]["found_by"] == "call"  # `export * as m from`
    assert found["test/c.test.ts:build"]["found_by"] == "possible"  # another package's z


def test_a_private_member_is_used_only_inside_its_own_class_through_any_receiver(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "src/ky.ts": """
                export class Ky {
                  static create(input: string) {
                    const ky = new Ky(input);
                    return ky.#retry(1);
                  }

                  #retry(n: number) {
                    return n;
                  }
                }

                export class Other {
                  run(other: Other) {
                    return other.#retry(2);
                  }

                  #retry(n: number) {
                    return n;
                  }
                }
                """,
        },
    )
    found = _dependents(tmp_path, "Ky.#retry")
    assert found["src/ky.ts:Ky.create"]["found_by"] == "call"
    assert "src/ky.ts:Other.run" not in found


def test_a_bare_name_a_javascript_file_defines_itself_anywhere_is_no_use_of_another_file_s(
    tmp_path: Path,
) -> None:
    _write(
        tmp_path,
        {
            "test/config.js": "describe('x', function () {\n  function fn() { return 1 }\n  app.set(fn);\n});\n",
            "test/other.js": "function setup() {\n  var fn = function () { return 2 };\n  return fn();\n}\n",
        },
    )
    with prooftext.open(tmp_path) as index:
        index.refresh()
        [(node_id,)] = index.conn.execute(
            "SELECT n.id FROM nodes n JOIN files f ON f.id = n.file_id WHERE f.path = 'test/config.js'"
            " AND n.name = 'fn'"
        ).fetchall()
        found = {f"{d['path']}:{d['qualname']}": d["found_by"] for d in who_uses(index, node_id)}
    assert found == {"test/config.js:test/config.js": "reference"}


def test_a_function_assigned_to_a_property_of_module_exports_is_called_through_a_require(
    tmp_path: Path,
) -> None:
    _write(
        tmp_path,
        {
            "lib/util.js": "module.exports.pick = function pick(a) {\n  return a;\n};\n",
            "lib/app.js": "const { pick } = require('./util');\nconst util = require('./util');\n\nfunction run() {\n  return pick(1);\n}\n\nfunction again() {\n  return util.pick(2);\n}\n",
        },
    )
    found = _dependents(tmp_path, "pick")
    assert (found["lib/app.js:run"]["found_by"], found["lib/app.js:again"]["found_by"]) == ("call", "call")


def test_a_name_imported_from_the_definition_s_file_under_an_export_not_followed_stays_possible(
    tmp_path: Path,
) -> None:
    _write(
        tmp_path,
        {
            "lib/util.js": "function pick(a) {\n  return a;\n}\n\nObject.assign(module.exports, { pick });\n",
            "lib/app.js": "const { pick } = require('./util');\n\nfunction run() {\n  return pick(1);\n}\n",
        },
    )
    assert _dependents(tmp_path, "pick")["lib/app.js:run"]["found_by"] == "possible"


def test_a_method_called_through_this_in_a_subclass_is_the_inherited_method(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "src/base.ts": "export class Base {\n  retry() {\n    return 1;\n  }\n}\n",
            "src/http.ts": """
                import { Base as Root } from './base.js';

                export class HttpError extends Root {
                  run() {
                    return this.retry();
                  }
                }

                export class Own extends Root {
                  retry() {
                    return 2;
                  }

                  run() {
                    return this.retry();
                  }
                }
                """,
        },
    )
    found = _dependents(tmp_path, "Base.retry")
    assert found["src/http.ts:HttpError.run"]["found_by"] == "call"
    assert "src/http.ts:Own.run" not in found  # its own override


def test_an_imported_name_spelling_as_inside_it_is_bound_under_its_own_name(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "src/parse.ts": "export function hasKey(a: string) {\n  return a;\n}\n",
            "src/use.ts": "import { hasKey } from './parse.js';\n\nexport function run() {\n  return hasKey('x');\n}\n",
        },
    )
    assert _dependents(tmp_path, "hasKey")["src/use.ts:run"]["found_by"] == "call"


def test_a_javascript_helper_used_only_in_its_own_file_and_never_exported_has_no_importers_as_dependents(
    tmp_path: Path,
) -> None:
    _write(
        tmp_path,
        {
            "lib/util.js": "function helper() {\n  return 1;\n}\n\nexports.run = function run() {\n  return helper();\n};\n",
            "lib/app.js": "const { run } = require('./util');\n\nfunction go() {\n  return run();\n}\n",
        },
    )
    assert set(_dependents(tmp_path, "helper")) == {"lib/util.js:run"}


def test_a_function_passed_on_as_a_member_of_a_required_module_is_a_reference(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "routes/user.js": "exports.list = function (req, res) {\n  res.send(1);\n};\n",
            "support/tmpl.js": "module.exports = function renderFile(name, options, callback) {\n  callback(null, name);\n};\n",
            "index.js": "var user = require('./routes/user');\nvar tmpl = require('./support/tmpl');\n\napp.get('/users', user.list);\napp.engine('tmpl', tmpl);\n",
        },
    )
    assert _dependents(tmp_path, "list")["index.js:index.js"]["found_by"] == "reference"
    assert _dependents(tmp_path, "renderFile")["index.js:index.js"]["found_by"] == "reference"


def test_a_function_declaration_used_before_it_in_its_block_is_that_definition(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "test/json.js": """
                it('first', function () {
                  var app = createApp({ type: accept });

                  function accept(req) {
                    return 1;
                  }
                });

                it('second', function () {
                  var app = createApp({ type: accept });

                  function accept(req) {
                    return 2;
                  }
                });
                """,
        },
    )
    with prooftext.open(tmp_path) as index:
        index.refresh()
        ids = index.conn.execute("SELECT id FROM nodes WHERE name = 'accept' ORDER BY start_line").fetchall()
        lines = [[d["line"] for d in who_uses(index, node_id)] for (node_id,) in ids]
    assert lines == [[2], [10]]
