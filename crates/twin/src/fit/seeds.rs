//! A fit at several seeds (`sim fit --seeds N`). One search's twin is a draw (BENCHMARKS #27:
//! the Ultra Plus's twin 19.9% off its held-out figures at seed 1, 47.0% at seed 2), and
//! where twins that fit the drive's results about as well disagree on a figure, the results
//! do not pin it. So the twin is the lowest loss of the seeds', and each figure carries its
//! spread across their twins: a statement, figure by figure, of how far to trust the twin,
//! which needs no figure held out.

use std::ops::ControlFlow;

use serde::Serialize;

use super::loss::MAX_ERROR;
use super::report::{median_error, TermRow};
use super::search::Progress;
use super::{fit, Fit, FitError, Request};

/// The most seeds a fit runs: each is a whole search.
pub const MAX_SEEDS: u64 = 16;

/// Twins whose figures lie within this share of the drive's agree on it. (The six recovery
/// presets at two seeds: of the held-out figures their twins agreed on so, the twin met 48
/// of 58 within 10% of the drive's, of those they put over 20% apart 11 of 45; at three
/// seeds, 38 of 40 and 21 of 54: BENCHMARKS #27.)
pub const AGREE: f64 = 0.05;

/// One seed's search and its twin.
#[derive(Clone, Debug, Serialize)]
pub struct SeedRun {
    pub seed: u64,
    pub loss: f64,
    /// The median error of its held-out figures, when any were held out.
    pub held_out_median: Option<f64>,
    pub wall_s: f64,
}

/// Fit `req` at `seeds` seeds, its budget's seed and the ones after it, each a whole search
/// sharing its evaluations file; `on_seed` is told each seed before its search. The twin is
/// the lowest loss's ([`keep_best`]).
pub fn fit_seeds(
    req: &Request,
    seeds: u64,
    on_seed: &mut dyn FnMut(u64),
    progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
) -> Result<Fit, FitError> {
    if !(1..=MAX_SEEDS).contains(&seeds) {
        return Err(FitError::Seeds(seeds));
    }
    let first = req.budget.seed;
    let fits = (first..first + seeds)
        .map(|seed| {
            on_seed(seed);
            let mut req = req.clone();
            req.budget.seed = seed;
            fit(&req, progress)
        })
        .collect::<Result<Vec<_>, _>>()?;
    keep_best(fits)
}

/// The twin of the lowest loss among `fits` (one a seed, of one request), its report given
/// each figure's spread across all the twins, each key's value in each, every seed's run,
/// and their drives and time together.
fn keep_best(fits: Vec<Fit>) -> Result<Fit, FitError> {
    let runs: Vec<SeedRun> = fits
        .iter()
        .map(|f| SeedRun {
            seed: f.report.seed,
            loss: f.report.loss_twin,
            held_out_median: median_error(&f.report.held_out),
            wall_s: f.report.wall_s,
        })
        .collect();
    let best = (0..fits.len())
        .min_by(|&a, &b| {
            fits[a]
                .report
                .loss_twin
                .total_cmp(&fits[b].report.loss_twin)
        })
        .ok_or(FitError::NoSeeds)?;
    let mut fit = fits[best].clone();
    if fits.len() > 1 {
        let twins = |rows: fn(&Fit) -> &[TermRow], figure: &str| -> Vec<Option<f64>> {
            fits.iter()
                .map(|f| {
                    rows(f)
                        .iter()
                        .find(|r| r.figure == figure)
                        .and_then(|r| r.twin)
                })
                .collect()
        };
        let r = &mut fit.report;
        for p in &mut r.params {
            p.seeds = fits
                .iter()
                .map(|f| {
                    let row = f.report.params.iter().find(|q| q.key == p.key);
                    row.map_or(&p.start, |q| &q.twin).clone()
                })
                .collect();
        }
        for row in &mut r.fitted {
            row.spread = spread(row.drive, &twins(|f| &f.report.fitted, &row.figure));
        }
        for row in &mut r.held_out {
            row.spread = spread(row.drive, &twins(|f| &f.report.held_out, &row.figure));
        }
        r.wall_s = runs.iter().map(|run| run.wall_s).sum();
        r.evaluations = fits.iter().map(|f| f.report.evaluations).sum();
        r.seeds = runs;
    }
    Ok(fit)
}

/// How far apart the twins' figures are, as a share of the drive's (of the largest twin's
/// where the goal has no one value), at most the loss's cap; the cap when some twins lack the
/// figure and others have it (one drive's 25%-spare run never drops), none with one twin.
pub(super) fn spread(drive: Option<f64>, twins: &[Option<f64>]) -> Option<f64> {
    if twins.len() < 2 {
        return None;
    }
    let values: Vec<f64> = twins.iter().flatten().copied().collect();
    if values.is_empty() {
        return Some(0.0);
    }
    if values.len() < twins.len() {
        return Some(MAX_ERROR);
    }
    let (low, high) = values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| {
            (l.min(v), h.max(v))
        });
    let scale = drive
        .filter(|d| *d != 0.0)
        .unwrap_or_else(|| values.iter().fold(0.0, |m: f64, v| m.max(v.abs())))
        .abs();
    Some(if scale > 0.0 {
        ((high - low) / scale).min(MAX_ERROR)
    } else {
        0.0
    })
}

/// Of `rows`, how many have a spread, how many of those the twins agree on, and of these
/// and of the others, how many the twin meets within 10% (held-out rows, whose error is a
/// prediction's).
pub fn agreement(rows: &[TermRow]) -> Agreement {
    let mut a = Agreement::default();
    for r in rows {
        let Some(spread) = r.spread else { continue };
        let within = r.twin_error <= 0.10;
        if spread <= AGREE {
            a.agreed += 1;
            a.agreed_within += within as usize;
        } else {
            a.disagreed += 1;
            a.disagreed_within += within as usize;
        }
    }
    a
}

/// Figures the seeds' twins agree on and not, and how many of each the twin meets within 10%.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Agreement {
    pub agreed: usize,
    pub agreed_within: usize,
    pub disagreed: usize,
    pub disagreed_within: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spread_is_the_twins_range_over_the_drives_figure() {
        assert_eq!(spread(Some(100.0), &[Some(90.0), Some(110.0)]), Some(0.2));
        // One twin has the figure, the other not: as far apart as the loss counts.
        assert_eq!(spread(Some(100.0), &[Some(90.0), None]), Some(MAX_ERROR));
        assert_eq!(spread(Some(100.0), &[None, None]), Some(0.0));
        assert_eq!(spread(Some(100.0), &[Some(90.0)]), None);
        // No one value of the drive's (a bound): the largest twin's.
        assert_eq!(spread(None, &[Some(50.0), Some(100.0)]), Some(0.5));
        assert_eq!(spread(Some(0.0), &[Some(0.0), Some(0.0)]), Some(0.0));
    }
}
