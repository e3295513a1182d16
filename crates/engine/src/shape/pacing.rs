//! When IOs are sent, beyond "as soon as a slot is free": an open loop at a rate (fio's
//! `rate_iops` with `rate_process=linear|poisson`) and duty cycles (bursts of N bytes, then
//! idle so the busy share is P%: the 2018-2021 reviews' burst tests).

use rand_distr::{Distribution as _, Exp};
use serde::{Deserialize, Serialize};

use crate::pattern::Rng;

/// IOs arrive at `iops` a second of the device's clock, whether or not earlier ones are
/// done (at most the queue depth in flight: behind schedule, the next IO goes at once).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    pub iops: f64,
    pub arrivals: Arrivals,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arrivals {
    /// Evenly spaced (fio's `rate_process=linear`).
    #[default]
    Uniform,
    /// Exponential gaps: a Poisson process, as independent users send IOs.
    Poisson,
}

/// Bursts of `burst_bytes`; after each, once it has completed, the device idles for as
/// long as makes the burst `busy_pct` % of the cycle.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DutyCycle {
    pub burst_bytes: u64,
    pub busy_pct: f64,
}

/// A rate or duty cycle that cannot pace a run.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PacingError {
    #[error("--rate-iops {0}: give IOs per second above 0 (at most 1e9)")]
    Rate(f64),
    #[error("--burst: give the bytes of one burst, e.g. 32M")]
    NoBurst,
    #[error(
        "--duty {0}: give the busy share of each cycle in percent, above 0 and at \
         most 100, e.g. 20"
    )]
    BusyShare(f64),
}

impl Rate {
    pub fn check(&self) -> Result<(), PacingError> {
        if self.iops.is_finite() && self.iops > 0.0 && self.iops <= 1e9 {
            Ok(())
        } else {
            Err(PacingError::Rate(self.iops))
        }
    }
}

impl DutyCycle {
    pub fn check(&self) -> Result<(), PacingError> {
        if self.burst_bytes == 0 {
            return Err(PacingError::NoBurst);
        }
        if !(self.busy_pct.is_finite() && self.busy_pct > 0.0 && self.busy_pct <= 100.0) {
            return Err(PacingError::BusyShare(self.busy_pct));
        }
        Ok(())
    }
}

/// The schedule of a paced run, kept by the driver: when the next IO may go.
pub(crate) struct Pacer {
    rate: Option<(Rate, Exp<f64>)>,
    duty: Option<DutyCycle>,
    /// The next arrival, in ns of the device's clock (fractional, so a rate is met exactly
    /// over a run rather than rounded per gap).
    next_arrival: f64,
    rng: Rng,
    burst_start_ns: u64,
    burst_issued: u64,
    /// The burst is fully issued: nothing more goes until it has completed and the idle
    /// time after it has passed.
    draining: bool,
    idle_until_ns: u64,
}

impl Pacer {
    /// `None` for a closed loop, which needs no schedule.
    pub(crate) fn new(
        rate: Option<Rate>,
        duty: Option<DutyCycle>,
        start_ns: u64,
        seed: u64,
    ) -> Option<Pacer> {
        if rate.is_none() && duty.is_none() {
            return None;
        }
        Some(Pacer {
            rate: rate.map(|r| (r, Exp::new(r.iops / 1e9).expect("rate checked"))),
            duty,
            next_arrival: start_ns as f64,
            // Its own stream, so pacing a workload does not change its offsets or data.
            rng: Rng::new(seed ^ 0xA771_7A15),
            burst_start_ns: start_ns,
            burst_issued: 0,
            draining: false,
            idle_until_ns: start_ns,
        })
    }

    /// The earliest time the next IO may be submitted; `u64::MAX` while a burst drains.
    #[inline]
    pub(crate) fn due_ns(&self) -> u64 {
        if self.draining {
            return u64::MAX;
        }
        let arrival = self
            .rate
            .as_ref()
            .map_or(0, |_| self.next_arrival.ceil() as u64);
        arrival.max(self.idle_until_ns)
    }

    /// An IO of `bytes` was submitted at `now_ns`.
    #[inline]
    pub(crate) fn issued(&mut self, now_ns: u64, bytes: u64) {
        if let Some((rate, exp)) = &self.rate {
            let gap = match rate.arrivals {
                Arrivals::Uniform => 1e9 / rate.iops,
                Arrivals::Poisson => exp.sample(&mut self.rng),
            };
            self.next_arrival += gap;
        }
        if let Some(duty) = self.duty {
            if self.burst_issued == 0 {
                self.burst_start_ns = now_ns;
            }
            self.burst_issued += bytes;
            self.draining = self.burst_issued >= duty.burst_bytes;
        }
    }

    /// Whether the run waits for its burst to complete.
    pub(crate) fn draining(&self) -> bool {
        self.draining
    }

    /// The burst has completed at `now_ns`: idle so it was `busy_pct` of the cycle.
    pub(crate) fn drained(&mut self, now_ns: u64) {
        let Some(duty) = self.duty else { return };
        let busy = now_ns.saturating_sub(self.burst_start_ns) as f64;
        let idle = busy * (100.0 - duty.busy_pct) / duty.busy_pct;
        self.idle_until_ns = now_ns + idle.round() as u64;
        // Arrivals missed while idle are not sent in a rush afterwards.
        self.next_arrival = self.next_arrival.max(self.idle_until_ns as f64);
        self.burst_issued = 0;
        self.draining = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gaps(arrivals: Arrivals, n: usize) -> Vec<f64> {
        let rate = Rate {
            iops: 50_000.0,
            arrivals,
        };
        let mut p = Pacer::new(Some(rate), None, 0, 1).unwrap();
        let mut last = p.due_ns();
        (0..n)
            .map(|_| {
                p.issued(last, 4096);
                let next = p.due_ns();
                let gap = (next - last) as f64;
                last = next;
                gap
            })
            .collect()
    }

    #[test]
    fn a_uniform_rate_is_met_over_a_second() {
        let g = gaps(Arrivals::Uniform, 50_000);
        let total: f64 = g.iter().sum();
        assert!((total - 1e9).abs() < 1e9 * 1e-6, "{total}");
    }

    /// Exponential gaps: mean 1/rate and a coefficient of variation of 1.
    #[test]
    fn poisson_gaps_have_unit_coefficient_of_variation() {
        let g = gaps(Arrivals::Poisson, 200_000);
        let n = g.len() as f64;
        let mean = g.iter().sum::<f64>() / n;
        let sd = (g.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
        assert!((mean - 20_000.0).abs() < 20_000.0 * 0.01, "{mean}");
        assert!((sd / mean - 1.0).abs() < 0.05, "cv {}", sd / mean);
    }

    #[test]
    fn a_burst_is_followed_by_its_share_of_idle() {
        let duty = DutyCycle {
            burst_bytes: 8192,
            busy_pct: 20.0,
        };
        let mut p = Pacer::new(None, Some(duty), 1_000, 1).unwrap();
        assert_eq!(p.due_ns(), 1_000);
        p.issued(1_000, 4096);
        assert!(!p.draining());
        p.issued(1_000, 4096);
        assert!(p.draining());
        assert_eq!(p.due_ns(), u64::MAX);
        // Busy 1 us: idle 4 us.
        p.drained(2_000);
        assert_eq!(p.due_ns(), 6_000);
    }
}
