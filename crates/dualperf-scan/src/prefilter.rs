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

use crate::language::Language::{self, *};

/// One necessary text: the pattern, the languages whose rules need it, and
/// whether it only counts in a file that also names an address (a bare
/// number is an address length only next to one).
struct Necessary {
    pattern: &'static str,
    languages: &'static [Language],
    with_address_word: bool,
}

const SOURCE: &[Language] = &[C, Cpp, Python, Go, Java, JavaScript, TypeScript, Rust];
const C_LIKE: &[Language] = &[C, Cpp];
/// Languages whose rules name socket constants and options (`AF_INET`,
/// `INADDR_ANY`, `IP_TOS`, Python's servers, Go's and Rust's libc names).
const SOCKET_CONSTANTS: &[Language] = &[C, Cpp, Python, Go, Rust];

/// Texts without which no rule can match, with the languages they serve.
const NECESSARY: &[Necessary] = &[
    // inet-addr, inet-ntoa, inet-addrstrlen, address formatters
    Necessary {
        pattern: r"inet_|INET|gethostby|getnameinfo",
        languages: SOCKET_CONSTANTS,
        with_address_word: false,
    },
    // sockaddr-in, sockaddr-too-small, s-addr-integer (fields and types)
    Necessary {
        pattern: r"sockaddr|SockAddrIn|in_addr|s_addr|h_addr|S_addr|sin_port",
        languages: &[C, Cpp, Rust],
        with_address_word: false,
    },
    // af-inet-only, inaddr-constant, ipv4-socket-option
    Necessary {
        pattern: r"INADDR|IP_|socket|Server|make_server",
        languages: SOCKET_CONSTANTS,
        with_address_word: false,
    },
    // 32-bit address types (s-addr-integer, four-byte-copy)
    Necessary {
        pattern: r"int32|INT32|u32|be32|ipaddr_t|DWORD",
        languages: C_LIKE,
        with_address_word: false,
    },
    // s-addr-integer outside C: an address-named 32-bit integer (`ip: u32`,
    // `x.ip as i32`, `u32::from(addr)`, `int ip =`, `ip uint32`, `Uint32(ip)`)
    Necessary {
        pattern: r"(?i:ip|addr)\w*\s*:\s*[ui]32(?-u:\b)|(?-u:\b)as\s+[ui]32(?-u:\b)|(?-u:\b)[ui]32::from",
        languages: &[Rust],
        with_address_word: false,
    },
    // and SQL columns for an address declared as integers (`ip INTEGER`)
    Necessary {
        pattern: r"(?i:ip|addr)\w*\s+(?:INTEGER|INT|BIGINT)(?-u:\b)",
        languages: SOURCE,
        with_address_word: false,
    },
    Necessary {
        pattern: r"(?-u:\b)(?:int|Integer)\s+\w*(?i:ip|addr)\w*\s*[=;,)(]",
        languages: &[Java],
        with_address_word: false,
    },
    Necessary {
        pattern: r"(?i:ip|addr)\w*\s+u?int32(?-u:\b)|Uint32\(",
        languages: &[Go],
        with_address_word: false,
    },
    // address-byte-layout in Go: a mask for 32-bit addresses (`net.CIDRMask(n, 32)`)
    Necessary {
        pattern: r"CIDRMask",
        languages: &[Go],
        with_address_word: false,
    },
    // IPv4-named APIs and types in every language (ip4_fmt, Ipv4Addr,
    // Inet4Address, net.IPv4, isIPv4, 'IPv4', golang.org/x/net/ipv4)
    Necessary {
        pattern: r"(?i:ip4|ipv4|inet4)|AddrV4|To4|tcp4|udp4",
        languages: SOURCE,
        with_address_word: false,
    },
    Necessary {
        pattern: r"(?:bind|connect|accept|local|remote|name|send|recv|listen|scan|fmt|addr|resolve|lookup|sockaddr)4",
        languages: SOURCE,
        with_address_word: false,
    },
    // address-to-string (Java), dns-family-4, sockaddr-pair
    Necessary {
        pattern: r"Address|family|resolve4|lookup|getpeername|getsockname",
        languages: &[Python, Java, JavaScript, TypeScript],
        with_address_word: false,
    },
    // address-buffer-size: `char ip[16]`, `char buf[32]`
    Necessary {
        pattern: r"\[\s*[0-9]{1,2}\s*\]",
        languages: C_LIKE,
        with_address_word: false,
    },
    // four-byte-copy: a literal 4 argument, a length compared with or stepped by 4
    Necessary {
        pattern: r"[(,]\s*4\s*[),]|(?:[<>=!]=?|\+=?|-=)\s*4(?:[^0-9]|$)|(?:^|[^0-9.])4\s*(?:[<>=!]=|[<>+])",
        languages: C_LIKE,
        with_address_word: false,
    },
    // address-byte-layout: fixed 4/6/8 sizes and slices next to an
    // address (the address word is checked too), header offsets, the IHL,
    // the version nibble; v4-only-variant
    Necessary {
        pattern: r"[(\[,;:+]\s*[468]\s*[)\],:;]|\+\s*[468](?-u:\b)",
        languages: &[Go, Java, JavaScript, TypeScript, Rust],
        with_address_word: true,
    },
    Necessary {
        pattern: r"\[\s*1[26]\s*(?::|\.\.)|(?i:ihl)|>>\s*4|octets|new_v4|::V4",
        languages: SOURCE,
        with_address_word: false,
    },
    // address-byte-layout, an address as four parts: `ip[3]`, a parameter
    // of a byte or small integer type (`setSourceIP(int a, ...)`)
    Necessary {
        pattern: r"(?i:ip|addr|address|bytes|octets|raw|buf)[ \t\r\n]*\[[ \t\r\n]*3[ \t\r\n]*\]|[0-9A-Za-z_]\[[ \t\r\n]*2[ \t\r\n]*\][ \t\r\n]*,[ \t\r\n]*[0-9A-Za-z_]+\[[ \t\r\n]*3[ \t\r\n]*\]|(?:int|byte|short|char|u8|uint8)[ \t\r\n]+[0-9A-Za-z_]+[ \t\r\n]*,[ \t\r\n]*(?:int|byte|short|char|u8|uint8)[ \t\r\n]+[0-9A-Za-z_]+[ \t\r\n]*,[ \t\r\n]*(?:int|byte|short|char|u8|uint8)[ \t\r\n]+[0-9A-Za-z_]+[ \t\r\n]*,[ \t\r\n]*(?:int|byte|short|char|u8|uint8)[ \t\r\n]+[0-9A-Za-z_]+[ \t\r\n]*\)|[0-9A-Za-z_]+[ \t\r\n]*:[ \t\r\n]*(?:u8|u16|u32|i32|number)[ \t\r\n]*,[ \t\r\n]*[0-9A-Za-z_]+[ \t\r\n]*:[ \t\r\n]*(?:u8|u16|u32|i32|number)[ \t\r\n]*,[ \t\r\n]*[0-9A-Za-z_]+[ \t\r\n]*:[ \t\r\n]*(?:u8|u16|u32|i32|number)[ \t\r\n]*,[ \t\r\n]*[0-9A-Za-z_]+[ \t\r\n]*:[ \t\r\n]*(?:u8|u16|u32|i32|number)[ \t\r\n]*\)|\([ \t\r\n]*[0-9A-Za-z_]+[ \t\r\n]*,[ \t\r\n]*[0-9A-Za-z_]+[ \t\r\n]*,[ \t\r\n]*[0-9A-Za-z_]+[ \t\r\n]*,[ \t\r\n]*[0-9A-Za-z_]+[ \t\r\n]+(?:byte|uint8|int|uint16|uint32)[ \t\r\n]*\)",
        languages: &[C, Cpp, Go, Java, JavaScript, TypeScript, Rust],
        with_address_word: true,
    },
    // address-byte-layout: a port written at byte 4 of a compact peer (`a[4] = port >> 8`)
    Necessary {
        pattern: r"\[[ \t\r\n]*4[ \t\r\n]*\][ \t\r\n]*=[^=\n]*>>[ \t\r\n]*8",
        languages: &[C, Cpp, Go, Java, JavaScript, TypeScript, Rust],
        with_address_word: false,
    },
    // dotted-quad-text: a dotted-quad format string (`%d.%d`, `{}.{}`)
    Necessary {
        pattern: r"%[a-z]+\.%[a-z]+\.%[a-z]+\.%|\{[0-9]?\}\.\{[0-9]?\}\.\{[0-9]?\}\.\{",
        languages: SOURCE,
        with_address_word: false,
    },
    // host-port-split, host-port-join, sockaddr-pair: a colon in a string,
    // a colon constant (`CommonConstant.COLON`) or a host:port placeholder pair
    Necessary {
        pattern: r#"["'`]:|:["'`]|[sv}]:[%{$]|COLON|Colon(?-u:\b)"#,
        languages: SOURCE,
        with_address_word: false,
    },
    // ipv4-header-field: the header checksum and the Don't Fragment flag
    Necessary {
        pattern: r"(?i:ip_?checksum|header_?checksum|dont_?fragment)|ip_sum",
        languages: SOURCE,
        with_address_word: false,
    },
    // ipv6-skipped: a test that is true for IPv6 (before a `continue`)
    Necessary {
        pattern: r#"Inet6Address|is_ipv6|isIPv6|Is6\(|[AP]F_INET6|To4\(\)[ \t\r\n]*==[ \t\r\n]*nil|["']IPv6["']|["']ipv6["']|["']inet6["']|(?:version|family)[ \t\r\n]*===?[ \t\r\n]*6"#,
        languages: SOURCE,
        with_address_word: false,
    },
    // ipv4-only-command: nmap run by the program
    Necessary {
        pattern: r#"["'/\\ ]nmap(?:\.exe)?["' ]"#,
        languages: SOURCE,
        with_address_word: false,
    },
    // ipv4-header-field: a decoder's gates, IPv4's EtherType and the IP version;
    // address-byte-layout: the IHL turned into bytes
    Necessary {
        pattern: r"0[xX]0?800|ETH_P_IP(?-u:\b)|(?i:ip_?ver|internet_?protocol[a-z_]*version)|&[ \t]*(?:0[xX]0?[fF]|15)[ \t]*\)[ \t]*(?:\*[ \t]*4|<<[ \t]*2)",
        languages: SOURCE,
        with_address_word: false,
    },
    // ipv4-multicast-test: the first octet compared with 224 (or 0xE0)
    Necessary {
        pattern: r"(?-u:\b)(?:224|0[xX][eE]0)(?-u:\b)",
        languages: SOURCE,
        with_address_word: false,
    },
    // ipv4-literal: a dotted quad
    Necessary {
        pattern: r"[0-9]\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]",
        languages: SOURCE,
        with_address_word: false,
    },
    // dotted-quad-text: a regex with `\.`, a digit set, a '.' argument
    Necessary {
        pattern: r#"\\\.|\[0-9\.\]|\[\\d\.\]|["']\\*\.["']|[0-9.]{9,}|\*\.\*\.|\.\*\.\*|\.length\s*[!=<>]=?=?\s*4(?-u:\b)|len\([a-z_A-Z]+\)\s*[!=<>]=?\s*4(?-u:\b)"#,
        languages: SOURCE,
        with_address_word: false,
    },
];

