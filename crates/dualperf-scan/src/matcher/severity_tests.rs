//! Severity tests of issue 28's second round of false findings: IP version
//! tests as family branches, java.util.logging levels as log text,
//! last-colon hosts for a bracket-aware resolver, per-family network tables
//! and `To4()` length tests. Each case has a true negative beside it.

use crate::matcher::severities;
use crate::{Language, Severity};

#[test]
fn ip_version_tests_are_family_branches_in_every_language() {
    // The IPv4 source at [12:16] inside the IPv4 arm is a note (and so is
    // the version test itself where it is reported: `b[0] >> 4 == 4`); the
    // same slice with no version test (last function) stays a warning.
    let go = "package p\n\nfunc f(b []byte) []byte {\n\tif (b[0] >> 4) == 4 {\n\t\treturn b[12:16]\n\t} else {\n\t\treturn b[8:24]\n\t}\n}\n\nfunc g(b []byte) []byte {\n\treturn b[12:16]\n}\n";
    assert_eq!(
        severities(go, Language::Go, "p.go", "address-byte-layout"),
        [Severity::Note, Severity::Warning]
    );
    let java = "class P {\n  byte[] f(byte[] b) {\n    if (b[0] >> 4 == 4) {\n      return java.util.Arrays.copyOfRange(b, 12, 16);\n    }\n    return java.util.Arrays.copyOfRange(b, 8, 24);\n  }\n  void g(java.net.InetAddress a) {\n    byte[] ip = new byte[4];\n    Inet6Address x;\n  }\n}\n";
    let java_found = severities(java, Language::Java, "P.java", "address-byte-layout");
    assert_eq!(
        java_found.last(),
        Some(&Severity::Warning),
        "{java_found:?}"
    );
    let rust = "fn f(b: &[u8]) -> &[u8] {\n    if b[0] >> 4 == 4 {\n        &b[12..16]\n    } else {\n        &b[8..24]\n    }\n}\nfn g(b: &[u8]) -> &[u8] {\n    &b[12..16]\n}\n";
    assert_eq!(
        severities(rust, Language::Rust, "p.rs", "address-byte-layout"),
        [Severity::Note, Severity::Note, Severity::Warning]
    );
    let python = "import socket\n\ndef f(b):\n    if b[0] >> 4 == 4:\n        return socket.inet_ntoa(b[12:16])\n    return socket.inet_ntop(socket.AF_INET6, b[8:24])\n\ndef g(b):\n    return socket.inet_ntoa(b[12:16])\n";
    assert_eq!(
        severities(python, Language::Python, "p.py", "inet-ntoa"),
        [Severity::Note, Severity::Error]
    );
    let c = "#include <arpa/inet.h>\nvoid f(const unsigned char *b, struct in_addr a, struct in6_addr *a6) {\n  if ((b[0] >> 4) == 4) {\n    puts(inet_ntoa(a));\n  } else {\n    puts(\"v6\");\n  }\n}\nvoid g(struct in_addr a) {\n  puts(inet_ntoa(a));\n}\n";
    let c_found = severities(c, Language::C, "p.c", "inet-ntoa");
    assert_eq!(c_found.first(), Some(&Severity::Note), "{c_found:?}");
    assert_ne!(c_found.last(), Some(&Severity::Note), "{c_found:?}");
}

#[test]
fn java_util_logging_levels_on_a_logger_are_log_text() {
    let java = "class S {\n  void f(String host, int port) {\n    log.fine(\"Sentinel \" + host + \":\" + port + \" published\");\n    LOGGER.severe(\"lost \" + host + \":\" + port);\n    fine(host + \":\" + port);\n  }\n}\n";
    // The two logger calls are log text; `fine(...)` on no logger is not.
    assert_eq!(
        severities(java, Language::Java, "S.java", "host-port-join"),
        [Severity::Warning]
    );
}

#[test]
fn a_last_colon_host_for_inet_socket_address_is_a_note() {
    let java = "class N {\n  Object a(String addr) {\n    int split = addr.lastIndexOf(\":\");\n    String host = addr.substring(0, split);\n    return new java.net.InetSocketAddress(host, Integer.parseInt(addr.substring(split + 1)));\n  }\n  Object b(String addr) {\n    return new java.net.InetSocketAddress(addr.substring(0, addr.lastIndexOf(\":\")), 80);\n  }\n  Object c(String addr) {\n    int split = addr.indexOf(\":\");\n    String host = addr.substring(0, split);\n    return new java.net.InetSocketAddress(host, 80);\n  }\n}\n";
    // a: both lines notes; b: one note; c (the first colon): warnings.
    assert_eq!(
        severities(java, Language::Java, "N.java", "host-port-split"),
        [
            Severity::Note,
            Severity::Note,
            Severity::Note,
            Severity::Warning,
            Severity::Warning
        ]
    );
}

#[test]
fn per_family_network_tables_and_to4_length_tests_are_notes() {
    let go = "package p\n\nvar (\n\tv4 = map[string]string{\"icmp\": \"ip4:icmp\", \"udp\": \"udp4\"}\n\tv6 = map[string]string{\"icmp\": \"ip6:ipv6-icmp\", \"udp\": \"udp6\"}\n)\n\nfunc isV4(ip net.IP) bool {\n\treturn len(ip.To4()) == net.IPv4len\n}\n\nfunc dial() {\n\tnet.Dial(\"tcp4\", a)\n\t_ = ip.To4()\n}\n";
    assert_eq!(
        severities(go, Language::Go, "p.go", "tcp4-network"),
        [Severity::Note, Severity::Note, Severity::Warning]
    );
    assert_eq!(
        severities(go, Language::Go, "p.go", "to4-conversion"),
        [Severity::Note, Severity::Warning]
    );
    let js = "const a = dgram.createSocket('udp4');\nconst b = dgram.createSocket('udp6');\n\n\nconst c = dgram.createSocket('udp4');\n";
    assert_eq!(
        severities(js, Language::JavaScript, "s.js", "tcp4-network"),
        [Severity::Note, Severity::Warning]
    );
    assert_eq!(
        severities(js, Language::TypeScript, "s.ts", "tcp4-network"),
        [Severity::Note, Severity::Warning]
    );
    let switch = "package p\n\nfunc (p *P) SetNetwork(n string) {\n\tswitch n {\n\tcase \"ip4\":\n\t\tp.network = \"ip4\"\n\n\n\tdefault:\n\t\tp.network = \"ip\"\n\t}\n}\n\nfunc other() {\n\tnet.ListenPacket(\"ip4:icmp\", \"\")\n}\n\nvar six = \"udp6\"\n";
    assert_eq!(
        severities(switch, Language::Go, "s.go", "tcp4-network"),
        [Severity::Note, Severity::Note, Severity::Warning]
    );
}
