//! Name resolution per address family, timed: `getaddrinfo()` once with
//! `AF_INET` (A records) and once with `AF_INET6` (AAAA records), in
//! parallel, as an RFC 8305 client sends both queries.
//!
//! [`Resolver`] is a trait so tests can supply resolution results for names
//! (a test cannot steer the system resolver safely); connections are always
//! real.

use std::ffi::{CStr, CString};
use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use dualperf_model::IpFamily;

/// The answer for one family.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct FamilyResolution {
    /// Addresses returned, in resolver order.
    pub addresses: Vec<IpAddr>,
    /// Time from the query to the answer; JSON `elapsed_ms`, milliseconds.
    #[serde(rename = "elapsed_ms", serialize_with = "crate::json::ms")]
    #[schemars(rename = "elapsed_ms", with = "f64")]
    pub elapsed: Duration,
    /// The resolver's error text (e.g. "Name or service not known"), if any.
    pub error: Option<String>,
}

/// Something that resolves a host for one family.
pub trait Resolver: Sync {
    /// Resolves `host` to addresses of `family`.
    fn resolve(&self, host: &str, family: IpFamily) -> FamilyResolution;
}

/// The system resolver (`getaddrinfo`, honouring `/etc/hosts` and nsswitch).
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemResolver;

impl Resolver for SystemResolver {
    fn resolve(&self, host: &str, family: IpFamily) -> FamilyResolution {
        let start = Instant::now();
        let result = getaddrinfo(host, family);
        let elapsed = start.elapsed();
        match result {
            Ok(addresses) => FamilyResolution {
                addresses,
                elapsed,
                error: None,
            },
            Err(error) => FamilyResolution {
                addresses: Vec::new(),
                elapsed,
                error: Some(error),
            },
        }
    }
}

fn getaddrinfo(host: &str, family: IpFamily) -> Result<Vec<IpAddr>, String> {
    let c_host = CString::new(host).map_err(|_| "host contains a NUL byte".to_string())?;
    // SAFETY: addrinfo is a plain C struct; all-zero is a valid "no hints" value.
    let mut hints: libc::addrinfo = unsafe { std::mem::zeroed() };
    hints.ai_family = match family {
        IpFamily::V4 => libc::AF_INET,
        IpFamily::V6 => libc::AF_INET6,
    };
    hints.ai_socktype = libc::SOCK_STREAM;
    let mut result: *mut libc::addrinfo = std::ptr::null_mut();
    // SAFETY: valid NUL-terminated host, null service, valid hints and out pointer.
    let code = unsafe { libc::getaddrinfo(c_host.as_ptr(), std::ptr::null(), &hints, &mut result) };
    if code != 0 {
        // SAFETY: gai_strerror returns a static NUL-terminated string.
        let message = unsafe { CStr::from_ptr(libc::gai_strerror(code)) };
        return Err(message.to_string_lossy().into_owned());
    }
    let mut addresses = Vec::new();
    let mut cursor = result;
    while !cursor.is_null() {
        // SAFETY: cursor walks the list getaddrinfo returned, freed below.
        let info = unsafe { &*cursor };
        let address = match info.ai_family {
            libc::AF_INET => {
                // SAFETY: ai_addr points at a sockaddr_in for AF_INET.
                let sin = unsafe { &*(info.ai_addr as *const libc::sockaddr_in) };
                Some(IpAddr::from(
                    u32::from_be(sin.sin_addr.s_addr).to_be_bytes(),
                ))
            }
            libc::AF_INET6 => {
                // SAFETY: ai_addr points at a sockaddr_in6 for AF_INET6.
                let sin6 = unsafe { &*(info.ai_addr as *const libc::sockaddr_in6) };
                Some(IpAddr::from(sin6.sin6_addr.s6_addr))
            }
            _ => None,
        };
        if let Some(address) = address {
            if !addresses.contains(&address) {
                addresses.push(address);
            }
        }
        cursor = info.ai_next;
    }
    // SAFETY: result came from a successful getaddrinfo and is freed once.
    unsafe { libc::freeaddrinfo(result) };
    Ok(addresses)
}

/// Resolves both families in parallel.
pub fn resolve_both(
    resolver: &dyn Resolver,
    host: &str,
) -> dualperf_model::PerFamily<FamilyResolution> {
    std::thread::scope(|scope| {
        let v6 = scope.spawn(|| resolver.resolve(host, IpFamily::V6));
        let v4 = resolver.resolve(host, IpFamily::V4);
        dualperf_model::PerFamily {
            v4,
            v6: v6.join().expect("resolution thread does not panic"),
        }
    })
}

/// `address` with `port`, as a socket address.
pub fn with_port(address: IpAddr, port: u16) -> SocketAddr {
    SocketAddr::new(address, port)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn localhost_literals_resolve_through_getaddrinfo_per_family() {
        let v4 = SystemResolver.resolve("127.0.0.1", IpFamily::V4);
        assert_eq!(v4.addresses, [IpAddr::from([127, 0, 0, 1])]);
        let v6_of_v4_literal = SystemResolver.resolve("127.0.0.1", IpFamily::V6);
        assert!(v6_of_v4_literal.addresses.is_empty());
        let v6 = SystemResolver.resolve("::1", IpFamily::V6);
        assert_eq!(v6.addresses, [IpAddr::from(std::net::Ipv6Addr::LOCALHOST)]);
    }
}
