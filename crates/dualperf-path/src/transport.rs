//! One probe at a time, over one of two transports:
//!
//! - [`TransportKind::Responder`]: UDP to the `dualperf serve` responder,
//!   which acknowledges every probe with the length it received
//!   ([`crate::wire`]): a one-way test of the forward path at the probe's
//!   size (the acknowledgement is small).
//! - [`TransportKind::Echo`]: ICMP echo (a raw socket, CAP_NET_RAW)
//!   against any host: the reply is as large as the request, so a size that
//!   passes passed both ways.
//!
//! Every probe first takes its slot from the [`Budget`]; ICMP errors are
//! read from the error queue and attributed to the probe they quote.

use std::io;
use std::net::{IpAddr, SocketAddr};
use std::time::Instant;

use dualperf_model::IpFamily;
use serde::{Deserialize, Serialize};
use socket2::{Domain, Protocol, Socket, Type};

use crate::atomic;
use crate::bounds::{Budget, Exhausted};
use crate::error::PathError;
use crate::exthdr::{ExtHeader, ExtKind};
use crate::icmp::{IcmpKind, IcmpReport};
use crate::sock::{self, Fragmentation, Ready};
use crate::wire;

/// How probes reach the far end and come back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum TransportKind {
    /// UDP to a `dualperf serve` responder on `port`.
    Responder {
        /// UDP port.
        port: u16,
    },
    /// ICMP echo request / reply.
    Echo,
}

/// One probe's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Probe {
    /// Size of the IP packet (headers included), bytes.
    pub size: u32,
    /// `None`: unfragmentable (DF / IPV6_DONTFRAG); `Some(n)`: fragments
    /// allowed (IPv6: pieces of at most `n` bytes, 0 = the path MTU).
    pub fragment_bytes: Option<u32>,
    /// Hop limit (TTL); `None`: the system default.
    pub hop_limit: Option<u8>,
    /// An IPv6 options header to carry.
    pub ext: Option<ExtHeader>,
}

impl Probe {
    /// An unfragmentable probe of `size` bytes with the default hop limit.
    pub fn sized(size: u32) -> Self {
        Probe {
            size,
            fragment_bytes: None,
            hop_limit: None,
            ext: None,
        }
    }
}

/// What came back for one probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "outcome")]
pub enum Outcome {
    /// The far end answered.
    Delivered {
        /// Round-trip time, microseconds.
        rtt_us: u64,
        /// Payload bytes the far end got (responder) or returned (echo).
        received: u32,
    },
    /// An ICMP error (or a local one) about this probe.
    Icmp(IcmpReport),
    /// Nothing within the wait.
    Lost,
}

/// The size of the send that finds the local MTU, bytes: more than any
/// link but loopback carries, less than the largest UDP datagram.
pub const LOCAL_MTU_PROBE_BYTES: u32 = 65_000;

/// Bytes of the IP header, per family.
pub fn ip_header_bytes(family: IpFamily) -> u32 {
    match family {
        IpFamily::V4 => 20,
        IpFamily::V6 => 40,
    }
}

/// Sends probes to one target.
pub struct Prober {
    socket: Socket,
    family: IpFamily,
    target: IpAddr,
    kind: TransportKind,
    token: u64,
    seq: u32,
    budget: Budget,
    /// Settings applied to the socket: fragmentation, hop limit, ext header.
    applied: Option<(Option<u32>, Option<u8>, Option<ExtHeader>)>,
    /// The options header the socket carries (sticky), if any.
    carried: Option<ExtHeader>,
    /// The raw socket atomic fragments leave by (made on first use).
    raw: Option<Socket>,
}

fn family_of(target: IpAddr) -> IpFamily {
    match target {
        IpAddr::V4(_) => IpFamily::V4,
        IpAddr::V6(_) => IpFamily::V6,
    }
}

