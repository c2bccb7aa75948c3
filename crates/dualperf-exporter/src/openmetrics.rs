//! The metric families dualperf exposes, and their text encoding.
//!
//! One table ([`Family`]) holds every exposed name with its type, unit and
//! help text; names follow the Prometheus naming guide: the `dualperf_`
//! prefix, base units (seconds, bytes, ratios) as suffixes, `_total` only on
//! counters. [`encode`] writes samples in either of the two formats a
//! Prometheus server reads:
//!
//! - **OpenMetrics 1.0** (`application/openmetrics-text`), what Prometheus
//!   asks for when it scrapes: `# TYPE`, `# UNIT`, `# HELP`, counters named
//!   without `_total` in their metadata, `info` families, `# EOF` at the end;
//! - **the Prometheus text format 0.0.4** (`text/plain`), for `curl`,
//!   `promtool check metrics` and node_exporter's textfile collector.
//!
//! Gauges and summaries read the same in both, which is why the textfile
//! that `dualperf run --openmetrics` writes has no counter: it is valid
//! OpenMetrics and valid 0.0.4 text at once.

use std::fmt::Write;

/// The two exposition formats.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Format {
    /// OpenMetrics 1.0.0 text.
    OpenMetrics,
    /// Prometheus text format 0.0.4.
    PrometheusText,
}

impl Format {
    /// The `Content-Type` of a response in this format.
    pub fn content_type(self) -> &'static str {
        match self {
            Format::OpenMetrics => "application/openmetrics-text; version=1.0.0; charset=utf-8",
            Format::PrometheusText => "text/plain; version=0.0.4; charset=utf-8",
        }
    }

    /// The format a client asks for in its `Accept` header: OpenMetrics
    /// when it lists `application/openmetrics-text` with a non-zero
    /// q-value (Prometheus does), the 0.0.4 text otherwise.
    pub fn negotiate(accept: Option<&str>) -> Format {
        let Some(accept) = accept else {
            return Format::PrometheusText;
        };
        for range in accept.split(',') {
            let mut parts = range.split(';').map(str::trim);
            let media = parts.next().unwrap_or("");
            if !media.eq_ignore_ascii_case("application/openmetrics-text") {
                continue;
            }
            let refused = parts.any(|p| {
                p.strip_prefix("q=")
                    .and_then(|q| q.parse::<f64>().ok())
                    .is_some_and(|q| q <= 0.0)
            });
            if !refused {
                return Format::OpenMetrics;
            }
        }
        Format::PrometheusText
    }
}

/// The type of a metric family.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Kind {
    /// A value that goes up and down.
    Gauge,
    /// A monotonic count (`_total`).
    Counter,
    /// Quantiles, optionally with `_sum` and `_count`.
    Summary,
    /// Constant labels worth one (`_info`).
    Info,
}

macro_rules! families {
    ($($variant:ident => $name:literal, $kind:ident, $unit:literal, $help:literal;)*) => {
        /// Every metric family dualperf exposes, in exposition order.
        #[derive(Clone, Copy, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
        pub enum Family {
            $(
                #[doc = concat!("`", $name, "`: ", $help)]
                $variant,
            )*
        }

        impl Family {
            /// Every family, in exposition order.
            pub const ALL: &'static [Family] = &[$(Family::$variant),*];

            /// The family's name as OpenMetrics metadata spells it
            /// (counters without `_total`, info families without `_info`).
            pub const fn name(self) -> &'static str {
                match self { $(Family::$variant => $name),* }
            }

            /// The family's type.
            pub const fn kind(self) -> Kind {
                match self { $(Family::$variant => Kind::$kind),* }
            }

            /// The unit, a suffix of the name; empty for none.
            pub const fn unit(self) -> &'static str {
                match self { $(Family::$variant => $unit),* }
            }

            /// The `# HELP` text.
            pub const fn help(self) -> &'static str {
                match self { $(Family::$variant => $help),* }
            }
        }
    };
}

