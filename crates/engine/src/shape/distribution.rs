//! Where random accesses land: fio's `random_distribution`, spelled as fio spells it
//! (`zipf:1.2`, `pareto:0.2`, `normal:10`, `zoned:50/5:30/15:20/`, `zoned_abs:50/1G:50/`).

use std::fmt;
use std::str::FromStr;

use rand_distr::{Distribution as _, Normal, Zipf};
use serde::{Deserialize, Serialize};

use super::shares::Shares;
use crate::pattern::Rng;
use crate::size::parse_size;

/// How a random workload picks its blocks within the span.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Distribution {
    /// Every block equally likely.
    #[default]
    Uniform,
    /// The block of rank k (from 1) with probability proportional to 1/k^theta; as in fio,
    /// the ranks are scattered over the span so the hot blocks are not one region.
    Zipf { theta: f64 },
    /// fio's `pareto:h`: a share h of the blocks takes a share 1-h of the accesses
    /// (h = 0.2: 80% of accesses to 20% of the blocks), scattered as zipf is.
    Pareto { h: f64 },
    /// Gaussian around the middle of the span with a standard deviation of `dev_pct` % of
    /// it (draws beyond the span are drawn again), scattered as zipf is. fio's `normal:dev`
    /// approximates a Gaussian by summing uniforms; this is the Gaussian itself.
    Normal { dev_pct: f64 },
    /// Consecutive regions from the start of the span, each with its share of the accesses
    /// and uniform within: fio's `zoned` (sizes in % of the span) and `zoned_abs` (in bytes).
    Zoned { zones: Vec<Zone> },
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Zone {
    pub access_pct: f64,
    pub size: ZoneSize,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ZoneSize {
    Percent(f64),
    Bytes(u64),
}

impl Distribution {
    pub fn is_uniform(&self) -> bool {
        *self == Distribution::Uniform
    }

    /// Check the distribution against a span of `units` blocks of `unit_bytes` each.
    pub fn check(&self, units: u64, unit_bytes: u64) -> Result<(), DistributionError> {
        let Distribution::Zoned { zones } = self else {
            return Ok(());
        };
        let bounds = zone_bounds(zones, units, unit_bytes);
        if bounds.last().is_some_and(|&(start, n)| start + n > units) {
            return Err(DistributionError::ZonesPastSpan {
                zones: self.clone(),
                span_bytes: units * unit_bytes,
            });
        }
        if let Some(i) = bounds.iter().position(|&(_, n)| n == 0) {
            return Err(DistributionError::EmptyZone {
                zone: i + 1,
                zones: self.clone(),
            });
        }
        Ok(())
    }

    /// The sampler of this distribution over `units` blocks of `unit_bytes`, its scatter
    /// drawn from `rng`. The distribution must have passed [`Distribution::check`].
    pub(crate) fn sampler(&self, units: u64, unit_bytes: u64, rng: &mut Rng) -> Sampler {
        let mut scatter = || Scatter::new(units, rng);
        match self {
            Distribution::Uniform => Sampler::Uniform,
            Distribution::Zipf { theta } => Sampler::Zipf(
                Zipf::new(units as f64, *theta).expect("theta checked on parsing"),
                scatter(),
            ),
            Distribution::Pareto { h } => Sampler::Pareto {
                power: h.ln() / (1.0 - h).ln(),
                scatter: scatter(),
            },
            Distribution::Normal { dev_pct } => Sampler::Normal(
                Normal::new(units as f64 / 2.0, units as f64 * dev_pct / 100.0)
                    .expect("deviation checked on parsing"),
                scatter(),
            ),
            Distribution::Zoned { zones } => Sampler::Zoned {
                choice: Shares::new(zones.iter().map(|z| z.access_pct)),
                bounds: zone_bounds(zones, units, unit_bytes),
            },
        }
    }
}

/// An access distribution that does not parse, or does not fit the span it is checked
/// against.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum DistributionError {
    #[error(
        "{kind}'s {what} '{arg}' is not a number {range}: e.g. {}",
        example(kind)
    )]
    NotANumber {
        kind: String,
        what: &'static str,
        arg: String,
        range: &'static str,
    },
    #[error(
        "unknown access distribution '{0}': use uniform, zipf:THETA, pareto:H, \
         normal:DEV%, zoned:ACCESS%/SIZE%:... or zoned_abs:ACCESS%/BYTES:... \
         (fio's random_distribution)"
    )]
    Unknown(String),
    #[error("the zones are missing: {syntax}")]
    NoZones { syntax: &'static str },
    #[error("zone '{zone}' is not ACCESS%/SIZE: {syntax}")]
    NotAZone { zone: String, syntax: &'static str },
    #[error("the zones' access shares add up to {total}%, not 100%: {syntax}")]
    AccessTotal { total: f64, syntax: &'static str },
    #[error("the zones' sizes add up to {total}% of the span, not 100%: {syntax}")]
    SizeTotal { total: f64, syntax: &'static str },
    #[error(
        "the zones ({zones}) are larger than the tested span ({span_bytes} bytes): shrink the \
         zones or give a larger --span"
    )]
    ZonesPastSpan {
        zones: Distribution,
        span_bytes: u64,
    },
    #[error("zone {zone} of {zones} holds no whole block of the span: give it a larger size")]
    EmptyZone {
        /// From 1.
        zone: usize,
        zones: Distribution,
    },
}

/// Each zone's first block and block count, in order from the start of the span.
fn zone_bounds(zones: &[Zone], units: u64, unit_bytes: u64) -> Vec<(u64, u64)> {
    let mut start = 0u64;
    let mut size_pct = 0.0;
    zones
        .iter()
        .map(|z| {
            let end = match z.size {
                ZoneSize::Percent(p) => {
                    size_pct += p;
                    (units as f64 * size_pct / 100.0).round() as u64
                }
                ZoneSize::Bytes(b) => start + b / unit_bytes,
            };
            let zone = (start, end.saturating_sub(start));
            start = end;
            zone
        })
        .collect()
}

/// A distribution ready to draw block numbers from.
pub(crate) enum Sampler {
    Uniform,
    Zipf(Zipf<f64>, Scatter),
    Pareto {
        power: f64,
        scatter: Scatter,
    },
    Normal(Normal<f64>, Scatter),
    Zoned {
        /// Which zone an access goes to.
        choice: Shares,
        bounds: Vec<(u64, u64)>,
    },
}

impl Sampler {
    /// A block number in `0..units`.
    #[inline]
    pub(crate) fn next(&self, rng: &mut Rng, units: u64) -> u64 {
        match self {
            Sampler::Uniform => rng.below(units),
            Sampler::Zipf(zipf, scatter) => {
                let rank = (zipf.sample(rng) as u64).clamp(1, units) - 1;
                scatter.place(rank)
            }
            Sampler::Pareto { power, scatter } => {
                let rank = ((units - 1) as f64 * rng.unit().powf(*power)) as u64;
                scatter.place(rank)
            }
            Sampler::Normal(normal, scatter) => loop {
                let x = normal.sample(rng);
                if (0.0..units as f64).contains(&x) {
                    break scatter.place(x as u64);
                }
            },
            Sampler::Zoned { choice, bounds } => {
                let (start, n) = bounds[choice.draw(rng)];
                start + rng.below(n)
            }
        }
    }
}

/// A fixed permutation of `0..units` (multiply by a unit of the ring, add an offset) that
/// spreads consecutive ranks over the span, as fio hashes its zipf/pareto/normal draws.
pub(crate) struct Scatter {
    units: u64,
    multiplier: u64,
    offset: u64,
}

impl Scatter {
    fn new(units: u64, rng: &mut Rng) -> Scatter {
        // The golden ratio's bits, nudged to the nearest multiplier coprime to `units`, make
        // the map a bijection that lands neighbours far apart.
        let mut multiplier = 0x9E37_79B9_7F4A_7C15 % units.max(1);
        while gcd(multiplier, units) != 1 {
            multiplier += 1;
        }
        Scatter {
            units,
            multiplier,
            offset: rng.below(units.max(1)),
        }
    }

    #[inline]
    fn place(&self, rank: u64) -> u64 {
        ((rank as u128 * self.multiplier as u128 + self.offset as u128) % self.units as u128) as u64
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl FromStr for Distribution {
    type Err = DistributionError;

    fn from_str(s: &str) -> Result<Distribution, DistributionError> {
        let (kind, arg) = s.split_once(':').unwrap_or((s, ""));
        let number = |what: &'static str, ok: &dyn Fn(f64) -> bool, range: &'static str| {
            arg.trim()
                .parse::<f64>()
                .ok()
                .filter(|&x| ok(x))
                .ok_or_else(|| DistributionError::NotANumber {
                    kind: kind.to_string(),
                    what,
                    arg: arg.to_string(),
                    range,
                })
        };
        Ok(match kind.trim() {
            "uniform" | "random" if arg.is_empty() => Distribution::Uniform,
            "zipf" => Distribution::Zipf {
                theta: number("theta", &|x| x > 0.0 && x.is_finite(), "above 0")?,
            },
            "pareto" => Distribution::Pareto {
                h: number("h", &|x| x > 0.0 && x < 1.0, "between 0 and 1")?,
            },
            "normal" => Distribution::Normal {
                dev_pct: number("deviation", &|x| x > 0.0 && x <= 100.0, "in (0, 100] %")?,
            },
            "zoned" => Distribution::Zoned {
                zones: zones(arg, false)?,
            },
            "zoned_abs" => Distribution::Zoned {
                zones: zones(arg, true)?,
            },
            _ => return Err(DistributionError::Unknown(s.to_string())),
        })
    }
}

fn example(kind: &str) -> &'static str {
    match kind {
        "zipf" => "zipf:1.2",
        "pareto" => "pareto:0.2",
        _ => "normal:10",
    }
}

/// `ACCESS%/SIZE` pairs joined by ':'; the last size may be left out for the rest of the
/// span (`zoned` only), as in fio.
fn zones(arg: &str, absolute: bool) -> Result<Vec<Zone>, DistributionError> {
    let syntax = if absolute {
        "zoned_abs:ACCESS%/BYTES:..., e.g. zoned_abs:60/1G:40/3G"
    } else {
        "zoned:ACCESS%/SIZE%:..., e.g. zoned:50/5:30/15:20/"
    };
    let pairs: Vec<&str> = arg.split(':').filter(|p| !p.trim().is_empty()).collect();
    if pairs.is_empty() {
        return Err(DistributionError::NoZones { syntax });
    }
    let mut zones = Vec::with_capacity(pairs.len());
    for (i, pair) in pairs.iter().enumerate() {
        let bad = || DistributionError::NotAZone {
            zone: pair.to_string(),
            syntax,
        };
        let (access, size) = pair.split_once('/').ok_or_else(bad)?;
        let access_pct: f64 = access.trim().parse().map_err(|_| bad())?;
        let last = i + 1 == pairs.len();
        let size = match (size.trim(), absolute) {
            ("", false) if last => ZoneSize::Percent(f64::NAN),
            (s, false) => ZoneSize::Percent(s.parse().map_err(|_| bad())?),
            (s, true) => ZoneSize::Bytes(parse_size(s).map_err(|_| bad())?),
        };
        if !access_pct.is_finite()
            || access_pct < 0.0
            || matches!(size, ZoneSize::Percent(p) if p <= 0.0)
        {
            return Err(bad());
        }
        zones.push(Zone { access_pct, size });
    }
    let access: f64 = zones.iter().map(|z| z.access_pct).sum();
    if (access - 100.0).abs() > 1e-6 {
        return Err(DistributionError::AccessTotal {
            total: access,
            syntax,
        });
    }
    if !absolute {
        let given: f64 = zones
            .iter()
            .filter_map(|z| match z.size {
                ZoneSize::Percent(p) if !p.is_nan() => Some(p),
                _ => None,
            })
            .sum();
        if let Some(ZoneSize::Percent(rest)) = zones.last_mut().map(|z| &mut z.size) {
            if rest.is_nan() {
                *rest = 100.0 - given;
            }
        }
        let sizes: f64 = zones
            .iter()
            .map(|z| match z.size {
                ZoneSize::Percent(p) => p,
                ZoneSize::Bytes(_) => 0.0,
            })
            .sum();
        if (sizes - 100.0).abs() > 1e-6
            || zones
                .iter()
                .any(|z| matches!(z.size, ZoneSize::Percent(p) if p <= 0.0))
        {
            return Err(DistributionError::SizeTotal {
                total: sizes,
                syntax,
            });
        }
    }
    Ok(zones)
}

impl fmt::Display for Distribution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Distribution::Uniform => write!(f, "uniform"),
            Distribution::Zipf { theta } => write!(f, "zipf:{theta}"),
            Distribution::Pareto { h } => write!(f, "pareto:{h}"),
            Distribution::Normal { dev_pct } => write!(f, "normal:{dev_pct}"),
            Distribution::Zoned { zones } => {
                let absolute = zones.iter().any(|z| matches!(z.size, ZoneSize::Bytes(_)));
                write!(f, "{}", if absolute { "zoned_abs" } else { "zoned" })?;
                for z in zones {
                    match z.size {
                        ZoneSize::Percent(p) => write!(f, ":{}/{p}", z.access_pct)?,
                        ZoneSize::Bytes(b) => write!(f, ":{}/{b}", z.access_pct)?,
                    }
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const UNITS: u64 = 1 << 20;

    fn draws(d: &str, n: usize) -> Vec<u64> {
        let d: Distribution = d.parse().unwrap();
        d.check(UNITS, 4096).unwrap();
        let mut rng = Rng::new(7);
        let s = d.sampler(UNITS, 4096, &mut rng);
        (0..n).map(|_| s.next(&mut rng, UNITS)).collect()
    }

    /// The PTS's composite workload: 50% of accesses to the first 5% of the LBAs, 30% to the
    /// next 15%, 20% to the rest; each share within 1 percentage point over 1M IOs.
    #[test]
    fn zoned_shares_are_met() {
        let mut hits = [0u64; 3];
        for b in draws("zoned:50/5:30/15:20/", 1_000_000) {
            let at = b as f64 / UNITS as f64;
            hits[if at < 0.05 {
                0
            } else if at < 0.20 {
                1
            } else {
                2
            }] += 1;
        }
        for (h, want) in hits.iter().zip([50.0, 30.0, 20.0]) {
            let pct = *h as f64 / 1e4;
            assert!((pct - want).abs() < 1.0, "{hits:?}");
        }
    }

    #[test]
    fn zoned_abs_places_zones_in_bytes() {
        let d: Distribution = "zoned_abs:90/1M:10/3M".parse().unwrap();
        let mut rng = Rng::new(1);
        let s = d.sampler(1024, 4096, &mut rng);
        let first = (0..100_000)
            .filter(|_| s.next(&mut rng, 1024) < 256)
            .count();
        assert!((first as f64 / 1000.0 - 90.0).abs() < 1.0, "{first}");
        assert!(d
            .check(512, 4096)
            .unwrap_err()
            .to_string()
            .contains("larger than the tested span"));
    }

    /// Zipf's law: log(frequency) against log(rank) is a line of slope -theta.
    #[test]
    fn zipf_frequencies_fall_with_rank_at_theta() {
        for theta in [0.8, 1.2] {
            let mut count = std::collections::HashMap::new();
            for b in draws(&format!("zipf:{theta}"), 1_000_000) {
                *count.entry(b).or_insert(0u64) += 1;
            }
            let mut freq: Vec<u64> = count.into_values().collect();
            freq.sort_unstable_by(|a, b| b.cmp(a));
            // Least squares over ranks 1..=100, where every count is large.
            let pts: Vec<(f64, f64)> = (0..100)
                .map(|i| (((i + 1) as f64).ln(), (freq[i] as f64).ln()))
                .collect();
            let n = pts.len() as f64;
            let (mx, my) = pts
                .iter()
                .fold((0.0, 0.0), |(a, b), (x, y)| (a + x / n, b + y / n));
            let slope = pts.iter().map(|(x, y)| (x - mx) * (y - my)).sum::<f64>()
                / pts.iter().map(|(x, _)| (x - mx).powi(2)).sum::<f64>();
            assert!((slope + theta).abs() < 0.05, "theta {theta}: slope {slope}");
        }
    }

    /// Counted before scattering (the identity permutation): which blocks are hottest is
    /// known, where a sample's top fifth would also hold blocks that were lucky.
    #[test]
    fn pareto_gives_one_minus_h_to_the_hottest_h() {
        let mut rng = Rng::new(11);
        let Sampler::Pareto { power, .. } =
            Distribution::Pareto { h: 0.2 }.sampler(UNITS, 4096, &mut rng)
        else {
            unreachable!()
        };
        let identity = Scatter {
            units: UNITS,
            multiplier: 1,
            offset: 0,
        };
        let s = Sampler::Pareto {
            power,
            scatter: identity,
        };
        let n = 1_000_000;
        let hottest = (0..n)
            .filter(|_| s.next(&mut rng, UNITS) < UNITS / 5)
            .count();
        let share = hottest as f64 / n as f64;
        assert!((share - 0.8).abs() < 0.01, "{share}");
    }

    #[test]
    fn normal_has_its_deviation_before_scattering() {
        let d = Distribution::Normal { dev_pct: 10.0 };
        let mut rng = Rng::new(3);
        let Sampler::Normal(normal, _) = d.sampler(UNITS, 4096, &mut rng) else {
            unreachable!()
        };
        let xs: Vec<f64> = (0..200_000).map(|_| normal.sample(&mut rng)).collect();
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / xs.len() as f64).sqrt();
        assert!((sd / UNITS as f64 - 0.10).abs() < 0.002, "{sd}");
        assert!(draws("normal:10", 10_000).iter().all(|&b| b < UNITS));
    }

    #[test]
    fn scatter_is_a_permutation() {
        for units in [1, 2, 6, 97, 1000] {
            let s = Scatter::new(units, &mut Rng::new(5));
            let mut seen: Vec<u64> = (0..units).map(|r| s.place(r)).collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..units).collect::<Vec<_>>());
        }
    }

    #[test]
    fn bad_distributions_say_what_to_write() {
        for (s, says) in [
            ("zipf:0", "above 0"),
            ("pareto:1.5", "between 0 and 1"),
            ("zoned:50/5:30/15", "not 100%"),
            ("zoned:50/5:40/15:20/", "access shares add up to 110%"),
            ("zoned:50:50/", "not ACCESS%/SIZE"),
            ("lognormal:2", "unknown access distribution"),
        ] {
            let e = s.parse::<Distribution>().unwrap_err().to_string();
            assert!(e.contains(says), "{s}: {e}");
        }
    }

    #[test]
    fn a_distribution_prints_as_it_parses() {
        for s in [
            "uniform",
            "zipf:1.2",
            "pareto:0.2",
            "normal:10",
            "zoned:50/5:30/15:20/80",
        ] {
            let d: Distribution = s.parse().unwrap();
            assert_eq!(d.to_string().parse::<Distribution>().unwrap(), d, "{s}");
        }
    }
}
