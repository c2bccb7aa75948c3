//! The visual vocabulary of every chart: IPv4 solid blue with circles, IPv6
//! dashed vermillion with triangles (the papers drew IPv6 dotted), Okabe–Ito
//! colours that survive colour blindness and grey-scale printing.

use dualperf_model::IpFamily;
use plotters::style::{Color, IntoFont};
use plotters::style::{FontFamily, RGBColor, ShapeStyle, TextStyle, BLACK};

use crate::charts::line::Marker;

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

/// Colour, dash and marker of a family's series.
pub(crate) fn family(family: IpFamily) -> (RGBColor, bool, Marker) {
    match family {
        IpFamily::V4 => (IPV4, false, Marker::Circle),
        IpFamily::V6 => (IPV6, true, Marker::Triangle),
    }
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
