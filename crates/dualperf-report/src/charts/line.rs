//! The one plotting routine every figure uses: lines with markers and 95 %
//! CI error bars over a linear or logarithmic x axis, drawn by `plotters`
//! into an SVG string. Figures differ only in the [`LineChart`] they build.
//!
//! The legend never sits on the plot: it is drawn in a strip below the
//! chart (one or more columns, as many rows as it needs), outside the plot
//! area by construction, and the SVG grows by the strip's height.

use plotters::coord::ranged1d::{AsRangedCoord, Ranged, ValueFormatter};
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use crate::charts::style;
pub(crate) use crate::charts::style::Marker;
use crate::error::ReportError;
use crate::present::axis::{size_tick, tick, tick_with_step};

/// One point; `ci` is the 95 % confidence interval drawn as an error bar.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ChartPoint {
    pub x: f64,
    pub y: f64,
    pub ci: Option<(f64, f64)>,
}

impl ChartPoint {
    pub(crate) fn new(x: f64, y: f64) -> Self {
        ChartPoint { x, y, ci: None }
    }
}

/// How an axis labels its ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ticks {
    /// Message sizes: `64`, `1 Ki`, `64 Ki`.
    Size,
    /// Numbers with just enough decimals for neighbouring ticks to differ.
    Number,
    /// Positions 0, 1, … that stand for the series, each labelled with its
    /// series' name (arms side by side at one size).
    Series,
    /// No labels: positions that stand for series the legend names (when
    /// the names would not fit under their positions).
    Hidden,
}

/// Labels drawn along each axis (plotters picks round values near these counts).
const X_LABELS: usize = 8;
const Y_LABELS: usize = 7;

/// The label of tick `value` on an axis from `low` to `high` with about
/// `count` labels; on a log axis the ticks are key points (1, 2, 5 × 10ⁿ)
/// and keep three significant digits.
fn label(ticks: Ticks, value: f64, (low, high): (f64, f64), count: usize, log: bool) -> String {
    match ticks {
        Ticks::Size => size_tick(value),
        Ticks::Number if log => tick(value),
        Ticks::Number => tick_with_step(value, nice_step((high - low) / count as f64)),
        // Drawn by the chart, which knows the series' names.
        Ticks::Series | Ticks::Hidden => String::new(),
    }
}

/// Whether `names` fit under their positions across a plot `plot_width`
/// pixels wide (15 px tick text: about 8.5 px per character, with a gap).
pub(crate) fn names_fit(names: &[&str], plot_width: u32) -> bool {
    let widest = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let per_position = f64::from(plot_width) / names.len().max(1) as f64;
    (widest as f64 * 8.5 + 12.0) <= per_position
}

/// The name of the series at position `x` (0, 1, …) of a [`Ticks::Series`]
/// axis; empty between positions.
fn series_tick(series: &[Series], x: f64) -> String {
    let position = x.round();
    if (x - position).abs() > 1e-6 || position < 0.0 {
        return String::new();
    }
    series
        .get(position as usize)
        .map(|one| one.label.clone())
        .unwrap_or_default()
}

/// The round step (1, 2 or 5 × 10ⁿ) at or below `raw`, as plotters uses.
fn nice_step(raw: f64) -> f64 {
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let power = 10f64.powf(raw.log10().floor());
    let mantissa = raw / power;
    let nice = if mantissa >= 5.0 {
        5.0
    } else if mantissa >= 2.0 {
        2.0
    } else {
        1.0
    };
    nice * power
}

/// One line of a chart; an empty label keeps it out of the legend.
#[derive(Clone, Debug)]
pub(crate) struct Series {
    pub label: String,
    pub color: RGBColor,
    pub dashed: bool,
    pub marker: Marker,
    pub points: Vec<ChartPoint>,
}

