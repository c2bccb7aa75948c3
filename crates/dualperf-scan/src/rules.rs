//! The rule table: every check the scanner runs, with its documentation.
//!
//! Rules are data. The matching code in [`crate::matcher`] refers to rules by
//! id; `docs/rules.md` is generated from this table (a test keeps it in step),
//! and each rule has fixtures under `fixtures/<rule-id>/`.

use crate::language::Language::{self, *};
use crate::rule::{Example, Rule, Severity};

const C_FAMILY: &[Language] = &[C, Cpp];
const C_AND_PYTHON: &[Language] = &[C, Cpp, Python];
const ALL_SOURCE: &[Language] = &[C, Cpp, Python, Go, Java, JavaScript, TypeScript, Rust];
const ALL_WITH_CONFIG: &[Language] = &[
    C, Cpp, Python, Go, Java, JavaScript, TypeScript, Rust, Config,
];
const JS_FAMILY: &[Language] = &[JavaScript, TypeScript];

/// Every rule, in the order the documentation lists them.
pub static RULES: &[Rule] = &[
    Rule {
        id: "inet-addr",
        severity: Severity::Error,
        languages: C_AND_PYTHON,
        what: "IPv4-only text-to-address conversion: `inet_addr`, `inet_aton`, `inet_network`, \
               `inet_makeaddr`, `inet_lnaof`, `inet_netof`; Python `socket.inet_aton`.",
        why: "These functions parse dotted-quad IPv4 text into a 32-bit `in_addr` and reject \
              every IPv6 address. `inet_addr` also returns `INADDR_NONE` (255.255.255.255) on \
              error, so the broadcast address cannot be told from a failure.",
        fix: "Use `getaddrinfo()` with `AI_NUMERICHOST` (family-agnostic, fills a \
              `sockaddr_storage`), or `inet_pton(AF_INET6, ...)` / `inet_pton(AF_INET, ...)` \
              when the family is known. Python: `socket.inet_pton` or `ipaddress.ip_address`.",
        example: Example {
            language: C,
            before: "addr.sin_addr.s_addr = inet_addr(host);",
            after: "struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_flags = AI_NUMERICHOST };\n\
                    getaddrinfo(host, port, &hints, &result);",
        },
    },
    Rule {
        id: "inet-ntoa",
        severity: Severity::Error,
        languages: C_AND_PYTHON,
        what: "IPv4-only address-to-text conversion: `inet_ntoa`; Python `socket.inet_ntoa`.",
        why: "`inet_ntoa` takes a 32-bit `struct in_addr` and cannot print an IPv6 address; it \
              also returns a static buffer that the next call overwrites.",
        fix: "Use `getnameinfo(sa, salen, host, sizeof host, NULL, 0, NI_NUMERICHOST)` on the \
              `sockaddr` you already have, or `inet_ntop(family, src, buf, INET6_ADDRSTRLEN)`. \
              Python: `socket.inet_ntop` or `str(ipaddress.ip_address(...))`.",
        example: Example {
            language: C,
            before: "printf(\"peer %s\\n\", inet_ntoa(peer.sin_addr));",
            after: "char host[NI_MAXHOST];\n\
                    getnameinfo((struct sockaddr *)&peer, len, host, sizeof host, NULL, 0, NI_NUMERICHOST);\n\
                    printf(\"peer %s\\n\", host);",
        },
    },
    Rule {
        id: "gethostbyname",
        severity: Severity::Error,
        languages: C_AND_PYTHON,
        what: "Legacy resolver calls: `gethostbyname`, `gethostbyname2`, `gethostbyname_r`, \
               `gethostbyaddr`; Python `socket.gethostbyname` and `gethostbyname_ex`.",
        why: "`gethostbyname` returns only A records (IPv4) in a `hostent` whose `h_addr` is \
              assumed to be 4 bytes; a host with only AAAA records cannot be reached, and a \
              dual-stack host is only ever reached over IPv4. The functions are obsolete \
              (POSIX.1-2008) and not thread-safe.",
        fix: "Use `getaddrinfo()` with `AF_UNSPEC` and try every returned address in order \
              (RFC 6724 sorting is done for you), and `getnameinfo()` for reverse lookups. \
              Python: `socket.getaddrinfo` or `socket.create_connection`.",
        example: Example {
            language: Python,
            before: "ip = socket.gethostbyname(host)\nsock.connect((ip, port))",
            after: "sock = socket.create_connection((host, port))",
        },
    },
    Rule {
        id: "sockaddr-in",
        severity: Severity::Warning,
        languages: &[C, Cpp, Rust],
        what: "IPv4-only address structures: `struct sockaddr_in` and `struct in_addr` (also \
               `libc::sockaddr_in` in Rust), and their fields `sin_port`/`sin_addr` read in a \
               file that declares no `sockaddr_in` (the struct came in as a `sockaddr *`); \
               `sin_port` read in a file that declares one and has no IPv6 path. A note \
               in a file that also handles IPv6; nothing inside the IPv4 branch of a family \
               switch (`case AF_INET:`), where it is that branch's own type.",
        why: "`sockaddr_in` holds a 4-byte address. Code that declares one for `accept()`, \
              `recvfrom()` or `getpeername()` truncates IPv6 peers, and code that builds one \
              can only ever connect over IPv4.",
        fix: "Store addresses in `struct sockaddr_storage` (big enough for every family) and \
              pass `(struct sockaddr *)&ss` with its length; build addresses with \
              `getaddrinfo()`. Rust: `std::net::SocketAddr` or `socket2::SockAddr`.",
        example: Example {
            language: C,
            before: "struct sockaddr_in peer;\nsocklen_t len = sizeof peer;\naccept(fd, (struct sockaddr *)&peer, &len);",
            after: "struct sockaddr_storage peer;\nsocklen_t len = sizeof peer;\naccept(fd, (struct sockaddr *)&peer, &len);",
        },
    },
    Rule {
        id: "af-inet-only",
        severity: Severity::Warning,
        languages: &[C, Cpp, Python, Go, Rust],
        what: "`AF_INET` or `PF_INET` in a file that never mentions `AF_INET6`, `PF_INET6` or \
               `AF_UNSPEC`/`PF_UNSPEC`; in a file that does, each call is judged: `AF_INET` as \
               the family of a `socket()` call or assigned to a family setting \
               (`hints.ai_family = AF_INET`, a class's `family = AF_INET`, Go's keyed field \
               `Family: unix.AF_INET` in a request literal), outside a branch on the family. \
               Python: \
               `socket.socket()` with no family; the standard servers whose class fixes AF_INET \
               (`HTTPServer`, `TCPServer`, wsgiref's `make_server`) unless the file sets \
               `address_family`; and classes of the file whose body sets `family = AF_INET`, \
               where they are chosen (`sock_type = TCPSocket`).",
        why: "A socket created with `AF_INET` can only speak IPv4. When the file has no IPv6 or \
              unspecified-family path at all, the code is IPv4-only rather than dual-stack.",
        fix: "Take the family from `getaddrinfo()` results (`ai->ai_family`), or open one \
              `AF_INET6` socket with `IPV6_V6ONLY` off to serve both families. Python: \
              `socket.create_connection` / `socket.create_server(..., family=AF_INET6, \
              dualstack_ipv6=True)`.",
        example: Example {
            language: C,
            before: "int fd = socket(AF_INET, SOCK_STREAM, 0);",
            after: "for (ai = result; ai; ai = ai->ai_next) {\n    fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);\n    if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) break;\n}",
        },
    },
    Rule {
        id: "inaddr-constant",
        severity: Severity::Warning,
        languages: &[C, Cpp, Python, Go, Rust],
        what: "IPv4 address constants: `INADDR_ANY`, `INADDR_LOOPBACK`, `INADDR_BROADCAST`, \
               `INADDR_NONE`; Rust `Ipv4Addr::LOCALHOST`, `UNSPECIFIED` and `BROADCAST`; Go \
               `net.IPv4zero`, `net.IPv4bcast`, `net.IPv4allsys`, `net.IPv4allrouter`.",
        why: "Binding to `INADDR_ANY` listens on IPv4 only; `INADDR_LOOPBACK` is 127.0.0.1 and \
              not ::1; IPv6 has no broadcast at all.",
        fix: "Listen with `getaddrinfo(NULL, port, {AI_PASSIVE, AF_UNSPEC})` or on `in6addr_any` \
              with `IPV6_V6ONLY` off; use `in6addr_loopback` (`::1`); replace broadcast with a \
              multicast group (`ff02::1` all-nodes, or an application group).",
        example: Example {
            language: C,
            before: "sin.sin_addr.s_addr = htonl(INADDR_ANY);",
            after: "sin6.sin6_family = AF_INET6;\nsin6.sin6_addr = in6addr_any; /* with IPV6_V6ONLY = 0 */",
        },
    },
    Rule {
        id: "inet-addrstrlen",
        severity: Severity::Warning,
        languages: C_FAMILY,
        what: "`INET_ADDRSTRLEN` (16) used to size an address string buffer.",
        why: "The longest IPv6 text form needs 46 bytes (`INET6_ADDRSTRLEN`), and more with a \
              zone (`fe80::1%eth0`); a 16-byte buffer truncates it or overflows.",
        fix: "Use `INET6_ADDRSTRLEN`, or `NI_MAXHOST` with `getnameinfo()`, which covers every \
              family and zone ids.",
        example: Example {
            language: C,
            before: "char text[INET_ADDRSTRLEN];",
            after: "char text[INET6_ADDRSTRLEN];",
        },
    },
    Rule {
        id: "ipv4-socket-option",
        severity: Severity::Warning,
        languages: &[C, Cpp, Python, Go, Rust],
        what: "IPv4-level socket options: `IP_TOS`, `IP_TTL`, `IP_ADD_MEMBERSHIP`, \
               `IP_DROP_MEMBERSHIP`, `IP_MULTICAST_IF`, `IP_MULTICAST_TTL`, \
               `IP_MULTICAST_LOOP`, `IP_PKTINFO`, `IP_RECVTOS`, `IP_RECVTTL`.",
        why: "Options at level `IPPROTO_IP` act on IPv4 packets only. On an `AF_INET6` socket \
              they fail or silently do nothing, so DSCP marking, hop limits and multicast \
              membership are lost on IPv6 (the OpenH323 porting study, §6: the TOS option had to be ported).",
        fix: "Set the `IPPROTO_IPV6` twin as well: `IP_TOS`→`IPV6_TCLASS`, \
              `IP_TTL`→`IPV6_UNICAST_HOPS`, `IP_ADD_MEMBERSHIP`→`IPV6_JOIN_GROUP`, \
              `IP_DROP_MEMBERSHIP`→`IPV6_LEAVE_GROUP`, `IP_MULTICAST_IF`→`IPV6_MULTICAST_IF`, \
              `IP_MULTICAST_TTL`→`IPV6_MULTICAST_HOPS`, `IP_MULTICAST_LOOP`→\
              `IPV6_MULTICAST_LOOP`, `IP_PKTINFO`→`IPV6_RECVPKTINFO`, `IP_RECVTOS`→\
              `IPV6_RECVTCLASS`, `IP_RECVTTL`→`IPV6_RECVHOPLIMIT`; choose by the socket's family.",
        example: Example {
            language: C,
            before: "setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof tos);",
            after: "if (family == AF_INET6)\n    setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof tos);\nelse\n    setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof tos);",
        },
    },
    Rule {
        id: "ipv4-literal",
        severity: Severity::Warning,
        languages: ALL_WITH_CONFIG,
        what: "A hard-coded IPv4 address (`127.0.0.1`, `0.0.0.0`, any dotted quad that parses as \
               an address) in a string literal or a configuration file, or built from four \
               numbers (Go `net.IPv4(127, 0, 0, 1)`, Rust `Ipv4Addr::new(127, 0, 0, 1)`). \
               Reported as a note in test files (and Rust `#[cfg(test)]` modules) and in \
               tables of several addresses, where it is probably data; in text for people \
               (log, exception, help and thread-name text, continuation lines of a multi-line \
               log call included, a constant named for help or usage text such as \
               `HELP = \"\"\"...\"\"\"` or `static final String USAGE = ...`, and \
               `toString()`/`String()`/`Display`/`__repr__` bodies); \
               and beside an IPv6 literal (`addr == \"0.0.0.0\" || addr == \"[::]\"`). \
               A comparison with a constant the file sets to an IPv4 literal (`HOSTIP = \
               \"127.0.0.1\"` .. `s.equals(HOSTIP)`, `host == LOOPBACK_IP`; a constant is \
               written in capitals or declared `const`/`final`) is reported where it compares \
               (a note in a file with an IPv6 path): the loopback or wildcard test \
               that `::1`/`::` never pass. \
               Misses: addresses assembled at run time from numbers held in variables, \
               constants defined in another file.",
        why: "A literal IPv4 address pins the code to IPv4: `127.0.0.1` is not the IPv6 loopback, \
              `0.0.0.0` listens on IPv4 only, and a literal peer address bypasses name \
              resolution and with it AAAA records (the OpenH323 porting study, §8: hard-coded addresses were most \
              of the application-level changes).",
        fix: "Use names (`localhost`) resolved with `getaddrinfo`, make the address \
              configurable, listen on `::` with `IPV6_V6ONLY` off, or list both `127.0.0.1` \
              and `::1`.",
        example: Example {
            language: Go,
            before: "ln, err := net.Listen(\"tcp\", \"0.0.0.0:8080\")",
            after: "ln, err := net.Listen(\"tcp\", \":8080\") // both families",
        },
    },
    Rule {
        id: "s-addr-integer",
        severity: Severity::Warning,
        languages: &[C, Cpp, Go, Java, Rust],
        what: "An IPv4 address (`s_addr`, `h_addr`) stored in or cast to a 32-bit integer \
               (`uint32_t`, `in_addr_t`, `int`, `long`, `unsigned`, `DWORD`...), compared or \
               returned as a value (`a.s_addr != b.s_addr`, `return sin->sin_addr.s_addr;`), and \
               variables, parameters and fields named for an address with a 32-bit type \
               (`uint32_t addr`, `in_addr_t ip`, `int32_t ip`) or C++ member functions named for \
               one that return it (`uint32_t InetAddress::ipNetEndian() const`). Outside C \
               (issue 28): Rust `ip: u32` (fields, parameters, bindings), `peer.ip as i32`, \
               `u32::from(addr)`; Java `int ip = …`, `int remoteAddr(…)`; Go `srcIP uint32`, \
               `binary.BigEndian.Uint32(ip)`; in schema strings (`CREATE TABLE`, `ALTER \
               TABLE`), a column named for an address declared as an integer (`ip INTEGER`, \
               `client_ip INT UNSIGNED`), reported on the column's line. The name must name an \
               address value, not a \
               quantity about one (`ipLen`, `hostPort`, `addressFamily`, `ipCount`, and byte \
               offsets such as `ipStart`, `ipEnd` are not reported). Misses: integers not named for an address (`let i: i32 = \
               row.get(0)` read from a database column), Java `long` addresses.",
        why: "The address is assumed to be 4 bytes long: the variable, the hash key or the \
              struct field cannot hold a 16-byte IPv6 address. The OpenH323 porting study (§7) found these the most \
              time-consuming dependencies to port, because no tool reported them.",
        fix: "Keep addresses in `struct sockaddr_storage` (or `struct in6_addr` plus family) and \
              compare with `memcmp` over the family's length; hash the whole address.",
        example: Example {
            language: C,
            before: "uint32_t ip = ntohl(peer.sin_addr.s_addr);",
            after: "struct sockaddr_storage ip;\nmemcpy(&ip, &peer, peer_len);",
        },
    },
    Rule {
        id: "address-buffer-size",
        severity: Severity::Warning,
        languages: C_FAMILY,
        what: "A byte or char array for an address with an IPv4-sized length: `char ip[16]`, \
               `char host_addr[15]`, `unsigned char addr[4]`, `char localip[4]`, \
               `char ipstr[IP4_FMT]`; and any char buffer shorter than 46 that an address \
               formatter writes into (`char buf[32]` passed to `inet_ntop`, `getnameinfo`, a \
               wrapper named for an address such as `toIpPort(buf, sizeof buf, addr)`, or \
               `snprintf` with `%d.%d.%d.%d`, `%s:%d`, or a `%s` fed an address or host:port \
               text such as `hostport_.c_str()`). Misses: buffers sized by a named \
               constant other than the IPv4 ones.",
        why: "16 characters fit the longest dotted quad plus NUL; 4 bytes fit a binary IPv4 \
              address. IPv6 needs 46 characters of text or 16 bytes of binary.",
        fix: "Size text buffers with `INET6_ADDRSTRLEN` or `NI_MAXHOST`, binary buffers with \
              `sizeof(struct in6_addr)`, or store a `sockaddr_storage`.",
        example: Example {
            language: C,
            before: "char ip[16];",
            after: "char ip[INET6_ADDRSTRLEN];",
        },
    },
    Rule {
        id: "four-byte-copy",
        severity: Severity::Warning,
        languages: C_FAMILY,
        what: "`memcpy`/`memmove`/`memcmp`/`bcopy` (and other copy or compare functions such \
               as `byte_copy(ip, 4, src)`) of exactly 4 bytes (or `sizeof(uint32_t)`, \
               `sizeof(in_addr_t)`) where an argument is an address (`s_addr`, `sin_addr`, \
               `h_addr`, a variable named for an address); an address length compared with or \
               stepped by 4 (`addresses.len < 4`, `j += 4` over `addresses.len`).",
        why: "Copying or comparing 4 bytes of an address only works for IPv4; on IPv6 it \
              copies a quarter of the address, and two different IPv6 hosts compare equal.",
        fix: "Copy `ai_addrlen`/`socklen_t` bytes of the `sockaddr`, or `sizeof(struct in6_addr)` \
              for the address alone, chosen by family.",
        example: Example {
            language: C,
            before: "memcpy(&sin.sin_addr, he->h_addr, 4);",
            after: "memcpy(&ss, ai->ai_addr, ai->ai_addrlen);",
        },
    },
    Rule {
        id: "host-port-split",
        severity: Severity::Warning,
        languages: ALL_SOURCE,
        what: "`host:port` text split on the first or last `:` without handling brackets: \
               `split(\":\")`, `strchr(s, ':')`, `strrchr(s, ':')`, `rsplit(':', 1)`, \
               `strings.Split(s, \":\")`, `indexOf(':')`, `split_once(':')`, `memchr(s, ':', \
               n)`...; a character of an address compared with `':'` (`host[i] == ':'`, \
               `s.charAt(i) == ':'` in Java and JavaScript). Not reported when the code within \
               12 lines before or 3 after looks for `[` or `]`, nor around `user`/`password` \
               names (a URI's `authority` is host:port, RFC 3986, and is reported). After a Python `':' in host` guard the guard's line is reported. \
               The colon may be held in a constant: one named `COLON` \
               (`StringUtils.substringBefore(addr, CommonConstants.COLON)`) or one this file \
               sets to `\":\"` (`SEPARATOR = \":\"`, `const SEP: &str = \":\"`). The port \
               taken after the last colon (`port = substringAfterLast(addr, COLON)`, \
               `parseInt(substringAfterLast(…))`) is right for `[::1]:80` and not reported, and \
               neither is a MAC address split at `:` (`macAddress.split(\":\")`). \
               The parts of a reported colon split read by index (`split[0]` as the host, \
               `split[1]` as the port, within 40 lines and until the variable is assigned \
               again) are reported too, once per line. \
               Go and Python: the colons counted and compared with one \
               (`strings.Count(server, \":\") != 1`, `host.count(':') == 1`); `> 1` (telling an \
               IPv6 literal apart) is not reported. \
               Java and JavaScript: the host taken with `substring(0, i)` where `i` came \
               from `indexOf(':')`/`lastIndexOf(':')` in the same function (`host = \
               host.substring(0, pidx)`), reported as well as the `indexOf` (not when the \
               text cut is named for credentials or a path: `username.substring(0, j)`, \
               `path.substring(0, i)`); the index's \
               nearest assignment before the cut counts (an `idx` set again from \
               `indexOf(\";\")` is not a colon's). Java: a host cut at the last colon that goes \
               only to a resolver taking a bracketed IPv6 literal (`new \
               InetSocketAddress(host, port)`, `InetAddress.getByName`, `URI`) is a note: \
               `[::1]:80` leaves `[::1]`, which they accept. \
               A helper named for splitting given a colon (`StringSplitIgnoreEmpty(s, ':')`, \
               `absl::StrSplit(s, \":\")`; not `SplitHostPort`), and in Java and JavaScript \
               a colon constant compared with a character (`COLON == url.charAt(i)`). \
               Misses: a colon constant defined in another file under another name, \
               splits behind a helper not named for splitting, and a pointer scan \
               (`while (*p != ':')`).",
        why: "An IPv6 address contains colons. `2001:db8::1:80` cannot be split at all, and \
              RFC 3986 writes it `[2001:db8::1]:80`, which a split on the first `:` turns into \
              host `[2001` and port `db8::1]:80`.",
        fix: "Use a bracket-aware parser: Go `net.SplitHostPort`, Python \
              `urllib.parse.urlsplit('//' + s)` (`.hostname`, `.port`), Rust \
              `s.parse::<SocketAddr>()`, Java `java.net.URI` / Guava `HostAndPort`, Node \
              `new URL('tcp://' + s)`; in C, look for a leading `[` before splitting.",
        example: Example {
            language: Python,
            before: "host, port = target.split(\":\")",
            after: "parts = urllib.parse.urlsplit(\"//\" + target)\nhost, port = parts.hostname, parts.port",
        },
    },
    Rule {
        id: "host-port-join",
        severity: Severity::Warning,
        languages: ALL_SOURCE,
        what: "`host:port` text built without brackets: `host + \":\" + port`, \
               `\":\".join(...)`, and format strings such as `\"%s:%d\"`, `\"{}:{}\"`, \
               `f\"{host}:{port}\"`, `` `${host}:${port}` `` (not when the text goes on \
               with `|`: statsd's `\"{}:{}|c\"` is name:value|type), and TURN/STUN URIs (RFC 7064, \
               RFC 7065) with a bare host: `\"turn:%s:%d\"`, `\"%s:%s:%d?transport=%s\"`; \
               not in logging, printing and \
               exception messages (`log.info(...)`, java.util.logging's `log.fine(...)`, \
               `LOGGER.severe(...)`, `raise ValueError(...)`), except URLs \
               (`\"http://%s:%s/\"`), which are made to be used; a note in help and \
               thread-name text and in `toString()`-style debug output. Builders: a host \
               appended, then `append(\":\")`, then a port within 30 tokens \
               (`sw.append(addr.getHostString()); sw.append(\":\"); sw.append(port)`), \
               reported on the host's line. A colon held in a constant (`ip + \
               Constants.COLON + port`, `String.format(\"%s%s%s\", host, DELIM, port)` with \
               `DELIM = \":\"`) joins the same way. Code near credentials (`user`, `auth`, \
               `password`) is left alone unless the join's operands are a host and a port \
               (`host + \":\" + std::to_string(port)`). Misses: a join spread over helper \
               functions, a colon constant defined in another file under another name.",
        why: "Joined with a bare colon, an IPv6 literal gives `2001:db8::1:80`, which no parser \
              can split back; URLs and `connect` strings need `[2001:db8::1]:80` (RFC 3986 \
              §3.2.2).",
        fix: "Go `net.JoinHostPort(host, port)`; Rust `SocketAddr::new(ip, port).to_string()`; \
              Python `f\"[{host}]:{port}\"` when `':' in host`; Java/JS: add brackets when the \
              host contains `:`.",
        example: Example {
            language: Go,
            before: "addr := host + \":\" + port",
            after: "addr := net.JoinHostPort(host, port)",
        },
    },
    Rule {
        id: "tcp4-network",
        severity: Severity::Warning,
        languages: &[Go, JavaScript, TypeScript],
        what: "Network names that force IPv4: Go `\"tcp4\"`, `\"udp4\"`, `\"ip4\"` (also \
               `\"ip4:proto\"`); Node.js `dgram.createSocket('udp4')`. A note when the IPv6 \
               twin (`\"udp6\"`, `\"ip6:...\"`) is on the same line or the next or previous \
               one: a per-family table (`ipv4Proto = {\"udp\": \"udp4\"}` over `ipv6Proto = \
               {\"udp\": \"udp6\"}`), and inside a branch that tests a network name \
               (`case \"ip4\":` beside `case \"ip6\":`).",
        why: "`net.Dial(\"tcp4\", ...)` and `net.Listen(\"udp4\", ...)` never use IPv6, even \
              when the name has AAAA records and the host is dual-stack.",
        fix: "Use `\"tcp\"`, `\"udp\"` or `\"ip\"`: the Go resolver then tries both families \
              (with RFC 6555 fast fallback in `net.Dialer`). Node: a `'udp6'` socket receives \
              both families unless `ipv6Only` is set, or choose the type from `net.isIP(host)`.",
        example: Example {
            language: Go,
            before: "conn, err := net.Dial(\"tcp4\", addr)",
            after: "conn, err := net.Dial(\"tcp\", addr)",
        },
    },
    Rule {
        id: "to4-conversion",
        severity: Severity::Warning,
        languages: &[Go],
        what: "Go `ip.To4()`, which returns nil for every IPv6 address. `ip.To4() != nil` \
               (or `== nil`, `len(ip.To4()) == net.IPv4len`, or `if v4 := ip.To4(); v4 != nil`) \
               is a family test and a note; \
               so is any construct of any rule \
               inside a branch on the family in a file that also handles IPv6 (every \
               language: `if family == AF_INET6`, `if ip.To4() != nil`, `instanceof \
               Inet6Address`, `SocketAddr::V4(..) =>` beside a `V6` arm, `if version == 4` \
               or the version nibble `if ip[0] >> 4 == 4` / `b[0] & 0xf0 == 0x40` beside an \
               IPv6 header slice, `case \"ip4\":` / `if network == \"udp6\"`).",
        why: "Code that calls `To4()` and then uses the 4-byte result (or treats nil as \
              invalid) rejects IPv6 peers; `To4() != nil` as a family test also treats \
              IPv4-mapped IPv6 addresses as IPv4.",
        fix: "Keep the 16-byte `net.IP` or use `netip.Addr` (`Is4()`, `Is6()`, `Unmap()`), and \
              branch on the family explicitly when it matters.",
        example: Example {
            language: Go,
            before: "key := binary.BigEndian.Uint32(ip.To4())",
            after: "addr, _ := netip.AddrFromSlice(ip)\nkey := addr.Unmap() // netip.Addr is comparable",
        },
    },
    Rule {
        id: "ipv4-only-type",
        severity: Severity::Warning,
        languages: &[Python, Java, Rust],
        what: "IPv4-only address types in signatures, casts and checks: Java \
               `Inet4Address` (`(Inet4Address) a`, `instanceof Inet4Address`); Rust `Ipv4Addr` \
               and `SocketAddrV4` as types and in expressions (`SocketAddrV4::new(ip, port)`, \
               `parse::<Ipv4Addr>()`; a note in a file that also names the V6 twin, and on a \
               `use` line); a note on a Java `import` line too; Python `ipaddress.IPv4Address`, `IPv4Network`, `IPv4Interface`. \
               Misses: addresses kept as `u32`/`int` outside C.",
        why: "A parameter, field or return type that is IPv4-only forces every caller to be \
              IPv4-only too; an `instanceof Inet4Address` filter drops IPv6 peers.",
        fix: "Java `InetAddress` / `InetSocketAddress`; Rust `IpAddr` / `SocketAddr`; Python \
              `ipaddress.ip_address()` / `ip_network()`, which return either family.",
        example: Example {
            language: Rust,
            before: "fn connect(peer: SocketAddrV4) -> io::Result<TcpStream>",
            after: "fn connect(peer: SocketAddr) -> io::Result<TcpStream>",
        },
    },
    Rule {
        id: "dns-family-4",
        severity: Severity::Error,
        languages: JS_FAMILY,
        what: "Node.js lookups restricted to IPv4: `dns.lookup(host, 4, ...)`, `{ family: 4 }` \
               options, `dns.resolve4` / `dns.promises.resolve4`.",
        why: "Family 4 returns only A records, so an IPv6-only or dual-stack service is reached \
              over IPv4 or not at all.",
        fix: "Omit `family` (or pass 0) and set `autoSelectFamily: true` on sockets (Node's \
              Happy Eyeballs); use `dns.resolve` with `'AAAA'` alongside `resolve4` when \
              records are needed.",
        example: Example {
            language: JavaScript,
            before: "dns.lookup(host, { family: 4 }, callback);",
            after: "dns.lookup(host, { all: true }, callback);",
        },
    },
    Rule {
        id: "is-ipv4-only",
        severity: Severity::Warning,
        languages: JS_FAMILY,
        what: "`net.isIPv4(...)` in a file that never calls `isIPv6` or `isIP`; addresses or \
               interfaces filtered to `family === 'IPv4'` (or `family: 'IPv4'`) outside a \
               branch on the family.",
        why: "Validating input with `isIPv4` alone rejects every IPv6 literal; keeping only \
              `'IPv4'` entries of `os.networkInterfaces()` or `dns.lookup(..., {all: true})` \
              drops every IPv6 address.",
        fix: "Use `net.isIP(s) !== 0` (returns 4 or 6), or handle `isIPv6` as well; accept \
              `'IPv6'` entries (and the numeric families 4 and 6 of Node 18).",
        example: Example {
            language: JavaScript,
            before: "if (!net.isIPv4(input)) throw new Error('bad address');",
            after: "if (net.isIP(input) === 0) throw new Error('bad address');",
        },
    },
    Rule {
        id: "sockaddr-too-small",
        severity: Severity::Warning,
        languages: C_FAMILY,
        what: "Plain `struct sockaddr` used as storage: a variable or field of that type, or \
               `sizeof(struct sockaddr)` as a length. Not a `typedef` of the type \
               (`typedef struct sockaddr SA;`) nor one view in a union.",
        why: "`struct sockaddr` is 16 bytes, the size of a `sockaddr_in`; a `sockaddr_in6` is 28. \
              Copying an IPv6 peer into it (`memcpy(&x->addr, sa, sizeof(struct sockaddr))`) \
              truncates the address, and `accept()` or `getpeername()` with that length return \
              a cut-off address.",
        fix: "Store `struct sockaddr_storage` and carry the real length (`socklen_t`, \
              `ai_addrlen`) with it.",
        example: Example {
            language: C,
            before: "struct sockaddr peer;\nmemcpy(&peer, sa, sizeof(struct sockaddr));",
            after: "struct sockaddr_storage peer;\nmemcpy(&peer, sa, salen);",
        },
    },
    Rule {
        id: "address-byte-layout",
        severity: Severity::Warning,
        languages: &[C, Cpp, Go, Java, JavaScript, TypeScript, Rust],
        what: "Byte layouts that assume a 4-byte address. Java, Go, Rust, JavaScript and \
               TypeScript: a literal 4, 6 or 8 (an address; address and 2-byte port; address \
               and 4-byte port) as a buffer size, call argument or slice end in a statement \
               that names an address (`ByteBuffer hostHolder = ByteBuffer.allocate(8)`, \
               `byte[] bornHost = new byte[4]`, `put(addr.getAddress(), 0, 4)`, \
               `resetByteBuffer(hostHolder, 8)`, `copy(buf[:4], ip)`, `var ip [4]byte`, \
               `addr: [u8; 4]`), or a buffer allocated within three lines of an address API \
               (`getAddress()`, `To4()`, `octets()`, `sin_addr`), where it receives the \
               address, or a buffer allocated or copied with a 4/6/8 length inside a function \
               named for an address (`getIPFromID`, `peerAddrBytes`; not a family's own \
               helper such as `v4addr2Bytes`). Every language with a parser: the IPv4 header's address offsets \
               (`data[12:16]`, `data[16:20]`, RFC 791), the version nibble compared with 4 \
               (`buf[0] >> 4 != 4`) and the IHL (`ihl := data[0] & 0x0F`); in a file with no \
               IPv6 path also the IHL turned into bytes (`(p[start] & 0xF) * 4`, `(b[0] & \
               0x0f) << 2`) and every call of a function of the file that computes it \
               (`headerLen = getInternetProtocolHeaderLength(p, start)`). Misses: sizes \
               held in named constants (`MSG_ID_LENGTH = 8 + 8`, `calMsgLength(...)` sums), \
               offsets computed from such constants, and buffers whose address arrives more \
               than three lines away through a variable not named for an address. Go: a \
               mask for 32-bit addresses (`net.CIDRMask(32, 32)`, any `CIDRMask(n, 32)`); an \
               identifier array whose first 4 bytes receive an address (`copy(p.ID[:4], \
               p.Addr)` makes `type tcpID [12]byte` and `ID [12]byte` address layouts); a \
               4-byte head and the rest of one buffer handed to a packet parser \
               (`ParseTCPPacket(data[:4], data[4:])`; not `decodeRecord(..)`). Names of \
               packets and headers (`ipPacket`, `ip_header`) do not count as addresses (a \
               `new byte[8]` beside `ipPacket` is a UDP header). An address as \
               its four parts, away from any address API: the last byte read as `ip[3]` from \
               a buffer named for one address (`ip`, `rawIp`, `srcAddr`; not `ips`, \
               `hostBytes`, and not `ip[ip.length - 1]`), the four bytes passed as \
               arguments (`setSourceIP(src[0], src[1], src[2], src[3])`, \
               `net.IPv4(b[0], b[1], b[2], b[3])`) to a function named for an address or \
               from a buffer named for one, and a function declared to take an address as \
               four `int`/`byte`/`u8`/`number` parameters (`void setSourceIP(int a, int b, \
               int c, int d)`, `func setIP(a, b, c, d byte)`); not four colour channels \
               (`setColor(int r, ...)`); `ip[3]` after a test of the length against 4 \
               (`if (ip.length != 4) throw ..`, `len(ip) == net.IPv4len`) or in an \
               IPv4-named helper is the IPv4 side and not reported. A 6-byte buffer \
               (`make([]byte, 6)`, `new byte[6]`, `[0u8; 6]`, `Buffer.alloc(6)`, `malloc(6)`) \
               whose byte 4 receives a port's high byte (`out[4] = byte(port >> 8)`) within 60 \
               lines: an IPv4 compact peer (BEP 23; IPv6 peers are 18 bytes), reported at \
               both. Misses: the four parts under names that say nothing of an address \
               (`port[0..3]` outside a dotted format string), a compact peer filled by a \
               loop or `binary.BigEndian.PutUint16(out[4:], port)`.",
        why: "An IPv6 address is 16 bytes, so a buffer, record or packet layout sized for 4 \
              (or 8 with the port) truncates it or shifts every later field; the OpenH323 port \
              (§7) found these 4-byte assumptions the costliest part of a port, because no \
              tool reported them. An IPv4 header has the addresses at bytes 12..20 and an IHL; \
              an IPv6 header (RFC 8200) has 16-byte addresses at 8..40 and no IHL.",
        fix: "Size the buffer by the address's family (`addr.getAddress().length`, \
              `len(ip)`, `match ip { V4 => 4, V6 => 16 }`), record the family in the layout (a \
              flag or a length byte), and parse IPv6 headers (version 6, 40 bytes) beside IPv4 \
              ones.",
        example: Example {
            language: Java,
            before: "ByteBuffer hostHolder = ByteBuffer.allocate(8);\nhostHolder.put(addr.getAddress().getAddress(), 0, 4);",
            after: "byte[] ip = addr.getAddress().getAddress(); // 4 or 16 bytes\nByteBuffer hostHolder = ByteBuffer.allocate(ip.length + 4);\nhostHolder.put(ip);",
        },
    },
    Rule {
        id: "v4-only-variant",
        severity: Severity::Warning,
        languages: &[Rust],
        what: "Rust code that takes the IPv4 variant only: `IpAddr::V4(..)` or \
               `SocketAddr::V4(..)` (a pattern or a constructor) with no `V6` within twelve \
               lines, `TcpSocket::new_v4()` in a file that never calls `new_v6`, and \
               `is_ipv4()` as a filter (`.find(|a| a.is_ipv4())`) in a file that never calls \
               `is_ipv6`. Misses: a `V6` arm that only panics (`V6(_) => unreachable!()`).",
        why: "`if let SocketAddr::V4(a) = addr { .. } else { unreachable!() }` and a resolver \
              result filtered to `is_ipv4()` reject every IPv6 peer; `new_v4()` can only \
              connect to or bind IPv4 addresses.",
        fix: "Keep `IpAddr`/`SocketAddr` and match both variants; create the socket with \
              `if addr.is_ipv4() { TcpSocket::new_v4() } else { TcpSocket::new_v6() }`; try \
              every resolved address in order instead of the first IPv4 one.",
        example: Example {
            language: Rust,
            before: "let remote = addrs.find(|a| a.is_ipv4()).expect(\"no A record\");",
            after: "let remote = addrs.next().expect(\"no address\"); // IPv4 or IPv6",
        },
    },
    Rule {
        id: "ipv4-named-api",
        severity: Severity::Warning,
        languages: &[C, Cpp, Python, Go, Java, JavaScript, TypeScript, Rust],
        what: "Calls of functions whose name says IPv4 (`ip4_fmt`, `ip4_scan`, `dns_ip4`, \
               `socket_bind4`, `socket_connect4`, `getIPv4Address`...) in a file that never calls \
               their IPv6 twin (the same name with 6). In the other languages also types, \
               constants and modules named for IPv4 (`parse_ipv4_packet`, `IPV4_HEADER_LEN`, \
               `Ipv4Packet`, pnet's `ipv4`, `ipToIPv4Str`) in a file that never names the twin; \
               names with a rule of their own (`Inet4Address`, `Ipv4Addr`, `isIPv4`, Go's \
               `net.IPv4*` and `x/net/ipv4`) are left to it. C and C++: accessors named for the \
               IPv4 `sockaddr_in` (`getSockAddrInet()`, `setSockAddrInet(a)`) in a file with \
               no `6` twin and no IPv6 path. Java's `java.net.preferIPv4Stack`: set to \
               `true` (`System.setProperty(\"java.net.preferIPv4Stack\", \"true\")`, \
               `-Djava.net.preferIPv4Stack=true`) a warning; a name for the preference \
               (`PREFER_IPV4_STACK`, `preferIPv4`) read or cleared is a note, and nothing in \
               a file with an IPv6 path; names that say both families \
               (`throwPreferIPv4StackIPv6Error`) are not reported. An import of an \
               IPv4-named class or module is a note (its uses are reported). Java: a \
               method called on a value declared with an IPv4-named type (`IPv4Framer \
               framer` .. `framer.frame(this, payload)`) in a file with no IPv6 twin. \
               Notes, not warnings: names in test code (a test file, a Rust `#[cfg(test)]` \
               module: `next_test_ip4()`), and names inside a function that is itself named \
               for IPv4 (`process_ipv4`'s `Ipv4Packet::new_checked`): the IPv4 half of a \
               parser by design, reported where it is called without an IPv6 twin.",
        why: "Libraries with their own socket layer (djb's, game engines, embedded stacks) name \
              the family in the function: a file that only calls the `4` variants creates, \
              binds, resolves and prints IPv4 addresses only, with no `AF_INET` in sight.",
        fix: "Call the `6` twin as well, chosen by the address's family, or move to a \
              family-agnostic API (`getaddrinfo`, `sockaddr_storage`).",
        example: Example {
            language: C,
            before: "if (socket_bind4(s, ip, port) == -1) die();",
            after: "if (socket_bind6(s, ip, port, scope_id) == -1) die(); /* 16-byte ip, v4-mapped for IPv4 */",
        },
    },
    Rule {
        id: "dotted-quad-text",
        severity: Severity::Warning,
        languages: &[C, Cpp, Python, Go, Java, JavaScript, TypeScript],
        what: "Address text handled as a dotted quad: a character set of digits and `.` \
               (`strspn(s, \"0123456789.\")`), an IPv4 regular expression \
               (`\\d{1,3}\\.\\d{1,3}\\.…`), an address split or rewritten on `.` \
               (`ip.split('.')`, `strings.Split(ip, \".\")`, `ip.replace('.', ',')`), a \
               character of an address compared with `'.'`, any text split on `.` whose parts \
               are counted against 4 within three lines (`parts.length != 4`, `len(parts) == \
               4`), dotted-quad wildcards (`\"*.*.*.*\"`, `\"192.168.*.*\"`), and format \
               strings that print four dotted numbers (`\"%d.%d.%d.%d\"`, `%u`, \
               `\"{}.{}.{}.{}\"`); also a leading octet and three dotted ones \
               (`\\d{1,3}(\\.\\d{1,3}){3}`). Calls of a validator this file defines on \
               such a pattern (`isValidAddress(local)` whose body matches `IP_PATTERN`, or \
               holds the pattern itself) are reported where they are called, outside the \
               validator (a note in a file with an IPv6 path; not for IPv4-named validators, \
               which `ipv4-named-api` reports; not in Python or Rust). Misses: \
               prefix tests on dotted text (`addr.startsWith(head)`), validators defined in \
               another file.",
        why: "Such checks decide that only dotted-quad text is an address: an IPv6 literal is \
              rejected, treated as a host name, or mangled (an FTP `PASV` reply built with \
              `ip.replace('.', ',')` has no IPv6 form at all: RFC 2428 `EPSV` is needed).",
        fix: "Parse with `inet_pton`/`getaddrinfo(AI_NUMERICHOST)` (C), `ipaddress.ip_address` \
              (Python), `net.ParseIP`/`netip.ParseAddr` (Go), `InetAddress` (Java), \
              `net.isIP` (Node), which accept both families.",
        example: Example {
            language: C,
            before: "if (strspn(host, \"0123456789.\") == strlen(host)) numeric = 1;",
            after: "struct addrinfo hints = { .ai_flags = AI_NUMERICHOST }, *ai;\nnumeric = getaddrinfo(host, NULL, &hints, &ai) == 0;",
        },
    },
    Rule {
        id: "address-to-string",
        severity: Severity::Warning,
        languages: &[Java],
        what: "`InetSocketAddress` or `InetAddress` turned into text with `toString()`, \
               `String.valueOf` or string concatenation and used as a host or host:port \
               (`socket.getRemoteSocketAddress().toString()`). The address is a variable of \
               an address type or the value of a getter named for a socket address \
               (`getRemoteSocketAddress()`, `peer.getQuorumAddress()`, \
               `getElectionAddress()`; not `getHostAddress()`, `getMacAddress()` or \
               `getEmailAddress()`). Misses: addresses held in fields of other classes.",
        why: "`toString()` gives `hostname/1.2.3.4:80` (or `/1.2.3.4:80`), and for IPv6 \
              `/2001:db8:0:0:0:0:0:1:80`: a leading slash, an unbracketed address and a port no \
              parser can split off.",
        fix: "Use `getHostString()` (or `getAddress().getHostAddress()`) and `getPort()`, and \
              write `[host]:port` when the host contains `:`.",
        example: Example {
            language: Java,
            before: "String peer = socket.getRemoteSocketAddress().toString();",
            after: "InetSocketAddress a = (InetSocketAddress) socket.getRemoteSocketAddress();\nString host = a.getHostString();\nString peer = (host.contains(\":\") ? \"[\" + host + \"]\" : host) + \":\" + a.getPort();",
        },
    },
    Rule {
        id: "ipv4-only-package",
        severity: Severity::Warning,
        languages: &[Go],
        what: "`golang.org/x/net/ipv4` (`ipv4.ICMPTypeEcho`, `ipv4.NewPacketConn`, \
               `ipv4.Header`...) in a file that never imports `golang.org/x/net/ipv6`.",
        why: "The `ipv4` package speaks ICMPv4 and IPv4 headers and socket options only: a ping, \
              traceroute or multicast tool built on it alone cannot reach an IPv6 host.",
        fix: "Add the IPv6 path with `golang.org/x/net/ipv6` (`ipv6.ICMPTypeEchoRequest`, \
              protocol 58, `ipv6.NewPacketConn`), chosen by the destination's family.",
        example: Example {
            language: Go,
            before: "msg := icmp.Message{Type: ipv4.ICMPTypeEcho, Body: echo}",
            after: "var typ icmp.Type = ipv4.ICMPTypeEcho\nif dst.IP.To4() == nil {\n\ttyp = ipv6.ICMPTypeEchoRequest\n}\nmsg := icmp.Message{Type: typ, Body: echo}",
        },
    },
    Rule {
        id: "sockaddr-pair",
        severity: Severity::Warning,
        languages: &[Python],
        what: "A Python socket address taken as a (host, port) pair: `host, port = \
               sock.getpeername()` or `getsockname()`, and `'%s:%s' % sock.getsockname()` or \
               `% addr`.",
        why: "An `AF_INET6` socket address is a 4-tuple `(host, port, flowinfo, scope_id)`: the \
              unpacking raises `ValueError`, the `%` formatting raises `TypeError`, and the \
              text lacks brackets anyway.",
        fix: "Take the first two items (`sock.getpeername()[:2]`) and write `[host]:port` when \
              the host contains `:`.",
        example: Example {
            language: Python,
            before: "self.remote_ip, self.remote_port = self.socket.getpeername()",
            after: "self.remote_ip, self.remote_port = self.socket.getpeername()[:2]",
        },
    },
    Rule {
        id: "ipv4-only-command",
        severity: Severity::Warning,
        languages: ALL_SOURCE,
        what: "An `nmap` command line built or run by the program (a string `\"nmap\"` or \
               `\"nmap ...\"`) in a file that never writes `-6`: reported where the options \
               are written (`\"-Pn\"`, `\"-p\"`, `\"nmap -sV %s\"`), or at the program name \
               when they come from elsewhere. Misses: nmap run through a shell script or a \
               name held in a variable; `ping` and `traceroute` are not reported (current \
               Linux and Windows versions choose the family from the address).",
        why: "nmap scans IPv4 only unless it is given `-6`; an IPv6 target is rejected \
              (\"looks like an IPv6 target specification -- you have to use the -6 option\").",
        fix: "Add `-6` when the target is an IPv6 address (parse it first: \
              `IpAddr::is_ipv6`, `net.ParseIP(t).To4() == nil`, `ipaddress.ip_address(t).version \
              == 6`).",
        example: Example {
            language: Rust,
            before: "let args = format!(\"{} {} {} {}\", \"-Pn\", \"-p\", ports, ip);",
            after: "let six = if ip.is_ipv6() { \"-6\" } else { \"\" };\n\
                    let args = format!(\"{} {} {} {} {}\", \"-Pn\", six, \"-p\", ports, ip);",
        },
    },
    Rule {
        id: "ipv4-header-field",
        severity: Severity::Warning,
        languages: ALL_SOURCE,
        what: "Names of IPv4-only header fields (RFC 791) in code for any IP packet: the \
               header checksum (`getIpChecksum()`, `verifyIpChecksum`, `headerChecksum`, BSD's \
               `ip_sum`) and the Don't Fragment flag (`isDontFragmentSet()`, `DONT_FRAGMENT`), \
               in a file with no IPv6 path that names nothing for IPv4 (an `IPv4Packet` class \
               may have them). Also a packet decoder's IPv4-only gates, in a file with no \
               IPv6 path: the EtherType compared with 0x0800 (RFC 894), as a number or a \
               constant set to it (`etherType == ETHERNET_TYPE_IP`), where the file never \
               names 0x86DD (RFC 2464); the IP version compared with 4 \
               (`getInternetProtocolHeaderVersion(p) == 4`, `ip_version == 4`, \
               `iph.version == 4`) where no version is compared with 6. Misses: the UDP/TCP \
               checksum over the IPv4 pseudo-header (RFC 768/793; IPv6's is RFC 8200 §8.1) \
               when it is only called, and TTL (also a DNS and cache word), checksums recomputed \
               under another name (`reCalculateChecksum()`), and the IHL, which \
               `address-byte-layout` reports where it is read.",
        why: "An IPv6 header (RFC 8200) has no header checksum and no Don't Fragment flag \
              (only the source fragments, in a Fragment extension header): a generic packet \
              type that offers them was written for IPv4 headers, and code that calls them \
              on any packet breaks on the first IPv6 one.",
        fix: "Move the IPv4-only fields to the IPv4 packet type (`IPv4Packet`), give the IPv6 \
              type its own (hop limit, flow label, extension headers), and test the type \
              before using them.",
        example: Example {
            language: Java,
            before: "interface IPPacket {\n    int getIpChecksum();\n    boolean isDontFragmentSet();\n}",
            after: "interface IPPacket { int getVersion(); }\ninterface IPv4Packet extends IPPacket {\n    int getIpChecksum();\n    boolean isDontFragmentSet();\n}",
        },
    },
    Rule {
        id: "ipv6-skipped",
        severity: Severity::Warning,
        languages: ALL_SOURCE,
        what: "A loop that skips every IPv6 address: `continue` under a test that is true for \
               IPv6, alone or in an `||` chain (`if (a instanceof Inet6Address) continue;`, \
               `Inet6Address.class.isInstance(a)`, `if ip.To4() == nil { continue }`, `if \
               ai->ai_family == AF_INET6) continue;`, `if addr.is_ipv6() { continue; }`, \
               `if (iface.family === 'IPv6') continue;`, `family === 6`). Reported even inside \
               a family branch (skipping is the finding). Not reported when the test is \
               narrowed with `&&`/`and` or negated (`instanceof Inet6Address && \
               isLinkLocalAddress()` filters link-local addresses). Misses: an `else { \
               continue; }` under an IPv4 test, `return` instead of `continue`, and Python's \
               `':' in addr` tests.",
        why: "Interface, resolver and peer lists then hold IPv4 addresses only: a host with \
              only IPv6 gets no address at all, and a dual-stack one is only ever used over \
              IPv4.",
        fix: "Keep the IPv6 addresses (skip only what is really unusable, such as link-local \
              addresses without a scope, with its own test), and choose by preference \
              (RFC 6724) instead of by family.",
        example: Example {
            language: Java,
            before: "if (address.isLoopbackAddress() || address instanceof Inet6Address) {\n    continue;\n}",
            after: "if (address.isLoopbackAddress() || address.isLinkLocalAddress()) {\n    continue;\n}",
        },
    },
    Rule {
        id: "ipv4-multicast-test",
        severity: Severity::Warning,
        languages: ALL_SOURCE,
        what: "A multicast test on the first octet's range: `224` compared on a line that \
               also holds `239` or `240` (`p >= 224 && p <= 239`, `b[0] < 240`), or `0xE0` \
               compared beside a `0xF0` mask (`(b & 0xF0) == 0xE0`). A note in a file with an \
               IPv6 path. Misses: the range written as a CIDR text (`224.0.0.0/4`, which \
               `ipv4-literal` reports) and tests split over several lines.",
        why: "224.0.0.0/4 is IPv4's multicast block (RFC 5771); IPv6 multicast is ff00::/8 \
              (RFC 4291 §2.7), so an IPv6 multicast group fails the test (and a first \
              'octet' parsed from IPv6 text is not a number at all).",
        fix: "Ask the address: `InetAddress.isMulticastAddress()`, `IpAddr::is_multicast`, \
              `net.IP.IsMulticast`, `ipaddress.ip_address(a).is_multicast`.",
        example: Example {
            language: Java,
            before: "int p = Integer.parseInt(ip.substring(0, ip.indexOf('.')));\nreturn p >= 224 && p <= 239;",
            after: "return InetAddress.getByName(ip).isMulticastAddress();",
        },
    },
];

