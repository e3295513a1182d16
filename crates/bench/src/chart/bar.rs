//! Horizontal bar charts as the reviews printed them: one row per drive (or test), the
//! value written at the end of each bar, the reviewed drive highlighted.

use super::axis::{Axis, AxisMap, Tick};
use super::format::NumberFormat;
use super::legend::{Heading, Legend, LegendItem, Swatch};
use super::svg::{text_width, Anchor, Svg, TextStyle};
use super::theme::*;

/// One row: a label and one value per group (`NaN` for a missing value, shown as "n/a").
#[derive(Clone, Debug)]
pub struct BarRow {
    pub label: String,
    pub values: Vec<f64>,
    /// The row's own colour (a drive's colour kept across a page); groups then differ by
    /// shade. `None`: each group takes its palette colour.
    pub color: Option<String>,
    /// Said on hover after the value: how it was obtained, or why it is missing.
    pub note: Option<String>,
}

/// A horizontal bar chart.
#[derive(Clone, Debug)]
pub struct BarChart {
    pub title: String,
    pub subtitle: Option<String>,
    /// A line in red under the subtitle: what makes these figures deviate from the methodology.
    pub warning: Option<String>,
    /// Label of the value axis, with units ("MB/s").
    pub value_label: String,
    /// Names of the bars within a row ("Incompressible", "Compressible"); with two or more
    /// the chart gets a legend. Empty: one bar per row.
    pub groups: Vec<String>,
    pub rows: Vec<BarRow>,
    /// Index of the row drawn highlighted (the drive under review).
    pub highlight: Option<usize>,
    pub width: f64,
    /// Fixed value range; bars beyond it stop at the frame (their label keeps the value).
    pub range: Option<(f64, f64)>,
    /// Format of the value axis ticks (default `Auto`: 0, 100, 200 or 0, 25K, 50K).
    pub tick_format: NumberFormat,
    /// Format of the value written at each bar's end (default `Fixed(1)`: 250.3).
    pub value_format: NumberFormat,
    /// Written for a missing value (`NaN`) instead of a bar (default "n/a").
    pub missing_label: String,
}

/// Drive names are long ("ssdlab model of Samsung SSD 840 EVO 250GB"): up to half the width.
const MAX_LABEL_SHARE: f64 = 0.5;
const VALUE_SIZE: f64 = 11.0;
const ROW_LABEL_SIZE: f64 = 12.0;
const HIGHLIGHT_BAND: &str = "#fff1c2";
/// With rows in their own colours, the groups of a row: each bar's opacity.
const GROUP_SHADES: [f64; 3] = [1.0, 0.5, 0.25];

impl BarChart {
    /// An empty chart, 800 units wide; its height follows from the number of rows.
    pub fn new(title: &str, value_label: &str) -> BarChart {
        BarChart {
            title: title.to_string(),
            subtitle: None,
            warning: None,
            value_label: value_label.to_string(),
            groups: Vec::new(),
            rows: Vec::new(),
            highlight: None,
            width: 800.0,
            range: None,
            tick_format: NumberFormat::Auto,
            value_format: NumberFormat::Fixed(1),
            missing_label: "n/a".to_string(),
        }
    }

    /// A second line under the title.
    pub fn subtitle(mut self, text: &str) -> BarChart {
        self.subtitle = Some(text.to_string());
        self
    }

    /// A warning line in red under the subtitle.
    pub fn warning(mut self, text: Option<&str>) -> BarChart {
        self.warning = text.map(str::to_string);
        self
    }

    /// Draws row `index` in `color` (groups then differ by shade).
    pub fn row_color(mut self, index: usize, color: &str) -> BarChart {
        if let Some(r) = self.rows.get_mut(index) {
            r.color = Some(color.to_string());
        }
        self
    }

    /// Adds `note` to the hover text of row `index`'s bars (e.g. "modelled by the
    /// simulator", or why its value is missing).
    pub fn row_note(mut self, index: usize, note: &str) -> BarChart {
        if let Some(r) = self.rows.get_mut(index) {
            r.note = Some(note.to_string());
        }
        self
    }

    /// What a missing value (`NaN`) says in place of its bar (default "n/a").
    pub fn missing_label(mut self, text: &str) -> BarChart {
        self.missing_label = text.to_string();
        self
    }

    /// Names the bars of each row (grouped bars with a legend).
    pub fn groups(mut self, names: &[&str]) -> BarChart {
        self.groups = names.iter().map(|s| s.to_string()).collect();
        self
    }

    /// Adds a row.
    pub fn row(mut self, label: &str, values: &[f64]) -> BarChart {
        self.push_row(label, values);
        self
    }

