//! Java: values of a type named for IPv4 (`IPv4Framer framer`, `Ipv4Header
//! header`) in a file that never names the type's IPv6 twin. The
//! declaration is reported by `ipv4-named-api` where the type is named;
//! the calls on the value (`framer.frame(this, payload)`) are where every
//! packet or address is handled as IPv4, so they are reported too.

use super::uses::ipv4_named;
use super::Matcher;
use crate::rule::Severity;
use crate::token::{Token, TokenKind};

/// Types with a rule of their own (`ipv4-only-type`).
const OWN_RULE: &[&str] = &["Inet4Address"];

/// Java: `(variable, type)` for every `Type name` declaration whose type is
/// named for IPv4, starts with a capital (a class) and has no IPv6 twin
/// named in the file.
pub(super) fn java_ipv4_typed<'s>(
    tokens: &[Token<'s>],
    idents: &super::HashSet<&'s str>,
) -> Vec<(&'s str, &'s str)> {
    let mut found = Vec::new();
    for w in tokens.windows(3) {
        let (ty, name) = (w[0].text, w[1].text);
        if w[0].kind != TokenKind::Ident
            || w[1].kind != TokenKind::Ident
            || !matches!(w[2].text, "=" | ";" | "," | ")")
            || !ty.starts_with(|c: char| c.is_ascii_uppercase())
            || OWN_RULE.contains(&ty)
        {
            continue;
        }
        let Some(four) = ipv4_named(ty) else { continue };
        let twin = format!("{}6{}", &ty[..four], &ty[four + 1..]);
        if !idents.contains(twin.as_str()) && !found.iter().any(|(n, _)| *n == name) {
            found.push((name, ty));
        }
    }
    found
}

impl Matcher<'_, '_> {
    /// A method called on a value declared with an IPv4-named type.
    pub(super) fn check_ipv4_typed_use(&mut self, i: usize) {
        let name = self.tokens[i].text;
        let Some(&(_, ty)) = self.ipv4_typed.iter().find(|(n, _)| *n == name) else {
            return;
        };
        let called = self.next_is(i, ".")
            && self
                .tokens
                .get(i + 2)
                .is_some_and(|t| t.kind == TokenKind::Ident)
            && self.text_at(i + 3) == "(";
        let member = self.previous_is(i, ".") && !(i >= 2 && self.tokens[i - 2].is_ident("this"));
        let line = self.tokens[i].line;
        if !called || member || self.has_match("ipv4-named-api", line) || self.in_dispatch(i) {
            return;
        }
        self.push("ipv4-named-api", Severity::Warning, i, format!("`{name}` is an `{ty}` (IPv4 only) and this file never names its IPv6 twin: what it handles here is handled as IPv4; choose the IPv4 or IPv6 one by the packet's or address's family"));
    }
}
