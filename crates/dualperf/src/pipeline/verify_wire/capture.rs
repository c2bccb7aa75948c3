//! The capture behind `--verify-wire`: a `tcpdump` subprocess writing a
//! pcap file, started before the first trial and stopped after the last,
//! on this host (`run`) or inside a lab node (`lab`). Its standard error
//! goes to a log next to the pcap: "listening on" says it captures, and
//! on exit it says how many packets it dropped.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};

use crate::exit::Failure;

/// The capture program.
const TCPDUMP: &str = "tcpdump";
/// Bytes kept of each packet: enough for Ethernet, an outer IPv6 header
/// with an SRv6 routing header, an inner IPv4 header, UDP and the 20-byte
/// dualperf header.
const SNAP_BYTES: u32 = 192;
/// Kernel buffer of the capture, KiB.
const BUFFER_KIB: u32 = 32_768;
/// How long tcpdump gets to say it listens.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// Exit code 3 unless `tcpdump` can be run.
///
/// # Errors
/// An environment error naming what to install.
pub(crate) fn require_tool() -> anyhow::Result<()> {
    let found = Command::new(TCPDUMP)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if found {
        Ok(())
    } else {
        Err(Failure::environment(
            "--verify-wire needs tcpdump (apt-get install tcpdump, or dev/install-deps); \
             nothing was measured",
        ))
    }
}

/// tcpdump's arguments: capture on `interface` into `pcap`, every IP packet
/// but the control connection's (`control_port`).
pub(crate) fn arguments(interface: &str, pcap: &Path, control_port: u16) -> Vec<OsString> {
    let mut args: Vec<OsString> = [
        "-i",
        interface,
        "-n",
        "-U",
        "-Z",
        "root",
        "-s",
        &SNAP_BYTES.to_string(),
        "-B",
        &BUFFER_KIB.to_string(),
        "-w",
    ]
    .iter()
    .map(OsString::from)
    .collect();
    args.push(pcap.into());
    args.push(format!("(ip or ip6) and not tcp port {control_port}").into());
    args
}

/// A running process: on this host or in a lab node.
enum Process {
    Local(std::process::Child),
    Node(dualperf_lab::NodeProcess),
}

/// A running capture.
pub(crate) struct Capture {
    process: Option<Process>,
    /// The pcap file.
    pub pcap: PathBuf,
    log: PathBuf,
    /// The interface captured on.
    pub interface: String,
}

/// A finished capture.
#[derive(Debug)]
pub(crate) struct Captured {
    /// The pcap file.
    pub pcap: PathBuf,
    /// The interface.
    pub interface: String,
    /// Packets tcpdump said it dropped.
    pub dropped: Option<u64>,
}

impl Capture {
    /// Starts tcpdump on this host.
    ///
    /// # Errors
    /// When it cannot start or never listens.
    pub(crate) fn local(interface: &str, pcap: &Path, control_port: u16) -> anyhow::Result<Self> {
        let log = pcap.with_extension("log");
        let stderr =
            std::fs::File::create(&log).with_context(|| format!("creating {}", log.display()))?;
        let child = Command::new(TCPDUMP)
            .args(arguments(interface, pcap, control_port))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .context("starting tcpdump")?;
        Capture {
            process: Some(Process::Local(child)),
            pcap: pcap.to_path_buf(),
            log,
            interface: interface.to_string(),
        }
        .listening()
    }

    /// Starts tcpdump inside `node` of `testbed`.
    ///
    /// # Errors
    /// When it cannot start or never listens.
    pub(crate) fn in_node(
        testbed: &dualperf_lab::Testbed,
        node: &str,
        interface: &str,
        pcap: &Path,
        control_port: u16,
    ) -> anyhow::Result<Self> {
        let log = pcap.with_extension("log");
        let stderr =
            std::fs::File::create(&log).with_context(|| format!("creating {}", log.display()))?;
        let process = testbed
            .spawn(
                node,
                TCPDUMP,
                &arguments(interface, pcap, control_port),
                Stdio::null(),
                Stdio::from(stderr),
            )
            .map_err(anyhow::Error::new)?;
        Capture {
            process: Some(Process::Node(process)),
            pcap: pcap.to_path_buf(),
            log,
            interface: interface.to_string(),
        }
        .listening()
    }

