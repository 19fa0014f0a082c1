//! Rust's own reading of Rust files, for bench/symbols_rust_bench.py: one JSON line per file argument.
//!
//! Each line: {"path", "error", "defs": [[qualname, kind, first, last, doc]], "imports": [[module, line]]}.
//! Definitions are what `syn` (full, visit) parses: fns, structs, enums, unions, traits and their methods,
//! impls (named by their self type's base name: `impl<T> Tr for &Vec<T>` is `Vec`) and their methods and
//! associated types, inline mods, `type` aliases, `macro_rules!` and foreign fns, nested anywhere (items in
//! fn bodies too; nothing inside a macro call's tokens). The qualname is the dotted chain of enclosing
//! definitions; a fn is a `method` when its nearest enclosing definition is an impl or a trait.
//! `first` is the item's first line with its outer attributes and doc comments, extended upwards over the
//! comment lines directly above it (the project's rule); `last` its last line; `doc` the outer `///` and
//! `/** */` comments (not `#[doc = ".."]`), each line trimmed, cut at 2000 characters. Imports: one entry per leaf of a `use` tree,
//! spelled `a::b::c` (a glob `a::b`, a rename by its path, `a::{self}` as `a`), and `self::m` for a `mod m;`.
//!
//! Build and run: see bench/symbols_rust_bench.py.

use proc_macro2::Span;
use std::fmt::Write as _;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

struct Collector<'s> {
    lines: Vec<&'s str>,
    stack: Vec<(String, &'static str)>,
    defs: Vec<(String, &'static str, usize, usize, String)>,
    imports: Vec<(String, usize)>,
}

fn base_type(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default(),
        syn::Type::Reference(r) => base_type(&r.elem),
        syn::Type::Ptr(p) => base_type(&p.elem),
        syn::Type::Slice(s) => base_type(&s.elem),
        syn::Type::Array(a) => base_type(&a.elem),
        syn::Type::Paren(p) => base_type(&p.elem),
        syn::Type::Group(g) => base_type(&g.elem),
        syn::Type::Tuple(t) => t.elems.first().map(base_type).unwrap_or_default(),
        syn::Type::TraitObject(t) => t
            .bounds
            .iter()
            .find_map(|b| match b {
                syn::TypeParamBound::Trait(t) => t.path.segments.last().map(|s| s.ident.to_string()),
                _ => None,
            })
            .unwrap_or_default(),
        _ => String::new(),
    }
}

impl<'s> Collector<'s> {
    fn is_comment_line(&self, line: usize) -> bool {
        let text = self.lines.get(line.wrapping_sub(1)).map(|l| l.trim()).unwrap_or("");
        text.starts_with("//") || text.starts_with("/*") || text.starts_with('*') || text.ends_with("*/")
    }

    fn doc(&self, attrs: &[syn::Attribute]) -> String {
        let mut out: Vec<String> = Vec::new();
        for attr in attrs {
            if !matches!(attr.style, syn::AttrStyle::Outer) || !attr.path.is_ident("doc") {
                continue;
            }
            let start = attr.span().start();
            let src = self.lines.get(start.line - 1).map(|l| &l[start.column.min(l.len())..]).unwrap_or("");
            let block = src.starts_with("/*");
            if !(src.starts_with("//") || block) {
                continue; // `#[doc = ".."]` written out
            }
            if let Ok(syn::Meta::NameValue(nv)) = attr.parse_meta() {
                if let syn::Lit::Str(s) = nv.lit {
                    for line in s.value().split('\n') {
                        let mut t = line.trim();
                        if block && (t == "*" || t.starts_with("* ")) {
                            t = t[1..].trim();
                        }
                        out.push(t.to_string());
                    }
                }
            }
        }
        out.join("\n").trim().chars().take(2000).collect()
    }

    fn emit(&mut self, name: String, kind: &'static str, span: Span, attrs: &[syn::Attribute]) {
        let mut first = span.start().line;
        while first > 1 && self.is_comment_line(first - 1) {
            first -= 1;
        }
        let kind = if kind == "function" && matches!(self.stack.last(), Some((_, "impl")) | Some((_, "trait"))) {
            "method"
        } else {
            kind
        };
        let mut chain: Vec<&str> = self.stack.iter().map(|(n, _)| n.as_str()).collect();
        chain.push(&name);
        let doc = self.doc(attrs);
        self.defs.push((chain.join("."), kind, first, span.end().line, doc));
        self.stack.push((name, kind));
    }

    fn leave(&mut self) {
        self.stack.pop();
    }

