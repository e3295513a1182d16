//! What the scorecard measures on a preset: the methodology's own tests (at their full
//! parameters) and two measurements the articles describe outside them (spec-sheet bursts,
//! a TurboWrite write). Each measurement gives named figures, `measure.figure`, that the
//! claims refer to.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;

use engine::pattern::DataKind;
use engine::shape::Shape;
use engine::workload::{Access, Limit, Workload};
use engine::Device;

use suite::context::{Context, Silent};
use suite::methodology::{self, TestId};
use suite::params::{ns, Overrides};
use suite::result::TestResult;
use suite::{deciles, drop_time, series_stats};

/// Why a measurement gives no figures: the drive or one of its tests failed, or the results
/// it reads lack what it reads of them.
#[derive(Debug, thiserror::Error)]
pub enum MeasureError {
    #[error("unknown figure '{0}'")]
    UnknownFigure(String),
    /// The simulator refused the drive's spec.
    #[error("{0}")]
    Drive(#[from] sim::SimError),
    /// A methodology test failed on the drive.
    #[error("{id}: {source}")]
    Test {
        id: TestId,
        #[source]
        source: suite::SuiteError,
    },
    /// One of ssdlab's own bursts or writes failed on the drive.
    #[error("{0}")]
    Run(#[from] suite::SuiteError),
    #[error("{0}")]
    Erase(#[from] engine::DeviceError),
    #[error("{0}")]
    Idle(#[from] engine::driver::DriverError),
    #[error("{0}: not a methodology test")]
    NotATest(&'static str),
    #[error("{0}: measured by ssdlab's own bursts, not read from results")]
    NotFromResults(&'static str),
    /// The results hold no result of a test the measurement reads.
    #[error("{of}: no {test} result")]
    NoResult { of: &'static str, test: String },
    /// A result holds no figures of the kind the measurement reads (`what` says which).
    #[error("{of}: {what}")]
    NoFigures { of: String, what: &'static str },
    /// Where a [`crate::fit::Measurer`] measured the drive, its message.
    #[error("{0}")]
    Elsewhere(String),
}

/// Figures by name, e.g. "consistency.steady_cv".
pub type Figures = BTreeMap<String, f64>;

/// One measurement run on a fresh simulated drive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Measure {
    /// Vendor-style bursts on a clean drive: 128 KiB sequential and 4 KiB random (8 GiB span)
    /// at QD32, 3 s each.
    Spec,
    /// The four corners.
    Corners,
    /// AS-SSD incompressible sequential.
    AsSsd,
    /// ATTO transfer-size sweep.
    Atto,
    /// IO consistency, default spare area and 25% spare area.
    Consistency,
    Consistency25,
    /// TRIM validation.
    Trim,
    /// Storage Bench look-alikes.
    Heavy,
    Light,
    Destroyer,
    /// A 128 KiB sequential write over the whole drive, ten minutes idle, and again.
    TurboWrite,
    /// The 2018-2021 reviews' whole-drive fill: where a write cache runs out, and the speeds
    /// in it and after it (what a fit needs to give a drive's twin its pseudo-SLC cache).
    Fill,
    /// The power tests: idle, slumber, sequential write with its tail, random write.
    Power,
}

pub const ALL: &[Measure] = &[
    Measure::Spec,
    Measure::Corners,
    Measure::AsSsd,
    Measure::Atto,
    Measure::Consistency,
    Measure::Consistency25,
    Measure::Trim,
    Measure::Heavy,
    Measure::Light,
    Measure::Destroyer,
    Measure::TurboWrite,
    Measure::Fill,
    Measure::Power,
];

/// A measurement is written as its figures' prefix, `consistency`.
impl serde::Serialize for Measure {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.prefix())
    }
}

impl Measure {
    pub fn prefix(self) -> &'static str {
        match self {
            Measure::Spec => "spec",
            Measure::Corners => "corners",
            Measure::AsSsd => "asssd",
            Measure::Atto => "atto",
            Measure::Consistency => "consistency",
            Measure::Consistency25 => "consistency25",
            Measure::Trim => "trim",
            Measure::Heavy => "heavy",
            Measure::Light => "light",
            Measure::Destroyer => "destroyer",
            Measure::TurboWrite => "turbo",
            Measure::Fill => "fill",
            Measure::Power => "power",
        }
    }

    /// The measurement of a prefix (`consistency25`).
    pub fn named(prefix: &str) -> Option<Measure> {
        ALL.iter().copied().find(|m| m.prefix() == prefix)
    }

    /// Relative wall-time cost, to start the longest jobs first.
    pub fn cost(self) -> u32 {
        match self {
            Measure::Destroyer => 10,
            Measure::Trim => 8,
            Measure::Consistency | Measure::Consistency25 => 6,
            Measure::TurboWrite | Measure::Fill | Measure::Heavy | Measure::Power => 3,
            _ => 1,
        }
    }

    /// The measurements a figure needs: its own prefix's, and both consistency runs for the
    /// spare-area ratios.
    pub fn needed_by(figure: &str) -> Result<Vec<Measure>, MeasureError> {
        if figure.starts_with("spare.") {
            return Ok(vec![Measure::Consistency, Measure::Consistency25]);
        }
        let prefix = figure.split('.').next().unwrap_or("");
        ALL.iter()
            .find(|m| m.prefix() == prefix)
            .map(|&m| vec![m])
            .ok_or_else(|| MeasureError::UnknownFigure(figure.to_string()))
    }

    /// The Storage Bench trace a replay measurement replays.
    fn trace(self) -> Option<&'static str> {
        match self {
            Measure::Heavy => Some("heavy-2011"),
            Measure::Light => Some("light-2011"),
            Measure::Destroyer => Some("destroyer-2013"),
            _ => None,
        }
    }

    /// The measurement a stored result belongs to, if its figures are any measurement's: a
    /// drive's own results directory gives the same figures as a simulated run.
    pub fn of_result(r: &TestResult) -> Option<Measure> {
        let spare = r
            .variant
            .as_deref()
            .is_some_and(|v| v.starts_with("spare-"));
        Some(match r.test {
            TestId::RandomRead
            | TestId::RandomWrite
            | TestId::RandomWriteQd32
            | TestId::SeqRead
            | TestId::SeqWrite => Measure::Corners,
            TestId::SeqIncompressible => Measure::AsSsd,
            TestId::TransferSweep => Measure::Atto,
            TestId::Consistency if spare => Measure::Consistency25,
            TestId::Consistency => Measure::Consistency,
            TestId::Trim => Measure::Trim,
            TestId::WholeDriveFill => Measure::Fill,
            // The variant names the trace (the analysis may say "synthetic ... at scale").
            TestId::StorageBench => {
                let trace = r.variant.as_deref()?;
                ALL.iter().copied().find(|m| m.trace() == Some(trace))?
            }
            t if methodology::power::TESTS.contains(&t) => Measure::Power,
            _ => return None,
        })
    }

    /// Run on a fresh drive from `spec` (what follows `sim:`).
    pub fn run(self, spec: &str) -> Result<Figures, MeasureError> {
        self.run_shortened(spec, 1.0)
    }

    /// Run with the timed phases of the tests (the corners, the consistency runs, TRIM's
    /// torture, the power tests' measured phases) and the Storage Bench's traces `time_scale`
    /// as long: on a drive of `time_scale` the capacity, the drive goes through the same states
    /// in that share of the time (a twin fit's screening, [`crate::fit`]). 1 is the
    /// methodology.
    pub fn run_shortened(self, spec: &str, time_scale: f64) -> Result<Figures, MeasureError> {
        let mut dev = sim::open(spec)?;
        let stop = AtomicBool::new(false);
        let mut silent = Silent;
        let mut ctx = Context::new(&stop, &mut silent);
        let mut f = Figures::new();
        let p = self.prefix();
        let mut put = |name: &str, v: f64| {
            f.insert(format!("{p}.{name}"), v);
        };
        match self {
            Measure::Spec => spec_bursts(&mut dev, &mut ctx, &mut put)?,
            Measure::TurboWrite => turbo_write(&mut dev, &mut ctx, &mut put)?,
            _ => {
                let results = self.run_tests(&mut dev, &mut ctx, time_scale)?;
                self.figures(&results, &mut put)?;
            }
        }
        Ok(f)
    }

    /// Run the methodology's tests this measurement reads.
    fn run_tests(
        self,
        dev: &mut sim::SimSsd,
        ctx: &mut Context,
        time_scale: f64,
    ) -> Result<Vec<TestResult>, MeasureError> {
        let mut test = |id: TestId, o: Overrides| {
            methodology::run(id, dev, ctx, &o).map_err(|source| MeasureError::Test { id, source })
        };
        // The methodology's own durations unless shortened.
        let lasting = |default_s: f64| Overrides {
            duration_s: (time_scale != 1.0).then_some(default_s * time_scale),
            ..Overrides::default()
        };
        let spare = |pct| Overrides {
            spare_pct: Some(pct),
            ..lasting(methodology::consistency::DEFAULTS.duration_s)
        };
        match self {
            // The random corners' length; the sequential ones take it too when shortened.
            Measure::Corners => test(
                TestId::Corners,
                lasting(methodology::corners::RANDOM.duration_s),
            ),
            Measure::AsSsd => test(TestId::SeqIncompressible, Overrides::default()),
            Measure::Atto => test(TestId::TransferSweep, Overrides::default()),
            // Bounded by the drive's bytes, not by time (a fit runs it at full length even
            // while it screens: `Screen::of`).
            Measure::Fill => test(TestId::WholeDriveFill, Overrides::default()),
            Measure::Consistency => test(
                TestId::Consistency,
                lasting(methodology::consistency::DEFAULTS.duration_s),
            ),
            Measure::Consistency25 => test(TestId::Consistency, spare(25.0)),
            Measure::Trim => test(
                TestId::Trim,
                lasting(methodology::trim::DEFAULTS.duration_s),
            ),
            Measure::Heavy | Measure::Light | Measure::Destroyer => test(
                TestId::StorageBench,
                Overrides {
                    trace: self.trace().map(String::from),
                    trace_scale: (time_scale != 1.0).then_some(time_scale),
                    ..Overrides::default()
                },
            ),
            // Each measured phase shortened: a minute's writes fill a screened drive that
            // many times over (and cost as much as on the full one). The rest before idling
            // is idle, cheap at any length.
            Measure::Power => {
                let mut all = Vec::new();
                for id in methodology::power::TESTS {
                    all.extend(test(id, lasting(methodology::power::MEASURE_S))?);
                }
                Ok(all)
            }
            Measure::Spec | Measure::TurboWrite => Err(MeasureError::NotATest(self.prefix())),
        }
    }

    /// This measurement's figures from its tests' results, simulated or a real drive's
    /// (`put` takes each figure's name without the prefix).
    pub fn figures(
        self,
        rs: &[TestResult],
        put: &mut impl FnMut(&str, f64),
    ) -> Result<(), MeasureError> {
        let results = Results {
            rs,
            of: self.prefix(),
        };
        match self {
            Measure::Corners => corners_figures(&results, put)?,
            Measure::AsSsd => {
                for r in rs.iter().filter(|r| r.test == TestId::SeqIncompressible) {
                    let v = r.variant.clone().unwrap_or_default();
                    put(&format!("{v}_mbps"), r.summary.mbps);
                }
            }
            Measure::Atto => atto_figures(rs, put),
            Measure::Consistency | Measure::Consistency25 => {
                consistency_figures(results.of_measure(self, "consistency")?, put);
            }
            Measure::Trim => trim_figures(&results, put)?,
            Measure::Fill => fill_figures(&results, put)?,
            Measure::Heavy | Measure::Light | Measure::Destroyer => {
                let a = results
                    .of_measure(self, "storage-bench")?
                    .replay()
                    .ok_or_else(|| no_figures("storage-bench", "no replay figures"))?;
                put("data_rate_mbps", a.metrics.data_rate_mbps);
                put("service_us", a.metrics.avg_service_time_us);
            }
            Measure::Power => power_figures(&results, put)?,
            Measure::Spec | Measure::TurboWrite => {
                return Err(MeasureError::NotFromResults(results.of))
            }
        }
        Ok(())
    }
}

/// The results of one measurement's tests ([`Measure::figures`]), `of` its prefix.
struct Results<'a> {
    rs: &'a [TestResult],
    of: &'static str,
}

impl<'a> Results<'a> {
    /// The result of `test` (its `variant`).
    fn find(&self, test: TestId, variant: Option<&str>) -> Result<&'a TestResult, MeasureError> {
        self.rs
            .iter()
            .find(|r| r.test == test && r.variant.as_deref() == variant)
            .ok_or_else(|| self.no_result(&test.to_string()))
    }

    /// The result that belongs to `m` ([`Measure::of_result`]), a `test` result.
    fn of_measure(&self, m: Measure, test: &str) -> Result<&'a TestResult, MeasureError> {
        self.rs
            .iter()
            .find(|r| Measure::of_result(r) == Some(m))
            .ok_or_else(|| self.no_result(test))
    }