    /// Adds a row to a chart held by reference; returns its index.
    pub fn push_row(&mut self, label: &str, values: &[f64]) -> usize {
        self.rows.push(BarRow {
            color: None,
            note: None,
            label: label.to_string(),
            values: values.to_vec(),
        });
        self.rows.len() - 1
    }

    /// Highlights row `index`.
    pub fn highlight(mut self, index: usize) -> BarChart {
        self.highlight = Some(index);
        self
    }

    /// Highlights the first row labelled `label`, if there is one.
    pub fn highlight_label(mut self, label: &str) -> BarChart {
        self.highlight = self.rows.iter().position(|r| r.label == label);
        self
    }

    /// Sets the width (default 800).
    pub fn width(mut self, width: f64) -> BarChart {
        self.width = width.max(300.0);
        self
    }

    /// Fixes the value range.
    pub fn range(mut self, min: f64, max: f64) -> BarChart {
        self.range = Some((min, max));
        self
    }

    /// Sets the format of the value axis ticks.
    pub fn tick_format(mut self, f: NumberFormat) -> BarChart {
        self.tick_format = f;
        self
    }

    /// Sets the format of the values written at the bar ends.
    pub fn value_format(mut self, f: NumberFormat) -> BarChart {
        self.value_format = f;
        self
    }

    fn bars_per_row(&self) -> usize {
        self.rows
            .iter()
            .map(|r| r.values.len())
            .max()
            .unwrap_or(0)
            .max(self.groups.len())
            .max(1)
    }

    fn value_text(&self, v: f64) -> String {
        if v.is_finite() {
            self.value_format.format(v)
        } else {
            self.missing_label.clone()
        }
    }

    /// With two or more groups, the legend's items.
    fn legend_items(&self) -> Vec<LegendItem> {
        if self.groups.len() <= 1 {
            return Vec::new();
        }
        self.groups
            .iter()
            .enumerate()
            .map(|(i, g)| {
                // Rows in their drive's colour: the legend shows each group's shade of
                // the first row's colour, as its bars are drawn.
                let (color, opacity) = match self.rows.iter().find_map(|r| r.color.as_ref()) {
                    Some(c) => (c.clone(), GROUP_SHADES[i % GROUP_SHADES.len()]),
                    None => (super::palette(i).to_string(), 1.0),
                };
                LegendItem {
                    name: g.clone(),
                    color,
                    opacity,
                    swatch: Swatch::Box,
                }
            })
            .collect()
    }

    /// Row `i`: its label, then one bar per group.
    fn draw_row(&self, svg: &mut Svg, at: &Rows, i: usize, label: &str) {
        let row = &self.rows[i];
        let highlighted = self.highlight == Some(i);
        let y0 = at.top + i as f64 * at.row_h + 6.0;
        let mid = y0 + (at.row_h - 12.0) / 2.0;
        svg.group(&[("class", "row")]);
        if label != row.label {
            svg.tooltip(&row.label);
        }
        let style = TextStyle {
            size: ROW_LABEL_SIZE,
            anchor: Anchor::End,
            bold: highlighted,
            fill: TEXT,
        };
        svg.text(PAD + at.label_w, mid + ROW_LABEL_SIZE * 0.35, style, label);
        for (g, &v) in row.values.iter().enumerate() {
            let by = y0 + g as f64 * (at.bar_h + 2.0);
            self.draw_bar(svg, at, row, highlighted, g, v, by);
        }
        svg.end_group();
    }

    /// Group `g`'s bar of a row at height `by`, with its value written at its end.
    #[allow(clippy::too_many_arguments)]
    fn draw_bar(
        &self,
        svg: &mut Svg,
        at: &Rows,
        row: &BarRow,
        highlighted: bool,
        g: usize,
        v: f64,
        by: f64,
    ) {
        let (color, opacity) = match &row.color {
            Some(c) => (c.as_str(), GROUP_SHADES[g % GROUP_SHADES.len()]),
            None if at.bars == 1 && highlighted => (super::palette(1), 1.0),
            None => (super::palette(g), 1.0),
        };
        let opacity = opacity.to_string();
        let end = if v.is_finite() {
            at.map.map_t(v.clamp(at.lo, at.hi))
        } else {
            at.zero
        };
        let (x, bw) = (at.zero.min(end), (end - at.zero).abs());
        // Every bar says what it is on hover (its value label too, and "n/a").
        svg.group(&[("class", "bar")]);
        svg.tooltip(&self.bar_tooltip(row, g, v, at.bars));
        if v.is_finite() {
            // At least a pixel wide, so even a zero has something to hover.
            svg.rect(
                x,
                by,
                bw.max(1.0),
                at.bar_h,
                &[("fill", color), ("fill-opacity", &opacity)],
            );
        }
        let negative = v.is_finite() && v < 0.0;
        let style = TextStyle {
            size: VALUE_SIZE,
            anchor: if negative { Anchor::End } else { Anchor::Start },
            bold: highlighted,
            fill: TEXT,
        };
        let tx = if negative { x - 4.0 } else { x + bw + 4.0 };
        svg.text(
            tx,
            by + at.bar_h / 2.0 + VALUE_SIZE * 0.35,
            style,
            &self.value_text(v),
        );
        svg.end_group();
    }

