//! A namespace pair for the probe tests (prefix `dpp-`): two namespaces
//! joined by a veth pair, deleted on drop even when a test fails, plus
//! helpers to run commands inside them and to enter them from a thread.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::process::Command;
use std::sync::mpsc;

use dualperf_engine::limits::ServerLimits;

use crate::support::TestServer;

/// Two namespaces and a veth pair; everything is deleted on drop.
pub struct ProbePair {
    pub client: String,
    pub server: String,
    pub client_dev: String,
    pub server_dev: String,
}

/// Runs `program args…`, Ok(stdout) on success, Err(stderr) otherwise.
pub fn run(program: &str, args: &[&str]) -> Result<String, String> {
    let output = Command::new(program)
        .args(args)
        .output()
        .map_err(|e| format!("running {program}: {e}"))?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(format!(
            "{program} {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

/// Runs `program args…` inside namespace `ns`.
pub fn in_ns(ns: &str, program: &str, args: &[&str]) -> Result<String, String> {
    let mut all = vec!["netns", "exec", ns, program];
    all.extend_from_slice(args);
    run("ip", &all)
}

impl ProbePair {
    /// Creates `dpp-<pid>-<tag>a/b` with 10.<net>.0.1/2 and fd<net>::1/2.
    pub fn create(tag: &str, net: u8) -> Result<ProbePair, String> {
        let pid = std::process::id();
        let pair = ProbePair {
            client: format!("dpp-{pid}-{tag}a"),
            server: format!("dpp-{pid}-{tag}b"),
            client_dev: format!("dpp{pid}{tag}a"),
            server_dev: format!("dpp{pid}{tag}b"),
        };
        run("ip", &["netns", "add", &pair.client])?;
        // From here on, Drop cleans up whatever exists.
        run("ip", &["netns", "add", &pair.server])?;
        run(
            "ip",
            &[
                "link",
                "add",
                &pair.client_dev,
                "netns",
                &pair.client,
                "type",
                "veth",
                "peer",
                "name",
                &pair.server_dev,
                "netns",
                &pair.server,
            ],
        )?;
        for (ns, dev, host) in [
            (&pair.client, &pair.client_dev, 1),
            (&pair.server, &pair.server_dev, 2),
        ] {
            let v4 = format!("10.{net}.0.{host}/24");
            let v6 = format!("fd{net:02x}::{host}/64");
            run("ip", &["-n", ns, "addr", "add", &v4, "dev", dev])?;
            run("ip", &["-n", ns, "addr", "add", &v6, "dev", dev, "nodad"])?;
            run("ip", &["-n", ns, "link", "set", "lo", "up"])?;
            run("ip", &["-n", ns, "link", "set", dev, "up"])?;
        }
        Ok(pair)
    }

    /// The server's addresses, IPv4 then IPv6.
    pub fn server_addresses(net: u8) -> [String; 2] {
        [format!("10.{net}.0.2"), format!("fd{net:02x}::2")]
    }
}

impl Drop for ProbePair {
    fn drop(&mut self) {
        let _ = run("ip", &["netns", "delete", &self.client]);
        let _ = run("ip", &["netns", "delete", &self.server]);
    }
}

/// A scratch namespace, deleted on drop.
pub struct Scratch(pub String);

impl Scratch {
    pub fn create(tag: &str) -> Result<Scratch, String> {
        let name = format!("dpp-{}-{tag}", std::process::id());
        run("ip", &["netns", "add", &name])?;
        let scratch = Scratch(name);
        in_ns(&scratch.0, "ip", &["link", "set", "lo", "up"])?;
        Ok(scratch)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = run("ip", &["netns", "delete", &self.0]);
    }
}

/// Moves the calling thread into network namespace `name`; threads it
/// spawns afterwards start there too.
pub fn enter(name: &str) {
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

/// Skips (returns None) when namespaces cannot be made, unless
/// DUALPERF_REQUIRE_PRIVILEGED is set: then the test fails.
pub fn or_skip<T>(made: Result<T, String>) -> Option<T> {
    match made {
        Ok(value) => Some(value),
        Err(error) => {
            assert!(
                std::env::var_os("DUALPERF_REQUIRE_PRIVILEGED").is_none(),
                "privileged test cannot run: {error}"
            );
            eprintln!("skipped: cannot create network namespaces ({error})");
            None
        }
    }
}

/// Three namespaces in a row, client — router — server, so that the
/// bottleneck queue sits on a forwarding hop (where TCP Small Queues, which
/// keep a local sender's qdisc backlog short, do not apply).
pub struct ProbeChain {
    pub client: String,
    pub router: String,
    pub server: String,
    /// The client's device (towards the router).
    pub client_dev: String,
    /// The router's device towards the server: the bottleneck's egress.
    pub router_out_dev: String,
}

impl ProbeChain {
    /// `dpp-<pid>-<tag>a/r/b`; client 10.<net>.1.1 / fd<net>:1::1,
    /// server 10.<net>.2.1 / fd<net>:2::1, router .254 / ::fe on both.
    pub fn create(tag: &str, net: u8) -> Result<ProbeChain, String> {
        let pid = std::process::id();
        let chain = ProbeChain {
            client: format!("dpp-{pid}-{tag}a"),
            router: format!("dpp-{pid}-{tag}r"),
            server: format!("dpp-{pid}-{tag}b"),
            client_dev: format!("dpp{pid}{tag}a"),
            router_out_dev: format!("dpp{pid}{tag}rb"),
        };
        for ns in [&chain.client, &chain.router, &chain.server] {
            run("ip", &["netns", "add", ns])?;
            run("ip", &["-n", ns, "link", "set", "lo", "up"])?;
        }
        let router_in = format!("dpp{pid}{tag}ra");
        let server_dev = format!("dpp{pid}{tag}b");
        for (ns, dev, peer_ns, peer_dev) in [
            (&chain.client, &chain.client_dev, &chain.router, &router_in),
            (
                &chain.router,
                &chain.router_out_dev,
                &chain.server,
                &server_dev,
            ),
        ] {
            run(
                "ip",
                &[
                    "link", "add", dev, "netns", ns, "type", "veth", "peer", "name", peer_dev,
                    "netns", peer_ns,
                ],
            )?;
        }
        for (ns, dev, subnet, host) in [
            (&chain.client, &chain.client_dev, 1, "1"),
            (&chain.router, &router_in, 1, "254"),
            (&chain.router, &chain.router_out_dev, 2, "254"),
            (&chain.server, &server_dev, 2, "1"),
        ] {
            let v4 = format!("10.{net}.{subnet}.{host}/24");
            let v6_host = if host == "254" { "fe" } else { host };
            let v6 = format!("fd{net:02x}:{subnet}::{v6_host}/64");
            run("ip", &["-n", ns, "addr", "add", &v4, "dev", dev])?;
            run("ip", &["-n", ns, "addr", "add", &v6, "dev", dev, "nodad"])?;
            run("ip", &["-n", ns, "link", "set", dev, "up"])?;
        }
        for (ns, subnet) in [(&chain.client, 1), (&chain.server, 2)] {
            let gw4 = format!("10.{net}.{subnet}.254");
            let gw6 = format!("fd{net:02x}:{subnet}::fe");
            run("ip", &["-n", ns, "route", "add", "default", "via", &gw4])?;
            run(
                "ip",
                &["-n", ns, "-6", "route", "add", "default", "via", &gw6],
            )?;
        }
        in_ns(
            &chain.router,
            "sysctl",
            &[
                "-qw",
                "net.ipv4.ip_forward=1",
                "net.ipv6.conf.all.forwarding=1",
            ],
        )?;
        Ok(chain)
    }

    /// The server's addresses, IPv4 then IPv6.
    pub fn server_addresses(net: u8) -> [String; 2] {
        [format!("10.{net}.2.1"), format!("fd{net:02x}:2::1")]
    }

    /// A bottleneck on the router's egress towards the server: htb at
    /// `rate` (tc syntax, e.g. `5mbit`) in front of a `limit`-packet FIFO.
    /// `tc qdisc add dev D root handle 1: htb default 1; tc class add dev D
    /// parent 1: classid 1:1 htb rate R ceil R; tc qdisc add dev D parent
    /// 1:1 handle 10: pfifo limit L`.
    pub fn shape_router_egress(&self, rate: &str, limit: u32) -> Result<(), String> {
        let (ns, dev) = (&self.router, &self.router_out_dev);
        let limit = limit.to_string();
        in_ns(
            ns,
            "tc",
            &[
                "qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "1",
            ],
        )?;
        in_ns(
            ns,
            "tc",
            &[
                "class", "add", "dev", dev, "parent", "1:", "classid", "1:1", "htb", "rate", rate,
                "ceil", rate,
            ],
        )?;
        in_ns(
            ns,
            "tc",
            &[
                "qdisc", "add", "dev", dev, "parent", "1:1", "handle", "10:", "pfifo", "limit",
                &limit,
            ],
        )?;
        Ok(())
    }
}

impl Drop for ProbeChain {
    fn drop(&mut self) {
        for ns in [&self.client, &self.router, &self.server] {
            let _ = run("ip", &["netns", "delete", ns]);
        }
    }
}

/// Runs `client` on a thread inside `client_ns` against a server running
/// in `server_ns`; returns what `client` returned.
pub fn with_server<T: Send + 'static>(
    server_ns: &str,
    client_ns: &str,
    client: impl FnOnce(u16) -> T + Send + 'static,
) -> T {
    let (port_tx, port_rx) = mpsc::channel();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let server_ns = server_ns.to_string();
    let server = std::thread::spawn(move || {
        enter(&server_ns);
        let server = TestServer::start(ServerLimits::default(), None);
        port_tx.send(server.handle.port()).unwrap();
        let _ = done_rx.recv();
    });
    let port = port_rx.recv().unwrap();
    let client_ns = client_ns.to_string();
    let result = std::thread::spawn(move || {
        enter(&client_ns);
        client(port)
    })
    .join();
    let _ = done_tx.send(());
    server.join().unwrap();
    result.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}
