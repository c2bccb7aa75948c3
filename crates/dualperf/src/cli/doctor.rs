//! `dualperf doctor`: which privileges and kernel features dualperf can use
//! here, found by trying them in a throwaway namespace, and what each missing
//! one disables (with the module that would provide it).
//!
//! Exit code 0 when namespaces work (missing features are reported, not
//! fatal), 3 when they do not (no root / CAP_NET_ADMIN or no kernel support).

use std::process::ExitCode;

use dualperf_lab::{Availability, Capabilities, LabError, RunId, Runner};

use crate::cli::Failure;

/// Bit of CAP_NET_ADMIN in the capability sets (linux/capability.h).
const CAP_NET_ADMIN_BIT: u32 = 12;

/// Arguments of `dualperf doctor`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// Echo every probe command before it runs.
    #[arg(short, long)]
    pub verbose: bool,
}

/// True when the effective capability set (`CapEff` in /proc/self/status) has CAP_NET_ADMIN.
fn has_net_admin() -> Option<bool> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let hex = status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))?
        .trim();
    let bits = u64::from_str_radix(hex, 16).ok()?;
    Some(bits & (1 << CAP_NET_ADMIN_BIT) != 0)
}

/// Runs `dualperf doctor`.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    // SAFETY: geteuid(2) cannot fail and touches no memory.
    let euid = unsafe { libc::geteuid() };
    let net_admin = match has_net_admin() {
        Some(true) => "yes",
        Some(false) => "no",
        None => "unknown",
    };
    println!(
        "{:<22} {}",
        "user",
        if euid == 0 {
            "root".to_string()
        } else {
            format!("uid {euid}")
        }
    );
    println!("{:<22} {net_admin}", "CAP_NET_ADMIN");
    let runner = Runner::new(args.verbose);
    let capabilities = match Capabilities::probe_all(&runner, &RunId::unique()) {
        Ok(capabilities) => capabilities,
        Err(LabError::NamespacesUnavailable { reason }) => {
            println!("{:<22} NO: {reason}", "network namespaces");
            return Err(Failure::environment(
                "network namespaces cannot be created here, so `dualperf lab` cannot build testbeds; \
                 run as root (or with CAP_NET_ADMIN), or measure loopback: dualperf run --loopback",
            ));
        }
        Err(err) => return Err(anyhow::Error::new(err).context("probing kernel features")),
    };
    println!("{:<22} yes", "network namespaces");
    for (feature, availability) in capabilities.results() {
        match availability {
            Availability::Present => println!("{:<22} yes", feature.label()),
            Availability::Missing { detail } => println!(
                "{:<22} MISSING (module `{}`): disables {} [{detail}]",
                feature.label(),
                feature.module(),
                feature.disables()
            ),
        }
    }
    println!();
    println!("transition mechanisms (the kernel's own device first, else the recipe):");
    for line in dualperf_lab::mechanism::support(&capabilities) {
        println!("{:<22} {}", line.label(), line.describe());
    }
    println!();
    println!("link emulation (delay, jitter and loss on lab links):");
    match dualperf_lab::LinkEmulation::best(&capabilities) {
        Some(emulation) => println!(
            "{:<22} {} ({})",
            "link emulation",
            emulation.key(),
            emulation.describe()
        ),
        None => println!(
            "{:<22} NONE: no netem, and the BPF delay line needs tc BPF and TAP devices",
            "link emulation"
        ),
    }
    let missing = capabilities.missing();
    if missing.is_empty() {
        println!("every probed feature is available");
    } else {
        println!(
            "{} of {} features missing; where a recipe above stands in, it is used and recorded, otherwise a testbed that needs the feature fails before building anything",
            missing.len(),
            capabilities.results().len()
        );
    }
    Ok(ExitCode::SUCCESS)
}
