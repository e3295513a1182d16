//! Charts of y against x: scatter (IO consistency) and line (transfer size, LBA sweep).

use std::collections::HashSet;
use std::fmt::Write as _;

use super::axis::{Axis, AxisMap, Scale, Tick};
use super::format::NumberFormat;
use super::legend::{Heading, Legend, LegendItem, Swatch};
use super::svg::{num, text_width, Anchor, Svg};
use super::theme::*;

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// One small dot per point (a scatter plot). Points beyond the x range are left out;
    /// points above or below the y range are pinned to the frame edge, so a spike past
    /// the top of a linear chart still shows as a dot on its top edge.
    Dots,
    /// A polyline through the points in order, clipped at the frame. A point that cannot
    /// be shown (not finite, or not positive on a log axis) breaks the line.
    Line,
}

/// A named set of (x, y) points.
#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub style: Style,
    /// A CSS colour; `None` takes the next colour of the [palette](super::PALETTE).
    pub color: Option<String>,
    /// A line's SVG dash pattern ("6 4"): a reference line (a mean, a bound) rather than
    /// data; `None` draws it solid.
    pub dash: Option<&'static str>,
}

impl Series {
    /// A series drawn in `style`.
    pub fn new(name: &str, style: Style, points: impl IntoIterator<Item = (f64, f64)>) -> Series {
        Series {
            name: name.to_string(),
            points: points.into_iter().collect(),
            style,
            color: None,
            dash: None,
        }
    }

    /// A scatter series.
    pub fn dots(name: &str, points: impl IntoIterator<Item = (f64, f64)>) -> Series {
        Series::new(name, Style::Dots, points)
    }

    /// A line series.
    pub fn line(name: &str, points: impl IntoIterator<Item = (f64, f64)>) -> Series {
        Series::new(name, Style::Line, points)
    }

    /// Draws the line dashed in `pattern` (SVG's stroke-dasharray, e.g. "6 4"), thinner.
    pub fn dashed(mut self, pattern: &'static str) -> Series {
        self.dash = Some(pattern);
        self
    }

    /// Sets the colour (any CSS colour, e.g. `#0072B2`).
    pub fn color(mut self, color: &str) -> Series {
        self.color = Some(color.to_string());
        self
    }
}

/// A rectangle in pixels (SVG user units), y growing downwards.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub fn right(&self) -> f64 {
        self.x + self.w
    }
    pub fn bottom(&self) -> f64 {
        self.y + self.h
    }
}

/// Where everything of an [`XYChart`] goes: the plot area, the data-to-pixel maps and the
/// ticks (with labels already thinned so that none overlap).
#[derive(Clone, Debug)]
pub struct Layout {
    pub width: f64,
    pub height: f64,
    pub plot: Rect,
    pub x: AxisMap,
    pub y: AxisMap,
    pub x_ticks: Vec<Tick>,
    pub y_ticks: Vec<Tick>,
    legend: Legend,
}

impl Layout {
    /// The pixel position of a data point, or `None` when a scale cannot show it.
    /// Unclipped: a point beyond the axis range maps outside the plot area.
    pub fn map(&self, x: f64, y: f64) -> Option<(f64, f64)> {
        Some((self.x.map(x)?, self.y.map(y)?))
    }
}

/// A chart of one or more series of (x, y) points.
#[derive(Clone, Debug)]
pub struct XYChart {
    pub title: String,
    pub subtitle: Option<String>,
    /// A line in red under the subtitle: what makes this chart deviate from the methodology.
    pub warning: Option<String>,
    pub x: Axis,
    pub y: Axis,
    pub series: Vec<Series>,
    pub width: f64,
    pub height: f64,
    /// The plot area's left and right edges, fixed so this chart's x axis lines up with
    /// another's of the same width (a power chart under the IOPS chart it belongs to).
    pub plot_x: Option<(f64, f64)>,
}

const TICK_GAP: f64 = 6.0;

