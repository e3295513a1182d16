//! Numbers a reader can compare without squinting at dots: statistics of a per-second series.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeriesStats {
    pub count: usize,
    pub mean: f64,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub stddev: f64,
    pub p1: f64,
    pub p99: f64,
}

/// Percentile by linear interpolation between closest ranks (as numpy's default).
fn percentile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

pub fn series_stats(values: &[f64]) -> Option<SeriesStats> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    Some(SeriesStats {
        count: values.len(),
        mean,
        median: percentile(&sorted, 0.5),
        min: sorted[0],
        max: sorted[sorted.len() - 1],
        stddev: var.sqrt(),
        p1: percentile(&sorted, 0.01),
        p99: percentile(&sorted, 0.99),
    })
}

/// The 5th, 15th, ... 95th percentiles of a series: its distribution in ten numbers, which
/// two series' can be compared by (the mean distance between them is the Wasserstein-1
/// distance of the two distributions, to within the deciles' resolution).
pub fn deciles(values: &[f64]) -> Option<[f64; 10]> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    Some(std::array::from_fn(|i| {
        percentile(&sorted, 0.05 + 0.1 * i as f64)
    }))
}

/// A fall of more than this share below the opening plateau is a drop: the consistency cliff
/// of every client drive is far deeper (2x to 30x), while the steady state of a drive that is
/// flat from the start wanders less than this in its medians.
pub const DROP_FRACTION: f64 = 0.25;
/// A drop lasts: the median of this many seconds from it is below the plateau too.
pub const DROP_STAY_S: usize = 30;
/// The plateau is at least this long: a small drive's burst may last only a few seconds.
pub const MIN_PLATEAU_S: usize = 3;
/// A run too short for this many seconds of drop (a quarter of it) has none to show.
const MIN_STAY_S: usize = 5;

/// Where the opening plateau of a per-second series ended, and the levels either side.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Drop {
    /// The first second of the drop.
    pub at_s: usize,
    /// The opening plateau: the median of every second before the drop.
    pub from: f64,
    /// The median of the [`DROP_STAY_S`] seconds from the drop.
    pub to: f64,
}

/// The cliff a reader sees in a consistency chart: the first second `t` (after at least
/// [`MIN_PLATEAU_S`]) such that
/// - it is more than [`DROP_FRACTION`] below the opening plateau, the median of every second
///   before it;
/// - the series stays there: the median of the [`DROP_STAY_S`] seconds from `t` (a quarter of
///   a shorter run; a run under 20 s shows none) is below that level too, so a dip of a few
///   seconds is not a drop;
/// - the step stands out of the scatter: nine in ten of those seconds (their 90th percentile)
///   are below nine in ten of the plateau's (its 10th percentile), so a noisy series that is
///   flat from the start, whose first seconds happen to be high, shows no drop.
///
/// A slow slide is not a step and a series that never falls a quarter has none (`None`). The
/// drop need not be to half: the 840 EVO mSATA 1TB at 25% spare area falls from 94K to 66K
/// IOPS.
pub fn find_drop(values: &[f64]) -> Option<Drop> {
    let stay = DROP_STAY_S.min(values.len() / 4);
    if stay < MIN_STAY_S || values.len() < MIN_PLATEAU_S + stay {
        return None;
    }
    // The seconds before `t`, sorted, grown one second at a time.
    let mut plateau = values[..MIN_PLATEAU_S].to_vec();
    plateau.sort_by(f64::total_cmp);
    for t in MIN_PLATEAU_S..=values.len() - stay {
        if t > MIN_PLATEAU_S {
            let v = values[t - 1];
            let at = plateau.partition_point(|&x| x < v);
            plateau.insert(at, v);
        }
        let level = percentile(&plateau, 0.5);
        let below = (1.0 - DROP_FRACTION) * level;
        if values[t] >= below {
            continue;
        }
        let mut after = values[t..t + stay].to_vec();
        after.sort_by(f64::total_cmp);
        let to = percentile(&after, 0.5);
        if to < below && percentile(&after, 0.9) < percentile(&plateau, 0.1) {
            return Some(Drop {
                at_s: t,
                from: level,
                to,
            });
        }
    }
    None
}

