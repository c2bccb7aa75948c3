//! Text for people (issue 28): log, exception, help and thread-name text, and
//! `toString()`-style debug output. An address literal, an address turned
//! into text or a host:port pair there is read by a person, not used to
//! connect, so its finding is a note. This was the largest class of false
//! findings on real ports (11 of 21 outside the changed lines).

use super::Matcher;
use crate::language::Language;
use crate::token::TokenKind;

/// Calls whose string arguments are help or usage text.
const HELP_CALLS: &[&str] = &[
    "help",
    "about",
    "long_help",
    "long_about",
    "usage",
    "Usage",
    "description",
    "setDescription",
];

/// Calls whose string argument names a thread.
const THREAD_CALLS: &[&str] = &[
    "Thread",
    "setName",
    "newThread",
    "setNameFormat",
    "ThreadFactoryBuilder",
    "name",
];

/// Keyword arguments and fields that hold help text (`help="..."`).
const HELP_KEYWORDS: &[&str] = &["help", "description", "usage", "epilog", "Usage", "Help"];

impl<'s> Matcher<'_, 's> {
    /// What kind of text for people the token at `i` is part of, if any.
    pub(super) fn prose_context(&self, i: usize) -> Option<&'static str> {
        let mut at = i;
        for _ in 0..4 {
            let Some(open) = self.enclosing_open_within(at, 300) else {
                break;
            };
            if self.is_message_call(open) {
                return Some("log or error text");
            }
            let callee = self.callee_at(open);
            if HELP_CALLS.contains(&callee) {
                return Some("help text");
            }
            let threads = self.idents.contains("Thread") || self.idents.contains("thread");
            if THREAD_CALLS.contains(&callee) && threads {
                return Some("a thread name");
            }
            at = open;
        }
        let keyword = i >= 2
            && (self.tokens[i - 1].is_punct("=") || self.tokens[i - 1].is_punct(":"))
            && HELP_KEYWORDS.contains(&self.tokens[i - 2].text);
        if keyword || self.assigned_to_help_name(i) {
            return Some("help text");
        }
        if self.in_debug_method(i) {
            return Some("debug text (toString)");
        }
        None
    }

    /// True if the string at `i` is the value of a constant or variable named
    /// for help or usage text: `HELP = """..."""` (Python), `static final
    /// String USAGE = "..."` (Java), `const usage = "..."` (Go, JavaScript),
    /// `const USAGE: &str = "..."` (Rust). The name is read back to the start
    /// of the declaration (at most 8 tokens on the line of the `=`, never past
    /// `;`, `{` or `}`).
    fn assigned_to_help_name(&self, i: usize) -> bool {
        if i < 2 || !self.tokens[i - 1].is_punct("=") {
            return false;
        }
        let line = self.tokens[i - 1].line;
        (i.saturating_sub(10)..i - 1)
            .rev()
            .take_while(|&j| {
                self.tokens[j].line == line && !matches!(self.tokens[j].text, ";" | "{" | "}")
            })
            .any(|j| self.tokens[j].kind == TokenKind::Ident && is_help_name(self.tokens[j].text))
    }

    /// True inside a `toString()` (Java, JavaScript), `String() string` (Go),
    /// `fmt` of a `Display`/`Debug` impl (Rust) or `__repr__`/`__str__`
    /// (Python) body.
    fn in_debug_method(&self, i: usize) -> bool {
        if self.context.language == Language::Python {
            return self.in_python_debug_method(i);
        }
        let mut depth = 0usize;
        for j in (i.saturating_sub(3000)..i).rev() {
            let t = &self.tokens[j];
            if t.is_punct("}") {
                depth += 1;
            } else if t.is_punct("{") {
                if depth == 0 {
                    if self.is_debug_header(j) {
                        return true;
                    }
                } else {
                    depth -= 1;
                }
            }
        }
        false
    }

    /// True if the tokens before the `{` at `open` declare a debug method.
    fn is_debug_header(&self, open: usize) -> bool {
        let start = (open.saturating_sub(40)..open)
            .rev()
            .find(|&j| matches!(self.tokens[j].text, ";" | "{" | "}"))
            .map_or(open.saturating_sub(40), |j| j + 1);
        let header = &self.tokens[start..open];
        header.windows(2).any(|w| {
            w[0].kind == TokenKind::Ident
                && w[1].is_punct("(")
                && match w[0].text {
                    "toString" => true,
                    "String" => self.context.language == Language::Go,
                    "fmt" => header.iter().any(|t| t.is_ident("Formatter")),
                    _ => false,
                }
        })
    }

    /// Python: the nearest enclosing `def` is `__repr__` or `__str__`.
    fn in_python_debug_method(&self, i: usize) -> bool {
        let line = self.tokens[i].line;
        let indent = self.tokens[self.lines(line, line).start].column;
        (0..i)
            .rev()
            .take(3000)
            .find(|&j| self.tokens[j].is_ident("def") && self.tokens[j].column < indent)
            .and_then(|j| self.tokens.get(j + 1))
            .is_some_and(|name| matches!(name.text, "__repr__" | "__str__"))
    }
}

