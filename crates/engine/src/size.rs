//! Human sizes on the command line: `4K`, `128KiB`, `8G`, `512`, and spans given as `50%`.

/// Parse a byte size. K/M/G/T (and KiB/MiB/GiB/TiB, KB/MB/GB/TB) are powers of 1024, the
/// convention the reviews use for block sizes and spans; a bare number is bytes.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num
        .parse()
        .map_err(|_| format!("'{text}' is not a size: expected a number with an optional unit, like 4K, 128KiB or 8G"))?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        other => {
            return Err(format!(
                "'{text}': unknown unit '{other}'; use K, M, G or T (or KiB, MiB, GiB, TiB)"
            ))
        }
    };
    let bytes = value * mult as f64;
    if !bytes.is_finite() || bytes < 0.0 || bytes > u64::MAX as f64 {
        return Err(format!("'{text}' is out of range"));
    }
    if bytes.fract() != 0.0 {
        return Err(format!("'{text}' is not a whole number of bytes"));
    }
    Ok(bytes as u64)
}

/// An LBA span: absolute bytes or a share of the target's capacity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Span {
    Bytes(u64),
    Percent(f64),
}

impl Span {
    pub fn parse(text: &str) -> Result<Span, String> {
        match text.trim().strip_suffix('%') {
            Some(pct) => {
                let p: f64 = pct
                    .trim()
                    .parse()
                    .map_err(|_| format!("'{text}' is not a percentage like 75%"))?;
                if !(p > 0.0 && p <= 100.0) {
                    return Err(format!("span '{text}' must be above 0% and at most 100%"));
                }
                Ok(Span::Percent(p))
            }
            None => Ok(Span::Bytes(parse_size(text)?)),
        }
    }

    /// The span in bytes on a target of `capacity` bytes, rounded down to `align`.
    pub fn resolve(self, capacity: u64, align: u64) -> u64 {
        let bytes = match self {
            Span::Bytes(b) => b.min(capacity),
            Span::Percent(p) => (capacity as f64 * p / 100.0) as u64,
        };
        bytes / align * align
    }
}

/// Format bytes the way a reader expects: 4 KiB, 128 KiB, 8 GiB.
pub fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if value.fract() == 0.0 {
        format!("{value} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4K"), Ok(4096));
        assert_eq!(parse_size("4KiB"), Ok(4096));
        assert_eq!(parse_size("128kb"), Ok(128 << 10));
        assert_eq!(parse_size("8G"), Ok(8 << 30));
        assert_eq!(parse_size("512"), Ok(512));
        assert_eq!(parse_size("0.5K"), Ok(512));
        assert!(parse_size("4X").unwrap_err().contains("unknown unit"));
        assert!(parse_size("abc").unwrap_err().contains("not a size"));
        assert!(parse_size("0.3K").is_err());
    }

    #[test]
    fn spans() {
        assert_eq!(
            Span::parse("50%").unwrap().resolve(1000 * 4096, 4096),
            500 * 4096
        );
        assert_eq!(Span::parse("1M").unwrap().resolve(1 << 30, 4096), 1 << 20);
        assert_eq!(Span::parse("8G").unwrap().resolve(1 << 30, 4096), 1 << 30);
        assert!(Span::parse("0%").is_err());
        assert!(Span::parse("150%").is_err());
    }

    #[test]
    fn formatting() {
        assert_eq!(format_size(4096), "4 KiB");
        assert_eq!(format_size(8 << 30), "8 GiB");
        assert_eq!(format_size(1536), "1.5 KiB");
    }
}
