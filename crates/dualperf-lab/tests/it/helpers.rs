//! Helper "tests" that other tests start as child processes by re-running
//! this test binary with `--ignored --exact helpers::NAME`. They do nothing
//! unless `DSP_LAB_HELPER` names them, so running ignored tests by hand is
//! harmless.

use std::io::Write;
use std::net::TcpListener;
use std::process::{Command, Stdio};

use dualperf_lab::{preset, BuildOptions, RunId, Testbed};

/// Environment variable that activates a helper.
pub const HELPER_VARIABLE: &str = "DSP_LAB_HELPER";
/// Environment variable carrying the run id for [`hold_a_testbed`].
pub const RUN_VARIABLE: &str = "DSP_LAB_RUN";
/// Environment variable naming the preset [`hold_a_testbed`] builds (default `router`).
pub const PRESET_VARIABLE: &str = "DSP_LAB_PRESET";

/// Builds the `router` preset (or `$DSP_LAB_PRESET`) under `$DSP_LAB_RUN`, starts an orphan-able
/// `sleep` inside the server node (no parent-death signal, like a process a
/// user started with `lab exec`), prints `ready PID` and waits to be killed.
#[test]
#[ignore = "helper process for teardown::a_lab_killed_with_sigkill_is_removed_by_clean"]
fn hold_a_testbed() {
    if std::env::var(HELPER_VARIABLE).as_deref() != Ok("hold") {
        return;
    }
    let run = RunId::new(std::env::var(RUN_VARIABLE).unwrap()).unwrap();
    let preset_name = std::env::var(PRESET_VARIABLE).unwrap_or_else(|_| "router".into());
    let testbed = Testbed::build(
        &preset::load(&preset_name).unwrap(),
        &run,
        &BuildOptions::default(),
    )
    .unwrap();
    let netns = testbed.netns("server").unwrap();
    // Never waited for on purpose: this process is killed, the sleeper must outlive it.
    #[allow(clippy::zombie_processes)]
    let sleeper = Command::new("ip")
        .args(["netns", "exec", &netns, "sleep", "600"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    println!("ready {}", sleeper.id());
    std::io::stdout().flush().unwrap();
    std::thread::sleep(std::time::Duration::from_secs(600));
    drop(testbed);
}

/// Listens on TCP port `$DSP_LAB_PORT` on all addresses of the namespace it
/// was started in and answers every connection with `hello\n`.
#[test]
#[ignore = "helper process for processes::a_server_started_in_a_node_is_reachable_and_stopped_on_drop"]
fn listen() {
    if std::env::var(HELPER_VARIABLE).as_deref() != Ok("listen") {
        return;
    }
    let port: u16 = std::env::var("DSP_LAB_PORT").unwrap().parse().unwrap();
    let listener = TcpListener::bind(("::", port)).unwrap();
    for stream in listener.incoming() {
        let _ = stream.unwrap().write_all(b"hello\n");
    }
}

/// Set by the SIGINT handler of [`hold_until_ctrl_c`].
static CTRL_C: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

extern "C" fn on_sigint(_: libc::c_int) {
    CTRL_C.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Plays `dualperf lab` under Ctrl-C: installs a SIGINT handler that raises
/// the interrupt flag (as the binary's handler does), builds
/// `$DSP_LAB_PRESET` under `$DSP_LAB_RUN`, prints `ready PIDS` (the
/// testbed's daemons), waits for the interrupt and returns, dropping the
/// testbed on the way out like every exit path of the binary.
#[test]
#[ignore = "helper process for transition::ctrl_c_stops_tayga_and_removes_its_tun_device"]
fn hold_until_ctrl_c() {
    if std::env::var(HELPER_VARIABLE).as_deref() != Ok("ctrl-c") {
        return;
    }
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(
            libc::SIGINT,
            on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
    }
    let interrupt = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let run = RunId::new(std::env::var(RUN_VARIABLE).unwrap()).unwrap();
    let preset_name = std::env::var(PRESET_VARIABLE).unwrap();
    let options = BuildOptions {
        verbose: false,
        interrupt: Some(std::sync::Arc::clone(&interrupt)),
        delay_lines: Default::default(),
    };
    let testbed = Testbed::build(&preset::load(&preset_name).unwrap(), &run, &options).unwrap();
    let pids: Vec<String> = testbed
        .daemon_pids()
        .iter()
        .map(|p| p.to_string())
        .collect();
    println!("ready {}", pids.join(" "));
    std::io::stdout().flush().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !CTRL_C.load(std::sync::atomic::Ordering::SeqCst) && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    interrupt.store(true, std::sync::atomic::Ordering::SeqCst);
    drop(testbed);
    println!("removed");
}