/// The second the opening plateau ended ([`find_drop`]).
pub fn drop_time(values: &[f64]) -> Option<usize> {
    find_drop(values).map(|d| d.at_s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_of_a_known_series() {
        let v: Vec<f64> = (1..=101).map(f64::from).collect();
        let s = series_stats(&v).unwrap();
        assert_eq!(s.median, 51.0);
        assert_eq!(s.mean, 51.0);
        assert_eq!(s.min, 1.0);
        assert_eq!(s.p1, 2.0);
        assert_eq!(s.p99, 100.0);
        assert!((s.stddev - (850.0f64).sqrt()).abs() < 1e-9);
        assert!(series_stats(&[]).is_none());
    }

    /// A steady series with per-second scatter: log-normal, `sigma` in log space.
    fn noisy(level: f64, sigma: f64, secs: usize, seed: u64) -> Vec<f64> {
        let mut rng = engine::pattern::Rng::new(seed);
        (0..secs)
            .map(|_| {
                // Box-Muller.
                let (u, v) = (rng.unit().max(1e-12), rng.unit());
                let z = (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos();
                level * (sigma * z).exp()
            })
            .collect()
    }

    #[test]
    fn finds_a_cliff_that_does_not_halve() {
        // 840 EVO mSATA 1TB at 25% spare area: 94.3K IOPS for 833 s, then about 66K that
        // climbs back over the next 1000 s. The old rule (below half) saw no drop.
        let mut v = vec![94_340.0; 833];
        v.extend(noisy(66_000.0, 0.1, 200, 7));
        v.extend((0..967).map(|i| 70_000.0 + 24.0 * i as f64));
        let d = find_drop(&v).expect("a drop");
        // The first second of the scatter more than a quarter below the plateau.
        assert!((833..836).contains(&d.at_s), "{d:?}");
        assert_eq!(d.from, 94_340.0);
        assert!((60_000.0..72_000.0).contains(&d.to), "{d:?}");
    }

    #[test]
    fn finds_a_fall_to_a_tenth_and_a_two_second_burst() {
        let mut v = vec![90_000.0; 100];
        v.extend(vec![8_000.0; 200]);
        assert_eq!(drop_time(&v), Some(100));
        // The default preset: two seconds of burst, one partial, then a scattered steady
        // state with spikes well above its median.
        let mut v = vec![49_216.0, 49_267.0, 19_149.0];
        v.extend(noisy(1_400.0, 0.8, 400, 3));
        assert_eq!(drop_time(&v), Some(3));
        // A short burst, then a noisy steady state that swings above the drop level at times.
        let mut v = vec![25_000.0; 5];
        v.extend([
            18_000.0, 8.0, 0.0, 24.0, 4_056.0, 16.0, 13_000.0, 16.0, 3_048.0,
        ]);
        v.extend(vec![2_000.0; 100]);
        assert_eq!(drop_time(&v), Some(5), "18K is 28% below the 25K plateau");
    }

    #[test]
    fn no_drop_on_flat_noisy_or_short_runs() {
        assert_eq!(drop_time(&[30_000.0; 2000]), None);
        // A drive flat from the start, with the scatter of a steady state, on many seeds.
        for seed in 1..=40 {
            for sigma in [0.1, 0.3, 0.6] {
                let v = noisy(5_000.0, sigma, 600, seed);
                assert_eq!(find_drop(&v), None, "seed {seed}, sigma {sigma}");
            }
        }
        // A slow slide by a third over the run is not a cliff.
        let slide: Vec<f64> = (0..2000).map(|i| 90_000.0 - 15.0 * i as f64).collect();
        assert_eq!(drop_time(&slide), None);
        // A dip of a few seconds is not a drop.
        let mut v = vec![50_000.0; 300];
        v[100..105].fill(1_000.0);
        assert_eq!(drop_time(&v), None);
        // Too short to tell a plateau from a drop.
        assert_eq!(
            drop_time(&[90_000.0, 90_000.0, 90_000.0, 1_000.0, 1_000.0]),
            None
        );
        assert_eq!(drop_time(&[]), None);
    }

    #[test]
    fn a_short_run_still_shows_its_cliff() {
        // A 60 s quick run: the drop must last a quarter of it.
        let mut v = vec![40_000.0; 20];
        v.extend(vec![4_000.0; 40]);
        assert_eq!(drop_time(&v), Some(20));
        // ... but a fall in its last seconds cannot be told from a dip.
        let mut v = vec![40_000.0; 55];
        v.extend(vec![4_000.0; 5]);
        assert_eq!(drop_time(&v), None);
    }
}