families! {
    Goodput => "dualperf_goodput_bytes_per_second", Gauge, "bytes_per_second",
        "Receiver goodput: application bytes per second, mean over the comparison's repetitions (tcp-stream, udp-stream).";
    Rtt => "dualperf_rtt_seconds", Summary, "seconds",
        "Request/response round-trip time (tcp-rr, udp-rr). A quantile is the mean over the comparison's repetitions of each trial's quantile (0 is the minimum); _count and _sum add up every timed transaction.";
    Connect => "dualperf_connect_seconds", Summary, "seconds",
        "TCP connection setup time, connect() to established (tcp-connect). Quantiles as for dualperf_rtt_seconds.";
    OneWayDelay => "dualperf_one_way_delay_seconds", Summary, "seconds",
        "RFC 7679 one-way delay of the udp-probe stream; only when valid (both ends share a clock, or clocks_synchronised is declared). Quantiles as for dualperf_rtt_seconds.";
    Loss => "dualperf_loss_ratio", Gauge, "ratio",
        "RFC 7680 loss ratio, lost over sent datagrams, mean over the comparison's repetitions (udp-stream, udp-probe).";
    Jitter => "dualperf_jitter_seconds", Gauge, "seconds",
        "RFC 3550 interarrival jitter, mean over the comparison's repetitions (udp-stream, udp-probe).";
    HeadlineRatio => "dualperf_headline_ratio", Gauge, "ratio",
        "The arm's mean over the baseline arm's mean of the test's headline metric (the metric label): goodput for streams, RTT p50 for rr, setup p50 for tcp-connect, one-way delay p50 for udp-probe. 1 means equal.";
    HeadlineSignificant => "dualperf_headline_significant", Gauge, "",
        "1 when the paired arm minus baseline difference of the headline metric is significant (its 95 percent confidence interval excludes 0), else 0.";
    LastRunTimestamp => "dualperf_last_run_timestamp_seconds", Gauge, "seconds",
        "When the target's last comparison ended, seconds since the Unix epoch.";
    LastRunSuccess => "dualperf_last_run_success", Gauge, "",
        "1 when every trial of the target's last comparison succeeded, else 0.";
    LastRunDuration => "dualperf_last_run_duration_seconds", Gauge, "seconds",
        "How long the target's last comparison took.";
    Runs => "dualperf_runs", Counter, "",
        "Comparisons run against the target since the exporter started, by result (success: every trial succeeded).";
    ProbeSuccess => "dualperf_probe_success", Gauge, "",
        "/probe only: 1 when every trial of the family (label) in this probe succeeded, else 0.";
    ProbeDuration => "dualperf_probe_duration_seconds", Gauge, "seconds",
        "/probe only: how long this probe's comparison took.";
    DutyCycle => "dualperf_exporter_duty_cycle_ratio", Gauge, "ratio",
        "Fraction of the exporter's wall time spent measuring since it started.";
    BuildInfo => "dualperf_exporter_build", Info, "",
        "The dualperf version serving these metrics.";
    ResidentMemory => "process_resident_memory_bytes", Gauge, "bytes",
        "Resident memory of the exporter process (VmRSS).";
    StartTime => "process_start_time_seconds", Gauge, "seconds",
        "When the exporter process started, seconds since the Unix epoch.";
}

/// Which part of a family a sample is.
#[derive(Clone, Copy, Debug, Eq, Ord, PartialEq, PartialOrd)]
pub enum Part {
    /// The value of a gauge or info family, or a counter's `_total`.
    Value,
    /// A summary quantile (the label value, e.g. `0.5`).
    Quantile(Quantile),
    /// A summary's `_sum`.
    Sum,
    /// A summary's `_count`.
    Count,
}

/// The quantiles dualperf exposes in summaries.
#[derive(Clone, Copy, Debug, Eq, Ord, PartialEq, PartialOrd)]
pub enum Quantile {
    /// The minimum.
    Min,
    /// The median.
    P50,
    /// The 90th percentile.
    P90,
    /// The 99th percentile.
    P99,
    /// The 99.9th percentile.
    P999,
}

impl Quantile {
    /// The `quantile` label value.
    pub const fn label(self) -> &'static str {
        match self {
            Quantile::Min => "0",
            Quantile::P50 => "0.5",
            Quantile::P90 => "0.9",
            Quantile::P99 => "0.99",
            Quantile::P999 => "0.999",
        }
    }
}

/// Label names and values, in exposition order.
pub type Labels = Vec<(&'static str, String)>;

/// One sample: a family, its labels, which part, the value.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The family.
    pub family: Family,
    /// The labels (without `quantile`, which [`Part::Quantile`] carries).
    pub labels: Labels,
    /// Which part of the family.
    pub part: Part,
    /// The value.
    pub value: f64,
}

