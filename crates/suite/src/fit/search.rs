//! The search: CMA-ES (the `cmaes` crate), which suits a noisy, non-convex objective of a few
//! dozen coordinates with no gradient, each generation's drives evaluated in parallel on
//! `jobs` threads. Deterministic for a seed: the points are drawn before they are evaluated
//! and the evaluations are pure.

use std::ops::ControlFlow;
use std::sync::Mutex;
use std::time::Instant;

use cmaes::{CMAESOptions, DVector, TerminationReason};

/// How long a search may go on.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Simulated drives evaluated at most.
    pub evaluations: usize,
    pub seed: u64,
    /// Evaluations at once.
    pub jobs: usize,
}

/// Where a search stands, after each generation.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub generation: usize,
    pub evaluations: usize,
    pub budget: usize,
    pub best_loss: f64,
    pub evaluations_per_min: f64,
    /// Seconds left at this rate if the budget is spent.
    pub eta_s: f64,
}

impl Progress {
    /// A part's progress as the whole's: `done` drives before the part, of `budget` in all.
    pub fn within(&self, done: usize, budget: usize) -> Progress {
        let evaluations = done + self.evaluations;
        Progress {
            evaluations,
            budget,
            eta_s: budget.saturating_sub(evaluations) as f64 / self.evaluations_per_min.max(1e-9)
                * 60.0,
            ..*self
        }
    }
}

/// What a search found.
#[derive(Clone, Debug)]
pub struct Found {
    pub best: Vec<f64>,
    /// The best points it evaluated, best first, each once (ties in the order of their
    /// coordinates, so the list is the same for a seed however the threads ran).
    pub ranked: Vec<(Vec<f64>, f64)>,
    pub evaluations: usize,
    /// The best loss so far after each generation: (evaluations, loss).
    pub history: Vec<(usize, f64)>,
    /// With screening, the best full-length loss at the start and after each round:
    /// (evaluations, loss).
    pub confirmed: Vec<(usize, f64)>,
    /// With screening, the drives run at full length to confirm them.
    pub finalists: usize,
    /// Why it stopped, in words.
    pub stopped: String,
}

impl Found {
    /// A search that did not run: the start, and why.
    pub fn start(origin: Vec<f64>, why: &str) -> Found {
        Found {
            best: origin,
            ranked: vec![],
            evaluations: 0,
            history: vec![],
            confirmed: vec![],
            finalists: 0,
            stopped: why.into(),
        }
    }
}

/// What a search stopped by its caller (progress gave [`ControlFlow::Break`]) returns; the
/// drives it measured are kept, so the same fit resumes.
pub const STOPPED: &str = "the fit was stopped";

/// The search's first step, in coordinates of [-1, 1]: a third of the way to either edge.
pub const INITIAL_STEP: f64 = 0.3;

/// How many of the best points [`Found::ranked`] keeps.
const RANKED: usize = 16;

/// Minimise `loss` over [-1, 1]^n from `origin`, with a first step of `step`. A point outside
/// the box is evaluated at its nearest point inside, plus a penalty for the distance, so the
/// search comes back. `progress`, after each generation, may stop it ([`STOPPED`]).
pub fn minimise(
    origin: &[f64],
    step: f64,
    loss: &(dyn Fn(&[f64]) -> f64 + Sync),
    budget: Budget,
    progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
) -> Result<Found, String> {
    let pool = pool(budget.jobs)?;
    let evaluated = Mutex::new(Vec::new());
    let objective = |x: &DVector<f64>| {
        let inside: Vec<f64> = x.iter().map(|v| v.clamp(-1.0, 1.0)).collect();
        let outside: f64 = x.iter().zip(&inside).map(|(a, b)| (a - b).powi(2)).sum();
        let value = loss(&inside) + outside;
        evaluated.lock().expect("evaluated").push((inside, value));
        value
    };
    let mut state = CMAESOptions::new(origin.to_vec(), step)
        .seed(budget.seed)
        .max_function_evals(budget.evaluations)
        .build(objective)
        .map_err(|e| format!("the search cannot start: {e:?}"))?;
    let start = Instant::now();
    let mut history = Vec::new();
    let end = loop {
        let end = pool.install(|| state.next_parallel());
        let evaluations = state.function_evals();
        let best_loss = state
            .overall_best_individual()
            .map_or(f64::INFINITY, |b| b.value);
        history.push((evaluations, best_loss));
        let per_min = evaluations as f64 / start.elapsed().as_secs_f64().max(1e-9) * 60.0;
        let went_on = progress(&Progress {
            generation: state.generation(),
            evaluations,
            budget: budget.evaluations,
            best_loss,
            evaluations_per_min: per_min,
            eta_s: budget.evaluations.saturating_sub(evaluations) as f64 / per_min.max(1e-9) * 60.0,
        });
        if went_on.is_break() {
            return Err(STOPPED.into());
        }
        if let Some(end) = end {
            break end;
        }
    };
    let best = end
        .overall_best
        .ok_or("the search stopped before evaluating any drive")?;
    let evaluations = state.function_evals();
    drop(state);
    let ranked = rank(evaluated.into_inner().expect("evaluated"));
    Ok(Found {
        best: best.point.iter().map(|v| v.clamp(-1.0, 1.0)).collect(),
        ranked,
        evaluations,
        history,
        confirmed: vec![],
        finalists: 0,
        stopped: end
            .reasons
            .iter()
            .map(reason)
            .collect::<Vec<_>>()
            .join(", "),
    })
}

