//! A hand-written lexer for C and C++ that yields the same tokens as the
//! tree-sitter path ([`crate::token::tokenize`]) at a fraction of its cost.
//!
//! Tree-sitter's C and C++ grammars spend most of a scan building syntax
//! trees that the matcher only flattens again (about two thirds of the CPU
//! on curl's sources). What the rules need from C is lexical: comments and
//! string literals as single tokens, preprocessor lines told apart
//! (`#ifndef INADDR_NONE` names a macro, a `#define` body is lexed), string
//! tables (`initializer_list`), and the branches that test the address
//! family (`case AF_INET:`, `if (sa->sa_family == AF_INET6) … else …`,
//! `family == AF_INET6 ? … : …`). This module produces exactly that; a test
//! compares it with the tree-sitter tokens on the C fixtures, and
//! `DUALPERF_SCAN_C_GRAMMAR=1` scans C and C++ with tree-sitter instead.

use crate::token::{macro_token, names_a_family, Token, TokenKind};

/// Tokens of a C or C++ source, in source order, with parent kinds and
/// family-branch flags as the tree-sitter path gives them where rules look.
pub fn tokenize_c(source: &str) -> Vec<Token<'_>> {
    tokenize(source, false)
}

/// Tokens of a Java source: Java is lexically C without the preprocessor
/// and with text blocks (`"""..."""`), and its branches and array
/// initializers look the same, so the same lexer serves it (issue 28: a
/// full Java parse cost 25 times ripgrep's time on rocketmq's sources).
/// `DUALPERF_SCAN_JAVA_GRAMMAR=1` scans Java with tree-sitter instead.
pub fn tokenize_java(source: &str) -> Vec<Token<'_>> {
    tokenize(source, true)
}

fn tokenize(source: &str, java: bool) -> Vec<Token<'_>> {
    let mut lexer = Lexer {
        source,
        bytes: source.as_bytes(),
        position: 0,
        line: 0,
        line_start: 0,
        java,
        tokens: Vec::with_capacity(source.len() / 5),
    };
    lexer.run();
    let mut tokens = lexer.tokens;
    mark_initializer_lists(&mut tokens);
    mark_family_branches(&mut tokens);
    tokens
}

struct Lexer<'s> {
    source: &'s str,
    bytes: &'s [u8],
    position: usize,
    line: usize,
    line_start: usize,
    /// Java: no preprocessor, no string prefixes, text blocks.
    java: bool,
    tokens: Vec<Token<'s>>,
}

const PUNCTUATION: &[&str] = &[
    "<<=", ">>=", "...", "->*", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
    "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "::", ".*",
];

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$' || b >= 0x80
}