impl XYChart {
    /// An empty 800 x 400 chart.
    pub fn new(title: &str, x: Axis, y: Axis) -> XYChart {
        XYChart {
            title: title.to_string(),
            subtitle: None,
            warning: None,
            x,
            y,
            series: Vec::new(),
            width: 800.0,
            height: 400.0,
            plot_x: None,
        }
    }

    /// A second line under the title (drive, test parameters).
    pub fn subtitle(mut self, text: &str) -> XYChart {
        self.subtitle = Some(text.to_string());
        self
    }

    /// A warning line in red under the subtitle (e.g. "shortened: 20 s of 2000 s").
    pub fn warning(mut self, text: Option<&str>) -> XYChart {
        self.warning = text.map(str::to_string);
        self
    }

    /// Adds a series.
    pub fn series(mut self, series: Series) -> XYChart {
        self.series.push(series);
        self
    }

    /// Adds a series to a chart held by reference.
    pub fn push(&mut self, series: Series) {
        self.series.push(series);
    }

    /// Sets the image size in user units (default 800 x 400).
    pub fn size(mut self, width: f64, height: f64) -> XYChart {
        self.width = width.max(200.0);
        self.height = height.max(150.0);
        self
    }

    /// Places the plot area between `left` and `right` (another chart's
    /// [`Layout::plot`]), so the two share their x positions.
    pub fn align_x(mut self, left: f64, right: f64) -> XYChart {
        self.plot_x = Some((left, right));
        self
    }

    fn color_of(&self, i: usize) -> String {
        self.series[i]
            .color
            .clone()
            .unwrap_or_else(|| super::palette(i).to_string())
    }

    /// Extent of the values an axis can show, over all series.
    fn extent(&self, axis: &Axis, pick: impl Fn(&(f64, f64)) -> f64) -> Option<(f64, f64)> {
        let mut ext: Option<(f64, f64)> = None;
        for s in &self.series {
            for p in &s.points {
                let v = pick(p);
                if axis.scale.transform(v).is_some() {
                    ext = Some(match ext {
                        None => (v, v),
                        Some((a, b)) => (a.min(v), b.max(v)),
                    });
                }
            }
        }
        ext
    }

    fn heading(&self) -> Heading {
        let (subtitle, warning) = (self.subtitle.as_deref(), self.warning.as_deref());
        Heading::new(&self.title, subtitle, warning, self.width)
    }

