//! The one pipeline every measuring command goes through.
//!
//! ```text
//! flags / plan file / lab testbed
//!   └─> plan      a typed RunConfig: points (tests × sizes), arms, baseline,
//!                 repetitions, order, CPU placement          (plan.rs)
//!   └─> execute   in this process, or in a lab namespace through a plan
//!                 file; one raw RunResult comes back        (execute.rs)
//!   └─> finish    analyse once → save (JSON, database, CSV, HTML) → print
//!                                                          (finish.rs)
//! `--verify-wire` adds a packet capture around execute and a wire check
//! of every trial before finish (verify_wire/).
//! ```
//!
//! `dualperf run` and `dualperf lab` differ only in how they build the plan
//! and which executor they pick. A run has one id from start to end: the
//! results folder, the JSON, the database row and the report carry the same
//! one. Nothing in this module computes a metric: the stats stage does.

pub(crate) mod execute;
pub(crate) mod finish;
pub(crate) mod gzip;
pub(crate) mod load;
pub(crate) mod output;
pub(crate) mod plan;
pub(crate) mod progress;
pub(crate) mod resolution;
pub(crate) mod send_budget;
pub(crate) mod verify_wire;