fn random_token() -> u64 {
    let mut bytes = [0u8; 8];
    // SAFETY: getrandom writes at most `len` bytes into the buffer.
    let n = unsafe { libc::getrandom(bytes.as_mut_ptr().cast(), bytes.len(), 0) };
    if n == 8 {
        u64::from_ne_bytes(bytes)
    } else {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        nanos ^ u64::from(std::process::id())
    }
}

impl Prober {
    /// UDP probes to the responder at `target`:`port`.
    ///
    /// # Errors
    /// [`PathError::Socket`] when the socket cannot be made.
    pub fn responder(target: IpAddr, port: u16, budget: Budget) -> Result<Self, PathError> {
        let family = family_of(target);
        let socket = Socket::new(
            Domain::for_address(SocketAddr::new(target, port)),
            Type::DGRAM,
            Some(Protocol::UDP),
        )
        .map_err(|e| PathError::socket("opening a UDP probe socket", e))?;
        Self::finish(
            socket,
            family,
            TransportKind::Responder { port },
            SocketAddr::new(target, port),
            budget,
        )
    }

    /// ICMP echo probes to `target` (a raw socket: CAP_NET_RAW).
    ///
    /// # Errors
    /// [`PathError::Privilege`] without CAP_NET_RAW; [`PathError::Socket`].
    pub fn echo(target: IpAddr, budget: Budget) -> Result<Self, PathError> {
        let family = family_of(target);
        let (domain, protocol) = match family {
            IpFamily::V4 => (Domain::IPV4, Protocol::ICMPV4),
            IpFamily::V6 => (Domain::IPV6, Protocol::ICMPV6),
        };
        let socket =
            Socket::new(domain, Type::RAW, Some(protocol)).map_err(|e| match e.kind() {
                io::ErrorKind::PermissionDenied => PathError::Privilege {
                    what: "ICMP echo".into(),
                },
                _ => PathError::socket("opening a raw ICMP socket", e),
            })?;
        Self::finish(
            socket,
            family,
            TransportKind::Echo,
            SocketAddr::new(target, 0),
            budget,
        )
    }

    fn finish(
        socket: Socket,
        family: IpFamily,
        kind: TransportKind,
        target: SocketAddr,
        budget: Budget,
    ) -> Result<Self, PathError> {
        sock::set_recverr(&socket, family)
            .map_err(|e| PathError::socket("turning on IP_RECVERR", e))?;
        socket
            .connect(&target.into())
            .map_err(|e| PathError::socket(format!("connecting to {target}"), e))?;
        Ok(Prober {
            socket,
            family,
            target: target.ip(),
            kind,
            token: random_token(),
            seq: 0,
            budget,
            applied: None,
            carried: None,
            raw: None,
        })
    }

    /// The address probed.
    pub fn target(&self) -> IpAddr {
        self.target
    }

    /// Gives the budget back (to go on with another transport).
    pub fn into_budget(self) -> Budget {
        self.budget
    }

    /// The transport.
    pub fn kind(&self) -> TransportKind {
        self.kind
    }

    /// The family.
    pub fn family(&self) -> IpFamily {
        self.family
    }

    /// Probes sent so far.
    pub fn sent(&self) -> u32 {
        self.budget.sent()
    }

    /// The budget's bounds.
    pub fn bounds(&self) -> &crate::Bounds {
        self.budget.bounds()
    }

    /// Bytes of headers below the payload: IP, the options header, UDP or ICMP.
    fn overhead(&self, ext: Option<ExtHeader>) -> u32 {
        ip_header_bytes(self.family) + ext.map_or(0, |e| u32::from(e.bytes)) + 8
    }

    /// The smallest probe this transport can send with `ext`, bytes.
    pub fn smallest(&self, ext: Option<ExtHeader>) -> u32 {
        let payload = match self.kind {
            TransportKind::Responder { .. } => wire::HEADER_BYTES as u32,
            TransportKind::Echo => 8,
        };
        self.overhead(ext) + payload
    }

