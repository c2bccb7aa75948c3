//! 32-bit address integers outside C (issue 28): an address held in a
//! 32-bit integer in Rust (`ip: u32`, `peer.ip as i32`, `u32::from(addr)`),
//! Java (`int ip = …`, `long srcAddr`), Go (`ip uint32`,
//! `binary.BigEndian.Uint32(ip)`), C++ accessors that return one
//! (`uint32_t InetAddress::ipNetEndian() const`), and SQL columns for an
//! address declared as an integer in a schema string (`ip INTEGER`).
//!
//! An IPv6 address is 128 bits (RFC 4291 §2): a variable, field, column or
//! return value of 32 bits can only ever hold an IPv4 address. The name
//! decides: it must name an address value (`ip`, `peerAddr`, `ipNetEndian`),
//! not a quantity about one (`ipLen`, `hostPort`, `addressFamily`), see
//! [`super::words::is_address_value_name`].

use std::sync::LazyLock;

use regex::Regex;

use super::words::is_address_value_name;
use super::Matcher;
use crate::language::Language;
use crate::rule::Severity;
use crate::token::TokenKind;

/// The 32-bit integer types of each language that this module judges.
fn is_int32_type(language: Language, text: &str) -> bool {
    match language {
        Language::Rust => matches!(text, "u32" | "i32"),
        Language::Java => matches!(text, "int" | "Integer"),
        Language::Go => matches!(text, "uint32" | "int32"),
        _ => false,
    }
}

/// `ip INTEGER`, `peer_addr INT UNSIGNED`, `src_ip BIGINT`: a column
/// declared with an integer type in SQL text.
static SQL_INTEGER_COLUMN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:^|[\s(,])([a-z_][a-z_0-9]*)\s+(?:INTEGER|INT|INT4|BIGINT|UNSIGNED)(?-u:\b)")
        .expect("the SQL column pattern is valid")
});

impl Matcher<'_, '_> {
    /// Every language with strings: a schema string (`CREATE TABLE`, `ALTER
    /// TABLE`) that declares a column
    /// named for an address with an integer type (`ip INTEGER`): only an
    /// IPv4 address fits in it. Reported on the column's own line.
    pub(super) fn check_sql_address_column(&mut self, i: usize) {
        use Language::*;
        if !matches!(self.context.language, C | Cpp | Go | Java | Rust) {
            return; // the languages `s-addr-integer` lists
        }
        let token = &self.tokens[i];
        let text = token.text;
        let has_int = text
            .as_bytes()
            .windows(3)
            .any(|w| w.eq_ignore_ascii_case(b"int"));
        if !has_int || !text.contains(char::is_whitespace) {
            return;
        }
        // A schema: `CREATE TABLE` or `ALTER TABLE … ADD`, in any case.
        let upper = text.to_ascii_uppercase();
        if !upper.contains("CREATE TABLE") && !upper.contains("ALTER TABLE") {
            return;
        }
        let (line, column) = (token.line, token.column);
        let found: Vec<(usize, String)> = SQL_INTEGER_COLUMN
            .captures_iter(text)
            .filter_map(|c| c.get(1))
            .filter(|m| is_address_value_name(m.as_str()))
            .map(|m| (m.start(), m.as_str().to_string()))
            .collect();
        for (start, name) in found {
            let before = &text[..start];
            let newlines = before.matches('\n').count();
            let at_line = line + newlines;
            let at_column = match before.rfind('\n') {
                Some(nl) => start - nl - 1,
                None => column + start,
            };
            if self.has_match("s-addr-integer", at_line) {
                continue;
            }
            self.push("s-addr-integer", Severity::Warning, i, format!("the column `{name}` is declared as an integer: only an IPv4 address fits (IPv6 addresses are 128 bits, RFC 4291); store the address as text or 16 bytes with its family"));
            if let Some(m) = self.matches.last_mut() {
                m.line = at_line;
                m.column = at_column;
            }
        }
    }