/// Everything one chart needs.
#[derive(Clone, Debug)]
pub(crate) struct LineChart {
    /// Used in error messages only (the HTML puts the title around the SVG).
    pub name: String,
    pub x_label: String,
    pub y_label: String,
    /// Logarithmic x axis with these key points (message sizes), else linear.
    pub x_log_ticks: Option<Vec<f64>>,
    /// How x ticks are labelled.
    pub x_ticks: Ticks,
    /// How y ticks are labelled.
    pub y_ticks: Ticks,
    /// Start a linear x axis at zero (time since the start) rather than at the data.
    pub x_from_zero: bool,
    /// Start the y axis at zero (throughput, RTT) rather than at the data.
    pub y_from_zero: bool,
    /// Draw a horizontal line at y = 0 (differences).
    pub zero_line: bool,
    /// Width and height of the chart without its legend strip, pixels.
    pub size: (u32, u32),
    pub series: Vec<Series>,
    /// x positions marked by a thin dotted vertical line (where one
    /// repetition ends and the next begins in a chained time series).
    pub x_marks: Vec<f64>,
}

impl LineChart {
    /// True when no series has a point: the caller shows a note instead.
    pub(crate) fn is_empty(&self) -> bool {
        self.series.iter().all(|s| s.points.is_empty())
    }

    fn bounds(&self) -> ((f64, f64), (f64, f64)) {
        let points = self.series.iter().flat_map(|s| s.points.iter());
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for p in points {
            let (low, high) = p.ci.unwrap_or((p.y, p.y));
            x0 = x0.min(p.x);
            x1 = x1.max(p.x);
            y0 = y0.min(p.y.min(low));
            y1 = y1.max(p.y.max(high));
        }
        if self.y_from_zero {
            y0 = y0.min(0.0);
        }
        if self.zero_line {
            y0 = y0.min(0.0);
            y1 = y1.max(0.0);
        }
        let span = if y1 > y0 { y1 - y0 } else { y1.abs().max(1.0) };
        let y_low = if self.y_from_zero && y0 >= 0.0 {
            0.0
        } else {
            y0 - span * 0.08
        };
        let y_high = y1 + span * 0.12;
        if self.x_from_zero && self.x_log_ticks.is_none() {
            x0 = x0.min(0.0);
        }
        let x = match &self.x_log_ticks {
            Some(_) => (x0 / 1.4, x1 * 1.4),
            // Positions of arms: half a step of room on either side.
            None if matches!(self.x_ticks, Ticks::Series | Ticks::Hidden) => (x0 - 0.5, x1 + 0.5),
            None if x1 > x0 => (x0, x1),
            None => (x0 - 1.0, x1 + 1.0),
        };
        (x, (y_low, y_high))
    }
}

/// Draws `chart` as an SVG document.
///
/// # Errors
/// [`ReportError::Chart`] when plotters fails (it names the chart).
pub(crate) fn render(chart: &LineChart) -> Result<String, ReportError> {
    let ((x0, x1), y) = chart.bounds();
    // plotters loops forever on an axis whose span is not finite (a value
    // near f64::MAX in a crafted result): such a chart is an error that
    // names it, not a hang.
    if ![x0, x1, y.0, y.1, x1 - x0, y.1 - y.0]
        .iter()
        .all(|v| v.is_finite())
    {
        return Err(ReportError::Chart {
            chart: chart.name.clone(),
            message: "values too large to draw (the axis span is not finite)".into(),
        });
    }
    match &chart.x_log_ticks {
        Some(ticks) => draw(
            chart,
            (x0..x1).log_scale().with_key_points(ticks.clone()),
            y,
        ),
        None => draw(chart, x0..x1, y),
    }
}

