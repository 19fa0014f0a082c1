"""Rebuilding an index yields the same rows: node ids, edges, uses, imports, links and FTS rows.

The digests of every table (:func:`prooftext.store.digest.table_digests`) of an index of a small tree in
every language the index parses are recorded in ``golden/contents.json``. How a refresh reads, extracts and
writes may change (batching, workers, queries, statements); what it writes may not, unless
``READING_REVISION`` is raised with it. After a deliberate change: raise the revision, regenerate with
``PROOFTEXT_REGEN_GOLDEN=1 pytest tests/store/test_index_contents.py`` and review which tables moved.
"""

from __future__ import annotations

from pathlib import Path

import prooftext
from helpers import check_reading_golden, write_tree
from prooftext.store.digest import table_digests

GOLDEN = Path(__file__).parent / "golden" / "contents.json"

PYTHON = '''"""Geometry helpers."""
from __future__ import annotations

import math
import os.path as osp
from collections import OrderedDict as OD
from .base import Shape, registry
from ..util import helpers


def register(cls):
    """Add ``cls`` to the registry."""
    registry[cls.__name__] = cls
    return cls


@register
class Circle(Shape):
    """A circle of radius ``r``."""

    sides = 0

    def __init__(self, r: float) -> None:
        super().__init__()
        self.r = r

    @property
    def area(self) -> float:
        # pi r squared
        return math.pi * self.r ** 2

    def scaled(self, k):
        def inner(x):
            return helpers.scale(x, k)

        return Circle(inner(self.r)).normalize().area


class Square(Shape):
    def area(self):
        return self.side * self.side


def load(path):
    if osp.exists(path):
        return OD(register=register, circle=Circle(1))
    raise FileNotFoundError(path)
'''

JS = """// Greeting helpers.
import { format } from './format.js';
const util = require('./util');

/** Greets someone. */
export function greet(name) {
  return format(`hi ${name}`, util.upper);
}

export const shout = (name) => greet(name).toUpperCase();

class Box extends Base {
  constructor(size) { super(); this.size = size; }
  open() { return this.size > 0 && util.check(this); }
}

Box.prototype.close = function () { return false; };
module.exports.helper = function helper() { return new Box(1).open(); };
"""

TS = """import { Injectable } from '@angular/core';
import type { Config } from "../config";

export interface Named { name: string; }
export type Id = string | number;
export enum Color { Red, Green }

declare module "legacy" {
  export function old(): void;
}

namespace Space {
  export class Inner implements Named {
    name = "x";
    private handle = (e: Event): void => { console.log(e); };
    run(config: Config): Id { return this.name.length; }
  }
}
"""

TSX = """import React from 'react';

export function Button(props: { label: string }) {
  return <button onClick={() => props.onClick()}>{props.label}</button>;
}
"""

GO = """package geom

import (
\t"fmt"
\tm "math"
)

// Point is a point.
type Point struct {
\tX, Y float64
}

type Shape interface {
\tArea() float64
}

// Dist measures.
func (p *Point) Dist(q Point) float64 {
\treturn m.Hypot(p.X-q.X, p.Y-q.Y)
}

func main() {
\tfmt.Println(Point{1, 2}.Dist(Point{}))
}
"""

RUST = """use std::collections::HashMap;
use crate::shapes::{Area, Shape as S};

/// A counter.
#[derive(Debug, Clone)]
pub struct Counter { counts: HashMap<String, usize> }

pub enum Kind { A, B }

pub trait Count { fn count(&mut self, key: &str) -> usize; }

impl Count for Counter {
    fn count(&mut self, key: &str) -> usize {
        let entry = self.counts.entry(key.to_string()).or_insert(0);
        *entry += 1;
        *entry
    }
}

mod inner {
    pub fn helper() -> u8 { super::other() }
}

macro_rules! square { ($x:expr) => { $x * $x }; }
"""

JAVA = """package com.example;

import java.util.List;
import static java.lang.Math.max;

/** A service. */
@Service
public class Greeter implements Runnable {
    private final List<String> names;

    public Greeter(List<String> names) { this.names = names; }

    @Override
    public void run() {
        for (String n : names) { System.out.println(greet(n)); }
    }

    static String greet(String n) { return "hi " + n + max(1, 2); }

    enum Mode { ON, OFF }
    record Pair(int a, int b) {}
    interface Sink { void put(String s); }
}
"""

