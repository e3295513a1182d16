//! What a served drive did, printed when it stops.

use std::fmt;
use std::time::Duration;

use engine::Op;

use crate::pacing::Pacing;

/// Late requests beyond this share of all: the host could not keep up.
const LATE_SHARE_KEPT_UP: f64 = 0.01;

pub struct Summary {
    pub(crate) served: Duration,
    pub(crate) slowdown: u32,
    pub(crate) pacing: Pacing,
    pub(crate) write_amplification: Option<f64>,
}

impl Summary {
    pub fn ios(&self) -> u64 {
        self.pacing.total_ios()
    }

    /// Whether the host completed nearly every request in time (see [`Pacing`]).
    pub fn kept_up(&self) -> bool {
        self.pacing.late() as f64 <= LATE_SHARE_KEPT_UP * self.ios() as f64
    }
}

fn micros(ns: Option<u64>) -> String {
    ns.map_or("-".into(), |ns| format!("{:.1} us", ns as f64 / 1e3))
}

fn mb(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.pacing;
        writeln!(f, "served for {:.1} s", self.served.as_secs_f64())?;
        if self.slowdown > 1 {
            writeln!(
                f,
                "slowed down {0} times: the simulated drive's rates are {0} times those measured \
                 on the device, its times 1/{0} (pacing errors below are on the wall clock)",
                self.slowdown
            )?;
        }
        writeln!(
            f,
            "IOs: {} ({} reads, {} writes, {} discards, {} flushes)",
            p.total_ios(),
            p.ios(Op::Read),
            p.ios(Op::Write),
            p.ios(Op::Discard),
            p.ios(Op::Flush)
        )?;
        writeln!(
            f,
            "bytes: {} read, {} written",
            mb(p.bytes_read()),
            mb(p.bytes_written())
        )?;
        match self.write_amplification {
            Some(wa) => writeln!(f, "write amplification: {wa:.2}")?,
            None => writeln!(f, "write amplification: - (nothing written)")?,
        }
        writeln!(
            f,
            "pacing error (real completion after the simulated one): p50 {}, p99 {}, max {}",
            micros(p.error_ns(0.5)),
            micros(p.error_ns(0.99)),
            micros(p.max_error_ns())
        )?;
        let share = 100.0 * p.late() as f64 / p.total_ios().max(1) as f64;
        if self.kept_up() {
            write!(
                f,
                "the host kept up: {} of {} IOs ({share:.2}%) completed later than twice their \
                 simulated service time",
                p.late(),
                p.total_ios()
            )
        } else {
            write!(
                f,
                "the host could not keep up: {} of {} IOs ({share:.2}%) completed later than \
                 twice their simulated service time, so the served drive was slower than the \
                 simulated one (p99 pacing error {})",
                p.late(),
                p.total_ios(),
                micros(p.error_ns(0.99))
            )
        }
    }
}
