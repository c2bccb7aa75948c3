//! ICMP errors as the kernel reports them on a socket's error queue
//! (`IP_RECVERR` / `IPV6_RECVERR`, read with `MSG_ERRQUEUE`): a
//! `struct sock_extended_err` followed by the offender's address
//! (`SO_EE_OFFENDER`), decoded here from the control message bytes.
//!
//! | origin | type/code | meaning | `ee_info` |
//! |---|---|---|---|
//! | ICMP (2) | 3/4 | Fragmentation Needed (RFC 1191) | next-hop MTU |
//! | ICMP (2) | 11/x | Time Exceeded | |
//! | ICMP6 (3) | 2/0 | Packet Too Big (RFC 8201) | MTU |
//! | ICMP6 (3) | 3/x | Time Exceeded | |
//! | ICMP6 (3) | 4/x | Parameter Problem (RFC 4443 §3.4) | pointer |
//! | LOCAL (1) | errno EMSGSIZE | larger than this host's MTU | the MTU |

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use serde::{Deserialize, Serialize};

/// `SO_EE_ORIGIN_LOCAL`.
const ORIGIN_LOCAL: u8 = 1;
/// `SO_EE_ORIGIN_ICMP`.
const ORIGIN_ICMP: u8 = 2;
/// `SO_EE_ORIGIN_ICMP6`.
const ORIGIN_ICMP6: u8 = 3;
/// `sizeof(struct sock_extended_err)`.
const EXTENDED_ERR_BYTES: usize = 16;

/// What an ICMP error (or a local error) says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum IcmpKind {
    /// ICMPv6 Packet Too Big, or ICMP Destination Unreachable /
    /// Fragmentation Needed: the packet did not fit a link; `mtu` is the
    /// MTU the sender announced, bytes.
    PacketTooBig {
        /// Announced MTU, bytes.
        mtu: u32,
    },
    /// Time Exceeded: the hop limit (TTL) ran out at the offender.
    TimeExceeded {
        /// ICMP code (0: in transit; 1: reassembly time exceeded).
        code: u8,
    },
    /// Destination Unreachable (any code but Fragmentation Needed).
    Unreachable {
        /// ICMP code.
        code: u8,
    },
    /// ICMPv6 Parameter Problem (RFC 4443 §3.4): e.g. an unrecognized
    /// option or next header, pointer at the offending byte.
    ParameterProblem {
        /// ICMP code.
        code: u8,
        /// Byte offset of the problem in the probe.
        pointer: u32,
    },
    /// The local stack refused: the probe exceeds this host's MTU.
    LocalTooBig {
        /// The local MTU, bytes.
        mtu: u32,
    },
    /// Anything else.
    Other {
        /// ICMP type.
        icmp_type: u8,
        /// ICMP code.
        code: u8,
    },
}

/// One error read from the error queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IcmpReport {
    /// What it says.
    #[serde(flatten)]
    pub kind: IcmpKind,
    /// The node that sent it (`SO_EE_OFFENDER`), if the kernel gave one.
    pub offender: Option<IpAddr>,
}

/// Decodes the data of an `IP_RECVERR` / `IPV6_RECVERR` control message.
/// `None` when it is too short or the origin is not one of ICMP, ICMP6,
/// local.
pub fn decode(data: &[u8]) -> Option<IcmpReport> {
    if data.len() < EXTENDED_ERR_BYTES {
        return None;
    }
    let u32_at =
        |at: usize| u32::from_ne_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
    let errno = u32_at(0);
    let (origin, icmp_type, code) = (data[4], data[5], data[6]);
    let info = u32_at(8);
    let kind = match (origin, icmp_type, code) {
        (ORIGIN_LOCAL, _, _) if errno == libc::EMSGSIZE as u32 => {
            IcmpKind::LocalTooBig { mtu: info }
        }
        (ORIGIN_ICMP, 3, 4) => IcmpKind::PacketTooBig { mtu: info },
        (ORIGIN_ICMP, 3, code) => IcmpKind::Unreachable { code },
        (ORIGIN_ICMP, 11, code) => IcmpKind::TimeExceeded { code },
        (ORIGIN_ICMP6, 2, _) => IcmpKind::PacketTooBig { mtu: info },
        (ORIGIN_ICMP6, 1, code) => IcmpKind::Unreachable { code },
        (ORIGIN_ICMP6, 3, code) => IcmpKind::TimeExceeded { code },
        (ORIGIN_ICMP6, 4, code) => IcmpKind::ParameterProblem {
            code,
            pointer: info,
        },
        (ORIGIN_ICMP | ORIGIN_ICMP6, icmp_type, code) => IcmpKind::Other { icmp_type, code },
        _ => return None,
    };
    Some(IcmpReport {
        kind,
        offender: offender(&data[EXTENDED_ERR_BYTES..]),
    })
}

