//! Parsing the `HOST[:PORT]` argument of `dualperf check`: a name
//! (`example.net`, `example.net:443`), an IPv4 literal (`192.0.2.1:80`), or
//! an IPv6 literal bare (`2001:db8::1`) or bracketed (`[2001:db8::1]:443`,
//! RFC 3986 §3.2.2). A bare IPv6 literal never takes a port: `2001:db8::1:80`
//! is an address.

use std::net::IpAddr;

use crate::CheckError;

/// What to check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// Host name or literal, without brackets.
    pub host: String,
    /// TCP port.
    pub port: u16,
}

impl Target {
    /// The host as an IP literal, if it is one.
    pub fn literal(&self) -> Option<IpAddr> {
        self.host.parse().ok()
    }

    /// Parses `HOST[:PORT]`, using `default_port` when none is given.
    ///
    /// # Errors
    /// [`CheckError::InvalidTarget`] naming the input and the problem.
    pub fn parse(text: &str, default_port: u16) -> Result<Target, CheckError> {
        let invalid = |reason: &str| CheckError::InvalidTarget {
            input: text.to_string(),
            reason: reason.to_string(),
        };
        let text = text.trim();
        if text.is_empty() {
            return Err(invalid("empty host"));
        }
        let (host, port) = if let Some(rest) = text.strip_prefix('[') {
            let (host, after) = rest
                .split_once(']')
                .ok_or_else(|| invalid("`[` without `]`"))?;
            if host.parse::<std::net::Ipv6Addr>().is_err() {
                return Err(invalid("brackets must hold an IPv6 address"));
            }
            let port = match after {
                "" => None,
                _ => Some(
                    after
                        .strip_prefix(':')
                        .ok_or_else(|| invalid("expected `:PORT` after `]`"))?,
                ),
            };
            (host, port)
        } else if text.parse::<std::net::Ipv6Addr>().is_ok() {
            (text, None)
        } else if text.matches(':').count() > 1 {
            return Err(invalid(
                "not an IPv6 address; write [v6]:port to give a port",
            ));
        } else {
            match text.split_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (text, None),
            }
        };
        if host.is_empty() {
            return Err(invalid("empty host"));
        }
        let port = match port {
            Some(p) => p
                .parse::<u16>()
                .ok()
                .filter(|p| *p != 0)
                .ok_or_else(|| invalid("port must be 1..65535"))?,
            None => default_port,
        };
        Ok(Target {
            host: host.to_string(),
            port,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_literals_and_bracketed_ipv6_parse() {
        assert_eq!(
            Target::parse("example.net", 443).unwrap(),
            Target {
                host: "example.net".into(),
                port: 443
            }
        );
        assert_eq!(Target::parse("example.net:80", 443).unwrap().port, 80);
        assert_eq!(
            Target::parse("192.0.2.1:8080", 443).unwrap().host,
            "192.0.2.1"
        );
        assert_eq!(
            Target::parse("[2001:db8::1]:8443", 443).unwrap(),
            Target {
                host: "2001:db8::1".into(),
                port: 8443
            }
        );
        assert_eq!(
            Target::parse("2001:db8::1:80", 443).unwrap(),
            Target {
                host: "2001:db8::1:80".into(),
                port: 443
            }
        );
        assert_eq!(Target::parse("[::1]", 22).unwrap().port, 22);
    }

    #[test]
    fn malformed_targets_are_rejected_with_a_reason() {
        for bad in [
            "",
            "[::1",
            "[host]:80",
            "host:0",
            "host:99999",
            "a:b:c",
            "[::1]80",
            ":80",
        ] {
            assert!(
                Target::parse(bad, 443).is_err(),
                "{bad:?} should be rejected"
            );
        }
    }
}