/// True if `name` names help or usage text (`HELP`, `USAGE_TEXT`,
/// `helpMessage`, `usage`), not a helper (`helperAddr`).
fn is_help_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.contains("usage") || lower.contains("help") && !lower.contains("helper")
}

#[cfg(test)]
mod tests {
    use crate::matcher::severities;
    use crate::{Language, Severity};

    #[test]
    fn literals_in_log_help_and_thread_text_are_notes() {
        // Each source has one or two literals: three within three lines
        // would be a table of addresses (a note for that reason).
        let log = "class A {\n  void f() {\n    LOG.warn(\"cannot reach \"\n        + \"10.1.2.3\" + \" retrying\");\n  }\n}\n";
        let thread = "class A {\n  void f() {\n    new Thread(r, \"poller 10.0.0.1\");\n    connect(\"10.0.0.9\");\n  }\n}\n";
        assert_eq!(
            severities(log, Language::Java, "A.java", "ipv4-literal"),
            [Severity::Note]
        );
        assert_eq!(
            severities(thread, Language::Java, "A.java", "ipv4-literal"),
            [Severity::Note, Severity::Warning]
        );
        let rust = "fn args() {\n    Arg::new(\"peer\").help(\"the peer, e.g. 192.168.1.2\");\n}\n";
        assert_eq!(
            severities(rust, Language::Rust, "cli.rs", "ipv4-literal"),
            [Severity::Note]
        );
        let python = "parser.add_argument('--bind', help='address, e.g. 0.0.0.0')\n";
        assert_eq!(
            severities(python, Language::Python, "cli.py", "ipv4-literal"),
            [Severity::Note]
        );
    }

    #[test]
    fn literals_in_help_constants_are_notes_and_other_constants_are_not() {
        // waitress's runner.py: the help text is a module constant.
        let python = "HELP = \"\"\"\\\nUsage:\n  --host=ADDR  (default 0.0.0.0)\n\"\"\"\nHOST = \"127.0.0.1\"\n";
        assert_eq!(
            severities(python, Language::Python, "runner.py", "ipv4-literal"),
            [Severity::Note, Severity::Warning]
        );
        let java = "class Main {\n  static final String USAGE = \"usage: main [-h 10.0.0.1]\";\n  static final String HELPER_ADDR = \"10.0.0.2\";\n}\n";
        assert_eq!(
            severities(java, Language::Java, "Main.java", "ipv4-literal"),
            [Severity::Note, Severity::Warning]
        );
        let rust = "const USAGE: &str = \"usage: tool --bind 0.0.0.0\";\nconst BIND: &str = \"0.0.0.0\";\n";
        assert_eq!(
            severities(rust, Language::Rust, "main.rs", "ipv4-literal"),
            [Severity::Note, Severity::Warning]
        );
        let go = "package main\n\nconst usage = \"usage: tool -bind 0.0.0.0\"\n\nvar bind = \"0.0.0.0\"\n";
        assert_eq!(
            severities(go, Language::Go, "main.go", "ipv4-literal"),
            [Severity::Note, Severity::Warning]
        );
    }

