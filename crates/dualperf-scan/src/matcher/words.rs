//! The vocabulary the matchers share: identifiers that show an IPv6 path,
//! address field and type names, split functions, host:port format
//! patterns, and how an identifier is recognised as naming an address.

use std::sync::LazyLock;

use regex::Regex;

/// Rules whose findings in text for people (log, help, thread names,
/// `toString()`) are notes.
pub(super) const PROSE_RULES: &[&str] = &[
    "ipv4-literal",
    "address-to-string",
    "host-port-join",
    "dotted-quad-text",
];

/// Identifiers that show a file has an IPv6 or family-agnostic path.
pub(super) const IPV6_IDENTS: &[&str] = &[
    "AF_INET6",
    "PF_INET6",
    "AF_UNSPEC",
    "PF_UNSPEC",
    "sockaddr_in6",
    "in6_addr",
    "sockaddr_storage",
    "Inet6Address",
    "Ipv6Addr",
    "SocketAddrV6",
    "isIPv6",
    "IPv6Address",
    "is_ipv6",
    "ipv6",
    "IPv6",
    "To16",
    "IPv6len",
    "Is6",
    "V6",
    "new_v6",
    "IPv6zero",
    "IPv6unspecified",
    "isValidInet6Address",
];

/// String contents that show a file has an IPv6 path (Node families, Go networks).
pub(super) const IPV6_STRINGS: &[&str] = &["IPv6", "udp6", "tcp6", "ip6", "golang.org/x/net/ipv6"];

/// What to do about one IPv4 literal.
pub fn literal_advice(address: std::net::Ipv4Addr) -> &'static str {
    if address.is_loopback() {
        "use \"localhost\" or also ::1"
    } else if address.is_unspecified() {
        "listen on :: with IPV6_V6ONLY off, or on both families"
    } else {
        "make it configurable or resolve a name"
    }
}

pub(super) fn ipv6_option_twin(name: &str) -> Option<&'static str> {
    Some(match name {
        "IP_TOS" => "IPV6_TCLASS",
        "IP_TTL" => "IPV6_UNICAST_HOPS",
        "IP_ADD_MEMBERSHIP" => "IPV6_JOIN_GROUP",
        "IP_DROP_MEMBERSHIP" => "IPV6_LEAVE_GROUP",
        "IP_MULTICAST_IF" => "IPV6_MULTICAST_IF",
        "IP_MULTICAST_TTL" => "IPV6_MULTICAST_HOPS",
        "IP_MULTICAST_LOOP" => "IPV6_MULTICAST_LOOP",
        "IP_PKTINFO" => "IPV6_RECVPKTINFO",
        "IP_RECVTOS" => "IPV6_RECVTCLASS",
        "IP_RECVTTL" => "IPV6_RECVHOPLIMIT",
        _ => return None,
    })
}

pub(super) const INTEGER_TYPES: &[&str] = &[
    "uint32_t",
    "u_int32_t",
    "int32_t",
    "in_addr_t",
    "int",
    "long",
    "unsigned",
    "u_long",
    "ulong",
    "DWORD",
    "ULONG",
    "u32",
    "uint",
    "UINT",
    "UINT32",
    "guint32",
];

pub(super) const BYTE_TYPES: &[&str] = &[
    "char", "uint8_t", "u_char", "u_int8_t", "BYTE", "u8", "gchar", "guchar", "TCHAR", "wchar_t",
];

pub(super) const ADDRESS_FIELDS: &[&str] = &[
    "s_addr",
    "sin_addr",
    "in_addr",
    "h_addr",
    "h_addr_list",
    "S_addr",
    "S_un",
];

pub(super) const SPLIT_FUNCTIONS: &[&str] = &[
    "split",
    "rsplit",
    "splitn",
    "rsplitn",
    "split_once",
    "rsplit_once",
    "partition",
    "rpartition",
    "strchr",
    "strrchr",
    "strtok",
    "strtok_r",
    "memchr",
    "memrchr",
    "byte_chr",
    "str_chr",
    "strpbrk",
    "strsep",
    "index",
    "rindex",
    "indexOf",
    "lastIndexOf",
    "find",
    "rfind",
    "find_last_of",
    "find_first_of",
    "Split",
    "SplitN",
    "Index",
    "LastIndex",
    "IndexByte",
    "LastIndexByte",
    "Cut",
    "substringBefore",
    "substringAfterLast",
];

