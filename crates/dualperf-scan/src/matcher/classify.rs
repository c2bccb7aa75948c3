//! Code that classifies an address in a way only IPv4 passes, seen where
//! the decision is used rather than where the pattern is written:
//!
//! - a call of a validator this file defines on a dotted-quad pattern
//!   (`isValidAddress(localAddress)` whose body matches `IP_PATTERN`,
//!   `\d{1,3}(\.\d{1,3}){3}`): an IPv6 address is never valid (RFC 4291
//!   §2.2 text has colons);
//! - a comparison with a constant this file sets to an IPv4 literal
//!   (`s.equals(HOSTIP)` with `HOSTIP = "127.0.0.1"`): the IPv6 loopback
//!   `::1` (RFC 4291 §2.5.3) fails the test;
//! - a multicast test on the first octet's range, 224–239 (`p >= 224 && p
//!   <= 239`, `(b & 0xF0) == 0xE0`; 224.0.0.0/4, RFC 5771): IPv6 multicast
//!   is ff00::/8 (RFC 4291 §2.7).

use super::{HashSet, Matcher};
use crate::literal::find_ipv4_literals;
use crate::rule::Severity;
use crate::token::TokenKind;

/// What the token pass saw that the passes after it need: each of those
/// walks the whole file, so it runs only when its hint was seen.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Hints {
    /// A string holds an IPv4 literal (constants set to one).
    pub(super) ipv4_literal: bool,
    /// A number a packet decoder's gate uses: `== 4`, `* 4`, `<< 2`, 0x0800.
    pub(super) decoder: bool,
}

