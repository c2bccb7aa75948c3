//! Fleet monitoring for dualperf: `dualperf exporter` compares IPv4 and
//! IPv6 against many hosts running `dualperf serve` on a schedule and
//! serves the results to Prometheus; `dualperf run --openmetrics FILE`
//! writes one run for node_exporter's textfile collector.
//!
//! Map of the crate:
//!
//! * [`config`]: the TOML configuration, every key validated up front
//!   (unknown keys, unreachable intervals, the duty cycle), errors that name
//!   the line and the key. Pure.
//! * [`schedule`]: when each target is compared — never overlapping,
//!   interval plus jitter, a per-target rate limit, a duty-cycle cap — as
//!   a state machine with time passed in. Pure.
//! * [`openmetrics`]: the metric families (one table: names, types, base
//!   units, help) and their encoding as OpenMetrics or Prometheus 0.0.4
//!   text. Pure.
//! * [`snapshot`]: an analysed `RunResult` as samples ([`render_run`] is
//!   the textfile). Pure: values in, text out; it reads the run's
//!   `Analysis` and never computes a metric (only summaries' `_count` and
//!   `_sum` add up raw transaction counts and latency sums).
//! * [`registry`]: what `/metrics` shows; memory bounded by the
//!   configuration, not by time.
//! * [`http`]: a small HTTP/1.1 server on a std `TcpListener` (no async
//!   runtime), loopback by default.
//! * [`probe`]: `/probe?target=…&module=…`, blackbox_exporter style:
//!   one comparison when the scraper asks, bounded concurrency, a timeout.
//! * [`driver`]: the loop that wires them, with a caller-supplied function
//!   that runs one comparison (the binary uses the engine's client and the
//!   stats stage), and a stop signal for SIGTERM.
//!
//! Metric names are this crate's own (`dualperf_goodput_bytes_per_second`
//! …); dualperf's metrics appear only through `MetricId`, e.g. as the
//! `metric` label of `dualperf_headline_ratio`.

pub mod config;
pub mod driver;
pub mod http;
pub mod openmetrics;
pub mod probe;
pub mod registry;
pub mod schedule;
pub mod snapshot;

pub use config::{Config, ConfigError, ConfigErrors, Measurement, Module, Target};
pub use driver::{drive, DriverOptions, DriverSummary, DriverTarget, Outcome, StopSignal};
pub use http::{MetricsHandle, MetricsServer};
pub use openmetrics::{encode, Family, Format};
pub use probe::{ProbeRun, ProbeTarget, Prober};
pub use registry::{ExporterFacts, Registry};
pub use schedule::{Next, Schedule, TargetSchedule};
pub use snapshot::{render_run, RunSnapshot};
