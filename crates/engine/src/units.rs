//! Quantities as a reader sees them, written one way everywhere: sizes in binary units
//! (4 KiB), capacities in decimal GB and TB as drives are sold, throughput in MB/s, power in
//! W or mW. Reading what a user types is [`crate::size`]'s.

/// How closely a size in binary units is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// Text and tables: whole when exact, else one decimal: 4 KiB, 1.5 KiB, 232.8 GiB.
    Text,
    /// Chart ticks, which sit close together: up to two decimals, trailing zeros dropped:
    /// 1.25 MiB, 232.83 GiB.
    Axis,
}

const BINARY: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];

/// `v` bytes in binary units, up to EiB; what is not finite as it is.
pub fn bytes(v: f64, precision: Precision) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    let mut x = v;
    let mut unit = 0;
    while x.abs() >= 1024.0 && unit + 1 < BINARY.len() {
        x /= 1024.0;
        unit += 1;
    }
    let number = match precision {
        Precision::Text if x.fract() == 0.0 => x.to_string(),
        Precision::Text => format!("{x:.1}"),
        Precision::Axis => trim_zeros(format!("{x:.2}")),
    };
    format!("{number} {}", BINARY[unit])
}

/// A byte count in text: 4 KiB, 8 GiB, 1.5 KiB, up to 16 EiB.
pub fn format_size(b: u64) -> String {
    bytes(b as f64, Precision::Text)
}

/// A drive's capacity as drives are sold, in decimal units: 31.9 GB, 250 GB, 1.00 TB.
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

/// A throughput in MB/s (10^6 bytes/s), the number alone as a sentence gives it: one
/// decimal below 100, none above (52.3, 480).
pub fn mbps(v: f64) -> String {
    if v.abs() < 100.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.0}")
    }
}

/// Power: milliwatts below 1 W (a slumbering drive), else watts: 45 mW, 3.46 W.
pub fn watts(w: f64) -> String {
    if w.abs() < 1.0 {
        format!("{:.0} mW", w * 1000.0)
    } else {
        format!("{w:.2} W")
    }
}

/// A number to `digits` significant digits, trailing zeros dropped: 0.0716, 12.3, 2 (at
/// most 20 decimals; 0, and what is not finite, as `0`).
pub fn significant(v: f64, digits: i32) -> String {
    if v == 0.0 || !v.is_finite() {
        return "0".to_string();
    }
    let decimals = (digits - 1 - v.abs().log10().floor() as i32).clamp(0, 20) as usize;
    trim_zeros(format!("{v:.decimals$}"))
}

/// A decimal string without trailing zeros (nor a trailing dot): `1.50` -> `1.5`; `-0.00`
/// -> `0`.
pub fn trim_zeros(s: String) -> String {
    if !s.contains('.') {
        return s;
    }
    match s.trim_end_matches('0').trim_end_matches('.') {
        "-0" => "0".to_string(),
        t => t.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_in_text() {
        assert_eq!(format_size(0), "0 B");
        assert_eq!(format_size(512), "512 B");
        assert_eq!(format_size(4096), "4 KiB");
        assert_eq!(format_size(8 << 30), "8 GiB");
        assert_eq!(format_size(1536), "1.5 KiB");
        assert_eq!(format_size(1025), "1.0 KiB");
        assert_eq!(format_size(250_000_000_000), "232.8 GiB");
        assert_eq!(format_size(3 << 50), "3 PiB");
        assert_eq!(format_size(8 << 60), "8 EiB");
        assert_eq!(format_size(u64::MAX), "16 EiB");
    }

    #[test]
    fn sizes_on_an_axis() {
        let axis = |v| bytes(v, Precision::Axis);
        assert_eq!(axis(512.0), "512 B");
        assert_eq!(axis(1024.0), "1 KiB");
        assert_eq!(axis(1536.0), "1.5 KiB");
        assert_eq!(axis(1.25 * 1048576.0), "1.25 MiB");
        assert_eq!(axis(250e9), "232.83 GiB");
        assert_eq!(axis(-2048.0), "-2 KiB");
        assert_eq!(axis(f64::INFINITY), "inf");
    }

    #[test]
    fn capacities_as_sold() {
        assert_eq!(capacity(31_900_000_000), "31.9 GB");
        assert_eq!(capacity(250_059_350_016), "250 GB");
        assert_eq!(capacity(999_000_000_000), "999 GB");
        assert_eq!(capacity(1_000_204_886_016), "1.00 TB");
    }

    #[test]
    fn rates_and_power() {
        assert_eq!(mbps(52.34), "52.3");
        assert_eq!(mbps(480.4), "480");
        assert_eq!(watts(0.045), "45 mW");
        assert_eq!(watts(3.456), "3.46 W");
        assert_eq!(watts(1.0), "1.00 W");
    }

    #[test]
    fn significant_digits() {
        assert_eq!(significant(0.071_633, 3), "0.0716");
        assert_eq!(significant(12.34, 3), "12.3");
        assert_eq!(significant(2.0, 3), "2");
        assert_eq!(significant(123_456.0, 3), "123456");
        assert_eq!(significant(0.0, 3), "0");
        assert_eq!(significant(f64::NAN, 3), "0");
    }

    #[test]
    fn zeros_trimmed() {
        assert_eq!(trim_zeros("1.50".into()), "1.5");
        assert_eq!(trim_zeros("2.00".into()), "2");
        assert_eq!(trim_zeros("-0.00".into()), "0");
        assert_eq!(trim_zeros("100".into()), "100");
    }
}
