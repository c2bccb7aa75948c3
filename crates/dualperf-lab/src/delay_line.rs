//! The user-space delay line: fixed delay (plus jitter) on one direction of
//! a lab link where the kernel has no netem (kernel-recipes §5b).
//!
//! **How a packet travels.** On the sending end `DEV` of the emulated
//! direction, the `linkem` cls_bpf program (clsact egress, [`crate::bpf`])
//! drops the lost packets and redirects the rest to a TAP device that this
//! module creates in the same namespace. The TAP hands every frame to the
//! delay line's thread, which stamps it, holds it in a FIFO until
//! `arrival + delay (+ jitter)` and sends it out of `DEV` through an
//! `AF_PACKET` socket with `SO_MARK` = [`crate::bpf::LINKEM_MARK`]; the
//! program lets marked frames pass, on to `DEV`'s root qdisc (the rate
//! limiter, if the link has one). So the delay sits in front of the
//! bottleneck queue, as a fixed delay in series with a FIFO commutes with it.
//!
//! The TAP has no offloads, so the kernel segments GSO packets and fills in
//! partial checksums before they reach user space: every frame is at most
//! MTU + 14 bytes and complete. IPv6 is disabled on the TAP before it comes
//! up, so the kernel itself sends nothing through it.
//!
//! **Ownership.** The delay line is a thread of the process that built the
//! testbed, and the TAP is not persistent: it exists exactly as long as the
//! thread holds its file descriptor. Dropping the [`DelayLine`] (the
//! testbed drops it first) stops the thread; the process ending for any
//! reason — error, panic, Ctrl-C, SIGKILL — closes the descriptor and the
//! kernel removes the TAP. Nothing can outlive the process.
//!
//! **Its own loss.** Frames are lost by the delay line itself only when its
//! FIFO exceeds [`DelayLineConfig::capacity_packets`] (counted in
//! `own_drops`) or when the TAP's receive ring overflows before the thread
//! reads it (the TAP's `tx_dropped`; the ring is sized to
//! [`TAP_QUEUE_PACKETS`]). A send that the qdisc behind `DEV` refuses
//! (`ENOBUFS`: the bottleneck queue is full) is the link's loss, not the
//! delay line's, and is counted in `queue_drops`.

use std::collections::VecDeque;
use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::bpf::LINKEM_MARK;

/// Frames the TAP's ring holds before the kernel drops (its `txqueuelen`).
pub const TAP_QUEUE_PACKETS: u32 = 65_536;
/// SCHED_FIFO priority of the delay line's thread (1..=99; low, above
/// every normal thread).
const REALTIME_PRIORITY: libc::c_int = 10;
/// Most frames read from the TAP before the thread checks the clock again.
const READ_BATCH: usize = 256;

const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
const IFF_TAP: i16 = 0x0002;
const IFF_NO_PI: i16 = 0x1000;
const SIOCGIFINDEX: libc::c_ulong = 0x8933;
const SIOCSIFMTU: libc::c_ulong = 0x8922;
const SIOCGIFFLAGS: libc::c_ulong = 0x8913;
const SIOCSIFFLAGS: libc::c_ulong = 0x8914;
const SIOCSIFTXQLEN: libc::c_ulong = 0x8943;
const SIOCGIFHWADDR: libc::c_ulong = 0x8927;

/// What one delay line does.
#[derive(Clone, Debug)]
pub struct DelayLineConfig {
    /// The namespace of the sending end.
    pub netns: String,
    /// The sending end `DEV`: where delayed frames go out.
    pub interface: String,
    /// The TAP device's name (unique: derived from the run id).
    pub tap: String,
    /// Link MTU, bytes.
    pub mtu_bytes: u32,
    /// Fixed delay.
    pub delay: Duration,
    /// Uniform variation of the delay, ± this much; order is kept (a frame
    /// never leaves before the one in front of it).
    pub jitter: Duration,
    /// Most frames held at once.
    pub capacity_packets: usize,
}

