<?php
// PHP's own reading of PHP files, for bench/symbols_php_bench.py: one JSON line per file argument.
//
// Each line: {"path", "error", "defs": [[qualname, kind, first, last, doc_first, doc]], "imports": [[module, line]]}.
// Definitions come from the php-ast extension (the AST PHP's compiler builds; AST_CLASS with its interface,
// trait and enum flags, AST_FUNC_DECL, AST_METHOD; closures and anonymous classes are not definitions),
// named by the chain of enclosing classes and functions (a method of an anonymous class is named after the
// function holding that class, and is a method). `first` is the first line of its attributes
// or else its own; `last` is its end line. The doc comment is the run of comments (as PHP's tokenizer
// reads them, each alone on its lines) ending on the line directly above `first`, markers and margins
// removed; `doc_first` is that run's first line (else `first`).
// Imports: every `use` element (group prefixes joined, leading `\` dropped) at its statement's line, and
// every include or require whose path is a literal, or a literal joined to __DIR__ or dirname(__FILE__)
// (spelled `./…`) or to dirname(__DIR__) (spelled `./../…`).
//
// Run: php bench/php_oracle/symbols.php FILE... (PHP 8 with the ast extension, Debian's php-ast).

const CLASS_KINDS = [
    ast\flags\CLASS_INTERFACE => 'interface',
    ast\flags\CLASS_TRAIT => 'trait',
    ast\flags\CLASS_ENUM => 'enum',
];

function class_kind(ast\Node $node): string
{
    foreach (CLASS_KINDS as $flag => $kind) {
        if ($node->flags & $flag) {
            return $kind;
        }
    }
    return 'class';
}

// [line => [text, first line]] of each comment token that stands alone on its lines, keyed by its last line.
function comments(string $code): array
{
    $out = [];
    $code_lines = [];
    $tokens = PhpToken::tokenize($code);
    foreach ($tokens as $token) {
        if ($token->is([T_WHITESPACE, T_OPEN_TAG, T_COMMENT, T_DOC_COMMENT])) {
            continue;
        }
        $code_lines[$token->line] = true;
    }
    foreach ($tokens as $i => $token) {
        if (!$token->is([T_COMMENT, T_DOC_COMMENT])) {
            continue;
        }
        $text = rtrim($token->text, "\r\n");
        $last = $token->line + substr_count($text, "\n");
        $before = $tokens[$i - 1] ?? null;
        $alone = !isset($code_lines[$token->line])
            || ($before !== null && $before->is(T_WHITESPACE) && str_contains($before->text, "\n"));
        if (!$alone || ($before !== null && !$before->is([T_WHITESPACE, T_OPEN_TAG]) && $before->line === $token->line)) {
            continue;
        }
        $out[$last] = [$text, $token->line];
    }
    return $out;
}

function clean(string $text): string
{
    $lines = [];
    foreach (preg_split('/\R/', $text) as $line) {
        $line = trim($line);
        $line = preg_replace('~^(/\*\*|/\*|//|#)~', '', $line);
        $line = trim(preg_replace('~\*/$~', '', $line));
        if ($line === '*' || str_starts_with($line, '* ')) {
            $line = trim(substr($line, 1));
        }
        $lines[] = $line;
    }
    return trim(implode("\n", $lines));
}

function doc(int $first, array $comments): array
{
    $texts = [];
    $line = $first;
    while (isset($comments[$line - 1])) {
        [$text, $start] = $comments[$line - 1];
        array_unshift($texts, $text);
        $line = $start;
    }
    return [$line, $texts ? clean(implode("\n", $texts)) : ''];
}

function first_line(ast\Node $node): int
{
    $first = $node->lineno;
    $attributes = $node->children['attributes'] ?? null;
    if ($attributes instanceof ast\Node) {
        $first = min($first, $attributes->lineno);
    }
    return $first;
}