/// Writes `samples` in `format`: grouped by family in [`Family::ALL`]
/// order, then by labels, every part of one summary together. Families
/// without samples are left out; non-finite values are skipped; two samples
/// with the same family, labels and part keep the first.
pub fn encode(samples: &[Sample], format: Format) -> String {
    let mut sorted: Vec<&Sample> = samples.iter().filter(|s| s.value.is_finite()).collect();
    // A stable sort keeps the first of two equal samples first.
    sorted.sort_by(|a, b| (a.family, &a.labels, a.part).cmp(&(b.family, &b.labels, b.part)));
    sorted.dedup_by(|later, earlier| {
        later.family == earlier.family
            && later.labels == earlier.labels
            && later.part == earlier.part
    });
    let mut out = String::with_capacity(sorted.len() * 96);
    let mut current: Option<Family> = None;
    for sample in sorted {
        if current != Some(sample.family) {
            current = Some(sample.family);
            write_metadata(&mut out, sample.family, format);
        }
        write_sample(&mut out, sample, format);
    }
    if format == Format::OpenMetrics {
        out.push_str("# EOF\n");
    }
    out
}

fn metadata_name(family: Family, format: Format) -> String {
    match (family.kind(), format) {
        (Kind::Counter, Format::PrometheusText) => format!("{}_total", family.name()),
        (Kind::Info, Format::PrometheusText) => format!("{}_info", family.name()),
        _ => family.name().to_string(),
    }
}

fn write_metadata(out: &mut String, family: Family, format: Format) {
    let name = metadata_name(family, format);
    let kind = match (family.kind(), format) {
        (Kind::Gauge, _) | (Kind::Info, Format::PrometheusText) => "gauge",
        (Kind::Counter, _) => "counter",
        (Kind::Summary, _) => "summary",
        (Kind::Info, Format::OpenMetrics) => "info",
    };
    let _ = writeln!(out, "# TYPE {name} {kind}");
    if format == Format::OpenMetrics && !family.unit().is_empty() {
        let _ = writeln!(out, "# UNIT {name} {}", family.unit());
    }
    let _ = writeln!(out, "# HELP {name} {}", escape_help(family.help()));
}

fn write_sample(out: &mut String, sample: &Sample, format: Format) {
    let family = sample.family;
    out.push_str(family.name());
    match (sample.part, family.kind()) {
        (Part::Value, Kind::Counter) => out.push_str("_total"),
        (Part::Value, Kind::Info) => out.push_str("_info"),
        (Part::Sum, _) => out.push_str("_sum"),
        (Part::Count, _) => out.push_str("_count"),
        _ => {}
    }
    let quantile = match sample.part {
        Part::Quantile(q) => Some(("quantile", q.label())),
        _ => None,
    };
    let labels = sample
        .labels
        .iter()
        .map(|(name, value)| (*name, value.as_str()))
        .chain(quantile);
    let mut first = true;
    for (name, value) in labels {
        out.push(if first { '{' } else { ',' });
        first = false;
        let _ = write!(out, "{name}=\"{}\"", escape_label(value));
    }
    if !first {
        out.push('}');
    }
    out.push(' ');
    write_value(out, sample.value, sample.part == Part::Count, format);
    out.push('\n');
}

/// A value as both formats read it: integers without a fraction, other
/// numbers in Rust's shortest round-trip form (never an exponent).
fn write_value(out: &mut String, value: f64, count: bool, format: Format) {
    if count && format == Format::OpenMetrics {
        // OpenMetrics wants a summary's count as an integer.
        let _ = write!(out, "{}", value.round().max(0.0) as u64);
    } else if value == value.trunc() && value.abs() < 1e15 {
        let _ = write!(out, "{}", value as i64);
    } else {
        let _ = write!(out, "{value}");
    }
}

/// Escapes a label value: backslash, double quote and line feed.
pub fn escape_label(value: &str) -> String {
    let mut escaped = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => escaped.push_str("\\\\"),
            '"' => escaped.push_str("\\\""),
            '\n' => escaped.push_str("\\n"),
            c => escaped.push(c),
        }
    }
    escaped
}