/// `HOST:PORT` placeholders: any string placeholder, a colon, then a
/// numeric or port-named placeholder (`%s:%d`, `{}:{}`, `{host}:{port}`,
/// `${host}:${port}`). `%s:%s` is left out: it is usually `user:password`.
pub(super) static JOIN_FORMAT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?:%s|%v|%\.\*s|\{\}|\{0\}|\{[A-Za-z_][\w.]*\}|\$\{[^{}]+\})",
        r":",
        r"(?:%d|%u|%hu|%i|%ld|%lu|%v|\{\}|\{1\}|\{[\w.]*[Pp]ort[\w.]*(?::[^}]*)?\}|\$\{[^{}]*[Pp]ort[^{}]*\})",
    ))
    .expect("the host:port format pattern is valid")
});

/// `scheme://HOST:PORT` placeholders, `%s:%s` included (after `://` the
/// pair is an endpoint, not `user:password`).
pub(super) static URL_JOIN_FORMAT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"://(?:%s|%v|\{\}|\{0\}|\{[A-Za-z_][\w.]*\}|\$\{[^{}]+\}):(?:%s|%d|%u|%i|%v|\{\}|\{1\}|\{[A-Za-z_][\w.]*(?::[^}]*)?\}|\$\{[^{}]+\})")
        .expect("the URL host:port pattern is valid")
});

/// TURN and STUN URIs (RFC 7064, RFC 7065: `turn:HOST:PORT?transport=udp`)
/// built from placeholders: a scheme written out (`turn:%s:%d`) or a
/// `?transport=` after the pair (`%s:%s:%d?transport=%s`). The host needs
/// brackets when it is an IPv6 literal, as in any URI (RFC 3986).
pub(super) static TURN_JOIN_FORMAT: LazyLock<Regex> = LazyLock::new(|| {
    let host = r"(?:%s|%v|\{\}|\{[A-Za-z_][\w.]*\}|\$\{[^{}]+\})";
    let port = r"(?:%d|%s|%u|%v|\{\}|\{[A-Za-z_][\w.]*\}|\$\{[^{}]+\})";
    // Without the scheme, `%s:%s?transport=` is `scheme:hostport`: the
    // port must be a number's placeholder or named for a port.
    let number = r"(?:%d|%u|\{\}|\{[\w.]*[Pp]ort[\w.]*\}|\$\{[^{}]*[Pp]ort[^{}]*\})";
    Regex::new(&format!(
        r"(?:(?i:\b(?:turns?|stuns?)):{host}:{port}|{host}:{number}\?transport=)"
    ))
    .expect("the TURN URI pattern is valid")
});

/// True if `content` builds a TURN/STUN URI with an unbracketed host.
pub(super) fn has_turn_join_format(content: &str) -> bool {
    TURN_JOIN_FORMAT.is_match(content)
}

/// True if `content` builds a URL with an unbracketed host:port pair.
pub(super) fn has_url_join_format(content: &str) -> bool {
    URL_JOIN_FORMAT.is_match(content)
}

/// True if `content` has a host:port placeholder pair that is not part of a
/// longer colon chain (`%s:%s:%s`) and not already bracketed (`[%s]:%d`).
pub(super) fn has_join_format(content: &str) -> bool {
    JOIN_FORMAT.find_iter(content).any(|m| {
        let before = content[..m.start()].chars().next_back();
        let after = content[m.end()..].chars().next();
        !matches!(before, Some(']' | ':' | '['))
            && before.is_none_or(|c| !c.is_alphanumeric())
            && after != Some(':')
            // `"{}:{}|c"`: statsd metric text (name:value|type), not an address.
            && !content[m.end()..].starts_with('|')
    })
}

/// True if an identifier names an address: one of its words (split at `_`
/// and case changes) is `ip`, `addr`, `address`, `host`, `ipaddr`...
pub fn is_address_name(name: &str) -> bool {
    // Every address word contains `ip`, `addr` or `host`: most identifiers
    // are rejected here without splitting them into words.
    let has = |needle: &[u8]| {
        name.as_bytes()
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle))
    };
    if !(has(b"ip") || has(b"addr") || has(b"host")) {
        return false;
    }
    let words = name_words(name);
    words.iter().any(|w| {
        matches!(
            w.as_str(),
            "ip" | "ipv4"
                | "addr"
                | "address"
                | "addresses"
                | "addrs"
                | "host"
                | "ipaddr"
                | "ipstr"
                | "ipbuf"
                | "addrbuf"
                | "hostaddr"
                | "inaddr"
                | "saddr"
                | "daddr"
                | "ips"
        ) || role_word(w)
    })
}