    /// The largest probe this host lets leave unfragmented towards the
    /// target: the outgoing link's MTU, found by a send of
    /// [`LOCAL_MTU_PROBE_BYTES`] that the kernel refuses with EMSGSIZE and
    /// the MTU (nothing leaves the host). `None` when such a send passes
    /// (a link of 64 KiB, e.g. loopback) or fails otherwise.
    pub fn local_mtu(&mut self) -> Option<u32> {
        self.apply(&Probe::sized(LOCAL_MTU_PROBE_BYTES)).ok()?;
        sock::clear_error(&self.socket);
        let payload = vec![0u8; (LOCAL_MTU_PROBE_BYTES - self.overhead(None)) as usize];
        match self.socket.send(&payload) {
            Ok(_) => None,
            Err(e) if e.raw_os_error() == Some(libc::EMSGSIZE) => {
                let mut mtu = None;
                while let Some(queued) = sock::read_error(&self.socket) {
                    if let IcmpKind::LocalTooBig { mtu: m } = queued.report.kind {
                        mtu = Some(m);
                    }
                }
                sock::clear_error(&self.socket);
                mtu.or_else(|| self.socket_mtu())
            }
            Err(_) => None,
        }
    }

    /// `IP_MTU` / `IPV6_MTU` of the connected socket: the MTU this host's
    /// route (or a path MTU it has already learned) gives the target —
    /// what an ordinary socket would be held to.
    pub fn route_mtu(&self) -> Option<u32> {
        self.socket_mtu()
    }

    /// `IP_MTU` / `IPV6_MTU` of the connected socket.
    fn socket_mtu(&self) -> Option<u32> {
        use std::os::fd::AsRawFd;
        let (level, name) = match self.family {
            IpFamily::V4 => (libc::IPPROTO_IP, libc::IP_MTU),
            IpFamily::V6 => (libc::IPPROTO_IPV6, libc::IPV6_MTU),
        };
        let mut value: libc::c_int = 0;
        let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
        // SAFETY: valid out-parameters for an int option.
        let rc = unsafe {
            libc::getsockopt(
                self.socket.as_raw_fd(),
                level,
                name,
                (&mut value as *mut libc::c_int).cast(),
                &mut len,
            )
        };
        (rc == 0 && value > 0).then_some(value as u32)
    }

    fn apply(&mut self, probe: &Probe) -> io::Result<()> {
        let wanted = (probe.fragment_bytes, probe.hop_limit, probe.ext);
        if self.applied == Some(wanted) {
            return Ok(());
        }
        let mode = match probe.fragment_bytes {
            None => Fragmentation::Forbidden,
            Some(fragment_bytes) => Fragmentation::Allowed { fragment_bytes },
        };
        sock::set_fragmentation(&self.socket, self.family, mode)?;
        sock::set_hop_limit(&self.socket, self.family, probe.hop_limit)?;
        // Options headers (CAP_NET_RAW even to remove one) are touched only
        // when a probe's header differs from what the socket carries, so
        // plain probes work without the capability.
        if self.family == IpFamily::V6 && probe.ext != self.carried {
            for kind in [ExtKind::HopByHop, ExtKind::DestinationOptions] {
                let before = self.carried.filter(|e| e.kind == kind);
                let after = probe.ext.filter(|e| e.kind == kind);
                if before != after {
                    let bytes = after.map(|e| e.encode());
                    sock::set_options_header(
                        &self.socket,
                        kind == ExtKind::HopByHop,
                        bytes.as_deref(),
                    )?;
                }
            }
            self.carried = probe.ext;
        }
        self.applied = Some(wanted);
        Ok(())
    }

    /// The bytes after the UDP / ICMP header.
    fn packet(&self, probe: &Probe, seq: u32) -> Vec<u8> {
        let payload = probe.size.saturating_sub(self.overhead(probe.ext)) as usize;
        match self.kind {
            TransportKind::Responder { .. } => wire::probe(self.token, seq, payload),
            TransportKind::Echo => {
                let mut out = vec![0u8; 8 + payload.max(8)];
                out[0] = match self.family {
                    IpFamily::V4 => 8,
                    IpFamily::V6 => 128,
                };
                out[4..6].copy_from_slice(&self.echo_id().to_be_bytes());
                out[6..8].copy_from_slice(&(seq as u16).to_be_bytes());
                out[8..16].copy_from_slice(&self.token.to_be_bytes());
                if self.family == IpFamily::V4 {
                    let sum = checksum(&out);
                    out[2..4].copy_from_slice(&sum.to_be_bytes());
                }
                out
            }
        }
    }

