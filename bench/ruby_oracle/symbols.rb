# Ruby's own reading of Ruby files, for bench/symbols_ruby_bench.py: one JSON line per file argument.
#
# Each line: {"path", "error", "defs": [[qualname, kind, first, last, doc_first, doc]], "imports": [[module, line]]}.
# Definitions come from RubyVM::AbstractSyntaxTree (CLASS, MODULE, DEFN, DEFS; a `class << x` body is
# transparent), named by the chain of enclosing classes, modules and methods with `A::B` split at `::`;
# a method is a `method` when its nearest enclosing definition is a class or module, else a `function`.
# The doc comment is the run of comment lines (as Ripper lexes them, each alone on its line) directly
# above the definition's first line, when the definition is the first code on its line or follows only
# method names (`private def x`). Imports are
# receiverless `require`, `require_relative` and `load` calls whose first argument is a plain string
# (`require_relative "x"` spelled `./x`).
#
# Run: ruby bench/ruby_oracle/symbols.rb FILE... (Ruby 2.6 or later, for RubyVM::AbstractSyntaxTree).
require "json"
require "ripper"

AST = RubyVM::AbstractSyntaxTree
CONTAINERS = %i[CLASS MODULE].freeze

def cpath(node)
  case node.type
  when :COLON2
    parent, name = node.children
    (parent.is_a?(AST::Node) ? cpath(parent) : []) + [name.to_s]
  when :COLON3 then [node.children[0].to_s]
  when :CONST then [node.children[0].to_s]
  else [node.source.to_s]
  end
end

# {line => comment text} of the comments alone on their line, {line => column of its first code token}, lines.
def comment_lines(source)
  own = {}
  code_lines = {}
  Ripper.lex(source).each do |(line, col), type, token, _state|
    case type
    when :on_comment, :on_embdoc_beg, :on_embdoc, :on_embdoc_end
      own[line] = token.chomp unless code_lines[line]
    when :on_sp, :on_ignored_nl, :on_nl
      nil
    else
      code_lines[line] ||= col
    end
  end
  [own, code_lines, source.lines]
end

MODIFIERS = /\A\s*(?:[a-z_]\w*\s+)*\z/ # `private def x`, `private memoize def x`

def doc_for(node, lexed)
  comments, code_lines, lines = lexed
  line = node.first_lineno
  before = lines[line - 1].to_s[0, node.first_column]
  # `class E; def e1; end; end`: the comment above is the class's
  return [line, ""] if code_lines.fetch(line, 0) < node.first_column && !MODIFIERS.match?(before)

  texts = []
  current = line - 1
  while comments.key?(current)
    texts.unshift(comments[current])
    current -= 1
  end
  return [line, ""] if texts.empty?
  cleaned = texts.map { |t| t.strip.delete_prefix("#").strip }.join("\n").strip
  [current + 1, cleaned[0, 2000]]
end

def walk(node, stack, out, comments)
  return unless node.is_a?(AST::Node)
  case node.type
  when :CLASS, :MODULE
    parts = cpath(node.children[0])
    kind = node.type == :CLASS ? "class" : "module"
    emit(node, stack + parts, kind, out, comments)
    node.children[1..].each { |child| walk(child, stack + [[parts, kind]], out, comments) }
    return
  when :DEFN, :DEFS
    name = node.type == :DEFN ? node.children[0] : node.children[1]
    kind = stack.last && %w[class module].include?(stack.last[1]) ? "method" : "function"
    emit(node, stack + [name.to_s], kind, out, comments)
    node.children.each { |child| walk(child, stack + [[[name.to_s], kind]], out, comments) }
    return
  end
  node.children.each { |child| walk(child, stack, out, comments) }
end

def emit(node, chain, kind, out, comments)
  names = chain.flat_map { |item| item.is_a?(Array) ? item[0] : [item] }
  doc_first, doc = doc_for(node, comments)
  out[:defs] << [names.join("."), kind, node.first_lineno, node.last_lineno, doc_first, doc]
end

def imports(node, out)
  return unless node.is_a?(AST::Node)
  if node.type == :FCALL && %i[require require_relative load].include?(node.children[0])
    args = node.children[1]
    first = args.is_a?(AST::Node) && args.type == :LIST ? args.children[0] : nil
    if first.is_a?(AST::Node) && first.type == :STR
      target = first.children[0].to_s
      target = "./#{target}" if node.children[0] == :require_relative && !target.start_with?(".")
      out[:imports] << [target, node.first_lineno] unless target.empty?
    end
  end
  node.children.each { |child| imports(child, out) }
end

ARGV.each do |path|
  source = File.read(path, encoding: "UTF-8")
  out = { path: path, error: false, defs: [], imports: [] }
  begin
    root = AST.parse(source)
    walk(root, [], out, comment_lines(source))
    imports(root, out)
  rescue SyntaxError, ArgumentError, EncodingError => e
    out[:error] = e.class.name
  end
  puts JSON.generate(out)
end