fn draw<X>(chart: &LineChart, x_range: X, (y0, y1): (f64, f64)) -> Result<String, ReportError>
where
    X: AsRangedCoord<Value = f64>,
    X::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let fail = |error: &dyn std::fmt::Display| ReportError::Chart {
        chart: chart.name.clone(),
        message: error.to_string(),
    };
    let mut svg = String::new();
    {
        let legend = LegendLayout::of(chart);
        let (width, height) = chart.size;
        let root =
            SVGBackend::with_string(&mut svg, (width, height + legend.height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| fail(&e))?;
        let (upper, lower) = root.split_vertically(height);
        let mut plot = ChartBuilder::on(&upper)
            .margin_top(12)
            .margin_right(22)
            .margin_left(8)
            .margin_bottom(6)
            .x_label_area_size(52)
            .y_label_area_size(78)
            .build_cartesian_2d(x_range, y0..y1)
            .map_err(|e| fail(&e))?;
        let (x_ticks, y_ticks) = (chart.x_ticks, chart.y_ticks);
        let x_log = chart.x_log_ticks.is_some();
        let (x_low, x_high) = (plot.x_range().start, plot.x_range().end);
        plot.configure_mesh()
            .x_desc(chart.x_label.as_str())
            .y_desc(chart.y_label.as_str())
            .x_label_formatter(&|x| match x_ticks {
                Ticks::Series => series_tick(&chart.series, *x),
                _ => label(x_ticks, *x, (x_low, x_high), X_LABELS, x_log),
            })
            .y_label_formatter(&|y| label(y_ticks, *y, (y0, y1), Y_LABELS, false))
            .y_labels(Y_LABELS)
            .max_light_lines(1)
            .x_labels(X_LABELS)
            .label_style(style::tick_font())
            .axis_desc_style(style::axis_font())
            .light_line_style(style::GRID_LIGHT)
            .bold_line_style(style::GRID_BOLD)
            .draw()
            .map_err(|e| fail(&e))?;
        if chart.zero_line {
            let (x_low, x_high) = (plot.x_range().start, plot.x_range().end);
            plot.draw_series(LineSeries::new(
                [(x_low, 0.0), (x_high, 0.0)],
                style::AXIS.stroke_width(1),
            ))
            .map_err(|e| fail(&e))?;
        }
        for &x in &chart.x_marks {
            plot.draw_series(DashedLineSeries::new(
                [(x, y0), (x, y1)],
                2,
                3,
                style::AXIS.stroke_width(1),
            ))
            .map_err(|e| fail(&e))?;
        }
        for series in &chart.series {
            draw_series(&mut plot, series).map_err(|e| fail(&e))?;
        }
        draw_legend(&lower, chart, &legend).map_err(|e| fail(&e))?;
        root.present().map_err(|e| fail(&e))?;
    }
    Ok(svg)
}

type Plot<'a, X> =
    ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, plotters::coord::types::RangedCoordf64>>;

fn draw_series<'a, X>(
    plot: &mut Plot<'a, X>,
    series: &Series,
) -> Result<(), DrawingAreaErrorKind<std::io::Error>>
where
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let color = series.color;
    let line = color.stroke_width(2);
    let points: Vec<(f64, f64)> = series.points.iter().map(|p| (p.x, p.y)).collect();
    let marker = series.marker;
    if series.dashed {
        plot.draw_series(DashedLineSeries::new(points.clone(), 7, 4, line))?;
    } else {
        plot.draw_series(LineSeries::new(points.clone(), line))?;
    }
    plot.draw_series(series.points.iter().filter_map(|p| {
        p.ci.map(|(low, high)| {
            ErrorBar::new_vertical(p.x, low, p.y, high, color.stroke_width(1), 7)
        })
    }))?;
    let filled = color.filled();
    match marker {
        Marker::None => {}
        Marker::Circle => {
            plot.draw_series(points.iter().map(|&p| Circle::new(p, 4, filled)))?;
        }
        Marker::Triangle => {
            plot.draw_series(points.iter().map(|&p| TriangleMarker::new(p, 5, filled)))?;
        }
        Marker::Cross => {
            plot.draw_series(
                points
                    .iter()
                    .map(|&p| Cross::new(p, 4, color.stroke_width(2))),
            )?;
        }
    }
    Ok(())
}

