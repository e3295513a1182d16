//! The physical range of a numeric key (each key's record in `preset::KEYS` holds its
//! own). A value outside it describes no SSD, and the simulation would pay for it: a rate
//! near zero stretches a run to millions of seconds of points, an energy near the largest
//! float makes watts infinite, a figure past a counter's width wraps.

use engine::units::{format_size, significant};

use crate::config::fmt_ns;
use crate::error::KeyError;

/// What a key measures, in the unit the configuration holds it in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    Count,
    Bytes,
    Nanos,
    MBps,
    Joules,
    Watts,
    Percent,
    /// A plain ratio.
    Factor,
}

impl Quantity {
    /// `value` the way a reader writes it: `1 MiB`, `10 ms`, `150 pJ`.
    fn format(self, value: f64) -> String {
        match self {
            Quantity::Count | Quantity::Factor => significant(value, 6),
            Quantity::Bytes => format_size(value as u64),
            Quantity::Nanos => fmt_ns(value as u64),
            Quantity::MBps => format!("{} MB/s", significant(value, 6)),
            Quantity::Joules => si(value, "J"),
            Quantity::Watts => si(value, "W"),
            Quantity::Percent => format!("{}%", significant(value, 6)),
        }
    }
}

/// `value` with the SI prefix that puts it in 1..1000: `150 pJ`, `25 W`.
fn si(value: f64, unit: &str) -> String {
    const PREFIXES: [(f64, &str); 5] = [
        (1.0, ""),
        (1e-3, "m"),
        (1e-6, "u"),
        (1e-9, "n"),
        (1e-12, "p"),
    ];
    let (scale, prefix) = PREFIXES
        .into_iter()
        .find(|&(scale, _)| value >= scale)
        .unwrap_or((1.0, ""));
    format!("{} {prefix}{unit}", significant(value / scale, 6))
}

/// A numeric key's physical range, in the unit of its [`Quantity`], and why.
#[derive(Clone, Copy, Debug)]
pub struct Range {
    pub key: &'static str,
    pub quantity: Quantity,
    pub min: f64,
    pub max: f64,
    /// What real drives have, so the message says why the range is what it is.
    pub why: &'static str,
    /// What a value of 0 would do, said only when 0 is the value given.
    pub zero: Option<&'static str>,
}

impl Range {
    pub const fn new(
        key: &'static str,
        quantity: Quantity,
        min: f64,
        max: f64,
        why: &'static str,
    ) -> Range {
        Range {
            key,
            quantity,
            min,
            max,
            why,
            zero: None,
        }
    }

    /// The range, saying `what` a value of 0 would do when 0 is given.
    pub const fn when_zero(self, what: &'static str) -> Range {
        Range {
            zero: Some(what),
            ..self
        }
    }

    /// `value` (parsed from `text`), or why it describes no drive.
    pub fn check(&self, text: &str, value: f64) -> Result<(), KeyError> {
        // Written so that NaN is outside too.
        if value >= self.min && value <= self.max {
            return Ok(());
        }
        Err(KeyError::Outside {
            key: self.key,
            text: text.to_string(),
            min: self.quantity.format(self.min),
            max: self.quantity.format(self.max),
            why: self.why,
            zero: self.zero.filter(|_| value == 0.0),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_read_in_the_units_a_reader_writes() {
        let range = |q, min, max| Range::new("k", q, min, max, "why").check("x", f64::NAN);
        let says = |q, min, max| range(q, min, max).unwrap_err().to_string();
        assert_eq!(
            says(Quantity::MBps, 1.0, 1e5),
            "k=x is outside 1 MB/s..100000 MB/s: why"
        );
        assert!(says(Quantity::Bytes, 1048576.0, 1125899906842624.0).contains("1 MiB..1 PiB"));
        assert!(says(Quantity::Nanos, 1e3, 1e7).contains("1 us..10 ms"));
        assert!(says(Quantity::Joules, 0.0, 1e-8).contains("0 J..10 nJ"));
        assert!(says(Quantity::Watts, 0.0, 25.0).contains("0 W..25 W"));
        assert!(says(Quantity::Percent, 0.0, 100.0).contains("0%..100%"));
        let r = Range::new("k", Quantity::Count, 1.0, 64.0, "why");
        assert!(r.check("1", 1.0).is_ok() && r.check("64", 64.0).is_ok());
        assert!(r.check("0", 0.0).is_err() && r.check("65", 65.0).is_err());
        assert!(r.check("inf", f64::INFINITY).is_err());
    }

    /// What 0 would do is said of 0 alone, not appended to every value out of range.
    #[test]
    fn what_zero_does_is_said_only_of_zero() {
        let r =
            Range::new("dies", Quantity::Count, 1.0, 64.0, "why").when_zero("gives zero blocks");
        assert_eq!(
            r.check("0", 0.0).unwrap_err().to_string(),
            "dies=0 is outside 1..64: why; 0 gives zero blocks"
        );
        assert_eq!(
            r.check("65", 65.0).unwrap_err().to_string(),
            "dies=65 is outside 1..64: why"
        );
    }
}
