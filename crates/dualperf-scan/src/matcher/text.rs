//! Rules about addresses as values and text: 32-bit integers holding
//! `s_addr`, buffers too small for IPv6, 4-byte copies, hand-written
//! host:port splitting and joining, and IPv4 literals.

use super::*;

impl Matcher<'_, '_> {
    /// C/C++: `s_addr`/`h_addr` in a statement that declares or casts to a
    /// 32-bit integer type, e.g. `uint32_t ip = sin.sin_addr.s_addr;` or
    /// `*(uint32_t *)he->h_addr`.
    pub(super) fn check_s_addr_integer(&mut self, i: usize) {
        if !matches!(
            self.tokens[i].text,
            "s_addr" | "h_addr" | "h_addr_list" | "S_addr"
        ) {
            return;
        }
        if self.has_match("s-addr-integer", self.tokens[i].line) {
            return;
        }
        let range = self.statement(i);
        let statement = &self.tokens[range];
        let has_integer = statement
            .iter()
            .any(|t| t.kind == TokenKind::Ident && INTEGER_TYPES.contains(&t.text));
        let has_assignment_or_cast = statement.iter().any(|t| t.is_punct("=") || t.is_punct(")"));
        if has_integer && has_assignment_or_cast {
            let name = self.tokens[i].text;
            self.push("s-addr-integer", Severity::Warning, i, format!("`{name}` stored as a 32-bit integer assumes a 4-byte address; keep a sockaddr_storage"));
        }
    }

    /// C/C++: `char ip[16]`, `char host_addr[15]`, `unsigned char addr[4]`:
    /// a char-sized element type before an address-named array of IPv4 size.
    pub(super) fn check_address_buffer(&mut self, i: usize) {
        let name = self.tokens[i].text;
        if !self.next_is(i, "[") || !is_address_name(name) {
            return;
        }
        let Some(size) = self.tokens.get(i + 2) else {
            return;
        };
        if size.kind != TokenKind::Number
            || !matches!(size.text, "4" | "15" | "16")
            || !self.tokens.get(i + 3).is_some_and(|t| t.is_punct("]"))
        {
            return;
        }
        if name.contains('6') {
            return; // `addr6[16]`, `ip6[16]`: sized for IPv6 on purpose
        }
        let range = self.statement(i);
        let declaration = &self.tokens[range.start..i];
        let declared_as_bytes = declaration
            .iter()
            .any(|t| t.kind == TokenKind::Ident && BYTE_TYPES.contains(&t.text));
        // 16 bytes is exactly a binary IPv6 address, so only a *text* buffer
        // (plain `char`) of 15 or 16 is IPv4-sized; binary buffers count at 4.
        let text_buffer = declaration.iter().any(|t| {
            t.kind == TokenKind::Ident && matches!(t.text, "char" | "gchar" | "TCHAR" | "wchar_t")
        }) && !declaration.iter().any(|t| t.is_ident("unsigned"));
        // In a file with an IPv6 path a 16-byte char array may be a binary
        // IPv6 address (djb's `char ip[16]`).
        let ipv4_sized = if size.text == "4" {
            declared_as_bytes
        } else {
            text_buffer && !(size.text == "16" && self.has_ipv6_path)
        };
        if ipv4_sized {
            let message = format!(
                "`{name}[{}]` is sized for IPv4; IPv6 needs INET6_ADDRSTRLEN (46) characters or 16 bytes",
                size.text
            );
            self.push("address-buffer-size", Severity::Warning, i, message);
        }
    }

    /// C/C++: `memcpy(dst, src, 4)` (or `sizeof(uint32_t)`/`sizeof(in_addr_t)`)
    /// where an argument mentions an address.
    pub(super) fn check_four_byte_copy(&mut self, i: usize) {
        if self.check_four_byte_any_argument(i) {
            return;
        }
        let name = self.tokens[i].text;
        if !matches!(
            name,
            "memcpy" | "memmove" | "memcmp" | "bcopy" | "CopyMemory" | "RtlCopyMemory"
        ) {
            return;
        }
        let Some(args) = self.call_arguments(i + 1) else {
            return;
        };
        let Some(length) = args.last() else { return };
        let length_tokens = &self.tokens[length.clone()];
        let four = match length_tokens {
            [t] => t.kind == TokenKind::Number && t.text == "4",
            _ => {
                length_tokens.first().is_some_and(|t| t.is_ident("sizeof"))
                    && length_tokens.iter().any(|t| {
                        matches!(
                            t.text,
                            "uint32_t" | "in_addr_t" | "u_int32_t" | "u32" | "DWORD"
                        )
                    })
            }
        };
        let mentions_address = args[..args.len() - 1]
            .iter()
            .flat_map(|range| &self.tokens[range.clone()])
            .any(|t| {
                t.kind == TokenKind::Ident
                    && (ADDRESS_FIELDS.contains(&t.text) || is_address_name(t.text))
            });
        if four && mentions_address {
            self.push("four-byte-copy", Severity::Warning, i, format!("`{name}` of 4 bytes of an address copies a quarter of an IPv6 address; use the sockaddr length"));
        }
    }

