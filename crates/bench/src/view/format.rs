//! Numbers as a reader wants them: fixed decimals, thousands grouped, sizes in binary
//! units, capacities in decimal GB, a dash for what was not measured.

use crate::chart::{format_bytes, format_grouped};

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
    v.filter(|v| v.is_finite()).map_or("–".into(), format_bytes)
}

/// Capacity as the reviews wrote it: decimal GB (TB from 1000 GB).
pub fn capacity(bytes: u64) -> String {
    let gb = bytes as f64 / 1e9;
    if gb >= 1000.0 {
        format!("{:.2} TB", gb / 1000.0)
    } else if gb >= 100.0 {
        format!("{gb:.0} GB")
    } else {
        format!("{gb:.1} GB")
    }
}
