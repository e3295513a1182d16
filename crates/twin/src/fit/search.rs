//! The search: CMA-ES (the `cmaes` crate), which suits a noisy, non-convex objective of a few
//! dozen coordinates with no gradient, each generation's drives evaluated in parallel on
//! `jobs` threads. Deterministic for a seed: the points are drawn before they are evaluated
//! and the evaluations are pure.

use std::ops::ControlFlow;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use cmaes::{CMAESOptions, DVector, TerminationReason};
use rayon::prelude::*;

use super::FitError;

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
    pub phase: Phase,
}

/// What part of a fit a [`Progress`] is of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The search, after each generation.
    Search,
    /// The polish after it ([`super::polish`]), told where it starts and ends.
    Polish,
    /// The check of the keys not searched ([`super::open`]), told where it starts: its
    /// `budget` is the drives it measures.
    Open,
}

impl Progress {
    /// The same, with the best of this and an `earlier` loss: a start's progress shows the
    /// best of every start.
    pub fn at_best(self, earlier: f64) -> Progress {
        Progress {
            best_loss: self.best_loss.min(earlier),
            ..self
        }
    }

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
    /// Each round's starts, where it had several: each and what it reached exploring (the
    /// first of the best went on). A round from one start has none.
    pub starts: Vec<Vec<Start>>,
}

/// A start of a search from several ([`from_starts`]): where it began, the best drive it
/// reached exploring, and that drive's loss, as the judge measured it where there was one.
#[derive(Clone, Debug)]
pub struct Start {
    pub origin: Vec<f64>,
    pub best: Vec<f64>,
    pub loss: f64,
    /// Whether it went on with the rest of the budget.
    pub went_on: bool,
}

/// What tells a search's starts apart, where its own loss cannot: a truer loss of each
/// start's best drive (the screen's searches judge at full length, since the screen's
/// correction was measured at one start and may favour another's drives wrongly).
pub type Judge<'a> = Loss<'a>;

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
            starts: vec![],
        }
    }

    /// A search's end from every drive it evaluated: ranked, the best first; no screening
    /// and one start, until the caller says otherwise.
    fn of_evaluated(
        evaluated: Vec<(Vec<f64>, f64)>,
        evaluations: usize,
        history: Vec<(usize, f64)>,
        stopped: String,
    ) -> Result<Found, FitError> {
        let ranked = rank(evaluated);
        Ok(Found {
            // The ranking's first: the best point evaluated.
            best: ranked
                .first()
                .map(|r| r.0.clone())
                .ok_or(FitError::NothingEvaluated)?,
            ranked,
            evaluations,
            history,
            confirmed: vec![],
            finalists: 0,
            stopped,
            starts: vec![],
        })
    }
}

/// The search's first step, in coordinates of [-1, 1]: a third of the way to either edge.
pub const INITIAL_STEP: f64 = 0.3;

/// What a search minimises.
pub type Loss<'a> = &'a (dyn Fn(&[f64]) -> f64 + Sync);

/// How many of the best points [`Found::ranked`] keeps.
const RANKED: usize = 16;

/// Minimise `loss` over [-1, 1]^n from `origin`, with a first step of `step`. A point outside
/// the box is evaluated at its nearest point inside, plus a penalty for the distance, so the
/// search comes back. `progress`, after each generation, may stop it ([`FitError::Stopped`]).
pub fn minimise(
    origin: &[f64],
    step: f64,
    loss: Loss,
    budget: Budget,
    progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
) -> Result<Found, FitError> {
    from_starts(
        &[origin.to_vec()],
        &[],
        step,
        &[loss],
        None,
        budget,
        progress,
    )
}

