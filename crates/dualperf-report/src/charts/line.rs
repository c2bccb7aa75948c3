//! The one plotting routine every figure uses: lines with markers and 95 %
//! CI error bars over a linear or logarithmic x axis, drawn by `plotters`
//! into an SVG string. Figures differ only in the [`LineChart`] they build.

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
    }
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

/// Where the legend goes: the corner the data leave empty.
#[derive(Clone, Copy, Debug)]
pub(crate) enum LegendCorner {
    UpperLeft,
    UpperRight,
    LowerLeft,
    LowerRight,
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
    pub legend: LegendCorner,
    pub size: (u32, u32),
    pub series: Vec<Series>,
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
        let mut y_low = if self.y_from_zero && y0 >= 0.0 {
            0.0
        } else {
            y0 - span * 0.08
        };
        let mut y_high = y1 + span * 0.12;
        // Room for the legend in its corner, so it never covers data: the
        // legend is about 20 px per entry plus 28 px of margins, out of the
        // plot area's height (chart height less axis labels and margins).
        let plot_height = f64::from(self.size.1.saturating_sub(70).max(100));
        let entries = self.series.iter().filter(|s| !s.label.is_empty()).count();
        let share = ((20.0 * entries as f64 + 28.0) / plot_height).min(0.6);
        let legend_room = (y_high - y_low) * share / (1.0 - share);
        match self.legend {
            LegendCorner::UpperLeft | LegendCorner::UpperRight => y_high += legend_room,
            LegendCorner::LowerLeft | LegendCorner::LowerRight if !self.y_from_zero => {
                y_low -= legend_room
            }
            _ => {}
        }
        if self.x_from_zero && self.x_log_ticks.is_none() {
            x0 = x0.min(0.0);
        }
        let x = match &self.x_log_ticks {
            Some(_) => (x0 / 1.4, x1 * 1.4),
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
        let root = SVGBackend::with_string(&mut svg, chart.size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| fail(&e))?;
        let mut plot = ChartBuilder::on(&root)
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
            .x_label_formatter(&|x| label(x_ticks, *x, (x_low, x_high), X_LABELS, x_log))
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
        for series in &chart.series {
            draw_series(&mut plot, series).map_err(|e| fail(&e))?;
        }
        plot.configure_series_labels()
            .position(match chart.legend {
                LegendCorner::UpperLeft => SeriesLabelPosition::UpperLeft,
                LegendCorner::UpperRight => SeriesLabelPosition::UpperRight,
                LegendCorner::LowerLeft => SeriesLabelPosition::LowerLeft,
                LegendCorner::LowerRight => SeriesLabelPosition::LowerRight,
            })
            .margin(10)
            .label_font(style::legend_font())
            .background_style(WHITE.mix(0.9))
            .border_style(style::GRID_BOLD)
            .draw()
            .map_err(|e| fail(&e))?;
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
    let label = series.label.clone();
    let dashed = series.dashed;
    let marker = series.marker;
    let annotation = if dashed {
        plot.draw_series(DashedLineSeries::new(points.clone(), 7, 4, line))?
    } else {
        plot.draw_series(LineSeries::new(points.clone(), line))?
    };
    if label.is_empty() {
        // Unlabelled: drawn, but not in the legend (the caption explains it).
    } else if dashed {
        annotation.label(label);
        annotation.legend(move |(x, y)| {
            EmptyElement::at((x, y))
                + DashedPathElement::new(vec![(0, 0), (26, 0)], 6, 3, line)
                + Polygon::new(legend_marker(marker), color.filled())
        });
    } else {
        annotation.label(label);
        annotation.legend(move |(x, y)| {
            EmptyElement::at((x, y))
                + PathElement::new(vec![(0, 0), (26, 0)], line)
                + Polygon::new(legend_marker(marker), color.filled())
        });
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
