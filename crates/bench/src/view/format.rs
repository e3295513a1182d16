//! Numbers in a table: fixed decimals, thousands grouped, sizes in binary units, a dash for
//! what was not measured.

use engine::units::{self, Precision};

use crate::chart::format_grouped;

/// `v` with `decimals` decimals, or a dash.
pub fn fixed(v: Option<f64>, decimals: usize) -> String {
    v.filter(|v| v.is_finite())
        .map_or("–".into(), |v| format!("{v:.decimals$}"))
}

/// `v` with thousands grouped (32,200), or a dash.
pub fn grouped(v: Option<f64>, decimals: usize) -> String {
    v.filter(|v| v.is_finite())
        .map_or("–".into(), |v| format_grouped(v, decimals))
}

/// A size in binary units (4 KiB, 64 MiB), or a dash.
pub fn human_bytes(v: Option<f64>) -> String {
    v.filter(|v| v.is_finite())
        .map_or("–".into(), |v| units::bytes(v, Precision::Text))
}

/// A sentence's words with its first letter capitalised, for a heading or a paragraph.
pub fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map_or(String::new(), |c| c.to_uppercase().chain(chars).collect())
}