/// Counters of a delay line, readable while it runs.
#[derive(Debug, Default)]
pub struct DelayLineCounters {
    /// Frames read from the TAP.
    pub received: AtomicU64,
    /// Frames sent out of the interface.
    pub forwarded: AtomicU64,
    /// Frames dropped because the FIFO was full: the delay line's own loss.
    pub own_drops: AtomicU64,
    /// Sends the qdisc behind the interface refused (bottleneck queue full).
    pub queue_drops: AtomicU64,
    /// Other send errors.
    pub send_errors: AtomicU64,
    /// Largest number of frames held at once.
    pub max_held: AtomicU64,
}

/// A snapshot of [`DelayLineCounters`].
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct DelayLineStats {
    /// See [`DelayLineCounters::received`].
    pub received: u64,
    /// See [`DelayLineCounters::forwarded`].
    pub forwarded: u64,
    /// See [`DelayLineCounters::own_drops`].
    pub own_drops: u64,
    /// See [`DelayLineCounters::queue_drops`].
    pub queue_drops: u64,
    /// See [`DelayLineCounters::send_errors`].
    pub send_errors: u64,
    /// See [`DelayLineCounters::max_held`].
    pub max_held: u64,
}

/// A running delay line; dropping it stops the thread and removes the TAP.
#[derive(Debug)]
pub struct DelayLine {
    config: DelayLineConfig,
    ifindex: u32,
    stop: Arc<AtomicBool>,
    counters: Arc<DelayLineCounters>,
    thread: Option<JoinHandle<()>>,
}

impl DelayLine {
    /// Creates the TAP in `config.netns` and starts the thread; returns once
    /// the TAP is up (its ifindex is what the BPF program redirects to).
    ///
    /// # Errors
    /// The system call that failed (namespace, TAP, socket), with context.
    pub fn start(config: DelayLineConfig) -> io::Result<DelayLine> {
        let stop = Arc::new(AtomicBool::new(false));
        let counters = Arc::new(DelayLineCounters::default());
        let (ready_tx, ready_rx) = mpsc::channel::<io::Result<u32>>();
        let thread = {
            let config = config.clone();
            let stop = Arc::clone(&stop);
            let counters = Arc::clone(&counters);
            std::thread::Builder::new()
                .name(format!("delay-{}", config.tap))
                .spawn(move || {
                    let setup = Setup::open(&config);
                    match setup {
                        Err(err) => {
                            let _ = ready_tx.send(Err(err));
                        }
                        Ok(setup) => {
                            let _ = ready_tx.send(Ok(setup.ifindex));
                            setup.run(&config, &stop, &counters);
                        }
                    }
                })?
        };
        let ifindex = match ready_rx.recv() {
            Ok(Ok(ifindex)) => ifindex,
            Ok(Err(err)) => {
                let _ = thread.join();
                return Err(err);
            }
            Err(_) => {
                let _ = thread.join();
                return Err(io::Error::other("the delay line thread ended during setup"));
            }
        };
        Ok(DelayLine {
            config,
            ifindex,
            stop,
            counters,
            thread: Some(thread),
        })
    }

    /// The TAP's interface index (in the namespace of the sending end).
    pub fn ifindex(&self) -> u32 {
        self.ifindex
    }

    /// What it was started with.
    pub fn config(&self) -> &DelayLineConfig {
        &self.config
    }

    /// The counters so far.
    pub fn stats(&self) -> DelayLineStats {
        let c = &self.counters;
        DelayLineStats {
            received: c.received.load(Ordering::Relaxed),
            forwarded: c.forwarded.load(Ordering::Relaxed),
            own_drops: c.own_drops.load(Ordering::Relaxed),
            queue_drops: c.queue_drops.load(Ordering::Relaxed),
            send_errors: c.send_errors.load(Ordering::Relaxed),
            max_held: c.max_held.load(Ordering::Relaxed),
        }
    }

    /// Stops the thread (frames still held are discarded) and removes the
    /// TAP; returns the final counters.
    pub fn stop(mut self) -> DelayLineStats {
        self.halt();
        self.stats()
    }

