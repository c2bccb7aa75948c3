//! The parts of a host:port text split on every `:` (or the first), read
//! by index: `split[0]` taken as the host and `split[1]` as the port. With
//! an IPv6 literal (`2001:db8::1:8080`) part 0 is `2001` and part 1 `db8`;
//! each read is where the wrong host or port is picked up, so each is
//! reported beside the split itself (`host-port-split`).

use super::Matcher;
use crate::rule::Severity;
use crate::token::TokenKind;

/// How many lines after the split its parts are looked for.
const PARTS_REACH: usize = 40;

impl Matcher<'_, '_> {
    /// After a colon split at `split` that was reported: the variable it is
    /// assigned to (`String[] split = hostline.split(":")`, `parts :=
    /// strings.Split(addr, ":")`, `let parts: Vec<&str> = …`), and every
    /// read of its part 0 or 1 in the next [`PARTS_REACH`] lines, until the
    /// variable is assigned again.
    pub(super) fn check_split_parts(&mut self, split: usize) {
        let Some(variable) = self.assigned_variable(split) else {
            return;
        };
        let name = self.tokens[variable].text;
        let last_line = self.tokens[split].line + PARTS_REACH;
        let mut reads: Vec<(usize, bool)> = Vec::new();
        for j in split + 1..self.tokens.len() {
            let t = &self.tokens[j];
            if t.line > last_line {
                break;
            }
            if t.kind != TokenKind::Ident || t.text != name {
                continue;
            }
            // Assigned again (`split = other.split(",")`): a new value.
            if self.next_is(j, "=") {
                break;
            }
            let index = self.text_at(j + 2);
            let same_line = reads
                .last()
                .is_some_and(|&(k, _)| self.tokens[k].line == t.line);
            if self.next_is(j, "[")
                && matches!(index, "0" | "1")
                && self.text_at(j + 3) == "]"
                && !same_line
                && !self.in_message_call(j)
            {
                reads.push((j, index == "1"));
            }
        }
        // A part quoted in a log or exception message is read by people.
        for (j, port) in reads {
            let part = if port { "port" } else { "host" };
            self.push("host-port-split", Severity::Warning, j, format!("`{name}[{}]` read as the {part} of a host:port text split on ':'; an IPv6 literal has more colons (use a bracket-aware parser: net.SplitHostPort, URI, SocketAddr::from_str)", u8::from(port)));
        }
    }

    /// The variable the expression holding token `i` is assigned to, on the
    /// same statement: the identifier before `=`, `:=` or `: Type =`.
    fn assigned_variable(&self, i: usize) -> Option<usize> {
        let lower = i.saturating_sub(30);
        for j in (lower..i).rev() {
            let t = &self.tokens[j];
            if t.kind == TokenKind::Punct && matches!(t.text, ";" | "{" | "}" | "(") {
                return None;
            }
            if t.is_punct("=") || t.is_punct(":=") {
                // `let parts: Vec<&str> = …`: skip back over the type.
                return (lower..j).rev().find(|&k| {
                    let n = &self.tokens[k];
                    n.kind == TokenKind::Ident
                        && (k + 1 == j
                            || self.tokens[k + 1].is_punct(":")
                                && self.tokens[k..j].iter().all(|x| x.line == n.line))
                });
            }
        }
        None
    }
}
