//! Host:port handling hidden one step away (issue 28, round 5): splits
//! behind a helper named for splitting, colon constants compared with a
//! character, and joins of a host and a port next to credential code.

use super::Matcher;
use crate::language::Language;
use crate::rule::Severity;
use crate::token::TokenKind;

impl<'s> Matcher<'_, 's> {
    /// True if `name` is a helper named for splitting that is not a
    /// bracket-aware host:port parser (`StringSplitIgnoreEmpty`,
    /// `absl::StrSplit`, `splitTrim`; not `SplitHostPort`).
    pub(super) fn is_split_helper(name: &str) -> bool {
        // Most identifiers are rejected here without allocating.
        if !name
            .as_bytes()
            .windows(5)
            .any(|w| w.eq_ignore_ascii_case(b"split"))
        {
            return false;
        }
        let lower = name.to_ascii_lowercase();
        lower.contains("split")
            && !lower.contains("hostport")
            && !lower.contains("host_port")
            && super::words::name_words(name).iter().any(|w| w == "split")
    }

    /// Java, JavaScript, TypeScript: a colon constant compared with a
    /// character of a text (`COLON == url.charAt(i)`,
    /// `url.charAt(i) == SEPARATOR` with `SEPARATOR = ':'`): a hand-written
    /// scan for the first ':' of a host:port.
    pub(super) fn check_colon_constant_compare(&mut self, i: usize) {
        let name = self.tokens[i].text;
        if !matches!(
            self.context.language,
            Language::Java | Language::JavaScript | Language::TypeScript
        ) || !(name.eq_ignore_ascii_case("colon") || self.colon_constants.contains(name))
        {
            return;
        }
        let is_compare = |j: usize| {
            self.tokens
                .get(j)
                .is_some_and(|t| matches!(t.text, "==" | "!=" | "===" | "!=="))
        };
        // `COLON == s.charAt(i)` or `s.charAt(i) == COLON`.
        let other = if is_compare(i + 1) {
            i + 2..(i + 10).min(self.tokens.len())
        } else if i >= 1 && is_compare(i - 1) {
            i.saturating_sub(10)..i - 1
        } else {
            return;
        };
        let char_at = self.tokens[other]
            .windows(2)
            .any(|w| w[0].is_ident("charAt") && w[1].is_punct("("));
        if char_at && !self.brackets_handled_near(i) && !self.credentials_near(i) {
            self.push("host-port-split", Severity::Warning, i, format!("a character compared with `{name}` (a ':') scans for the first colon, which splits IPv6 addresses; look for a leading '[' first or use a host:port parser"));
        }
    }

    /// True if the `":"` at `i` joins a host (the name before the `+`) and
    /// a port (a name with `port` in the operand after it): an endpoint,
    /// whatever credential code is near (`host + ":" +
    /// std::to_string(port)` next to a proxy-authorization header).
    pub(super) fn joins_host_and_port(&self, i: usize) -> bool {
        let host = i
            .checked_sub(2)
            .map(|j| &self.tokens[j])
            .is_some_and(|t| t.kind == TokenKind::Ident && super::is_address_name(t.text));
        let mut depth = 0usize;
        let port = self.tokens[i + 2..(i + 12).min(self.tokens.len())]
            .iter()
            .take_while(|t| {
                match t.text {
                    "(" | "[" => depth += 1,
                    ")" | "]" if depth == 0 => return false,
                    ")" | "]" => depth -= 1,
                    "," | ";" | "+" if depth == 0 => return false,
                    _ => {}
                }
                true
            })
            .any(|t| t.kind == TokenKind::Ident && t.text.to_ascii_lowercase().contains("port"));
        host && port
    }
}
