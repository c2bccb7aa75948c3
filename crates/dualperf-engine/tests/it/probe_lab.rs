//! A namespace pair for the probe tests (prefix `dpp-`): two namespaces
//! joined by a veth pair, deleted on drop even when a test fails, plus
//! helpers to run commands inside them and to enter them from a thread.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::process::Command;

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
