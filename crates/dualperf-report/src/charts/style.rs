//! The visual vocabulary of every chart: one series per arm, in the order
//! of the run's configuration — the first arm (native IPv4 in the classic
//! run) solid blue with circles, the second dashed vermillion with
//! triangles (the papers drew IPv6 dotted), then further Okabe–Ito colours
//! that survive colour blindness, each with its own dash and marker so that
//! grey-scale prints still tell arms apart.

use plotters::style::{Color, IntoFont};
use plotters::style::{FontFamily, RGBColor, ShapeStyle, TextStyle, BLACK};

/// Marker drawn at every point of a series.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Marker {
    None,
    Circle,
    Triangle,
    Cross,
}

/// IPv4: Okabe–Ito blue.
pub(crate) const IPV4: RGBColor = RGBColor(0, 114, 178);
/// IPv6: Okabe–Ito vermillion.
pub(crate) const IPV6: RGBColor = RGBColor(213, 94, 0);
/// TCP in charts whose series are transports: bluish green.
pub(crate) const TCP: RGBColor = RGBColor(0, 158, 115);
/// UDP in charts whose series are transports: reddish purple.
pub(crate) const UDP: RGBColor = RGBColor(204, 121, 167);
/// Axes and reference lines.
pub(crate) const AXIS: RGBColor = RGBColor(90, 90, 90);

/// Light grid lines.
pub(crate) const GRID_LIGHT: ShapeStyle = ShapeStyle {
    color: plotters::style::RGBAColor(0, 0, 0, 0.05),
    filled: false,
    stroke_width: 1,
};
/// Grid lines at labelled ticks.
pub(crate) const GRID_BOLD: ShapeStyle = ShapeStyle {
    color: plotters::style::RGBAColor(0, 0, 0, 0.18),
    filled: false,
    stroke_width: 1,
};

/// Colours of arms after the first two, Okabe–Ito, most distinct from
/// blue and vermillion first: bluish green, reddish purple, orange, black,
/// sky blue, yellow (darkened to read on white).
const MORE_ARMS: [RGBColor; 6] = [
    TCP,
    UDP,
    RGBColor(230, 159, 0),
    RGBColor(0, 0, 0),
    RGBColor(86, 180, 233),
    RGBColor(190, 170, 0),
];

/// Colour, dash and marker of the series of the arm at `index` in the
/// configuration's arm order.
pub(crate) fn arm(index: usize) -> (RGBColor, bool, Marker) {
    match index {
        0 => (IPV4, false, Marker::Circle),
        1 => (IPV6, true, Marker::Triangle),
        n => {
            let color = MORE_ARMS[(n - 2) % MORE_ARMS.len()];
            let marker = [Marker::Cross, Marker::Circle, Marker::Triangle][(n - 2) % 3];
            (color, n % 2 == 1, marker)
        }
    }
}

/// The CSS colour of the arm at `index` (for legends in the page's text).
pub(crate) fn arm_css(index: usize) -> String {
    let (RGBColor(r, g, b), _, _) = arm(index);
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// Tick labels.
pub(crate) fn tick_font() -> TextStyle<'static> {
    (FontFamily::SansSerif, 15)
        .into_font()
        .color(&AXIS.mix(1.0))
}

/// Axis titles.
pub(crate) fn axis_font() -> TextStyle<'static> {
    (FontFamily::SansSerif, 16).into_font().color(&BLACK)
}

/// Legend entries.
pub(crate) fn legend_font() -> TextStyle<'static> {
    (FontFamily::SansSerif, 15).into_font().color(&BLACK)
}
