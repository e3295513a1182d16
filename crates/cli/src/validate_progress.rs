//! `sim validate`'s progress: each measurement as it finishes with the time left, and each
//! claim's outcome as soon as the figures it reads are in, so a long run shows what it found
//! before the table at its end.

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::time::Instant;

use twin::fidelity::{self, Claim, Figures, Measure, Measured};

type Job = (String, Measure);

pub struct ValidateProgress<'a> {
    claims: &'a [Claim],
    /// Each claim's measurements, as `fidelity::plan` gives them.
    needs: Vec<BTreeSet<Job>>,
    total_cost: u32,
    total: usize,
    start: Instant,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    done: BTreeSet<Job>,
    done_cost: u32,
    measured: Measured,
    told: BTreeSet<usize>,
}

impl<'a> ValidateProgress<'a> {
    pub fn new(claims: &'a [Claim], jobs: &BTreeSet<Job>) -> Result<Self, fidelity::PlanError> {
        let needs = claims
            .iter()
            .map(|c| fidelity::plan(std::slice::from_ref(c)))
            .collect::<Result<_, _>>()?;
        Ok(ValidateProgress {
            claims,
            needs,
            total_cost: jobs.iter().map(|(_, m)| m.cost()).sum(),
            total: jobs.len(),
            start: Instant::now(),
            state: Mutex::new(State::default()),
        })
    }

    /// One measurement finished: say so, with the time left (the measurements' relative
    /// costs scaled by the time the finished ones took), and each claim it completes.
    pub fn done(&self, drive: &str, m: Measure, figures: &Figures, secs: f64) {
        let mut s = self.state.lock().expect("progress");
        s.done.insert((drive.to_string(), m));
        s.done_cost += m.cost();
        s.measured
            .entry(drive.to_string())
            .or_default()
            .extend(figures.clone());
        let left_cost = self.total_cost - s.done_cost;
        let elapsed = self.start.elapsed().as_secs_f64();
        let left = if left_cost == 0 {
            String::new()
        } else {
            let eta = elapsed * left_cost as f64 / s.done_cost.max(1) as f64;
            format!(", about {} left", crate::progress::duration(eta))
        };
        eprintln!(
            "  [{}/{}] {drive} {} ({secs:.1} s{left})",
            s.done.len(),
            self.total,
            m.prefix()
        );
        for (i, c) in self.claims.iter().enumerate() {
            if s.told.contains(&i) || !self.needs[i].is_subset(&s.done) {
                continue;
            }
            let o = fidelity::evaluate(c, &s.measured);
            eprintln!(
                "      {} {}: published {}; simulated {}",
                if o.pass { "pass" } else { "MISS" },
                c.id,
                c.published_text(),
                o.simulated
            );
            s.told.insert(i);
        }
    }
}
