//! Debian's `iperf3 -s` (esnet/iperf, written elsewhere) on loopback, for
//! the tests that hold dualperf's iperf3 peer to a real server
//! (`run_peer_iperf3`, `iperf3_bidir`): started on a given port, ready once
//! it listens, killed and reaped on drop.

#![allow(dead_code)] // each test binary uses its own part of the common code

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// An `iperf3 -s` child, killed and reaped on drop.
pub struct Iperf3Server(pub Child);

impl Iperf3Server {
    /// Starts `iperf3 -s -p PORT EXTRA…`, its standard output to `stdout`
    /// (piped for `-J`'s account), and waits until it listens (at most
    /// 5 s). `None`, with a "skipped" note, when iperf3 is not installed
    /// and `DUALPERF_REQUIRE_PRIVILEGED` is unset; with it set, a failure.
    pub fn start(port: u16, extra: &[&str], stdout: Stdio) -> Option<Iperf3Server> {
        let child = match Command::new("iperf3")
            .args(["-s", "-p", &port.to_string()])
            .args(extra)
            .stdout(stdout)
            .stderr(Stdio::null())
            .spawn()
        {
            Ok(child) => child,
            Err(error) => {
                assert!(
                    std::env::var_os("DUALPERF_REQUIRE_PRIVILEGED").is_none(),
                    "iperf3 is required here: {error}"
                );
                eprintln!("skipped: iperf3 is not installed ({error})");
                return None;
            }
        };
        let server = Iperf3Server(child);
        let deadline = Instant::now() + Duration::from_secs(5);
        while !listening(port) {
            assert!(Instant::now() < deadline, "iperf3 -s did not listen");
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(server)
    }
}

impl Drop for Iperf3Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// True once something listens on TCP `port` (read from /proc, because a
/// probe connection would be the one test of `iperf3 -s -1`).
pub fn listening(port: u16) -> bool {
    ["/proc/net/tcp", "/proc/net/tcp6"].iter().any(|file| {
        std::fs::read_to_string(file).is_ok_and(|table| {
            table.lines().skip(1).any(|line| {
                let fields: Vec<&str> = line.split_whitespace().collect();
                fields.get(3) == Some(&"0A")
                    && fields
                        .get(1)
                        .and_then(|local| local.rsplit(':').next())
                        .and_then(|hex| u16::from_str_radix(hex, 16).ok())
                        == Some(port)
            })
        })
    })
}
