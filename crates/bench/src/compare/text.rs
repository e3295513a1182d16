//! The tables as text, for a terminal: figures, prices and wrapped drive names in aligned
//! columns.

use std::fmt::Write;

use super::Table;
use crate::db::DriveRow;

/// The most a price may be (`bench annotate --price`): more than any drive costs, few
/// enough digits to print.
pub const MAX_PRICE_USD: f64 = 10_000_000.0;

/// A price in dollars with `decimals` decimals; a figure too large for a price column (only
/// a Bench written before prices were bounded holds one) in scientific notation.
pub fn usd(v: f64, decimals: usize) -> String {
    if v.is_finite() && v.abs() < 1e9 {
        format!("${v:.decimals$}")
    } else {
        format!("${v:.2e}")
    }
}

/// A figure as a table shows it; a "size" in KiB, MiB, GiB.
pub fn format_value(v: f64, unit: &str) -> String {
    match unit {
        "x" => format!("{v:.2}"),
        "size" if v >= 0.0 => engine::units::format_size(v as u64),
        "MB/s" | "s" | "MB/s/W" if v.abs() < 100.0 => format!("{v:.1}"),
        "W" => format!("{v:.2}"),
        _ => format!("{v:.0}"),
    }
}

/// `text` in lines of at most `width` characters, broken between words (a longer word alone
/// on its line, whole).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// The tables as text: a column per drive headed by its whole name (wrapped, never cut, so
/// two drives always read apart), `*` after each row's best value.
pub fn render_text(drives: &[DriveRow], tables: &[Table]) -> String {
    use crate::term::printable;
    // Every row first, to size the columns.
    enum Row {
        Title(String),
        Note(String),
        Figures(String, Vec<String>),
    }
    let mut rows = vec![Row::Figures(
        "price per GB".into(),
        drives
            .iter()
            .map(|d| d.price_per_gb().map_or("-".into(), |p| usd(p, 2)) + " ")
            .collect(),
    )];
    for t in tables {
        rows.push(Row::Title(format!(
            "{} [{}]",
            printable(&t.title),
            printable(&t.stem)
        )));
        for note in &t.notes {
            rows.push(Row::Note(printable(note).into_owned()));
        }
        for m in &t.metrics {
            let best = m.best();
            let label = match m.unit {
                "size" => m.name.to_string(),
                unit if unit == m.name => m.name.to_string(),
                unit => format!("{} ({unit})", m.name),
            };
            let cells = m
                .values
                .iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Some(v) => format!(
                        "{}{}",
                        format_value(*v, m.unit),
                        if best == Some(i) { "*" } else { " " }
                    ),
                    None => "- ".into(),
                })
                .collect();
            rows.push(Row::Figures(label, cells));
        }
    }
    let label_width = rows
        .iter()
        .filter_map(|r| match r {
            Row::Figures(label, _) => Some(label.chars().count() + 2),
            Row::Title(_) | Row::Note(_) => None,
        })
        .max()
        .unwrap_or(0)
        .max("drive".len());
    // A column is as wide as its widest figure, at least 16, and wider for a long word.
    let widths: Vec<usize> = drives
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let figures = rows.iter().filter_map(|r| match r {
                Row::Figures(_, cells) => cells.get(i).map(|c| c.chars().count()),
                Row::Title(_) | Row::Note(_) => None,
            });
            let words = printable(&d.name)
                .split_whitespace()
                .map(|w| w.chars().count() + 1)
                .max()
                .unwrap_or(0);
            figures.chain([16, words]).max().unwrap_or(16)
        })
        .collect();
    let names: Vec<Vec<String>> = drives
        .iter()
        .zip(&widths)
        // One column of space is the best-value mark's.
        .map(|(d, &w)| wrap(&printable(&d.name), w - 1))
        .collect();
    let header_lines = names.iter().map(Vec::len).max().unwrap_or(0).max(1);
    let mut out = String::new();
    for line in 0..header_lines {
        let mut text = format!("{:<label_width$}", if line == 0 { "drive" } else { "" });
        for (name, &w) in names.iter().zip(&widths) {
            let part = name.get(line).map_or("", String::as_str);
            text += &format!("  {:>w$}", format!("{part} "));
        }
        out += text.trim_end();
        out.push('\n');
    }
    for row in &rows {
        match row {
            Row::Title(title) => {
                let _ = writeln!(out, "\n{title}");
            }
            Row::Note(note) => {
                let _ = writeln!(out, "  ({note})");
            }
            Row::Figures(label, cells) => {
                let mut text = format!("{:<label_width$}", format!("  {label}"));
                for (cell, &w) in cells.iter().zip(&widths) {
                    text += &format!("  {cell:>w$}");
                }
                out += text.trim_end();
                out.push('\n');
            }
        }
    }
    out += "\n* best of the drives compared\n";
    out
}