    /// All languages: splitting on `:` without looking for brackets (and
    /// not `user:password`). When a `':' in host` guard precedes the split
    /// (Python), the guard's line is reported: it is where the decision is.
    pub(super) fn check_split(&mut self, i: usize) {
        let name = self.tokens[i].text;
        if !self.next_is(i, "(")
            || !(SPLIT_FUNCTIONS.contains(&name) || Self::is_split_helper(name))
        {
            return;
        }
        let Some(args) = self.call_arguments(i + 1) else {
            return;
        };
        let splits_on_colon = args.iter().any(|range| {
            let arg = &self.tokens[range.clone()];
            let literal =
                arg.len() == 1 && arg[0].kind == TokenKind::Str && arg[0].string_content() == ":";
            // `SEPARATOR`, `CommonConstant.COLON`, `sep::COLON`: a colon by name.
            let qualified = arg.len() == 1
                || arg.len() >= 3
                    && arg[arg.len() - 2].kind == TokenKind::Punct
                    && matches!(arg[arg.len() - 2].text, "." | "::");
            let constant = qualified
                && arg.last().is_some_and(|t| {
                    t.kind == TokenKind::Ident
                        && (t.text.eq_ignore_ascii_case("colon")
                            || self.colon_constants.contains(t.text))
                });
            literal || constant
        });
        if !splits_on_colon
            || self.splits_a_mac(i)
            || self.port_after_last_colon(i)
            || self.brackets_handled_near(i)
            || self.credentials_near(i) && !self.statement_names_address(i)
            || self.splits_a_spec(i)
        {
            return;
        }
        let line = self.tokens[i].line;
        let guard = (self.lines(line.saturating_sub(2), line).start..i)
            .rev()
            .find(|&j| {
                let t = &self.tokens[j];
                t.kind == TokenKind::Str
                    && t.string_content() == ":"
                    && self.tokens.get(j + 1).is_some_and(|n| n.is_ident("in"))
            });
        let at = guard.unwrap_or(i);
        if name == "lastIndexOf" && self.last_colon_host_goes_to_resolver(i) {
            self.push("host-port-split", Severity::Note, at, "the host before the last ':' goes to a resolver that accepts a bracketed IPv6 literal; check the text brackets it ([::1]:80)".into());
            return;
        }
        self.push("host-port-split", Severity::Warning, at, format!("`{name}` on ':' breaks IPv6 literals; use a bracket-aware host:port parser (net.SplitHostPort, urlsplit, SocketAddr::from_str)"));
        if name != "indexOf" && name != "lastIndexOf" {
            self.check_split_parts(i);
        }
    }

    /// True if the split at `i` takes apart a MAC address (`macAddress.split(":")`,
    /// `hwaddr.split(':')`): six hexadecimal pairs, not host:port.
    fn splits_a_mac(&self, i: usize) -> bool {
        let receiver =
            (i >= 2 && self.tokens[i - 1].is_punct(".")).then(|| self.tokens[i - 2].text);
        let first_argument = self.tokens.get(i + 2).map(|t| t.text);
        [receiver, first_argument]
            .into_iter()
            .flatten()
            .any(|name| {
                super::words::name_words(name).iter().any(|w| {
                    matches!(
                        w.as_str(),
                        "mac" | "hwaddr" | "ether" | "hardware" | "bssid"
                    )
                })
            })
    }

    /// True if the line of token `i` names an address
    /// (`String sourceIp = substringBefore(remoteAddr, COLON)`): an endpoint
    /// is split there, whatever credentials are handled nearby.
    fn statement_names_address(&self, i: usize) -> bool {
        // The split's line (a Python statement has no `;` to end it).
        let line = self.tokens[i].line;
        self.tokens[self.lines(line, line)]
            .iter()
            .any(|t| t.kind == TokenKind::Ident && is_address_name(t.text))
    }

