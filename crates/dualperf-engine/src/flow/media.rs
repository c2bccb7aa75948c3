//! media: a voice or video stream sent as RTP-shaped UDP (the traffic of
//! the OpenH323 experiments), paced on an absolute schedule like udp-probe.
//!
//! ```text
//! 0        2        4            8        12                   32   (bytes, big-endian)
//! | V=2 PT | seq u16| timestamp  | SSRC   | dualperf stamp (crate::datagram) | codec filler …
//! ```
//!
//! * the 12-byte RTP fixed header of RFC 3550 §5.1: version 2, no padding,
//!   extension or CSRC; marker bit on the last packet of a video frame
//!   (RFC 3551 §4.1 for video) and on the first packet of a voice stream
//!   (start of a talk spurt); payload type 0 (PCMU, G.711), 18 (G.729) or
//!   96 (dynamic: Opus, video); a 16-bit sequence number and a timestamp in
//!   the codec clock (8 kHz voice, 48 kHz Opus, 90 kHz video) that run on
//!   from warm-up into the measured interval; a random SSRC per stream;
//! * then dualperf's own stamp (sequence from 0 in the measured interval,
//!   CLOCK_REALTIME at this packet's `send(2)`, warm-up flag), at the start
//!   of the codec payload, so the UDP payload is exactly RTP header + codec
//!   payload (G.711 20 ms: 12 + 160 = 172 B) and a capture decodes it as
//!   RTP (`tshark -d udp.port==P,rtp`).
//!
//! A frame (one voice packet, or a video frame split into packets of at
//! most `max_payload_bytes` sent back to back) is due every frame interval
//! after the start of its stage; a sender that wakes late sends at once and
//! keeps the schedule. The receiver is the udp-stream receiver reading the
//! stamp after the RTP header ([`RTP_HEADER_BYTES`]).

use std::net::UdpSocket;
use std::time::{Duration, Instant};

use dualperf_model::media::RTP_HEADER_BYTES;
use dualperf_model::MediaProfile;

use super::cadence::{lost_at_sender, Cadence, Numbering, Tick};
use super::{FlowContext, FlowOutput};
use crate::clock::realtime_ns;
use crate::datagram::{write_header, Header};
use crate::meter::Stage;

/// Raw arrivals kept per media stream: 60 s of video at 400 packets/s.
pub const MEDIA_ARRIVALS_LIMIT: usize = 24_000;

/// The RTP fields of one packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RtpHeader {
    /// Payload type (7 bits).
    pub payload_type: u8,
    /// Marker bit.
    pub marker: bool,
    /// Sequence number (wraps at 2¹⁶).
    pub sequence: u16,
    /// Timestamp in the codec clock.
    pub timestamp: u32,
    /// Synchronisation source.
    pub ssrc: u32,
}

/// Writes an RFC 3550 §5.1 fixed header into the first 12 bytes of `buffer`.
///
/// # Panics
/// If `buffer` is shorter than 12 bytes; packet sizes are at least 32.
pub fn write_rtp(buffer: &mut [u8], header: RtpHeader) {
    buffer[0] = 0x80; // V=2, P=0, X=0, CC=0
    buffer[1] = (u8::from(header.marker) << 7) | (header.payload_type & 0x7f);
    buffer[2..4].copy_from_slice(&header.sequence.to_be_bytes());
    buffer[4..8].copy_from_slice(&header.timestamp.to_be_bytes());
    buffer[8..12].copy_from_slice(&header.ssrc.to_be_bytes());
}

/// Reads the fixed header; `None` for anything but RTP version 2.
pub fn read_rtp(buffer: &[u8]) -> Option<RtpHeader> {
    if buffer.len() < RTP_HEADER_BYTES as usize || buffer[0] >> 6 != 2 {
        return None;
    }
    Some(RtpHeader {
        payload_type: buffer[1] & 0x7f,
        marker: buffer[1] & 0x80 != 0,
        sequence: u16::from_be_bytes([buffer[2], buffer[3]]),
        timestamp: u32::from_be_bytes(buffer[4..8].try_into().ok()?),
        ssrc: u32::from_be_bytes(buffer[8..12].try_into().ok()?),
    })
}

/// A stream's SSRC: random per stream (RFC 3550 §8.1), from the clock.
fn new_ssrc() -> u32 {
    let ns = realtime_ns() as u64;
    let mixed = ns.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ u64::from(std::process::id());
    (mixed >> 32) as u32
}

