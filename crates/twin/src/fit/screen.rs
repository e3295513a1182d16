//! Cheap evaluations: a fit screens its candidates on a smaller copy of each drive, `factor`
//! times smaller in capacity and in every size that fills with time (pseudo-SLC cache, write
//! buffer, mapping DRAM), running the tests `factor` times shorter. Such a drive goes through
//! the same states (cache full, spare area used, steady state) in that share of the time, for
//! about that share of the simulation's work; the dies, channels and NAND timings that set its
//! speed are the drive's own.
//!
//! It is not the same drive (a fixed span, an idle minute, a trace's scale mean differently),
//! so a screened figure is corrected by the ratio of the full-length figure to the screened
//! one at the best drive confirmed so far: screening ranks candidates near it; full-length
//! runs of the finalists decide (MQSim's and FEMU's fits have no such step; it is the
//! multi-fidelity "space mapping" correction).

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use rayon::prelude::*;

use super::polish;
use super::search::{self, Budget, Found, Phase, Progress, INITIAL_STEP};
use super::{ArgError, FitError, INVALID_LOSS};
use crate::fidelity::{Figures, Measure};

/// The screen's drive is at least this large (it keeps every test's span and fills in
/// proportion on today's drives), so the factor is the largest power of two that keeps it.
const MIN_CAPACITY: u64 = 16 << 30;