fn is_ident_continue(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

impl<'s> Lexer<'s> {
    fn peek(&self, offset: usize) -> u8 {
        self.bytes.get(self.position + offset).copied().unwrap_or(0)
    }

    /// Moves to `end`, counting the lines crossed.
    fn advance_to(&mut self, end: usize) {
        let end = end.min(self.bytes.len());
        for (offset, b) in self.bytes[self.position..end].iter().enumerate() {
            if *b == b'\n' {
                self.line += 1;
                self.line_start = self.position + offset + 1;
            }
        }
        self.position = end;
    }

    fn push(
        &mut self,
        kind: TokenKind,
        start: usize,
        node_kind: &'static str,
        parent_kind: &'static str,
    ) {
        let (line, column) = self.position_of(start);
        let end_line = self.line;
        self.tokens.push(Token {
            kind,
            text: &self.source[start..self.position],
            line,
            column,
            end_line,
            node_kind,
            parent_kind,
            in_family_branch: false,
        });
    }

    /// Line and column of `start`, a byte on the current line or earlier
    /// lines of the current token.
    fn position_of(&self, start: usize) -> (usize, usize) {
        if start >= self.line_start {
            return (self.line, start - self.line_start);
        }
        let before = &self.bytes[..start];
        let newlines_after = self.bytes[start..self.position]
            .iter()
            .filter(|b| **b == b'\n')
            .count();
        let line_start = before
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |p| p + 1);
        (self.line - newlines_after, start - line_start)
    }

    fn run(&mut self) {
        let mut at_line_start = true;
        while self.position < self.bytes.len() {
            let b = self.peek(0);
            if b == b'\n' {
                self.advance_to(self.position + 1);
                at_line_start = true;
                continue;
            }
            if b.is_ascii_whitespace() || (b == b'\\' && matches!(self.peek(1), b'\n' | b'\r')) {
                self.position += 1;
                continue;
            }
            if b == b'#' && at_line_start && !self.java {
                self.directive();
                at_line_start = true;
                continue;
            }
            at_line_start = false;
            self.token("", "");
        }
    }

    /// One token at the current position; `in_directive` bodies pass their
    /// parent kind. Returns false at a line end (for directive loops).
    fn token(&mut self, node_kind_hint: &'static str, parent_kind: &'static str) {
        let start = self.position;
        let b = self.peek(0);
        if b == b'/' && self.peek(1) == b'/' {
            let mut end = self.position;
            while end < self.bytes.len() && self.bytes[end] != b'\n' {
                // A backslash at the end of the line continues the comment.
                if self.bytes[end] == b'\\' && self.bytes.get(end + 1) == Some(&b'\n') {
                    end += 1;
                }
                end += 1;
            }
            self.advance_to(end);
            self.push(TokenKind::Comment, start, "comment", parent_kind);
            return;
        }
        if b == b'/' && self.peek(1) == b'*' {
            let end = self.source[start + 2..]
                .find("*/")
                .map_or(self.bytes.len(), |p| start + 2 + p + 2);
            self.advance_to(end);
            self.push(TokenKind::Comment, start, "comment", parent_kind);
            return;
        }
        if let Some((quote_at, raw)) = self.string_prefix() {
            self.string(start, quote_at, raw, parent_kind);
            return;
        }
        if b.is_ascii_digit() || (b == b'.' && self.peek(1).is_ascii_digit()) {
            let mut end = self.position + 1;
            while end < self.bytes.len() {
                let c = self.bytes[end];
                let previous = self.bytes[end - 1];
                let part_of_number = c.is_ascii_alphanumeric()
                    || c == b'_'
                    || c == b'.'
                    // an exponent's sign
                    || (c == b'+' || c == b'-') && matches!(previous, b'e' | b'E' | b'p' | b'P')
                    // a C++14 digit separator
                    || c == b'\''
                        && previous.is_ascii_hexdigit()
                        && self.bytes.get(end + 1).is_some_and(u8::is_ascii_hexdigit);
                if !part_of_number {
                    break;
                }
                end += 1;
            }
            self.advance_to(end);
            let node = if node_kind_hint.is_empty() {
                "number_literal"
            } else {
                node_kind_hint
            };
            self.push(TokenKind::Number, start, node, parent_kind);
            return;
        }
        if is_ident_start(b) {
            let mut end = self.position + 1;
            while end < self.bytes.len() && is_ident_continue(self.bytes[end]) {
                end += 1;
            }
            // Keep multi-byte characters whole.
            while !self.source.is_char_boundary(end) {
                end += 1;
            }
            self.advance_to(end);
            let node = if node_kind_hint.is_empty() {
                "identifier"
            } else {
                node_kind_hint
            };
            self.push(TokenKind::Ident, start, node, parent_kind);
            return;
        }
        let rest = &self.source[self.position..];
        let length = PUNCTUATION
            .iter()
            .find(|p| rest.starts_with(**p))
            .map_or_else(
                || rest.chars().next().map_or(1, char::len_utf8),
                |p| p.len(),
            );
        self.advance_to(self.position + length);
        let node = if node_kind_hint.is_empty() {
            "punctuation"
        } else {
            node_kind_hint
        };
        self.push(TokenKind::Punct, start, node, parent_kind);
    }

    /// If a string or character literal starts here (with its `L`, `u`,
    /// `U`, `u8` or `R` prefix), the offset of its quote and whether it is raw.
    fn string_prefix(&self) -> Option<(usize, bool)> {
        let rest = &self.bytes[self.position..];
        if self.java {
            return matches!(rest.first(), Some(b'"' | b'\'')).then_some((self.position, false));
        }
        for prefix in [&b""[..], b"L", b"u8", b"u", b"U"] {
            if !rest.starts_with(prefix) {
                continue;
            }
            let after = &rest[prefix.len()..];
            match after.first() {
                Some(b'"' | b'\'') => return Some((self.position + prefix.len(), false)),
                Some(b'R') if after.get(1) == Some(&b'"') => {
                    return Some((self.position + prefix.len() + 1, true))
                }
                _ => {}
            }
        }
        None
    }

    fn string(&mut self, start: usize, quote_at: usize, raw: bool, parent_kind: &'static str) {
        let quote = self.bytes[quote_at];
        let text_block = self.java && self.bytes[quote_at..].starts_with(b"\"\"\"");
        let end = if text_block {
            self.source[quote_at + 3..]
                .find("\"\"\"")
                .map_or(self.bytes.len(), |p| quote_at + 3 + p + 3)
        } else if raw {
            // R"delim( ... )delim"
            let open = self.source[quote_at..].find('(').map(|p| quote_at + p);
            match open {
                Some(open) => {
                    let delimiter = &self.source[quote_at + 1..open];
                    let closing = format!("){delimiter}\"");
                    self.source[open..]
                        .find(&closing)
                        .map_or(self.bytes.len(), |p| open + p + closing.len())
                }
                None => self.bytes.len(),
            }
        } else {
            let mut end = quote_at + 1;
            while end < self.bytes.len() {
                match self.bytes[end] {
                    b'\\' => end += 2,
                    b'\n' => break, // unterminated: stop at the line end
                    c if c == quote => {
                        end += 1;
                        break;
                    }
                    _ => end += 1,
                }
            }
            end.min(self.bytes.len())
        };
        self.advance_to(end);
        let node = match (quote, raw) {
            _ if text_block => "text_block",
            (_, true) => "raw_string_literal",
            (b'\'', _) => "char_literal",
            _ => "string_literal",
        };
        self.push(TokenKind::Str, start, node, parent_kind);
    }

    /// A preprocessor line: the directive as one punctuation token, then its
    /// arguments with the parent kinds tree-sitter gives them.
    fn directive(&mut self) {
        let start = self.position;
        let mut end = self.position + 1;
        while end < self.bytes.len() && matches!(self.bytes[end], b' ' | b'\t') {
            end += 1;
        }
        while end < self.bytes.len() && self.bytes[end].is_ascii_alphanumeric() {
            end += 1;
        }
        let name: String = self.source[start..end]
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        self.advance_to(end);
        let (parent, body_parent, body_node): (&'static str, &'static str, &'static str) =
            match name.as_str() {
                "#else" | "#endif" => ("preproc_if", "preproc_if", ""),
                "#include" | "#include_next" | "#import" => {
                    ("preproc_include", "preproc_include", "")
                }
                "#ifdef" | "#ifndef" => ("preproc_ifdef", "preproc_ifdef", ""),
                "#if" | "#elif" => ("preproc_if", "preproc_if", ""),
                "#define" => ("preproc_def", "preproc_def", "preproc_arg"),
                _ => ("preproc_call", "preproc_def", "preproc_arg"),
            };
        self.push(TokenKind::Punct, start, "preproc_directive", parent);
        if name == "#define" {
            self.define();
            return;
        }
        let mut defined_depth: Option<usize> = None;
        while let Some(b) = self.line_byte() {
            if b.is_ascii_whitespace() || b == b'\\' {
                self.position += 1;
                if b == b'\\' {
                    self.skip_continuation();
                }
                continue;
            }
            let before = self.tokens.len();
            let parent_kind = if defined_depth.is_some() {
                "preproc_defined"
            } else {
                body_parent
            };
            if parent == "preproc_include" && b == b'<' {
                let end = self.source[self.position..]
                    .find(['>', '\n'])
                    .map_or(self.bytes.len(), |p| self.position + p + 1);
                let start = self.position;
                self.advance_to(end);
                self.push(TokenKind::Str, start, "system_lib_string", parent_kind);
                continue;
            }
            if body_node == "preproc_arg" {
                self.macro_token(parent_kind);
                continue;
            }
            self.token("", parent_kind);
            // `defined(X)` / `defined X`: X's parent is preproc_defined.
            let token = &self.tokens[before];
            if token.is_ident("defined") && parent == "preproc_if" {
                self.tokens[before].parent_kind = "preproc_defined";
                defined_depth = Some(0);
            } else if let Some(depth) = defined_depth {
                match token.text {
                    "(" => defined_depth = Some(depth + 1),
                    ")" => {
                        defined_depth = if depth <= 1 { None } else { Some(depth - 1) };
                    }
                    _ if depth == 0 && token.kind == TokenKind::Ident => defined_depth = None,
                    _ => {}
                }
            }
        }
    }

    /// One token of a macro body or directive argument, split exactly as
    /// the tree-sitter path splits a `preproc_arg` (see `token.rs`).
    fn macro_token(&mut self, parent_kind: &'static str) {
        let start = self.position;
        let bytes = self.bytes;
        let (kind, i) = macro_token(bytes, start);
        self.advance_to(i);
        self.push(kind, start, "preproc_arg", parent_kind);
    }

    /// `#define NAME body` / `#define NAME(params) body`.
    fn define(&mut self) {
        self.skip_blanks();
        if self.line_byte().is_none() {
            return;
        }
        let name_at = self.tokens.len();
        self.token("", "preproc_def");
        let function_like = self.peek(0) == b'(';
        if function_like {
            self.tokens[name_at].parent_kind = "preproc_function_def";
            while let Some(b) = self.line_byte() {
                if b.is_ascii_whitespace() {
                    self.position += 1;
                    continue;
                }
                self.token("", "preproc_params");
                if b == b')' {
                    break;
                }
            }
        }
        while let Some(b) = self.line_byte() {
            if b.is_ascii_whitespace() || b == b'\\' {
                self.position += 1;
                if b == b'\\' {
                    self.skip_continuation();
                }
                continue;
            }
            self.macro_token("preproc_def");
        }
    }

    fn skip_blanks(&mut self) {
        while matches!(self.peek(0), b' ' | b'\t') {
            self.position += 1;
        }
    }

    /// After a backslash: a following line break continues the directive.
    fn skip_continuation(&mut self) {
        if self.peek(0) == b'\r' {
            self.position += 1;
        }
        if self.peek(0) == b'\n' {
            self.advance_to(self.position + 1);
        }
    }

    /// The next byte of the current (logical) line, if any.
    fn line_byte(&self) -> Option<u8> {
        match self.bytes.get(self.position) {
            None | Some(b'\n') => None,
            Some(b) => Some(*b),
        }
    }
}

/// The index of the bracket matching each opening or closing bracket.
fn matching_brackets(tokens: &[Token<'_>]) -> Vec<Option<usize>> {
    let mut matches = vec![None; tokens.len()];
    let mut stack: Vec<usize> = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        if t.kind != TokenKind::Punct {
            continue;
        }
        match t.text {
            "(" | "[" | "{" => stack.push(i),
            ")" | "]" | "}" => {
                let open = match t.text {
                    ")" => "(",
                    "]" => "[",
                    _ => "{",
                };
                // Unbalanced code (macros): drop unmatched openers of other kinds.
                while let Some(&top) = stack.last() {
                    if tokens[top].text == open {
                        break;
                    }
                    stack.pop();
                }
                if let Some(top) = stack.pop() {
                    matches[top] = Some(i);
                    matches[i] = Some(top);
                }
            }
            _ => {}
        }
    }
    matches
}

/// Braces that open an initializer (`= {`, nested inside one) make their
/// direct contents children of an `initializer_list`.
fn mark_initializer_lists(tokens: &mut [Token<'_>]) {
    let mut stack: Vec<bool> = Vec::new();
    for i in 0..tokens.len() {
        let (kind, text) = (tokens[i].kind, tokens[i].text);
        if kind == TokenKind::Punct && text == "{" {
            let previous = i.checked_sub(1).map(|j| &tokens[j]);
            let initializer = previous.is_some_and(|p| p.is_punct("=") || p.is_ident("return"))
                || stack.last().copied().unwrap_or(false)
                    && previous.is_some_and(|p| p.is_punct("{") || p.is_punct(","));
            if stack.last().copied().unwrap_or(false) {
                tokens[i].parent_kind = "initializer_list";
            }
            stack.push(initializer);
            if initializer {
                tokens[i].parent_kind = "initializer_list";
            }
            continue;
        }
        if kind == TokenKind::Punct && text == "}" {
            if stack.pop().unwrap_or(false) {
                tokens[i].parent_kind = "initializer_list";
            }
            continue;
        }
        if stack.last().copied().unwrap_or(false) && tokens[i].parent_kind.is_empty() {
            tokens[i].parent_kind = "initializer_list";
        }
    }
}

/// Flags the tokens of `if` statements, `case` sections and `?:`
/// expressions whose condition tests the address family.
fn mark_family_branches(tokens: &mut [Token<'_>]) {
    let brackets = matching_brackets(tokens);
    let condition_names_family = |tokens: &[Token<'_>], range: std::ops::Range<usize>| {
        // The condition's text as tree-sitter sees it (`(b[0] >> 4) == 4`
        // is a family test only as a whole).
        range.len() < 120 && {
            let condition = &tokens[range];
            condition.iter().any(|t| names_a_family(t.text.as_bytes()))
                || condition
                    .iter()
                    .any(|t| t.text == ">>" || t.text.contains("ersion"))
                    && {
                        let text: Vec<&str> = condition.iter().map(|t| t.text).collect();
                        names_a_family(text.join(" ").as_bytes())
                    }
        }
    };
    let mut flags: Vec<(usize, usize)> = Vec::new();
    for i in 0..tokens.len() {
        let t = &tokens[i];
        if t.node_kind == "preproc_arg" {
            continue; // macro bodies are opaque to the grammar too
        }
        if t.is_ident("if") && tokens.get(i + 1).is_some_and(|n| n.is_punct("(")) {
            let Some(close) = brackets[i + 1] else {
                continue;
            };
            if condition_names_family(tokens, i + 2..close) {
                let end = if_end(tokens, &brackets, i);
                flags.push((i, end));
            }
        } else if t.is_ident("case") {
            let Some(colon) = (i + 1..tokens.len().min(i + 40)).find(|&j| tokens[j].is_punct(":"))
            else {
                continue;
            };
            if condition_names_family(tokens, i + 1..colon) {
                flags.push((i, case_end(tokens, &brackets, colon + 1)));
            }
        } else if t.is_punct("?") {
            let start = expression_start(tokens, &brackets, i);
            if condition_names_family(tokens, start..i) {
                flags.push((start, expression_end(tokens, &brackets, i)));
            }
        }
    }
    let last = tokens.len().saturating_sub(1);
    for (start, end) in flags {
        for token in &mut tokens[start..=end.min(last)] {
            token.in_family_branch = true;
        }
    }
}

/// The last token of the statement starting at `i`.
fn statement_end(tokens: &[Token<'_>], brackets: &[Option<usize>], i: usize) -> usize {
    let Some(t) = tokens.get(i) else {
        return tokens.len().saturating_sub(1);
    };
    if t.is_punct("{") {
        return brackets[i].unwrap_or(tokens.len() - 1);
    }
    if t.is_ident("if") {
        return if_end(tokens, brackets, i);
    }
    if (t.is_ident("for") || t.is_ident("while") || t.is_ident("switch"))
        && tokens.get(i + 1).is_some_and(|n| n.is_punct("("))
    {
        if let Some(close) = brackets[i + 1] {
            return statement_end(tokens, brackets, close + 1);
        }
    }
    let mut j = i;
    while j < tokens.len() {
        let u = &tokens[j];
        if u.is_punct(";") {
            return j;
        }
        if u.is_punct("}") {
            return j.saturating_sub(1);
        }
        if matches!(u.text, "(" | "[" | "{") && u.kind == TokenKind::Punct {
            if let Some(close) = brackets[j] {
                j = close;
            }
        }
        j += 1;
    }
    tokens.len() - 1
}

/// The last token of the `if` statement at `i`, `else` branches included.
fn if_end(tokens: &[Token<'_>], brackets: &[Option<usize>], i: usize) -> usize {
    let Some(close) = tokens.get(i + 1).and_then(|_| brackets[i + 1]) else {
        return i;
    };
    let body_end = statement_end(tokens, brackets, close + 1);
    if tokens.get(body_end + 1).is_some_and(|t| t.is_ident("else")) {
        return statement_end(tokens, brackets, body_end + 2);
    }
    body_end
}

/// The last token of a `case` section: before the next `case`/`default`
/// of the same switch, or before its closing brace.
fn case_end(tokens: &[Token<'_>], brackets: &[Option<usize>], mut j: usize) -> usize {
    while j < tokens.len() {
        let t = &tokens[j];
        if t.is_ident("case") || t.is_ident("default") || t.is_punct("}") {
            return j.saturating_sub(1);
        }
        if t.kind == TokenKind::Punct && matches!(t.text, "(" | "[" | "{") {
            if let Some(close) = brackets[j] {
                j = close;
            }
        }
        j += 1;
    }
    tokens.len() - 1
}

/// The first token of the expression whose `?` is at `i`.
fn expression_start(tokens: &[Token<'_>], brackets: &[Option<usize>], i: usize) -> usize {
    let mut j = i;
    while j > 0 {
        let t = &tokens[j - 1];
        if t.kind == TokenKind::Punct {
            match t.text {
                ")" | "]" => {
                    if let Some(open) = brackets[j - 1] {
                        j = open;
                        continue;
                    }
                }
                "(" | "[" | "{" | "}" | ";" | "," | "=" | "return" | "?" | ":" => return j,
                _ => {}
            }
        } else if t.is_ident("return") {
            return j;
        }
        j -= 1;
    }
    0
}

/// The last token of the `?:` expression whose `?` is at `i`.
fn expression_end(tokens: &[Token<'_>], brackets: &[Option<usize>], i: usize) -> usize {
    let mut j = i + 1;
    let mut colons = 0;
    while j < tokens.len() {
        let t = &tokens[j];
        if t.kind == TokenKind::Punct {
            match t.text {
                "(" | "[" | "{" => {
                    if let Some(close) = brackets[j] {
                        j = close + 1;
                        continue;
                    }
                }
                ")" | "]" | "}" | ";" | "," => return j - 1,
                ":" => {
                    colons += 1;
                    if colons > 1 {
                        return j - 1;
                    }
                }
                _ => {}
            }
        }
        j += 1;
    }
    tokens.len() - 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::tokenize;

    fn tree_sitter_tokens(source: &str, cpp: bool) -> Vec<(TokenKind, String, usize, usize, bool)> {
        let mut parser = tree_sitter::Parser::new();
        let language = if cpp {
            tree_sitter_cpp::LANGUAGE.into()
        } else {
            tree_sitter_c::LANGUAGE.into()
        };
        parser.set_language(&language).expect("grammar loads");
        let tree = parser.parse(source, None).expect("parser returns a tree");
        tokenize(&tree, source)
            .into_iter()
            .filter(|t| !(t.kind == TokenKind::Punct && t.text.trim().is_empty()))
            .map(|t| {
                (
                    t.kind,
                    t.text.to_string(),
                    t.line,
                    t.column,
                    t.in_family_branch,
                )
            })
            .collect()
    }

    fn lexed(source: &str) -> Vec<(TokenKind, String, usize, usize, bool)> {
        tokenize_c(source)
            .into_iter()
            .map(|t| {
                (
                    t.kind,
                    t.text.to_string(),
                    t.line,
                    t.column,
                    t.in_family_branch,
                )
            })
            .collect()
    }

    #[test]
    fn the_lexer_agrees_with_tree_sitter_on_the_c_and_cpp_fixtures() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures");
        let mut compared = 0;
        for entry in walk(std::path::Path::new(root)) {
            let cpp = entry.extension().is_some_and(|e| e == "cpp");
            if !(cpp || entry.extension().is_some_and(|e| e == "c")) {
                continue;
            }
            let source = std::fs::read_to_string(&entry).expect("fixture reads");
            let ours = lexed(&source);
            // tree-sitter-c reads a signed literal (`-1`) as one token.
            let theirs: Vec<_> = tree_sitter_tokens(&source, cpp)
                .into_iter()
                .flat_map(|(kind, text, line, column, flag)| {
                    let signed = text.len() > 1
                        && (text.starts_with('-') || text.starts_with('+'))
                        && text.as_bytes()[1].is_ascii_digit();
                    if signed {
                        vec![
                            (TokenKind::Punct, text[..1].to_string(), line, column, flag),
                            (
                                TokenKind::Number,
                                text[1..].to_string(),
                                line,
                                column + 1,
                                flag,
                            ),
                        ]
                    } else {
                        vec![(kind, text, line, column, flag)]
                    }
                })
                .collect();
            let first_difference = ours.iter().zip(&theirs).position(|(a, b)| a != b);
            if let Some(at) = first_difference
                .or((ours.len() != theirs.len()).then_some(ours.len().min(theirs.len())))
            {
                panic!(
                    "{}: token {at} differs: lexer {:?}, tree-sitter {:?}",
                    entry.display(),
                    ours.get(at.saturating_sub(2)..(at + 3).min(ours.len())),
                    theirs.get(at.saturating_sub(2)..(at + 3).min(theirs.len()))
                );
            }
            compared += 1;
        }
        assert!(compared >= 20, "only {compared} C/C++ fixtures compared");
    }

    #[test]
    fn the_java_lexer_agrees_with_tree_sitter_on_the_java_fixtures() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures");
        let mut compared = 0;
        for entry in walk(std::path::Path::new(root)) {
            if entry.extension().is_none_or(|e| e != "java") {
                continue;
            }
            let source = std::fs::read_to_string(&entry).expect("fixture reads");
            let mut parser = tree_sitter::Parser::new();
            parser
                .set_language(&tree_sitter_java::LANGUAGE.into())
                .expect("grammar loads");
            let tree = parser.parse(&source, None).expect("parser returns a tree");
            let shape = |t: &Token<'_>| {
                (
                    t.kind,
                    t.text.to_string(),
                    t.line,
                    t.column,
                    t.in_family_branch,
                )
            };
            let theirs: Vec<_> = tokenize(&tree, &source).iter().map(shape).collect();
            let ours: Vec<_> = tokenize_java(&source).iter().map(shape).collect();
            assert_eq!(ours, theirs, "{}", entry.display());
            compared += 1;
        }
        assert!(compared >= 5, "only {compared} Java fixtures compared");
    }

    #[test]
    fn java_text_blocks_are_one_string_and_hash_is_not_a_directive() {
        let source = "class A {\n  String s = \"\"\"\n    host: \"10.0.0.1\"\n    \"\"\";\n  int x = 1; // #define\n}\n";
        let tokens = tokenize_java(source);
        let strings: Vec<&str> = tokens
            .iter()
            .filter(|t| t.kind == TokenKind::Str)
            .map(|t| t.text)
            .collect();
        assert_eq!(strings, ["\"\"\"\n    host: \"10.0.0.1\"\n    \"\"\""]);
        assert_eq!(
            tokens.iter().find(|t| t.text == "int").map(|t| t.line),
            Some(4)
        );
    }

    fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
        let mut files = Vec::new();
        for entry in std::fs::read_dir(dir).expect("fixtures directory reads") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                files.extend(walk(&path));
            } else {
                files.push(path);
            }
        }
        files
    }

    #[test]
    fn preprocessor_parents_match_the_grammar() {
        let source = "#ifndef INADDR_NONE\n#define INADDR_NONE 0xffffffff\n#endif\n#if defined(AF_INET6) && X\n#undef AF_INET\n#endif\n#define F(a) inet_addr(a)\nconst char *l[] = { \"1.2.3.4\", \"a\" };\n";
        let tokens = tokenize_c(source);
        let parent_of = |text: &str, nth: usize| {
            tokens
                .iter()
                .filter(|t| t.text == text)
                .nth(nth)
                .map(|t| t.parent_kind)
                .unwrap_or("?")
        };
        assert_eq!(parent_of("INADDR_NONE", 0), "preproc_ifdef");
        assert_eq!(parent_of("INADDR_NONE", 1), "preproc_def");
        assert_eq!(parent_of("AF_INET6", 0), "preproc_defined");
        assert_eq!(parent_of("X", 0), "preproc_if");
        assert_eq!(parent_of("AF_INET", 0), "preproc_def");
        assert_eq!(parent_of("F", 0), "preproc_function_def");
        assert_eq!(parent_of("inet_addr", 0), "preproc_def");
        assert_eq!(parent_of("\"1.2.3.4\"", 0), "initializer_list");
    }

    #[test]
    fn family_branches_cover_if_else_case_and_conditional() {
        let source = "void f(int family, struct sockaddr *sa) {\n  if (sa->sa_family == AF_INET6) { a(); } else { b(); }\n  switch (family) {\n  case AF_INET: c(); break;\n  default: d();\n  }\n  e(family == AF_INET6 ? AF_INET6 : AF_INET);\n  g();\n}\n";
        let tokens = tokenize_c(source);
        let flagged = |name: &str| {
            tokens
                .iter()
                .find(|t| t.text == name)
                .is_some_and(|t| t.in_family_branch)
        };
        assert!(flagged("a") && flagged("b") && flagged("c"));
        assert!(!flagged("d") && !flagged("g") && !flagged("e"));
        let last_inet = tokens.iter().rev().find(|t| t.text == "AF_INET").unwrap();
        assert!(last_inet.in_family_branch);
    }
}