    fn no_result(&self, test: &str) -> MeasureError {
        MeasureError::NoResult {
            of: self.of,
            test: test.to_string(),
        }
    }
}

/// A result of `of` without the figures `what` says.
fn no_figures(of: &str, what: &'static str) -> MeasureError {
    MeasureError::NoFigures {
        of: of.to_string(),
        what,
    }
}

/// The four corners' IOPS, latencies and speeds.
fn corners_figures(results: &Results, put: &mut impl FnMut(&str, f64)) -> Result<(), MeasureError> {
    let rr = &results.find(TestId::RandomRead, None)?.summary;
    let rw = &results
        .find(TestId::RandomWrite, Some("incompressible"))?
        .summary;
    let rw32 = &results.find(TestId::RandomWriteQd32, None)?.summary;
    put("random_read_iops", rr.iops);
    put("random_write_iops", rw.iops);
    put("random_write_qd32_iops", rw32.iops);
    // Latency percentiles: what tells a slow NAND read from a slow channel or a
    // busy controller when their IOPS agree.
    let random = [
        ("random_read", &rr.read),
        ("random_write", &rw.write),
        ("random_write_qd32", &rw32.write),
    ];
    for (name, dir) in random {
        if let Some(d) = dir {
            put(&format!("{name}_p50_us"), d.latency_us.p50);
            put(&format!("{name}_p99_us"), d.latency_us.p99);
        }
    }
    put("qd32_scaling", rw32.iops / rw.iops);
    put(
        "seq_read_mbps",
        results.find(TestId::SeqRead, None)?.summary.mbps,
    );
    put(
        "seq_write_mbps",
        results
            .find(TestId::SeqWrite, Some("incompressible"))?
            .summary
            .mbps,
    );
    Ok(())
}

