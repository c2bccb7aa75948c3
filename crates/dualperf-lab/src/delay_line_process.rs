//! A delay line that outlives the process that built the testbed
//! (`dualperf lab up`): the same [`DelayLine`], hosted by a process of its
//! own inside the sending node, owned by the testbed like TAYGA.
//!
//! The builder starts `dualperf lab delay-line …` (a hidden subcommand that
//! calls [`serve`]) through `ip netns exec`, in a process group of its own
//! and without a parent-death signal. The child detaches (`setsid`), writes
//! its pid file into the testbed's work directory, starts the delay line,
//! prints `ready <ifindex>` and closes its standard output; the builder
//! reads that line (the TAP's ifindex, which the BPF program redirects to)
//! and adopts the pid file as a [`Daemon`]. From then on the process is
//! stopped like any daemon of the testbed: by the builder's teardown, by
//! `lab down` and `lab clean` (every process inside the run's namespaces),
//! or by SIGTERM. Its TAP is not persistent, so the kernel removes it when
//! the process ends for any reason. Errors after start go to
//! `delay-<tap>.log` in the work directory.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use crate::delay_line::{DelayLine, DelayLineConfig};
use crate::namespace::Daemon;

/// How long the builder waits for the child's `ready` line.
const READY_TIMEOUT: Duration = Duration::from_secs(10);

/// Where a testbed's delay lines run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum DelayLineHost {
    /// Threads of the building process (`dualperf lab`: the testbed lives
    /// as long as the measurement; the counters are read in process).
    #[default]
    Thread,
    /// Processes of their own, started from this executable
    /// (`dualperf lab up`: the testbed outlives its builder).
    Process {
        /// The dualperf executable that provides `lab delay-line`.
        exe: PathBuf,
    },
}

/// The command-line words of the hidden `lab delay-line` subcommand for
/// `config`, after `dualperf lab delay-line`.
pub fn child_args(config: &DelayLineConfig, pid_file: &Path) -> Vec<String> {
    vec![
        "--netns".into(),
        config.netns.clone(),
        "--interface".into(),
        config.interface.clone(),
        "--tap".into(),
        config.tap.clone(),
        "--mtu".into(),
        config.mtu_bytes.to_string(),
        "--delay-ns".into(),
        config.delay.as_nanos().to_string(),
        "--jitter-ns".into(),
        config.jitter.as_nanos().to_string(),
        "--capacity".into(),
        config.capacity_packets.to_string(),
        "--pid-file".into(),
        pid_file.display().to_string(),
    ]
}

/// Starts a delay-line process for `config`; returns the daemon handle
/// (stopping it on drop unless released) and the TAP's ifindex.
///
/// # Errors
/// The child could not start, or did not report `ready` in time (its log
/// is in the message).
pub fn spawn(
    exe: &Path,
    config: &DelayLineConfig,
    work_dir: &Path,
) -> std::io::Result<(Daemon, u32)> {
    std::fs::create_dir_all(work_dir)?;
    let pid_file = work_dir.join(format!("delay-{}.pid", config.tap));
    let log = work_dir.join(format!("delay-{}.log", config.tap));
    let mut child = Command::new("ip")
        .args(["netns", "exec", &config.netns])
        .arg(exe)
        .args(["lab", "delay-line"])
        .args(child_args(config, &pid_file))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log)?)
        .process_group(0)
        .spawn()?;
    let daemon = Daemon::adopt(&config.netns, &pid_file);
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| std::io::Error::other("no pipe from the delay line"))?;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(READY_TIMEOUT).unwrap_or_default();
    let ifindex = line
        .strip_prefix("ready ")
        .and_then(|rest| rest.trim().parse::<u32>().ok());
    match ifindex {
        Some(ifindex) => {
            // The child lives on; reap it if it ends while we still run.
            std::thread::spawn(move || {
                let _ = child.wait();
            });
            Ok((daemon, ifindex))
        }
        None => {
            let _ = child.kill();
            let _ = child.wait();
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            Err(std::io::Error::other(format!(
                "the delay-line process did not start: {}",
                text.trim()
            )))
        }
    }
}

/// Raised by SIGTERM or SIGINT in the delay-line process.
static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_stop_signal(_signal: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

/// The child's side: detach, write the pid file, run the delay line until
/// SIGTERM or SIGINT (SIGHUP is ignored: the terminal that ran `lab up`
/// may close), then stop it and remove the pid file.
///
/// # Errors
/// The delay line could not start (the builder reports it).
pub fn serve(config: DelayLineConfig, pid_file: &Path) -> std::io::Result<()> {
    // SAFETY: setsid(2) and signal(2) have no memory-safety preconditions.
    unsafe {
        libc::setsid();
        libc::signal(libc::SIGHUP, libc::SIG_IGN);
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    // SAFETY: the handler only stores into an atomic, which is
    // async-signal-safe.
    unsafe {
        libc::signal(
            libc::SIGTERM,
            on_stop_signal as *const () as libc::sighandler_t,
        );
        libc::signal(
            libc::SIGINT,
            on_stop_signal as *const () as libc::sighandler_t,
        );
    }
    std::fs::write(pid_file, format!("{}\n", std::process::id()))?;
    let line = DelayLine::start(config)?;
    {
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "ready {}", line.ifindex())?;
        stdout.flush()?;
    }
    // Nothing more goes to standard output: the builder stops reading.
    // SAFETY: closing our own descriptor 1; nothing writes to it after this.
    unsafe {
        libc::close(1);
    }
    while !STOP.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(100));
    }
    let stats = line.stats();
    drop(line);
    eprintln!("delay line stopped: {stats:?}");
    let _ = std::fs::remove_file(pid_file);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_child_gets_every_setting_of_the_delay_line() {
        let config = DelayLineConfig {
            netns: "dsp-r1-router".into(),
            interface: "dspr1-1a".into(),
            tap: "dspr1-y1a".into(),
            mtu_bytes: 1500,
            delay: Duration::from_millis(20),
            jitter: Duration::from_micros(500),
            capacity_packets: 1000,
        };
        let args = child_args(&config, Path::new("/tmp/x.pid"));
        let joined = args.join(" ");
        assert_eq!(
            joined,
            "--netns dsp-r1-router --interface dspr1-1a --tap dspr1-y1a --mtu 1500 \
             --delay-ns 20000000 --jitter-ns 500000 --capacity 1000 --pid-file /tmp/x.pid"
        );
    }
}
