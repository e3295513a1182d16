//! Number formats: how tick labels and bar value labels are written.

use engine::units::{self, trim_zeros, Precision};

/// How tick labels (and bar value labels) are written.
#[derive(Clone, Copy, Debug)]
pub enum NumberFormat {
    /// Plain numbers while every label on the axis is below 10,000, SI suffixes otherwise.
    Auto,
    /// SI-ish suffixes: 950, 25K, 1.2M, 3G.
    Si,
    /// Plain numbers, as few decimals as needed: 0.25, 1500, 2000.
    Plain,
    /// Exactly this many decimals: `Fixed(1)` writes 250.0 and 512.3.
    Fixed(u8),
    /// Exactly this many decimals and thousands separated by commas: `Grouped(0)`
    /// writes 32,200.
    Grouped(u8),
    /// Binary byte sizes: 512 B, 1 KiB, 1.5 MiB, 64 MiB.
    Bytes,
    /// Your own function.
    Custom(fn(f64) -> String),
}

impl NumberFormat {
    /// Formats one value.
    pub fn format(self, v: f64) -> String {
        match self {
            NumberFormat::Auto | NumberFormat::Si => format_si(v),
            NumberFormat::Plain => format_plain(v),
            NumberFormat::Fixed(d) => format!("{v:.*}", d as usize),
            NumberFormat::Grouped(d) => format_grouped(v, d as usize),
            NumberFormat::Bytes => units::bytes(v, Precision::Axis),
            NumberFormat::Custom(f) => f(v),
        }
    }

    /// Formats a whole set of tick values, resolving `Auto` against the largest of them.
    pub fn format_all(self, values: &[f64]) -> Vec<String> {
        let fmt = match self {
            NumberFormat::Auto => {
                let big = values.iter().any(|v| v.abs() >= 10_000.0);
                if big {
                    NumberFormat::Si
                } else {
                    NumberFormat::Plain
                }
            }
            f => f,
        };
        values.iter().map(|&v| fmt.format(v)).collect()
    }
}

/// A plain number with as few decimals as needed (at most 6): `0.30000000000000004` -> `0.3`.
pub fn format_plain(v: f64) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    trim_zeros(format!("{v:.6}"))
}

/// SI-ish suffixes as review charts print them: `25000` -> `25K`, `1_200_000` -> `1.2M`,
/// `950` -> `950`, `0.5` -> `0.5`.
pub fn format_si(v: f64) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    const UNITS: [(f64, &str); 4] = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "K")];
    for (div, suffix) in UNITS {
        // Compare after rounding so 999_999.9 becomes 1M rather than 1000K.
        if (v.abs() / div * 1000.0).round() / 1000.0 >= 1.0 {
            return format!("{}{suffix}", trim_zeros(format!("{:.2}", v / div)));
        }
    }
    format_plain((v * 1000.0).round() / 1000.0)
}

/// A number with `decimals` decimals and commas between thousands: `1234567.8` with one
/// decimal -> `1,234,567.8`.
pub fn format_grouped(v: f64, decimals: usize) -> String {
    let s = format!("{v:.decimals$}");
    if !v.is_finite() {
        return s;
    }
    let (sign, rest) = s.strip_prefix('-').map_or(("", s.as_str()), |r| ("-", r));
    let (int, frac) = rest
        .split_once('.')
        .map_or((rest, None), |(i, f)| (i, Some(f)));
    let mut out = String::from(sign);
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_formats() {
        assert_eq!(format_si(25000.0), "25K");
        assert_eq!(format_si(1_200_000.0), "1.2M");
        assert_eq!(format_si(950.0), "950");
        assert_eq!(format_si(0.5), "0.5");
        assert_eq!(format_si(0.0), "0");
        assert_eq!(format_si(-12_500.0), "-12.5K");
        assert_eq!(format_si(999_999.9), "1M");
        assert_eq!(format_si(3e9), "3G");
        assert_eq!(NumberFormat::Bytes.format(1536.0), "1.5 KiB");
        assert_eq!(NumberFormat::Bytes.format(250e9), "232.83 GiB");
        assert_eq!(format_plain(0.1 + 0.2), "0.3");
        assert_eq!(NumberFormat::Fixed(1).format(250.0), "250.0");
        assert_eq!(NumberFormat::Grouped(0).format(32200.0), "32,200");
        assert_eq!(NumberFormat::Grouped(1).format(-1234567.84), "-1,234,567.8");
        assert_eq!(NumberFormat::Grouped(0).format(999.0), "999");
        assert_eq!(NumberFormat::Grouped(2).format(0.5), "0.50");
        assert_eq!(
            NumberFormat::Custom(|v| format!("{v}%")).format(50.0),
            "50%"
        );
    }
}