/// ATTO's peak, 4 KiB and small-transfer speeds, per variant.
fn atto_figures(rs: &[TestResult], put: &mut impl FnMut(&str, f64)) {
    for r in rs.iter().filter(|r| r.test == TestId::TransferSweep) {
        let v = r.variant.clone().unwrap_or_default();
        let at = |size: f64| {
            r.points
                .iter()
                .find(|p| p.x == size)
                .map(|p| p.summary.mbps)
        };
        put(
            &format!("{v}_peak_mbps"),
            r.transfer_sweep().map_or(0.0, |a| a.peak_mbps),
        );
        put(&format!("{v}_4k_mbps"), at(4096.0).unwrap_or(0.0));
        let small: Vec<f64> = r
            .points
            .iter()
            .filter(|p| p.x <= 8192.0)
            .map(|p| p.summary.mbps)
            .collect();
        put(
            &format!("{v}_small_mbps"),
            small.iter().sum::<f64>() / small.len().max(1) as f64,
        );
    }
}

/// TRIM's speeds clean, dirty and after TRIM, and whether it works.
fn trim_figures(results: &Results, put: &mut impl FnMut(&str, f64)) -> Result<(), MeasureError> {
    let r = results.find(TestId::Trim, None)?;
    let a = r
        .trim()
        .ok_or_else(|| no_figures("trim", "no TRIM figures"))?;
    put("clean_60s_mbps", a.clean.first_60s_mbps);
    put("dirty_60s_mbps", a.dirty.first_60s_mbps);
    put("after_60s_mbps", a.after_trim.first_60s_mbps);
    put("functional", if a.functional { 1.0 } else { 0.0 });
    let first10: Vec<f64> = a
        .after_trim
        .curve
        .iter()
        .filter(|p| p.0 <= 10.0)
        .map(|p| p.1)
        .collect();
    put(
        "after_first_10pct_mbps",
        first10.iter().sum::<f64>() / first10.len().max(1) as f64,
    );
    Ok(())
}

