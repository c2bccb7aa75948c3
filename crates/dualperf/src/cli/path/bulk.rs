//! TCP's view, measured: a one-second bulk transfer (`tcp-stream`, the
//! engine's own trial through the serve control protocol) to the
//! `dualperf serve` that answered the probes. Over a PMTU black hole a
//! connection whose MSS the path cannot carry moves (almost) nothing.

use std::net::IpAddr;

use dualperf_model::{Arm, IpFamily, RunConfig, TestKind, TestSpec, TrialOutcome};
use dualperf_path::evidence::{BulkTransfer, BULK_SECONDS};

/// Message size of the bulk transfer, bytes (as `run`'s tcp-stream default).
const MESSAGE_BYTES: u32 = 131_072;

/// Runs the transfer to `target`:`port` and says what arrived.
pub(crate) fn measure(target: IpAddr, port: u16) -> BulkTransfer {
    let family = match target {
        IpAddr::V4(_) => IpFamily::V4,
        IpAddr::V6(_) => IpFamily::V6,
    };
    let arm = Arm::native(family, Some(target.to_string()));
    let spec = TestSpec {
        duration_ms: u64::from(BULK_SECONDS) * 1_000,
        warmup_ms: 0,
        ..TestSpec::new(TestKind::TcpStream, MESSAGE_BYTES)
    };
    let config = RunConfig {
        loads: Vec::new(),
        points: vec![spec],
        baseline: arm.id.clone(),
        arms: vec![arm],
        repeat: 1,
        order: Default::default(),
        host: None,
        port,
        client_cpus: Vec::new(),
        server_cpus: Vec::new(),
        command_line: Vec::new(),
        peer: dualperf_model::PeerKind::Dualperf,
        contrasts: Vec::new(),
        goal: None,
    };
    let result = dualperf_engine::client::run_plan(&config, &mut |_| {});
    match result.trials.first().map(|trial| &trial.outcome) {
        Some(TrialOutcome::Ok(observations)) => BulkTransfer {
            bytes_received: Some(observations.receiver.bytes),
            measured_ns: observations.measured_ns,
            error: None,
        },
        Some(TrialOutcome::Failed { error }) => BulkTransfer {
            bytes_received: None,
            measured_ns: 0,
            error: Some(error.clone()),
        },
        None => BulkTransfer {
            bytes_received: None,
            measured_ns: 0,
            error: Some(result.errors.join("; ")),
        },
    }
}