    /// Rust, Java, Go: the integer type at `i` holds an address-named value.
    pub(super) fn check_int32_address(&mut self, i: usize) {
        let language = self.context.language;
        let text = self.tokens[i].text;
        if !is_int32_type(language, text) {
            return;
        }
        let line = self.tokens[i].line;
        if self.has_match("s-addr-integer", line) {
            return;
        }
        let ident_at = |j: usize| {
            self.tokens
                .get(j)
                .filter(|t| t.kind == TokenKind::Ident)
                .map(|t| t.text)
        };
        let before = |k: usize| i.checked_sub(k).and_then(ident_at);
        let named = match language {
            // `ip: u32` (field, parameter, binding), `peer.ip as i32`,
            // `u32::from(addr)`.
            Language::Rust => {
                if self.previous_is(i, ":") || i >= 1 && self.tokens[i - 1].is_ident("as") {
                    before(2)
                } else if self.next_is(i, "::") && self.text_at(i + 2) == "from" {
                    self.call_arguments(i + 3).and_then(|args| {
                        let arg = args.first()?;
                        self.tokens[arg.clone()]
                            .iter()
                            .rev()
                            .find(|t| t.kind == TokenKind::Ident)
                            .map(|t| t.text)
                    })
                } else {
                    None
                }
            }
            // `int ip = …`, `int ip;`, `int getIp()`, `(int ip, …)`.
            Language::Java => ident_at(i + 1).filter(|_| {
                self.tokens
                    .get(i + 2)
                    .is_some_and(|t| matches!(t.text, "=" | ";" | "," | ")" | "("))
            }),
            // `ip uint32` (field, parameter, `var ip uint32`), not `x.ip uint32`.
            Language::Go => before(1).filter(|_| !(i >= 2 && self.tokens[i - 2].is_punct("."))),
            _ => None,
        };
        let Some(name) = named else { return };
        if !is_address_value_name(name) {
            return;
        }
        let message = format!("`{name}` holds an address in a 32-bit `{text}`: only an IPv4 address fits (IPv6 addresses are 128 bits, RFC 4291); keep the address type (IpAddr, InetAddress, net.IP) or 16 bytes with the family");
        self.push("s-addr-integer", Severity::Warning, i, message);
    }

    /// Go: `binary.BigEndian.Uint32(ip)`: an address read as one 32-bit integer.
    pub(super) fn check_go_uint32_read(&mut self, i: usize) {
        if !matches!(self.tokens[i].text, "Uint32" | "PutUint32") || !self.next_is(i, "(") {
            return;
        }
        let line = self.tokens[i].line;
        let Some(args) = self.call_arguments(i + 1) else {
            return;
        };
        let names_address = args.iter().flat_map(|a| &self.tokens[a.clone()]).any(|t| {
            t.kind == TokenKind::Ident && (is_address_value_name(t.text) || t.text == "To4")
        });
        // `Uint32(ip[12:16])`: the header-offset rule reports the slice.
        let header_slice = args
            .iter()
            .flat_map(|a| &self.tokens[a.clone()])
            .any(|t| t.kind == TokenKind::Number && matches!(t.text, "12" | "16"));
        if header_slice {
            return;
        }
        if names_address && !self.has_match("s-addr-integer", line) {
            let name = self.tokens[i].text;
            self.push("s-addr-integer", Severity::Warning, i, format!("`{name}` of an address reads or writes it as a 32-bit integer: only an IPv4 address fits; keep the 16-byte net.IP"));
        }
    }

    /// C++: `uint32_t InetAddress::ipNetEndian() const`: a member function
    /// named for an address that returns a 32-bit integer (the type at `i`).
    pub(super) fn check_int32_accessor(&mut self, i: usize, name_at: usize) -> bool {
        let Some(name) = self.tokens.get(name_at) else {
            return false;
        };
        let qualified = self.previous_is(name_at, "::") && self.next_is(name_at, "(");
        if self.context.language != Language::Cpp
            || !qualified
            || name.kind != TokenKind::Ident
            || !is_address_value_name(name.text)
            || self.has_match("s-addr-integer", name.line)
        {
            return false;
        }
        let message = format!("`{}` returns an address as a 32-bit `{}`: only an IPv4 address fits; return the address type (a sockaddr_storage or the whole address object)", name.text, self.tokens[i].text);
        self.push("s-addr-integer", Severity::Warning, name_at, message);
        true
    }
}