/// The whole-drive fill's speeds, and its cache where the speed drops.
fn fill_figures(results: &Results, put: &mut impl FnMut(&str, f64)) -> Result<(), MeasureError> {
    let a = results
        .find(TestId::WholeDriveFill, None)?
        .fill()
        .ok_or_else(|| no_figures("fill", "no fill figures"))?;
    put("first_gb_mbps", a.per_gb.first().map_or(0.0, |p| p.mbps));
    put("after_mbps", a.after_cache_mbps);
    // Only a drive whose speed drops has a cache to size: a twin without one
    // then misses the figure (the largest error), one with a cache the target
    // lacks shows in the first gigabyte's speed.
    if let Some(cache) = a.cache {
        put("cache_gb", cache.bytes as f64 / 1e9);
        put("cache_mbps", cache.mbps);
    }
    Ok(())
}

/// The power tests' watts in each state, with the sequential write's phases.
fn power_figures(results: &Results, put: &mut impl FnMut(&str, f64)) -> Result<(), MeasureError> {
    for name in methodology::power::TESTS {
        let r = results.find(name, None)?;
        let a = r
            .power_analysis()
            .ok_or_else(|| no_figures(&name.to_string(), "no power figures"))?;
        let w = a
            .mean_w
            .ok_or_else(|| no_figures(&name.to_string(), "power missing"))?;
        let state = a.state.replace('-', "_");
        put(&format!("{state}_w"), w);
        if name == TestId::PowerSeqWrite {
            put("seq_write_mbps", r.summary.mbps);
            put("seq_first_30s_w", a.first_30s_w.unwrap_or(0.0));
            put("seq_after_30s_w", a.after_30s_w.unwrap_or(0.0));
            put("seq_tail_w", a.tail_w.unwrap_or(0.0));
            // No burst: the whole write is the figure before and after.
            let whole = a.mean_w.unwrap_or(0.0);
            put("seq_burst_w", a.burst_w.unwrap_or(whole));
            put("seq_after_burst_w", a.after_burst_w.unwrap_or(whole));
        }
        if name == TestId::PowerRandomWrite {
            put("random_write_iops", r.summary.iops);
        }
    }
    Ok(())
}

