//! Hand-written host:port and dotted-quad text handling: sockaddr pairs and
//! formats, colon comparisons, dotted-quad strings and parsers, 4-byte
//! arguments.

use super::*;

impl<'s> Matcher<'_, 's> {
    /// Python: a socket address taken as a (host, port) pair:
    /// `host, port = sock.getpeername()` (an IPv6 address is a 4-tuple).
    pub(in crate::matcher) fn check_sockaddr_pair(&mut self, i: usize) {
        let name = self.tokens[i].text;
        if !matches!(name, "getpeername" | "getsockname")
            || !self.next_is(i, "(")
            || self.text_at(i + 2) != ")"
        {
            return;
        }
        let line = self.tokens[i].line;
        let range = self.lines(line, line);
        // Nothing after the call on its line (no `[:2]`).
        if i + 3 < range.end {
            return;
        }
        let Some(equals) = (range.start..i).find(|&j| self.tokens[j].is_punct("=")) else {
            return;
        };
        let commas = (range.start..equals)
            .filter(|&j| self.tokens[j].is_punct(","))
            .count();
        if commas == 1 {
            self.push("sockaddr-pair", Severity::Warning, i, format!("`{name}()` unpacked into (host, port): an IPv6 socket address is a 4-tuple; take [:2] or index [0] and [1]"));
        }
    }

    /// Python: `'%s:%s' % sock.getsockname()` or `% addr`: a socket address
    /// formatted as a pair (TypeError for an IPv6 4-tuple, and no brackets).
    pub(in crate::matcher) fn check_sockaddr_format(&mut self, i: usize) {
        let content = self.tokens[i].string_content();
        if !(content.contains("%s:%s") || content.contains("%s:%d") || content.contains("%s:%i"))
            || !self.next_is(i, "%")
            || self.has_match("host-port-join", self.tokens[i].line)
        {
            return;
        }
        let mut j = i + 2;
        // `% self.socket.getsockname()` or `% addr`
        while self.text_at(j + 1) == "." {
            j += 2;
        }
        let Some(last) = self.tokens.get(j) else {
            return;
        };
        let sockaddr = if matches!(last.text, "getsockname" | "getpeername") {
            self.text_at(j + 1) == "(" && self.text_at(j + 2) == ")" && self.text_at(j + 3) != "["
        } else {
            last.kind == TokenKind::Ident
                && matches!(
                    last.text,
                    "addr"
                        | "address"
                        | "sockaddr"
                        | "peer"
                        | "client_address"
                        | "peername"
                        | "sockname"
                )
                && self.text_at(j + 1) != "["
                && self.text_at(j + 1) != "."
        };
        if sockaddr {
            self.push("sockaddr-pair", Severity::Warning, i, "a socket address formatted as '%s:%s' fails for an IPv6 4-tuple and leaves the host unbracketed; format [host]:port from addr[0] and addr[1]".into());
        }
    }

    /// All languages: a character compared with ':' on an address
    /// (`host[i] == ':'`, `addr.charAt(i) == ':'`) without bracket handling.
    pub(in crate::matcher) fn check_colon_compare(&mut self, i: usize) {
        if self.tokens[i].string_content() != ":" {
            return;
        }
        let compared = |j: Option<usize>| {
            j.and_then(|j| self.tokens.get(j))
                .is_some_and(|t| matches!(t.text, "==" | "!=" | "===" | "!=="))
        };
        let operand_end = if compared(i.checked_sub(1)) {
            i.checked_sub(2)
        } else if compared(Some(i + 1)) {
            None // `':' == c`: rare; left alone
        } else {
            return;
        };
        let Some(end) = operand_end else { return };
        let operand = self.operand_name(end);
        let char_at = self.operand_callee(end) == Some("charAt");
        let addressed = operand.is_some_and(is_address_name);
        let language = self.context.language;
        let scan = addressed
            || char_at
                && matches!(
                    language,
                    Language::Java | Language::JavaScript | Language::TypeScript
                );
        if scan && !self.brackets_handled_near(i) && !self.credentials_near(i) {
            self.push("host-port-split", Severity::Warning, i, "a hand-written scan for ':' splits IPv6 addresses; look for a leading '[' first or use a host:port parser".into());
        }
    }

    /// Go and Python: the colons of a text counted and compared with one
    /// (`strings.Count(server, ":") != 1`, `host.count(':') == 1`): a test
    /// that the text is `host:port`, which every IPv6 literal fails
    /// (`[2001:db8::1]:6667` has five colons). `> 1` is left alone: that is
    /// how code tells an IPv6 literal apart.
    pub(in crate::matcher) fn check_colon_count(&mut self, i: usize) {
        if self.tokens[i].string_content() != ":" {
            return;
        }
        let Some(open) = self.enclosing_open(i) else {
            return;
        };
        let position = match (self.context.language, self.callee_at(open)) {
            (Language::Go, "Count") => 1,
            (Language::Python, "count") => 0,
            _ => return,
        };
        let Some(args) = self.call_arguments(open) else {
            return;
        };
        if args.len() != position + 1 || args[position] != (i..i + 1) {
            return;
        }
        let close = args[position].end;
        let compared_with_one = matches!(self.text_at(close + 1), "==" | "!=")
            && self
                .tokens
                .get(close + 2)
                .is_some_and(|t| t.kind == TokenKind::Number && t.text == "1");
        if compared_with_one && !self.brackets_handled_near(i) && !self.credentials_near(i) {
            self.push("host-port-split", Severity::Warning, i, "the ':' of a host:port counted and compared with one: every IPv6 literal has more; use a bracket-aware host:port parser (net.SplitHostPort, urlsplit)".into());
        }
    }

    /// The variable at the end of the operand ending at token `end`
    /// (`host[i]` → host, `*p` → p, `addr.charAt(i)` → addr).
    fn operand_name(&self, end: usize) -> Option<&'s str> {
        let mut j = end;
        let t = self.tokens.get(j)?;
        if t.is_punct("]") || t.is_punct(")") {
            let open = if t.is_punct("]") { "[" } else { "(" };
            let close = t.text;
            let mut depth = 0usize;
            loop {
                let u = self.tokens.get(j)?;
                if u.is_punct(close) {
                    depth += 1;
                } else if u.is_punct(open) {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                j = j.checked_sub(1)?;
            }
            j = j.checked_sub(1)?;
            // `addr.charAt(i)`: step over the method name to the receiver.
            if self.tokens[j].kind == TokenKind::Ident && j >= 2 && self.tokens[j - 1].is_punct(".")
            {
                j -= 2;
            }
        }
        let u = self.tokens.get(j)?;
        (u.kind == TokenKind::Ident).then_some(u.text)
    }

    /// The method called in an operand ending with `)` (`s.charAt(i)` → charAt).
    fn operand_callee(&self, end: usize) -> Option<&'s str> {
        if !self.tokens.get(end)?.is_punct(")") {
            return None;
        }
        let mut depth = 0usize;
        let mut j = end;
        loop {
            let u = self.tokens.get(j)?;
            if u.is_punct(")") {
                depth += 1;
            } else if u.is_punct("(") {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            j = j.checked_sub(1)?;
        }
        let callee = self.tokens.get(j.checked_sub(1)?)?;
        (callee.kind == TokenKind::Ident).then_some(callee.text)
    }

    /// True if the code around token `i` handles credentials
    /// (`user:password`), not endpoints.
    pub(in crate::matcher) fn credentials_near(&self, i: usize) -> bool {
        let line = self.tokens[i].line;
        self.tokens[self.lines(line.saturating_sub(1), line + 2)]
            .iter()
            .any(|t| {
                let lower = t.text.to_ascii_lowercase();
                (t.kind == TokenKind::Ident || t.kind == TokenKind::Str)
                    && [
                        "user", "passw", "passwd", "auth", "cred", "login", "userinfo",
                    ]
                    .iter()
                    .any(|w| lower.contains(w))
                    // A URI's authority is `host:port` (RFC 3986 §3.2), not a credential.
                    && !lower.contains("authorit")
            })
    }

    /// All languages: dotted-quad text handling with no IPv6 path: a
    /// character set of digits and '.', an IPv4 regular expression.
    pub(in crate::matcher) fn check_dotted_quad_string(&mut self, i: usize) {
        if self.context.language == Language::Rust {
            return;
        }
        let content = self.tokens[i].string_content();
        if !content.contains('.') {
            return; // both a digit set and an IPv4 pattern have a dot
        }
        // A set, not a number: most of the ten digits, each once, and a dot.
        let mut seen = [false; 10];
        let mut repeated = false;
        for c in content.chars().filter(char::is_ascii_digit) {
            let d = usize::from(c as u8 - b'0');
            repeated |= seen[d];
            seen[d] = true;
        }
        let distinct = seen.iter().filter(|s| **s).count();
        let char_set = content.contains('.')
            && distinct >= 8
            && !repeated
            && content.chars().all(|c| c.is_ascii_digit() || c == '.');
        let pattern = is_ipv4_pattern(content);
        let wildcard = is_ipv4_wildcard(content);
        if (char_set || pattern || wildcard) && !self.in_dispatch(i) {
            let what = if char_set {
                "a dotted-quad character set"
            } else if wildcard {
                "an IPv4 wildcard pattern"
            } else {
                "an IPv4 address pattern"
            };
            self.push("dotted-quad-text", Severity::Warning, i, format!("{what} treats only IPv4 text as an address; parse with inet_pton/getaddrinfo (ipaddress, net.ParseIP, InetAddress) for both families"));
            self.dotted_patterns.push(i);
        }
    }

    /// All languages: an address split or scanned on '.' (`ip.split('.')`,
    /// `strings.Split(ip, ".")`, `ip.replace('.', ',')`, `ip[n] == '.'`).
    pub(in crate::matcher) fn check_dotted_quad_call(&mut self, i: usize) {
        if self.context.language == Language::Rust {
            return;
        }
        let name = self.tokens[i].text;
        let is_dot = |t: &crate::token::Token<'_>| {
            t.kind == TokenKind::Str && matches!(t.string_content(), "." | "\\." | "\\\\.")
        };
        if matches!(
            name,
            "split"
                | "Split"
                | "replace"
                | "Replace"
                | "count"
                | "rsplit"
                | "SplitN"
                | "Count"
                | "ReplaceAll"
        ) && self.next_is(i, "(")
        {
            let Some(args) = self.call_arguments(i + 1) else {
                return;
            };
            let method_on =
                (i >= 2 && self.tokens[i - 1].is_punct(".")).then(|| self.tokens[i - 2].text);
            let go_style = matches!(
                name,
                "Split" | "SplitN" | "Replace" | "ReplaceAll" | "Count"
            ) && method_on == Some("strings")
                || name == "split" && method_on == Some("StringUtils");
            let (subject, dot_argument) = if go_style {
                let subject = args
                    .first()
                    .and_then(|a| self.tokens[a.clone()].last())
                    .map(|t| t.text);
                (subject, args.get(1))
            } else {
                (method_on, args.first())
            };
            let on_dot =
                dot_argument.is_some_and(|a| a.len() == 1 && is_dot(&self.tokens[a.start]));
            if on_dot && subject.is_some_and(is_address_name) && !self.in_dispatch(i) {
                self.push("dotted-quad-text", Severity::Warning, i, format!("`{name}` of an address on '.' assumes dotted-quad IPv4 text; parse the address (inet_pton, ipaddress, net.ParseIP) instead"));
            } else if on_dot
                && matches!(name, "split" | "Split")
                && self.four_parts_expected(i)
                && !self.in_dispatch(i)
            {
                self.push("dotted-quad-text", Severity::Warning, i, format!("`{name}` on '.' into four parts assumes dotted-quad IPv4 text; parse the address (inet_pton, ipaddress, net.ParseIP) instead"));
            }
            return;
        }
        // `ip[len - 1] == '.'` (not `host[len - 1] == '.'`: a name's trailing dot)
        if self.next_is(i, "[")
            && is_address_name(name)
            && !name.to_ascii_lowercase().contains("host")
        {
            let mut depth = 0usize;
            for j in i + 1..(i + 40).min(self.tokens.len()) {
                let t = &self.tokens[j];
                if t.is_punct("[") {
                    depth += 1;
                } else if t.is_punct("]") {
                    depth -= 1;
                    if depth == 0 {
                        let compared = self
                            .tokens
                            .get(j + 1)
                            .is_some_and(|c| matches!(c.text, "==" | "!="));
                        if compared
                            && self.tokens.get(j + 2).is_some_and(is_dot)
                            && !self.in_dispatch(i)
                        {
                            self.push("dotted-quad-text", Severity::Warning, i, format!("`{name}[..] == '.'` scans dotted-quad IPv4 text; IPv6 addresses have no dots"));
                        }
                        return;
                    }
                }
            }
        }
    }

    /// True if the parts of the split at `i` are counted against 4 within
    /// three lines (`parts.length != 4`, `len(parts) == 4`, `size() < 4`).
    fn four_parts_expected(&self, i: usize) -> bool {
        let line = self.tokens[i].line;
        let window = self.lines(line, line + 3);
        (window.start.max(i)..window.end).any(|j| {
            let t = &self.tokens[j];
            t.kind == TokenKind::Number
                && t.text == "4"
                && j >= 2
                && matches!(
                    self.tokens[j - 1].text,
                    "!=" | "==" | "!==" | "===" | "<" | ">="
                )
                && self.tokens[j.saturating_sub(6)..j - 1]
                    .iter()
                    .any(|c| matches!(c.text, "length" | "len" | "size" | "Length" | "count"))
        })
    }

    /// C/C++: copies and comparisons with a literal 4 among their arguments
    /// (not only the last: `byte_copy(ip, 4, src)`) where another argument
    /// is an address.
    pub(in crate::matcher) fn check_four_byte_any_argument(&mut self, i: usize) -> bool {
        let name = self.tokens[i].text;
        if !self.next_is(i, "(") || !is_copy_or_compare(name) {
            return false;
        }
        let Some(args) = self.call_arguments(i + 1) else {
            return false;
        };
        let four = args.iter().position(|a| {
            a.len() == 1
                && self.tokens[a.start].kind == TokenKind::Number
                && self.tokens[a.start].text == "4"
        });
        let Some(four) = four else { return false };
        let mentions_address = args
            .iter()
            .enumerate()
            .filter(|(k, _)| *k != four)
            .flat_map(|(_, a)| &self.tokens[a.clone()])
            .any(|t| {
                t.kind == TokenKind::Ident
                    && (ADDRESS_FIELDS.contains(&t.text) || is_address_name(t.text))
            });
        if mentions_address {
            self.push("four-byte-copy", Severity::Warning, i, format!("`{name}` of 4 bytes of an address copies a quarter of an IPv6 address; use the sockaddr length"));
        }
        mentions_address
    }
}

