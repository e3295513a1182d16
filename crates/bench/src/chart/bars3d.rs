//! A 3D bar chart: a value for each pair of two categories (the SNIA PTS IOPS table's block
//! size by read/write mix), drawn as boxes on a floor in oblique projection. The rows go back
//! in depth, each in the colour the caller gives it; every bar says its categories and value
//! on hover.

use super::axis::{Axis, Tick};
use super::format::{format_grouped, NumberFormat};
use super::legend::Heading;
use super::svg::{text_width, Anchor, Svg, TextStyle};
use super::theme::*;

/// Bars over `columns` (left to right) by `rows` (front to back).
#[derive(Clone, Debug)]
pub struct Bars3D {
    title: String,
    warning: Option<String>,
    column_label: String,
    row_label: String,
    value_label: String,
    columns: Vec<String>,
    rows: Vec<String>,
    colors: Vec<String>,
    /// `values[row][column]`; NaN: no bar.
    values: Vec<Vec<f64>>,
    format: NumberFormat,
}

/// A column's width on the floor, the share of it a bar takes, and the floor's depth per
/// row as a share of the column width (oblique projection at about 35 degrees).
const COLUMN_W: f64 = 56.0;
const BAR_SHARE: f64 = 0.6;
/// Between a cell's edge and its bar, in both directions: the bar centred in its cell.
const BAR_GAP: f64 = (1.0 - BAR_SHARE) / 2.0;
const DEPTH_X: f64 = 0.55;
const DEPTH_Y: f64 = 0.38;
const PLOT_H: f64 = 240.0;

impl Bars3D {
    pub fn new(title: &str, column_label: &str, row_label: &str, value_label: &str) -> Bars3D {
        Bars3D {
            title: title.into(),
            warning: None,
            column_label: column_label.into(),
            row_label: row_label.into(),
            value_label: value_label.into(),
            columns: Vec::new(),
            rows: Vec::new(),
            colors: Vec::new(),
            values: Vec::new(),
            format: NumberFormat::Si,
        }
    }

    /// A warning line in red under the title.
    pub fn warning(mut self, text: Option<&str>) -> Bars3D {
        self.warning = text.map(str::to_string);
        self
    }

    pub fn columns(mut self, names: &[String]) -> Bars3D {
        self.columns = names.to_vec();
        self
    }

    /// A row of values in `color`, one per column (NaN: none), from the front back.
    pub fn row(mut self, name: &str, color: &str, values: &[f64]) -> Bars3D {
        self.rows.push(name.into());
        self.colors.push(color.into());
        self.values.push(values.to_vec());
        self
    }

