//! The value parsers: a size, a time, a percentage, a rate, an energy, a power..., each
//! checked against its key's range.

use super::key::{own_key, Key};
use crate::error::KeyError;
use crate::range::Quantity;
use crate::timing::ProgramTimes;

pub(super) fn choice<T>(
    key: &Key,
    v: &str,
    parse: fn(&str) -> Option<T>,
    names: &[&str],
) -> Result<T, KeyError> {
    let key = key.name;
    parse(v).ok_or_else(|| {
        let alternatives: Vec<String> = names.iter().map(|n| format!("{key}={n}")).collect();
        KeyError::malformed(key, v, format!("use {}", alternatives.join(", ")))
    })
}

/// `1.3ms`, or one time per page type in turn: `600us/2ms`.
pub(super) fn program_times(key: &Key, v: &str) -> Result<ProgramTimes, KeyError> {
    let times = v
        .split('/')
        .map(|t| duration(key, t))
        .collect::<Result<Vec<u64>, KeyError>>()?;
    ProgramTimes::per_page(&times).ok_or_else(|| {
        KeyError::malformed(
            key.name,
            v,
            "give one time (1.3ms) or one per page type, at most 3 (600us/2ms)",
        )
    })
}

/// An energy: `4uJ`, `2.5nJ`, `1mJ`, `150pJ`, `0.001J`; a bare number is in the key's bare
/// unit.
pub(super) fn energy(key: &Key, v: &str) -> Result<f64, KeyError> {
    let lower = v.to_ascii_lowercase().replace('µ', "u");
    let (num, scale) = match lower.strip_suffix('j') {
        Some(t) => match t.chars().last() {
            Some('p') => (&t[..t.len() - 1], 1e-12),
            Some('n') => (&t[..t.len() - 1], 1e-9),
            Some('u') => (&t[..t.len() - 1], 1e-6),
            Some('m') => (&t[..t.len() - 1], 1e-3),
            _ => (t, 1.0),
        },
        None => (lower.as_str(), key.bare_scale()),
    };
    let x: f64 = num.trim().parse().map_err(|_| {
        let k = key.name;
        KeyError::malformed(
            k,
            v,
            format!("expected an energy like {k}=4uJ or {k}=150pJ"),
        )
    })?;
    within(key, Quantity::Joules, v, x * scale)?;
    Ok(x * scale)
}

/// A power: `0.35W`, `80mW`; a bare number is watts.
pub(super) fn power(key: &Key, v: &str) -> Result<f64, KeyError> {
    let lower = v.to_ascii_lowercase();
    let (num, scale) = match lower.strip_suffix("mw") {
        Some(t) => (t, 1e-3),
        None => (lower.strip_suffix('w').unwrap_or(&lower), 1.0),
    };
    let x: f64 = num.trim().parse().map_err(|_| {
        let k = key.name;
        KeyError::malformed(k, v, format!("expected a power like {k}=0.35W or {k}=80mW"))
    })?;
    within(key, Quantity::Watts, v, x * scale)?;
    Ok(x * scale)
}

/// A plain ratio above 1: `gc_burst_rate=2`.
pub(super) fn factor(key: &Key, v: &str) -> Result<f64, KeyError> {
    let x: f64 = v.parse().map_err(|_| {
        let k = key.name;
        KeyError::malformed(k, v, format!("expected a number above 1, e.g. {k}=2"))
    })?;
    within(key, Quantity::Factor, v, x)?;
    Ok(x)
}

pub(super) fn rate_or_zero(key: &Key, v: &str) -> Result<f64, KeyError> {
    if v.trim() == "0" {
        Ok(0.0)
    } else {
        rate(key, v)
    }
}

pub(super) fn size(key: &Key, v: &str) -> Result<u64, KeyError> {
    let bytes = engine::size::parse_size(v).map_err(|why| KeyError::Size {
        key: key.name.to_string(),
        why,
    })?;
    within(key, Quantity::Bytes, v, bytes as f64)?;
    Ok(bytes)
}

pub(super) fn number(key: &Key, v: &str) -> Result<u32, KeyError> {
    let n = v
        .parse::<u32>()
        .map_err(|_| KeyError::malformed(key.name, v, "expected a whole number"))?;
    within(key, Quantity::Count, v, n.into())?;
    Ok(n)
}

/// `value` of `key` (as written, `text`) against the key's range for `quantity`.
fn within(key: &Key, quantity: Quantity, text: &str, value: f64) -> Result<(), KeyError> {
    match key.range_of(quantity) {
        Some(range) => range.check(text, value),
        None => Err(KeyError::NoRange {
            key: key.name.to_string(),
            value: text.to_string(),
        }),
    }
}