/// The words of an identifier, lower case: split at `_`, digits and case
/// changes, an acronym ending where a capitalised word starts
/// (`getIPFromID` → get, ip, from, id; `peer_addr` → peer, addr).
pub(super) fn name_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous: Option<char> = None;
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '_' || c.is_ascii_digit() {
            words.push(std::mem::take(&mut word));
            previous = None;
            continue;
        }
        let next_lower = chars.peek().is_some_and(|n| n.is_lowercase());
        let starts_word = c.is_uppercase()
            && previous.is_some_and(|p| p.is_lowercase() || (p.is_uppercase() && next_lower));
        if starts_word {
            words.push(std::mem::take(&mut word));
        }
        word.push(c.to_ascii_lowercase());
        previous = Some(c);
    }
    words.push(word);
    words.retain(|w| !w.is_empty());
    words
}

/// True if an identifier names an address held as a value (`ip`,
/// `peerAddr`, `ipNetEndian`, `src_ip`), not a quantity about one
/// (`ipLen`, `addrCount`, `hostPort`, `addressFamily`, `ipIndex`).
pub(super) fn is_address_value_name(name: &str) -> bool {
    const QUANTITIES: &[&str] = &[
        "len", "length", "size", "count", "cnt", "port", "ports", "index", "idx", "family", "type",
        "version", "ver", "ttl", "offset", "off", "max", "min", "str", "string", "text", "name",
        "names", "id", "hash", "key", "list", "flag", "flags", "mode", "proto", "is", "has", "use",
        "enabled", "timeout", "time", "tos", "pos", "bytes", "buf", "checksum", "sum", "csum",
        // Byte offsets into a packet (`ipStart`, `ipEnd`): positions, not addresses.
        "start", "end", "begin",
    ];
    is_address_name(name)
        && !name.contains('6')
        && name_words(name)
            .iter()
            .all(|w| !QUANTITIES.contains(&w.as_str()))
}

/// `localip`, `remoteaddr`, `ipremote`, `peeraddr`: an address word glued to
/// the role it plays.
fn role_word(word: &str) -> bool {
    const ROLES: &[&str] = &[
        "local", "remote", "peer", "src", "dst", "source", "dest", "client", "server", "bind",
        "net", "listen", "my", "gw", "gateway", "next", "public", "private", "sender", "target",
        "str", "buf", "list",
    ];
    for core in ["ip", "addr", "address"] {
        if let Some(role) = word.strip_suffix(core) {
            if ROLES.contains(&role) {
                return true;
            }
        }
        if let Some(role) = word.strip_prefix(core) {
            if ROLES.contains(&role) {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn address_names_are_recognised_by_their_words() {
        assert!(is_address_name("ip"));
        assert!(is_address_name("peer_addr"));
        assert!(is_address_name("remoteIpBuf"));
        assert!(!is_address_name("zip"));
        assert!(is_address_name("localip"));
        assert!(is_address_name("ipremote"));
        assert!(is_address_name("addresses"));
        assert!(!is_address_name("skip"));
        assert!(!is_address_name("tooltip"));
        assert!(!is_address_name("pipeline"));
        assert!(is_address_name("getIPFromID"));
        assert!(is_address_name("remoteIPBuf"));
    }

    #[test]
    fn words_split_acronyms_where_a_word_starts() {
        assert_eq!(name_words("getIPFromID"), ["get", "ip", "from", "id"]);
        assert_eq!(name_words("peer_addr"), ["peer", "addr"]);
        assert_eq!(name_words("ipNetEndian"), ["ip", "net", "endian"]);
        assert_eq!(name_words("IPV4_HEADER"), ["ipv", "header"]);
        assert_eq!(name_words("HTTPServer"), ["http", "server"]);
    }

    #[test]
    fn address_values_are_told_from_quantities_about_addresses() {
        assert!(is_address_value_name("ip"));
        assert!(is_address_value_name("ipNetEndian"));
        assert!(is_address_value_name("src_ip"));
        assert!(!is_address_value_name("ipLen"));
        assert!(!is_address_value_name("hostPort"));
        assert!(!is_address_value_name("addressFamily"));
        assert!(!is_address_value_name("ip6"));
    }

    #[test]
    fn join_format_matches_unbracketed_host_port_only() {
        assert!(has_join_format("%s:%d"));
        assert!(has_join_format("{}:{}"));
        assert!(has_join_format("${host}:${port}"));
        assert!(has_join_format("http://{host}:{port}/"));
        assert!(has_join_format("CONNECT %s:%d HTTP/1.0"));
        assert!(!has_join_format("[{}]:{}"));
        assert!(!has_join_format("error %s: %d"));
        assert!(!has_join_format("%s:%s"), "user:password, not host:port");
        assert!(!has_join_format("%s:%s:%s"));
        assert!(!has_join_format("{a}:{b}"));
    }
}