/// Packets of frame `frame`: one per voice frame.
fn packets_of_frame(profile: &MediaProfile, frame: u64) -> u32 {
    match profile {
        MediaProfile::Voice(_) => 1,
        MediaProfile::Video(video) => video.packets_of_frame(frame).max(1),
    }
}

/// UDP payload bytes of packet `index` of frame `frame`.
fn packet_bytes(profile: &MediaProfile, frame: u64, index: u32) -> u32 {
    match profile {
        MediaProfile::Voice(voice) => RTP_HEADER_BYTES + voice.codec.payload_bytes(voice.packet_ms),
        MediaProfile::Video(video) => video.packet_bytes(frame, index),
    }
}

/// Sends `profile` on a connected socket until the phase is done; warm-up
/// packets carry [`crate::datagram::FLAG_WARMUP`] in the stamp, measured
/// ones count from 0 (`cadence::Numbering`); frames are due on `cadence::Cadence`.
pub fn send(socket: UdpSocket, profile: MediaProfile, context: FlowContext) -> FlowOutput {
    let largest = profile.largest_packet_bytes() as usize;
    let mut buffer = vec![0u8; largest];
    let mut output = FlowOutput::default();
    let interval = Duration::from_nanos(profile.frame_interval_ns());
    let (payload_type, step) = (profile.payload_type(), profile.timestamp_step());
    let ssrc = new_ssrc();
    let (mut rtp_sequence, mut rtp_timestamp) = (ssrc as u16, ssrc.rotate_left(13));
    let mut numbering = Numbering::default();
    let mut cadence = Cadence::new(interval);
    let mut first = true;
    // The measured stream starts on a frame boundary with frame 0 (an
    // I-frame), so stats can map sequence numbers to frames.
    'frames: while cadence.wait(&context) == Tick::Due {
        let (frame, measuring) = (cadence.index(), cadence.measuring());
        let packets = packets_of_frame(&profile, frame);
        let last = packets - 1;
        for index in 0..packets {
            let stage = context.phase.get();
            if stage == Stage::Done || Instant::now() >= context.deadline {
                break 'frames;
            }
            if !measuring && stage != Stage::Warmup {
                // Warm-up is over mid-frame: the rest of a warm-up frame
                // is not sent, the measured stream starts with its frame 0.
                continue 'frames;
            }
            let size = packet_bytes(&profile, frame, index);
            let packet = &mut buffer[..size as usize];
            let marker = match profile {
                MediaProfile::Video(_) => index == last,
                MediaProfile::Voice(_) => first,
            };
            first = false;
            write_rtp(
                packet,
                RtpHeader {
                    payload_type,
                    marker,
                    sequence: rtp_sequence,
                    timestamp: rtp_timestamp,
                    ssrc,
                },
            );
            let (sequence, flags) = numbering.next(measuring);
            write_header(
                &mut packet[RTP_HEADER_BYTES as usize..],
                Header {
                    sequence,
                    sent_ns: realtime_ns(),
                    flags,
                },
            );
            match socket.send(packet) {
                Ok(_) => {}
                // Lost at the sender: the receiver counts it, the sequence advances.
                Err(error) if lost_at_sender(&error) => {}
                Err(error) => {
                    if !context.phase.is_halted() {
                        output.error = Some(format!("media send: {error}"));
                    }
                    break 'frames;
                }
            }
            rtp_sequence = rtp_sequence.wrapping_add(1);
            numbering.count(measuring);
            if measuring {
                context.meter.add_sent(u64::from(size), 1);
            }
        }
        rtp_timestamp = rtp_timestamp.wrapping_add(step);
        cadence.advance();
    }
    output.udp_sent = numbering.measured;
    output
}

/// Receives a media stream: the udp-stream receiver, reading the stamp
/// after the RTP header, keeping [`MEDIA_ARRIVALS_LIMIT`] arrivals.
pub fn receive(socket: UdpSocket, profile: &MediaProfile, context: FlowContext) -> FlowOutput {
    super::udp_stream::receive_at(
        socket,
        profile.largest_packet_bytes() as usize,
        MEDIA_ARRIVALS_LIMIT,
        RTP_HEADER_BYTES as usize,
        context,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rtp_header_has_the_rfc_3550_layout() {
        let mut buffer = [0u8; 12];
        let header = RtpHeader {
            payload_type: 96,
            marker: true,
            sequence: 0x0102,
            timestamp: 0x0304_0506,
            ssrc: 0x0708_090a,
        };
        write_rtp(&mut buffer, header);
        assert_eq!(buffer, [0x80, 0xe0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        assert_eq!(read_rtp(&buffer), Some(header));
        assert_eq!(read_rtp(&[0u8; 12]), None);
    }
}
