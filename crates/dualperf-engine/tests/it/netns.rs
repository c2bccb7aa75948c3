//! serve and run between two network namespaces joined by a veth pair:
//! the server on a thread that entered one namespace, the client on a
//! thread in the other (`setns` switches only the calling thread, and
//! threads it spawns inherit its namespace). Needs root; skips without it
//! unless DUALPERF_REQUIRE_PRIVILEGED is set, then it fails.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::process::Command;
use std::sync::mpsc;

use dualperf_engine::limits::ServerLimits;
use dualperf_model::{IpFamily, TestKind};

use crate::support::{assert_consistent, short_spec, trial, TestServer};

/// Two namespaces and a veth pair; everything is deleted on drop.
struct Pair {
    client: String,
    server: String,
}

fn ip(args: &[&str]) -> Result<(), String> {
    let output = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("running ip: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

impl Pair {
    fn create() -> Result<Pair, String> {
        let pid = std::process::id();
        let pair = Pair {
            client: format!("dpe-{pid}-a"),
            server: format!("dpe-{pid}-b"),
        };
        ip(&["netns", "add", &pair.client])?;
        ip(&["netns", "add", &pair.server])?;
        let (va, vb) = (format!("dpe{pid}a"), format!("dpe{pid}b"));
        ip(&[
            "link",
            "add",
            &va,
            "netns",
            &pair.client,
            "type",
            "veth",
            "peer",
            "name",
            &vb,
            "netns",
            &pair.server,
        ])?;
        for (ns, dev, v4, v6) in [
            (&pair.client, &va, "10.203.0.1/24", "fd20:3::1/64"),
            (&pair.server, &vb, "10.203.0.2/24", "fd20:3::2/64"),
        ] {
            ip(&["-n", ns, "addr", "add", v4, "dev", dev])?;
            ip(&["-n", ns, "addr", "add", v6, "dev", dev, "nodad"])?;
            ip(&["-n", ns, "link", "set", "lo", "up"])?;
            ip(&["-n", ns, "link", "set", dev, "up"])?;
        }
        Ok(pair)
    }
}

impl Drop for Pair {
    fn drop(&mut self) {
        // Deleting a namespace deletes the veth end inside it, and with it the pair.
        let _ = ip(&["netns", "delete", &self.client]);
        let _ = ip(&["netns", "delete", &self.server]);
    }
}

/// Moves the calling thread into network namespace `name`.
fn enter(name: &str) {
    let file = File::open(format!("/run/netns/{name}")).expect("opening the namespace");
    // SAFETY: setns on a namespace file descriptor we own; affects this thread only.
    let rc = unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) };
    assert_eq!(
        rc,
        0,
        "setns into {name}: {}",
        std::io::Error::last_os_error()
    );
}

#[test]
fn every_kind_runs_between_two_namespaces_over_both_families() {
    let pair = match Pair::create() {
        Ok(pair) => pair,
        Err(error) => {
            assert!(
                std::env::var_os("DUALPERF_REQUIRE_PRIVILEGED").is_none(),
                "privileged test cannot run: {error}"
            );
            eprintln!("skipped: cannot create network namespaces ({error})");
            return;
        }
    };
    let (server_tx, server_rx) = mpsc::channel();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let server_ns = pair.server.clone();
    let server_thread = std::thread::spawn(move || {
        enter(&server_ns);
        let server = TestServer::start(ServerLimits::default(), None);
        server_tx.send(server.handle.port()).unwrap();
        let _ = done_rx.recv();
        server.log_text()
    });
    let port = server_rx.recv().unwrap();
    let client_ns = pair.client.clone();
    let client = std::thread::spawn(move || {
        enter(&client_ns);
        for (address, family) in [("10.203.0.2", IpFamily::V4), ("fd20:3::2", IpFamily::V6)] {
            let server = std::net::SocketAddr::new(address.parse().unwrap(), port);
            for (kind, size) in [
                (TestKind::TcpStream, 65_536),
                (TestKind::UdpStream, 1_400),
                (TestKind::UdpStream, 4_000), // above the 1500-byte MTU: fragmented
                (TestKind::TcpRr, 64),
                (TestKind::UdpRr, 64),
                (TestKind::TcpConnect, 0),
            ] {
                let mut spec = short_spec(kind, size);
                if kind == TestKind::UdpStream {
                    spec.rate = Some(dualperf_model::BitRate::from_mbit(200));
                }
                let report = trial(server, &spec);
                assert_consistent(&report, &spec, family);
                let o = &report.observations;
                assert_eq!(
                    o.socket.path_mtu_bytes.filter(|_| kind.is_udp()),
                    kind.is_udp().then_some(1500)
                );
                if size == 4_000 {
                    assert_eq!(o.fragments_per_datagram, 3, "{:?}", o.notes);
                }
            }
        }
    });
    let client_result = client.join();
    let _ = done_tx.send(());
    let log = server_thread.join().unwrap();
    client_result.unwrap();
    assert!(
        log.contains("family IPv4") && log.contains("family IPv6"),
        "{log}"
    );
    drop(pair);
}
