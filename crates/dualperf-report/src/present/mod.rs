//! The presentation layer: every word and number dualperf shows people.
//!
//! The stats stage hands over numbers ([`dualperf_model::Analysis`]); this
//! module turns them into text, in one place for every output (terminal,
//! Markdown, HTML, `history`):
//!
//! - [`value`]: one formatter for every [`dualperf_model::Quantity`]
//!   (`format_value(MetricId, f64)`), percentages, signed differences;
//! - [`verdict`]: the verdict sentence of a comparison and its "why";
//! - [`attribution`]: what explains a difference (header, encapsulation,
//!   fragmentation, CPU cost, the rest);
//! - [`mark`]: a comparison's verdict as a compact table cell (`+3.1 % ✓`);
//! - [`warning`]: the words for each typed comparison warning;
//! - [`contention`]: why a contended comparison is not significant;
//! - [`clocks`]: what a one-way delay rests on (one kernel, or a declared
//!   synchronisation with its error bound);
//! - [`media`]: what a MOS means to callers, the media table's rows;
//! - [`wire`]: what a packet capture showed beside the engine (`--verify-wire`);
//! - [`interval`]: live interval lines while a trial runs;
//! - [`arms`]: arm labels by id;
//! - [`baselines`]: which baseline each comparison names;
//! - [`axis`]: chart tick labels;
//! - [`bounds`]: the range each quantity can take, so no interval leaves it.

pub mod arms;
pub mod attribution;
pub mod axis;
pub mod baselines;
pub mod bounds;
pub mod clocks;
pub mod contention;
pub mod diffserv;
pub mod goal;
pub mod instability;
pub mod interval;
pub mod mark;
pub mod marking;
pub mod mechanisms;
pub mod media;
pub mod regime;
pub mod router_cpu;
pub mod size_means;
pub mod value;
pub mod verdict;
pub mod warning;
pub mod wire;
pub mod wording;

pub use arms::ArmNames;
pub use attribution::{attribution_clause, attribution_rest};
pub use value::{format_value, format_with_error, percent_signed, significant};
pub use verdict::{
    claims_significance, has_no_spread, significance_note, verdict, why_clause, wording, Wording,
};
pub use warning::{warning, warning_key, warning_short, warnings};
