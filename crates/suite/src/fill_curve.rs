//! A whole-drive fill's figures (the 2018-2021 reviews' "whole-drive fill"): the write speed
//! for every gigabyte written from clean, and where a write cache (an SLC cache such as
//! TurboWrite) runs out: its size, the speed in it and the speed after it.

use serde::{Deserialize, Serialize};

use engine::measure::SecondPoint;

use crate::result::{Parameters, TestResult};

/// A gigabyte, as drives and the reviews' axes count them.
const GB: f64 = 1e9;

/// A drop to at most this share of the speed in the cache is the cache running out; a drive
/// whose speed never falls that far has no cache worth the name.
const CACHE_DROP: f64 = 0.8;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FillAnalysis {
    /// The mean write speed over each gigabyte written, in order (the last may be partial).
    pub per_gb: Vec<GbPoint>,
    /// What the run shows of a write cache; `None` when the speed never drops.
    pub cache: Option<CacheFinding>,
    /// The typical speed once any cache is full: the median of the seconds after it.
    pub after_cache_mbps: f64,
    /// Set when the fill stopped before its span's end (`--duration`): a `cache` of `None`
    /// then means none in the part written, and one may lie beyond it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_short: Option<StoppedShort>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoppedShort {
    pub written_bytes: u64,
    pub span_bytes: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct GbPoint {
    /// Gigabytes written at the end of this one.
    pub gb: f64,
    pub mbps: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CacheFinding {
    /// Bytes written before the speed dropped.
    pub bytes: u64,
    /// The median speed while it lasted.
    pub mbps: f64,
}

/// The bytes a fill wrote and its span, when it stopped before the span's end (`--duration`):
/// a cache not found may lie beyond what it wrote.
pub fn stopped_short(r: &TestResult) -> Option<(u64, u64)> {
    let Parameters::Workload(w) = &r.parameters else {
        return None;
    };
    (r.summary.bytes < w.span_bytes).then_some((r.summary.bytes, w.span_bytes))
}

impl FillAnalysis {
    /// The figures of a fill from its series, in points of `point_s` seconds (1 unless the
    /// fill took more than [`engine::measure::MAX_POINTS`] seconds).
    pub fn of(per_second: &[SecondPoint], point_s: u64) -> FillAnalysis {
        let seconds: Vec<(f64, f64)> = per_second
            .iter()
            .map(|p| {
                let covered = p.covered_s.unwrap_or(point_s as f64);
                (covered, p.mbps * 1e6 * covered)
            })
            .collect();
        let cache = cache(&seconds);
        let after: Vec<f64> = seconds
            .iter()
            .scan(0.0, |written, &(_, bytes)| {
                *written += bytes;
                Some((*written, bytes))
            })
            .zip(&seconds)
            .filter(|((written, _), _)| cache.is_none_or(|c| *written > c.bytes as f64))
            .map(|(_, &(s, bytes))| bytes / s / 1e6)
            .collect();
        FillAnalysis {
            per_gb: per_gb(&seconds),
            cache,
            after_cache_mbps: median(after),
            stopped_short: None,
        }
    }
}

/// Each gigabyte's mean speed: its bytes over the time it took, a second's bytes taken as
/// written evenly over it.
fn per_gb(seconds: &[(f64, f64)]) -> Vec<GbPoint> {
    let mut points = Vec::new();
    let (mut written, mut time_in_gb) = (0.0, 0.0);
    for &(s, bytes) in seconds {
        let mut left = bytes;
        let rate = bytes / s;
        while left > 0.0 {
            let room = GB - written % GB;
            let part = left.min(room);
            time_in_gb += part / rate;
            written += part;
            left -= part;
            if part == room {
                points.push(GbPoint {
                    gb: (written / GB).round(),
                    mbps: GB / time_in_gb / 1e6,
                });
                time_in_gb = 0.0;
            }
        }
    }
    if written % GB > 0.0 && time_in_gb > 0.0 {
        points.push(GbPoint {
            gb: written / GB,
            mbps: (written % GB) / time_in_gb / 1e6,
        });
    }
    points
}

/// Where the speed first drops to [`CACHE_DROP`] of the speed before it and stays lower for
/// the rest of the run (half of its seconds at least, so a garbage-collection stall is no
/// cache's end). The bytes written by then are the cache's size; within the second of the
/// drop, the bytes above the speed after it are the cache's.
fn cache(seconds: &[(f64, f64)]) -> Option<CacheFinding> {
    let rates: Vec<f64> = seconds.iter().map(|&(s, b)| b / s).collect();
    let after = median(rates[rates.len() / 2..].to_vec());
    let (mut written, mut fastest) = (0.0, 0.0f64);
    for (i, &(s, bytes)) in seconds.iter().enumerate() {
        // No drop below the fastest second so far is a drop below the median before it:
        // the median is only worked out for a second slow enough.
        let slow = rates[i] <= CACHE_DROP * fastest;
        fastest = fastest.max(rates[i]);
        if !slow {
            written += bytes;
            continue;
        }
        let before = median(rates[..i].to_vec());
        let stays_low = |r: &f64| *r <= CACHE_DROP * before;
        let rest = &rates[i..];
        if after <= CACHE_DROP * before
            && rates[i] <= (before + after) / 2.0
            && rest.iter().filter(|r| stays_low(r)).count() * 2 >= rest.len()
        {
            // This second wrote `bytes` partly at `before`, the rest at `after`.
            let in_cache = ((bytes - after * s) / (before - after)).clamp(0.0, s) * before;
            return Some(CacheFinding {
                bytes: (written + in_cache) as u64,
                mbps: before / 1e6,
            });
        }
        written += bytes;
    }
    None
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n % 2 {
        1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn second(t: u64, mbps: f64) -> SecondPoint {
        serde_json::from_value(serde_json::json!(
            {"t": t, "ios": 1, "iops": 1.0, "mbps": mbps}))
        .unwrap()
    }

    /// 6.5 s at 500 MB/s (a 3.25 GB cache), then 300 MB/s with a stall.
    fn cached_run() -> Vec<SecondPoint> {
        let mut run: Vec<SecondPoint> = (0..6).map(|t| second(t, 500.0)).collect();
        run.push(second(6, 0.5 * 500.0 + 0.5 * 300.0));
        run.extend((7..40).map(|t| second(t, if t == 20 { 50.0 } else { 300.0 })));
        run
    }

    #[test]
    fn a_cache_is_found_to_the_fraction_of_a_second() {
        let a = FillAnalysis::of(&cached_run(), 1);
        let c = a.cache.expect("a cache");
        assert_eq!(c.bytes, 3_250_000_000);
        assert_eq!(c.mbps, 500.0);
        assert_eq!(a.after_cache_mbps, 300.0);
    }

    #[test]
    fn a_steady_drive_has_no_cache_and_a_stall_is_not_one() {
        let run: Vec<SecondPoint> = (0..40)
            .map(|t| {
                second(
                    t,
                    if t == 10 {
                        40.0
                    } else {
                        400.0 + (t % 3) as f64
                    },
                )
            })
            .collect();
        let a = FillAnalysis::of(&run, 1);
        assert_eq!(a.cache, None);
        assert_eq!(a.after_cache_mbps, 401.0);
    }

    #[test]
    fn every_gigabyte_has_its_mean_speed() {
        // 1.5 GB in 1 s, then 1.5 GB in 3 s: the second GB is half in each.
        let run = vec![
            second(0, 1500.0),
            second(1, 500.0),
            second(2, 500.0),
            second(3, 500.0),
        ];
        let a = FillAnalysis::of(&run, 1);
        let gb: Vec<(f64, f64)> = a.per_gb.iter().map(|p| (p.gb, p.mbps)).collect();
        // GB 1: 1/1.5 s; GB 2: 1/3 s + 1 s; GB 3: 2 s.
        assert_eq!(gb[0], (1.0, 1500.0));
        assert!((gb[1].1 - 750.0).abs() < 1e-6, "{gb:?}");
        assert_eq!(gb[2], (3.0, 500.0));
    }
}