    /// Waits until tcpdump says it listens.
    fn listening(mut self) -> anyhow::Result<Self> {
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            let log = std::fs::read_to_string(&self.log).unwrap_or_default();
            if log.contains("listening on") {
                // The socket is bound when it says so; a moment more for the filter.
                std::thread::sleep(Duration::from_millis(100));
                return Ok(self);
            }
            let exited = match self.process.as_mut() {
                Some(Process::Local(child)) => child.try_wait()?.is_some(),
                Some(Process::Node(process)) => process.try_wait()?.is_some(),
                None => true,
            };
            if exited || Instant::now() >= deadline {
                self.halt();
                bail!(
                    "tcpdump on {} did not start capturing: {}",
                    self.interface,
                    log.trim()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn halt(&mut self) {
        match self.process.take() {
            Some(Process::Local(mut child)) => {
                // SAFETY: kill(2) on our own child, not yet reaped.
                unsafe {
                    libc::kill(child.id() as i32, libc::SIGTERM);
                }
                let deadline = Instant::now() + Duration::from_secs(3);
                while Instant::now() < deadline {
                    if let Ok(Some(_)) = child.try_wait() {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                let _ = child.kill();
                let _ = child.wait();
            }
            Some(Process::Node(mut process)) => process.stop(),
            None => {}
        }
    }

    /// Stops the capture (SIGTERM: tcpdump flushes and reports its drops).
    pub(crate) fn stop(mut self) -> Captured {
        // Packets still in flight reach the capture.
        std::thread::sleep(Duration::from_millis(200));
        self.halt();
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let _ = std::fs::remove_file(&self.log);
        Captured {
            pcap: self.pcap.clone(),
            interface: self.interface.clone(),
            dropped: dropped(&log),
        }
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        self.halt();
    }
}

/// "12 packets dropped by kernel" → 12.
fn dropped(log: &str) -> Option<u64> {
    log.lines()
        .find_map(|line| line.trim().strip_suffix(" packets dropped by kernel"))
        .or_else(|| {
            log.lines()
                .find_map(|line| line.trim().strip_suffix(" packet dropped by kernel"))
        })
        .and_then(|n| n.trim().parse().ok())
}

/// The interface this host routes `address` through (`ip route get`),
/// inside `netns` when given.
///
/// # Errors
/// When `ip` fails or names no device.
pub(crate) fn route_interface(netns: Option<&str>, address: &str) -> anyhow::Result<String> {
    let mut command = Command::new("ip");
    if let Some(netns) = netns {
        command.args(["-n", netns]);
    }
    let output = command
        .args(["-o", "route", "get", address])
        .output()
        .context("running ip route get")?;
    let text = String::from_utf8_lossy(&output.stdout);
    let mut words = text.split_whitespace();
    while let Some(word) = words.next() {
        if word == "dev" {
            if let Some(device) = words.next() {
                return Ok(device.to_string());
            }
        }
    }
    bail!(
        "no route to {address}: {}",
        String::from_utf8_lossy(&output.stderr).trim()
    )
}

/// The interfaces of `netns` other than `lo`.
pub(crate) fn interfaces(netns: &str) -> Vec<String> {
    let Ok(output) = Command::new("ip")
        .args(["-n", netns, "-o", "link", "show"])
        .output()
    else {
        return Vec::new();
    };
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split(':').nth(1))
        .map(|name| name.trim().split('@').next().unwrap_or("").to_string())
        .filter(|name| !name.is_empty() && name != "lo")
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcpdump_reports_its_drops_on_exit() {
        let log = "tcpdump: listening on lo\n120 packets captured\n240 packets received by filter\n7 packets dropped by kernel\n";
        assert_eq!(dropped(log), Some(7));
        assert_eq!(dropped("1 packet dropped by kernel"), Some(1));
        assert_eq!(dropped(""), None);
    }

    #[test]
    fn the_filter_leaves_out_the_control_connection_only() {
        let args = arguments("lo", Path::new("/t/w.pcap"), 5180);
        let last = args.last().unwrap().to_string_lossy().into_owned();
        assert_eq!(last, "(ip or ip6) and not tcp port 5180");
    }
}