    fn echo_id(&self) -> u16 {
        (self.token >> 48) as u16
    }

    /// Which probe a reply answers, and the payload bytes it reports.
    fn reply(&self, data: &[u8]) -> Option<(u32, u32)> {
        match self.kind {
            TransportKind::Responder { .. } => {
                let header = wire::Header::decode(data)?;
                (header.kind == wire::Kind::Ack && header.token == self.token)
                    .then_some((header.seq, header.length))
            }
            TransportKind::Echo => {
                let icmp = match self.family {
                    IpFamily::V4 => data.get(usize::from(data.first()? & 0x0f) * 4..)?,
                    IpFamily::V6 => data,
                };
                let reply_type = match self.family {
                    IpFamily::V4 => 0,
                    IpFamily::V6 => 129,
                };
                let id = u16::from_be_bytes([*icmp.get(4)?, *icmp.get(5)?]);
                let token = icmp.get(8..16)?;
                if icmp[0] != reply_type
                    || id != self.echo_id()
                    || token != self.token.to_be_bytes()
                {
                    return None;
                }
                let seq = u16::from_be_bytes([icmp[6], icmp[7]]);
                Some((u32::from(seq), (icmp.len() - 8) as u32))
            }
        }
    }

    /// Which probe an error quotes, if it can be told.
    fn quoted_seq(&self, quoted: &[u8]) -> Option<u32> {
        match self.kind {
            TransportKind::Responder { .. } => wire::Header::decode(quoted)
                .filter(|h| h.token == self.token)
                .map(|h| h.seq),
            TransportKind::Echo => {
                let seq = u16::from_be_bytes([*quoted.get(6)?, *quoted.get(7)?]);
                Some(u32::from(seq))
            }
        }
    }

    fn same_seq(&self, a: u32, b: u32) -> bool {
        match self.kind {
            TransportKind::Responder { .. } => a == b,
            TransportKind::Echo => a as u16 == b as u16,
        }
    }

    /// Sends one probe and waits for its answer.
    ///
    /// # Errors
    /// [`Exhausted`] when the budget allows no more probes.
    pub fn send(&mut self, probe: &Probe) -> Result<Outcome, Exhausted> {
        self.drain();
        let wait = self.budget.bounds().wait();
        if self.apply(probe).is_err() {
            // An option the kernel refused (e.g. an options header without
            // CAP_NET_RAW): nothing was sent.
            return Ok(Outcome::Lost);
        }
        self.budget.take()?;
        self.seq = self.seq.wrapping_add(1);
        let seq = self.seq;
        let packet = self.packet(probe, seq);
        let sent_at = Instant::now();
        let sent = match probe.ext {
            Some(ext) if ext.kind == ExtKind::Fragment => self.send_atomic(probe, &packet),
            _ => self.socket.send(&packet),
        };
        if let Err(e) = sent {
            let local = self.drain();
            if e.raw_os_error() == Some(libc::EMSGSIZE) {
                let mtu = local.into_iter().find_map(|r| match r.kind {
                    IcmpKind::LocalTooBig { mtu } => Some(mtu),
                    _ => None,
                });
                return Ok(Outcome::Icmp(IcmpReport {
                    kind: IcmpKind::LocalTooBig {
                        mtu: mtu.unwrap_or(0),
                    },
                    offender: None,
                }));
            }
            return Ok(Outcome::Lost);
        }
        Ok(self.await_answer(seq, sent_at, sent_at + wait))
    }

