//! Two network namespaces joined by a veth pair, with IPv4 and IPv6
//! addresses, for the binary's tests that run `dualperf` on both sides and
//! capture between them (`run_marking_netns`, `verify_wire_netns`,
//! `flow_label_ends_netns` …): the pair, the privileged-test skip, a
//! `dualperf serve` in the server namespace and a `dualperf run` in the
//! client's.

#![allow(dead_code)] // each test binary uses its own part of the common code

use std::process::{Child, Command, Stdio};

use dualperf_model::RunResult;

/// Runs a command; its standard output, or an error naming the command.
pub fn sh(args: &[&str]) -> Result<String, String> {
    let output = Command::new(args[0])
        .args(&args[1..])
        .output()
        .map_err(|e| format!("running {}: {e}", args[0]))?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(format!(
            "{}: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

/// Two namespaces joined by a veth pair, deleted on drop (with whatever
/// still runs in them).
pub struct Lab {
    pub client: String,
    pub server: String,
    /// Processes started with [`Lab::spawn`], last started last.
    pub children: Vec<Child>,
}

impl Lab {
    /// A pair named `{prefix}-PID-c`/`-s` on 10.2{subnet:02}.0.0/24 and
    /// fd20:{subnet}::/64; `tool` must be on PATH (the capture the test uses).
    pub fn create(prefix: &str, subnet: u8, tool: &str) -> Result<Lab, String> {
        let pid = std::process::id();
        let mut lab = Lab {
            client: format!("{prefix}-{pid}-c"),
            server: format!("{prefix}-{pid}-s"),
            children: Vec::new(),
        };
        sh(&["ip", "netns", "add", &lab.client])?;
        sh(&["ip", "netns", "add", &lab.server])?;
        let (vc, vs) = (format!("{prefix}{pid}c"), format!("{prefix}{pid}s"));
        sh(&[
            "ip",
            "link",
            "add",
            &vc,
            "netns",
            &lab.client,
            "type",
            "veth",
            "peer",
            "name",
            &vs,
            "netns",
            &lab.server,
        ])?;
        for (ns, dev, v4, v6) in [
            (
                &lab.client,
                &vc,
                format!("10.2{subnet:02}.0.1/24"),
                format!("fd20:{subnet}::1/64"),
            ),
            (
                &lab.server,
                &vs,
                format!("10.2{subnet:02}.0.2/24"),
                format!("fd20:{subnet}::2/64"),
            ),
        ] {
            let (v4, v6) = (v4.as_str(), v6.as_str());
            sh(&["ip", "-n", ns, "addr", "add", v4, "dev", dev])?;
            sh(&["ip", "-n", ns, "addr", "add", v6, "dev", dev, "nodad"])?;
            sh(&["ip", "-n", ns, "link", "set", "lo", "up"])?;
            sh(&["ip", "-n", ns, "link", "set", dev, "up"])?;
        }
        // Accepted TCP connections reflect the client's label (the only way
        // Linux labels them); the server asks for it, the namespace allows it.
        sh(&[
            "ip",
            "netns",
            "exec",
            &lab.server,
            "sysctl",
            "-qw",
            "net.ipv6.flowlabel_consistency=0",
        ])?;
        sh(&["which", tool])?;
        lab.children.clear();
        Ok(lab)
    }

    /// [`Lab::create`], or `None` where it cannot be built here (not root,
    /// `ip` or `tool` missing): the test then skips, saying why — unless
    /// `DUALPERF_REQUIRE_PRIVILEGED` is set (CI as root), where it fails.
    pub fn or_skip(prefix: &str, subnet: u8, tool: &str) -> Option<Lab> {
        match Lab::create(prefix, subnet, tool) {
            Ok(lab) => Some(lab),
            Err(error) => {
                assert!(
                    std::env::var_os("DUALPERF_REQUIRE_PRIVILEGED").is_none(),
                    "privileged test cannot run: {error}"
                );
                eprintln!("skipped: {error}");
                None
            }
        }
    }

    /// Starts `dualperf serve -p PORT` in the server namespace and waits
    /// until it listens ([`Lab::wait_listening`]).
    pub fn serve(&mut self, port: &str) -> Result<(), String> {
        let server = self.server.clone();
        self.spawn(
            &server,
            &[env!("CARGO_BIN_EXE_dualperf"), "serve", "-p", port],
        )?;
        self.wait_listening(port, "dualperf serve");
        Ok(())
    }

    /// Waits until something listens on TCP `port` in the server namespace
    /// (its socket table polled with `ss`, no probe connection); fails the
    /// test, naming `what`, after 5 s.
    pub fn wait_listening(&self, port: &str, what: &str) {
        let started = std::time::Instant::now();
        let filter = format!("= :{port}");
        while !sh(&[
            "ip",
            "netns",
            "exec",
            &self.server,
            "ss",
            "-ltnH",
            "sport",
            &filter,
        ])
        .is_ok_and(|out| !out.trim().is_empty())
        {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(5),
                "{what} did not listen on port {port}"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    /// Runs `dualperf run ARGS --json FILE` in the client namespace, asserts
    /// that it exits 0, and returns the result it wrote and its standard
    /// output (echoed to standard error, for the test's log).
    pub fn run(&self, args: &[&str]) -> (RunResult, String) {
        let json = std::env::temp_dir().join(format!("{}.json", self.client));
        let output = Command::new("ip")
            .args([
                "netns",
                "exec",
                &self.client,
                env!("CARGO_BIN_EXE_dualperf"),
                "run",
            ])
            .args(args)
            .arg("--json")
            .arg(&json)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        eprintln!("{stdout}");
        assert!(
            output.status.success(),
            "{stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let result: RunResult = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        std::fs::remove_file(&json).unwrap();
        (result, stdout)
    }

    /// Stops the last child [`Lab::spawn`] started, a `tshark -w` capture,
    /// with SIGINT so it completes its file, and reads that `pcap` back:
    /// `fields` (tshark `-e` names) comma-separated, a line per packet.
    pub fn finish_capture(&mut self, pcap: &str, fields: &[&str]) -> String {
        let mut tshark = self.children.pop().expect("a capture was spawned last");
        let _ = Command::new("kill")
            .args(["-INT", &tshark.id().to_string()])
            .status();
        let _ = tshark.wait();
        let mut args = vec!["tshark", "-r", pcap, "-T", "fields", "-E", "separator=,"];
        for field in fields {
            args.extend(["-e", field]);
        }
        sh(&args).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Starts `args` in namespace `ns`; killed when the pair is dropped.
    pub fn spawn(&mut self, ns: &str, args: &[&str]) -> Result<(), String> {
        let child = Command::new("ip")
            .args(["netns", "exec", ns])
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("spawning {args:?}: {e}"))?;
        self.children.push(child);
        Ok(())
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = sh(&["ip", "netns", "delete", &self.client]);
        let _ = sh(&["ip", "netns", "delete", &self.server]);
    }
}