    pub fn to_svg(&self) -> String {
        let (nx, nz) = (self.columns.len().max(1), self.rows.len().max(1));
        let (dx, dy) = (COLUMN_W * DEPTH_X, COLUMN_W * DEPTH_Y);
        let row_names_w = self
            .rows
            .iter()
            .chain([&self.row_label])
            .map(|r| text_width(r, TICK_SIZE))
            .fold(0.0, f64::max);
        let ticks_w = 48.0;
        let left = PAD + LABEL_SIZE + 8.0 + ticks_w;
        let floor_w = nx as f64 * COLUMN_W;
        let width = left + floor_w + nz as f64 * dx + 10.0 + row_names_w + PAD;
        let heading = Heading::new(&self.title, None, self.warning.as_deref(), width);
        let head = heading.height();
        let top = head + 8.0;
        // The front row's floor line; the back row's is nz * dy above it.
        let floor = top + nz as f64 * dy + PLOT_H;
        let height = floor + 8.0 + TICK_SIZE + 10.0 + LABEL_SIZE + PAD;

        let finite = self.values.iter().flatten().filter(|v| v.is_finite());
        let max = finite.fold(0.0, |m: f64, &v| m.max(v));
        let (_, hi, ticks) = Axis::linear(&self.value_label)
            .format(self.format)
            .resolve(Some((0.0, max.max(1.0))), 5);
        let h = |v: f64| (v.max(0.0) / hi).min(1.0) * PLOT_H;
        // Where a point of the floor at column position x (0..nx) and depth z (0..nz) lands.
        let at = |x: f64, z: f64| (left + x * COLUMN_W + z * dx, floor - z * dy);

        let mut svg = Svg::new(width, height, &self.title);
        heading.draw(&mut svg, PAD);

        let zf = nz as f64;
        let (f0, f1, b1, b0) = (
            at(0.0, 0.0),
            at(nx as f64, 0.0),
            at(nx as f64, zf),
            at(0.0, zf),
        );
        draw_walls(&mut svg, [f0, f1, b1, b0], &ticks, &h);

        self.draw_value_axis(&mut svg, &ticks, f0, &h);

        // Bars from the back row forward, each row left to right: nearer faces cover farther.
        let bar_w = COLUMN_W * BAR_SHARE;
        let (bdx, bdy) = (dx * BAR_SHARE, dy * BAR_SHARE);
        for (z, (row, values)) in self.rows.iter().zip(&self.values).enumerate().rev() {
            let color = self.colors[z].as_str();
            svg.group(&[("class", "boxes")]);
            for (x, (column, &v)) in self.columns.iter().zip(values).enumerate() {
                if !v.is_finite() {
                    continue;
                }
                let (x0, y0) = at(x as f64 + BAR_GAP, z as f64 + BAR_GAP);
                let y1 = y0 - h(v);
                svg.group(&[("class", "box")]);
                svg.tooltip(&format!(
                    "{} {column}, {} {row}: {} {}",
                    self.column_label,
                    self.row_label,
                    format_grouped(v, 0),
                    self.value_label
                ));
                draw_prism(&mut svg, (x0, y0), y1, (bar_w, bdx, bdy), color);
                svg.end_group();
            }
            svg.end_group();
            // The row's name past the floor's right edge, in its colour.
            let (rx, ry) = at(nx as f64, z as f64 + 0.5);
            let style = TextStyle {
                size: TICK_SIZE,
                anchor: Anchor::Start,
                bold: true,
                fill: color,
            };
            svg.text(rx + 8.0, ry + TICK_SIZE * 0.35, style, row);
        }
        let (rx, ry) = at(nx as f64, zf);
        svg.text(rx + 8.0, ry - 6.0, tick(Anchor::Start), &self.row_label);

        // Column names under the front edge, and the axis label under them.
        for (x, column) in self.columns.iter().enumerate() {
            let (cx, cy) = at(x as f64 + 0.5, 0.0);
            svg.text(cx, cy + 8.0 + TICK_SIZE, tick(Anchor::Middle), column);
        }
        let label = TextStyle {
            size: LABEL_SIZE,
            anchor: Anchor::Middle,
            bold: false,
            fill: TEXT,
        };
        svg.text((f0.0 + f1.0) / 2.0, height - PAD, label, &self.column_label);
        svg.finish()
    }

    /// The value's ticks on the left wall's front edge (at `f0`), and its label beside them.
    fn draw_value_axis(
        &self,
        svg: &mut Svg,
        ticks: &[Tick],
        f0: (f64, f64),
        h: &dyn Fn(f64) -> f64,
    ) {
        for t in ticks {
            if let Some(label) = &t.label {
                let y = f0.1 - h(t.value) + TICK_SIZE * 0.35;
                svg.text(f0.0 - 6.0, y, tick(Anchor::End), label);
            }
        }
        let label = TextStyle {
            size: LABEL_SIZE,
            anchor: Anchor::Middle,
            bold: false,
            fill: TEXT,
        };
        let mid = f0.1 - PLOT_H / 2.0;
        let rotate = format!("rotate(-90 {} {})", PAD + LABEL_SIZE, super::svg::num(mid));
        svg.text_with(
            PAD + LABEL_SIZE,
            mid,
            label,
            &[("transform", &rotate)],
            &self.value_label,
        );
    }
}

/// The floor (corners front-left, front-right, back-right, back-left), the back wall and the
/// left wall, with the value's gridlines on the walls.
fn draw_walls(
    svg: &mut Svg,
    [f0, f1, b1, b0]: [(f64, f64); 4],
    ticks: &[Tick],
    h: &dyn Fn(f64) -> f64,
) {
    let frame = [("fill", "none"), ("stroke", FRAME)];
    svg.path(
        &poly(&[f0, f1, b1, b0]),
        &[("fill", "#f7f7f7"), ("stroke", FRAME)],
    );
    svg.group(&[("class", "grid")]);
    let tick_values: Vec<f64> = ticks.iter().map(|t| t.value).collect();
    for &v in tick_values.iter().filter(|&&v| v > 0.0) {
        let y = h(v);
        svg.line(b0.0, b0.1 - y, b1.0, b1.1 - y, &[("stroke", GRID)]);
        svg.line(f0.0, f0.1 - y, b0.0, b0.1 - y, &[("stroke", GRID)]);
    }
    svg.end_group();
    svg.path(
        &poly(&[b0, b1, (b1.0, b1.1 - PLOT_H), (b0.0, b0.1 - PLOT_H)]),
        &frame,
    );
    svg.path(
        &poly(&[f0, b0, (b0.0, b0.1 - PLOT_H), (f0.0, f0.1 - PLOT_H)]),
        &frame,
    );
}

