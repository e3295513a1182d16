//! Human sizes on the command line: `4K`, `128KiB`, `8G`, `512`, and spans given as `50%`.
//! Writing quantities out is [`crate::units`]'s.

/// Parse a byte size. K/M/G/T (and KiB/MiB/GiB/TiB, KB/MB/GB/TB) are powers of 1024, the
/// convention the reviews use for block sizes and spans; a bare number is bytes. Exact: a
/// fraction must come to whole bytes (`0.5K` is 512, `0.3K` is refused), and anything past
/// 2^64 - 1 bytes is refused rather than rounded.
pub fn parse_size(text: &str) -> Result<u64, SizeError> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let text = || text.to_string();
    let not_a_size = || SizeError::NotASize { text: text() };
    let (int, frac) = num.split_once('.').unwrap_or((num, ""));
    if int.is_empty() && frac.is_empty() || frac.contains('.') {
        return Err(not_a_size());
    }
    let mult: u128 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        other => {
            return Err(SizeError::UnknownUnit {
                text: text(),
                unit: other.to_string(),
            })
        }
    };
    let out_of_range = || SizeError::OutOfRange { text: text() };
    // Digits as an exact integer, stopping once past any u64 (the fraction can only add).
    let digits = |d: &str| -> Option<u128> {
        d.bytes().try_fold(0u128, |v, c| {
            let v = v * 10 + u128::from(c - b'0');
            (v <= u128::from(u64::MAX) << 1).then_some(v)
        })
    };
    let whole = digits(int).ok_or_else(out_of_range)?;
    let frac = frac.trim_end_matches('0');
    if frac.len() > 12 {
        return Err(SizeError::NotWholeBytes { text: text() });
    }
    let scale = 10u128.pow(frac.len() as u32);
    let part = digits(frac).expect("at most 12 digits") * mult;
    if !part.is_multiple_of(scale) {
        return Err(SizeError::NotWholeBytes { text: text() });
    }
    let bytes = whole
        .checked_mul(mult)
        .and_then(|b| b.checked_add(part / scale))
        .ok_or_else(out_of_range)?;
    u64::try_from(bytes).map_err(|_| out_of_range())
}

/// A byte size that does not parse; `text` is what was given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    #[error(
        "'{text}' is not a size: expected a number with an optional unit, like 4K, 128KiB or 8G"
    )]
    NotASize { text: String },
    #[error("'{text}': unknown unit '{unit}'; use K, M, G or T (or KiB, MiB, GiB, TiB)")]
    UnknownUnit { text: String, unit: String },
    #[error("'{text}' is out of range: at most 16 EiB (2^64 - 1 bytes)")]
    OutOfRange { text: String },
    #[error("'{text}' is not a whole number of bytes")]
    NotWholeBytes { text: String },
}

/// The longest `--duration` a test takes: a week (seven times the PTS's longest test, WSAT's
/// 24 hours). A run keeps about 200 bytes a second while it runs (each second's counts and
/// latency percentiles, folded into points of several seconds only when it is written), so
/// a week is about 120 MB; a year would be 6 GB.
pub const MAX_DURATION_S: f64 = 7.0 * 86_400.0;

/// Parse a duration in seconds: a number (`60`, `0.5`, `2e3`) with an optional unit, `ms`,
/// `s`, `m`/`min` or `h`. It must be positive and at most [`MAX_DURATION_S`].
pub fn parse_duration(text: &str) -> Result<f64, DurationError> {
    let t = text.trim();
    let split = t
        .find(|c: char| c.is_ascii_alphabetic() && c != 'e' && c != 'E')
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let text = || text.to_string();
    let mult = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "s" | "sec" => 1.0,
        "ms" => 1e-3,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        other => {
            return Err(DurationError::UnknownUnit {
                text: text(),
                unit: other.to_string(),
            })
        }
    };
    let value: f64 = num
        .trim()
        .parse()
        .map_err(|_| DurationError::NotADuration { text: text() })?;
    let seconds = value * mult;
    if !seconds.is_finite() || seconds <= 0.0 {
        return Err(DurationError::NotPositive { text: text() });
    }
    if seconds > MAX_DURATION_S {
        return Err(DurationError::TooLong {
            text: text(),
            seconds,
        });
    }
    Ok(seconds)
}