/// Per language: one pattern of the texts that count alone, and one of
/// those that count next to an address word. One combined pattern is
/// searched like ripgrep searches (a `RegexSet` reporting every member is
/// several times slower).
struct LanguagePatterns {
    language: Language,
    alone: Option<Regex>,
    with_address_word: Option<Regex>,
}

static PATTERNS: LazyLock<Vec<LanguagePatterns>> = LazyLock::new(|| {
    let union = |language: Language, with_address_word: bool| {
        let parts: Vec<&str> = NECESSARY
            .iter()
            .filter(|n| n.languages.contains(&language) && n.with_address_word == with_address_word)
            .map(|n| n.pattern)
            .collect();
        (!parts.is_empty()).then(|| {
            Regex::new(&format!("(?:{})", parts.join(")|(?:")))
                .expect("the prefilter patterns are valid")
        })
    };
    Language::ALL
        .iter()
        .map(|&language| LanguagePatterns {
            language,
            alone: union(language, false),
            with_address_word: union(language, true),
        })
        .collect()
});

/// A word that names an address, its bytes or its holder (`ip`, `addr`,
/// `host`, `getAddress`, `sin_addr`, `octets`, `To4`, `peer`).
static ADDRESS_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i:addr|host|peer|octets|sin_|inet)|\bip|ip\b|I[Pp][A-Z_]|[a-z]Ip|IP\b|To4")
        .expect("the address-word pattern is valid")
});

