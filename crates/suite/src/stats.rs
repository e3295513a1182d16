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

/// When the initial burst ends: the first second below half of the opening level (the median
/// of the first 3 seconds: a small drive's burst may last only a few) whose next 5 seconds
/// average below half too. `None` when the series never drops that far (a flat profile).
pub fn drop_time(values: &[f64]) -> Option<usize> {
    if values.len() < 10 {
        return None;
    }
    let mut opening = values[..3].to_vec();
    opening.sort_by(f64::total_cmp);
    let level = percentile(&opening, 0.5);
    let window = 5;
    (0..values.len() - window).find(|&t| {
        let mean = values[t..t + window].iter().sum::<f64>() / window as f64;
        values[t] < 0.5 * level && mean < 0.5 * level
    })
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

    #[test]
    fn finds_the_cliff() {
        let mut v = vec![90_000.0; 100];
        v.extend(vec![8_000.0; 200]);
        assert_eq!(drop_time(&v), Some(100));
        assert_eq!(drop_time(&[30_000.0; 300]), None);
        // A short burst, then a noisy steady state that swings above half at times.
        let mut v = vec![25_000.0; 5];
        v.extend([
            18_000.0, 8.0, 0.0, 24.0, 4_056.0, 16.0, 13_000.0, 16.0, 3_048.0,
        ]);
        v.extend(vec![2_000.0; 100]);
        assert_eq!(drop_time(&v), Some(6));
    }
}