    #[test]
    fn to_string_output_is_a_note_and_a_url_in_a_log_line_is_not() {
        let java = "class P {\n  public String toString() {\n    return host + \":\" + port;\n  }\n  void f() {\n    log.info(\"see http://%s:%d/\", host, port);\n  }\n}\n";
        assert_eq!(
            severities(java, Language::Java, "P.java", "host-port-join"),
            [Severity::Note, Severity::Warning]
        );
        let go = "package p\n\nfunc (p Peer) String() string {\n\treturn \"peer 10.0.0.1\"\n}\n";
        assert_eq!(
            severities(go, Language::Go, "p.go", "ipv4-literal"),
            [Severity::Note]
        );
    }

    #[test]
    fn family_tests_and_literals_beside_ipv6_ones_are_notes() {
        let go = "package p\n\nfunc f(ip net.IP, addr string) bool {\n\tif ip.To4() != nil {\n\t\treturn true\n\t}\n\treturn addr == \"0.0.0.0\" || addr == \"[::]\"\n}\n";
        assert_eq!(
            severities(go, Language::Go, "p.go", "to4-conversion"),
            [Severity::Note]
        );
        assert_eq!(
            severities(go, Language::Go, "p.go", "ipv4-literal"),
            [Severity::Note]
        );
        let rust = "fn f(a: &str) -> u16 {\n    let p = 1;\n    let s = \"10.0.0.1\";\n    p\n}\n#[cfg(test)]\nmod tests {\n    fn t() { let _ = \"127.0.0.1:80\"; }\n}\n";
        assert_eq!(
            severities(rust, Language::Rust, "lib.rs", "ipv4-literal"),
            [Severity::Warning, Severity::Note]
        );
    }

    #[test]
    fn rust_modules_under_a_test_cfg_are_test_code_and_ipv6_literals_show_a_path() {
        let bench = "fn f() {}\n#[cfg(all(test, feature = \"benchmark\"))]\nmod benchmarks {\n    fn b() { let _ = \"127.0.0.1:1234\"; }\n}\n";
        assert_eq!(
            severities(bench, Language::Rust, "packet.rs", "ipv4-literal"),
            [Severity::Note]
        );
        let not_test =
            "#[cfg(not(test))]\nmod real {\n    fn b() { let _ = \"10.0.0.1:1234\"; }\n}\n";
        assert_eq!(
            severities(not_test, Language::Rust, "real.rs", "ipv4-literal"),
            [Severity::Warning]
        );
        let branch = "async fn f(remote: SocketAddr) {\n    let s = UdpSocket::bind(if remote.is_ipv4() {\n        \"0.0.0.0:0\"\n    } else {\n        \"[::]:0\"\n    }).await;\n}\n";
        assert_eq!(
            severities(branch, Language::Rust, "server.rs", "ipv4-literal"),
            [Severity::Note]
        );
    }

    #[test]
    fn java_rust_and_python_family_branches_give_notes() {
        let java = "class A {\n  void f(InetAddress a, ByteBuffer b) {\n    if (a instanceof Inet6Address) {\n      b.put(a.getAddress());\n    } else {\n      byte[] ip = new byte[4];\n    }\n  }\n}\n";
        assert_eq!(
            severities(java, Language::Java, "A.java", "address-byte-layout"),
            [Severity::Note]
        );
        let rust = "fn f(ip: IpAddr) {\n    match ip {\n        IpAddr::V4(a) => {\n            let ip_bytes: [u8; 4] = a.octets();\n        }\n        IpAddr::V6(b) => {}\n    }\n}\n";
        assert_eq!(
            severities(rust, Language::Rust, "a.rs", "address-byte-layout"),
            [Severity::Note]
        );
        let python = "import socket\n\ndef f(ip, port, family):\n    if family == socket.AF_INET6:\n        return None\n    else:\n        return ip + ':' + str(port)\n";
        assert_eq!(
            severities(python, Language::Python, "a.py", "host-port-join"),
            [Severity::Note]
        );
    }
}