/// A duration that does not parse or is out of range; `text` is what was given.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum DurationError {
    #[error("'{text}': unknown unit '{unit}'; give seconds, or use ms, s, m or h (e.g. 90s, 2m)")]
    UnknownUnit { text: String, unit: String },
    #[error("'{text}' is not a duration: give a number of seconds, e.g. 60 or 2m")]
    NotADuration { text: String },
    #[error("'{text}': give a positive number of seconds, e.g. 60 or 2m")]
    NotPositive { text: String },
    #[error(
        "'{text}' is {seconds:e} s: at most {MAX_DURATION_S} s (a week): measure longer as several runs"
    )]
    TooLong { text: String, seconds: f64 },
}

/// An LBA span: absolute bytes or a share of the target's capacity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Span {
    Bytes(u64),
    Percent(f64),
}

/// A span that does not parse, or is empty; `text` is what was given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpanError {
    #[error("'{text}' is not a percentage like 75%")]
    NotAPercentage { text: String },
    #[error("span '{text}' must be above 0% and at most 100%")]
    PercentOutOfRange { text: String },
    #[error("span '{text}' is empty: give bytes above 0 (8G) or a share of the target (75%)")]
    Empty { text: String },
    #[error(transparent)]
    Size(#[from] SizeError),
}

impl Span {
    pub fn parse(text: &str) -> Result<Span, SpanError> {
        let text_of = || text.to_string();
        match text.trim().strip_suffix('%') {
            Some(pct) => {
                let p: f64 = pct
                    .trim()
                    .parse()
                    .map_err(|_| SpanError::NotAPercentage { text: text_of() })?;
                if !(p > 0.0 && p <= 100.0) {
                    return Err(SpanError::PercentOutOfRange { text: text_of() });
                }
                Ok(Span::Percent(p))
            }
            None => match parse_size(text)? {
                0 => Err(SpanError::Empty { text: text_of() }),
                bytes => Ok(Span::Bytes(bytes)),
            },
        }
    }

    /// The span in bytes on a target of `capacity` bytes, rounded down to `align`.
    pub fn resolve(self, capacity: u64, align: u64) -> u64 {
        let bytes = match self {
            Span::Bytes(b) => b.min(capacity),
            // In floating point, a large capacity can round up past itself.
            Span::Percent(p) => ((capacity as f64 * p / 100.0) as u64).min(capacity),
        };
        bytes / align.max(1) * align.max(1)
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
        assert!(parse_size("4X")
            .unwrap_err()
            .to_string()
            .contains("unknown unit"));
        assert!(parse_size("abc")
            .unwrap_err()
            .to_string()
            .contains("not a size"));
        assert!(parse_size("0.3K").is_err());
        assert_eq!(parse_size("1.5M"), Ok(3 << 19));
        assert_eq!(parse_size("18446744073709551615"), Ok(u64::MAX));
        assert!(parse_size("18446744073709551616")
            .unwrap_err()
            .to_string()
            .contains("out of range"));
        assert!(parse_size("16777216T")
            .unwrap_err()
            .to_string()
            .contains("out of range"));
        // Exact past 2^53, where a float would round.
        assert_eq!(parse_size("9007199254740993"), Ok(9_007_199_254_740_993));
        for bad in ["", ".", "1.2.3", "-1", "K", " "] {
            assert!(parse_size(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("60"), Ok(60.0));
        assert_eq!(parse_duration("90s"), Ok(90.0));
        assert_eq!(parse_duration("2m"), Ok(120.0));
        assert_eq!(parse_duration("1.5h"), Ok(5400.0));
        assert_eq!(parse_duration("500ms"), Ok(0.5));
        assert_eq!(parse_duration("2e3"), Ok(2000.0));
        assert!(parse_duration("2e10")
            .unwrap_err()
            .to_string()
            .contains("at most"));
        // A week, what a run's per-second record holds in about 120 MB (#66 item 11).
        assert_eq!(parse_duration("168h"), Ok(604_800.0));
        let e = parse_duration("169h").unwrap_err().to_string();
        assert!(
            e.contains("(a week): measure longer as several runs"),
            "{e}"
        );
        for bad in ["0", "-1", "nan", "inf", "", "5 parsecs", "1e400"] {
            assert!(parse_duration(bad).is_err(), "{bad:?}");
        }
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
        assert!(Span::parse("0").unwrap_err().to_string().contains("empty"));
        assert!(Span::parse("0K").unwrap_err().to_string().contains("empty"));
        assert!(Span::parse("150%").is_err());
    }
}