    fn halt(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for DelayLine {
    fn drop(&mut self) {
        self.halt();
    }
}

/// The open TAP and packet socket, in the thread that owns them.
struct Setup {
    tap: OwnedFd,
    out: OwnedFd,
    ifindex: u32,
    tap_mac: [u8; 6],
}

/// `struct ifreq`: a name and a 24-byte union.
#[repr(C)]
struct IfReq {
    name: [libc::c_char; libc::IFNAMSIZ],
    data: [u8; 24],
}

impl IfReq {
    fn new(name: &str) -> io::Result<IfReq> {
        if name.len() >= libc::IFNAMSIZ {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("interface name `{name}` is too long"),
            ));
        }
        let mut req = IfReq {
            name: [0; libc::IFNAMSIZ],
            data: [0; 24],
        };
        for (slot, byte) in req.name.iter_mut().zip(name.bytes()) {
            *slot = byte as libc::c_char;
        }
        Ok(req)
    }

    fn set_i32(&mut self, value: i32) {
        self.data[..4].copy_from_slice(&value.to_ne_bytes());
    }

    fn i32(&self) -> i32 {
        i32::from_ne_bytes([self.data[0], self.data[1], self.data[2], self.data[3]])
    }

    fn set_i16(&mut self, value: i16) {
        self.data[..2].copy_from_slice(&value.to_ne_bytes());
    }

    fn i16(&self) -> i16 {
        i16::from_ne_bytes([self.data[0], self.data[1]])
    }
}

fn context(what: String) -> impl FnOnce(io::Error) -> io::Error {
    move |err| io::Error::new(err.kind(), format!("{what}: {err}"))
}

fn check(rc: libc::c_int) -> io::Result<libc::c_int> {
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(rc)
    }
}

/// `ioctl(fd, request, &mut req)`.
fn ifreq_ioctl(fd: &OwnedFd, request: libc::c_ulong, req: &mut IfReq) -> io::Result<()> {
    // SAFETY: `req` is a valid, writable `struct ifreq` for these requests.
    check(unsafe { libc::ioctl(fd.as_raw_fd(), request as _, req as *mut IfReq) }).map(drop)
}

