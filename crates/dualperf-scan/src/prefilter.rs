//! A cheap first look at a file: if none of the texts any rule needs is in
//! it, no rule can match and the file is not parsed at all.
//!
//! Parsing is most of a scan's time (tree-sitter builds a full syntax tree),
//! and about half the files of a typical C tree (curl's, for one) mention no
//! address API, no `:` or `.` in a string, no IPv4-sized array and no
//! 4-byte length. The pattern is the union of every rule's necessary text,
//! written next to the rule it serves; a rule that needs a text not listed
//! here would silently lose findings, so `DUALPERF_SCAN_NO_PREFILTER=1`
//! parses every file, for checking the two agree (the corpus harness and
//! the fixture tests do).

use std::sync::LazyLock;

use regex::Regex;

/// Texts without which no rule can match, one alternative per line.
const NECESSARY: &[&str] = &[
    // inet-addr, inet-ntoa, inet-addrstrlen, address formatters
    r"inet_|INET|gethostby|getnameinfo",
    // sockaddr-in, sockaddr-too-small, s-addr-integer (fields and types)
    r"sockaddr|in_addr|s_addr|h_addr|S_addr|sin_port",
    // af-inet-only, inaddr-constant, ipv4-socket-option
    r"INADDR|IP_|socket|Server|make_server",
    // 32-bit address types (s-addr-integer, four-byte-copy)
    r"int32|INT32|u32|be32|ipaddr_t|DWORD",
    // IPv4-named APIs and types in every language (ip4_fmt, Ipv4Addr,
    // Inet4Address, net.IPv4, isIPv4, 'IPv4', golang.org/x/net/ipv4)
    r"(?i:ip4|ipv4|inet4)|AddrV4|To4|tcp4|udp4",
    r"(?:bind|connect|accept|local|remote|name|send|recv|listen|scan|fmt|addr|resolve|lookup|sockaddr)4",
    // address-to-string (Java), dns-family-4, sockaddr-pair
    r"Address|family|resolve4|lookup|getpeername|getsockname",
    // address-buffer-size: `char ip[16]`, `char buf[32]`
    r"\[\s*[0-9]{1,2}\s*\]",
    // four-byte-copy: a literal 4 argument, a length compared with or stepped by 4
    r"[(,]\s*4\s*[),]|(?:[<>=!]=?|\+=?|-=)\s*4(?:[^0-9]|$)|(?:^|[^0-9.])4\s*(?:[<>=!]=|[<>+])",
    // address-byte-layout: fixed 4/6/8 sizes and slices, header offsets, the
    // IHL, the version nibble; v4-only-variant
    r"[(\[,;:+]\s*[468]\s*[)\],:;]|\[\s*1[26]\s*(?::|\.\.)|(?i:ihl)|>>\s*4|octets|new_v4|::V4|\+\s*[468]\b",
    // host-port-split, host-port-join, sockaddr-pair: a colon in a string or
    // a host:port placeholder pair
    r#"["'`]:|:["'`]|[sv}]:[%{$]"#,
    // ipv4-literal: a dotted quad
    r"[0-9]\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]",
    // dotted-quad-text: a regex with `\.`, a digit set, a '.' argument
    r#"\\\.|\[0-9\.\]|\[\\d\.\]|["']\\*\.["']|[0-9.]{9,}"#,
];

static PATTERN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&NECESSARY.join("|")).expect("the prefilter pattern is valid"));

/// True unless the environment asks to parse every file.
pub fn enabled() -> bool {
    static ENABLED: LazyLock<bool> =
        LazyLock::new(|| std::env::var_os("DUALPERF_SCAN_NO_PREFILTER").is_none());
    *ENABLED
}

/// False only if no rule can match anything in `source`.
pub fn may_match(source: &str) -> bool {
    PATTERN.is_match(source)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_code_is_skipped_and_address_code_is_not() {
        assert!(!may_match(
            "static int add(int a, int b) {\n    return a + b;\n}\n"
        ));
        assert!(!may_match(
            "def total(items):\n    return sum(i.price for i in items)\n"
        ));
        for source in [
            "x = inet_pton(AF_INET6, s, &a);",
            "char ip[16];",
            "host + \":\" + port",
            "f\"{host}:{port}\"",
            "memcpy(&a, b, 4);",
            "if (addresses.len < 4)",
            "const h = '10.0.0.1';",
            "s = socket.socket()",
            "ip.split('.')",
            "dns_ip4_qualify(&a, &b, &c)",
            "socket_bind4(s, ip, port)",
            "if (iface.family === 'IPv4')",
            "ByteBuffer hostHolder = ByteBuffer.allocate(8);",
            "byte[] bornHost = new byte[4];",
            "srcIP := data[12:16]",
            "copy(buf[:4], ip)",
            "let a: [u8; 4] = x;",
            "ihl := data[0] & 0x0f",
            "sum.add(&ip.octets());",
            "TcpSocket::new_v4()",
            "+ 8 // BORNHOST",
        ] {
            assert!(may_match(source), "{source}");
        }
    }
}