/// Searches from `origins` (points, or one point repeated), each with its own seed, holding
/// the coordinates `held` marks where each start put them (an outer choice, such as the NAND
/// page, that the search does not move: [`super::Reach::Outer`]). Each explores a share of the
/// budget ([`EXPLORED`]) minimising its own of `losses` (or the one given for all), and the
/// one whose best drive is best (by `judge` where there is one, else by its loss) goes on with
/// the rest; the others' drives stay in the ranking. A search ends in the basin its first generations fall into,
/// and a drive's figures can have several (the Ultra Plus's 16,667 random writes a second, at
/// any queue depth: three dies, or 60 us of controller time a write, which only the second
/// gives its sequential writes); where one start falls into the wrong one, another may not.
/// The S3700's went on from a start with a cache the drive lacks, whether chosen by its
/// screened loss or at full length: a search cannot walk from there to none, which the
/// screen's rounds try across ([`super::Space::across`]).
pub fn from_starts(
    origins: &[Vec<f64>],
    held: &[bool],
    step: f64,
    losses: &[Loss],
    judge: Option<Judge>,
    budget: Budget,
    progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
) -> Result<Found, FitError> {
    let first = origins.first().ok_or(FitError::NoStart)?;
    let loss = |k: usize| match losses {
        [one] => Ok(*one),
        _ => losses.get(k).copied().ok_or(FitError::Losses {
            losses: losses.len(),
            starts: origins.len(),
        }),
    };
    if (0..first.len()).all(|i| is_held(held, i)) {
        let evaluated = (0..origins.len())
            .map(|k| Ok((origins[k].clone(), loss(k)?(&origins[k]))))
            .collect::<Result<_, FitError>>()?;
        return only_starts(evaluated);
    }
    let pool = pool(budget.jobs)?;
    let starts = origins.len();
    let explored = if starts == 1 {
        0
    } else {
        (budget.evaluations as f64 * EXPLORED / starts as f64).ceil() as usize
    };
    // The one that goes on may spend what the others did not.
    let deepest = budget
        .evaluations
        .saturating_sub((starts - 1) * explored)
        .max(1);
    let mut runs = Vec::with_capacity(starts);
    let mut done = 0;
    for (k, origin) in origins.iter().enumerate() {
        // The first start's seed is the fit's own, so one start is the plain search; the
        // others' are far from the rounds' (seed + round).
        let seed = budget
            .seed
            .wrapping_add((k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut run = Run::new(origin, held, step, loss(k)?, seed, deepest)?;
        let until = if starts == 1 { deepest } else { explored };
        let earlier = best_of(&runs);
        run.advance(until, &pool, &mut |p| {
            progress(&p.within(done, budget.evaluations).at_best(earlier))
        })?;
        done += run.evaluations();
        runs.push(run);
    }
    let bests: Vec<Vec<f64>> = runs
        .iter()
        .map(|r| r.best_point().ok_or(FitError::NothingEvaluated))
        .collect::<Result<_, _>>()?;
    let losses: Vec<f64> = match judge {
        Some(judge) if starts > 1 => pool.install(|| bests.par_iter().map(|x| judge(x)).collect()),
        _ => runs.iter().map(Run::best_loss).collect(),
    };
    // The best goes on (the first of equals: one start is the plain search).
    let on = (0..starts)
        .min_by(|&a, &b| losses[a].total_cmp(&losses[b]))
        .expect("at least one start");
    let explored = if starts > 1 {
        explored_starts(origins, bests, &losses, on)
    } else {
        vec![]
    };
    let before = done - runs[on].evaluations();
    let earlier = best_of(&runs);
    runs[on].advance(deepest, &pool, &mut |p| {
        progress(&p.within(before, budget.evaluations).at_best(earlier))
    })?;
    // One history: the starts in the order they ran, the one that went on last.
    let last = runs.remove(on);
    runs.push(last);
    let (mut history, mut ranked, mut stopped) = (vec![], vec![], String::new());
    let mut best_before = f64::INFINITY;
    let mut offset = 0;
    for run in runs {
        let found = run.finish()?;
        history.extend(
            found
                .history
                .iter()
                .map(|&(n, l)| (offset + n, l.min(best_before))),
        );
        best_before = history.last().map_or(best_before, |h| h.1);
        offset += found.evaluations;
        ranked.extend(found.ranked);
        stopped = found.stopped;
    }
    let mut found = Found::of_evaluated(ranked, offset, history, stopped)?;
    if !explored.is_empty() {
        found.starts = vec![explored];
    }
    Ok(found)
}

/// The starts a search explored, each with its best drive and that drive's loss, the start
/// `on` the one that went on.
fn explored_starts(
    origins: &[Vec<f64>],
    bests: Vec<Vec<f64>>,
    losses: &[f64],
    on: usize,
) -> Vec<Start> {
    origins
        .iter()
        .zip(bests)
        .zip(losses)
        .enumerate()
        .map(|(k, ((origin, best), &loss))| Start {
            origin: origin.clone(),
            best,
            loss,
            went_on: k == on,
        })
        .collect()
}

/// The best loss of `runs`.
fn best_of(runs: &[Run]) -> f64 {
    runs.iter()
        .map(Run::best_loss)
        .fold(f64::INFINITY, f64::min)
}

/// Whether coordinate `i` is one `held` marks.
fn is_held(held: &[bool], i: usize) -> bool {
    held.get(i).copied().unwrap_or(false)
}

/// A search with every coordinate held: each start is a drive, evaluated once.
fn only_starts(evaluated: Vec<(Vec<f64>, f64)>) -> Result<Found, FitError> {
    let starts = evaluated.len();
    let best_loss = evaluated.iter().map(|e| e.1).min_by(f64::total_cmp);
    let stopped = "every key searched is a start's choice: each start was evaluated";
    let history = best_loss.map(|l| (starts, l)).into_iter().collect();
    Found::of_evaluated(evaluated, starts, history, stopped.into())
}

/// The share of a search's budget its starts explore, shared among them, before the best
/// goes on: two of the first round's 12-drive generations each for four starts (a generation
/// overshoots its share), and most of the budget left to go deep in one basin. (Any more for
/// the starts is taken from that depth: the Ultra Plus's twin, whose start went on to 48
/// drives for 61, fitted 0.062 for 0.053 and predicted 21.6% off for 5.3%, BENCHMARKS #27.)
const EXPLORED: f64 = 0.5;

/// One CMA-ES search under way: its state, and the drives it has evaluated.
struct Run<'a> {
    state: cmaes::CMAES<Box<Objective<'a>>>,
    evaluated: Arc<Mutex<Vec<Point>>>,
    history: Vec<(usize, f64)>,
    started: Instant,
    budget: usize,
    end: Option<cmaes::TerminationData>,
}

/// A point searched and its loss.
type Point = (Vec<f64>, f64);

type Objective<'a> = dyn Fn(&DVector<f64>) -> f64 + Send + Sync + 'a;

impl<'a> Run<'a> {
    fn new(
        origin: &[f64],
        held: &[bool],
        step: f64,
        loss: Loss<'a>,
        seed: u64,
        budget: usize,
    ) -> Result<Run<'a>, FitError> {
        let evaluated = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&evaluated);
        // CMA-ES moves the free coordinates; the held ones stay at the origin's.
        let free: Vec<usize> = (0..origin.len()).filter(|&i| !is_held(held, i)).collect();
        let whole = origin.to_vec();
        let searched: Vec<f64> = free.iter().map(|&i| origin[i]).collect();
        let objective: Box<Objective<'a>> = Box::new(move |x: &DVector<f64>| {
            let mut inside = whole.clone();
            let mut outside = 0.0;
            for (&i, &v) in free.iter().zip(x.iter()) {
                inside[i] = v.clamp(-1.0, 1.0);
                outside += (v - inside[i]).powi(2);
            }
            let value = loss(&inside) + outside;
            kept.lock().expect("evaluated").push((inside, value));
            value
        });
        let state = CMAESOptions::new(searched, step)
            .seed(seed)
            .max_function_evals(budget)
            .build(objective)
            .map_err(FitError::SearchStart)?;
        Ok(Run {
            state,
            evaluated,
            history: vec![],
            started: Instant::now(),
            budget,
            end: None,
        })
    }

    fn evaluations(&self) -> usize {
        self.state.function_evals()
    }

    /// The best drive it evaluated (clamped into the box), the first of equals by coordinates.
    fn best_point(&self) -> Option<Vec<f64>> {
        let evaluated = self.evaluated.lock().expect("evaluated");
        evaluated
            .iter()
            .min_by(|a, b| a.1.total_cmp(&b.1).then_with(|| cmp_points(&a.0, &b.0)))
            .map(|p| p.0.clone())
    }

    fn best_loss(&self) -> f64 {
        self.state
            .overall_best_individual()
            .map_or(f64::INFINITY, |b| b.value)
    }

    /// Generations until `until` drives are evaluated or the search ends, each on `pool`,
    /// `progress` told after each (as this search's own: the caller places it in the whole).
    fn advance(
        &mut self,
        until: usize,
        pool: &rayon::ThreadPool,
        progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
    ) -> Result<(), FitError> {
        while self.end.is_none() && self.evaluations() < until {
            self.end = pool.install(|| self.state.next_parallel());
            let evaluations = self.evaluations();
            let best_loss = self.best_loss();
            self.history.push((evaluations, best_loss));
            let per_min =
                evaluations as f64 / self.started.elapsed().as_secs_f64().max(1e-9) * 60.0;
            let went_on = progress(&Progress {
                generation: self.state.generation(),
                evaluations,
                budget: self.budget,
                best_loss,
                evaluations_per_min: per_min,
                eta_s: self.budget.saturating_sub(evaluations) as f64 / per_min.max(1e-9) * 60.0,
                phase: Phase::Search,
            });
            if went_on.is_break() {
                return Err(FitError::Stopped);
            }
        }
        Ok(())
    }

    /// What it found, where it stands.
    fn finish(self) -> Result<Found, FitError> {
        let evaluations = self.evaluations();
        let stopped = match &self.end {
            Some(end) => end
                .reasons
                .iter()
                .map(reason)
                .collect::<Vec<_>>()
                .join(", "),
            None => "another start went on".into(),
        };
        let evaluated = std::mem::take(&mut *self.evaluated.lock().expect("evaluated"));
        Found::of_evaluated(evaluated, evaluations, self.history, stopped)
    }
}