/// The figures of every measurement a drive's stored results hold (a results directory of
/// `ssdlab suite`, real or simulated), by `measure.figure` name as the claims name them.
pub fn figures_of_results(rs: &[TestResult]) -> Result<Figures, MeasureError> {
    let mut by_measure: BTreeMap<Measure, Vec<TestResult>> = BTreeMap::new();
    for r in rs {
        if let Some(m) = Measure::of_result(r) {
            by_measure.entry(m).or_default().push(r.clone());
        }
    }
    let mut f = Figures::new();
    for (m, results) in by_measure {
        let p = m.prefix();
        m.figures(&results, &mut |name, v| {
            f.insert(format!("{p}.{name}"), v);
        })?;
    }
    Ok(f)
}

/// Figures of one consistency run from its per-second IOPS.
fn consistency_figures(r: &TestResult, put: &mut impl FnMut(&str, f64)) {
    let iops: Vec<f64> = r.per_second.iter().map(|p| p.iops).collect();
    let mean = |w: &[f64]| w.iter().sum::<f64>() / w.len().max(1) as f64;
    let steady_from =
        (r.consistency().map_or(1400.0, |a| a.steady_from_s) as usize).min(iops.len());
    if let Some(s) = series_stats(&iops[steady_from..]) {
        put("steady_mean", s.mean);
        put("steady_median", s.median);
        put("steady_p1", s.p1);
        put("steady_p99", s.p99);
        put("steady_cv", s.stddev / s.mean.max(1e-9));
    }
    if let Some(q) = deciles(&iops[steady_from..]) {
        for (name, v) in crate::fit::DECILES.iter().zip(q) {
            put(name, v);
        }
    }
    let opening = mean(&iops[..iops.len().min(10)]);
    put("burst_mean", opening);
    let drop = drop_time(&iops);
    put("drop_s", drop.map_or(f64::NAN, |d| d as f64));
    if let Some(d) = drop {
        let after = &iops[d..(d + 60).min(iops.len())];
        if let Some(s) = series_stats(after) {
            put("plateau", s.median);
        }
        // The strongest 20-second stretch between the plateau and the steady state.
        let from = (d + 60).min(steady_from);
        let best = iops[from..steady_from]
            .windows(20)
            .map(mean)
            .fold(0.0, f64::max);
        let steady = mean(&iops[steady_from..]);
        put("burst_ratio", best / steady.max(1e-9));
    }
    put(
        "cliff_ratio",
        opening / mean(&iops[steady_from..]).max(1e-9),
    );
    let dips = |from: usize, to: usize| {
        iops[from.min(iops.len())..to.min(iops.len())]
            .iter()
            .filter(|&&v| v <= 1500.0)
            .count() as f64
    };
    put("dips_300_800", dips(300, 800));
    put("dips_800_2000", dips(800, 2000));
}

