//! `dualperf lab path-faults`: build the `path-faults` testbed once, start
//! `dualperf serve` in the server node, then for each [`PathFault`] (the
//! clean control first) make the fault, run `dualperf path --json` in the
//! client node against the server (the 6in4 case: against the server's
//! tunnel address), undo the fault, and check that the verdicts name the
//! fault with its family, size and hop ([`super::path_checks`]).
//!
//! `--verify-wire`: each case is also captured on router1 (tcpdump, every
//! interface) and the capture is read with tshark: the probes,
//! fragments, extension headers, Packet Too Big messages and 6in4
//! packets each case needs are on the wire ([`wire_checks`]).
//!
//! Writes `results/<run>/path-faults.json` (every case's evidence and
//! verdicts); exit 0 when every case passes, 1 otherwise.

use std::ffi::OsString;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Context;
use dualperf_lab::path_faults::{self, PathFault, FAULT_MTU};
use dualperf_lab::{BuildOptions, RunId, Runner, Testbed, Topology};
use dualperf_model::{ArmPath, IpFamily};
use serde::Serialize;

use super::path_checks::{check, Expect};
use crate::cli::lab::args::JobArgs;
use crate::cli::lab::errors::to_cli_error;
use crate::cli::lab::signal::interrupt_flag;
use crate::cli::path::PathDocument;
use crate::cli::Failure;
use crate::pipeline::verify_wire::capture::Capture;

/// Wait per probe inside the testbed (round trips are well under 1 ms).
const WAIT_MS: &str = "100";
/// Probes per second inside the testbed (the default is 50 for real paths).
const RATE_PPS: &str = "200";
/// How long a capture runs on after the probes (libpcap's block timeout is 1 s).
const CAPTURE_FLUSH: Duration = Duration::from_millis(1_200);
/// How long one `dualperf path` child may take.
const CASE_TIMEOUT: Duration = Duration::from_secs(120);

/// One case's record in `path-faults.json`.
#[derive(Serialize)]
struct CaseRecord {
    fault: &'static str,
    description: String,
    passed: bool,
    problems: Vec<String>,
    document: Option<PathDocument>,
}

