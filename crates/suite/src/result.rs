//! The result of one test: self-describing JSON that says what was measured, on what, how,
//! and whether the run completed. Field names are a contract other tools build on: add
//! fields freely, never rename or remove one.

use serde::{Deserialize, Serialize};

use engine::counters::DeviceCounters;
use engine::driver::{CounterSnapshots, Stopped};
use engine::measure::{SecondPoint, Summary};
use engine::system::SystemInfo;
use engine::{Clock, Identity};

use crate::analysis::Analysis;
use crate::methodology::TestId;

mod parameters;
mod stored;

pub(crate) use stored::typed_part;
pub use stored::PartError;

pub use parameters::{
    Parameters, PowerParameters, ReplayParameters, SweepParameters, TrimParameters, TrimPass,
    VerifyParameters,
};

pub const SCHEMA_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    pub name: String,
    pub version: String,
}

impl Default for Tool {
    fn default() -> Tool {
        Tool {
            name: "ssdlab".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

/// A step before the measurement proper: a purge or a fill.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Phase {
    pub name: String,
    pub description: String,
    /// How a purge was done ("BLKDISCARD", "hole punch", "TRIM (simulated)"), or why not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<Summary>,
    pub complete: bool,
}

/// Write amplification from a simulated device's counters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct WriteAmplification {
    /// Over the whole measured phase.
    pub cumulative: f64,
    /// Over its second half, once the drive has settled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steady_state: Option<f64>,
}

impl WriteAmplification {
    pub fn from_counters(c: &CounterSnapshots) -> Option<WriteAmplification> {
        // The simulator counts pages; a real drive's health counts bytes.
        let written = |c: &DeviceCounters| match (c.sim(), c.health()) {
            (Some(s), _) => Some((s.host_write_pages as f64, s.nand_write_pages as f64)),
            (None, Some(h)) => Some((h.host_bytes_written? as f64, h.nand_bytes_written? as f64)),
            (None, None) => None,
        };
        let wa = |a: (f64, f64), b: (f64, f64)| {
            let host = b.0 - a.0;
            (host > 0.0).then(|| (b.1 - a.1) / host)
        };
        let (start, end) = (written(&c.start)?, written(c.end.as_ref()?)?);
        Some(WriteAmplification {
            cumulative: wa(start, end)?,
            steady_state: c
                .checkpoint
                .as_ref()
                .and_then(written)
                .and_then(|mid| wa(mid, end)),
        })
    }
}

/// Loaded through [`stored::StoredResult`], which says what older results lack.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "stored::StoredResult")]
pub struct TestResult {
    pub schema_version: u32,
    pub tool: Tool,
    /// The run this result belongs to: a UUID made when the run started, the same in every
    /// result of a suite (and kept by `--resume`). Results of earlier ssdlab versions lack it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The test, stored by the name `ssdlab run` takes, e.g. "random-write-qd32". A result
    /// naming no known test does not load: the error names it.
    pub test: TestId,
    /// Which of a test's results this is when it makes several ("read", "write",
    /// "compressible", "spare-25"); also names its files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// A title for charts, e.g. "4 KiB random write, QD32, incompressible".
    pub label: String,
    /// UTC, RFC 3339.
    pub started_at: String,
    /// False when the run was interrupted or failed; what it measured so far is kept.
    pub complete: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<Stopped>,
    /// Every parameter of the measured workload, after defaults and scaling, by test.
    pub parameters: Parameters,
    /// What was changed from the methodology's parameters, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub deviations: Vec<String>,
    /// How the methodology was fitted to this target where it cannot apply as written (a
    /// Storage Bench trace spanning more than the drive is laid out on it and scaled to it):
    /// the methodology's own rule for such a drive, not a change a user made.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub adaptations: Vec<String>,
    pub target: Identity,
    pub clock: Clock,
    pub system: SystemInfo,
    pub preconditioning: Vec<Phase>,
    /// Set when the run stopped in a preconditioning phase (e.g. "fill"): `summary` and
    /// `per_second` are then that phase's, not the test's, and the label says so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured_phase: Option<String>,
    /// The measured phase; for a curve (transfer-size sweep) its headline point.
    pub summary: Summary,
    pub per_second: Vec<SecondPoint>,
    /// Curves: one measurement per x (e.g. per transfer size).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub points: Vec<CurvePoint>,
    /// Test-specific figures (e.g. consistency statistics), by test.
    #[serde(skip_serializing_if = "Analysis::is_none")]
    pub analysis: Analysis,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_counters: Option<CounterSnapshots>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_amplification: Option<WriteAmplification>,
    /// On a real drive that counts host writes: its count against ssdlab's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_writes: Option<HostWrites>,
    /// What a reader must know about these figures (a drive's counter disagreeing, ...).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// What data verification found (`--verify`, `ssdlab run verify`): units checked,
    /// mismatches by kind, the first bad LBAs with what was expected and what was found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verify: Option<engine::verify::VerifyReport>,
    /// The drive's power over the measured phase, where it is known: the simulator's energy
    /// model, or a meter's readings (`--power-meter`). Its per-second values are the
    /// per-second series' `watts`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power: Option<engine::power::PhasePower>,
    /// The SNIA PTS tests: the drive's write cache as found, set for the test and put back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_cache: Option<crate::pts::WriteCacheRecord>,
}

/// A real drive's own count of what the host wrote in the measured phase (NVMe SMART data
/// units, ATA SMART host-writes attributes) against what ssdlab wrote: they must agree to
/// within the counter's granularity, or something else wrote to the drive or its counter is
/// wrong.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct HostWrites {
    pub drive_bytes: u64,
    pub ssdlab_bytes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub granularity_bytes: Option<u64>,
    pub agrees: bool,
}