/// The `struct sockaddr_in` / `sockaddr_in6` after the extended error.
fn offender(sockaddr: &[u8]) -> Option<IpAddr> {
    let family = u16::from_ne_bytes([*sockaddr.first()?, *sockaddr.get(1)?]);
    match i32::from(family) {
        libc::AF_INET => {
            let octets: [u8; 4] = sockaddr.get(4..8)?.try_into().ok()?;
            Some(IpAddr::V4(Ipv4Addr::from(octets)))
        }
        libc::AF_INET6 => {
            let octets: [u8; 16] = sockaddr.get(8..24)?.try_into().ok()?;
            Some(IpAddr::V6(Ipv6Addr::from(octets)).to_canonical())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A control message as the kernel writes it: the extended error, then
    /// the offender.
    fn recorded(errno: i32, origin: u8, ty: u8, code: u8, info: u32, offender: IpAddr) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&(errno as u32).to_ne_bytes());
        out.extend_from_slice(&[origin, ty, code, 0]);
        out.extend_from_slice(&info.to_ne_bytes());
        out.extend_from_slice(&0u32.to_ne_bytes());
        match offender {
            IpAddr::V4(v4) => {
                out.extend_from_slice(&(libc::AF_INET as u16).to_ne_bytes());
                out.extend_from_slice(&[0, 0]);
                out.extend_from_slice(&v4.octets());
                out.extend_from_slice(&[0; 8]);
            }
            IpAddr::V6(v6) => {
                out.extend_from_slice(&(libc::AF_INET6 as u16).to_ne_bytes());
                out.extend_from_slice(&[0; 6]);
                out.extend_from_slice(&v6.octets());
                out.extend_from_slice(&[0; 4]);
            }
        }
        out
    }

    #[test]
    fn a_packet_too_big_carries_the_mtu_and_the_router_that_sent_it() {
        let router: IpAddr = "fd00:dead:beef:2::2".parse().unwrap();
        let data = recorded(libc::EMSGSIZE, ORIGIN_ICMP6, 2, 0, 1400, router);
        let report = decode(&data).unwrap();
        assert_eq!(report.kind, IcmpKind::PacketTooBig { mtu: 1400 });
        assert_eq!(report.offender, Some(router));
    }

    #[test]
    fn ipv4_frag_needed_time_exceeded_and_local_errors_are_told_apart() {
        let router: IpAddr = "10.0.2.2".parse().unwrap();
        let frag = decode(&recorded(libc::EMSGSIZE, ORIGIN_ICMP, 3, 4, 1480, router)).unwrap();
        assert_eq!(frag.kind, IcmpKind::PacketTooBig { mtu: 1480 });
        let ttl = decode(&recorded(libc::EHOSTUNREACH, ORIGIN_ICMP, 11, 0, 0, router)).unwrap();
        assert_eq!(ttl.kind, IcmpKind::TimeExceeded { code: 0 });
        let port = decode(&recorded(libc::ECONNREFUSED, ORIGIN_ICMP, 3, 3, 0, router)).unwrap();
        assert_eq!(port.kind, IcmpKind::Unreachable { code: 3 });
        let local = decode(&recorded(libc::EMSGSIZE, ORIGIN_LOCAL, 0, 0, 1500, router)).unwrap();
        assert_eq!(local.kind, IcmpKind::LocalTooBig { mtu: 1500 });
        let param = decode(&recorded(libc::EPROTO, ORIGIN_ICMP6, 4, 2, 42, router)).unwrap();
        assert_eq!(
            param.kind,
            IcmpKind::ParameterProblem {
                code: 2,
                pointer: 42
            }
        );
    }

    #[test]
    fn short_or_foreign_messages_are_not_decoded() {
        assert_eq!(decode(&[0u8; 8]), None);
        let router: IpAddr = "10.0.0.1".parse().unwrap();
        let mut data = recorded(0, 9, 0, 0, 0, router);
        assert_eq!(decode(&data), None, "origin 9 is unknown");
        data[4] = ORIGIN_ICMP;
        data.truncate(EXTENDED_ERR_BYTES);
        assert_eq!(decode(&data).unwrap().offender, None, "no offender: None");
    }
}