    /// Computes the layout: margins from the tick labels, ticks, maps.
    pub fn layout(&self) -> Layout {
        let (w, h) = (self.width, self.height);
        let legend_items: Vec<LegendItem> = if self.series.len() > 1 {
            (0..self.series.len())
                .map(|i| LegendItem {
                    name: self.series[i].name.clone(),
                    color: self.color_of(i),
                    opacity: 1.0,
                    swatch: match (self.series[i].style, self.series[i].dash) {
                        (Style::Dots, _) => Swatch::Dot,
                        (Style::Line, None) => Swatch::Line,
                        (Style::Line, Some(dash)) => Swatch::Dashed(dash),
                    },
                })
                .collect()
        } else {
            Vec::new()
        };
        let heading = self.heading();
        let head = heading.height();
        let legend = Legend::place(legend_items, PAD, w - PAD, head);
        let legend_h = if legend.height > 0.0 {
            legend.height + 6.0
        } else {
            0.0
        };
        // The legend (twenty drives make several rows) and the heading add to the height:
        // the plot keeps its size.
        let h = h + legend_h + (head - Heading::one_line_height());
        let top = head + legend_h;
        let bottom = h - (PAD + LABEL_SIZE + 8.0 + TICK_SIZE + TICK_GAP);

        // y ticks first: their labels decide the left margin.
        let y_target = (((bottom - top) / 50.0).round() as usize).clamp(2, 10);
        let y_ext = self.extent(&self.y, |p| p.1);
        let (y_lo, y_hi, mut y_ticks) = self.y.resolve(y_ext, y_target);
        let y_map0 = AxisMap::new(self.y.scale, y_lo, y_hi, bottom, top);
        thin_labels(&mut y_ticks, &y_map0, false, |_| TICK_SIZE + 3.0);
        let label_w = y_ticks
            .iter()
            .filter_map(|t| t.label.as_deref())
            .map(|l| text_width(l, TICK_SIZE))
            .fold(0.0, f64::max);
        let mut left = PAD + LABEL_SIZE + 10.0 + label_w + TICK_GAP;

        let x_ext = self.extent(&self.x, |p| p.0);
        let mut right = w - PAD - 8.0;
        let (mut x_lo, mut x_hi, mut x_ticks) = (0.0, 1.0, Vec::new());
        if let Some((l, r)) = self.plot_x {
            (left, right) = (l, r.min(w - PAD));
        }
        // Twice: the last x label may need a wider right margin (unless it is fixed).
        for _ in 0..2 {
            let x_target = (((right - left) / 85.0).round() as usize).clamp(2, 12);
            (x_lo, x_hi, x_ticks) = self.x.resolve(x_ext, x_target);
            let last = x_ticks
                .iter()
                .rev()
                .find_map(|t| t.label.as_deref())
                .unwrap_or("");
            let need = w - PAD - text_width(last, TICK_SIZE) / 2.0;
            if need >= right || self.plot_x.is_some() {
                break;
            }
            right = need;
        }
        let x_map = AxisMap::new(self.x.scale, x_lo, x_hi, left, right);
        // Byte axes keep their largest size labelled (1 KiB, 4 KiB, ... 64 MiB).
        let from_end = self.x.scale == Scale::Log2;
        thin_labels(&mut x_ticks, &x_map, from_end, |l| {
            text_width(l, TICK_SIZE) + 10.0
        });
        Layout {
            width: w,
            height: h,
            plot: Rect {
                x: left,
                y: top,
                w: right - left,
                h: bottom - top,
            },
            x: x_map,
            y: y_map0,
            x_ticks,
            y_ticks,
            legend,
        }
    }

    /// Renders the chart.
    pub fn to_svg(&self) -> String {
        let lay = self.layout();
        let p = lay.plot;
        // The axis maps and each series' points let the page's script show the value under
        // the pointer (see `assets/bench.js`): "scale t0 t1 p0 p1" and "x,y x,y ...".
        let map = |m: &AxisMap| {
            let scale = match m.scale {
                Scale::Linear => "lin",
                Scale::Log10 => "log10",
                Scale::Log2 => "log2",
            };
            format!("{scale} {} {} {} {}", m.t0, m.t1, num(m.p0), num(m.p1))
        };
        let kind = |a: &Axis| match a.format {
            NumberFormat::Bytes => "bytes",
            _ if a.scale == Scale::Log2 => "bytes",
            _ => "number",
        };
        let mut svg = Svg::with_attrs(
            lay.width,
            lay.height,
            &self.title,
            &[
                ("class", "xy"),
                ("data-x", &map(&lay.x)),
                ("data-y", &map(&lay.y)),
                ("data-xlabel", &self.x.label),
                ("data-ylabel", &self.y.label),
                ("data-xkind", kind(&self.x)),
                ("data-ykind", kind(&self.y)),
            ],
        );
        self.heading().draw(&mut svg, PAD);
        lay.legend.draw(&mut svg);

        // Gridlines: minor first so major ones sit on top.
        svg.group(&[("class", "grid"), ("shape-rendering", "crispEdges")]);
        for major in [false, true] {
            let color = if major { GRID } else { GRID_MINOR };
            for t in lay.x_ticks.iter().filter(|t| t.major == major) {
                if let Some(x) = lay.x.map(t.value) {
                    svg.line(x, p.y, x, p.bottom(), &[("stroke", color)]);
                }
            }
            for t in lay.y_ticks.iter().filter(|t| t.major == major) {
                if let Some(y) = lay.y.map(t.value) {
                    svg.line(p.x, y, p.right(), y, &[("stroke", color)]);
                }
            }
        }
        svg.end_group();

        for (i, s) in self.series.iter().enumerate() {
            self.draw_series(&mut svg, &lay, i, s);
        }
        svg.rect(
            p.x,
            p.y,
            p.w,
            p.h,
            &[
                ("fill", "none"),
                ("stroke", FRAME),
                ("shape-rendering", "crispEdges"),
            ],
        );

        // Tick labels.
        let xtick = tick(Anchor::Middle);
        svg.group(&[("class", "ticks")]);
        for t in &lay.x_ticks {
            if let (Some(l), Some(x)) = (&t.label, lay.x.map(t.value)) {
                svg.text(x, p.bottom() + TICK_GAP + TICK_SIZE, xtick, l);
            }
        }
        let ytick = tick(Anchor::End);
        for t in &lay.y_ticks {
            if let (Some(l), Some(y)) = (&t.label, lay.y.map(t.value)) {
                svg.text(p.x - TICK_GAP, y + TICK_SIZE * 0.35, ytick, l);
            }
        }
        svg.end_group();

        // Axis labels.
        let label = AXIS_LABEL;
        svg.text(p.x + p.w / 2.0, lay.height - PAD, label, &self.x.label);
        let (lx, ly) = (PAD + LABEL_SIZE, p.y + p.h / 2.0);
        let rotate = format!("rotate(-90 {} {})", num(lx), num(ly));
        svg.text_with(lx, ly, label, &[("transform", &rotate)], &self.y.label);
        svg.finish()
    }