    /// What a bar says on hover: its row, its group, its value and the row's note.
    fn bar_tooltip(&self, row: &BarRow, g: usize, v: f64, bars: usize) -> String {
        // A missing value has no unit: "n/a MB/s" but "missing (the meter failed)".
        let value = match (&row.note, v.is_finite()) {
            (None, _) | (_, true) => format!("{} {}", self.value_text(v), self.value_label),
            (Some(_), false) => self.value_text(v),
        };
        let value = match &row.note {
            Some(note) => format!("{value} ({note})"),
            None => value,
        };
        match self.groups.get(g).filter(|_| bars > 1) {
            Some(group) => format!("{}, {group}: {value}", row.label),
            None => format!("{}: {value}", row.label),
        }
    }

    /// The value axis between pixels `left` and `right`: its range, ticks and map.
    fn value_axis(&self, left: f64, right: f64) -> (f64, f64, Vec<Tick>, AxisMap) {
        let mut axis = Axis::linear(&self.value_label).format(self.tick_format);
        if let Some((a, b)) = self.range {
            axis = axis.range(a, b);
        }
        let ext = self
            .rows
            .iter()
            .flat_map(|r| r.values.iter())
            .filter(|v| v.is_finite())
            .fold(None, |e: Option<(f64, f64)>, &v| {
                Some(e.map_or((v, v), |(a, b)| (a.min(v), b.max(v))))
            });
        let target = (((right - left) / 90.0).round() as usize).clamp(2, 10);
        // Fitted to the data, the longest bar reaches the end of the axis (as in the
        // reviews) instead of stopping short of a rounded-up last tick.
        if let (None, Some((a, b))) = (self.range, ext) {
            let (a, b) = (a.min(0.0), b.max(0.0));
            if b > a {
                axis = axis.range(a, b);
            }
        }
        let (lo, hi, ticks) = axis.resolve(ext, target);
        let map = AxisMap::new(axis.scale, lo, hi, left, right);
        (lo, hi, ticks, map)
    }

    /// The value axis's tick labels under the plot.
    fn draw_tick_labels(&self, svg: &mut Svg, map: &AxisMap, ticks: &[Tick], bottom: f64) {
        let xtick = tick(Anchor::Middle);
        svg.group(&[("class", "ticks")]);
        for t in ticks {
            if let Some(l) = &t.label {
                svg.text(map.map_t(t.value), bottom + TICK_GAP + TICK_SIZE, xtick, l);
            }
        }
        svg.end_group();
    }