    /// True if the split at `i` takes the port after the last colon
    /// (`port = substringAfterLast(addr, ":")`, `addr.rsplit_once(':')` into
    /// a port): right for `[::1]:80` as well; the host's half is judged
    /// where it is taken.
    fn port_after_last_colon(&self, i: usize) -> bool {
        const LAST_COLON: &[&str] = &["substringAfterLast"];
        LAST_COLON.contains(&self.tokens[i].text)
            && self.tokens[self.statement(i)].iter().any(|t| {
                t.kind == TokenKind::Ident
                    && (matches!(t.text, "parseInt" | "valueOf" | "atoi" | "Atoi")
                        || super::words::name_words(t.text).iter().any(|w| w == "port"))
            })
    }

    /// True if the split at `i` takes apart something that is not an
    /// endpoint: `module, app = spec.split(':')`, `key, value = line.split(':')`
    /// (names on the left, and none of them an address or port).
    pub(super) fn splits_a_spec(&self, i: usize) -> bool {
        const SPEC_WORDS: &[&str] = &[
            "module",
            "mod",
            "app",
            "key",
            "value",
            "name",
            "path",
            "file",
            "scheme",
            "proto",
            "label",
            "field",
            "tag",
            "prefix",
            "ns",
            "namespace",
            "section",
            "attr",
            "func",
            "method",
            "cls",
            "klass",
            "obj",
            "target",
            "var",
            "spec",
            "line",
            "header",
        ];
        let receiver =
            (i >= 2 && self.tokens[i - 1].is_punct(".")).then(|| self.tokens[i - 2].text);
        if receiver
            .is_some_and(|r| r != "target" && SPEC_WORDS.contains(&r.to_ascii_lowercase().as_str()))
        {
            return true;
        }
        let line = self.tokens[i].line;
        let range = self.lines(line, line);
        let Some(equals) = (range.start..i).find(|&j| self.tokens[j].is_punct("=")) else {
            return false;
        };
        let targets: Vec<&str> = self.tokens[range.start..equals]
            .iter()
            .filter(|t| t.kind == TokenKind::Ident)
            .map(|t| t.text)
            .collect();
        let endpoint = targets
            .iter()
            .any(|t| is_address_name(t) || t.to_ascii_lowercase().contains("port"));
        !endpoint
            && targets.len() >= 2
            && targets
                .iter()
                .any(|t| SPEC_WORDS.contains(&t.to_ascii_lowercase().as_str()))
    }

    /// True if a `[` or `]` string or character literal is within 12 lines
    /// before or 3 lines after token `i`: the code is probably handling
    /// `[v6]:port` already.
    /// In brace languages the look back stops at the start of the
    /// enclosing function: bracket handling in the function above does not
    /// protect this one.
    pub(super) fn brackets_handled_near(&self, i: usize) -> bool {
        let line = self.tokens[i].line;
        let mut range = self.lines(line.saturating_sub(12), line + 3);
        if let Some(body) = self.enclosing_function_body(i) {
            range.start = range.start.max(body);
        }
        self.tokens[range].iter().any(|t| {
            t.kind == TokenKind::Str
                && (matches!(t.string_content(), "[" | "]") || t.string_content().contains("]:"))
        })
    }

    /// True if the string at `i` is an argument of a logging, printing or
    /// exception call (`log.info(...)`, `raise ValueError(...)`, `throw new
    /// Error(...)`, `fmt.Errorf`): text for people, not an endpoint.
    pub(super) fn in_message_call(&self, i: usize) -> bool {
        let Some(open) = self.enclosing_open(i) else {
            return false;
        };
        if self.is_message_call(open) {
            return true;
        }
        // `Error::other(format!(...))`, `errors.New(fmt.Sprintf(...))`: the
        // formatted text goes on into a message.
        let formats = matches!(
            self.callee_at(open),
            "format" | "Sprintf" | "sprintf" | "String" | "f" | "format_args"
        );
        formats
            && self
                .enclosing_open(open)
                .is_some_and(|outer| self.is_message_call(outer))
    }