    /// Series `i`, a path with its name and points for the page's hover.
    fn draw_series(&self, svg: &mut Svg, lay: &Layout, i: usize, s: &Series) {
        let color = self.color_of(i);
        let class = format!("series series-{i}");
        let d = match s.style {
            Style::Dots => dots_path(&s.points, lay),
            Style::Line => line_path(&s.points, lay),
        };
        if d.is_empty() {
            return;
        }
        let width = match (s.style, s.dash) {
            (Style::Dots, _) => "3",
            (Style::Line, None) => "2",
            (Style::Line, Some(_)) => "1.5",
        };
        svg.group(&[
            ("class", &class),
            ("data-name", &s.name),
            ("data-points", &hover_points(&s.points)),
        ]);
        svg.tooltip(&s.name);
        let mut attrs = vec![
            ("fill", "none"),
            ("stroke", color.as_str()),
            ("stroke-width", width),
            ("stroke-linecap", "round"),
            ("stroke-linejoin", "round"),
        ];
        if let Some(dash) = s.dash {
            attrs.push(("stroke-dasharray", dash));
        }
        svg.path(&d, &attrs);
        svg.end_group();
    }
}

/// Removes labels until neighbours keep at least `size(label)` pixels between their
/// centres, keeping every k-th labelled tick counted from the first (or the last).
fn thin_labels(ticks: &mut [Tick], map: &AxisMap, from_end: bool, size: impl Fn(&str) -> f64) {
    let mut labelled: Vec<usize> = (0..ticks.len())
        .filter(|&i| ticks[i].label.is_some())
        .collect();
    if from_end {
        labelled.reverse();
    }
    let fits = |k: usize| {
        let kept: Vec<usize> = labelled.iter().copied().step_by(k).collect();
        kept.windows(2).all(|w| {
            let (a, b) = (&ticks[w[0]], &ticks[w[1]]);
            let (pa, pb) = (
                map.map(a.value).unwrap_or(0.0),
                map.map(b.value).unwrap_or(0.0),
            );
            let need =
                (size(a.label.as_deref().unwrap()) + size(b.label.as_deref().unwrap())) / 2.0;
            (pb - pa).abs() >= need
        })
    };
    let k = (1..=labelled.len().max(1)).find(|&k| fits(k)).unwrap_or(1);
    for (n, &i) in labelled.iter().enumerate() {
        if n % k != 0 {
            ticks[i].label = None;
        }
    }
}

