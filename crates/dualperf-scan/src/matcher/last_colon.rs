//! Host:port text split at the last colon (issue 28): where the split index
//! comes from, and where the host goes.
//!
//! `addr.substring(0, addr.lastIndexOf(":"))` keeps the brackets of
//! `[::1]:80`, and that is right when the host goes straight to a parser
//! that takes a bracketed IPv6 literal (RFC 2732): Java's
//! `new InetSocketAddress(host, port)` and `InetAddress.getByName(host)`
//! resolve `"[::1]"`, and a `URI` host must be bracketed. Such a split is a
//! note (the text must carry the brackets), not a warning. A host that also
//! goes anywhere else (a log line, `createUnresolved`, a map key) stays a
//! warning.

use super::Matcher;
use crate::token::TokenKind;

/// Calls whose host argument may be a bracketed IPv6 literal.
const BRACKET_RESOLVERS: &[&str] = &["InetSocketAddress", "getByName", "getAllByName", "URI"];

impl<'s> Matcher<'_, 's> {
    /// The index of the token that names `name` in its nearest assignment
    /// (`name = ...`) between `from` and `before`: the value the name holds
    /// at `before` (an `idx` set from `indexOf(";")` after an earlier one set
    /// from `lastIndexOf(':')` is the `;` one).
    pub(super) fn nearest_assignment(
        &self,
        name: &str,
        from: usize,
        before: usize,
    ) -> Option<usize> {
        (from..before).rev().find(|&j| {
            let t = &self.tokens[j];
            t.kind == TokenKind::Ident && t.text == name && self.next_is(j, "=")
        })
    }

    /// True if the statement at `statement_of` calls `lastIndexOf` (not
    /// `indexOf`) on a colon.
    pub(super) fn is_last_colon_index(&self, statement_of: usize) -> bool {
        self.tokens[self.statement(statement_of)]
            .windows(3)
            .any(|w| {
                w[0].text == "lastIndexOf"
                    && w[1].is_punct("(")
                    && w[2].kind == TokenKind::Str
                    && w[2].string_content() == ":"
            })
    }

    /// For the `lastIndexOf(':')` call at `i`, inside `substring(0, ..)` or
    /// assigned to an index (`int split = addr.lastIndexOf(":")`): true if every host taken
    /// before that index (`addr.substring(0, split)`) in the rest of the
    /// function goes only to a bracket-aware resolver, and there is one.
    pub(super) fn last_colon_host_goes_to_resolver(&self, i: usize) -> bool {
        // Inline: `addr.substring(0, addr.lastIndexOf(":"))`.
        if let Some(open) = self.enclosing_open(i) {
            if self.callee_at(open) == "substring" && self.text_at(open + 1) == "0" {
                return self.argument_position(open, i) == 1
                    && self.host_goes_to_resolver(open - 1);
            }
        }
        let statement = self.statement(i);
        let Some(equals) = (statement.start..i).find(|&j| self.tokens[j].is_punct("=")) else {
            return false;
        };
        let Some(index) = equals
            .checked_sub(1)
            .map(|j| &self.tokens[j])
            .filter(|t| t.kind == TokenKind::Ident)
        else {
            return false;
        };
        let end = self.block_end(i);
        let hosts: Vec<usize> = (i..end)
            .filter(|&j| {
                self.tokens[j].text == "substring"
                    && self.next_is(j, "(")
                    && self.text_at(j + 2) == "0"
                    && self.text_at(j + 3) == ","
                    && self.text_at(j + 4) == index.text
                    && self.text_at(j + 5) == ")"
            })
            .collect();
        !hosts.is_empty() && hosts.iter().all(|&j| self.host_goes_to_resolver(j))
    }

    /// True if the host cut by the `substring` call at `cut` goes only to
    /// a bracket-aware resolver: as its host argument directly, or through
    /// a variable used nowhere else in the function.
    pub(super) fn host_goes_to_resolver(&self, cut: usize) -> bool {
        if self.is_resolver_host_argument(cut) {
            return true;
        }
        let statement = self.statement(cut);
        let Some(equals) = (statement.start..cut).find(|&j| self.tokens[j].is_punct("=")) else {
            return false;
        };
        let Some(host) = equals
            .checked_sub(1)
            .map(|j| &self.tokens[j])
            .filter(|t| t.kind == TokenKind::Ident)
        else {
            return false;
        };
        let end = self.block_end(cut);
        let uses: Vec<usize> = (statement.end..end)
            .filter(|&j| {
                self.tokens[j].kind == TokenKind::Ident && self.tokens[j].text == host.text
            })
            .collect();
        !uses.is_empty() && uses.iter().all(|&j| self.is_resolver_host_argument(j))
    }

    /// True if token `i` starts the host argument of a bracket-aware
    /// resolver call (`new InetSocketAddress(i, port)`, `URI(.., i, ..)`).
    fn is_resolver_host_argument(&self, i: usize) -> bool {
        let Some(open) = self.enclosing_open(i) else {
            return false;
        };
        let callee = self.callee_at(open);
        BRACKET_RESOLVERS.contains(&callee)
            && (callee == "URI" || self.argument_position(open, i) == 0)
    }

    /// The index just past the `}` that closes the block holding token `i`
    /// (at most 1500 tokens on), or the end of the file.
    pub(super) fn block_end(&self, i: usize) -> usize {
        let mut depth = 0usize;
        let last = self.tokens.len().min(i + 1500);
        for j in i..last {
            let t = &self.tokens[j];
            if t.is_punct("{") {
                depth += 1;
            } else if t.is_punct("}") {
                if depth == 0 {
                    return j;
                }
                depth -= 1;
            }
        }
        last
    }
}