/// Keys in bytes that a drive fills over time, scaled with the capacity.
const SCALED_SIZES: [&str; 3] = ["slc_cache", "write_buffer", "dram"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Screen {
    /// How much smaller and shorter: 1 screens nothing (candidates run at full length).
    pub factor: u32,
}

impl Screen {
    /// The factor for a drive of `capacity` bytes, or the one asked for.
    pub fn for_capacity(capacity: u64, asked: Option<u32>) -> Screen {
        let factor = asked.unwrap_or_else(|| {
            let share = (capacity / MIN_CAPACITY).max(1);
            1 << (63 - share.leading_zeros())
        });
        Screen {
            factor: factor.max(1),
        }
    }

    /// The screen for a fit starting from `spec`: the factor asked for, or by its capacity
    /// halved until the simulator can build the screened start (a small drive's spare area
    /// can be too few blocks at a fraction of its size). A candidate whose screened drive
    /// cannot be built is refused like an impossible drive.
    pub fn choose(spec: &str, asked: Option<u32>) -> Result<Screen, FitError> {
        let capacity = sim::resolve(spec)?.capacity_bytes;
        let mut screen = Screen::for_capacity(capacity, asked);
        loop {
            let built = screen
                .spec(spec)
                .and_then(|s| sim::resolve(&s))
                .and_then(|cfg| cfg.layout().map(drop));
            match built {
                Ok(()) => return Ok(screen),
                Err(source) if asked.is_some() => {
                    return Err(ArgError::Screen {
                        factor: screen.factor,
                        source,
                    }
                    .into())
                }
                Err(_) => screen.factor /= 2,
            }
        }
    }

    pub fn is_on(self) -> bool {
        self.factor > 1
    }

    /// The screen `m` is measured through: none for the whole-drive fill, which is cheap at
    /// full length (128 KiB writes: a 250 GB drive in 3 s) and which a screen would blind (a
    /// pseudo-SLC cache an eighth the size lasts under the second the fill's figures resolve).
    pub fn of(self, m: Measure) -> Screen {
        match m {
            Measure::Fill => Screen { factor: 1 },
            _ => self,
        }
    }

    /// The tests' length as a share of the methodology's.
    pub fn time_scale(self) -> f64 {
        1.0 / self.factor as f64
    }

    /// The screened drive of `spec`: its capacity and the sizes that fill with time, divided
    /// by the factor (to whole MiB, what every mapping unit divides).
    pub fn spec(self, spec: &str) -> Result<String, sim::SimError> {
        if !self.is_on() {
            return Ok(spec.to_string());
        }
        let cfg = sim::resolve(spec)?;
        let shrink = |bytes: u64| (bytes / self.factor as u64) >> 20 << 20;
        let mut s = format!("{spec},capacity={}", shrink(cfg.capacity_bytes));
        let sizes = [cfg.slc.bytes, cfg.write_buffer_bytes, cfg.dram_bytes];
        for (key, bytes) in SCALED_SIZES.iter().zip(sizes) {
            s.push_str(&format!(",{key}={}", shrink(bytes)));
        }
        Ok(s)
    }
}

/// Per figure, the full-length figure over the screened one at the same drive: what turns a
/// screened drive's figures into estimates of its full-length ones.
#[derive(Clone, Debug, Default)]
pub struct Correction(BTreeMap<String, f64>);

impl Correction {
    /// From one drive measured both ways. A figure the screen does not give, or gives as
    /// zero, is left as it is.
    pub fn between(full: &Figures, screened: &Figures) -> Correction {
        Correction(
            full.iter()
                .filter_map(|(name, &f)| {
                    let s = *screened.get(name)?;
                    let ratio = f / s;
                    (s != 0.0 && ratio.is_finite()).then(|| (name.clone(), ratio))
                })
                .collect(),
        )
    }

    /// Estimates of the full-length figures from screened ones.
    pub fn apply(&self, screened: &Figures) -> Figures {
        screened
            .iter()
            .map(|(name, v)| (name.clone(), v * self.0.get(name).copied().unwrap_or(1.0)))
            .collect()
    }
}

/// Rounds of screening: each searches around the best drive confirmed so far, with the
/// correction measured there, then runs its finalists at full length.
const ROUNDS: usize = 3;

/// Searches in the first round ([`search::from_starts`]): a large drive's fit searches the
/// screen, where a start is cheap, from two at least (one per value of the outer choices,
/// [`super::Reach::Outer`], without and with a cache where the start has none,
/// [`super::Space::starts`], or the start twice with two seeds), each exploring a share of the
/// round before the one whose best drive is best at full length goes on, so one bad basin
/// does not decide the twin; later rounds refine around the best confirmed drive from one.
const FIRST_ROUND_STARTS: usize = 2;

/// The searches of the first round from `starts` starts: each, or the one twice.
pub fn first_round_starts(starts: usize) -> usize {
    if starts > 1 {
        starts
    } else {
        FIRST_ROUND_STARTS
    }
}

/// Finalists of a round confirmed at full length (a constant, so the twin does not depend
/// on the number of threads).
const FINALISTS: usize = 4;

/// Each of `points` at full length (measured on `pool`), with its loss.
fn measured(
    points: Vec<Vec<f64>>,
    full: FiguresAt,
    loss_of: &(dyn Fn(&Result<Figures, FitError>) -> f64 + Sync),
    pool: &rayon::ThreadPool,
) -> Vec<(Vec<f64>, f64, Result<Figures, FitError>)> {
    let figures: Vec<Result<Figures, FitError>> =
        pool.install(|| points.par_iter().map(|x| full(x)).collect());
    points
        .into_iter()
        .zip(figures)
        .map(|(x, f)| (x, loss_of(&f), f))
        .collect()
}

/// The best of `points` at full length (measured on `pool`), where its loss is below `than`.
fn better_than(
    than: f64,
    points: Vec<Vec<f64>>,
    full: FiguresAt,
    loss_of: &(dyn Fn(&Result<Figures, FitError>) -> f64 + Sync),
    pool: &rayon::ThreadPool,
) -> Option<(Vec<f64>, f64, Figures)> {
    measured(points, full, loss_of, pool)
        .into_iter()
        .filter(|(_, l, _)| *l < than)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .and_then(|(x, l, f)| Some((x, l, f.ok()?)))
}

/// A drive's figures at a point of the search space, or why the simulator refused it.
pub type FiguresAt<'a> = &'a (dyn Fn(&[f64]) -> Result<Figures, FitError> + Sync);

/// Minimise `loss` from `starts` (the start first, then its outer choices' other values;
/// `held` marks those coordinates), screening candidates with `screened` and confirming the
/// finalists of each round with `full`, and after each the best drive's `across` (points the
/// search cannot walk to from it, [`super::Space::across`]): the best of that drive and
/// them goes on, the others start the next round beside it. `budget.evaluations` counts screened
/// drives; the full-length ones are `ROUNDS x FINALISTS` more, with each round's starts' best
/// drives and its across, and [`Found::confirmed`] lists the best confirmed loss after each
/// round.
#[allow(clippy::too_many_arguments)]
pub fn search(
    starts: &[Vec<f64>],
    held: &[bool],
    smooth: &[bool],
    across: &(dyn Fn(&[f64]) -> Vec<Vec<f64>> + Sync),
    full: FiguresAt,
    screened: FiguresAt,
    loss: &(dyn Fn(&Figures) -> f64 + Sync),
    residuals: &(dyn Fn(&Figures) -> Vec<f64> + Sync),
    budget: Budget,
    progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
) -> Result<Found, FitError> {
    let pool = search::pool(budget.jobs)?;
    let full_loss = |f: &Result<Figures, FitError>| f.as_ref().map_or(INVALID_LOSS, loss);
    let mut best = starts.first().ok_or(FitError::NoStart)?.clone();
    let mut best_full = full(&best)?;
    let mut best_loss = loss(&best_full);
    let mut done = Found {
        confirmed: vec![(0, best_loss)],
        ..Found::start(best.clone(), "")
    };
    let mut correction = Correction::default();
    // The drives across the last round's best ([`super::Space::across`]) that lost to it.
    let mut rivals: Vec<(Vec<f64>, Figures)> = vec![];
    for round in 0..ROUNDS {
        // What earlier rounds left, shared: a generation may overshoot its round's share.
        let per_round =
            (budget.evaluations.saturating_sub(done.evaluations) / (ROUNDS - round)).max(1);
        // The start's screened drive builds ([`Screen::choose`]); should a finalist's not,
        // the last correction stays.
        if let Ok(at_best) = screened(&best) {
            correction = Correction::between(&best_full, &at_best);
        }
        let corrections = corrections(&correction, &rivals, screened);
        let screened_losses: Vec<_> = corrections
            .iter()
            .map(|c| {
                move |x: &[f64]| match screened(x) {
                    Ok(f) => loss(&c.apply(&f)),
                    Err(_) => INVALID_LOSS,
                }
            })
            .collect();
        let screened_losses: Vec<search::Loss> =
            screened_losses.iter().map(|l| l as search::Loss).collect();
        let offset = done.evaluations;
        let round_budget = Budget {
            evaluations: per_round,
            seed: budget.seed.wrapping_add(round as u64),
            ..budget
        };
        // Later rounds search closer: the correction holds near the drive it was measured at.
        let step = INITIAL_STEP / (1 << round) as f64;
        let from = round_starts(round, starts, &best, std::mem::take(&mut rivals));
        // The starts are told apart at full length: the correction was measured at one.
        let judge = |x: &[f64]| full_loss(&full(x));
        let found = search::from_starts(
            &from,
            held,
            step,
            &screened_losses,
            Some(&judge),
            round_budget,
            &mut |p| progress(&p.within(offset, budget.evaluations)),
        )?;
        let finalists = finalists(&found, &best);
        done.finalists += finalists.len();
        if let Some(better) = better_than(best_loss, finalists, full, &full_loss, &pool) {
            (best, best_loss, best_full) = better;
        }
        // Then across from the best of them, where the search cannot walk. Which side is
        // better this early says little (the Ultra Plus's MLC drive lost to its own TLC copy
        // after round 1, and its TLC twin fitted worse than the MLC one a search that stayed
        // reached), so the losers start the next round beside the winner, each exploring a
        // share of it, and the winner at full length then goes on.
        let across = across(&best);
        done.finalists += across.len();
        let sides = vec![(best, best_loss, Ok(best_full))];
        let winner;
        (winner, rivals) = winner_across(sides, measured(across, full, &full_loss, &pool))?;
        (best, best_loss, best_full) = (winner.x, winner.loss, winner.figures);
        done.starts
            .push(found.starts.into_iter().next().unwrap_or_default());
        done.evaluations += found.evaluations;
        done.history
            .extend(found.history.iter().map(|&(n, l)| (offset + n, l)));
        done.confirmed.push((done.evaluations, best_loss));
        done.stopped = found.stopped;
    }
    let (best, polish_note) = polish_best(
        Confirmed {
            x: best,
            loss: best_loss,
            figures: best_full,
        },
        &mut done,
        Polishing {
            smooth,
            full,
            screened,
            loss,
            residuals,
            correction,
            budget: polish::budget(budget.evaluations),
            pool: &pool,
        },
        progress,
    )?;
    done.stopped = format!(
        "{ROUNDS} rounds of screening, {} finalists run at full length; the last round: {}; {polish_note}",
        done.finalists, done.stopped
    );
    done.best = best;
    Ok(done)
}

/// Each start's correction: the best's, then each rival's, corrected where it was measured
/// (a drive of its own cell or cache, not the best's), or the best's where its screened drive
/// does not build.
fn corrections(
    best: &Correction,
    rivals: &[(Vec<f64>, Figures)],
    screened: FiguresAt,
) -> Vec<Correction> {
    std::iter::once(best.clone())
        .chain(rivals.iter().map(|(x, full)| match screened(x) {
            Ok(at) => Correction::between(full, &at),
            Err(_) => best.clone(),
        }))
        .collect()
}

/// A round's starts: the first round's (the start twice where it is the only one), or the
/// best drive so far and the rivals that lost to it across.
fn round_starts(
    round: usize,
    starts: &[Vec<f64>],
    best: &[f64],
    rivals: Vec<(Vec<f64>, Figures)>,
) -> Vec<Vec<f64>> {
    match round {
        0 if starts.len() > 1 => starts.to_vec(),
        0 => vec![best.to_vec(); first_round_starts(1)],
        _ => std::iter::once(best.to_vec())
            .chain(rivals.into_iter().map(|(x, _)| x))
            .collect(),
    }
}

/// The best of the best drive (`sides`) and the drives `across` it, at full length, and the
/// others the simulator built: the rivals that start the next round beside it.
#[allow(clippy::type_complexity)]
fn winner_across(
    mut sides: Vec<(Vec<f64>, f64, Result<Figures, FitError>)>,
    across: Vec<(Vec<f64>, f64, Result<Figures, FitError>)>,
) -> Result<(Confirmed, Vec<(Vec<f64>, Figures)>), FitError> {
    sides.extend(across);
    // Stable: the best stays on a tie.
    sides.sort_by(|a, b| a.1.total_cmp(&b.1));
    let (x, loss, figures) = sides.remove(0);
    let rivals = sides
        .into_iter()
        .filter(|(_, l, _)| *l < INVALID_LOSS)
        .filter_map(|(x, _, f)| Some((x, f.ok()?)))
        .collect();
    Ok((
        Confirmed {
            x,
            loss,
            figures: figures?,
        },
        rivals,
    ))
}

/// The round's finalists beside its best drive `best`: the best it ranked, and the starts'
/// best drives (judged at full length already).
fn finalists(found: &Found, best: &[f64]) -> Vec<Vec<f64>> {
    let mut finalists: Vec<Vec<f64>> = found
        .ranked
        .iter()
        .map(|(x, _)| x.clone())
        .filter(|x| x != best)
        .take(FINALISTS)
        .collect();
    for start in found.starts.iter().flatten() {
        if start.best != best && !finalists.contains(&start.best) {
            finalists.push(start.best.clone());
        }
    }
    finalists
}

/// The best drive confirmed at full length: its point, loss and figures.
struct Confirmed {
    x: Vec<f64>,
    loss: f64,
    figures: Figures,
}

/// What the polish after the rounds works with ([`polish_best`]).
struct Polishing<'a> {
    smooth: &'a [bool],
    full: FiguresAt<'a>,
    screened: FiguresAt<'a>,
    loss: &'a (dyn Fn(&Figures) -> f64 + Sync),
    residuals: &'a (dyn Fn(&Figures) -> Vec<f64> + Sync),
    /// The last correction, kept where the best's screened drive does not build.
    correction: Correction,
    budget: usize,
    pool: &'a rayon::ThreadPool,
}

