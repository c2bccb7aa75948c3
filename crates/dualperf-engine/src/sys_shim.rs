//! TEMPORARY stand-ins for the engine-sys helper's modules (host_facts, cpu,
//! tcp_info, affinity, socket_options, sequence_tracker, latency_recorder),
//! with the same signatures. The integrator deletes this file and points the
//! `use crate::sys_shim::…` lines at the real modules. Minimal but real: no
//! value here is invented.
#![allow(dead_code)]

pub mod host_facts {
    use dualperf_model::HostFacts;

    /// Minimal host facts: tool version and kernel release.
    pub fn collect_host_facts() -> HostFacts {
        let read = |path: &str| {
            std::fs::read_to_string(path)
                .unwrap_or_default()
                .trim()
                .to_string()
        };
        HostFacts {
            tool_version: env!("CARGO_PKG_VERSION").to_string(),
            hostname: read("/proc/sys/kernel/hostname"),
            kernel: read("/proc/sys/kernel/osrelease"),
            tcp_congestion_control: read("/proc/sys/net/ipv4/tcp_congestion_control"),
            ..Default::default()
        }
    }
}

pub mod cpu {
    use dualperf_model::{ProcessCpu, SystemCpu};
    use std::time::Instant;

    /// Process CPU between `start` and `finish` (getrusage).
    pub struct CpuMeter {
        started: Instant,
        user_ns: u64,
        system_ns: u64,
    }

    fn rusage() -> (u64, u64) {
        // SAFETY: getrusage writes into a zeroed struct we own.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
        let ns = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1000;
        (ns(usage.ru_utime), ns(usage.ru_stime))
    }

    impl CpuMeter {
        pub fn start() -> CpuMeter {
            let (user_ns, system_ns) = rusage();
            CpuMeter {
                started: Instant::now(),
                user_ns,
                system_ns,
            }
        }
        pub fn finish(&self) -> (ProcessCpu, Option<SystemCpu>) {
            let (user, system) = rusage();
            (
                ProcessCpu {
                    user_ns: user.saturating_sub(self.user_ns),
                    system_ns: system.saturating_sub(self.system_ns),
                    wall_ns: self.started.elapsed().as_nanos() as u64,
                },
                None,
            )
        }
    }
}

pub mod tcp_info {
    use dualperf_model::TcpCounters;
    use std::os::fd::RawFd;

    pub fn read_tcp_counters(_fd: RawFd) -> std::io::Result<TcpCounters> {
        Err(std::io::Error::other("TCP_INFO not available in the shim"))
    }
}

pub mod affinity {
    /// Parses "0,2-3".
    pub fn parse_cpu_list(text: &str) -> Result<Vec<u32>, String> {
        let mut cpus = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let bad = || format!("`{part}` is not a CPU number or range");
            match part.split_once('-') {
                Some((a, b)) => {
                    let (a, b): (u32, u32) =
                        (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
                    cpus.extend(a..=b);
                }
                None => cpus.push(part.parse().map_err(|_| bad())?),
            }
        }
        if cpus.is_empty() {
            return Err(format!("`{text}` names no CPU"));
        }
        Ok(cpus)
    }

    pub fn pin_current_thread(cpus: &[u32]) -> std::io::Result<()> {
        // SAFETY: cpu_set_t is plain data; sched_setaffinity(0) affects this thread.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            for &cpu in cpus {
                libc::CPU_SET(cpu as usize, &mut set);
            }
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    }
}

pub mod socket_options {
    use dualperf_model::IpFamily;
    use std::os::fd::RawFd;

    fn set(fd: RawFd, option: libc::c_int, value: u32) -> std::io::Result<()> {
        let value = value as libc::c_int;
        // SAFETY: a c_int option value of the right size.
        let rc = unsafe {
            libc::setsockopt(
                fd,
                libc::SOL_SOCKET,
                option,
                &value as *const _ as *const libc::c_void,
                4,
            )
        };
        if rc != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }

    fn get(fd: RawFd, level: libc::c_int, option: libc::c_int) -> std::io::Result<u32> {
        let mut value: libc::c_int = 0;
        let mut len: libc::socklen_t = 4;
        // SAFETY: a c_int out parameter with its length.
        let rc = unsafe {
            libc::getsockopt(
                fd,
                level,
                option,
                &mut value as *mut _ as *mut libc::c_void,
                &mut len,
            )
        };
        if rc != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(value as u32)
    }

