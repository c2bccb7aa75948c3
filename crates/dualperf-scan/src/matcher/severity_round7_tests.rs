//! Severity tests of issue 28's round 7: `java.net.preferIPv4Stack` is a
//! warning only when set to true, a note when read in a file with no IPv6
//! path and nothing in one with it; imports of IPv4-named classes are
//! notes. Each case has a true negative beside it.

use crate::matcher::severities;
use crate::{Language, Severity};

#[test]
fn prefer_ipv4_stack_is_a_warning_only_when_set_to_true() {
    let set_true = "class P {\n  void f() {\n    System.setProperty(\"java.net.preferIPv4Stack\", \"true\");\n  }\n}\n";
    assert_eq!(
        severities(set_true, Language::Java, "P.java", "ipv4-named-api"),
        [Severity::Warning]
    );
    let set_false = "class P {\n  void f() {\n    System.setProperty(\"java.net.preferIPv4Stack\", \"false\");\n  }\n}\n";
    assert!(severities(set_false, Language::Java, "P.java", "ipv4-named-api").is_empty());
    let option = "class P {\n  String[] ARGS = {\"-Djava.net.preferIPv4Stack=true\"};\n}\n";
    assert_eq!(
        severities(option, Language::Java, "P.java", "ipv4-named-api"),
        [Severity::Warning]
    );
    let constant_true = "class P {\n  static final String PREFER_IPV4_STACK = \"java.net.preferIPv4Stack\";\n  void f() {\n    System.setProperty(PREFER_IPV4_STACK, \"true\");\n  }\n}\n";
    assert_eq!(
        severities(constant_true, Language::Java, "P.java", "ipv4-named-api"),
        [Severity::Note, Severity::Warning]
    );
}

#[test]
fn prefer_ipv4_stack_read_is_a_note_or_nothing_with_an_ipv6_path() {
    let read = "class P {\n  boolean f() {\n    boolean preferIPv4 = Boolean.getBoolean(\"java.net.preferIPv4Stack\");\n    return preferIPv4;\n  }\n}\n";
    assert_eq!(
        severities(read, Language::Java, "P.java", "ipv4-named-api"),
        [Severity::Note, Severity::Note]
    );
    let dual = "import java.net.Inet6Address;\nclass P {\n  boolean f(Object a) {\n    boolean preferIPv4 = Boolean.getBoolean(\"java.net.preferIPv4Stack\");\n    return preferIPv4 && a instanceof Inet6Address;\n  }\n}\n";
    assert!(severities(dual, Language::Java, "P.java", "ipv4-named-api").is_empty());
}

#[test]
fn imports_of_ipv4_named_classes_are_notes_and_uses_warnings() {
    let java = "import io.pkts.framer.IPv4Framer;\nclass P {\n  IPv4Framer framer = null;\n}\n";
    assert_eq!(
        severities(java, Language::Java, "P.java", "ipv4-named-api"),
        [Severity::Note, Severity::Warning]
    );
    let rust = "use pnet::packet::ipv4::Ipv4Packet;\nfn f(b: &[u8]) -> Option<Ipv4Packet<'_>> {\n    Ipv4Packet::new(b)\n}\n";
    assert_eq!(
        severities(rust, Language::Rust, "p.rs", "ipv4-named-api"),
        [Severity::Note, Severity::Warning, Severity::Warning]
    );
}

#[test]
fn java_imports_of_inet4address_are_notes() {
    let java = "import java.net.Inet4Address;\nclass P {\n  boolean f(Object a) {\n    return a instanceof Inet4Address;\n  }\n}\n";
    assert_eq!(
        severities(java, Language::Java, "P.java", "ipv4-only-type"),
        [Severity::Note, Severity::Warning]
    );
}

#[test]
fn go_to4_assigned_and_tested_is_a_family_test() {
    let go = "package p\n\nimport \"net\"\n\nfunc f(ip net.IP) []byte {\n\tif ip4 := ip.To4(); ip4 != nil {\n\t\treturn ip4\n\t}\n\treturn ip\n}\n\nfunc g(ip net.IP) []byte {\n\tip4 := ip.To4()\n\treturn ip4\n}\n";
    assert_eq!(
        severities(go, Language::Go, "p.go", "to4-conversion"),
        [Severity::Note, Severity::Warning]
    );
}
