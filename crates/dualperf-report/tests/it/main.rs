//! Integration tests of the report renderers. Every run rendered here is
//! SYNTHETIC (`dualperf_fixtures::synthetic`): made-up numbers with the shape of
//! a real run, so that layout and wording can be tested without a lab.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

mod baselines;
mod bounds;
mod browser;
mod coarse;
mod designed;
mod html_snapshot;
mod html_structure;
mod markdown_size;
mod snapshots;
