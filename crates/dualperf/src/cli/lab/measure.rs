//! The traffic step of a lab run: `dualperf serve` in the server node, the
//! measuring child `dualperf run --plan plan.json --measure-only raw.json`
//! in the client node, on a built testbed. The main job and the experiments
//! that measure more than one thing (the DiffServ conditioner checks) share it.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use dualperf_lab::{LabError, Testbed};

use crate::pipeline::execute::child_args_with_routers;

/// How long the server gets to start listening.
const SERVER_START_TIMEOUT: Duration = Duration::from_secs(15);
/// One round of waiting for the server's port before checking the server is alive.
const LISTEN_POLL: Duration = Duration::from_millis(300);
/// Upper bound on one client run; the default battery stays under 10 minutes.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(15 * 60);

/// The traffic step's inputs: which binary, which port, where the plan and
/// the raw result go.
#[derive(Debug, Clone)]
pub(crate) struct Traffic {
    /// The dualperf executable (resolved here: inside `ip netns exec`,
    /// `/proc/self/exe` would name `ip`).
    pub exe: PathBuf,
    /// Server port.
    pub port: u16,
    /// The plan file the measuring child reads.
    pub plan: PathBuf,
    /// The raw result file the measuring child writes.
    pub raw: PathBuf,
    /// `--router-cpus` entries for the measuring child (an experiment's).
    pub routers: Vec<String>,
    /// The far end the server node runs (a STAMP reflector beside `serve`).
    pub peer: dualperf_model::PeerKind,
}

/// How the traffic step ended.
#[derive(Debug)]
pub(crate) struct Measured {
    /// The measuring child's exit code.
    pub client_exit_code: i32,
}

/// Sessions the lab's server accepts at once: a measured trial, its probe
/// and the flows of a competing load each hold one (the DiffServ loads have
/// four flows); every session is the lab's own.
const LAB_MAX_SESSIONS: u32 = 16;
/// Seconds the lab's server waits for a session's handshake and first
/// request (`serve --handshake-timeout`; an open server's default is 5).
const LAB_HANDSHAKE_TIMEOUT_SECS: u64 = 30;

/// `serve` arguments: `serve -p PORT --max-sessions 16` (and `--stamp
/// --stamp-port PORT` for a STAMP plan).
pub(crate) fn server_args(traffic: &Traffic) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec![
        "serve".into(),
        "-p".into(),
        traffic.port.to_string().into(),
        "--max-sessions".into(),
        LAB_MAX_SESSIONS.to_string().into(),
        // Every session is the lab's own, and a load that overfills the
        // bottleneck (lab realtime's UDP at 120 %) delays the control
        // handshakes that cross it by seconds: the 5 s an open server
        // grants a stranger would fail the lab's own trials.
        "--handshake-timeout".into(),
        LAB_HANDSHAKE_TIMEOUT_SECS.to_string().into(),
    ];
    // A STAMP plan sends to UDP PORT: the reflector answers there, beside
    // serve's TCP control port of the same number (the lab waits for that).
    if traffic.peer == dualperf_model::PeerKind::Stamp {
        args.extend([
            "--stamp".into(),
            "--stamp-port".into(),
            traffic.port.to_string().into(),
        ]);
    }
    args
}

/// The measuring child's arguments for `peer`: against the lab's own STAMP
/// reflector the child is told the clocks are synchronised — true, as every
/// node of a testbed runs on this one kernel, which STAMP cannot see (it
/// carries no boot id, unlike dualperf's handshake).
pub(crate) fn stamp_child_args(
    mut args: Vec<OsString>,
    peer: dualperf_model::PeerKind,
) -> Vec<OsString> {
    if peer == dualperf_model::PeerKind::Stamp {
        args.push("--clocks-synchronised".into());
    }
    args
}

/// The traffic step: server in `server`, the measuring child in `client`,
/// on a built testbed; the plan file must exist.
///
/// # Errors
/// If a process cannot start, the server never listens, the client does not
/// finish in time, or `interrupt` is raised (processes are stopped first).
pub(crate) fn measure(
    testbed: &Testbed,
    client: &str,
    server: &str,
    traffic: &Traffic,
    interrupt: &AtomicBool,
) -> anyhow::Result<Measured> {
    // The server logs a line per session; keep them next to the result
    // instead of between the client's progress lines.
    let server_log_path = traffic.plan.with_file_name("server.log");
    let server_log = std::fs::File::create(&server_log_path)
        .with_context(|| format!("creating {}", server_log_path.display()))?;
    let mut server_process = testbed
        .spawn(
            server,
            traffic.exe.clone(),
            &server_args(traffic),
            Stdio::null(),
            Stdio::from(server_log),
        )
        .map_err(anyhow::Error::new)?;
    let deadline = Instant::now() + SERVER_START_TIMEOUT;
    // Short waits in a loop, so a server that dies at start is reported at once.
    while let Err(err) =
        testbed.wait_for_listening_port(server, traffic.port, LISTEN_POLL, Some(interrupt))
    {
        if let Some(status) = server_process.try_wait()? {
            bail!(
                "`dualperf serve` in node `{server}` exited ({status}) before listening on port {} (see {})",
                traffic.port,
                server_log_path.display()
            );
        }
        if matches!(err, LabError::Interrupted) || Instant::now() >= deadline {
            return Err(anyhow::Error::new(err)
                .context(format!("waiting for `dualperf serve` in node `{server}`")));
        }
    }
    let mut client_process = testbed
        .spawn(
            client,
            traffic.exe.clone(),
            &stamp_child_args(
                child_args_with_routers(
                    &traffic.plan,
                    &traffic.raw,
                    &testbed.daemon_pids(),
                    &traffic.routers,
                ),
                traffic.peer,
            ),
            Stdio::null(),
            Stdio::inherit(),
        )
        .map_err(anyhow::Error::new)?;
    // An interrupt that came before the child started stops at once; after
    // that the first one is forwarded to the child (it finishes its trial
    // and saves), the second one stops it (`signal`).
    if interrupt.load(Ordering::SeqCst) {
        return Err(anyhow::Error::new(LabError::Interrupted));
    }
    let status = {
        let _forwarding = super::signal::Forwarding::to(client_process.id());
        client_process.wait(Some(&super::signal::again_flag()), Some(CLIENT_TIMEOUT))?
    };
    server_process.stop();
    Ok(Measured {
        client_exit_code: status.code().unwrap_or(1),
    })
}
