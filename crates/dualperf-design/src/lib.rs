//! Experiments as designs: pure planners.
//!
//! An experiment is a value ([`dualperf_model::RunConfig`]): its points, its
//! arms as combinations of levels (family, path, marking, load), its loads
//! with their designed levels, and the contrasts it asks about
//! ([`dualperf_model::design`]). A planner builds that value from what it is
//! given — the native arms towards a server (their targets resolved by the
//! caller), a timing, a port — and nothing else: no sockets, no namespaces,
//! no clock, no flags. The same plan is then executed by whoever has a path:
//! `dualperf lab PRESET` across a testbed it builds, `dualperf run
//! --experiment NAME HOST` against a real server, through the one pipeline
//! (execute, analyse, store, report), and the report lays it out from the
//! design's data, with no code of its own per experiment.
//!
//! [`Design`] is the table of planners, as `MetricId` is the table of
//! metrics: one row per experiment. Adding one is a planner file here, a
//! row in [`Design`], and a preset in the lab crate if it wants a testbed
//! (ARCHITECTURE.md, "Adding an experiment", uses `rrul` as the example).
//!
//! The DiffServ and real-time planners still live in the binary
//! (`cli/lab/experiment/`): they read lab facts (the DiffServ domain, the
//! link rate) through the lab crate; moving them here is the next step.

pub mod rrul;

use dualperf_model::{Arm, RunConfig};

/// An experiment a planner in this crate builds.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub enum Design {
    /// Latency under load in the style of flent's RRUL ([`rrul`]).
    Rrul,
}

/// What every planner gets.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanInputs {
    /// The native arms towards the server, targets resolved, baseline first.
    pub base: Vec<Arm>,
    /// `--quick`: the short timing of the experiment.
    pub quick: bool,
    /// Measured seconds per trial, overriding the experiment's.
    pub time_seconds: Option<f64>,
    /// Repetitions per arm, overriding the experiment's.
    pub repeat: Option<u32>,
    /// The server's control port.
    pub port: u16,
    /// The command line, for reproduction.
    pub command_line: Vec<String>,
}

impl Design {
    /// Every design, in the order `--help` lists them.
    pub const ALL: [Design; 1] = [Design::Rrul];

    /// The name on the command line (`run --experiment NAME`) and of the
    /// lab preset that gives it a testbed.
    pub fn name(self) -> &'static str {
        match self {
            Design::Rrul => "rrul",
        }
    }

    /// One line for `--help` and errors.
    pub fn summary(self) -> &'static str {
        match self {
            Design::Rrul => {
                "latency under load: one-way delay and RTT beside bulk TCP up and down, idle against loaded, IPv6 against IPv4"
            }
        }
    }

    /// The design called `name`, if there is one.
    pub fn from_name(name: &str) -> Option<Design> {
        Design::ALL.into_iter().find(|d| d.name() == name)
    }

    /// The plan of this design.
    pub fn plan(self, inputs: &PlanInputs) -> RunConfig {
        match self {
            Design::Rrul => rrul::plan(inputs),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_design_is_found_by_its_name() {
        for design in Design::ALL {
            assert_eq!(Design::from_name(design.name()), Some(design));
            assert!(!design.summary().is_empty());
        }
        assert_eq!(Design::from_name("rrull"), None);
    }
}
