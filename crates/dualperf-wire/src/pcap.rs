//! Classic pcap files (the format tcpdump writes with `-w`), read with the
//! `pcap-file` crate: microsecond and nanosecond magic, either byte order.
//! Link layers: Ethernet (1, with 802.1Q/802.1ad tags, decoded with
//! `etherparse`), raw IP (101, and the BSD values 12 and 14), Linux cooked
//! v1 (113, 16-byte header, protocol at bytes 14–15) and v2 (276, 20-byte
//! header, protocol at bytes 0–1) — see
//! <https://www.tcpdump.org/linktypes.html>.
//!
//! Records are read raw (`next_raw_packet`) and validated here: pcap-file's
//! own validation rejects a record whose original length exceeds the
//! file's snap length, which is every full-size packet of a `tcpdump -s
//! 192` capture.

use etherparse::{EtherType, Ethernet2HeaderSlice, SingleVlanHeaderSlice};
use pcap_file::pcap::PcapParser;
use pcap_file::{PcapError, TsResolution};

use crate::error::WireError;

/// One captured packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record<'a> {
    /// Capture time, nanoseconds since the Unix epoch (CLOCK_REALTIME).
    pub time_ns: i64,
    /// The layer-3 header onwards (link header removed), as captured.
    pub l3: &'a [u8],
}

/// A link layer this reader can strip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkType {
    /// Ethernet II, VLAN tags skipped (LINKTYPE_ETHERNET, 1).
    Ethernet,
    /// No link header (LINKTYPE_RAW 101; DLT_RAW 12 and 14).
    RawIp,
    /// Linux cooked capture v1 (LINKTYPE_LINUX_SLL, 113), `tcpdump -i any`.
    LinuxCookedV1,
    /// Linux cooked capture v2 (LINKTYPE_LINUX_SLL2, 276).
    LinuxCookedV2,
}

impl LinkType {
    /// The link type of a pcap header's link-type field (the FCS bits,
    /// 28–31, masked off); `None` for one not supported.
    pub fn from_number(number: u32) -> Option<LinkType> {
        match number & 0x0fff_ffff {
            1 => Some(LinkType::Ethernet),
            12 | 14 | 101 => Some(LinkType::RawIp),
            113 => Some(LinkType::LinuxCookedV1),
            276 => Some(LinkType::LinuxCookedV2),
            _ => None,
        }
    }
}

/// A capture file's packets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capture<'a> {
    /// The link layer of every record.
    pub link_type: LinkType,
    /// Records carrying IPv4 or IPv6, in file order; reading stops at a
    /// truncated or malformed record (a capture cut short by its end).
    pub records: Vec<Record<'a>>,
}

/// Reads the pcap file in `bytes`.
///
/// # Errors
/// When the bytes are not a pcap file or have an unsupported link layer.
pub fn read(bytes: &[u8]) -> Result<Capture<'_>, WireError> {
    let (mut rest, parser) = PcapParser::new(bytes).map_err(|e| match e {
        PcapError::IncompleteBuffer => WireError::NotPcap(format!(
            "a pcap file has a 24-byte header; this one has {} bytes",
            bytes.len()
        )),
        other => WireError::NotPcap(other.to_string()),
    })?;
    let header = parser.header();
    let number = u32::from(header.datalink);
    let link_type = LinkType::from_number(number).ok_or(WireError::LinkType(number))?;
    let nanoseconds = header.ts_resolution == TsResolution::NanoSecond;
    let mut records = Vec::new();
    while let Ok((next, raw)) = parser.next_raw_packet(rest) {
        rest = next;
        let fraction_ns = if nanoseconds {
            i64::from(raw.ts_frac)
        } else {
            i64::from(raw.ts_frac) * 1000
        };
        if !(0..1_000_000_000).contains(&fraction_ns) {
            break;
        }
        let data: &[u8] = match raw.data {
            std::borrow::Cow::Borrowed(data) => data,
            std::borrow::Cow::Owned(_) => break,
        };
        if let Some(l3) = strip_link(link_type, data) {
            records.push(Record {
                time_ns: i64::from(raw.ts_sec) * 1_000_000_000 + fraction_ns,
                l3,
            });
        }
    }
    Ok(Capture { link_type, records })
}