fn escape_help(text: &str) -> String {
    text.replace('\\', "\\\\").replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gauge(family: Family, target: &str, value: f64) -> Sample {
        Sample {
            family,
            labels: vec![("target", target.to_string())],
            part: Part::Value,
            value,
        }
    }

    #[test]
    fn names_follow_the_naming_guide() {
        for family in Family::ALL {
            let name = family.name();
            assert!(
                name.starts_with("dualperf_") || name.starts_with("process_"),
                "{name}"
            );
            assert!(name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'));
            assert!(name.ends_with(family.unit()), "{name} and its unit");
            for reserved in ["_total", "_count", "_sum", "_bucket", "_created", "_info"] {
                assert!(!name.ends_with(reserved), "{name} ends with {reserved}");
            }
            for abbreviation in ["_ms", "_ns", "_bps", "_kb", "_mb", "_percent"] {
                assert!(!name.contains(abbreviation), "{name}: base units only");
            }
            assert!(!family.help().contains('"') && !family.help().contains('\\'));
        }
    }

    #[test]
    fn openmetrics_has_units_and_eof_and_the_text_format_has_neither() {
        let samples = vec![
            gauge(Family::LastRunSuccess, "b", 1.0),
            gauge(Family::LastRunTimestamp, "a", 1_795_298_400.5),
            gauge(Family::Runs, "a", 3.0),
        ];
        let om = encode(&samples, Format::OpenMetrics);
        assert_eq!(
            om,
            "# TYPE dualperf_last_run_timestamp_seconds gauge\n\
             # UNIT dualperf_last_run_timestamp_seconds seconds\n\
             # HELP dualperf_last_run_timestamp_seconds When the target's last comparison ended, seconds since the Unix epoch.\n\
             dualperf_last_run_timestamp_seconds{target=\"a\"} 1795298400.5\n\
             # TYPE dualperf_last_run_success gauge\n\
             # HELP dualperf_last_run_success 1 when every trial of the target's last comparison succeeded, else 0.\n\
             dualperf_last_run_success{target=\"b\"} 1\n\
             # TYPE dualperf_runs counter\n\
             # HELP dualperf_runs Comparisons run against the target since the exporter started, by result (success: every trial succeeded).\n\
             dualperf_runs_total{target=\"a\"} 3\n\
             # EOF\n"
        );
        let text = encode(&samples, Format::PrometheusText);
        assert!(
            text.contains("# TYPE dualperf_runs_total counter\n"),
            "{text}"
        );
        assert!(
            !text.contains("# UNIT") && !text.contains("# EOF"),
            "{text}"
        );
    }

    #[test]
    fn a_summary_keeps_its_parts_together_and_counts_are_integers() {
        let labels: Labels = vec![("target", "a".into())];
        let part = |part, value| Sample {
            family: Family::Rtt,
            labels: labels.clone(),
            part,
            value,
        };
        let samples = vec![
            part(Part::Count, 30.0),
            part(Part::Quantile(Quantile::P50), 0.000_05),
            part(Part::Sum, 0.0015),
            part(Part::Quantile(Quantile::Min), 0.000_04),
        ];
        let om = encode(&samples, Format::OpenMetrics);
        let lines: Vec<&str> = om.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(
            lines,
            [
                "dualperf_rtt_seconds{target=\"a\",quantile=\"0\"} 0.00004",
                "dualperf_rtt_seconds{target=\"a\",quantile=\"0.5\"} 0.00005",
                "dualperf_rtt_seconds_sum{target=\"a\"} 0.0015",
                "dualperf_rtt_seconds_count{target=\"a\"} 30",
            ]
        );
    }

    #[test]
    fn label_values_are_escaped_and_non_finite_values_skipped() {
        let samples = vec![
            gauge(Family::LastRunSuccess, "a\"b\\c\nd", 0.0),
            gauge(Family::LastRunSuccess, "nan", f64::NAN),
        ];
        let text = encode(&samples, Format::PrometheusText);
        assert!(
            text.contains("dualperf_last_run_success{target=\"a\\\"b\\\\c\\nd\"} 0\n"),
            "{text}"
        );
        assert!(!text.contains("nan"), "{text}");
        assert_eq!(encode(&[], Format::OpenMetrics), "# EOF\n");
    }

    #[test]
    fn duplicates_keep_the_first_sample() {
        let samples = vec![
            gauge(Family::LastRunSuccess, "a", 1.0),
            gauge(Family::LastRunSuccess, "a", 0.0),
        ];
        let text = encode(&samples, Format::PrometheusText);
        assert!(text.contains("{target=\"a\"} 1\n") && !text.contains("} 0\n"));
    }

    #[test]
    fn prometheus_gets_openmetrics_and_curl_gets_text() {
        let prometheus = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
        assert_eq!(Format::negotiate(Some(prometheus)), Format::OpenMetrics);
        assert_eq!(Format::negotiate(Some("*/*")), Format::PrometheusText);
        assert_eq!(Format::negotiate(None), Format::PrometheusText);
        assert_eq!(
            Format::negotiate(Some("application/openmetrics-text; q=0")),
            Format::PrometheusText
        );
    }
}