    /// Sends `payload` as UDP in an atomic fragment from this socket's
    /// address and port (responder transport, IPv6 only).
    fn send_atomic(&mut self, probe: &Probe, payload: &[u8]) -> io::Result<usize> {
        let TransportKind::Responder { port } = self.kind else {
            return Err(io::Error::other(
                "atomic fragments go to the responder only",
            ));
        };
        let (IpAddr::V6(target), Some(source)) =
            (self.target, self.socket.local_addr()?.as_socket_ipv6())
        else {
            return Err(io::Error::other("atomic fragments are IPv6"));
        };
        let flow = atomic::Flow {
            source,
            destination: std::net::SocketAddrV6::new(target, port, 0, 0),
            hop_limit: probe.hop_limit.unwrap_or(64),
            id: self.seq ^ (self.token as u32),
        };
        if self.raw.is_none() {
            self.raw = Some(atomic::raw_socket()?);
        }
        let raw = self
            .raw
            .as_ref()
            .ok_or_else(|| io::Error::other("no raw socket"))?;
        let to = SocketAddr::new(IpAddr::V6(target), 0);
        raw.send_to(&atomic::packet(&flow, payload), &to.into())
    }

    fn await_answer(&mut self, seq: u32, sent_at: Instant, deadline: Instant) -> Outcome {
        let mut buffer = vec![0u8; 65_536];
        loop {
            match sock::wait(&self.socket, deadline) {
                Ready::Timeout => return Outcome::Lost,
                Ready::Error => {
                    while let Some(queued) = sock::read_error(&self.socket) {
                        let mine = self
                            .quoted_seq(&queued.quoted)
                            .is_none_or(|quoted| self.same_seq(quoted, seq));
                        if mine && !matches!(queued.report.kind, IcmpKind::LocalTooBig { .. }) {
                            sock::clear_error(&self.socket);
                            return Outcome::Icmp(queued.report);
                        }
                    }
                    sock::clear_error(&self.socket);
                }
                Ready::Data => {
                    let n = match recv(&self.socket, &mut buffer) {
                        Ok(n) => n,
                        Err(_) => {
                            sock::clear_error(&self.socket);
                            continue;
                        }
                    };
                    if let Some((got, received)) = self.reply(&buffer[..n]) {
                        if self.same_seq(got, seq) {
                            return Outcome::Delivered {
                                rtt_us: sent_at.elapsed().as_micros() as u64,
                                received,
                            };
                        }
                    }
                }
            }
        }
    }

    /// Empties the error queue and the receive buffer (late answers to
    /// earlier probes); returns the errors read.
    fn drain(&mut self) -> Vec<IcmpReport> {
        let mut reports = Vec::new();
        while let Some(queued) = sock::read_error(&self.socket) {
            reports.push(queued.report);
        }
        sock::clear_error(&self.socket);
        let mut buffer = [0u8; 2048];
        let _ = self.socket.set_nonblocking(true);
        while recv(&self.socket, &mut buffer).is_ok() {}
        let _ = self.socket.set_nonblocking(false);
        sock::clear_error(&self.socket);
        reports
    }
}

/// Receives one datagram into `buffer` (non-blocking when the socket is).
fn recv(socket: &Socket, buffer: &mut [u8]) -> io::Result<usize> {
    use std::io::Read;
    let mut reader: &Socket = socket;
    reader.read(buffer)
}

/// The Internet checksum (RFC 1071) of ICMPv4 messages (ICMPv6's is the
/// kernel's).
fn checksum(bytes: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for pair in bytes.chunks(2) {
        let word = u16::from_be_bytes([pair[0], *pair.get(1).unwrap_or(&0)]);
        sum += u32::from(word);
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checksum_of_an_echo_request_verifies_to_zero() {
        let mut message = vec![8, 0, 0, 0, 0x12, 0x34, 0, 1, 1, 2, 3, 4, 5];
        let sum = checksum(&message);
        message[2..4].copy_from_slice(&sum.to_be_bytes());
        assert_eq!(checksum(&message), 0);
    }
}
