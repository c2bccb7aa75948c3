//! `dualperf exporter`'s `/probe?target=…&module=…`: the comparison a probe
//! runs. The endpoint itself (query, bounded concurrency, timeout,
//! rendering) is `dualperf_exporter::probe`; this file turns a module and
//! the target the scraper named into a prepared target and runs it exactly
//! as a scheduled comparison runs (`exporter::compare`).

use std::net::{IpAddr, ToSocketAddrs};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use dualperf_exporter::{Config, Module, Outcome, ProbeTarget, Prober};
use dualperf_model::IpFamily;

use super::{compare, Prepared};

/// The `/probe` endpoint of `config`'s modules, each prepared (plan and
/// key) in `prepared`, in the same order.
pub(super) fn prober(
    config: &Config,
    prepared: Vec<Prepared>,
    command_line: Vec<String>,
) -> Prober {
    let prepared = Arc::new(prepared);
    Prober::new(
        config.modules.clone(),
        config.probe_concurrency,
        Arc::new(
            move |module: &Module, target: &ProbeTarget, stop: Arc<AtomicBool>| {
                let template = prepared
                    .iter()
                    .find(|p| p.target.name == module.name)
                    .ok_or_else(|| format!("module `{}` is not prepared", module.name))?;
                let aimed = aim(template, target)?;
                match compare(&aimed, &command_line, &stop) {
                    Outcome::Measured(result) => Ok(*result),
                    Outcome::Failed(error) => Err(error),
                }
            },
        ),
    )
}

/// The module's prepared comparison aimed at `target`: its addresses (an
/// address literal is its own family; a name is resolved now) and its
/// port, if it names one. Arms of a family the target has no address of
/// are left out: that family's `dualperf_probe_success` is then 0.
///
/// # Errors
/// When the name does not resolve, or to no family the module measures.
fn aim(template: &Prepared, target: &ProbeTarget) -> Result<Prepared, String> {
    let mut aimed = Prepared {
        target: template.target.clone(),
        plan: template.plan.clone(),
        auth_key: template.auth_key.clone(),
    };
    if let Some(port) = target.port {
        aimed.target.port = port;
        aimed.plan.port = port;
    }
    let addresses: Vec<IpAddr> = match target.host.parse::<IpAddr>() {
        Ok(address) => vec![address.to_canonical()],
        Err(_) => (target.host.as_str(), aimed.target.port)
            .to_socket_addrs()
            .map_err(|e| format!("cannot resolve `{}`: {e}", target.host))?
            .map(|a| a.ip().to_canonical())
            .collect(),
    };
    aimed.target.name = target.host.clone();
    aimed.target.host = None;
    aimed.plan.host = Some(target.host.clone());
    aimed.target.v4 = addresses.iter().find_map(|a| match a {
        IpAddr::V4(v4) => Some(*v4),
        IpAddr::V6(_) => None,
    });
    aimed.target.v6 = addresses.iter().find_map(|a| match a {
        IpAddr::V6(v6) => Some(*v6),
        IpAddr::V4(_) => None,
    });
    let has = |family: IpFamily| match family {
        IpFamily::V4 => aimed.target.v4.is_some(),
        IpFamily::V6 => aimed.target.v6.is_some(),
    };
    aimed.plan.arms.retain(|arm| has(arm.family));
    let Some(first) = aimed.plan.arms.first() else {
        return Err(format!(
            "`{}` has no address of the module's families",
            target.host
        ));
    };
    if aimed.plan.arm(&aimed.plan.baseline).is_none() {
        aimed.plan.baseline = first.id.clone();
    }
    Ok(aimed)
}
