//! `check HOST` against real servers in network namespaces this test creates
//! (`dpc-<pid>-<scenario>-{srv,cli}`, joined by a veth pair): a server that
//! has only IPv4, only IPv6, and both. The check runs on a thread that
//! `setns()`ed into the client namespace; the listener runs on a thread in
//! the server namespace. Traffic never leaves the namespaces.
//!
//! Name resolution cannot be steered safely from a test (it would mean
//! editing the host's /etc/hosts or resolver), so the "name" cases inject
//! the A/AAAA answers through a [`Resolver`] that returns fixed addresses;
//! the connections are real. The IP-literal cases use the system resolver.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

use std::net::{IpAddr, Ipv6Addr, SocketAddr, TcpListener};
use std::os::fd::AsRawFd;
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use dualperf_check::resolve::FamilyResolution;
use dualperf_check::{check_host, Resolver, SystemResolver, Target};
use dualperf_model::IpFamily;

/// Skips the calling test without root, or fails it when CI demands privileges.
macro_rules! require_net_admin {
    () => {
        if !can_create_namespaces() {
            assert!(
                std::env::var_os("DUALPERF_REQUIRE_PRIVILEGED").is_none(),
                "privileged test cannot run: CAP_NET_ADMIN missing"
            );
            eprintln!("skipped: needs CAP_NET_ADMIN");
            return;
        }
    };
}

fn can_create_namespaces() -> bool {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() == 0 };
    root && Command::new("ip").arg("-V").output().is_ok()
}

fn ip(args: &[&str]) {
    let output = Command::new("ip").args(args).output().expect("`ip` runs");
    assert!(
        output.status.success(),
        "ip {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A namespace created by this test; deleted when dropped (also on panic).
struct Namespace(String);

impl Namespace {
    fn create(name: String) -> Namespace {
        ip(&["netns", "add", &name]);
        let namespace = Namespace(name);
        ip(&["-n", &namespace.0, "link", "set", "lo", "up"]);
        namespace
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        let _ = Command::new("ip").args(["netns", "del", &self.0]).status();
    }
}

/// Which families the server (and the link) has.
#[derive(Clone, Copy, Debug)]
enum Scenario {
    OnlyV4,
    OnlyV6,
    Both,
}

const SERVER_V4: &str = "10.77.0.1";
const CLIENT_V4: &str = "10.77.0.2";
const SERVER_V6: &str = "fd77::1";
const CLIENT_V6: &str = "fd77::2";

struct Testbed {
    server: Namespace,
    client: Namespace,
}

fn build(scenario: Scenario, tag: &str) -> Testbed {
    let pid = std::process::id();
    let server = Namespace::create(format!("dpc-{pid}-{tag}-srv"));
    let client = Namespace::create(format!("dpc-{pid}-{tag}-cli"));
    let (veth_server, veth_client) = (format!("dpc{pid}{tag}s"), format!("dpc{pid}{tag}c"));
    ip(&[
        "link",
        "add",
        &veth_server,
        "netns",
        &server.0,
        "type",
        "veth",
        "peer",
        "name",
        &veth_client,
        "netns",
        &client.0,
    ]);
    for (namespace, device, v4, v6) in [
        (&server, &veth_server, SERVER_V4, SERVER_V6),
        (&client, &veth_client, CLIENT_V4, CLIENT_V6),
    ] {
        if matches!(scenario, Scenario::OnlyV4 | Scenario::Both) {
            ip(&[
                "-n",
                &namespace.0,
                "addr",
                "add",
                &format!("{v4}/24"),
                "dev",
                device,
            ]);
        }
        if matches!(scenario, Scenario::OnlyV6 | Scenario::Both) {
            ip(&[
                "-n",
                &namespace.0,
                "addr",
                "add",
                &format!("{v6}/64"),
                "dev",
                device,
                "nodad",
            ]);
        }
        // No duplicate address detection on the link-local address either:
        // until it finishes, neighbour discovery waits and the first IPv6
        // connection takes about a second (longer than the check's timeout
        // on a busy machine).
        let dad = format!("net.ipv6.conf.{device}.accept_dad=0");
        let status = std::process::Command::new("ip")
            .args(["netns", "exec", &namespace.0, "sysctl", "-qw", &dad])
            .status()
            .unwrap();
        assert!(status.success(), "sysctl {dad}");
        ip(&["-n", &namespace.0, "link", "set", device, "up"]);
    }
    Testbed { server, client }
}

/// Runs `work` on a new thread that has joined network namespace `name`.
fn in_namespace<T: Send + 'static>(
    name: &str,
    work: impl FnOnce() -> T + Send + 'static,
) -> std::thread::JoinHandle<T> {
    let path = format!("/var/run/netns/{name}");
    std::thread::spawn(move || {
        let file = std::fs::File::open(&path).expect("namespace file exists");
        // SAFETY: a valid namespace fd; setns only affects this thread.
        let rc = unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) };
        assert_eq!(
            rc,
            0,
            "setns into {path}: {}",
            std::io::Error::last_os_error()
        );
        work()
    })
}

