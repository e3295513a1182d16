//! The last step of a fit: Levenberg-Marquardt (the `levenberg-marquardt` crate) from the
//! best drive the search confirmed, on the terms' signed errors, over the coordinates that
//! move their key smoothly.
//!
//! CMA-ES reads one number of a drive, its loss; the drive gives dozens of figures, and which
//! way each moves with each key is what a Jacobian reads. Near a minimum the search's steps
//! are as large as its population's spread, so it stalls in a valley the figures' directions
//! cross in a few steps (the S3700's search ended at 0.086, its polish at 0.015: BENCHMARKS
//! #27). Integer keys (channels, dies, GC burst blocks) and choices have no derivative: they
//! stay where the search put them.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use levenberg_marquardt::{LeastSquaresProblem, LevenbergMarquardt};
use nalgebra::{storage::Owned, DMatrix, DVector, Dyn};
use rayon::prelude::*;

/// A drive's signed residuals at a point of the space (the sum of their squares is what the
/// polish lowers), or `None` where the simulator refuses the drive.
pub type ResidualsAt<'a> = &'a (dyn Fn(&[f64]) -> Option<Vec<f64>> + Sync);

/// The forward difference's step, in coordinates: 7% of a factor-of-4 key, so a screened
/// figure moves past its short run's jitter.
const STEP: f64 = 0.05;

/// The first trust region's radius, in coordinates: the last round of screening's step.
const FIRST_RADIUS: f64 = 0.1;

/// The drives a polish may evaluate beyond a search of `evaluations`: a quarter more, four
/// or five Jacobians of a large drive's 15-odd smooth coordinates.
pub fn budget(evaluations: usize) -> usize {
    evaluations / 4
}

/// What the polish did.
#[derive(Clone, Debug)]
pub struct Polished {
    pub best: Vec<f64>,
    /// Drives evaluated, the Jacobians' included.
    pub evaluations: usize,
    /// The sum of the squared residuals at the start and at the best drive.
    /// None when it evaluated none.
    pub squares: Option<(f64, f64)>,
    /// Why it stopped, in words.
    pub stopped: String,
}

/// Polish `x0` over the coordinates `smooth` marks, evaluating at most `budget` drives (each
/// Jacobian is one per smooth coordinate, evaluated on `pool`). Coordinates stay in [-1, 1].
pub fn polish(
    x0: &[f64],
    smooth: &[bool],
    residuals: ResidualsAt,
    budget: usize,
    pool: &rayon::ThreadPool,
) -> Polished {
    let free: Vec<usize> = (0..x0.len())
        .filter(|&i| smooth.get(i).copied().unwrap_or(false))
        .collect();
    if free.is_empty() || budget < free.len() + 2 {
        return Polished {
            best: x0.to_vec(),
            evaluations: 0,
            squares: None,
            stopped: "nothing to polish within the budget".into(),
        };
    }
    let problem = Problem {
        x0: x0.to_vec(),
        offset: DVector::zeros(free.len()),
        free,
        residuals,
        pool,
        evaluations: AtomicUsize::new(0),
        budget,
        best: Mutex::new(None),
        first: Mutex::new(None),
        last: Mutex::new(None),
    };
    let (problem, report) = LevenbergMarquardt::new()
        .with_stepbound(FIRST_RADIUS)
        .with_scale_diag(false)
        .minimize(problem);
    let first = problem
        .first
        .into_inner()
        .expect("polish")
        .unwrap_or(f64::NAN);
    let (best, squares) = problem
        .best
        .into_inner()
        .expect("polish")
        .unwrap_or_else(|| (x0.to_vec(), first));
    Polished {
        best,
        evaluations: problem.evaluations.into_inner(),
        squares: Some((first, squares)).filter(|(a, b)| a.is_finite() && b.is_finite()),
        stopped: format!("{:?}", report.termination),
    }
}

/// `found` with the polished drive its best where its loss (`loss`, at full length) is lower;
/// the polish's drives counted and its end said either way.
pub fn keep_if_better(
    mut found: super::search::Found,
    polished: Polished,
    loss: &dyn Fn(&[f64]) -> f64,
) -> super::search::Found {
    found.evaluations += polished.evaluations;
    let before = loss(&found.best);
    let mut note = polished.note();
    if polished.best != found.best {
        let after = loss(&polished.best);
        note = format!("{note}, its drive {after:.4} for {before:.4}");
        if after < before {
            found.best = polished.best;
            found.history.push((found.evaluations, after));
        }
    }
    found.stopped = format!("{}; {note}", found.stopped);
    found
}

impl Polished {
    /// How it ended, in words, with the sum of squares it reached.
    pub fn note(&self) -> String {
        let squares = self.squares.map_or(String::new(), |(a, b)| {
            format!(", squares {a:.5} to {b:.5}")
        });
        format!(
            "the polish: {} after {} drives{squares}",
            self.stopped, self.evaluations
        )
    }
}

struct Problem<'a> {
    x0: Vec<f64>,
    /// The coordinates polished, and the offset from `x0` along them.
    free: Vec<usize>,
    offset: DVector<f64>,
    residuals: ResidualsAt<'a>,
    pool: &'a rayon::ThreadPool,
    evaluations: AtomicUsize,
    budget: usize,
    /// The point of the smallest sum of squares evaluated (not a Jacobian's step), and it.
    best: Mutex<Option<(Vec<f64>, f64)>>,
    /// The start's sum of squares.
    first: Mutex<Option<f64>>,
    /// The last point whose residuals were asked for, and them: the Jacobian is asked for
    /// where the residuals were, so it does not measure that drive again.
    last: Mutex<Option<(Vec<f64>, Vec<f64>)>>,
}