/// Spec-sheet figures as vendors measure them: short bursts (3 s) at QD32 on a clean drive.
fn spec_bursts(
    dev: &mut sim::SimSsd,
    ctx: &mut Context,
    put: &mut impl FnMut(&str, f64),
) -> Result<(), MeasureError> {
    let cap = dev.geometry().capacity_bytes;
    let span = (8u64 << 30).min(cap);
    let burst = |access, block: u32, read_pct, span| Workload {
        access,
        block_bytes: block,
        offset_bytes: 0,
        span_bytes: span / block as u64 * block as u64,
        read_pct,
        op: None,
        data: DataKind::Incompressible,
        qd: 32,
        limit: Limit {
            duration_ns: Some(ns(3.0)),
            ..Limit::default()
        },
        seed: 1,
        shape: Shape::default(),
        threads: 1,
    };
    let mut run = |dev: &mut sim::SimSsd, w: &Workload, erase: bool| -> Result<_, MeasureError> {
        if erase {
            dev.erase(engine::drive::PurgeMethod::Auto, &mut |_| {})?;
        }
        Ok(ctx.drive(dev, w, "spec burst", false)?.measurements.summary)
    };
    let sw = run(dev, &burst(Access::Sequential, 128 << 10, 0, cap), true)?;
    put("seq_write_mbps", sw.mbps);
    let rw = run(dev, &burst(Access::Random, 4096, 0, span), true)?;
    put("random_write_iops", rw.iops);
    // Reads over written data: fill the span first.
    let fill = suite::fill_workload(0, span, DataKind::Incompressible, 1);
    run(dev, &fill, true)?;
    let sr = run(dev, &burst(Access::Sequential, 128 << 10, 100, span), false)?;
    put("seq_read_mbps", sr.mbps);
    let rr = run(dev, &burst(Access::Random, 4096, 100, span), false)?;
    put("random_read_iops", rr.iops);
    Ok(())
}