fn socket(domain: libc::c_int, kind: libc::c_int, protocol: libc::c_int) -> io::Result<OwnedFd> {
    // SAFETY: plain socket(2); the descriptor is owned from here on.
    let fd = check(unsafe { libc::socket(domain, kind | libc::SOCK_CLOEXEC, protocol) })?;
    // SAFETY: `fd` is a new descriptor nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn set_int_option(
    fd: &OwnedFd,
    level: libc::c_int,
    name: libc::c_int,
    value: libc::c_int,
) -> io::Result<()> {
    // SAFETY: setsockopt(2) with a pointer to an int and its size.
    check(unsafe {
        libc::setsockopt(
            fd.as_raw_fd(),
            level,
            name,
            (&value as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    })
    .map(drop)
}

impl Setup {
    /// Enters the namespace (this thread only) and opens everything.
    fn open(config: &DelayLineConfig) -> io::Result<Setup> {
        let ns = File::open(format!("/run/netns/{}", config.netns))
            .map_err(context(format!("open namespace `{}`", config.netns)))?;
        // SAFETY: setns(2) on an open namespace descriptor; affects this thread only.
        check(unsafe { libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET) })
            .map_err(context(format!("enter namespace `{}`", config.netns)))?;
        // Wake-ups on time: the default 50 µs timer slack would add to the delay.
        // SAFETY: prctl(2) with an integer argument.
        unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
        // A real-time priority, when allowed, so that busy CPUs do not add
        // to the delay: the thread sleeps in ppoll whenever it has nothing
        // due, so it cannot starve the machine. Without it (no
        // CAP_SYS_NICE), the normal policy.
        let priority = libc::sched_param {
            sched_priority: REALTIME_PRIORITY,
        };
        // SAFETY: sched_setscheduler(2) on this thread (0) with a valid param.
        unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &priority) };

        let path = CString::new("/dev/net/tun").expect("no NUL");
        // SAFETY: open(2) of a constant path.
        let raw = check(unsafe {
            libc::open(
                path.as_ptr(),
                libc::O_RDWR | libc::O_CLOEXEC | libc::O_NONBLOCK,
            )
        })
        .map_err(context("open /dev/net/tun".into()))?;
        // SAFETY: a new descriptor nobody else owns.
        let tap = unsafe { OwnedFd::from_raw_fd(raw) };
        let mut req = IfReq::new(&config.tap)?;
        req.set_i16(IFF_TAP | IFF_NO_PI);
        ifreq_ioctl(&tap, TUNSETIFF, &mut req)
            .map_err(context(format!("create TAP `{}`", config.tap)))?;

        // IPv6 off before the TAP comes up: no router solicitations or MLD
        // reports for the delay line to forward.
        let sysctl = format!("/proc/sys/net/ipv6/conf/{}/disable_ipv6", config.tap);
        if std::path::Path::new(&sysctl).exists() {
            std::fs::write(&sysctl, "1").map_err(context(format!("write {sysctl}")))?;
        }
        let control = socket(libc::AF_INET, libc::SOCK_DGRAM, 0)?;
        let mut req = IfReq::new(&config.tap)?;
        req.set_i32(config.mtu_bytes as i32);
        ifreq_ioctl(&control, SIOCSIFMTU, &mut req)
            .map_err(context(format!("set MTU of `{}`", config.tap)))?;
        let mut req = IfReq::new(&config.tap)?;
        req.set_i32(TAP_QUEUE_PACKETS as i32);
        ifreq_ioctl(&control, SIOCSIFTXQLEN, &mut req)
            .map_err(context(format!("set txqueuelen of `{}`", config.tap)))?;
        let mut req = IfReq::new(&config.tap)?;
        ifreq_ioctl(&control, SIOCGIFFLAGS, &mut req)?;
        let flags = req.i16() | (libc::IFF_UP as i16) | (libc::IFF_NOARP as i16);
        req.set_i16(flags);
        ifreq_ioctl(&control, SIOCSIFFLAGS, &mut req)
            .map_err(context(format!("bring up `{}`", config.tap)))?;
        let mut req = IfReq::new(&config.tap)?;
        ifreq_ioctl(&control, SIOCGIFINDEX, &mut req)?;
        let ifindex = req.i32() as u32;
        let mut req = IfReq::new(&config.tap)?;
        ifreq_ioctl(&control, SIOCGIFHWADDR, &mut req)?;
        let mut tap_mac = [0u8; 6];
        tap_mac.copy_from_slice(&req.data[2..8]); // sockaddr: family (2 bytes), then the address

        let mut req = IfReq::new(&config.interface)?;
        ifreq_ioctl(&control, SIOCGIFINDEX, &mut req)
            .map_err(context(format!("find `{}`", config.interface)))?;
        let out_ifindex = req.i32();
        // Protocol 0: this socket only sends, it receives nothing.
        let out = socket(libc::AF_PACKET, libc::SOCK_RAW, 0)
            .map_err(context("open an AF_PACKET socket".into()))?;
        set_int_option(
            &out,
            libc::SOL_SOCKET,
            libc::SO_MARK,
            LINKEM_MARK as libc::c_int,
        )
        .map_err(context("set SO_MARK".into()))?;
        set_int_option(&out, libc::SOL_SOCKET, libc::SO_SNDBUFFORCE, 64 << 20)
            .or_else(|_| set_int_option(&out, libc::SOL_SOCKET, libc::SO_SNDBUF, 64 << 20))?;
        // SAFETY: an all-zero sockaddr_ll is valid; the fields are set below.
        let mut address: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        address.sll_family = libc::AF_PACKET as u16;
        address.sll_ifindex = out_ifindex;
        // SAFETY: bind(2) with a sockaddr_ll and its size.
        check(unsafe {
            libc::bind(
                out.as_raw_fd(),
                (&address as *const libc::sockaddr_ll).cast(),
                std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t,
            )
        })
        .map_err(context(format!("bind to `{}`", config.interface)))?;
        Ok(Setup {
            tap,
            out,
            ifindex,
            tap_mac,
        })
    }

    /// The loop: read what arrived, send what is due, sleep until the next
    /// frame is due or a frame arrives.
    fn run(self, config: &DelayLineConfig, stop: &AtomicBool, counters: &DelayLineCounters) {
        let frame_capacity = config.mtu_bytes as usize + 64;
        let delay_ns = config.delay.as_nanos() as u64;
        let jitter_ns = config.jitter.as_nanos() as u64;
        let mut random = XorShift::seeded();
        let mut held: VecDeque<(u64, Vec<u8>)> = VecDeque::new();
        let mut pool: Vec<Vec<u8>> = Vec::new();
        let mut last_due = 0u64;
        while !stop.load(Ordering::Relaxed) {
            // Send everything due.
            let now = monotonic_ns();
            while held.front().is_some_and(|(due, _)| *due <= now) {
                let (_, frame) = held.pop_front().expect("front exists");
                // SAFETY: send(2) of an initialised buffer on a bound socket.
                let sent = unsafe {
                    libc::send(self.out.as_raw_fd(), frame.as_ptr().cast(), frame.len(), 0)
                };
                if sent < 0 {
                    match io::Error::last_os_error().raw_os_error() {
                        Some(libc::ENOBUFS) => counters.queue_drops.fetch_add(1, Ordering::Relaxed),
                        _ => counters.send_errors.fetch_add(1, Ordering::Relaxed),
                    };
                } else {
                    counters.forwarded.fetch_add(1, Ordering::Relaxed);
                }
                pool.push(frame);
            }
            // Sleep until the next release, a frame, or 50 ms (to see `stop`).
            let wait_ns = held
                .front()
                .map_or(50_000_000, |(due, _)| due.saturating_sub(monotonic_ns()))
                .min(50_000_000);
            let mut poll = libc::pollfd {
                fd: self.tap.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            let timeout = libc::timespec {
                tv_sec: (wait_ns / 1_000_000_000) as libc::time_t,
                tv_nsec: (wait_ns % 1_000_000_000) as libc::c_long,
            };
            // SAFETY: ppoll(2) on one valid pollfd with a valid timeout.
            let ready = unsafe { libc::ppoll(&mut poll, 1, &timeout, std::ptr::null()) };
            if ready <= 0 {
                continue;
            }
            // Read what arrived, stamping each frame.
            for _ in 0..READ_BATCH {
                let mut frame = pool
                    .pop()
                    .unwrap_or_else(|| Vec::with_capacity(frame_capacity));
                frame.clear();
                // SAFETY: read(2) into the vector's spare capacity, then set its length.
                let n = unsafe {
                    libc::read(
                        self.tap.as_raw_fd(),
                        frame.as_mut_ptr().cast(),
                        frame.capacity(),
                    )
                };
                if n <= 0 {
                    pool.push(frame);
                    break;
                }
                // SAFETY: the kernel wrote `n` bytes.
                unsafe { frame.set_len(n as usize) };
                if frame.len() < 14 || frame[6..12] == self.tap_mac {
                    pool.push(frame); // the kernel's own frame on the TAP: not traffic
                    continue;
                }
                counters.received.fetch_add(1, Ordering::Relaxed);
                if held.len() >= config.capacity_packets {
                    counters.own_drops.fetch_add(1, Ordering::Relaxed);
                    pool.push(frame);
                    continue;
                }
                let arrival = monotonic_ns();
                let mut due = arrival + delay_ns;
                if jitter_ns > 0 {
                    let offset = random.next() % (2 * jitter_ns + 1);
                    due = (due + offset).saturating_sub(jitter_ns).max(arrival);
                }
                due = due.max(last_due); // FIFO: never overtake
                last_due = due;
                held.push_back((due, frame));
                let len = held.len() as u64;
                if len > counters.max_held.load(Ordering::Relaxed) {
                    counters.max_held.store(len, Ordering::Relaxed);
                }
            }
        }
    }
}

/// CLOCK_MONOTONIC, nanoseconds.
fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime(2) into a valid timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// xorshift64*: jitter needs speed, not cryptographic quality.
struct XorShift(u64);

impl XorShift {
    fn seeded() -> XorShift {
        XorShift(monotonic_ns() | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ifreq_carries_a_name_and_an_integer() {
        let mut req = IfReq::new("dsp-tap0").unwrap();
        req.set_i32(1500);
        assert_eq!(req.i32(), 1500);
        assert_eq!(
            req.name[..8].iter().map(|&c| c as u8).collect::<Vec<_>>(),
            b"dsp-tap0"
        );
        assert!(IfReq::new("a-name-far-too-long").is_err());
    }

    #[test]
    fn jitter_random_numbers_spread() {
        let mut random = XorShift(12345);
        let values: Vec<u64> = (0..1000).map(|_| random.next() % 100).collect();
        assert!(values.iter().any(|&v| v < 10) && values.iter().any(|&v| v > 90));
    }
}