    fn use_tree(&mut self, prefix: &str, tree: &syn::UseTree, line: usize) {
        let join = |name: &str| match prefix {
            "" => name.to_string(),
            "::" => format!("::{name}"),
            _ => format!("{prefix}::{name}"),
        };
        match tree {
            syn::UseTree::Path(p) => self.use_tree(&join(&p.ident.to_string()), &p.tree, line),
            syn::UseTree::Name(n) if n.ident == "self" => self.imports.push((prefix.to_string(), line)),
            syn::UseTree::Name(n) => self.imports.push((join(&n.ident.to_string()), line)),
            syn::UseTree::Rename(r) => self.imports.push((join(&r.ident.to_string()), line)),
            syn::UseTree::Glob(_) => self.imports.push((prefix.to_string(), line)),
            syn::UseTree::Group(g) => {
                for item in &g.items {
                    self.use_tree(prefix, item, line);
                }
            }
        }
    }
}

macro_rules! item {
    ($self:ident, $node:ident, $name:expr, $kind:expr, $walk:path) => {{
        $self.emit($name, $kind, $node.span(), &$node.attrs);
        $walk($self, $node);
        $self.leave();
    }};
}

impl<'ast, 's> Visit<'ast> for Collector<'s> {
    fn visit_item_fn(&mut self, i: &'ast syn::ItemFn) {
        item!(self, i, i.sig.ident.to_string(), "function", visit::visit_item_fn)
    }
    fn visit_impl_item_method(&mut self, i: &'ast syn::ImplItemMethod) {
        item!(self, i, i.sig.ident.to_string(), "function", visit::visit_impl_item_method)
    }
    fn visit_trait_item_method(&mut self, i: &'ast syn::TraitItemMethod) {
        item!(self, i, i.sig.ident.to_string(), "function", visit::visit_trait_item_method)
    }
    fn visit_foreign_item_fn(&mut self, i: &'ast syn::ForeignItemFn) {
        item!(self, i, i.sig.ident.to_string(), "function", visit::visit_foreign_item_fn)
    }
    fn visit_item_struct(&mut self, i: &'ast syn::ItemStruct) {
        item!(self, i, i.ident.to_string(), "struct", visit::visit_item_struct)
    }
    fn visit_item_enum(&mut self, i: &'ast syn::ItemEnum) {
        item!(self, i, i.ident.to_string(), "enum", visit::visit_item_enum)
    }
    fn visit_item_union(&mut self, i: &'ast syn::ItemUnion) {
        item!(self, i, i.ident.to_string(), "union", visit::visit_item_union)
    }
    fn visit_item_trait(&mut self, i: &'ast syn::ItemTrait) {
        item!(self, i, i.ident.to_string(), "trait", visit::visit_item_trait)
    }
    fn visit_item_type(&mut self, i: &'ast syn::ItemType) {
        item!(self, i, i.ident.to_string(), "type", visit::visit_item_type)
    }
    fn visit_impl_item_type(&mut self, i: &'ast syn::ImplItemType) {
        item!(self, i, i.ident.to_string(), "type", visit::visit_impl_item_type)
    }
    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        item!(self, i, base_type(&i.self_ty), "impl", visit::visit_item_impl)
    }
    fn visit_item_mod(&mut self, i: &'ast syn::ItemMod) {
        if i.content.is_some() {
            item!(self, i, i.ident.to_string(), "module", visit::visit_item_mod)
        } else {
            self.imports.push((format!("self::{}", i.ident), i.ident.span().start().line));
        }
    }
    fn visit_item_macro(&mut self, i: &'ast syn::ItemMacro) {
        match &i.ident {
            Some(ident) if i.mac.path.is_ident("macro_rules") => {
                item!(self, i, ident.to_string(), "macro", visit::visit_item_macro)
            }
            _ => visit::visit_item_macro(self, i),
        }
    }
    fn visit_item_use(&mut self, i: &'ast syn::ItemUse) {
        let line = i.tree.span().start().line;
        let prefix = if i.leading_colon.is_some() { "::" } else { "" };
        self.use_tree(prefix, &i.tree, line);
    }
}

fn escape(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn main() {
    for path in std::env::args().skip(1) {
        let source = std::fs::read_to_string(&path).unwrap_or_default();
        let mut collector =
            Collector { lines: source.lines().collect(), stack: Vec::new(), defs: Vec::new(), imports: Vec::new() };
        let error = match syn::parse_file(&source) {
            Ok(file) => {
                collector.visit_file(&file);
                String::new()
            }
            Err(e) => e.to_string(),
        };
        let defs: Vec<String> = collector
            .defs
            .iter()
            .map(|(q, k, f, l, d)| format!("[{},{},{},{},{}]", escape(q), escape(k), f, l, escape(d)))
            .collect();
        let imports: Vec<String> =
            collector.imports.iter().map(|(m, l)| format!("[{},{}]", escape(m), l)).collect();
        let error = if error.is_empty() { "false".to_string() } else { escape(&error) };
        println!(
            "{{\"path\":{},\"error\":{},\"defs\":[{}],\"imports\":[{}]}}",
            escape(&path),
            error,
            defs.join(","),
            imports.join(",")
        );
    }
}
