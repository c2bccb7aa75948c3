//! The report's figures. Each builder turns a [`RunView`] into [`Figure`]s
//! (none when the run lacks the data), drawn by [`line::render`] with
//! `plotters` into inline SVG.

pub(crate) mod cdf;
pub(crate) mod line;
pub(crate) mod media;
pub(crate) mod overhead;
pub(crate) mod style;
pub(crate) mod sweep;
pub(crate) mod time_series;

use dualperf_model::{Arm, LoadCondition, LoadTable};

use crate::error::ReportError;
use crate::view::RunView;

/// Most series one chart carries: a figure over more arms becomes small
/// multiples, one chart per load level ([`arm_groups`]), so every legend
/// stays short.
pub(crate) const MAX_SERIES: usize = 8;

/// The arms one chart of a figure shows.
#[derive(Clone, Debug)]
pub(crate) struct ArmGroup<'a> {
    /// What the arms share, for the chart's title ("alone", "load 85 % of
    /// the link, 1408 B datagrams"); `None` when one chart shows every arm.
    pub title: Option<String>,
    /// Appended to the figure's id: empty for one chart, else `-1`, `-2`, ….
    pub suffix: String,
    /// The arms, in run order; a series' colour is its position here.
    pub arms: Vec<&'a Arm>,
}

impl ArmGroup<'_> {
    /// `title`, then what the group's arms share when the figure is split.
    pub(crate) fn titled(&self, title: String) -> String {
        match &self.title {
            Some(shared) => format!("{title} — {shared}"),
            None => title,
        }
    }
}

/// A level of the load factor, as the design gives it: alone, an offered
/// share of the link (the same level whichever family carries it), or a
/// load without designed levels, by name.
#[derive(Clone, Debug, PartialEq)]
enum LoadLevel {
    Alone,
    Offered(LoadTable, u32, u32),
    Named(String),
}

/// The run's arms split for drawing charts with `series_per_arm` series
/// for each arm: all in one group when they fit one chart ([`MAX_SERIES`]),
/// else one group per load level (IPv4, IPv6 and mixed under the same
/// offered load side by side), groups still too large cut into runs.
pub(crate) fn arm_groups<'a>(view: &RunView<'a>, series_per_arm: usize) -> Vec<ArmGroup<'a>> {
    let arms = view.arms();
    let most = (MAX_SERIES / series_per_arm.max(1)).max(1);
    if arms.len() <= most {
        return vec![ArmGroup {
            title: None,
            suffix: String::new(),
            arms: arms.iter().collect(),
        }];
    }
    let mut levels: Vec<(LoadLevel, String, Vec<&Arm>)> = Vec::new();
    for arm in arms {
        let (level, title) = match &arm.load {
            LoadCondition::Idle => (LoadLevel::Alone, "alone".to_string()),
            LoadCondition::Under { load } => {
                let spec = view.run.config.loads.iter().find(|l| &l.name == load);
                match spec.and_then(|s| s.offered) {
                    Some(o) => (
                        LoadLevel::Offered(o.table, o.percent, o.datagram_bytes),
                        format!(
                            "{} {} % of the link, {} B datagrams",
                            match o.table {
                                LoadTable::Class => "class load",
                                LoadTable::Step => "load step",
                            },
                            o.percent,
                            o.datagram_bytes
                        ),
                    ),
                    None => (
                        LoadLevel::Named(load.clone()),
                        spec.map_or_else(|| load.clone(), |s| s.label.clone()),
                    ),
                }
            }
        };
        match levels.iter_mut().find(|(l, _, _)| *l == level) {
            Some((_, _, group)) => group.push(arm),
            None => levels.push((level, title, vec![arm])),
        }
    }
    let mut groups = Vec::new();
    for (_, title, members) in levels {
        let parts = members.len().div_ceil(most);
        for (part, chunk) in members.chunks(most).enumerate() {
            groups.push(ArmGroup {
                title: Some(if parts > 1 {
                    format!("{title} ({} of {parts})", part + 1)
                } else {
                    title.clone()
                }),
                suffix: format!("-{}", groups.len() + 1),
                arms: chunk.to_vec(),
            });
        }
    }
    groups
}