function walk($node, array $scope, array $comments, array &$defs): void
{
    if (!($node instanceof ast\Node)) {
        return;
    }
    $kind = null;
    if ($node->kind === ast\AST_CLASS && !($node->flags & ast\flags\CLASS_ANONYMOUS)) {
        $kind = class_kind($node);
    } elseif ($node->kind === ast\AST_METHOD) {
        $kind = 'method';
    } elseif ($node->kind === ast\AST_FUNC_DECL) {
        $kind = 'function';
    }
    if ($kind !== null) {
        $scope[] = $node->children['name'];
        $first = first_line($node);
        [$doc_first, $doc] = doc($first, $comments);
        $defs[] = [implode('.', $scope), $kind, $first, $node->endLineno, $doc_first, $doc];
    }
    foreach ($node->children as $child) {
        walk($child, $scope, $comments, $defs);
    }
}

function include_path($expr): ?string
{
    if (is_string($expr)) {
        return $expr;
    }
    if (!($expr instanceof ast\Node) || $expr->kind !== ast\AST_BINARY_OP || $expr->flags !== ast\flags\BINARY_CONCAT) {
        return null;
    }
    [$left, $right] = [$expr->children['left'], $expr->children['right']];
    if (!is_string($right) || !str_starts_with($right, '/')) {
        return null;
    }
    $base = directory($left);
    return $base === null ? null : $base . $right;
}

function is_magic($node, int $flag): bool
{
    return $node instanceof ast\Node && $node->kind === ast\AST_MAGIC_CONST && $node->flags === $flag;
}

// '.' for __DIR__ or dirname(__FILE__), './..' for dirname(__DIR__) or dirname(dirname(__FILE__)).
function directory($node): ?string
{
    if (is_magic($node, ast\flags\MAGIC_DIR)) {
        return '.';
    }
    if (!($node instanceof ast\Node) || $node->kind !== ast\AST_CALL) {
        return null;
    }
    $name = $node->children['expr'];
    $args = $node->children['args']->children;
    if (!($name instanceof ast\Node) || $name->kind !== ast\AST_NAME || strtolower($name->children['name']) !== 'dirname' || count($args) !== 1) {
        return null;
    }
    if (is_magic($args[0], ast\flags\MAGIC_FILE)) {
        return '.';
    }
    $inner = directory($args[0]);
    return $inner === '.' ? './..' : null;
}

function imports($node, array &$out): void
{
    if (!($node instanceof ast\Node)) {
        return;
    }
    if ($node->kind === ast\AST_USE) {
        foreach ($node->children as $element) {
            $out[] = [ltrim($element->children['name'], '\\'), $node->lineno];
        }
        return;
    }
    if ($node->kind === ast\AST_GROUP_USE) {
        $prefix = trim($node->children['prefix'], '\\');
        foreach ($node->children['uses']->children as $element) {
            $out[] = [$prefix . '\\' . ltrim($element->children['name'], '\\'), $node->lineno];
        }
        return;
    }
    if ($node->kind === ast\AST_INCLUDE_OR_EVAL && $node->flags !== ast\flags\EXEC_EVAL) {
        $path = include_path($node->children['expr']);
        if ($path !== null && $path !== '') {
            $out[] = [$path, $node->lineno];
        }
    }
    foreach ($node->children as $child) {
        imports($child, $out);
    }
}

foreach (array_slice($argv, 1) as $path) {
    $code = file_get_contents($path);
    $row = ['path' => $path, 'error' => null, 'defs' => [], 'imports' => []];
    try {
        $ast = ast\parse_code($code, 90);
        $defs = [];
        walk($ast, [], comments($code), $defs);
        $found = [];
        imports($ast, $found);
        $row['defs'] = $defs;
        $row['imports'] = $found;
    } catch (Throwable $error) {
        $row['error'] = get_class($error) . ': ' . $error->getMessage();
    }
    echo json_encode($row, JSON_INVALID_UTF8_SUBSTITUTE | JSON_UNESCAPED_SLASHES), "\n";
}
