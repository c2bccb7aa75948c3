//! Timing claims that need the machine to themselves. Tests inside one
//! binary run side by side (two at a time on two CPUs), and a bulk TCP
//! flow in the next test starves a pacer that must hold ±1 % per 100 ms;
//! cargo runs test binaries one after another, so nothing else in the
//! suite runs beside the tests here. Their namespace helpers are the
//! integration tests' own (`tests/it`).

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

mod pacing;
#[allow(dead_code)] // the timing tests use a part of the shared helpers
#[path = "../it/probe_lab.rs"]
mod probe_lab;
#[allow(dead_code)]
#[path = "../it/support.rs"]
mod support;