impl<'s> Matcher<'_, 's> {
    /// After every token was matched: the calls of this file's dotted-quad
    /// validators and the comparisons with its IPv4-literal constants.
    pub(super) fn check_classifiers(&mut self) {
        self.check_validator_calls();
        if self.hints.ipv4_literal {
            self.check_literal_constant_compares();
        }
        if self.idents.contains("compile") {
            self.check_dot_pattern_split();
        }
        if self.hints.decoder || self.idents.contains("ETH_P_IP") {
            self.check_decoder_gates();
        }
    }

    /// Notes a number that a packet decoder's gate would use.
    pub(super) fn note_decoder_hint(&mut self, i: usize) {
        if self.hints.decoder {
            return;
        }
        let gate = match self.tokens[i].text {
            "4" => self.previous_is(i, "==") || self.previous_is(i, "*"),
            "2" => self.previous_is(i, "<<"),
            text => text.eq_ignore_ascii_case("0x800") || text.eq_ignore_ascii_case("0x0800"),
        };
        self.hints.decoder = gate;
    }

    /// An address split with a constant compiled from a dot pattern
    /// (`PATTERN_DOT = Pattern.compile("\\.")` .. `PATTERN_DOT.split(ip)`,
    /// `DOT = re.compile(r"\.")` .. `DOT.split(addr)`): its dotted-quad parts.
    fn check_dot_pattern_split(&mut self) {
        let mut constants: HashSet<&'s str> = HashSet::default();
        for i in 2..self.tokens.len() {
            let t = &self.tokens[i];
            if t.kind != TokenKind::Str
                || !matches!(t.string_content(), "\\." | "\\\\." | "[.]")
                || !self.previous_is(i, "(")
                || self.text_at(i - 2) != "compile"
            {
                continue;
            }
            if let Some(name) = self.assigned_name(i) {
                constants.insert(self.tokens[name].text);
            }
        }
        if constants.is_empty() {
            return;
        }
        let mut splits = Vec::new();
        for j in 0..self.tokens.len().saturating_sub(5) {
            let t = &self.tokens[j];
            if t.kind == TokenKind::Ident
                && constants.contains(t.text)
                && self.next_is(j, ".")
                && self.text_at(j + 2) == "split"
                && self.text_at(j + 3) == "("
                && self.text_at(j + 5) == ")"
                && super::is_address_name(self.text_at(j + 4))
            {
                splits.push(j);
            }
        }
        for j in splits {
            let name = self.tokens[j].text;
            let address = self.text_at(j + 4);
            self.push("dotted-quad-text", Severity::Warning, j, format!("`{name}.split({address})` takes an address apart at its dots: only IPv4 text has four dotted parts; parse with InetAddress/inet_pton/net.ParseIP for both families"));
        }
    }

    /// Calls of a function whose body holds a dotted-quad pattern (or uses
    /// a constant set to one), outside that body.
    fn check_validator_calls(&mut self) {
        let pattern_tokens = std::mem::take(&mut self.dotted_patterns);
        if pattern_tokens.is_empty() {
            return;
        }
        let mut validators: Vec<(usize, &'s str)> = Vec::new();
        let mut constants: HashSet<&'s str> = HashSet::default();
        for &at in &pattern_tokens {
            match self.owning_function(at) {
                Some(owner) => validators.push((owner, self.tokens[owner].text)),
                None => {
                    if let Some(name) = self.assigned_name(at) {
                        constants.insert(self.tokens[name].text);
                    }
                }
            }
        }
        if !constants.is_empty() {
            for j in 0..self.tokens.len() {
                let t = &self.tokens[j];
                if t.kind == TokenKind::Ident && constants.contains(t.text) {
                    if let Some(owner) = self.owning_function(j) {
                        validators.push((owner, self.tokens[owner].text));
                    }
                }
            }
        }
        // An IPv4-named validator (`isIPv4`) is reported by ipv4-named-api.
        validators.retain(|(_, name)| super::uses::ipv4_named(name).is_none());
        if validators.is_empty() {
            return;
        }
        let bodies: Vec<(&str, std::ops::Range<usize>)> = validators
            .iter()
            .filter_map(|&(owner, name)| Some((name, self.function_body(owner)?)))
            .collect();
        let severity = self.note_beside_ipv6_path();
        for j in 0..self.tokens.len() {
            let t = &self.tokens[j];
            if t.kind != TokenKind::Ident
                || !self.next_is(j, "(")
                || !bodies.iter().any(|(name, _)| *name == t.text)
                || bodies.iter().any(|(_, body)| body.contains(&j))
                || validators.iter().any(|&(owner, _)| owner == j)
                || self.previous_is(j, "new")
                || self.declares(j)
                || self
                    .owning_function(j)
                    .is_some_and(|o| self.tokens[o].text == t.text)
            {
                continue;
            }
            let name = t.text;
            self.push("dotted-quad-text", severity, j, format!("`{name}` accepts an address only when it matches a dotted-quad (IPv4) pattern, so an IPv6 address is refused here; check the address with InetAddress/inet_pton/net.ParseIP for both families"));
        }
    }

    /// Note in a file with an IPv6 path (the finding may be its IPv4
    /// half), warning otherwise.
    fn note_beside_ipv6_path(&self) -> Severity {
        if self.has_ipv6_path {
            Severity::Note
        } else {
            Severity::Warning
        }
    }

    /// Comparisons with a name this file sets to an IPv4 literal: `==`,
    /// `!=`, `equals`/`equalsIgnoreCase` on either side.
    fn check_literal_constant_compares(&mut self) {
        let mut constants: Vec<(&'s str, usize, String)> = Vec::new();
        for i in 0..self.tokens.len() {
            let t = &self.tokens[i];
            let ends = self
                .tokens
                .get(i + 1)
                .is_none_or(|n| n.line > t.line || n.is_punct(";") || n.is_punct(","));
            if t.kind != TokenKind::Str || !self.previous_is(i, "=") || !ends {
                continue;
            }
            let content = t.string_content();
            let literals = find_ipv4_literals(content);
            if literals.len() != 1 || content.len() > 15 {
                continue;
            }
            if let Some(name) = self.assigned_name(i) {
                if self.tokens[name].line == t.line && self.is_constant(name) {
                    constants.push((self.tokens[name].text, name, content.to_string()));
                }
            }
        }
        if constants.is_empty() {
            return;
        }
        let severity = self.note_beside_ipv6_path();
        for j in 0..self.tokens.len() {
            let t = &self.tokens[j];
            if t.kind != TokenKind::Ident {
                continue;
            }
            let Some((name, declared, value)) = constants
                .iter()
                .find(|(name, declared, _)| *name == t.text && *declared != j)
                .cloned()
            else {
                continue;
            };
            let equals = |k: usize| matches!(self.text_at(k), "equals" | "equalsIgnoreCase");
            let compared = self.previous_is(j, "==")
                || self.previous_is(j, "!=")
                || self.next_is(j, "==")
                || self.next_is(j, "!=")
                || j >= 2 && self.previous_is(j, "(") && equals(j - 2) && self.next_is(j, ")")
                || self.next_is(j, ".") && equals(j + 2);
            if compared {
                let line = self.tokens[declared].line + 1;
                self.push("ipv4-literal", severity, j, format!("compared with `{name}` (\"{value}\", set at line {line}): an IPv4-only test that an IPv6 address (::1, ::) never passes; test the address itself (isLoopbackAddress, is_loopback, IsLoopback) or also compare with its IPv6 twin"));
            }
        }
    }

    /// The name assigned on the statement of token `i` (`NAME = …`), if any.
    pub(super) fn assigned_name(&self, i: usize) -> Option<usize> {
        let lower = i.saturating_sub(12);
        let equals = (lower..i).rev().find(|&j| {
            let t = &self.tokens[j];
            t.is_punct("=") || t.kind == TokenKind::Punct && matches!(t.text, ";" | "{" | "}")
        })?;
        if !self.tokens[equals].is_punct("=") {
            return None;
        }
        // `const HOST: &str = …`: the name is before the type's `:`.
        let typed = (lower..equals)
            .rev()
            .take(6)
            .find(|&k| self.tokens[k].is_punct(":"));
        let before = typed.unwrap_or(equals);
        (lower..before)
            .rev()
            .take(1)
            .find(|&k| self.tokens[k].kind == TokenKind::Ident)
    }

    /// True if the name at `j` is declared, not called: a type or keyword
    /// before it (`boolean isScope(`, `func isScope(`, `fn is_scope(`).
    fn declares(&self, j: usize) -> bool {
        j > 0 && {
            let before = &self.tokens[j - 1];
            before.kind == TokenKind::Ident
                && !matches!(
                    before.text,
                    "return"
                        | "await"
                        | "throw"
                        | "else"
                        | "yield"
                        | "not"
                        | "and"
                        | "or"
                        | "in"
                        | "if"
                        | "elif"
                        | "while"
                        | "case"
                        | "go"
                        | "defer"
                        | "assert"
                )
                || before.is_punct(">") && self.context.language == crate::Language::Java
                || before.is_punct("]")
        }
    }

    /// True if the name at `name` is a constant: written in capitals
    /// (`HOSTIP`, `ANYHOST`) or declared `const`/`final` on its line.
    fn is_constant(&self, name: usize) -> bool {
        let text = self.tokens[name].text;
        let capitals = text.chars().any(|c| c.is_ascii_uppercase())
            && !text.chars().any(|c| c.is_ascii_lowercase());
        let line = self.tokens[name].line;
        capitals
            || self.tokens[self.lines(line, line)]
                .iter()
                .any(|t| t.is_ident("const") || t.is_ident("final"))
    }

    /// A multicast test on the first octet's range: `224` compared beside
    /// `239` or `240` on one line, or `0xE0` compared beside a `0xF0` mask.
    pub(super) fn check_multicast_range(&mut self, i: usize) {
        let text = self.tokens[i].text;
        let low = text == "224";
        let masked = text.eq_ignore_ascii_case("0xe0");
        if !low && !masked {
            return;
        }
        let compared = |k: usize| {
            self.tokens.get(k).is_some_and(|t| {
                t.kind != TokenKind::Ident
                    && matches!(t.text, ">=" | ">" | "<=" | "<" | "==" | "===" | "!=")
            })
        };
        if !(compared(i.wrapping_sub(1)) || compared(i + 1)) {
            return;
        }
        let line = self.tokens[i].line;
        let partner = self.lines(line, line).any(|j| {
            let t = &self.tokens[j];
            t.kind == TokenKind::Number
                && if low {
                    matches!(t.text, "239" | "240")
                } else {
                    t.text.eq_ignore_ascii_case("0xf0")
                }
        });
        if !partner || self.has_match("ipv4-multicast-test", line) {
            return;
        }
        let severity = self.note_beside_ipv6_path();
        self.push("ipv4-multicast-test", severity, i, "a multicast test on the first octet (224–239, 224.0.0.0/4, RFC 5771) is true for IPv4 only; IPv6 multicast is ff00::/8 (RFC 4291): ask the address (isMulticastAddress, is_multicast, IsMulticast)".into());
    }
}