impl Problem<'_> {
    /// The point at `offset`, clamped into the box.
    fn point(&self, offset: &DVector<f64>) -> Vec<f64> {
        let mut x = self.x0.clone();
        for (&i, d) in self.free.iter().zip(offset.iter()) {
            x[i] = (x[i] + d).clamp(-1.0, 1.0);
        }
        x
    }

    /// The residuals at `x`, counted; none past the budget (which ends the polish).
    fn at(&self, x: &[f64]) -> Option<Vec<f64>> {
        if self.evaluations.fetch_add(1, Ordering::SeqCst) >= self.budget {
            // Not measured: uncounted.
            self.evaluations.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        (self.residuals)(x)
    }
}

impl LeastSquaresProblem<f64, Dyn, Dyn> for Problem<'_> {
    type ResidualStorage = Owned<f64, Dyn>;
    type JacobianStorage = Owned<f64, Dyn, Dyn>;
    type ParameterStorage = Owned<f64, Dyn>;

    fn set_params(&mut self, offset: &DVector<f64>) {
        self.offset.copy_from(offset);
    }

    fn params(&self) -> DVector<f64> {
        self.offset.clone()
    }

    fn residuals(&self) -> Option<DVector<f64>> {
        let x = self.point(&self.offset);
        let r = self.at(&x)?;
        let sum: f64 = r.iter().map(|v| v * v).sum();
        self.first.lock().expect("polish").get_or_insert(sum);
        let mut best = self.best.lock().expect("polish");
        if best.as_ref().is_none_or(|(_, s)| sum < *s) {
            *best = Some((x.clone(), sum));
        }
        *self.last.lock().expect("polish") = Some((x, r.clone()));
        Some(DVector::from_vec(r))
    }

    fn jacobian(&self) -> Option<DMatrix<f64>> {
        let x = self.point(&self.offset);
        let last = self.last.lock().expect("polish").clone();
        let here = match last {
            Some((at, r)) if at == x => r,
            _ => self.at(&x)?,
        };
        // Forward differences, inward at the box's upper edge.
        let columns: Vec<Option<Vec<f64>>> = self.pool.install(|| {
            self.free
                .par_iter()
                .map(|&i| {
                    let h = if x[i] + STEP > 1.0 { -STEP } else { STEP };
                    let mut moved = x.clone();
                    moved[i] += h;
                    let r = self.at(&moved)?;
                    Some(r.iter().zip(&here).map(|(a, b)| (a - b) / h).collect())
                })
                .collect()
        });
        let mut j = DMatrix::zeros(here.len(), self.free.len());
        for (c, column) in columns.into_iter().enumerate() {
            let column = column?;
            if column.len() != here.len() {
                return None;
            }
            j.column_mut(c).copy_from_slice(&column);
        }
        Some(j)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_polish_with_no_budget_says_so_without_a_sum_of_squares() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let residuals = |_: &[f64]| -> Option<Vec<f64>> { Some(vec![1.0]) };
        let p = polish(&[0.0, 0.0], &[true, true], &residuals, 1, &pool);
        assert_eq!(p.squares, None);
        let note = p.note();
        assert!(!note.contains("NaN"), "{note}");
        assert!(
            note.contains("nothing to polish within the budget"),
            "{note}"
        );
    }

    #[test]
    fn it_reaches_a_least_squares_minimum_cma_es_would_need_many_drives_for() {
        // Six figures of four coordinates, a curved valley (the Rosenbrock-like coupling of
        // a channel's speed and a program's time); the fourth coordinate is an integer key
        // the polish must leave where it is.
        let target = [0.4, -0.3, 0.2, 0.5];
        let r = |x: &[f64]| -> Option<Vec<f64>> {
            Some(vec![
                x[0] - target[0],
                10.0 * (x[1] - x[0] * x[0] + target[0] * target[0] - target[1]),
                (x[2] - target[2]) * 2.0,
                x[0] * x[2] - target[0] * target[2],
                x[1] + x[2] - target[1] - target[2],
                x[3] - target[3],
            ])
        };
        let pool = crate::fit::search::pool(2).unwrap();
        let smooth = [true, true, true, false];
        let p = polish(&[0.0, 0.0, 0.0, 0.1], &smooth, &r, 200, &pool);
        for (x, t) in p.best.iter().zip(&target).take(3) {
            assert!((x - t).abs() < 1e-3, "{p:?}");
        }
        assert_eq!(p.best[3], 0.1, "an integer key stays");
        assert!(p.evaluations <= 200);
        // A budget of one Jacobian and a step: it stops there, never worse than its start.
        let short = polish(&[0.0, 0.0, 0.0, 0.1], &smooth, &r, 6, &pool);
        assert!(short.evaluations <= 6, "{short:?}");
        let sum = |x: &[f64]| r(x).unwrap().iter().map(|v| v * v).sum::<f64>();
        assert!(sum(&short.best) <= sum(&[0.0, 0.0, 0.0, 0.1]));
        // The box holds.
        let edge = |x: &[f64]| Some(vec![x[0] - 3.0]);
        let p = polish(&[0.5], &[true], &edge, 50, &pool);
        assert!(p.best[0] <= 1.0 && p.best[0] > 0.99, "{p:?}");
    }
}
