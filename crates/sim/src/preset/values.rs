//! The value parsers: a size, a time, a percentage, a rate, an energy, a power..., each
//! checked against its key's range in [`RANGES`].

use super::keys::RANGES;
use crate::range::Quantity;
use crate::timing::ProgramTimes;

pub(super) fn choice<T>(
    key: &str,
    v: &str,
    parse: fn(&str) -> Option<T>,
    names: &[&str],
) -> Result<T, String> {
    parse(v).ok_or_else(|| {
        let alternatives: Vec<String> = names.iter().map(|n| format!("{key}={n}")).collect();
        format!("{key}={v}: use {}", alternatives.join(", "))
    })
}

/// `1.3ms`, or one time per page type in turn: `600us/2ms`.
pub(super) fn program_times(key: &str, v: &str) -> Result<ProgramTimes, String> {
    let times = v
        .split('/')
        .map(|t| duration(key, t))
        .collect::<Result<Vec<u64>, String>>()?;
    ProgramTimes::per_page(&times).ok_or_else(|| {
        format!("{key}={v}: give one time (1.3ms) or one per page type, at most 3 (600us/2ms)")
    })
}

/// An energy: `4uJ`, `2.5nJ`, `1mJ`, `150pJ`, `0.001J`; a bare number is in `bare` joules.
pub(super) fn energy(key: &str, v: &str, bare: f64) -> Result<f64, String> {
    let lower = v.to_ascii_lowercase().replace('µ', "u");
    let (num, scale) = match lower.strip_suffix('j') {
        Some(t) => match t.chars().last() {
            Some('p') => (&t[..t.len() - 1], 1e-12),
            Some('n') => (&t[..t.len() - 1], 1e-9),
            Some('u') => (&t[..t.len() - 1], 1e-6),
            Some('m') => (&t[..t.len() - 1], 1e-3),
            _ => (t, 1.0),
        },
        None => (lower.as_str(), bare),
    };
    let x: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("{key}={v}: expected an energy like {key}=4uJ or {key}=150pJ"))?;
    within(key, Quantity::Joules, v, x * scale)?;
    Ok(x * scale)
}

/// A power: `0.35W`, `80mW`; a bare number is watts.
pub(super) fn power(key: &str, v: &str) -> Result<f64, String> {
    let lower = v.to_ascii_lowercase();
    let (num, scale) = match lower.strip_suffix("mw") {
        Some(t) => (t, 1e-3),
        None => (lower.strip_suffix('w').unwrap_or(&lower), 1.0),
    };
    let x: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("{key}={v}: expected a power like {key}=0.35W or {key}=80mW"))?;
    within(key, Quantity::Watts, v, x * scale)?;
    Ok(x * scale)
}

pub(super) fn rate_or_zero(key: &str, v: &str) -> Result<f64, String> {
    if v.trim() == "0" {
        Ok(0.0)
    } else {
        rate(key, v)
    }
}

pub(super) fn size(key: &str, v: &str) -> Result<u64, String> {
    let bytes = engine::size::parse_size(v).map_err(|e| format!("{key}: {e}"))?;
    within(key, Quantity::Bytes, v, bytes as f64)?;
    Ok(bytes)
}

pub(super) fn number(key: &str, v: &str) -> Result<u32, String> {
    let n = v
        .parse::<u32>()
        .map_err(|_| format!("{key}={v}: expected a whole number"))?;
    within(key, Quantity::Count, v, n.into())?;
    Ok(n)
}

/// `value` of `key` (as written, `text`) against the key's range in [`RANGES`].
pub(super) fn within(key: &str, quantity: Quantity, text: &str, value: f64) -> Result<(), String> {
    match RANGES
        .iter()
        .find(|r| r.key == key && r.quantity == quantity)
    {
        Some(range) => range.check(text, value),
        None => Err(format!(
            "{key}={text}: ssdlab has no range for {key} (a bug in ssdlab: please report it)"
        )),
    }
}

pub(super) fn count(key: &str, v: &str) -> Result<u32, String> {
    number(key, v)
}

pub(super) fn percent(key: &str, v: &str) -> Result<f64, String> {
    let t = v.strip_suffix('%').unwrap_or(v).trim();
    let p: f64 = t
        .parse()
        .map_err(|_| format!("{key}={v}: expected a percentage like {key}=7% or {key}=25%"))?;
    within(key, Quantity::Percent, v, p)?;
    Ok(p)
}

pub(super) fn rate(key: &str, v: &str) -> Result<f64, String> {
    let lower = v.to_ascii_lowercase();
    let t = lower
        .strip_suffix("mb/s")
        .or_else(|| lower.strip_suffix("mbps"))
        .unwrap_or(&lower)
        .trim();
    let r: f64 = t
        .parse()
        .map_err(|_| format!("{key}={v}: expected a rate in MB/s like {key}=400"))?;
    within(key, Quantity::MBps, v, r)?;
    Ok(r)
}

pub(super) fn boolean(key: &str, v: &str) -> Result<bool, String> {
    match v.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(format!("{key}={v}: use {key}=on or {key}=off")),
    }
}

/// `50us`, `1.3ms`, `3ms`, `500ns`, `0.002s`; a bare number is nanoseconds.
pub(super) fn duration(key: &str, v: &str) -> Result<u64, String> {
    let lower = v.to_ascii_lowercase();
    let split = lower
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(lower.len());
    let (num, unit) = lower.split_at(split);
    let x: f64 = num
        .parse()
        .map_err(|_| format!("{key}={v}: expected a time like 50us, 1.3ms or 3ms"))?;
    let mult = match unit.trim() {
        "" | "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        other => {
            return Err(format!(
                "{key}={v}: unknown time unit '{other}'; use ns, us, ms or s"
            ))
        }
    };
    let ns = x * mult;
    within(key, Quantity::Nanos, v, ns)?;
    Ok(ns.round() as u64)
}

/// The quantity a numeric key holds, from its range (the first, for `gc_burst`'s two).
fn quantity_of(key: &str) -> Option<Quantity> {
    RANGES.iter().find(|r| r.key == key).map(|r| r.quantity)
}

/// A numeric key's value (as a spec writes it) in its range's unit: ns, bytes, MB/s,
/// joules, watts, percent or a count; one per page type for `t_prog` (`600us/2ms`). What a
/// parameter search reads and scales (`sim fit`); [`spec_text`] writes it back.
pub fn quantities(key: &str, v: &str) -> Result<Vec<f64>, String> {
    let one = |part: &str| -> Result<f64, String> {
        Ok(match quantity_of(key) {
            Some(Quantity::Nanos) => duration(key, part)? as f64,
            Some(Quantity::Bytes) => size(key, part)? as f64,
            Some(Quantity::MBps) => rate_or_zero(key, part)?,
            Some(Quantity::Percent) => percent(key, part)?,
            Some(Quantity::Joules) => {
                let bare = if matches!(key, "e_channel" | "e_link") {
                    1e-12
                } else {
                    1e-6
                };
                energy(key, part, bare)?
            }
            Some(Quantity::Watts) => power(key, part)?,
            Some(Quantity::Count) => number(key, part)?.into(),
            Some(Quantity::Factor) => part
                .trim()
                .parse()
                .map_err(|_| format!("{key}={v}: expected a number"))?,
            None => return Err(format!("{key} is not a numeric key")),
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