/// A series' points as "x,y x,y ..." for the hover script: values to 5 significant
/// digits (what a tooltip shows), points no scale can show left out.
fn hover_points(points: &[(f64, f64)]) -> String {
    let short = |v: f64| engine::units::significant(v, 5);
    let mut out = String::with_capacity(points.len() * 10);
    for &(x, y) in points.iter().filter(|p| p.0.is_finite() && p.1.is_finite()) {
        if !out.is_empty() {
            out.push(' ');
        }
        let _ = write!(out, "{},{}", short(x), short(y));
    }
    out
}

/// Path data for a scatter series: `M x y h0` per point (a zero-length segment that a
/// round line cap turns into a dot: about 14 bytes a point). Points falling on the same
/// rounded pixel position are written once.
fn dots_path(points: &[(f64, f64)], lay: &Layout) -> String {
    let p = lay.plot;
    let mut seen = HashSet::new();
    let mut d = String::new();
    for &(x, y) in points {
        if !lay.x.contains(x) {
            continue;
        }
        let (Some(px), Some(py)) = (lay.x.map(x), lay.y.map(y)) else {
            continue;
        };
        let py = py.clamp(p.y, p.bottom());
        let key = ((px * 10.0).round() as i64, (py * 10.0).round() as i64);
        if seen.insert(key) {
            let _ = write!(d, "M{} {}h0", num(px), num(py));
        }
    }
    d
}

/// Path data for a line series, clipped to the plot area.
fn line_path(points: &[(f64, f64)], lay: &Layout) -> String {
    let r = lay.plot;
    let mut d = String::new();
    let mut prev: Option<(f64, f64)> = None;
    // The pen position written last, as formatted text, to join touching segments.
    let mut pen: Option<(String, String)> = None;
    let mut run_len = 0usize;
    let mut lone: Option<(f64, f64)> = None;
    let flush_lone = |d: &mut String, lone: &mut Option<(f64, f64)>, run_len: usize| {
        if let (Some((x, y)), 0) = (lone.take(), run_len) {
            if x >= r.x && x <= r.right() && y >= r.y && y <= r.bottom() {
                let _ = write!(d, "M{} {}h0", num(x), num(y));
            }
        }
    };
    for &(x, y) in points {
        let Some(cur) = lay.map(x, y) else {
            flush_lone(&mut d, &mut lone, run_len);
            prev = None;
            pen = None;
            run_len = 0;
            continue;
        };
        if let Some(a) = prev {
            if let Some((s, e)) = clip_segment(a, cur, r) {
                let (sx, sy) = (num(s.0), num(s.1));
                let (ex, ey) = (num(e.0), num(e.1));
                if pen.as_ref() != Some(&(sx.clone(), sy.clone())) {
                    let _ = write!(d, "M{sx} {sy}");
                }
                if (sx.as_str(), sy.as_str()) != (ex.as_str(), ey.as_str()) {
                    let _ = write!(d, "L{ex} {ey}");
                }
                pen = Some((ex, ey));
                run_len += 1;
            }
        } else {
            lone = Some(cur);
        }
        prev = Some(cur);
    }
    flush_lone(&mut d, &mut lone, run_len);
    d
}

/// Liang-Barsky: the part of segment a-b inside `r`, if any.
fn clip_segment(a: (f64, f64), b: (f64, f64), r: Rect) -> Option<((f64, f64), (f64, f64))> {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [
        (-dx, a.0 - r.x),
        (dx, r.right() - a.0),
        (-dy, a.1 - r.y),
        (dy, r.bottom() - a.1),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
        }
    }
    if t0 > t1 {
        return None;
    }
    Some((
        (a.0 + t0 * dx, a.1 + t0 * dy),
        (a.0 + t1 * dx, a.1 + t1 * dy),
    ))
}