impl HostWrites {
    pub fn from_counters(c: &CounterSnapshots, ssdlab_bytes: u64) -> Option<HostWrites> {
        let end = c.end.as_ref()?.health()?;
        let delta = engine::drive::Health::delta(c.start.health()?, end);
        let drive_bytes = delta.host_bytes_written?;
        // A counter rounded to its unit is off by less than one unit at each end.
        let slack = delta.granularity_bytes.unwrap_or(0);
        Some(HostWrites {
            drive_bytes,
            ssdlab_bytes,
            granularity_bytes: delta.granularity_bytes,
            agrees: drive_bytes.abs_diff(ssdlab_bytes) <= slack,
        })
    }
}

/// Append a run's seconds after those of the runs before it, on one clock.
pub(crate) fn append_seconds(seconds: &mut Vec<SecondPoint>, run: Vec<SecondPoint>) {
    let offset = seconds.last().map_or(0, |p| p.t + 1);
    seconds.extend(run.into_iter().map(|p| SecondPoint {
        t: p.t + offset,
        ..p
    }));
}

/// One point of a curve: x (e.g. transfer size in bytes) and what was measured there.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    pub x: f64,
    pub summary: Summary,
}

impl TestResult {
    /// The stem of this result's files in a results directory.
    pub fn file_stem(&self) -> String {
        match &self.variant {
            Some(v) => format!("{}-{v}", self.test),
            None => self.test.name().to_string(),
        }
    }
}

/// What a test knows about its run besides the driver's outcome; `finish` makes the result.
pub struct Report {
    pub test: TestId,
    pub variant: Option<String>,
    pub label: String,
    pub started_at: String,
    pub preconditioning: Vec<Phase>,
    pub deviations: Vec<String>,
    pub analysis: Analysis,
    pub points: Vec<CurvePoint>,
}

impl Report {
    /// Start a report now.
    pub fn new(test: TestId, label: impl Into<String>) -> Report {
        Report {
            test,
            variant: None,
            label: label.into(),
            started_at: utc_now(),
            preconditioning: Vec::new(),
            deviations: Vec::new(),
            analysis: Analysis::None,
            points: Vec::new(),
        }
    }

    pub fn finish(
        self,
        dev: &dyn engine::Device,
        w: &engine::workload::Workload,
        outcome: engine::driver::Outcome,
    ) -> TestResult {
        self.finish_with(dev, Parameters::Workload(w.clone()), outcome)
    }