    /// True if the call opened at `open` logs, prints or raises.
    pub(super) fn is_message_call(&self, open: usize) -> bool {
        let callee = self.callee_at(open);
        let lower = callee.to_ascii_lowercase();
        // `Error::other(`, `errors.New(`: a constructor of an error type.
        let qualifier = open
            .checked_sub(3)
            .filter(|&q| matches!(self.tokens[q + 1].text, "::" | "."))
            .map(|q| self.tokens[q].text.to_ascii_lowercase());
        if qualifier.as_deref().is_some_and(|q| {
            q.ends_with("error") || q.ends_with("errors") || q.ends_with("exception")
        }) {
            return true;
        }
        // java.util.logging's levels on a logger (`log.fine(`, `LOGGER.severe(`).
        let on_logger = qualifier
            .as_deref()
            .is_some_and(|q| q.ends_with("log") || q.ends_with("logger"));
        if on_logger
            && matches!(
                lower.as_str(),
                "severe" | "config" | "fine" | "finer" | "finest"
            )
        {
            return true;
        }
        let message = matches!(
            lower.as_str(),
            "log"
                | "debug"
                | "info"
                | "warn"
                | "warning"
                | "error"
                | "fatal"
                | "trace"
                | "critical"
                | "exception"
                | "print"
                | "println"
                | "printf"
                | "fprintf"
                | "eprintln"
                | "eprint"
                | "panic"
                | "perror"
                | "syslog"
                | "errorf"
                | "fatalf"
                | "printf_debug"
                | "infof"
                | "debugf"
                | "warnf"
                | "warningf"
                | "logf"
                | "assert"
                | "msg"
        ) || lower.ends_with("error")
            || lower.ends_with("exception")
            || lower.starts_with("log_")
            || lower.starts_with("log")
                && callee
                    .chars()
                    .nth(3)
                    .is_some_and(|c| c.is_ascii_uppercase());
        message || open >= 2 && self.tokens[open - 2].is_ident("raise")
    }

    /// All languages: `host + ":" + port`, `":".join(..)`, and `"%s:%d"`-like
    /// format strings.
    pub(super) fn check_join_string(&mut self, i: usize) {
        let content = self.tokens[i].string_content();
        if content == ":" {
            // `host + ":" + port`: a colon between two concatenations (a
            // trailing `name + ":"` is a label, not an endpoint).
            let concatenated =
                (self.previous_is(i, "+") || self.previous_is(i, "+=")) && self.next_is(i, "+");
            let joined =
                self.next_is(i, ".") && self.tokens.get(i + 2).is_some_and(|t| t.is_ident("join"));
            if (concatenated || joined)
                && !self.brackets_handled_near(i)
                && !self.in_message_call(i)
                && (!self.credentials_near(i) || self.joins_host_and_port(i))
            {
                self.push("host-port-join", Severity::Warning, i, "host and port joined with a bare ':' give an ambiguous IPv6 text; bracket the host (net.JoinHostPort, SocketAddr Display)".into());
            }
        } else if has_url_join_format(content) && !self.brackets_handled_near(i) {
            // A URL is made to be used, even in a log line.
            self.push_with("host-port-join", Severity::Warning, i, "URL built as scheme://host:port with a bare ':'; IPv6 hosts need [brackets] (RFC 3986)".into(), false);
        } else if has_turn_join_format(content) && !self.brackets_handled_near(i) {
            self.push_with("host-port-join", Severity::Warning, i, "TURN/STUN URI built as turn:host:port with a bare ':'; IPv6 hosts need [brackets] (RFC 7065, RFC 3986)".into(), false);
        } else if has_join_format(content)
            && !self.brackets_handled_near(i)
            && !self.in_message_call(i)
        {
            self.push("host-port-join", Severity::Warning, i, "format string joins host and port with a bare ':'; IPv6 hosts need [brackets] (net.JoinHostPort, SocketAddr Display)".into());
        }
    }