/// True unless the environment asks to parse every file.
pub fn enabled() -> bool {
    static ENABLED: LazyLock<bool> =
        LazyLock::new(|| std::env::var_os("DUALPERF_SCAN_NO_PREFILTER").is_none());
    *ENABLED
}

/// False only if no rule of `language` can match anything in `source`.
pub fn may_match(source: &str, language: Language) -> bool {
    let Some(patterns) = PATTERNS.iter().find(|p| p.language == language) else {
        return true;
    };
    patterns.alone.as_ref().is_some_and(|r| r.is_match(source))
        || patterns
            .with_address_word
            .as_ref()
            .is_some_and(|r| r.is_match(source) && ADDRESS_WORD.is_match(source))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_code_is_skipped_and_address_code_is_not() {
        assert!(!may_match(
            "static int add(int a, int b) {\n    return a + b;\n}\n",
            C
        ));
        assert!(!may_match(
            "def total(items):\n    return sum(i.price for i in items)\n",
            Python
        ));
        // A fixed size with no address in the file, and a socket server
        // name in a language whose rules do not look at it.
        assert!(!may_match("ByteBuffer b = ByteBuffer.allocate(8);", Java));
        assert!(!may_match("class EchoServer { Server s; }", Java));
        for (source, language) in [
            ("x = inet_pton(AF_INET6, s, &a);", C),
            ("char ip[16];", C),
            ("host + \":\" + port", Java),
            ("f\"{host}:{port}\"", Python),
            ("memcpy(&a, b, 4);", C),
            ("if (addresses.len < 4)", C),
            ("const h = '10.0.0.1';", JavaScript),
            ("s = socket.socket()", Python),
            ("ip.split('.')", Python),
            ("dns_ip4_qualify(&a, &b, &c)", C),
            ("socket_bind4(s, ip, port)", C),
            ("if (iface.family === 'IPv4')", JavaScript),
            ("ByteBuffer hostHolder = ByteBuffer.allocate(8);", Java),
            ("byte[] bornHost = new byte[4];", Java),
            ("srcIP := data[12:16]", Go),
            ("copy(buf[:4], ip)", Go),
            ("let a: [u8; 4] = x;  // the peer's ip", Rust),
            ("ihl := data[0] & 0x0f", Go),
            ("sum.add(&ip.octets());", Rust),
            ("TcpSocket::new_v4()", Rust),
            ("+ 8 // BORNHOST", Java),
            ("ip: u32,", Rust),
            ("&(id.ip as i32)", Rust),
            ("int ip = 0;", Java),
            ("substringBefore(addr, CommonConstant.COLON)", Java),
            ("srcIP uint32", Go),
            ("binary.BigEndian.Uint32(ip)", Go),
            ("if (\"*.*.*.*\".equals(remoteAddr))", Java),
            ("if (parts.length !== 4) {", JavaScript),
            ("if len(parts) != 4 {", Go),
        ] {
            assert!(may_match(source, language), "{source}");
        }
    }
}