    /// [`Report::finish`] for a measurement that is not one workload (an idle period).
    pub fn finish_with(
        self,
        dev: &dyn engine::Device,
        parameters: Parameters,
        outcome: engine::driver::Outcome,
    ) -> TestResult {
        // A failed purge is recorded (and makes the run "not clean"), not a reason to call the
        // measurement incomplete; any other unfinished phase is.
        let complete = outcome.stopped.is_none()
            && self
                .preconditioning
                .iter()
                .all(|p| p.complete || p.name == "purge");
        let write_amplification = outcome
            .counters
            .as_ref()
            .and_then(WriteAmplification::from_counters);
        let written = outcome
            .measurements
            .summary
            .write
            .as_ref()
            .map_or(0, |w| w.bytes);
        let host_writes = outcome
            .counters
            .as_ref()
            .and_then(|c| HostWrites::from_counters(c, written));
        let mut warnings = Vec::new();
        if let Some(h) = host_writes.filter(|h| !h.agrees) {
            warnings.push(format!(
                "the drive counted {} bytes written by the host in the measured phase, ssdlab \
                 wrote {}: something else wrote to the drive, or its counter is wrong",
                h.drive_bytes, h.ssdlab_bytes
            ));
        }
        let point_s = outcome.measurements.summary.point_s;
        if point_s > 1 {
            warnings.push(format!(
                "the series is in points of {point_s} s, not seconds: a run of more than {} s \
                 keeps that many points at most (each point's rates are over its seconds, its \
                 latency percentiles its worst second's)",
                engine::measure::MAX_POINTS
            ));
        }
        if let Some(m) = outcome.power.as_ref().and_then(|p| p.missing.as_ref()) {
            warnings.push(format!(
                "power is missing from {:.1} s into the measurement: {}",
                m.from_s, m.reason
            ));
        }
        // A test that stops in a preconditioning phase hands over that phase's outcome: the
        // figures are the phase's, and the result must not pass them off as the test's.
        let measured_phase = self
            .preconditioning
            .last()
            .filter(|p| !p.complete && p.summary.is_some() && outcome.stopped.is_some())
            .map(|p| p.name.clone());
        let label = match &measured_phase {
            Some(p) => format!(
                "{}: stopped in the {p} phase (the figures are the {p}'s)",
                self.label
            ),
            None => self.label,
        };
        TestResult {
            schema_version: SCHEMA_VERSION,
            tool: Tool::default(),
            run_id: None,
            test: self.test,
            variant: self.variant,
            label,
            started_at: self.started_at,
            complete,
            stopped: outcome.stopped,
            parameters,
            deviations: self.deviations,
            adaptations: Vec::new(),
            target: dev.identity(),
            clock: dev.clock(),
            system: SystemInfo::probe(),
            preconditioning: self.preconditioning,
            measured_phase,
            summary: outcome.measurements.summary,
            per_second: outcome.measurements.per_second,
            points: self.points,
            analysis: self.analysis,
            device_counters: outcome.counters,
            write_amplification,
            host_writes,
            warnings,
            verify: outcome.verify,
            power: outcome.power,
            write_cache: None,
        }
    }
}

/// Now as RFC 3339 UTC, e.g. 2026-11-23T01:02:03Z.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + (month <= 2) as i64;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamp_shape() {
        let t = utc_now();
        assert_eq!(t.len(), 20, "{t}");
        assert!(t.starts_with("20") && t.ends_with('Z'));
    }

    #[test]
    fn write_amplification_from_counters() {
        use engine::Device;
        let fresh = sim::open("default,capacity=64MiB,op=25%,pages_per_block=8")
            .unwrap()
            .counters()
            .unwrap();
        let snapshot = |host, nand| {
            let mut c = fresh.sim().unwrap().clone();
            (c.host_write_pages, c.nand_write_pages) = (host, nand);
            DeviceCounters::of_sim(c)
        };
        let c = CounterSnapshots {
            start: snapshot(100, 100),
            checkpoint: Some(snapshot(200, 250)),
            end: Some(snapshot(300, 450)),
        };
        let wa = WriteAmplification::from_counters(&c).unwrap();
        assert!((wa.cumulative - 1.75).abs() < 1e-12);
        assert!((wa.steady_state.unwrap() - 2.0).abs() < 1e-12);
    }
}
