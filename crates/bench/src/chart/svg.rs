//! A tiny SVG writer: escaping, number formatting for coordinates, and a handful of
//! element kinds (rect, line, text, path, circle, group). Output is a plain `String`
//! with attributes inline, so a chart is one self-contained, readable file.

use std::fmt::Write as _;

/// Escapes text for XML and HTML: element content and quoted attribute values.
///
/// Replaces `& < > " '` with entities and drops the control characters that XML 1.0
/// forbids (everything below U+0020 except tab, newline and carriage return), so the
/// result is always well-formed wherever it is placed. Drive names are user input: a name
/// like `<script>alert(1)</script>` comes out as text, never as markup.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

/// Formats a coordinate rounded to one decimal, without a trailing `.0` and without a
/// negative zero: `12.0` -> `12`, `3.14159` -> `3.1`, `-0.04` -> `0`.
pub fn num(v: f64) -> String {
    let r = (v * 10.0).round() / 10.0;
    let r = if r == 0.0 { 0.0 } else { r };
    let s = format!("{r:.1}");
    match s.strip_suffix(".0") {
        Some(t) => t.to_string(),
        None => s,
    }
}

/// Appends SVG elements to a string. Attribute values are escaped; numbers go through
/// [`num`]. Nothing here knows about charts.
#[derive(Debug, Default)]
pub struct Svg {
    buf: String,
}

/// Text alignment relative to the anchor point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    fn as_str(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// How a piece of text looks.
#[derive(Clone, Copy, Debug)]
pub struct TextStyle<'a> {
    pub size: f64,
    pub anchor: Anchor,
    pub bold: bool,
    pub fill: &'a str,
}

impl Svg {
    /// Starts a document `width` x `height` user units, with a white background.
    /// `label` becomes the accessible name (`<title>`).
    pub fn new(width: f64, height: f64, label: &str) -> Svg {
        Svg::with_attrs(width, height, label, &[])
    }

    /// [`Svg::new`] with extra attributes on the root element (data for the page's script).
    pub fn with_attrs(width: f64, height: f64, label: &str, attrs: &[(&str, &str)]) -> Svg {
        let mut svg = Svg {
            buf: String::with_capacity(8 * 1024),
        };
        let (w, h) = (num(width), num(height));
        let _ = write!(
            svg.buf,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" \
             height=\"{h}\" role=\"img\" font-family=\"Helvetica, Arial, sans-serif\""
        );
        svg.attrs(attrs);
        svg.buf.push_str(">\n");
        let _ = writeln!(svg.buf, "<title>{}</title>", escape(label));
        svg.rect(0.0, 0.0, width, height, &[("fill", "#ffffff")]);
        svg
    }

    /// Closes the document and returns it.
    pub fn finish(mut self) -> String {
        self.buf.push_str("</svg>\n");
        self.buf
    }

    fn attrs(&mut self, attrs: &[(&str, &str)]) {
        for (k, v) in attrs {
            let _ = write!(self.buf, " {k}=\"{}\"", escape(v));
        }
    }

    /// A rectangle.
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, attrs: &[(&str, &str)]) {
        let _ = write!(
            self.buf,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"",
            num(x),
            num(y),
            num(w.max(0.0)),
            num(h.max(0.0))
        );
        self.attrs(attrs);
        self.buf.push_str("/>\n");
    }

    /// A straight line.
    pub fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, attrs: &[(&str, &str)]) {
        let _ = write!(
            self.buf,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"",
            num(x1),
            num(y1),
            num(x2),
            num(y2)
        );
        self.attrs(attrs);
        self.buf.push_str("/>\n");
    }

    /// A circle.
    pub fn circle(&mut self, cx: f64, cy: f64, r: f64, attrs: &[(&str, &str)]) {
        let _ = write!(
            self.buf,
            "<circle cx=\"{}\" cy=\"{}\" r=\"{}\"",
            num(cx),
            num(cy),
            num(r)
        );
        self.attrs(attrs);
        self.buf.push_str("/>\n");
    }

    /// A path with path data `d` (already built from [`num`]-formatted numbers).
    pub fn path(&mut self, d: &str, attrs: &[(&str, &str)]) {
        let _ = write!(self.buf, "<path d=\"{d}\"");
        self.attrs(attrs);
        self.buf.push_str("/>\n");
    }

    /// Text at (x, y), y being the baseline. `text` is escaped here.
    pub fn text(&mut self, x: f64, y: f64, style: TextStyle, text: &str) {
        self.text_with(x, y, style, &[], text);
    }

    /// Text with extra attributes (e.g. a `transform` for a rotated axis label).
    pub fn text_with(
        &mut self,
        x: f64,
        y: f64,
        style: TextStyle,
        attrs: &[(&str, &str)],
        text: &str,
    ) {
        let _ = write!(
            self.buf,
            "<text x=\"{}\" y=\"{}\" font-size=\"{}\" fill=\"{}\"",
            num(x),
            num(y),
            num(style.size),
            escape(style.fill)
        );
        if style.anchor != Anchor::Start {
            let _ = write!(self.buf, " text-anchor=\"{}\"", style.anchor.as_str());
        }
        if style.bold {
            self.buf.push_str(" font-weight=\"bold\"");
        }
        self.attrs(attrs);
        let _ = writeln!(self.buf, ">{}</text>", escape(text));
    }

    /// Opens a group `<g ...>`; pair with [`Svg::end_group`].
    pub fn group(&mut self, attrs: &[(&str, &str)]) {
        self.buf.push_str("<g");
        self.attrs(attrs);
        self.buf.push_str(">\n");
    }

    /// Closes the innermost group.
    pub fn end_group(&mut self) {
        self.buf.push_str("</g>\n");
    }

    /// Adds a `<title>` child (a tooltip in browsers) inside the current group.
    pub fn tooltip(&mut self, text: &str) {
        let _ = writeln!(self.buf, "<title>{}</title>", escape(text));
    }
}

/// Rough width of `text` in user units at font size `size` (Helvetica-like average glyph
/// widths). Used for layout only: margins, label thinning, legend placement.
pub fn text_width(text: &str, size: f64) -> f64 {
    let em: f64 = text
        .chars()
        .map(|c| match c {
            'i' | 'j' | 'l' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' | 'I' => 0.28,
            'f' | 't' | 'r' | ' ' | '(' | ')' | '-' | '/' | '[' | ']' => 0.36,
            'm' | 'w' | 'M' | 'W' => 0.85,
            'A'..='Z' | '%' | '&' | '@' => 0.68,
            '0'..='9' => 0.56,
            _ => 0.54,
        })
        .sum();
    em * size
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_turns_markup_into_text() {
        assert_eq!(
            escape("<script>alert(1)</script>"),
            "&lt;script&gt;alert(1)&lt;/script&gt;"
        );
        assert_eq!(escape("a&b \"q\" 'x'"), "a&amp;b &quot;q&quot; &#39;x&#39;");
        assert_eq!(escape("bell\u{7}tab\t"), "belltab\t");
        assert_eq!(
            escape("Crucial M500 960GB – ünïcode"),
            "Crucial M500 960GB – ünïcode"
        );
    }

    #[test]
    fn numbers_are_rounded_to_one_decimal() {
        assert_eq!(num(12.0), "12");
        assert_eq!(num(2.71), "2.7");
        assert_eq!(num(-0.04), "0");
        assert_eq!(num(-2.25), "-2.3");
        assert_eq!(num(99.96), "100");
    }
}