/// The threads a search evaluates drives on.
pub fn pool(jobs: usize) -> Result<rayon::ThreadPool, FitError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .map_err(|source| FitError::Threads { jobs, source })
}

/// The fewest drives a search from `starts` starts evaluates, however small its budget: a
/// first CMA-ES generation from each, of a population set by the coordinates it moves
/// (`free`). With none free, each start is one drive.
pub fn first_generations(starts: usize, free: usize) -> usize {
    if free == 0 {
        return starts;
    }
    starts * CMAESOptions::new(vec![0.0; free], INITIAL_STEP).population_size
}

/// What a fit says when no drive it measured fitted better than the start, which it keeps.
pub const KEPT_START: &str =
    "no drive measured fitted better than the start, so the twin is the start";

/// `found`, or the start `origin` where no drive found fits better by `loss` (a search of
/// one generation may measure only worse ones), the stop saying so.
pub fn no_worse_than_start(
    mut found: Found,
    origin: &[f64],
    loss: &dyn Fn(&[f64]) -> f64,
) -> Found {
    let start = loss(origin);
    if found.best != origin && start <= loss(&found.best) {
        found.best = origin.to_vec();
        found.history.push((found.evaluations, start));
        found.stopped = format!("{}; {KEPT_START}", found.stopped);
    }
    found
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
        let go_on = &mut |_: &Progress| ControlFlow::Continue(());
        let deep = |f: &Found| loss(&f.best) < 0.1;
        // Of 16 seeds, one search reaches the deep basin for 5; two starts, sharing the same
        // budget, for those 5 and 2 more, with a budget to spare (400 drives) or one too
        // short to halve (60, ten generations: the better start goes on with the rest).
        for evaluations in [60, 400] {
            let mut rescued = 0;
            for seed in 1..=16 {
                let budget = Budget {
                    evaluations,
                    seed,
                    jobs: 2,
                };
                let one = minimise(&[0.0; 2], INITIAL_STEP, &loss, budget, go_on).unwrap();
                let mut shown = vec![];
                let two = from_starts(
                    &vec![vec![0.0; 2]; 2],
                    &[],
                    INITIAL_STEP,
                    &[&loss],
                    None,
                    budget,
                    &mut |p| {
                        shown.push(p.best_loss);
                        ControlFlow::Continue(())
                    },
                )
                .unwrap();
                // Progress shows the best of every start so far, never a later start's worse.
                assert!(shown.windows(2).all(|w| w[1] <= w[0]), "{shown:?}");
                assert!(
                    two.evaluations <= evaluations + 2 * 6,
                    "{}",
                    two.evaluations
                );
                assert_eq!(two.ranked[0].0, two.best);
                assert!(two.history.windows(2).all(|w| w[1].1 <= w[0].1));
                assert_eq!(two.history.last().unwrap().1, two.ranked[0].1);
                if !deep(&one) && deep(&two) {
                    rescued += 1;
                }
                if deep(&one) {
                    assert!(deep(&two), "seed {seed}: the first start is the one search");
                }
            }
            assert_eq!(
                rescued, 2,
                "{evaluations} drives: the seeds whose second start found the deep basin"
            );
        }
    }

    #[test]
    fn a_held_coordinate_stays_where_each_start_put_it() {
        // The best drive is at x[1] = 0.5, a value only the second start holds.
        let loss = |x: &[f64]| (x[0] - 0.3).powi(2) + (x[1] - 0.5).powi(2) + (x[2] + 0.4).powi(2);
        let starts = [vec![0.0, -0.5, 0.0], vec![0.0, 0.5, 0.0]];
        let held = [false, true, false];
        let budget = Budget {
            evaluations: 400,
            seed: 3,
            jobs: 2,
        };
        let go_on = &mut |_: &Progress| ControlFlow::Continue(());
        let found =
            from_starts(&starts, &held, INITIAL_STEP, &[&loss], None, budget, go_on).unwrap();
        assert!(found
            .ranked
            .iter()
            .all(|(x, _)| x[1] == 0.5 || x[1] == -0.5));
        assert_eq!(found.best[1], 0.5);
        assert!(loss(&found.best) < 1e-4, "{found:?}");
        // Every coordinate held: the starts are the drives.
        let all = from_starts(
            &starts,
            &[true; 3],
            INITIAL_STEP,
            &[&loss],
            None,
            budget,
            go_on,
        )
        .unwrap();
        assert_eq!((all.evaluations, all.best.clone()), (2, starts[1].clone()));
    }

    #[test]
    fn each_start_minimises_its_own_loss_where_each_has_one() {
        // One start's screened figures corrected at one drive, the other's at another: the
        // same point, each pulled its own way.
        let right = |x: &[f64]| (x[0] - 0.5).powi(2);
        let left = |x: &[f64]| (x[0] + 0.5).powi(2);
        let found = from_starts(
            &[vec![0.0], vec![0.0]],
            &[],
            INITIAL_STEP,
            &[&right, &left],
            None,
            Budget {
                evaluations: 120,
                seed: 1,
                jobs: 1,
            },
            &mut |_| ControlFlow::Continue(()),
        )
        .unwrap();
        let reached: Vec<f64> = found.starts[0].iter().map(|s| s.best[0]).collect();
        assert!(
            (reached[0] - 0.5).abs() < 0.1 && (reached[1] + 0.5).abs() < 0.1,
            "{reached:?}"
        );
        let two_for_three = from_starts(
            &vec![vec![0.0]; 3],
            &[],
            INITIAL_STEP,
            &[&right, &left],
            None,
            Budget {
                evaluations: 12,
                seed: 1,
                jobs: 1,
            },
            &mut |_| ControlFlow::Continue(()),
        );
        assert_eq!(
            two_for_three.unwrap_err().to_string(),
            "2 losses for 3 starts"
        );
    }

    #[test]
    fn the_judge_tells_the_starts_apart_where_the_searched_loss_misleads() {
        // The truth is best at x[1] = 0.5; the searched loss (a screen corrected at the other
        // start, say) flatters x[1] = -0.5.
        let truth = |x: &[f64]| (x[0] - 0.3).powi(2) + (x[1] - 0.5).powi(2);
        let flattering = |x: &[f64]| truth(x) - if x[1] < 0.0 { 1.5 } else { 0.0 };
        let starts = [vec![0.0, -0.5], vec![0.0, 0.5]];
        let held = [false, true];
        let budget = Budget {
            evaluations: 12,
            seed: 5,
            jobs: 2,
        };
        let go_on = &mut |_: &Progress| ControlFlow::Continue(());
        let misled = from_starts(
            &starts,
            &held,
            INITIAL_STEP,
            &[&flattering],
            None,
            budget,
            go_on,
        )
        .unwrap();
        let judged = from_starts(
            &starts,
            &held,
            INITIAL_STEP,
            &[&flattering],
            Some(&truth),
            budget,
            go_on,
        )
        .unwrap();
        let went_on = |f: &Found| f.starts[0].iter().find(|s| s.went_on).unwrap().origin[1];
        assert_eq!(went_on(&misled), -0.5);
        assert_eq!(went_on(&judged), 0.5);
        for start in &judged.starts[0] {
            assert_eq!(start.best[1], start.origin[1]);
            assert_eq!(start.loss, truth(&start.best));
        }
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
        assert!(matches!(stopped, Err(FitError::Stopped)));
        assert_eq!(generations, 1);
    }
}
