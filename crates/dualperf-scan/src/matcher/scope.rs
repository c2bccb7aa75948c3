//! Which function a token sits in: the name of the nearest enclosing
//! function or method, found by walking back over braces to a block whose
//! header declares one (`boolean isValidAddress(InetAddress a) {`, `async fn
//! process_ipv4<T>(…) -> R {`, `func (s *S) parse(b []byte) {`). Languages
//! without braces (Python) have no enclosing function here.

use super::Matcher;
use crate::language::Language;
use crate::token::TokenKind;

/// Node kinds whose identifier child is a function's or method's name.
const FUNCTION_NODES: &[&str] = &[
    "method_declaration",
    "constructor_declaration",
    "function_item",
    "function_declaration",
    "function_declarator",
    "method_definition",
    "function_definition",
];

/// How far back (in tokens) the walk looks for the enclosing function.
const LOOK_BACK: usize = 4000;

impl<'s> Matcher<'_, 's> {
    /// The index of the name of the function whose body holds token `i`, if
    /// any (at most [`LOOK_BACK`] tokens back).
    pub(super) fn owning_function(&self, i: usize) -> Option<usize> {
        let mut depth = 0usize;
        let lower = i.saturating_sub(LOOK_BACK);
        for j in (lower..i).rev() {
            let t = &self.tokens[j];
            if t.kind != TokenKind::Punct {
                continue;
            }
            match t.text {
                "}" => depth += 1,
                "{" if depth > 0 => depth -= 1,
                "{" => {
                    if let Some(name) = self.function_header(j) {
                        return Some(name);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// The name of the function declared by the header that ends at the
    /// `{` at `open`, if that block is a function body.
    pub(super) fn function_header(&self, open: usize) -> Option<usize> {
        let lower = open.saturating_sub(60);
        for j in (lower..open).rev() {
            let t = &self.tokens[j];
            if t.kind == TokenKind::Punct && matches!(t.text, ";" | "{" | "}") {
                break;
            }
            if t.kind == TokenKind::Ident
                && FUNCTION_NODES.contains(&t.parent_kind)
                && t.node_kind != "type_identifier"
                && self.next_is(j, "(") | self.next_is(j, "<")
            {
                return Some(j);
            }
        }
        if self.context.language.is_c_family() || self.context.language == Language::Java {
            return self.lexed_function_header(open);
        }
        None
    }

    /// Java, C, C++ (lexed without a syntax tree): `NAME(…) [throws …] {`,
    /// where NAME is not a keyword (`if`, `catch`…) and not `new NAME(…) {`.
    fn lexed_function_header(&self, open: usize) -> Option<usize> {
        let close = (open.saturating_sub(16)..open).rev().find(|&j| {
            let t = &self.tokens[j];
            t.is_punct(")") || t.kind == TokenKind::Punct && matches!(t.text, ";" | "{" | "}")
        })?;
        if !self.tokens[close].is_punct(")") {
            return None;
        }
        let name = self.matching_open(close)?.checked_sub(1)?;
        let t = &self.tokens[name];
        let keyword = matches!(
            t.text,
            "if" | "for"
                | "while"
                | "switch"
                | "catch"
                | "synchronized"
                | "try"
                | "return"
                | "foreach"
                | "sizeof"
        );
        let anonymous = name > 0 && self.tokens[name - 1].is_ident("new");
        (t.kind == TokenKind::Ident && !keyword && !anonymous).then_some(name)
    }

    /// The matching `}` of the `{` at `open` (the end of the file if none).
    pub(super) fn closing_brace(&self, open: usize) -> usize {
        let mut depth = 0usize;
        for j in open..self.tokens.len() {
            let t = &self.tokens[j];
            if t.kind != TokenKind::Punct {
                continue;
            }
            match t.text {
                "{" => depth += 1,
                "}" => {
                    depth -= 1;
                    if depth == 0 {
                        return j;
                    }
                }
                _ => {}
            }
        }
        self.tokens.len()
    }

    /// The body of the function named at `name`: the token range from its
    /// `{` to its `}`, if it has one.
    pub(super) fn function_body(&self, name: usize) -> Option<std::ops::Range<usize>> {
        let open = (name..self.tokens.len().min(name + 200)).find(|&j| {
            let t = &self.tokens[j];
            t.is_punct("{") || t.is_punct(";")
        })?;
        if !self.tokens[open].is_punct("{") {
            return None;
        }
        Some(open..self.closing_brace(open))
    }
}
