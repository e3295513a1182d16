//! The parts every chart shares above its plot: title, subtitle and legend.

use super::svg::{text_width, Anchor, Svg, TextStyle};
use super::theme::*;

/// What a legend swatch looks like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Swatch {
    Dot,
    Line,
    /// A dashed line in its dash pattern: a reference line, or a series drawn over another
    /// it may hide.
    Dashed(&'static str),
    Box,
}

/// One legend entry.
#[derive(Clone, Debug)]
pub(crate) struct LegendItem {
    pub name: String,
    pub color: String,
    /// As the marks it names are drawn (a group's shade of a row's colour).
    pub opacity: f64,
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
            let opacity = item.opacity.to_string();
            let line = |svg: &mut Svg, dash: Option<&str>| {
                let mut attrs = vec![("stroke", c), ("stroke-width", "3")];
                attrs.extend(dash.map(|d| ("stroke-dasharray", d)));
                svg.line(*x, cy, x + SWATCH_W, cy, &attrs)
            };
            match item.swatch {
                Swatch::Dot => svg.circle(x + SWATCH_W / 2.0, cy, 4.0, &[("fill", c)]),
                Swatch::Line => line(svg, None),
                Swatch::Dashed(dash) => line(svg, Some(dash)),
                Swatch::Box => svg.rect(
                    *x + 2.0,
                    cy - 6.0,
                    12.0,
                    12.0,
                    &[("fill", c), ("fill-opacity", &opacity)],
                ),
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

/// The title (bold), the subtitle (grey, under it) and a warning (red, under that: a deviation
/// from the methodology a reader must see on the chart itself), each wrapped to the chart's
/// width rather than cut off by its edge.
pub(crate) struct Heading {
    /// Each line: its text, size, colour, weight and its distance below the line above.
    lines: Vec<(String, f64, &'static str, bool, f64)>,
}

impl Heading {
    pub fn new(title: &str, subtitle: Option<&str>, warning: Option<&str>, width: f64) -> Heading {
        let room = width - 2.0 * PAD;
        let mut lines = Vec::new();
        let parts = [
            (Some(title), TITLE_SIZE, TEXT, true, TITLE_SIZE + 4.0),
            (subtitle, SUBTITLE_SIZE, MUTED, false, SUBTITLE_SIZE + 6.0),
            (warning, SUBTITLE_SIZE, WARNING, true, SUBTITLE_SIZE + 6.0),
        ];
        for (text, size, fill, bold, gap) in parts {
            for line in wrap(
                text.unwrap_or_default(),
                size * if bold { 1.06 } else { 1.0 },
                room,
            ) {
                lines.push((line, size, fill, bold, gap));
            }
        }
        Heading { lines }
    }

    /// The height a one-line title takes: what a chart's own height leaves room for.
    pub fn one_line_height() -> f64 {
        PAD + TITLE_SIZE + 4.0 + 8.0
    }

    /// The height taken from the top of the image.
    pub fn height(&self) -> f64 {
        let gaps: f64 = self.lines.iter().skip(1).map(|l| l.4).sum();
        PAD + TITLE_SIZE + 4.0 + gaps + 8.0
    }

    pub fn draw(&self, svg: &mut Svg, x: f64) {
        let mut y = PAD + TITLE_SIZE;
        for (i, (text, size, fill, bold, gap)) in self.lines.iter().enumerate() {
            if i > 0 {
                y += gap;
            }
            let style = TextStyle {
                size: *size,
                anchor: Anchor::Start,
                bold: *bold,
                fill,
            };
            svg.text(x, y, style, text);
        }
    }
}

/// `text` in lines of at most `room` units at `size`, broken between words (a word longer
/// than the room gets a line of its own); no lines for no text.
fn wrap(text: &str, size: f64, room: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let longer = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if !line.is_empty() && text_width(&longer, size) > room {
            lines.push(std::mem::replace(&mut line, word.to_string()));
        } else {
            line = longer;
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_wrap_between_words_within_the_room() {
        let text = "deviates: --pts-scale 0.02: rounds of 1.2 s and 81.9 MiB of preconditioning \
                    instead of the spec's 60 s and 2x the capacity";
        let lines = wrap(text, 12.0, 300.0);
        assert!(lines.len() > 1, "{lines:?}");
        assert!(
            lines.iter().all(|l| text_width(l, 12.0) <= 300.0),
            "{lines:?}"
        );
        assert_eq!(
            lines.join(" "),
            text.split_whitespace().collect::<Vec<_>>().join(" ")
        );
        assert!(wrap("", 12.0, 300.0).is_empty());
        assert_eq!(wrap("short", 12.0, 300.0), ["short"]);
    }

    #[test]
    fn a_one_line_heading_is_as_high_as_before_and_each_wrapped_line_adds() {
        let one = Heading::new("Title", None, None, 800.0);
        assert_eq!(one.height(), Heading::one_line_height());
        let warned = Heading::new("Title", None, Some("a deviation"), 800.0);
        assert_eq!(
            warned.height(),
            Heading::one_line_height() + SUBTITLE_SIZE + 6.0
        );
        let long = "word ".repeat(200);
        let wrapped = Heading::new("Title", None, Some(&long), 800.0);
        assert!(wrapped.height() > warned.height() + 2.0 * (SUBTITLE_SIZE + 6.0));
    }
}