/// The polish, screened with the correction at the best drive, confirmed at full length:
/// the best drive after it, and the polish's note for [`Found::stopped`]. `done` counts its
/// evaluations and its confirmed loss.
fn polish_best(
    best: Confirmed,
    done: &mut Found,
    p: Polishing,
    progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
) -> Result<(Vec<f64>, String), FitError> {
    let Confirmed {
        x: mut best,
        loss: mut best_loss,
        figures: best_full,
    } = best;
    let Polishing {
        smooth,
        full,
        screened,
        loss,
        residuals,
        mut correction,
        budget: polish_budget,
        pool,
    } = p;
    let full_loss = |f: &Result<Figures, FitError>| f.as_ref().map_or(INVALID_LOSS, loss);
    if let Ok(at_best) = screened(&best) {
        correction = Correction::between(&best_full, &at_best);
    }
    // The polish's Jacobians run inside the optimiser's loop, which reports nothing between
    // them: where it starts and where it ends are told.
    let polish_end = done.evaluations + polish_budget;
    let mut tell = |evaluations: usize, best_loss: f64| {
        progress(&Progress {
            generation: 0,
            evaluations,
            budget: polish_end,
            best_loss,
            evaluations_per_min: 0.0,
            eta_s: 0.0,
            phase: Phase::Polish,
        })
    };
    if tell(done.evaluations, best_loss).is_break() {
        return Err(FitError::Stopped);
    }
    let polished = polish::polish(
        &best,
        smooth,
        &|x| screened(x).ok().map(|f| residuals(&correction.apply(&f))),
        polish_budget,
        pool,
    );
    done.evaluations += polished.evaluations;
    let mut polish_note = polished.note();
    if polished.best != best {
        done.finalists += 1;
        let f = full(&polished.best);
        let l = full_loss(&f);
        polish_note = format!("{polish_note}, its drive at full length {l:.4} for {best_loss:.4}");
        if l < best_loss {
            (best, best_loss) = (polished.best, l);
        }
        done.history.push((done.evaluations, best_loss));
        done.confirmed.push((done.evaluations, best_loss));
    }
    if tell(done.evaluations, best_loss).is_break() {
        return Err(FitError::Stopped);
    }
    Ok((best, polish_note))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_side_that_loses_across_after_a_round_starts_the_next_one() {
        // A held choice (x[1]: -1 one cell, 1 the other) beside one coordinate. The cell the
        // search starts in reaches 0 far off; the other is better where round 1 ends (near
        // x[0] = 0.5), but nowhere below 0.065.
        let loss_at = |x: &[f64]| {
            if x[1] < 0.0 {
                0.15 * (1.0 - x[0])
            } else {
                0.065 + 0.1 * (x[0] - 0.5).powi(2)
            }
        };
        let calls = std::sync::Mutex::new(vec![]);
        let figures = |x: &[f64], full: bool| -> Result<Figures, FitError> {
            calls.lock().unwrap().push((full, x[1]));
            Ok(Figures::from([("f".to_string(), loss_at(x))]))
        };
        let found = search(
            &[vec![-0.9, -1.0]],
            &[false, true],
            &[true, false],
            &|x| vec![vec![x[0], -x[1]]],
            &|x| figures(x, true),
            &|x| figures(x, false),
            &|f| f["f"],
            &|f| vec![f["f"]],
            Budget {
                evaluations: 24,
                seed: 1,
                jobs: 1,
            },
            &mut |_| ControlFlow::Continue(()),
        )
        .unwrap();
        // The other cell won across after round 1 ...
        let calls = calls.into_inner().unwrap();
        let across = calls.iter().position(|&(full, cell)| full && cell > 0.0);
        let screened_other = calls.iter().position(|&(full, cell)| !full && cell > 0.0);
        assert!(across < screened_other, "{calls:?}");
        assert!(
            found.confirmed[1].1 <= 0.065 + 1e-3,
            "{:?}",
            found.confirmed
        );
        // ... yet the first cell, which lost, was searched again, from round 2's starts.
        let searched_again = calls[screened_other.unwrap()..]
            .iter()
            .any(|&(full, cell)| !full && cell < 0.0);
        assert!(searched_again, "{calls:?}");
        let cells = |round: usize| -> Vec<f64> {
            found.starts[round].iter().map(|s| s.origin[1]).collect()
        };
        assert_eq!((cells(1), cells(2)), (vec![1.0, -1.0], vec![1.0, -1.0]));
    }

    #[test]
    fn the_factor_keeps_the_screened_drive_at_least_16_gib() {
        assert_eq!(Screen::for_capacity(250_059_350_016, None).factor, 8);
        assert_eq!(Screen::for_capacity(120_034_123_776, None).factor, 4);
        assert_eq!(Screen::for_capacity(2 << 30, None).factor, 1);
        assert_eq!(Screen::for_capacity(1 << 40, None).factor, 64);
        assert_eq!(Screen::for_capacity(1 << 40, Some(1)).factor, 1);
    }

    #[test]
    fn a_screen_the_simulator_cannot_build_is_halved_or_refused() {
        // The default preset's 2 GiB has just the spare blocks GC needs; a quarter has not.
        let err = Screen::choose("default,capacity=2GiB", Some(4)).unwrap_err();
        let err = err.to_string();
        assert!(
            err.contains("--screen 4") && err.contains("smaller factor"),
            "{err}"
        );
        // 0.5% of 16 GiB is 20 blocks of 4 MiB, of 32 GiB 40: GC needs 27.
        let thin = "default,capacity=64GiB,op=0.5%";
        assert_eq!(Screen::for_capacity(64 << 30, None).factor, 4);
        assert_eq!(Screen::choose(thin, None).unwrap().factor, 2);
        assert_eq!(Screen::choose("840-evo-250", None).unwrap().factor, 8);
    }

    #[test]
    fn the_screened_drive_is_smaller_in_what_fills_with_time_only() {
        let s = Screen { factor: 8 }.spec("840-evo-250,op=9%").unwrap();
        let cfg = sim::resolve(&s).unwrap();
        let full = sim::resolve("840-evo-250,op=9%").unwrap();
        assert_eq!(cfg.capacity_bytes, (full.capacity_bytes / 8) >> 20 << 20);
        assert_eq!(cfg.slc.bytes, full.slc.bytes / 8);
        assert_eq!(cfg.dram_bytes, full.dram_bytes / 8);
        assert_eq!(cfg.write_buffer_bytes, full.write_buffer_bytes / 8);
        assert_eq!(
            (
                cfg.channels,
                cfg.dies(),
                format!("{:?}", cfg.native),
                cfg.op_pct
            ),
            (
                full.channels,
                full.dies(),
                format!("{:?}", full.native),
                full.op_pct
            )
        );
        assert_eq!(Screen { factor: 1 }.spec("default").unwrap(), "default");
    }

    #[test]
    fn a_correction_maps_screened_figures_to_full_length_ones() {
        let f = |pairs: &[(&str, f64)]| -> Figures {
            pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
        };
        let c = Correction::between(
            &f(&[("c.drop_s", 800.0), ("c.iops", 5000.0), ("c.zero", 3.0)]),
            &f(&[("c.drop_s", 100.0), ("c.iops", 4000.0), ("c.zero", 0.0)]),
        );
        let est = c.apply(&f(&[
            ("c.drop_s", 120.0),
            ("c.iops", 4400.0),
            ("c.zero", 0.5),
            ("c.new", 7.0),
        ]));
        assert_eq!(est["c.drop_s"], 960.0);
        assert_eq!(est["c.iops"], 5500.0);
        assert_eq!(est["c.zero"], 0.5);
        assert_eq!(est["c.new"], 7.0);
    }
}