/// One rendered chart with the words around it.
#[derive(Clone, Debug)]
pub(crate) struct Figure {
    /// HTML id, e.g. `throughput-tcp-stream`.
    pub id: String,
    /// Heading, e.g. "TCP throughput vs message size".
    pub title: String,
    /// What is drawn and how it was measured; definitions of the numbers
    /// (a maud fragment: names in it are escaped by its template).
    pub caption: maud::Markup,
    /// The SVG document.
    pub svg: String,
    /// Facts about the chart for tests and tools.
    pub facts: FigureFacts,
}

/// Facts about a chart for tests and tools, written as `data-*` attributes
/// of its `<figure>` (`series` as `data-series`, `series_points` as
/// `data-series-points` …); `None` writes no attribute.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct FigureFacts {
    /// Lines drawn.
    pub series: usize,
    /// Points of the shortest line (the browser test compares it with the
    /// points actually drawn).
    pub series_points: Option<usize>,
    /// Distributions: where the x axis ends, µs.
    pub x_max_us: Option<String>,
    /// Distributions: the largest median of the arms, µs.
    pub p50_us: Option<String>,
    /// Distributions: the largest value of any arm, µs.
    pub largest_us: Option<String>,
    /// Distributions: whether the x axis is logarithmic.
    pub x_log: Option<bool>,
}

impl FigureFacts {
    /// The facts of a chart of `series` lines, nothing else known.
    pub(crate) fn lines(series: usize) -> FigureFacts {
        FigureFacts {
            series,
            ..FigureFacts::default()
        }
    }
}

/// Ticks of a log-scale message-size axis: powers of two around the data,
/// every other one when there would be more than seven, always including
/// the one nearest the largest size (so 8192 B gets its "8 Ki").
pub(crate) fn size_ticks(sizes: &[f64]) -> Vec<f64> {
    let (low, high) = sizes
        .iter()
        .fold((f64::MAX, 0.0f64), |(l, h), &s| (l.min(s), h.max(s)));
    if high <= 0.0 {
        return vec![64.0, 1024.0, 16384.0];
    }
    let mut ticks: Vec<f64> = (0..=20)
        .map(|k| 2f64.powi(k))
        .filter(|t| *t >= low / 1.5 && *t <= high * 1.5)
        .collect();
    while ticks.len() > 7 {
        let last = ticks.len() - 1;
        ticks = ticks
            .into_iter()
            .enumerate()
            .filter(|(i, _)| (last - i).is_multiple_of(2))
            .map(|(_, t)| t)
            .collect();
    }
    ticks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_ticks_cover_the_data_with_at_most_seven_powers_of_two() {
        assert_eq!(
            size_ticks(&[64.0, 65507.0]),
            [64.0, 256.0, 1024.0, 4096.0, 16384.0, 65536.0]
        );
        assert_eq!(
            size_ticks(&[64.0, 1024.0, 8192.0]),
            [128.0, 512.0, 2048.0, 8192.0]
        );
        assert_eq!(size_ticks(&[172.0]), [128.0, 256.0]);
    }
}

/// Every figure of a run, in report order.
///
/// # Errors
/// [`ReportError::Chart`] when a chart fails to draw.
pub(crate) fn figures(view: &RunView<'_>) -> Result<Vec<(Section, Figure)>, ReportError> {
    let mut figures = Vec::new();
    for figure in sweep::throughput(view)? {
        figures.push((Section::Throughput, figure));
    }
    for figure in sweep::rtt(view)? {
        figures.push((Section::Latency, figure));
    }
    for figure in sweep::loss(view)? {
        figures.push((Section::Throughput, figure));
    }
    for figure in overhead::measured_vs_theory(view)? {
        figures.push((Section::Overhead, figure));
    }
    for figure in sweep::cpu(view)? {
        figures.push((Section::Cpu, figure));
    }
    for figure in cdf::rtt_cdfs(view)?.into_iter().chain(cdf::pdv_cdfs(view)?) {
        figures.push((Section::Distributions, figure));
    }
    for figure in time_series::goodput_over_time(view)?
        .into_iter()
        .chain(time_series::delay_over_time(view)?)
    {
        figures.push((Section::TimeSeries, figure));
    }
    Ok(figures)
}

/// The report section a figure belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Section {
    Throughput,
    Latency,
    Overhead,
    Cpu,
    Distributions,
    TimeSeries,
}
