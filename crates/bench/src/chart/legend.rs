//! The parts every chart shares above its plot: title, subtitle and legend.

use super::svg::{text_width, Anchor, Svg, TextStyle};
use super::theme::*;

/// What a legend swatch looks like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Swatch {
    Dot,
    Line,
    Box,
}

/// One legend entry.
#[derive(Clone, Debug)]
pub(crate) struct LegendItem {
    pub name: String,
    pub color: String,
    pub swatch: Swatch,
}

const SWATCH_W: f64 = 16.0;
const SWATCH_GAP: f64 = 6.0;
const ITEM_GAP: f64 = 18.0;
const ROW_H: f64 = 18.0;

/// Placed legend entries: (x, baseline y) of each item.
#[derive(Clone, Debug, Default)]
pub(crate) struct Legend {
    items: Vec<(LegendItem, f64, f64)>,
    pub height: f64,
}

impl Legend {
    /// Lays out `items` in rows starting at `(x0, top)`, wrapping at `x1`.
    pub fn place(items: Vec<LegendItem>, x0: f64, x1: f64, top: f64) -> Legend {
        if items.is_empty() {
            return Legend::default();
        }
        let mut placed = Vec::with_capacity(items.len());
        let (mut x, mut row) = (x0, 0usize);
        for item in items {
            let w = SWATCH_W + SWATCH_GAP + text_width(&item.name, LEGEND_SIZE);
            if x > x0 && x + w > x1 {
                x = x0;
                row += 1;
            }
            let baseline = top + row as f64 * ROW_H + LEGEND_SIZE;
            placed.push((item, x, baseline));
            x += w + ITEM_GAP;
        }
        Legend {
            items: placed,
            height: (row + 1) as f64 * ROW_H,
        }
    }

    pub fn draw(&self, svg: &mut Svg) {
        if self.items.is_empty() {
            return;
        }
        svg.group(&[("class", "legend")]);
        for (item, x, y) in &self.items {
            let cy = y - LEGEND_SIZE * 0.35;
            let c = item.color.as_str();
            match item.swatch {
                Swatch::Dot => svg.circle(x + SWATCH_W / 2.0, cy, 4.0, &[("fill", c)]),
                Swatch::Line => svg.line(
                    *x,
                    cy,
                    x + SWATCH_W,
                    cy,
                    &[("stroke", c), ("stroke-width", "3")],
                ),
                Swatch::Box => svg.rect(*x + 2.0, cy - 6.0, 12.0, 12.0, &[("fill", c)]),
            }
            let style = TextStyle {
                size: LEGEND_SIZE,
                anchor: Anchor::Start,
                bold: false,
                fill: TEXT,
            };
            svg.text(x + SWATCH_W + SWATCH_GAP, *y, style, &item.name);
        }
        svg.end_group();
    }
}

/// Height taken by the title and optional subtitle, starting at the top of the image.
pub(crate) fn heading_height(subtitle: Option<&str>, warning: Option<&str>) -> f64 {
    let line = SUBTITLE_SIZE + 6.0;
    PAD + TITLE_SIZE
        + 4.0
        + if subtitle.is_some() { line } else { 0.0 }
        + if warning.is_some() { line } else { 0.0 }
        + 8.0
}

/// Draws the title (bold, left), the subtitle (grey, below it) and a warning (red, below
/// that: a deviation from the methodology a reader must see on the chart itself) at x.
pub(crate) fn draw_heading(
    svg: &mut Svg,
    x: f64,
    title: &str,
    subtitle: Option<&str>,
    warning: Option<&str>,
) {
    let mut y = PAD + TITLE_SIZE;
    let style = TextStyle {
        size: TITLE_SIZE,
        anchor: Anchor::Start,
        bold: true,
        fill: TEXT,
    };
    svg.text(x, y, style, title);
    for (text, fill, bold) in [(subtitle, MUTED, false), (warning, WARNING, true)] {
        if let Some(text) = text {
            y += SUBTITLE_SIZE + 6.0;
            let style = TextStyle {
                size: SUBTITLE_SIZE,
                anchor: Anchor::Start,
                bold,
                fill,
            };
            svg.text(x, y, style, text);
        }
    }
}