    pub fn set_buffer_sizes(
        fd: RawFd,
        send_bytes: Option<u32>,
        receive_bytes: Option<u32>,
    ) -> std::io::Result<(u32, u32)> {
        if let Some(bytes) = send_bytes {
            set(fd, libc::SO_SNDBUFFORCE, bytes).or_else(|_| set(fd, libc::SO_SNDBUF, bytes))?;
        }
        if let Some(bytes) = receive_bytes {
            set(fd, libc::SO_RCVBUFFORCE, bytes).or_else(|_| set(fd, libc::SO_RCVBUF, bytes))?;
        }
        Ok((
            get(fd, libc::SOL_SOCKET, libc::SO_SNDBUF)?,
            get(fd, libc::SOL_SOCKET, libc::SO_RCVBUF)?,
        ))
    }

    pub fn enable_receive_timestamps(fd: RawFd) -> std::io::Result<()> {
        set(fd, libc::SO_TIMESTAMPNS, 1)
    }

    pub fn path_mtu(fd: RawFd, family: IpFamily) -> Option<u32> {
        match family {
            IpFamily::V4 => get(fd, libc::IPPROTO_IP, libc::IP_MTU).ok(),
            IpFamily::V6 => get(fd, libc::IPPROTO_IPV6, libc::IPV6_MTU).ok(),
        }
    }
}

pub mod sequence_tracker {
    use dualperf_model::UdpReceiveCounters;
    use std::collections::HashSet;

    /// Minimal tracker: distinct count, duplicates, reordering by NextExp, jitter.
    pub struct SequenceTracker {
        seen: HashSet<u64>,
        duplicates: u64,
        reordered: u64,
        next_expected: u64,
        previous_transit: Option<i64>,
        jitter: f64,
    }

    impl SequenceTracker {
        pub fn new(_arrivals_limit: usize) -> Self {
            SequenceTracker {
                seen: HashSet::new(),
                duplicates: 0,
                reordered: 0,
                next_expected: 0,
                previous_transit: None,
                jitter: 0.0,
            }
        }
        pub fn observe(&mut self, sequence: u64, sent_ns: i64, received_ns: i64) {
            if !self.seen.insert(sequence) {
                self.duplicates += 1;
                return;
            }
            if sequence < self.next_expected {
                self.reordered += 1;
            } else {
                self.next_expected = sequence + 1;
            }
            let transit = received_ns - sent_ns;
            if let Some(previous) = self.previous_transit.replace(transit) {
                self.jitter += ((transit - previous).unsigned_abs() as f64 - self.jitter) / 16.0;
            }
        }
        pub fn finish(
            self,
            sent: u64,
            loss_wait_ms: u64,
            receive_timestamp_source: &str,
            clocks_shared: bool,
        ) -> UdpReceiveCounters {
            let received = self.seen.len() as u64;
            UdpReceiveCounters {
                sent,
                received,
                duplicates: self.duplicates,
                reordered: self.reordered,
                lost: sent.saturating_sub(received),
                loss_wait_ms,
                jitter_ns: self.jitter as u64,
                receive_timestamp_source: receive_timestamp_source.to_string(),
                clocks_shared,
                ..Default::default()
            }
        }
    }
}

pub mod latency_recorder {
    use dualperf_model::LatencySamples;

    /// Minimal recorder: raw prefix, exact min/max/sum, no histogram.
    #[derive(Clone)]
    pub struct LatencyRecorder {
        raw_limit: usize,
        samples: LatencySamples,
    }

    impl LatencyRecorder {
        pub fn new(raw_limit: usize) -> Self {
            LatencyRecorder {
                raw_limit,
                samples: LatencySamples {
                    raw_limit: raw_limit as u64,
                    min_ns: u64::MAX,
                    ..Default::default()
                },
            }
        }
        pub fn record(&mut self, nanoseconds: u64) {
            let s = &mut self.samples;
            s.count += 1;
            s.min_ns = s.min_ns.min(nanoseconds);
            s.max_ns = s.max_ns.max(nanoseconds);
            s.sum_ns += nanoseconds as u128;
            s.sum_squares_ns2 += (nanoseconds as f64) * (nanoseconds as f64);
            if s.raw_ns.len() < self.raw_limit {
                s.raw_ns.push(nanoseconds);
            }
        }
        pub fn merge(&mut self, other: &LatencyRecorder) {
            for &value in &other.samples.raw_ns {
                self.record(value);
            }
        }
        pub fn finish(&self) -> LatencySamples {
            let mut samples = self.samples.clone();
            if samples.count == 0 {
                samples.min_ns = 0;
            }
            samples
        }
    }
}