/// A 128 KiB sequential write at QD1 over the whole drive: the pseudo-SLC cache's speed, when
/// it runs out and the speed after; then idle until the cache has folded, and the speed of a
/// new write after ten minutes' idle.
fn turbo_write(
    dev: &mut sim::SimSsd,
    ctx: &mut Context,
    put: &mut impl FnMut(&str, f64),
) -> Result<(), MeasureError> {
    let cap = dev.geometry().capacity_bytes;
    let block = 128u32 << 10;
    let w = |bytes: u64| Workload {
        access: Access::Sequential,
        block_bytes: block,
        offset_bytes: 0,
        span_bytes: cap / block as u64 * block as u64,
        read_pct: 0,
        op: None,
        data: DataKind::Incompressible,
        qd: 1,
        limit: Limit {
            bytes: Some(bytes),
            ..Limit::default()
        },
        seed: 1,
        shape: Shape::default(),
        threads: 1,
    };
    let out = ctx.drive(
        dev,
        &w(cap / block as u64 * block as u64),
        "TurboWrite",
        false,
    )?;
    let mbps: Vec<f64> = out.measurements.per_second.iter().map(|p| p.mbps).collect();
    let first = mbps.iter().skip(1).take(5).sum::<f64>() / mbps.len().clamp(1, 5) as f64;
    put("first_mbps", first);
    let drop = mbps.iter().position(|&m| m < 0.7 * first);
    put("drop_s", drop.map_or(f64::NAN, |d| d as f64));
    // After the buffer: the median of the rest (the speed may not drop where TLC alone
    // reaches the link).
    let from = drop.unwrap_or(0) + 5;
    let rest = &mbps[from.min(mbps.len() - 1)..mbps.len() - 1];
    put(
        "after_mbps",
        series_stats(rest).map_or(f64::NAN, |s| s.median),
    );
    // When the buffer ran out: the data it took at the speed it took it.
    let sim_counters = |dev: &sim::SimSsd| dev.counters().and_then(|c| c.sim().cloned());
    let cached_bytes = sim_counters(dev).map_or(0.0, |c| c.slc_cache_hits as f64) * 4096.0;
    put("buffer_s", cached_bytes / (first * 1e6).max(1.0));
    // Idle a second at a time until the cache is empty (at most ten minutes).
    let cached = |dev: &sim::SimSsd| sim_counters(dev).map_or(0, |c| c.slc_cached_blocks);
    let mut waited = 0u32;
    while cached(dev) > 0 && waited < 600 {
        engine::driver::idle(dev, ns(1.0))?;
        waited += 1;
    }
    put("fold_s", waited as f64);
    engine::driver::idle(dev, ns(600.0 - waited as f64))?;
    let again = ctx.drive(dev, &w(5 * 520_000_000), "TurboWrite after idle", false)?;
    put("recovered_mbps", again.measurements.summary.mbps);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A screened power measurement writes and idles for its share of each minute, as the
    /// other timed tests do: a minute's writes would fill a screened drive many times over.
    #[test]
    fn a_shortened_power_measurement_lasts_its_share_of_each_phase() {
        let mut dev = sim::open("default").unwrap();
        let stop = AtomicBool::new(false);
        let mut silent = Silent;
        let mut ctx = Context::new(&stop, &mut silent);
        let results = Measure::Power.run_tests(&mut dev, &mut ctx, 0.125).unwrap();
        assert_eq!(results.len(), methodology::power::TESTS.len());
        let share = methodology::power::MEASURE_S * 0.125;
        for r in &results {
            // Writes in flight at the limit complete after it.
            let lasted = r.summary.duration_s;
            assert!(
                lasted > 0.5 * share && lasted < share + 1.0,
                "{}: {lasted} s",
                r.test
            );
        }
    }

    /// A drive's own whole-drive fill gives a fit the figures a simulated one gives: its
    /// cache's size and speed, and the speed after it.
    #[test]
    fn a_whole_drive_fill_gives_the_cache_and_the_speed_after_it() {
        // 1 GiB of cache is some seconds of writes: a cache is found to a second's share.
        let cached = "default,slc_cache=1GiB";
        let f = Measure::Fill.run(cached).unwrap();
        let cache_gb = f["fill.cache_gb"];
        assert!((1.0..1.2).contains(&cache_gb), "{f:?}");
        assert!(f["fill.cache_mbps"] > 1.5 * f["fill.after_mbps"], "{f:?}");
        assert!(f["fill.first_gb_mbps"] > f["fill.after_mbps"], "{f:?}");

        // The same figures from the test's stored result, as a results directory holds it.
        let mut dev = sim::open(cached).unwrap();
        let stop = AtomicBool::new(false);
        let mut silent = Silent;
        let mut ctx = Context::new(&stop, &mut silent);
        let results = methodology::run(
            TestId::WholeDriveFill,
            &mut dev,
            &mut ctx,
            &Overrides::default(),
        )
        .unwrap();
        assert_eq!(figures_of_results(&results).unwrap(), f);

        // Without a cache, no size to fit: the speeds only.
        let plain = Measure::Fill.run("default").unwrap();
        assert!(!plain.contains_key("fill.cache_gb"), "{plain:?}");
        let ratio = plain["fill.first_gb_mbps"] / plain["fill.after_mbps"];
        assert!((0.8..1.25).contains(&ratio), "{plain:?}");
    }
}