/// Height of one legend row, pixels.
const LEGEND_ROW: u32 = 22;
/// Space above and below the legend rows, pixels.
const LEGEND_PADDING: u32 = 8;
/// Left edge of the legend, pixels (under the y axis labels).
const LEGEND_LEFT: u32 = 16;
/// Width of a legend entry's line sample and the gap after it, pixels.
const LEGEND_SAMPLE: u32 = 36;

/// Where the legend's entries go below the plot: columns as wide as the
/// longest label, as many as fit the chart's width, row after row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LegendLayout {
    /// Entries per row.
    pub columns: u32,
    /// Width of one column, pixels.
    pub column_width: u32,
    /// Height of the strip below the plot, pixels (0 without labels).
    pub height: u32,
}

impl LegendLayout {
    /// The layout of `chart`'s labelled series.
    pub(crate) fn of(chart: &LineChart) -> LegendLayout {
        let labels: Vec<&str> = chart
            .series
            .iter()
            .map(|s| s.label.as_str())
            .filter(|l| !l.is_empty())
            .collect();
        // About 8.5 px per character of the 15 px legend font.
        let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0) as u32;
        let usable = chart.size.0.saturating_sub(2 * LEGEND_LEFT).max(1);
        let column_width = (LEGEND_SAMPLE + longest * 17 / 2 + 16).min(usable);
        let columns = (usable / column_width).max(1);
        let rows = (labels.len() as u32).div_ceil(columns);
        LegendLayout {
            columns,
            column_width,
            height: if rows == 0 {
                0
            } else {
                rows * LEGEND_ROW + 2 * LEGEND_PADDING
            },
        }
    }

    /// Top-left pixel of entry `index` within the strip.
    fn position(&self, index: u32) -> (i32, i32) {
        let (row, column) = (index / self.columns, index % self.columns);
        (
            (LEGEND_LEFT + column * self.column_width) as i32,
            (LEGEND_PADDING + row * LEGEND_ROW + LEGEND_ROW / 2) as i32,
        )
    }
}

/// Draws the labelled series' line samples, markers and labels into `area`,
/// the strip below the plot.
fn draw_legend(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    chart: &LineChart,
    layout: &LegendLayout,
) -> Result<(), DrawingAreaErrorKind<std::io::Error>> {
    let font = style::legend_font().pos(plotters::style::text_anchor::Pos::new(
        plotters::style::text_anchor::HPos::Left,
        plotters::style::text_anchor::VPos::Center,
    ));
    let labelled = chart.series.iter().filter(|s| !s.label.is_empty());
    for (index, series) in labelled.enumerate() {
        let (x, y) = layout.position(index as u32);
        let line = series.color.stroke_width(2);
        if series.dashed {
            area.draw(&DashedPathElement::new(
                vec![(x, y), (x + 26, y)],
                6,
                3,
                line,
            ))?;
        } else {
            area.draw(&PathElement::new(vec![(x, y), (x + 26, y)], line))?;
        }
        let marker: Vec<(i32, i32)> = legend_marker(series.marker)
            .into_iter()
            .map(|(dx, dy)| (x + dx, y + dy))
            .collect();
        if !marker.is_empty() {
            area.draw(&Polygon::new(marker, series.color.filled()))?;
        }
        area.draw(&Text::new(
            series.label.clone(),
            (x + LEGEND_SAMPLE as i32, y),
            font.clone(),
        ))?;
    }
    Ok(())
}