/// `*.*.*.*`, `192.168.*.*`: four dot-separated parts of digits or `*`,
/// at least one a wildcard (access lists written for IPv4 text).
impl<'s> Matcher<'_, 's> {
    /// Java and other builder languages: host and port appended around a
    /// bare `":"` (`sw.append(addr.getHostString()); sw.append(":");
    /// sw.append(addr.getPort())`): the same join as `host + ":" + port`,
    /// reported where the host is appended.
    pub(in crate::matcher) fn check_append_join(&mut self, i: usize) {
        if self.tokens[i].string_content() != ":"
            || i < 2
            || !self.tokens[i - 1].is_punct("(")
            || !self.tokens[i - 2].is_ident("append")
            || !self.next_is(i, ")")
        {
            return;
        }
        let Some(host) = self.nearby_append(i - 2, false).and_then(|args| {
            args.into_iter()
                .find(|&j| is_host_text(self.tokens[j].text))
        }) else {
            return;
        };
        let port_after = self.nearby_append(i - 2, true).is_some_and(|mut args| {
            args.any(|j| {
                let t = &self.tokens[j];
                t.kind == TokenKind::Ident
                    && crate::matcher::words::name_words(t.text)
                        .iter()
                        .any(|w| w == "port")
            })
        });
        if port_after
            && !self.brackets_handled_near(i)
            && !self.has_match("host-port-join", self.tokens[host].line)
        {
            self.push("host-port-join", Severity::Warning, host, "host appended before a bare ':' and the port: an ambiguous IPv6 text; bracket the host when it contains ':'".into());
        }
    }

    /// The argument tokens of the `append(` call before (or after) the one
    /// named at `at`, within 30 tokens and the same block.
    fn nearby_append(&self, at: usize, after: bool) -> Option<std::ops::Range<usize>> {
        let found = if after {
            (at + 1..(at + 30).min(self.tokens.len()))
                .take_while(|&j| !matches!(self.tokens[j].text, "{" | "}"))
                .find(|&j| self.tokens[j].is_ident("append") && self.next_is(j, "("))
        } else {
            (at.saturating_sub(30)..at)
                .rev()
                .take_while(|&j| !matches!(self.tokens[j].text, "{" | "}"))
                .find(|&j| self.tokens[j].is_ident("append") && self.next_is(j, "("))
        }?;
        let args = self.call_arguments(found + 1)?;
        Some(args.first()?.start..args.last()?.end)
    }

    /// All languages: host and port joined around a colon held in a
    /// constant (`ip + COLON + port`, `String.format("%s%s%s", host, DELIM,
    /// port)` where the file sets `DELIM = ":"`): the same join as
    /// `host + ":" + port`.
    pub(in crate::matcher) fn check_colon_constant_join(&mut self, i: usize) {
        let name = self.tokens[i].text;
        if self.tokens[i].kind != TokenKind::Ident
            || !(name.eq_ignore_ascii_case("colon") || self.colon_constants.contains(name))
            || self.next_is(i, "=")
        {
            return;
        }
        // The start of a qualified name (`Constants.COLON`, `sep::COLON`).
        let mut start = i;
        while start >= 2
            && matches!(self.tokens[start - 1].text, "." | "::")
            && self.tokens[start - 2].kind == TokenKind::Ident
        {
            start -= 2;
        }
        let concatenated = self.previous_is(start, "+") && self.next_is(i, "+");
        let formatted = self.previous_is(start, ",")
            && self.next_is(i, ",")
            && self.enclosing_open(i).is_some_and(|open| {
                matches!(
                    self.callee_at(open),
                    "format" | "Sprintf" | "sprintf" | "printf" | "formatted"
                )
            });
        if (concatenated || formatted)
            && !self.brackets_handled_near(i)
            && !self.in_message_call(i)
            && !self.credentials_near(i)
            && !self.has_match("host-port-join", self.tokens[i].line)
        {
            self.push("host-port-join", Severity::Warning, i, format!("host and port joined around `{name}` (a ':') give an ambiguous IPv6 text; bracket the host (net.JoinHostPort, SocketAddr Display)"));
        }
    }

    /// Java, JavaScript, TypeScript: the host taken before a colon found by
    /// `indexOf(':')`/`lastIndexOf(':')` (`int pidx = host.lastIndexOf(':');
    /// ... host = host.substring(0, pidx)`): the host of `[::1]:80` keeps its
    /// brackets, and a bare IPv6 address is cut at its last group.
    pub(in crate::matcher) fn check_colon_index_substring(&mut self, i: usize) {
        if !matches!(self.tokens[i].text, "substring" | "substr" | "slice") || !self.next_is(i, "(")
        {
            return;
        }
        let Some(args) = self.call_arguments(i + 1) else {
            return;
        };
        let [from, to] = args.as_slice() else {
            return;
        };
        if from.len() != 1 || self.tokens[from.start].text != "0" || to.len() != 1 {
            return;
        }
        let index = &self.tokens[to.start];
        if index.kind != TokenKind::Ident {
            return;
        }
        let start = self
            .enclosing_function_body(i)
            .unwrap_or(i.saturating_sub(600));
        // The index's nearest assignment is the value it holds here.
        let Some(assigned) = self.nearest_assignment(index.text, start, i) else {
            return;
        };
        let colon_index = self.tokens[self.statement(assigned + 1)]
            .windows(3)
            .any(|w| {
                matches!(w[0].text, "indexOf" | "lastIndexOf")
                    && w[1].is_punct("(")
                    && w[2].kind == TokenKind::Str
                    && w[2].string_content() == ":"
            });
        // `username.substring(0, j)` (user:password, RFC 3986 userinfo) and
        // `path.substring(0, i)` (a `name:version` path) cut no host.
        let not_a_host = i >= 2
            && self.tokens[i - 1].is_punct(".")
            && crate::matcher::words::name_words(self.tokens[i - 2].text)
                .iter()
                .any(|w| {
                    matches!(
                        w.as_str(),
                        "user"
                            | "username"
                            | "userinfo"
                            | "password"
                            | "passwd"
                            | "credential"
                            | "credentials"
                            | "path"
                            | "version"
                    )
                });
        if !colon_index
            || not_a_host
            || self.brackets_handled_near(i)
            || self.has_match("host-port-split", self.tokens[i].line)
        {
            return;
        }
        if self.is_last_colon_index(assigned + 1) && self.host_goes_to_resolver(i) {
            self.push("host-port-split", Severity::Note, i, format!("the host taken before the last ':' (`{}(0, {})`) goes to a resolver that accepts a bracketed IPv6 literal; check the text brackets it ([::1]:80)", self.tokens[i].text, index.text));
        } else {
            self.push("host-port-split", Severity::Warning, i, format!("the host taken before the ':' found by indexOf/lastIndexOf (`{}(0, {})`) keeps an IPv6 literal's brackets or cuts a bare one; use a bracket-aware host:port parser", self.tokens[i].text, index.text));
        }
    }
}

/// True if `text` names a host or an address as text (`getHostString`,
/// `getHostName`, `host`, `remoteAddr`).
fn is_host_text(text: &str) -> bool {
    matches!(text, "getHostString" | "getHostName" | "getHostAddress")
        || crate::matcher::words::is_address_name(text)
}

fn is_ipv4_wildcard(content: &str) -> bool {
    content.len() <= 15
        && content.contains('*')
        && content.split('.').count() == 4
        && content.split('.').all(|p| {
            (1..=3).contains(&p.len()) && (p == "*" || p.chars().all(|c| c.is_ascii_digit()))
        })
}
