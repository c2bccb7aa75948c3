//! Loops that skip every IPv6 address: `continue` under a test that is true
//! for IPv6 (`if (a instanceof Inet6Address) continue;`, `if ip.To4() == nil
//! { continue }`, `if ai->ai_family == AF_INET6) continue;`, `if
//! addr.is_ipv6() { continue; }`, `if iface.family === 'IPv6') continue;`).
//! The address list is then IPv4 only, whatever the resolver or interface
//! returned. A test that narrows the skip with `&&`/`and` (`instanceof
//! Inet6Address && isLinkLocalAddress()`) is a filter, not a family choice,
//! and is left alone.

use super::{Match, Matcher};
use crate::rule::Severity;
use crate::token::TokenKind;

impl Matcher<'_, '_> {
    /// `continue` at `i`: reported at its `if` when the condition is an
    /// IPv6 test (alone or in an `||` chain).
    pub(super) fn check_ipv6_skipped(&mut self, i: usize) {
        if !self.tokens[i].is_ident("continue") {
            return;
        }
        let line = self.tokens[i].line;
        let window = self.lines(line.saturating_sub(2), line);
        let Some(start) = (window.start..i)
            .rev()
            .find(|&j| self.tokens[j].is_ident("if"))
        else {
            return;
        };
        let condition = &self.tokens[start + 1..i];
        // `if (..) { x = 1; continue; }`: the body does more than skip.
        if condition.iter().any(|t| t.is_punct(";") || t.is_punct("=")) {
            return;
        }
        let narrowed = condition
            .iter()
            .any(|t| t.is_punct("&&") || t.is_ident("and") || t.is_punct("!") || t.is_ident("not"));
        if narrowed {
            return;
        }
        let tests_ipv6 = condition.iter().enumerate().any(|(k, t)| {
            let next = |n: usize| condition.get(k + n).map_or("", |t| t.text);
            match t.kind {
                TokenKind::Ident => match t.text {
                    "Inet6Address" | "is_ipv6" | "isIPv6" | "Is6" | "IPv6" => true,
                    "AF_INET6" | "PF_INET6" => !condition.iter().any(|c| c.is_punct("!=")),
                    // Go: `ip.To4() == nil`
                    "To4" => {
                        next(1) == "(" && next(2) == ")" && next(3) == "==" && next(4) == "nil"
                    }
                    // `addr.version == 6`, `family === 6` (Node 18+)
                    "version" | "family" => matches!(next(1), "==" | "===") && next(2) == "6",
                    _ => false,
                },
                TokenKind::Str => {
                    matches!(t.string_content(), "IPv6" | "ipv6" | "inet6")
                        && condition
                            .iter()
                            .any(|c| matches!(c.text, "==" | "===" | "equals"))
                }
                _ => false,
            }
        });
        if !tests_ipv6 || self.has_match("ipv6-skipped", self.tokens[start].line) {
            return;
        }
        // Not demoted inside a family branch: skipping IPv6 is the finding.
        let token = &self.tokens[start];
        self.matches.push(Match {
            rule: "ipv6-skipped",
            severity: Severity::Warning,
            line: token.line,
            column: token.column,
            message: "this loop skips every IPv6 address (`continue` when the family is IPv6): the list it builds is IPv4 only; keep IPv6 addresses (filter link-local or loopback ones with their own test)".into(),
        });
    }
}