/// The legend's marker as a polygon around the middle of the legend line
/// (pixel offsets), so one element type serves every marker.
fn legend_marker(marker: Marker) -> Vec<(i32, i32)> {
    match marker {
        Marker::None => Vec::new(),
        Marker::Circle => vec![
            (10, -2),
            (11, -3),
            (13, -4),
            (15, -3),
            (16, -2),
            (16, 2),
            (15, 3),
            (13, 4),
            (11, 3),
            (10, 2),
        ],
        Marker::Triangle => vec![(13, -5), (18, 3), (8, 3)],
        Marker::Cross => vec![(13, -4), (17, 0), (13, 4), (9, 0)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(labels: &[&str]) -> LineChart {
        LineChart {
            name: "test".to_string(),
            x_label: "x".to_string(),
            y_label: "y".to_string(),
            x_log_ticks: None,
            x_ticks: Ticks::Number,
            y_ticks: Ticks::Number,
            x_from_zero: true,
            y_from_zero: true,
            zero_line: false,
            size: (640, 300),
            series: labels
                .iter()
                .enumerate()
                .map(|(i, label)| Series {
                    label: (*label).to_string(),
                    color: style::arm(i).0,
                    dashed: i % 2 == 1,
                    marker: Marker::Circle,
                    points: vec![ChartPoint::new(0.0, 1.0), ChartPoint::new(1.0, 9.0)],
                })
                .collect(),
            x_marks: Vec::new(),
        }
    }

    /// The y coordinate of the `<text>` that reads `label`.
    fn text_y(svg: &str, label: &str) -> f64 {
        svg.split("<text")
            .skip(1)
            .find_map(|element| {
                let (attributes, rest) = element.split_once('>')?;
                let content = rest.split("</text>").next()?.trim();
                (content == label).then(|| {
                    let y = attributes.find(" y=\"").unwrap() + 4;
                    attributes[y..y + attributes[y..].find('"').unwrap()]
                        .parse()
                        .unwrap()
                })
            })
            .unwrap_or_else(|| panic!("no text {label}"))
    }

    #[test]
    fn the_legend_sits_below_the_plot_and_the_svg_grows_by_its_strip() {
        let labels: Vec<String> = (0..12).map(|i| format!("legend entry {i}")).collect();
        let refs: Vec<&str> = labels.iter().map(String::as_str).collect();
        let chart = chart(&refs);
        let layout = LegendLayout::of(&chart);
        assert!(layout.columns >= 2, "{layout:?}");
        assert_eq!(layout.height, 12u32.div_ceil(layout.columns) * 22 + 16);
        let svg = render(&chart).unwrap();
        assert!(
            svg.contains(&format!("height=\"{}\"", 300 + layout.height)),
            "the SVG is not taller by the legend strip"
        );
        // The plot and its axis labels fill the chart's own 300 px; every
        // legend label lies below them, inside the SVG.
        for label in &labels {
            let y = text_y(&svg, label);
            assert!(y > 300.0, "{label} at y {y} is inside the plot area");
            assert!(
                y < f64::from(300 + layout.height),
                "{label} at y {y} is outside the SVG"
            );
        }
    }

    #[test]
    fn unlabelled_series_leave_no_legend_strip() {
        let chart = chart(&["", ""]);
        assert_eq!(LegendLayout::of(&chart).height, 0);
        assert!(render(&chart).unwrap().contains("height=\"300\""));
    }

    #[test]
    fn arms_side_by_side_are_named_under_their_positions() {
        let mut chart = chart(&["IPv4", "IPv6 via 6in4"]);
        chart.x_ticks = Ticks::Series;
        chart.x_from_zero = false;
        for (position, one) in chart.series.iter_mut().enumerate() {
            one.points = vec![ChartPoint::new(position as f64, 5.0)];
        }
        let svg = render(&chart).unwrap();
        // Each name twice: under its position and in the legend.
        for name in ["IPv4", "IPv6 via 6in4"] {
            let texts = svg
                .split("<text")
                .skip(1)
                .filter(|element| {
                    element.split_once('>').is_some_and(|(_, rest)| {
                        rest.split("</text>").next().map(str::trim) == Some(name)
                    })
                })
                .count();
            assert!(texts >= 2, "{name} is not under its position: {texts}");
        }
        assert_eq!(series_tick(&chart.series, 0.5), "");
        assert_eq!(series_tick(&chart.series, 1.0), "IPv6 via 6in4");
        assert_eq!(series_tick(&chart.series, 2.0), "");
        // Fourteen long names do not fit under 532 px: the legend names them.
        assert!(names_fit(&["IPv4", "IPv6"], 532));
        assert!(!names_fit(&["IPv6, BE at 115 % × 1408 B"; 14], 532));
    }
}