/// Searches from `origin` that start apart: `starts` of them, each with its own seed and a
/// share of the budget, merged into one [`Found`] whose best is the best of all. A search ends
/// in the basin its first generations fall into, and a drive's figures can have several (the
/// Ultra Plus's 16,667 random writes a second, at any queue depth: three dies, or 60 us of
/// controller time a write, which only the second gives its sequential writes); where one
/// start falls into the wrong one, another may not.
pub fn from_starts(
    origin: &[f64],
    step: f64,
    loss: &(dyn Fn(&[f64]) -> f64 + Sync),
    budget: Budget,
    starts: usize,
    progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
) -> Result<Found, String> {
    let starts = starts.max(1);
    let mut merged: Option<Found> = None;
    for k in 0..starts {
        let done = merged.as_ref().map_or(0, |m| m.evaluations);
        let share = (budget.evaluations.saturating_sub(done) / (starts - k)).max(1);
        // The first start's seed is the fit's own, so one start is the plain search; the
        // others' are far from the rounds' (seed + round).
        let seed = budget
            .seed
            .wrapping_add((k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let found = minimise(
            origin,
            step,
            loss,
            Budget {
                evaluations: share,
                seed,
                ..budget
            },
            &mut |p| progress(&p.within(done, budget.evaluations)),
        )?;
        merged = Some(match merged {
            None => found,
            Some(m) => merge(m, found),
        });
    }
    Ok(merged.expect("at least one start"))
}

/// Two searches as one: the best of both, their drives ranked together, the second's
/// history after the first's.
fn merge(a: Found, b: Found) -> Found {
    let best_of = |f: &Found| f.history.last().map_or(f64::INFINITY, |h| h.1);
    let (a_best, b_best) = (best_of(&a), best_of(&b));
    let ranked = rank([a.ranked, b.ranked].concat());
    let history = a
        .history
        .iter()
        .copied()
        .chain(
            b.history
                .iter()
                .map(|&(n, l)| (a.evaluations + n, l.min(a_best))),
        )
        .collect();
    Found {
        best: if b_best < a_best { b.best } else { a.best },
        ranked,
        evaluations: a.evaluations + b.evaluations,
        history,
        confirmed: vec![],
        finalists: 0,
        stopped: b.stopped,
    }
}

/// The threads a search evaluates drives on.
pub fn pool(jobs: usize) -> Result<rayon::ThreadPool, String> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .map_err(|e| format!("cannot start {jobs} search threads: {e}"))
}

/// The best [`RANKED`] of `points`, best first, each once (ties in the order of their
/// coordinates, so the list is the same for a seed however the threads ran).
fn rank(mut points: Vec<(Vec<f64>, f64)>) -> Vec<(Vec<f64>, f64)> {
    points.sort_by(|a, b| a.1.total_cmp(&b.1).then_with(|| cmp_points(&a.0, &b.0)));
    points.dedup_by(|a, b| a.0 == b.0);
    points.truncate(RANKED);
    points
}

fn cmp_points(a: &[f64], b: &[f64]) -> std::cmp::Ordering {
    a.iter()
        .zip(b)
        .map(|(x, y)| x.total_cmp(y))
        .find(|o| o.is_ne())
        .unwrap_or(std::cmp::Ordering::Equal)
}

fn reason(r: &TerminationReason) -> String {
    match r {
        TerminationReason::MaxFunctionEvals => "the evaluation budget was spent".into(),
        TerminationReason::TolFun
        | TerminationReason::TolFunHist
        | TerminationReason::TolFunRel => "the loss stopped improving".into(),
        TerminationReason::TolX
        | TerminationReason::NoEffectAxis
        | TerminationReason::NoEffectCoord => "the search converged".into(),
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_finds_a_minimum_inside_the_box_and_repeats_for_a_seed() {
        let target = [0.5, -0.25, 0.8];
        let loss = |x: &[f64]| x.iter().zip(&target).map(|(a, b)| (a - b).powi(2)).sum();
        let budget = Budget {
            evaluations: 2000,
            seed: 7,
            jobs: 2,
        };
        let run = || {
            let go_on = &mut |_: &Progress| ControlFlow::Continue(());
            minimise(&[0.0; 3], INITIAL_STEP, &loss, budget, go_on).unwrap()
        };
        let (a, b) = (run(), run());
        assert_eq!(a.ranked[0].0, a.best);
        assert!(a
            .ranked
            .windows(2)
            .all(|w| w[0].1 <= w[1].1 && w[0].0 != w[1].0));
        assert_eq!(a.ranked, b.ranked);
        assert!(loss(&a.best) < 1e-6, "{a:?}");
        for (x, t) in a.best.iter().zip(target) {
            assert!((x - t).abs() < 1e-3, "{a:?}");
        }
        assert_eq!(a.best, b.best);
        assert!(a.history.windows(2).all(|w| w[1].1 <= w[0].1));
    }

    #[test]
    fn searches_from_two_starts_find_the_basin_one_misses_and_share_the_budget() {
        // Two basins: a shallow one near the start, a deep one across a ridge.
        let loss = |x: &[f64]| {
            let shallow = 0.5 + (x[0] + 0.2).powi(2) + (x[1] + 0.2).powi(2);
            let deep = 3.0 * ((x[0] - 0.6).powi(2) + (x[1] - 0.6).powi(2));
            shallow.min(deep)
        };
        let budget = |seed| Budget {
            evaluations: 400,
            seed,
            jobs: 2,
        };
        let go_on = &mut |_: &Progress| ControlFlow::Continue(());
        let deep = |f: &Found| loss(&f.best) < 0.1;
        // Of 16 seeds, one search reaches the deep basin for 5; two starts, sharing the same
        // budget, for those 5 and 2 more.
        let mut rescued = 0;
        for seed in 1..=16 {
            let one = minimise(&[0.0; 2], INITIAL_STEP, &loss, budget(seed), go_on).unwrap();
            let two = from_starts(&[0.0; 2], INITIAL_STEP, &loss, budget(seed), 2, go_on).unwrap();
            assert!(two.evaluations <= 400 + 2 * 6, "{}", two.evaluations);
            assert_eq!(two.ranked[0].0, two.best);
            assert!(two.history.windows(2).all(|w| w[1].1 <= w[0].1));
            assert!(loss(&two.best) <= loss(&two.ranked.last().unwrap().0));
            if !deep(&one) && deep(&two) {
                rescued += 1;
            }
            if deep(&one) {
                assert!(deep(&two), "seed {seed}: the first start is the one search");
            }
        }
        assert_eq!(
            rescued, 2,
            "the seeds whose second start found the deep basin"
        );
    }

    #[test]
    fn progress_may_stop_the_search_after_a_generation() {
        let mut generations = 0;
        let stopped = minimise(
            &[0.0; 2],
            INITIAL_STEP,
            &|x: &[f64]| x.iter().map(|v| (v - 0.5).powi(2)).sum(),
            Budget {
                evaluations: 1000,
                seed: 1,
                jobs: 1,
            },
            &mut |_| {
                generations += 1;
                ControlFlow::Break(())
            },
        );
        assert_eq!(stopped.unwrap_err(), STOPPED);
        assert_eq!(generations, 1);
    }
}
