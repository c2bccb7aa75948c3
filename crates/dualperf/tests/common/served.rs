//! A real `dualperf -p PORT -s` process on loopback for the iperf3-words
//! tests (`iperf3_words`, `iperf3_socket_flags`, `iperf3_server_flags`):
//! a free port, the server (killed and reaped on drop) and a scratch folder
//! (removed on drop).

#![allow(dead_code)] // each test binary uses its own part of the common code

use std::net::{Ipv6Addr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The binary under test.
pub const BINARY: &str = env!("CARGO_BIN_EXE_dualperf");

/// A free TCP port on both loopbacks (bound, then released).
pub fn free_port() -> u16 {
    let listener = TcpListener::bind((Ipv6Addr::UNSPECIFIED, 0)).unwrap();
    listener.local_addr().unwrap().port()
}

/// A `dualperf -p PORT -s` child, killed and reaped on drop if still running.
pub struct Server(pub Child);

impl Server {
    /// Serves on `port` with the `extra` flags, its standard error to
    /// `stderr` (a log file, or piped); returns once 127.0.0.1:`port`
    /// accepts connections (at most 10 s).
    pub fn start(port: u16, extra: &[&str], stderr: impl Into<Stdio>) -> Server {
        let child = Command::new(BINARY)
            .args(["-p", &port.to_string(), "-s"])
            .args(extra)
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .unwrap();
        let server = Server(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "the server never listened");
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    /// [`Server::start`] with its standard error written to the file `log`.
    pub fn logged(port: u16, extra: &[&str], log: &std::path::Path) -> Server {
        Server::start(port, extra, std::fs::File::create(log).unwrap())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A folder for one test's files, `dp-PREFIX-NAME-PID` in the temporary
/// directory, removed on drop.
pub struct Folder(pub PathBuf);

impl Folder {
    /// Creates the folder.
    pub fn new(prefix: &str, name: &str) -> Folder {
        let path = std::env::temp_dir().join(format!("dp-{prefix}-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&path).unwrap();
        Folder(path)
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