/// The layer-3 part of a frame; `None` for frames that carry no IP.
fn strip_link(link_type: LinkType, frame: &[u8]) -> Option<&[u8]> {
    let (ether_type, rest) = match link_type {
        LinkType::Ethernet => {
            let ethernet = Ethernet2HeaderSlice::from_slice(frame).ok()?;
            let mut ether_type = ethernet.ether_type();
            let mut rest = frame.get(ethernet.slice().len()..)?;
            while matches!(
                ether_type,
                EtherType::VLAN_TAGGED_FRAME
                    | EtherType::PROVIDER_BRIDGING
                    | EtherType::VLAN_DOUBLE_TAGGED_FRAME
            ) {
                let vlan = SingleVlanHeaderSlice::from_slice(rest).ok()?;
                ether_type = vlan.ether_type();
                rest = rest.get(vlan.slice().len()..)?;
            }
            (ether_type, rest)
        }
        LinkType::LinuxCookedV1 => (
            EtherType(u16::from_be_bytes([*frame.get(14)?, *frame.get(15)?])),
            frame.get(16..)?,
        ),
        LinkType::LinuxCookedV2 => (
            EtherType(u16::from_be_bytes([*frame.first()?, *frame.get(1)?])),
            frame.get(20..)?,
        ),
        LinkType::RawIp => return Some(frame),
    };
    matches!(ether_type, EtherType::IPV4 | EtherType::IPV6).then_some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{pcap_file, Link, Magic};

    #[test]
    fn records_carry_time_and_the_ip_part_and_a_truncated_tail_is_ignored() {
        let mut bytes = pcap_file(
            Magic::Microseconds,
            Link::Ethernet,
            &[(7, 5, vec![0x45, 1, 2]), (8, 0, vec![0x60, 9])],
        );
        bytes.extend_from_slice(&[1, 2, 3]);
        let capture = read(&bytes).unwrap();
        let records = capture.records;
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].time_ns, 7_000_005_000);
        assert_eq!(records[0].l3, &[0x45, 1, 2]);
        assert_eq!(records[1].l3, &[0x60, 9]);
        assert!(read(&[0; 24]).is_err());
    }

    #[test]
    fn nanosecond_magic_keeps_nanoseconds_and_big_endian_files_read_alike() {
        let bytes = pcap_file(Magic::Nanoseconds, Link::Raw, &[(7, 5, vec![0x45, 1])]);
        let capture = read(&bytes).unwrap();
        assert_eq!(capture.link_type, LinkType::RawIp);
        assert_eq!(capture.records[0].time_ns, 7_000_000_005);
        let bytes = pcap_file(Magic::BigEndianMicro, Link::Raw, &[(7, 5, vec![0x45, 1])]);
        assert_eq!(read(&bytes).unwrap().records[0].time_ns, 7_000_005_000);
    }

    #[test]
    fn linux_cooked_v1_and_v2_and_vlan_tagged_ethernet_give_the_ip_part() {
        for link in [Link::CookedV1, Link::CookedV2, Link::EthernetVlan] {
            let bytes = pcap_file(Magic::Microseconds, link, &[(1, 0, vec![0x60, 1, 2])]);
            let capture = read(&bytes).unwrap();
            assert_eq!(capture.records.len(), 1, "{link:?}");
            assert_eq!(capture.records[0].l3, &[0x60, 1, 2], "{link:?}");
        }
    }

    #[test]
    fn a_snap_length_shorter_than_the_packet_still_reads() {
        // tcpdump -s 192: the record keeps 3 bytes of a 1500-byte packet.
        let bytes = crate::fixtures::with_lengths(192, 1500, &[0x45, 0, 0]);
        assert_eq!(read(&bytes).unwrap().records.len(), 1);
    }

    #[test]
    fn other_files_and_link_types_are_clear_errors() {
        assert!(matches!(read(&[1, 2, 3]), Err(WireError::NotPcap(_))));
        assert!(matches!(read(&[0xff; 40]), Err(WireError::NotPcap(_))));
        let mut bytes = pcap_file(Magic::Microseconds, Link::Raw, &[]);
        bytes[20..24].copy_from_slice(&105u32.to_le_bytes()); // 802.11
        assert_eq!(read(&bytes), Err(WireError::LinkType(105)));
    }

    #[test]
    fn arbitrary_bytes_after_a_header_never_panic() {
        for length in 0..120 {
            let mut bytes = pcap_file(Magic::Microseconds, Link::Ethernet, &[]);
            bytes.extend((0..length).map(|i| (i * 53 + 7) as u8));
            let _ = read(&bytes);
        }
    }
}
