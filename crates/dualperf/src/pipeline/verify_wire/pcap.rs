//! A reader of classic pcap files (the format tcpdump writes with `-w`):
//! a 24-byte file header, then per packet a 16-byte record header and the
//! captured bytes. Microsecond and nanosecond magic, either byte order;
//! link layers Ethernet (1), raw IP (101, 12, 14), Linux cooked v1 (113)
//! and v2 (276). No libpcap: the format is small and stable.

use anyhow::{bail, Context};

/// One captured packet.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Record<'a> {
    /// Capture time, nanoseconds since the Unix epoch (CLOCK_REALTIME).
    pub time_ns: i64,
    /// The layer-3 header onwards (link header removed), as captured.
    pub l3: &'a [u8],
}

/// A parsed capture file.
pub(crate) struct Pcap {
    bytes: Vec<u8>,
    big_endian: bool,
    nanoseconds: bool,
    link_type: u32,
}

impl Pcap {
    /// Parses the file header of `bytes`.
    ///
    /// # Errors
    /// When the bytes are not a pcap file or have an unknown link layer.
    pub(crate) fn new(bytes: Vec<u8>) -> anyhow::Result<Pcap> {
        if bytes.len() < 24 {
            bail!(
                "a pcap file has a 24-byte header; this one has {} bytes",
                bytes.len()
            );
        }
        let magic_le = u32::from_le_bytes(bytes[0..4].try_into().context("magic")?);
        let (big_endian, nanoseconds) = match magic_le {
            0xa1b2_c3d4 => (false, false),
            0xa1b2_3c4d => (false, true),
            0xd4c3_b2a1 => (true, false),
            0x4d3c_b2a1 => (true, true),
            other => bail!("not a pcap file (magic {other:#x})"),
        };
        let mut pcap = Pcap {
            bytes,
            big_endian,
            nanoseconds,
            link_type: 0,
        };
        pcap.link_type = pcap.u32_at(20).context("link type")? & 0x0fff_ffff;
        if !matches!(pcap.link_type, 1 | 12 | 14 | 101 | 113 | 276) {
            bail!("pcap link type {} is not supported", pcap.link_type);
        }
        Ok(pcap)
    }

    fn u32_at(&self, offset: usize) -> Option<u32> {
        let raw: [u8; 4] = self.bytes.get(offset..offset + 4)?.try_into().ok()?;
        Some(if self.big_endian {
            u32::from_be_bytes(raw)
        } else {
            u32::from_le_bytes(raw)
        })
    }

    /// Every record, in file order; stops at a truncated last record.
    pub(crate) fn records(&self) -> Vec<Record<'_>> {
        let mut records = Vec::new();
        let mut offset = 24;
        while let (Some(seconds), Some(fraction), Some(captured)) = (
            self.u32_at(offset),
            self.u32_at(offset + 4),
            self.u32_at(offset + 8),
        ) {
            let start = offset + 16;
            let Some(data) = self.bytes.get(start..start + captured as usize) else {
                break;
            };
            offset = start + captured as usize;
            let fraction_ns = if self.nanoseconds {
                i64::from(fraction)
            } else {
                i64::from(fraction) * 1000
            };
            if let Some(l3) = strip_link(self.link_type, data) {
                records.push(Record {
                    time_ns: i64::from(seconds) * 1_000_000_000 + fraction_ns,
                    l3,
                });
            }
        }
        records
    }
}

/// The layer-3 part of a frame; `None` for frames that carry no IP.
fn strip_link(link_type: u32, frame: &[u8]) -> Option<&[u8]> {
    let (ethertype, rest) = match link_type {
        1 => {
            let mut ethertype = u16::from_be_bytes([*frame.get(12)?, *frame.get(13)?]);
            let mut offset = 14;
            // 802.1Q / 802.1ad tags.
            while ethertype == 0x8100 || ethertype == 0x88a8 {
                ethertype = u16::from_be_bytes([*frame.get(offset + 2)?, *frame.get(offset + 3)?]);
                offset += 4;
            }
            (ethertype, frame.get(offset..)?)
        }
        113 => (
            u16::from_be_bytes([*frame.get(14)?, *frame.get(15)?]),
            frame.get(16..)?,
        ),
        276 => (
            u16::from_be_bytes([*frame.first()?, *frame.get(1)?]),
            frame.get(20..)?,
        ),
        _ => return Some(frame),
    };
    matches!(ethertype, 0x0800 | 0x86dd).then_some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A little-endian microsecond pcap with Ethernet frames.
    pub(crate) fn file(frames: &[(u32, u32, Vec<u8>)]) -> Vec<u8> {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
        bytes.extend_from_slice(&2u16.to_le_bytes());
        bytes.extend_from_slice(&4u16.to_le_bytes());
        bytes.extend_from_slice(&[0; 8]);
        bytes.extend_from_slice(&65535u32.to_le_bytes());
        bytes.extend_from_slice(&1u32.to_le_bytes());
        for (seconds, micros, l3) in frames {
            let mut frame = vec![0u8; 12];
            frame.extend_from_slice(
                &if l3[0] >> 4 == 4 {
                    0x0800u16
                } else {
                    0x86ddu16
                }
                .to_be_bytes(),
            );
            frame.extend_from_slice(l3);
            bytes.extend_from_slice(&seconds.to_le_bytes());
            bytes.extend_from_slice(&micros.to_le_bytes());
            bytes.extend_from_slice(&(frame.len() as u32).to_le_bytes());
            bytes.extend_from_slice(&(frame.len() as u32).to_le_bytes());
            bytes.extend_from_slice(&frame);
        }
        bytes
    }

    #[test]
    fn records_carry_time_and_the_ip_part_and_a_truncated_tail_is_ignored() {
        let mut bytes = file(&[(7, 5, vec![0x45, 1, 2]), (8, 0, vec![0x60, 9])]);
        bytes.extend_from_slice(&[1, 2, 3]);
        let pcap = Pcap::new(bytes).unwrap();
        let records = pcap.records();
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].time_ns, 7_000_005_000);
        assert_eq!(records[0].l3, &[0x45, 1, 2]);
        assert_eq!(records[1].l3, &[0x60, 9]);
        assert!(Pcap::new(vec![0; 24]).is_err());
    }
}