pub(super) fn percent(key: &Key, v: &str) -> Result<f64, KeyError> {
    let t = v.strip_suffix('%').unwrap_or(v).trim();
    let p: f64 = t.parse().map_err(|_| {
        let k = key.name;
        KeyError::malformed(
            k,
            v,
            format!("expected a percentage like {k}=7% or {k}=25%"),
        )
    })?;
    within(key, Quantity::Percent, v, p)?;
    Ok(p)
}

pub(super) fn rate(key: &Key, v: &str) -> Result<f64, KeyError> {
    let lower = v.to_ascii_lowercase();
    let t = lower
        .strip_suffix("mb/s")
        .or_else(|| lower.strip_suffix("mbps"))
        .unwrap_or(&lower)
        .trim();
    let r: f64 = t.parse().map_err(|_| {
        let k = key.name;
        KeyError::malformed(k, v, format!("expected a rate in MB/s like {k}=400"))
    })?;
    within(key, Quantity::MBps, v, r)?;
    Ok(r)
}

pub(super) fn boolean(key: &Key, v: &str) -> Result<bool, KeyError> {
    let k = key.name;
    match v.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(KeyError::malformed(k, v, format!("use {k}=on or {k}=off"))),
    }
}

/// `50us`, `1.3ms`, `3ms`, `500ns`, `0.002s`; a bare number is nanoseconds.
pub(super) fn duration(key: &Key, v: &str) -> Result<u64, KeyError> {
    let lower = v.to_ascii_lowercase();
    let split = lower
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(lower.len());
    let (num, unit) = lower.split_at(split);
    let x: f64 = num
        .parse()
        .map_err(|_| KeyError::malformed(key.name, v, "expected a time like 50us, 1.3ms or 3ms"))?;
    let mult = match unit.trim() {
        "" | "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        other => {
            let takes = format!("unknown time unit '{other}'; use ns, us, ms or s");
            return Err(KeyError::malformed(key.name, v, takes));
        }
    };
    let ns = x * mult;
    within(key, Quantity::Nanos, v, ns)?;
    Ok(ns.round() as u64)
}

/// The quantity a numeric key holds, from its range (the first, for `gc_burst`'s two).
fn quantity_of(key: &str) -> Option<Quantity> {
    own_key(key).and_then(Key::quantity)
}

/// A numeric key's value (as a spec writes it) in its range's unit: ns, bytes, MB/s,
/// joules, watts, percent or a count; one per page type for `t_prog` (`600us/2ms`). What a
/// parameter search reads and scales (`sim fit`); [`spec_text`] writes it back.
pub fn quantities(key: &str, v: &str) -> Result<Vec<f64>, KeyError> {
    let numeric = own_key(key).and_then(|k| Some((k, k.quantity()?)));
    let Some((k, quantity)) = numeric else {
        return Err(KeyError::NotNumeric(key.to_string()));
    };
    let one = |part: &str| -> Result<f64, KeyError> {
        Ok(match quantity {
            Quantity::Nanos => duration(k, part)? as f64,
            Quantity::Bytes => size(k, part)? as f64,
            Quantity::MBps => rate_or_zero(k, part)?,
            Quantity::Percent => percent(k, part)?,
            Quantity::Joules => energy(k, part)?,
            Quantity::Watts => power(k, part)?,
            Quantity::Count => number(k, part)?.into(),
            Quantity::Factor => part
                .trim()
                .parse()
                .map_err(|_| KeyError::malformed(key, v, "expected a number"))?,
        })
    };
    v.split('/').map(one).collect()
}

/// The spec text of a numeric key's `values` (in its range's unit): the inverse of
/// [`quantities`], exact enough to read back the same configuration.
pub fn spec_text(key: &str, values: &[f64]) -> String {
    let one = |x: f64| match quantity_of(key) {
        Some(Quantity::Nanos) => format!("{}ns", x.round() as u64),
        Some(Quantity::Bytes) => format!("{}", x.round() as u64),
        Some(Quantity::Count) => format!("{}", x.round() as u64),
        Some(Quantity::Percent) => format!("{}%", significant(x)),
        Some(Quantity::Joules) => format!("{}nJ", significant(x * 1e9)),
        Some(Quantity::Watts) => format!("{}mW", significant(x * 1e3)),
        _ => significant(x),
    };
    values.iter().map(|&x| one(x)).collect::<Vec<_>>().join("/")
}

/// Four significant digits: a fitted value is no surer than that.
fn significant(x: f64) -> String {
    engine::units::significant(x, 4)
}