C = """#include <stdio.h>
#include "local.h"

/* A pair. */
typedef struct { int a; int b; } pair_t;

struct node { struct node *next; };

static int add(int a, int b) { return a + b; }

int main(void) {
    printf("%d\\n", add(1, 2));
    return 0;
}
"""

CPP = """#include <vector>
#include "shape.hpp"

namespace geo {

template <typename T>
class Box : public Shape {
 public:
  T area() const override { return w * h; }
  T w, h;
};

}  // namespace geo

void geo::Box<int>::grow(int k) { w += k; }

int main() { geo::Box<int> b; b.grow(2); return static_cast<int>(b.area()); }
"""

RUBY = """require 'json'
require_relative 'helpers'

module Greeting
  # Says hello.
  class Greeter < Base
    attr_reader :name

    def initialize(name)
      @name = name
    end

    def greet
      Helpers.format("hi #{name}").to_json
    end

    def self.build(name) = new(name)
  end
end
"""

MARKDOWN = """---
contradicts: [docs/old.md]
---
# Guide

Intro with a [link](install.md) and [anchor](#install) and [outside](https://example.com).

## Install

Run `pip install geometry`. See [the API](../pkg/shapes.py).

```python
import shapes
```

### Deep heading

More text about circle_area and squareArea.

## Usage

Call `Circle(1).area`.
"""

RST = """Title
=====

Text with a `link <guide.md>`_ and :func:`register`.

Section
-------

More.

.. code-block:: python

   print("hi")

Subsection
~~~~~~~~~~

Deeper.
"""

TREE: dict[str, str] = {
    "pkg/shapes.py": PYTHON,
    "pkg/base.py": "registry = {}\n\n\nclass Shape:\n    def normalize(self):\n        return self\n",
    "pkg/__init__.py": "from .shapes import Circle, load\n\n__all__ = ['Circle', 'load']\n",
    "util/helpers.py": "def scale(x, k):\n    return x * k\n",
    "pkg/stubs.pyi": "def load(path: str) -> dict: ...\n",
    "pkg/long_module.py": "".join(f"VALUE_{i} = {i}\n" for i in range(130)),
    "pkg/minified.py": "; ".join(f"f{i} = lambda: {i}" for i in range(40))
    + "\n"
    + "".join(f"def g{i}(): return {i}\n" for i in range(15)),
    "web/app.js": JS,
    "web/format.mjs": "export const format = (s, f) => f(s);\n",
    "web/types.ts": TS,
    "web/button.tsx": TSX,
    "cmd/geom.go": GO,
    "src/lib.rs": RUST,
    "java/Greeter.java": JAVA,
    "c/main.c": C,
    "c/local.h": "#define LOCAL 1\nint add(int a, int b);\n",
    "cpp/box.cpp": CPP,
    "cpp/shape.hpp": "class Shape { public: virtual ~Shape() {} };\n",
    "ruby/greeter.rb": RUBY,
    "docs/guide.md": MARKDOWN,
    "docs/old.md": "# Old\n\nThe old way.\n",
    "docs/install.md": "# Install\n\n" + "".join(f"Step {i} of the install.\n\n" for i in range(120)),
    "docs/index.rst": RST,
    "notes.txt": "plain words\nmore words\n" * 3,
    "config.toml": "[tool]\nname = 'geometry'\n",
    "data.json": '{"a": 1, "b": [1, 2, 3]}\n',
    "deploy.env": 'PASSWORD = "hunter2-correct-horse-battery"\n',
    "empty.py": "",
    "Makefile": "all:\n\tpython -m pkg\n",
}
BINARY = {"blob.bin": b"\x00\x01\x02binary", "latin.txt": "caf\xe9\n".encode("latin-1")}


def build(root: Path) -> dict[str, str]:
    with prooftext.open(write_tree(root, {**TREE, **BINARY})) as index:
        index.refresh()
        return table_digests(index.conn)


def test_a_rebuilt_index_holds_the_recorded_rows(tmp_path: Path) -> None:
    check_reading_golden(
        GOLDEN,
        "tables",
        build(tmp_path),
        lambda old, new: [f"table {t}" for t in sorted(old) if old[t] != new.get(t)],
    )


def test_the_rows_do_not_depend_on_the_refresh_order(tmp_path: Path) -> None:
    """A second store of the same tree, built in two refreshes (half the files first), holds the same rows."""
    first = build(tmp_path / "a")
    root = tmp_path / "b"
    paths = sorted(TREE)
    for path in paths[::2]:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(TREE[path])
    with prooftext.open(root) as index:
        index.refresh()
    assert build(root) == first