/// The rule with this id, if any.
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|rule| rule.id == id)
}

/// The index of a rule in [`RULES`] (SARIF `ruleIndex`).
pub fn rule_index(id: &str) -> Option<usize> {
    RULES.iter().position(|rule| rule.id == id)
}

/// `docs/rules.md`: every rule's documentation, generated from the table.
pub fn rules_markdown() -> String {
    let mut out = String::from(
        "# dualperf scan: rule catalogue\n\n\
         <!-- Generated from crates/dualperf-scan/src/rules.rs by the test \
         `docs_rules_md_matches_the_rule_table`; run it with DUALPERF_UPDATE_DOCS=1 to rewrite. -->\n\n\
         Each rule has a kebab-case id used in the output, in suppression comments \
         (`dualperf-scan: ignore[rule-id]` on the line, or alone on the line above) and in baselines. \
         Fixtures live in `crates/dualperf-scan/fixtures/<rule-id>/`.\n\n| id | severity | languages |\n| --- | --- | --- |\n",
    );
    for rule in RULES {
        let languages: Vec<&str> = rule.languages.iter().map(|l| l.name()).collect();
        out.push_str(&format!(
            "| [`{}`](#{}) | {} | {} |\n",
            rule.id,
            rule.id,
            rule.severity.name(),
            languages.join(", ")
        ));
    }
    for rule in RULES {
        out.push('\n');
        out.push_str(&rule.to_markdown());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_ids_are_unique_kebab_case() {
        let mut seen = std::collections::HashSet::new();
        for rule in RULES {
            assert!(seen.insert(rule.id), "duplicate rule id {}", rule.id);
            assert!(
                rule.id
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "rule id {} is not kebab-case",
                rule.id
            );
            assert!(!rule.languages.is_empty());
        }
    }

    #[test]
    fn docs_rules_md_matches_the_rule_table() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/rules.md");
        let expected = rules_markdown();
        if std::env::var_os("DUALPERF_UPDATE_DOCS").is_some() {
            std::fs::write(path, &expected).expect("docs/ is writable");
        }
        let actual = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            actual == expected,
            "docs/rules.md is stale; rerun this test with DUALPERF_UPDATE_DOCS=1"
        );
    }
}