/// Runs `dualperf lab path-faults`.
pub(crate) fn run(args: &JobArgs, topology: &Topology) -> anyhow::Result<ExitCode> {
    if args.dry_run {
        return dry_run(topology, args);
    }
    if args.verify_wire {
        crate::pipeline::verify_wire::require_tool()?;
        if !on_path("tshark") {
            return Err(Failure::environment(
                "--verify-wire for path-faults needs tshark (apt-get install tshark)",
            ));
        }
    }
    let runner = Runner::new(args.verbose);
    let run = dualperf_lab::cleanup::unused_run_id(&runner).map_err(to_cli_error)?;
    let run_id = dualperf_model::run_id(dualperf_engine::clock::unix_ms(), &run.to_string());
    let folder = args.results.join(&run_id);
    let interrupt = interrupt_flag()?;
    eprintln!("dualperf: building `{}` as run {run_id}", topology.name());
    let options = BuildOptions {
        verbose: args.verbose,
        interrupt: Some(interrupt.clone()),
        delay_lines: Default::default(),
    };
    let testbed = Testbed::build(topology, &run, &options).map_err(to_cli_error)?;
    std::fs::create_dir_all(&folder).with_context(|| format!("creating {}", folder.display()))?;
    let exe = match &args.engine {
        Some(path) => path.clone(),
        None => std::env::current_exe().context("finding the dualperf executable")?,
    };
    let serve_log = std::fs::File::create(folder.join("serve.log"))?;
    let mut serve = testbed.spawn(
        "server",
        exe.clone(),
        &["serve".into(), "-p".into(), args.port.to_string().into()],
        Stdio::null(),
        Stdio::from(serve_log),
    )?;
    testbed
        .wait_for_listening_port(
            "server",
            args.port,
            Duration::from_secs(15),
            Some(&interrupt),
        )
        .map_err(to_cli_error)?;
    let expect = Expect {
        link_mtu: topology.links().first().map_or(1500, |l| l.mtu_bytes),
        tunnel_mtu: 1480,
        router1: path_faults::node_addresses(topology, "router1"),
        router2: path_faults::node_addresses(topology, "router2"),
    };
    let targets = Targets {
        v4: testbed.address("server", IpFamily::V4)?,
        v6: testbed.address("server", IpFamily::V6)?,
        tunnel: topology
            .arms("server")
            .map_err(to_cli_error)?
            .into_iter()
            .find(|arm| matches!(arm.path, ArmPath::SixInFour { .. }))
            .and_then(|arm| arm.target)
            .and_then(|t| t.parse().ok()),
    };
    let cases = Cases {
        testbed: &testbed,
        runner: &runner,
        targets: &targets,
        expect: &expect,
        args,
        exe: &exe,
        folder: &folder,
        interrupt: &interrupt,
    };
    let mut records = Vec::new();
    for fault in PathFault::ALL {
        if interrupt.load(Ordering::SeqCst) {
            break;
        }
        let record = case(&cases, fault);
        let record = record.unwrap_or_else(|err| CaseRecord {
            fault: fault.key(),
            description: fault.description(),
            passed: false,
            problems: vec![format!("{err:#}")],
            document: None,
        });
        print_case(&record);
        records.push(record);
    }
    serve.stop();
    drop(serve);
    if let Err(err) = testbed.teardown() {
        eprintln!("dualperf: warning: {err}; run `dualperf lab clean`");
    }
    let json = folder.join("path-faults.json");
    std::fs::write(&json, serde_json::to_string_pretty(&records)?)
        .with_context(|| format!("writing {}", json.display()))?;
    let passed = records.iter().filter(|r| r.passed).count();
    crate::cli::say(&format!(
        "path-faults: {passed} of {} cases found as injected; evidence: {}",
        PathFault::ALL.len(),
        json.display()
    ));
    if interrupt.load(Ordering::SeqCst) {
        return Ok(ExitCode::from(130));
    }
    Ok(if passed == PathFault::ALL.len() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `--dry-run`: the build, then each case's fault commands and their undo.
fn dry_run(topology: &Topology, args: &JobArgs) -> anyhow::Result<ExitCode> {
    let run = RunId::unique();
    let say = |line: &str| crate::cli::say(line);
    say(&format!(
        "# dualperf lab {}: {}",
        topology.name(),
        topology.description()
    ));
    let (implementations, note) =
        dualperf_lab::Implementations::for_dry_run(topology, &Runner::new(false));
    if !note.is_empty() {
        say(&format!("# {note}"));
    }
    say("# build (as root):");
    for step in dualperf_lab::plan::build_plan(topology, &run, &implementations) {
        say(&step.to_string());
    }
    let server = dualperf_lab::naming::namespace_name(&run, "server");
    say(&format!(
        "ip netns exec {server} dualperf serve -p {} &",
        args.port
    ));
    for fault in PathFault::ALL {
        say(&format!("# case {}: {}", fault.key(), fault.description()));
        let commands = fault.commands(topology, &run).map_err(to_cli_error)?;
        for (make, _) in &commands {
            say(&make.to_string());
        }
        say(&format!(
            "ip netns exec {} dualperf path … --json   # (see `dualperf path --help`)",
            dualperf_lab::naming::namespace_name(&run, "client")
        ));
        for (_, undo) in commands.iter().rev() {
            if let Some(undo) = undo {
                say(&undo.to_string());
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The addresses the cases probe.
struct Targets {
    v4: IpAddr,
    v6: IpAddr,
    tunnel: Option<IpAddr>,
}

/// What every case needs.
struct Cases<'a> {
    testbed: &'a Testbed,
    runner: &'a Runner,
    targets: &'a Targets,
    expect: &'a Expect,
    args: &'a JobArgs,
    exe: &'a Path,
    folder: &'a Path,
    interrupt: &'a AtomicBool,
}

/// Makes `fault`, probes across it, undoes it and checks the verdicts.
fn case(cases: &Cases, fault: PathFault) -> anyhow::Result<CaseRecord> {
    let Cases {
        testbed,
        runner,
        targets,
        expect,
        args,
        exe,
        folder,
        interrupt,
    } = *cases;
    for node in ["client", "router1", "router2", "server"] {
        path_faults::flush_route_cache(testbed, node, runner)?;
    }
    let _applied = path_faults::apply(testbed, fault, runner)?;
    let mut path_args: Vec<OsString> = vec!["path".into()];
    match fault {
        PathFault::Tunnel6in4 => {
            let tunnel = targets.tunnel.context("the testbed has no 6in4 arm")?;
            path_args.extend(["--v6".into(), tunnel.to_string().into()]);
        }
        _ => path_args.extend([
            "--v4".into(),
            targets.v4.to_string().into(),
            "--v6".into(),
            targets.v6.to_string().into(),
        ]),
    }
    path_args.extend(
        [
            "-p",
            &args.port.to_string(),
            "--json",
            "--rate",
            RATE_PPS,
            "--wait",
            WAIT_MS,
            "--max-hops",
            "8",
            "--ceiling",
            "1500",
        ]
        .map(OsString::from),
    );
    // The bulk TCP transfer moves a gigabyte a second here: only the
    // control (it flows) and the black hole (it stalls) run it.
    if !matches!(fault, PathFault::Clean | PathFault::PtbBlackHole) {
        path_args.push("--no-bulk".into());
    }
    let capture = match args.verify_wire {
        true => Some(start_capture(testbed, folder, fault, args.port)?),
        false => None,
    };
    let output = run_child(testbed, exe, &path_args, interrupt)?;
    if capture.is_some() {
        // libpcap hands packets to tcpdump in TPACKET_V3 blocks, at the
        // latest after its 1 s timeout: a stop sooner loses the last block.
        std::thread::sleep(CAPTURE_FLUSH);
    }
    let captured = capture.map(Capture::stop);
    let document: PathDocument = serde_json::from_slice(&output)
        .with_context(|| format!("reading `dualperf path` JSON for {}", fault.key()))?;
    let mut problems = check(fault, &document.verdicts, expect);
    if let Some(captured) = &captured {
        problems.extend(wire_checks(fault, &captured.pcap, args.port)?);
    }
    Ok(CaseRecord {
        fault: fault.key(),
        description: fault.description(),
        passed: problems.is_empty(),
        problems,
        document: Some(document),
    })
}

/// Runs `dualperf path …` in the client node and returns its stdout.
fn run_child(
    testbed: &Testbed,
    exe: &Path,
    args: &[OsString],
    interrupt: &AtomicBool,
) -> anyhow::Result<Vec<u8>> {
    let out = tempfile_in(testbed)?;
    let file = std::fs::File::create(&out)?;
    let mut child = testbed.spawn(
        "client",
        exe.as_os_str().to_owned(),
        args,
        Stdio::from(file),
        Stdio::null(),
    )?;
    let status = child.wait(Some(interrupt), Some(CASE_TIMEOUT));
    let bytes = std::fs::read(&out).with_context(|| format!("reading {}", out.display()));
    let _ = std::fs::remove_file(&out);
    let (status, bytes) = (status.map_err(to_cli_error)?, bytes?);
    // exit 1 is a finding (expected for the faults); anything else is not a result
    match status.code() {
        Some(0 | 1) => Ok(bytes),
        other => anyhow::bail!("`dualperf path` ended with {other:?}"),
    }
}

fn tempfile_in(testbed: &Testbed) -> anyhow::Result<PathBuf> {
    let dir = std::env::temp_dir();
    Ok(dir.join(format!(
        "dsp-{}-path-{}.json",
        testbed.run_id(),
        std::process::id()
    )))
}

/// Captures every interface of router1 (`any`): the client's side and the
/// side towards router2, where the 6in4 packets run.
fn start_capture(
    testbed: &Testbed,
    folder: &Path,
    fault: PathFault,
    port: u16,
) -> anyhow::Result<Capture> {
    let pcap = folder.join(format!("{}.pcap", fault.key()));
    Capture::in_node(testbed, "router1", "any", &pcap, port)
}

/// tshark display filters that must match (at least one packet) or must
/// not, per fault, on router1's interfaces.
fn wire_expectations(fault: PathFault, port: u16) -> Vec<(String, bool)> {
    let probes = format!("udp.dstport == {port} || ip.proto == 41");
    let ptb = "icmpv6.type == 2 || (icmp.type == 3 && icmp.code == 4)".to_string();
    let mut out = vec![(probes, true)];
    match fault {
        PathFault::Clean => out.push((ptb, false)),
        PathFault::SmallMtu => {
            out.push((format!("icmpv6.mtu == {FAULT_MTU}"), true));
            out.push((format!("icmp.mtu == {FAULT_MTU}"), true));
        }
        // large probes of both families reach router1, no Packet Too Big leaves it
        PathFault::PtbBlackHole => {
            out.push((ptb, false));
            out.push((
                format!("udp.dstport == {port} && ip.len > {FAULT_MTU}"),
                true,
            ));
            out.push((
                format!("udp.dstport == {port} && ipv6.plen > {}", FAULT_MTU - 40),
                true,
            ));
        }
        PathFault::V6FragmentsDropped => {
            out.push(("ipv6.fraghdr.more == 1".into(), true));
            // the atomic fragment: offset 0, no more, on a small packet
            out.push((
                "ipv6.fraghdr.offset == 0 && ipv6.fraghdr.more == 0 && ipv6.plen < 100".into(),
                true,
            ));
        }
        PathFault::HopByHopDropped => out.push(("ipv6.hopopts".into(), true)),
        PathFault::DestOptionsDropped => out.push(("ipv6.dstopts".into(), true)),
        PathFault::Tunnel6in4 => {
            out.push(("ip.proto == 41".into(), true));
            // UDP only: TCP over veth is captured as GSO super-packets
            out.push(("ip.proto == 41 && ip.len > 1500 && udp".into(), false));
        }
    }
    out
}

/// Reads the capture with tshark and lists what is missing or should not be there.
fn wire_checks(fault: PathFault, pcap: &Path, port: u16) -> anyhow::Result<Vec<String>> {
    let mut problems = Vec::new();
    for (filter, wanted) in wire_expectations(fault, port) {
        let output = Command::new("tshark")
            .args(["-n", "-r"])
            .arg(pcap)
            .args(["-Y", &filter, "-T", "fields", "-e", "frame.number"])
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .context("running tshark")?;
        let count = String::from_utf8_lossy(&output.stdout).lines().count();
        if (count > 0) != wanted {
            problems.push(format!(
                "wire ({}): `{filter}` matched {count} packets, expected {}",
                pcap.display(),
                if wanted { "some" } else { "none" }
            ));
        }
    }
    Ok(problems)
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
        .unwrap_or(false)
}

fn print_case(record: &CaseRecord) {
    let mark = if record.passed { "found" } else { "NOT FOUND" };
    crate::cli::say(&format!(
        "{:22} {mark:9} {}",
        record.fault, record.description
    ));
    if let Some(document) = &record.document {
        for (evidence, verdict) in document.evidence.families.iter().zip(&document.verdicts) {
            if let Some(line) = crate::cli::path::summary::lines(evidence, verdict).first() {
                crate::cli::say(&format!("    {line}"));
            }
        }
    }
    for problem in &record.problems {
        crate::cli::say(&format!("    problem: {problem}"));
    }
}
