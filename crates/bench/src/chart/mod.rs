//! Charts as self-contained SVG strings, in the style of the classic SSD reviews.
//!
//! - [`XYChart`]: IO consistency scatter plots (IOPS per second, log or linear y), transfer
//!   size curves (MB/s against a log2 byte axis), MB/s against LBA position.
//! - [`BarChart`]: horizontal bars, one row per drive or test, optionally grouped
//!   (incompressible / compressible) with one row highlighted.
//! - [`Bars3D`]: a value for each pair of two categories (the SNIA PTS IOPS table's block size
//!   by read/write mix) as boxes in oblique projection.
//!
//! Output has no external fonts, stylesheets or scripts: every attribute is inline, and a
//! `viewBox` lets the chart scale. The same input gives the same bytes. All text (titles,
//! drive names, series names) is escaped by the SVG writer: no caller ever places raw markup.
//!
//! ```
//! use bench::chart::{Axis, Series, XYChart};
//! let iops: Vec<f64> = (0..2000).map(|t| if t < 300 { 80_000.0 } else { 7_000.0 }).collect();
//! let svg = XYChart::new("Drive X - 4KB Random Write (QD32)", Axis::linear("Time (s)").range(0.0, 2000.0),
//!         Axis::log10("IOPS").range(1.0, 1e6))
//!     .series(Series::dots("25% spare area", iops.iter().enumerate().map(|(t, &v)| (t as f64, v))))
//!     .to_svg();
//! assert!(svg.starts_with("<svg"));
//!
//! use bench::chart::BarChart;
//! let bars = BarChart::new("Desktop Iometer - 4KB Random Write", "MB/s")
//!     .groups(&["Incompressible", "Compressible"])
//!     .row("Samsung SSD 840 EVO 250GB", &[245.8, 250.1])
//!     .row("Crucial M500 240GB", &[120.3, 121.0])
//!     .highlight(0)
//!     .to_svg();
//! assert!(bars.contains("245.8"));
//! ```

mod axis;
mod bar;
mod bars3d;
mod format;
mod legend;
mod svg;
mod xy;

pub use axis::{linear_ticks, log10_ticks, log2_ticks, nice_step, Axis, AxisMap, Scale, Tick};
pub use bar::BarChart;
pub use bars3d::Bars3D;
pub use format::{format_grouped, format_plain, format_si, NumberFormat};
pub use svg::text_width;
pub use xy::{Layout, Rect, Series, Style, XYChart};

/// The Okabe-Ito colour-blind-safe palette, in the order series get their colours
/// (yellow last: it is faint on white).
pub const PALETTE: [&str; 8] = [
    "#0072B2", // blue
    "#D55E00", // vermillion
    "#009E73", // bluish green
    "#CC79A7", // reddish purple
    "#E69F00", // orange
    "#56B4E9", // sky blue
    "#000000", // black
    "#F0E442", // yellow
];

/// The colour of the `i`-th series or bar group.
pub fn palette(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// Shared look: font sizes and greys.
pub(crate) mod theme {
    pub const TITLE_SIZE: f64 = 16.0;
    pub const SUBTITLE_SIZE: f64 = 12.0;
    pub const LABEL_SIZE: f64 = 12.0;
    pub const TICK_SIZE: f64 = 11.0;
    pub const LEGEND_SIZE: f64 = 12.0;
    pub const TEXT: &str = "#222222";
    pub const MUTED: &str = "#555555";
    pub const WARNING: &str = "#b3261e";
    pub const GRID: &str = "#dcdcdc";
    pub const GRID_MINOR: &str = "#f0f0f0";
    pub const FRAME: &str = "#888888";
    pub const PAD: f64 = 12.0;

    use super::svg::{Anchor, TextStyle};

    /// A tick's label, small and muted, at `anchor` of its point.
    pub const fn tick(anchor: Anchor) -> TextStyle<'static> {
        TextStyle {
            size: TICK_SIZE,
            anchor,
            bold: false,
            fill: MUTED,
        }
    }

    /// An axis's label, centred on the axis.
    pub const AXIS_LABEL: TextStyle<'static> = TextStyle {
        size: LABEL_SIZE,
        anchor: Anchor::Middle,
        bold: false,
        fill: TEXT,
    };
}