/// A listener on `[::]` (dual-stack) in the server namespace until `stop` is sent.
fn serve(testbed: &Testbed) -> (u16, mpsc::Sender<()>, std::thread::JoinHandle<()>) {
    let (port_tx, port_rx) = mpsc::channel();
    let (stop_tx, stop_rx) = mpsc::channel::<()>();
    let handle = in_namespace(&testbed.server.0, move || {
        let socket =
            socket2::Socket::new(socket2::Domain::IPV6, socket2::Type::STREAM, None).unwrap();
        socket.set_only_v6(false).unwrap();
        socket
            .bind(&SocketAddr::from((Ipv6Addr::UNSPECIFIED, 0)).into())
            .unwrap();
        socket.listen(16).unwrap();
        let listener: TcpListener = socket.into();
        port_tx.send(listener.local_addr().unwrap().port()).unwrap();
        let _ = stop_rx.recv();
    });
    (
        port_rx.recv().expect("server thread reports its port"),
        stop_tx,
        handle,
    )
}

/// Fixed A/AAAA answers standing in for DNS (see the module comment).
struct StaticResolver {
    v4: Vec<IpAddr>,
    v6: Vec<IpAddr>,
}

impl Resolver for StaticResolver {
    fn resolve(&self, _host: &str, family: IpFamily) -> FamilyResolution {
        let addresses = match family {
            IpFamily::V4 => self.v4.clone(),
            IpFamily::V6 => self.v6.clone(),
        };
        FamilyResolution {
            addresses,
            elapsed: Duration::from_millis(1),
            error: None,
        }
    }
}

fn name_with_both_records() -> StaticResolver {
    StaticResolver {
        v4: vec![SERVER_V4.parse().unwrap()],
        v6: vec![SERVER_V6.parse().unwrap()],
    }
}

fn run_check(
    testbed: &Testbed,
    host: &str,
    port: u16,
    resolver: Option<StaticResolver>,
) -> dualperf_check::HostReport {
    let target = Target::parse(host, port).unwrap();
    in_namespace(&testbed.client.0, move || match resolver {
        Some(resolver) => check_host(&target, &resolver, Duration::from_secs(1)),
        None => check_host(&target, &SystemResolver, Duration::from_secs(1)),
    })
    .join()
    .expect("client thread does not panic")
}

#[test]
fn a_dual_stack_server_is_reached_over_ipv6_first() {
    require_net_admin!();
    let testbed = build(Scenario::Both, "b");
    let (port, stop, server) = serve(&testbed);
    let report = run_check(&testbed, "dual.test", port, Some(name_with_both_records()));
    assert!(report.connection.v4.as_ref().unwrap().connected);
    assert!(report.connection.v6.as_ref().unwrap().connected);
    assert_eq!(report.happy_eyeballs.winner, Some(IpFamily::V6));
    assert!(report.faults.is_empty(), "{:?}", report.faults);
    let literal = run_check(&testbed, &format!("[{SERVER_V6}]:{port}"), port, None);
    assert!(literal.connection.v6.as_ref().unwrap().connected);
    assert!(
        literal.connection.v4.is_none(),
        "an IPv6 literal has no A record"
    );
    stop.send(()).unwrap();
    server.join().unwrap();
}

#[test]
fn aaaa_without_working_ipv6_is_flagged_as_the_classic_fault() {
    require_net_admin!();
    let testbed = build(Scenario::OnlyV4, "4");
    let (port, stop, server) = serve(&testbed);
    let report = run_check(
        &testbed,
        "broken.test",
        port,
        Some(name_with_both_records()),
    );
    assert!(report.connection.v4.as_ref().unwrap().connected);
    assert!(!report.connection.v6.as_ref().unwrap().connected);
    assert_eq!(report.happy_eyeballs.winner, Some(IpFamily::V4));
    assert!(
        report
            .faults
            .iter()
            .any(|f| f.starts_with("AAAA exists but IPv6 does not connect")),
        "{:?}",
        report.faults
    );
    let literal = run_check(&testbed, &format!("{SERVER_V4}:{port}"), port, None);
    assert!(literal.connection.v4.as_ref().unwrap().connected);
    assert!(
        literal
            .faults
            .iter()
            .any(|f| f.starts_with("no AAAA record")),
        "{:?}",
        literal.faults
    );
    stop.send(()).unwrap();
    server.join().unwrap();
}

#[test]
fn an_ipv6_only_server_is_reached_over_ipv6_and_ipv4_is_flagged() {
    require_net_admin!();
    let testbed = build(Scenario::OnlyV6, "6");
    let (port, stop, server) = serve(&testbed);
    let report = run_check(
        &testbed,
        "v6only.test",
        port,
        Some(name_with_both_records()),
    );
    assert!(report.connection.v6.as_ref().unwrap().connected);
    assert!(!report.connection.v4.as_ref().unwrap().connected);
    assert_eq!(report.happy_eyeballs.winner, Some(IpFamily::V6));
    assert!(
        report
            .faults
            .iter()
            .any(|f| f == "A exists but IPv4 does not connect"),
        "{:?}",
        report.faults
    );
    stop.send(()).unwrap();
    server.join().unwrap();
}