    /// All languages: IPv4 literals inside string literals.
    pub(super) fn check_literal(&mut self, i: usize) {
        let token = &self.tokens[i];
        let content = token.string_content();
        let literals = find_ipv4_literals(content);
        if literals.is_empty() {
            return;
        }
        self.hints.ipv4_literal = true;
        let in_table = [
            "array",
            "list",
            "initializer_list",
            "literal_value",
            "array_expression",
            "array_initializer",
            "tuple",
            "set",
        ]
        .iter()
        .any(|kind| token.parent_kind.contains(kind))
            && self.tokens[self.lines(token.line.saturating_sub(3), token.line + 3)]
                .iter()
                .filter(|t| {
                    t.kind == TokenKind::Str
                        && t.line.abs_diff(token.line) <= 3
                        && !find_ipv4_literals(t.string_content()).is_empty()
                })
                .count()
                >= 3;
        let prose = self.prose_context(i);
        // `addr == "0.0.0.0" || addr == "[::]"`: handled beside its IPv6 twin.
        // `if v4 { "0.0.0.0:0" } else { "[::]:0" }`: a socket address too.
        let beside_ipv6 = self.tokens[self.statement(i)].iter().any(|t| {
            let content = t.string_content();
            t.kind == TokenKind::Str
                && (content
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .parse::<std::net::Ipv6Addr>()
                    .is_ok()
                    || content.parse::<std::net::SocketAddrV6>().is_ok())
        });
        let (severity, context) = if self.in_test_code(i) {
            (Severity::Note, " (test code: probably data)")
        } else if in_table {
            (Severity::Note, " (in a table of addresses: probably data)")
        } else if let Some(what) = prose {
            (Severity::Note, prose_note(what))
        } else if self.in_dispatch(i) {
            (
                Severity::Note,
                " (inside a branch on the address family: check it is the IPv4 side)",
            )
        } else if beside_ipv6 {
            (
                Severity::Note,
                " (beside an IPv6 literal: check both are handled)",
            )
        } else {
            (Severity::Warning, "")
        };
        let offset_of_content = token.text.find(content).unwrap_or(0);
        for literal in literals {
            let message = format!(
                "hard-coded IPv4 address {}{}; {}",
                literal.address,
                context,
                literal_advice(literal.address)
            );
            self.matches.push(Match {
                rule: "ipv4-literal",
                severity,
                line: token.line,
                column: token.column + offset_of_content + literal.offset,
                message,
            });
        }
    }
}

impl Matcher<'_, '_> {
    /// Brace languages: the index of the `{` that opens the body of the
    /// function holding token `i` (its header has `name (`, and is not an
    /// `if`, `for`, `while`, `switch` or `catch`), if found within 3000
    /// tokens.
    pub(super) fn enclosing_function_body(&self, i: usize) -> Option<usize> {
        use crate::language::Language::*;
        if matches!(self.context.language, Python | Config) {
            return None;
        }
        let mut depth = 0usize;
        for j in (i.saturating_sub(3000)..i).rev() {
            let t = &self.tokens[j];
            if t.is_punct("}") {
                depth += 1;
            } else if t.is_punct("{") {
                if depth > 0 {
                    depth -= 1;
                    continue;
                }
                let start = (j.saturating_sub(40)..j)
                    .rev()
                    .find(|&k| matches!(self.tokens[k].text, ";" | "{" | "}"))
                    .map_or(j.saturating_sub(40), |k| k + 1);
                let header = &self.tokens[start..j];
                let control = header.first().is_some_and(|t| {
                    matches!(
                        t.text,
                        "if" | "else" | "for" | "while" | "switch" | "catch" | "try" | "do"
                    )
                });
                let function = !control
                    && header.windows(2).any(|w| {
                        w[0].kind == TokenKind::Ident
                            && w[1].is_punct("(")
                            && !matches!(
                                w[0].text,
                                "if" | "for" | "while" | "switch" | "catch" | "synchronized"
                            )
                    });
                if function {
                    return Some(j);
                }
            }
        }
        None
    }
}

/// The note added to a literal found in text for people.
fn prose_note(what: &str) -> &'static str {
    match what {
        "help text" => " (in help text: read by people)",
        "a thread name" => " (in a thread name: read by people)",
        "debug text (toString)" => " (in debug text (toString): read by people)",
        _ => " (in log or error text: read by people)",
    }
}

/// The names a file gives to `":"`: `SEPARATOR = ":"` (Java, Go, Python,
/// JavaScript), `const SEP: &str = ":"` (Rust).
pub(super) fn colon_constants<'s>(tokens: &[crate::token::Token<'s>]) -> HashSet<&'s str> {
    let mut names = HashSet::default();
    for (k, t) in tokens.iter().enumerate() {
        if t.kind != TokenKind::Str || t.string_content() != ":" || k < 2 {
            continue;
        }
        if !matches!(tokens[k - 1].text, "=" | ":=") {
            continue;
        }
        let window = &tokens[k.saturating_sub(7)..k - 1];
        // The name before a type annotation (`SEP: &str`), else before `=`.
        let typed = window
            .windows(2)
            .find(|w| w[0].kind == TokenKind::Ident && w[1].is_punct(":"))
            .map(|w| w[0].text);
        let name = typed.or_else(|| {
            let last = &tokens[k - 2];
            (last.kind == TokenKind::Ident).then_some(last.text)
        });
        names.extend(name);
    }
    names
}