/// An SVG path through `pts`, closed.
fn poly(pts: &[(f64, f64)]) -> String {
    let mut d = String::new();
    for (i, (x, y)) in pts.iter().enumerate() {
        d.push_str(if i == 0 { "M" } else { " L" });
        d.push_str(&format!("{} {}", super::svg::num(*x), super::svg::num(*y)));
    }
    d + " Z"
}

/// One box: its front face from (x0, y0) up to y1, `bar_w` wide, its side and lid going
/// `bdx`, `bdy` into the depth.
fn draw_prism(
    svg: &mut Svg,
    (x0, y0): (f64, f64),
    y1: f64,
    (bar_w, bdx, bdy): (f64, f64, f64),
    color: &str,
) {
    let face = [("stroke", "#ffffff"), ("stroke-width", "0.5")];
    let front = poly(&[(x0, y0), (x0 + bar_w, y0), (x0 + bar_w, y1), (x0, y1)]);
    svg.path(&front, &[&[("fill", color)][..], &face].concat());
    let side = poly(&[
        (x0 + bar_w, y0),
        (x0 + bar_w + bdx, y0 - bdy),
        (x0 + bar_w + bdx, y1 - bdy),
        (x0 + bar_w, y1),
    ]);
    // The side in shadow, the lid in light: the colour under a grey veil.
    svg.path(&side, &[&[("fill", color)][..], &face].concat());
    svg.path(&side, &[("fill", "#000000"), ("fill-opacity", "0.25")]);
    let lid = poly(&[
        (x0, y1),
        (x0 + bar_w, y1),
        (x0 + bar_w + bdx, y1 - bdy),
        (x0 + bdx, y1 - bdy),
    ]);
    svg.path(&lid, &[&[("fill", color)][..], &face].concat());
    svg.path(&lid, &[("fill", "#ffffff"), ("fill-opacity", "0.35")]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart() -> Bars3D {
        Bars3D::new("IOPS", "Block size", "R/W mix", "IOPS")
            .columns(&["4 KiB".into(), "8 KiB".into(), "<b>".into()])
            .row("0/100", "#000000", &[1000.0, 500.0, f64::NAN])
            .row("100/0", "#0072B2", &[90_000.0, 45_000.0, 2.0])
    }

    #[test]
    fn every_bar_says_its_categories_and_value_on_hover() {
        let svg = chart().to_svg();
        assert!(svg.contains("<title>Block size 4 KiB, R/W mix 100/0: 90,000 IOPS</title>"));
        assert!(svg.contains("<title>Block size 8 KiB, R/W mix 0/100: 500 IOPS</title>"));
        // Five bars: the missing value draws none.
        assert_eq!(svg.matches("class=\"box\"").count(), 5);
        // Names are escaped.
        assert!(svg.contains("&lt;b&gt;") && !svg.contains("<b>"));
    }

    #[test]
    fn the_same_input_gives_the_same_bytes_and_taller_bars_for_larger_values() {
        let (a, b) = (chart().to_svg(), chart().to_svg());
        assert_eq!(a, b);
        // A bar's front face is its first path: its height is the value's share of the axis.
        let front_height = |tip: &str| {
            let at = a.find(tip).unwrap();
            let d = &a[at..];
            let d = &d[d.find("d=\"M").unwrap() + 4..];
            let nums: Vec<f64> = d[..d.find(" Z").unwrap()]
                .split([' ', 'L'])
                .filter(|s| !s.is_empty())
                .map(|s| s.parse().unwrap())
                .collect();
            nums[1] - nums[5]
        };
        let big = front_height("4 KiB, R/W mix 100/0");
        let half = front_height("8 KiB, R/W mix 100/0");
        assert!(big > 100.0, "{big}");
        assert!((half / big - 0.5).abs() < 0.01, "{half} against {big}");
    }
}
