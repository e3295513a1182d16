//! Aligned text tables: every column as wide as its widest cell, numbers right-aligned, text
//! left-aligned, notes under a row printed as they are.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

enum Line {
    Cells(Vec<String>),
    /// Text under the row before it, outside the columns.
    Note(String),
}

pub struct Table {
    headers: Vec<(String, Align)>,
    lines: Vec<Line>,
}

impl Table {
    pub fn new(headers: &[(&str, Align)]) -> Table {
        Table {
            headers: headers.iter().map(|&(h, a)| (h.to_string(), a)).collect(),
            lines: Vec::new(),
        }
    }

    /// A row; missing cells are empty, extra ones dropped.
    pub fn row(&mut self, cells: Vec<String>) {
        self.lines.push(Line::Cells(cells));
    }

    pub fn note(&mut self, text: String) {
        self.lines.push(Line::Note(text));
    }

    pub fn render(&self) -> String {
        let width = |s: &str| s.chars().count();
        let mut widths: Vec<usize> = self.headers.iter().map(|(h, _)| width(h)).collect();
        for line in &self.lines {
            if let Line::Cells(cells) = line {
                for (w, c) in widths.iter_mut().zip(cells) {
                    *w = (*w).max(width(c));
                }
            }
        }
        let headers: Vec<String> = self.headers.iter().map(|(h, _)| h.clone()).collect();
        let mut out = self.format_row(&headers, &widths);
        for line in &self.lines {
            match line {
                Line::Cells(cells) => out += &self.format_row(cells, &widths),
                Line::Note(text) => {
                    out += text;
                    out.push('\n');
                }
            }
        }
        out
    }

    fn format_row(&self, cells: &[String], widths: &[usize]) -> String {
        let mut line = String::new();
        for (i, ((_, align), &w)) in self.headers.iter().zip(widths).enumerate() {
            let cell = cells.get(i).map_or("", String::as_str);
            if i > 0 {
                line += "  ";
            }
            match align {
                Align::Left => line += &format!("{cell:<w$}"),
                Align::Right => line += &format!("{cell:>w$}"),
            }
        }
        // No padding after the last column.
        let mut line = line.trim_end().to_string();
        line.push('\n');
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_fit_their_widest_cell_and_numbers_align_right() {
        let mut t = Table::new(&[("MB/s", Align::Right), ("test", Align::Left)]);
        t.row(vec!["1234.5".into(), "a long test label".into()]);
        t.note("    a note".into());
        t.row(vec!["7.0".into(), "short".into()]);
        let text = t.render();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "  MB/s  test",
                "1234.5  a long test label",
                "    a note",
                "   7.0  short"
            ]
        );
    }

    #[test]
    fn missing_cells_are_blank() {
        let mut t = Table::new(&[("a", Align::Right), ("b", Align::Right), ("c", Align::Left)]);
        t.row(vec!["1".into()]);
        t.row(vec!["22".into(), "".into(), "x".into()]);
        assert_eq!(t.render(), " a  b  c\n 1\n22     x\n");
    }
}