    /// Renders the chart.
    pub fn to_svg(&self) -> String {
        let w = self.width;
        let n = self.bars_per_row();
        let bar_h = if n > 1 { 14.0 } else { 18.0 };
        let row_h = n as f64 * bar_h + (n - 1) as f64 * 2.0 + 12.0;

        let legend_items = self.legend_items();
        let (subtitle, warning) = (self.subtitle.as_deref(), self.warning.as_deref());
        let heading = Heading::new(&self.title, subtitle, warning, w);
        let head = heading.height();
        let legend = Legend::place(legend_items, PAD, w - PAD, head);
        let top = head
            + if legend.height > 0.0 {
                legend.height + 4.0
            } else {
                0.0
            };
        let plot_h = row_h * self.rows.len().max(1) as f64;
        let bottom = top + plot_h;
        let height = bottom + TICK_GAP + TICK_SIZE + 10.0 + LABEL_SIZE + PAD;

        // Row labels: as wide as the widest, within a share of the width.
        let max_label = w * MAX_LABEL_SHARE;
        let labels: Vec<String> = self
            .rows
            .iter()
            .map(|r| truncate(&r.label, ROW_LABEL_SIZE, max_label))
            .collect();
        let label_w = labels
            .iter()
            .map(|l| text_width(l, ROW_LABEL_SIZE) * 1.06) // bold is a little wider
            .fold(0.0, f64::max);
        let value_w = self
            .rows
            .iter()
            .flat_map(|r| r.values.iter())
            .map(|&v| text_width(&self.value_text(v), VALUE_SIZE))
            .fold(0.0, f64::max);
        // Negative bars write their value left of the bar: room for it before the axis.
        let any_negative = self
            .rows
            .iter()
            .flat_map(|r| r.values.iter())
            .any(|&v| v < 0.0);
        let left = PAD + label_w + 10.0 + if any_negative { value_w + 8.0 } else { 0.0 };
        let right = w - PAD - value_w - 8.0;

        let (lo, hi, ticks, map) = self.value_axis(left, right);
        let zero = map.map_t(0f64.clamp(lo, hi));

        let mut svg = Svg::new(w, height, &self.title);
        heading.draw(&mut svg, PAD);
        legend.draw(&mut svg);

        // Highlight band behind the row, then gridlines.
        if let Some(h) = self.highlight.filter(|&h| h < self.rows.len()) {
            let y = top + h as f64 * row_h;
            svg.rect(
                PAD / 2.0,
                y + 2.0,
                w - PAD,
                row_h - 4.0,
                &[("fill", HIGHLIGHT_BAND)],
            );
        }
        svg.group(&[("class", "grid"), ("shape-rendering", "crispEdges")]);
        for t in &ticks {
            let x = map.map_t(t.value);
            svg.line(x, top, x, bottom, &[("stroke", GRID)]);
        }
        svg.end_group();

        let rows = Rows {
            top,
            row_h,
            bar_h,
            bars: n,
            label_w,
            map: &map,
            lo,
            hi,
            zero,
        };
        for (i, label) in labels.iter().enumerate() {
            self.draw_row(&mut svg, &rows, i, label);
        }
        svg.line(
            zero,
            top,
            zero,
            bottom,
            &[("stroke", FRAME), ("shape-rendering", "crispEdges")],
        );

        self.draw_tick_labels(&mut svg, &map, &ticks, bottom);
        let label = AXIS_LABEL;
        svg.text((left + right) / 2.0, height - PAD, label, &self.value_label);
        svg.finish()
    }
}

const TICK_GAP: f64 = 6.0;

/// Where the rows are drawn: their band, their bars' height and the value axis.
struct Rows<'a> {
    top: f64,
    row_h: f64,
    bar_h: f64,
    /// Bars per row.
    bars: usize,
    label_w: f64,
    map: &'a AxisMap,
    lo: f64,
    hi: f64,
    /// Where a bar starts: the value 0, or the nearest end of the range.
    zero: f64,
}

/// Shortens a row label to fit `max` units at `size`: a trailing mark such as "(deviates)"
/// stays whole, and the name loses its middle, so both its start ("ssdlab model of") and its
/// distinctive end (model number, capacity) stay. The whole label is the row's tooltip.
fn truncate(text: &str, size: f64, max: f64) -> String {
    if text_width(text, size) <= max {
        return text.to_string();
    }
    let (name, mark) = match text.rfind(" (") {
        Some(at) if text.ends_with(')') => text.split_at(at),
        _ => (text, ""),
    };
    let room = max - text_width(mark, size) - text_width("…", size);
    let chars: Vec<char> = name.chars().collect();
    let (mut head, mut tail) = (0, 0);
    // Alternately a character from the start and from the end, while they fit.
    while head + tail < chars.len() {
        let (h, t) = if head <= tail {
            (head + 1, tail)
        } else {
            (head, tail + 1)
        };
        let kept: String = chars[..h].iter().chain(&chars[chars.len() - t..]).collect();
        if text_width(&kept, size) > room {
            break;
        }
        (head, tail) = (h, t);
    }
    let start: String = chars[..head].iter().collect();
    let end: String = chars[chars.len() - tail..].iter().collect();
    format!("{}…{}{mark}", start.trim_end(), end.trim_start())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_label_keeps_its_mark_and_both_ends_of_the_name() {
        let label = "ssdlab model of Samsung SSD 840 EVO 250GB (deviates)";
        let max = text_width(label, ROW_LABEL_SIZE) * 0.7;
        let cut = truncate(label, ROW_LABEL_SIZE, max);
        assert!(text_width(&cut, ROW_LABEL_SIZE) <= max, "{cut}");
        assert!(cut.ends_with("250GB (deviates)"), "{cut}");
        assert!(cut.starts_with("ssdlab model"), "{cut}");
        assert!(cut.contains('…'), "{cut}");
        let plain = "Samsung SSD 840 EVO 250GB";
        assert_eq!(truncate(plain, ROW_LABEL_SIZE, 1e6), plain);
    }
}
