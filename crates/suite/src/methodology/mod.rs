//! The tests of docs/methodology.md, one module each, and their registry: one [`Test`] record per
//! test, so adding a test is a module and one line of the `registry!` below (its module, its
//! [`TestId`], its stored name and its record). A test whose results are of a [`Kind`] that
//! exists needs nothing else: how its results load, compare and show follows from the kind,
//! what it takes of the options from its record's [`Options`], and where the page shows it
//! from its record's [`ReviewSection`] (none: a section of its own).

#[macro_use]
mod id;
mod kind;
mod options;
mod section;
pub mod trim_reads;

pub use kind::Kind;
pub use options::{Fixes, Options};
pub use section::ReviewSection;

use engine::size::Span;
use engine::units::format_size;
use engine::workload::Workload;
use engine::Device;

use crate::context::Context;
use crate::params::Overrides;
use crate::precondition::{self, BeforeReads};
use crate::pts::WriteCacheRecord;
use crate::result::{Report, TestResult};
use crate::Result;
use crate::SuiteError;

/// What the methodology fixes about a test's workload, written once: the test's code
/// starts from it and [`Defaults::note_overrides`] records what a user changed from it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Defaults {
    /// 0: the test has none, so any `--qd` is a deviation.
    pub qd: u32,
    /// 0: the test has none, so any `--bs` is a deviation.
    pub block_bytes: u32,
    pub span: Span,
    /// 0: the test is bounded by bytes, not time, so any `--duration` is a deviation.
    pub duration_s: f64,
}

impl Defaults {
    /// Record what a user changed from these.
    pub(crate) fn note_overrides(&self, out: &mut Vec<String>, o: &Overrides) {
        let Defaults {
            qd,
            block_bytes: block,
            duration_s,
            ..
        } = *self;
        if let Some(q) = o.qd.filter(|&q| q != qd) {
            out.push(format!("queue depth {q} instead of {qd}"));
        }
        if let Some(b) = o.block_bytes.filter(|&b| b != block) {
            out.push(format!("block size {b} bytes instead of {block}"));
        }
        match o.duration_s {
            // Bounded by bytes: a time limit may stop it short.
            Some(d) if duration_s == 0.0 => out.push(format!(
                "duration at most {d} s instead of until all of it is written"
            )),
            Some(d) if d != duration_s => {
                out.push(format!("duration {d} s instead of {duration_s} s"))
            }
            _ => {}
        }
        if o.ios.is_some() || o.bytes.is_some() {
            out.push("bounded by an IO or byte count as well as time".into());
        }
    }

    /// Record a `--span` that tested `tested` bytes of the `whole` the methodology tests.
    pub(crate) fn note_span(&self, out: &mut Vec<String>, o: &Overrides, tested: u64, whole: u64) {
        if o.span.is_some() {
            out.push(format!(
                "tested span {} instead of all {}",
                format_size(tested),
                format_size(whole)
            ));
        }
    }
}

/// How the deviations a user's options make begin ([`Defaults::note_overrides`]'s, and a
/// span given): the others come of the target (a drive smaller than a test's span), which a
/// simulated twin of the same capacity meets alike.
const OVERRIDE_NOTES: [&str; 5] = [
    "queue depth ",
    "block size ",
    "duration ",
    "bounded by an IO",
    "tested span ",
];

/// Whether a result's deviation is a user's option (`--quick`, `--duration`...), not the
/// target's size.
pub fn overridden(deviation: &str) -> bool {
    OVERRIDE_NOTES.iter().any(|p| deviation.starts_with(p))
}

/// Whether `--verify` applies to a test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verifies {
    /// Its measured phase is driven workloads: `--verify` checks them.
    OnRequest,
    /// It checks its data whatever the flags say (`verify`).
    Always,
    /// It has nothing `--verify` could check (TRIM checks what trimmed blocks read as on
    /// its own; the Storage Bench replays a trace; power tests measure watts).
    Never,
}

/// How a test runs: its results, several for a group (corners) or a test with variants.
pub type Run = fn(&mut dyn Device, &mut Context, &Overrides) -> Result<Vec<TestResult>>;

/// One test: everything the suite, the CLI and the Bench need to know about it.
pub struct Test {
    pub id: TestId,
    /// What its results are.
    pub kind: Kind,
    /// The reviews' section of the page its results are shown in; `None`: a section of its
    /// own, drawn by its kind.
    pub section: Option<ReviewSection>,
    /// What `ssdlab tests` prints.
    pub about: &'static str,
    /// `None` for a test that is not one workload (a group, a trace, a sequence of phases).
    pub defaults: Option<Defaults>,
    /// Whether running it with these overrides writes the target (and so needs the safety
    /// checks on a block device).
    pub writes: fn(&Overrides) -> bool,
    /// The options it takes of those only some tests take; `validate` refuses the others.
    pub takes: Options,
    /// Why it refuses the workload options `takes` leaves out, as the refusal says.
    pub fixes: Fixes,
    pub verifies: Verifies,
    pub run: Run,
}

impl Test {
    pub fn name(&self) -> &'static str {
        self.id.name()
    }

    /// Whether it takes every option of `options`.
    pub fn takes(&self, options: Options) -> bool {
        self.takes.contains(options)
    }

    /// The record of a test of one workload, starting from `defaults`, that always writes,
    /// fixes nothing beyond what it does not take and verifies on request.
    pub(crate) const fn writing(
        id: TestId,
        kind: Kind,
        section: Option<ReviewSection>,
        about: &'static str,
        defaults: Defaults,
        takes: Options,
        run: Run,
    ) -> Test {
        Test {
            id,
            kind,
            section,
            about,
            defaults: Some(defaults),
            writes: always,
            takes,
            fixes: Fixes::Nothing,
            verifies: Verifies::OnRequest,
            run,
        }
    }

    /// A SNIA PTS test's record: each writes, runs the stimuli the spec states (so refuses
    /// the workload options it does not take), verifies on request and has a section of its
    /// own.
    pub(crate) const fn pts(
        id: TestId,
        kind: Kind,
        about: &'static str,
        takes: Options,
        run: Run,
    ) -> Test {
        Test {
            id,
            kind,
            section: None,
            about,
            defaults: None,
            writes: always,
            takes,
            fixes: Fixes::PtsStimuli,
            verifies: Verifies::OnRequest,
            run,
        }
    }
}

/// For `writes` of the tests that always write.
pub(crate) fn always(_: &Overrides) -> bool {
    true
}

registry! {
    tests {
        consistency { Consistency = "consistency" => TEST }
        corners {
            /// The four corners as a group; its results are the rows' ids.
            Corners = "corners" => TEST,
            RandomRead = "random-read" => RANDOM_READ,
            RandomWrite = "random-write" => RANDOM_WRITE,
            RandomWriteQd32 = "random-write-qd32" => RANDOM_WRITE_QD32,
            SeqRead = "seq-read" => SEQ_READ,
            SeqWrite = "seq-write" => SEQ_WRITE,
        }
        steady_state { SteadyState = "steady-state" => TEST }
        seq_incompressible { SeqIncompressible = "seq-incompressible" => TEST }
        transfer_sweep { TransferSweep = "transfer-sweep" => TEST }
        trim { Trim = "trim" => TEST }
        storage_bench { StorageBench = "storage-bench" => TEST }
        verify { Verify = "verify" => TEST }
        power {
            PowerIdle = "power-idle" => IDLE,
            PowerSlumber = "power-slumber" => SLUMBER,
            PowerSeqWrite = "power-seq-write" => SEQ_WRITE,
            PowerRandomWrite = "power-random-write" => RANDOM_WRITE,
        }
        custom { Custom = "custom" => TEST }
        wsat { Wsat = "wsat" => TEST }
        whole_drive_fill { WholeDriveFill = "whole-drive-fill" => TEST }
        pts_iops { PtsIops = "pts-iops" => TEST }
        pts_throughput { PtsThroughput = "pts-throughput" => TEST }
        pts_latency { PtsLatency = "pts-latency" => TEST }
        pts_cbw { PtsCbw = "pts-cbw" => TEST }
        pts_dirth { PtsDirth = "pts-dirth" => TEST }
        pts_hir { PtsHir = "pts-hir" => TEST }
        pts_xsr { PtsXsr = "pts-xsr" => TEST }
        queue_sweep {
            SweepRandomRead = "sweep-random-read" => RANDOM_READ,
            SweepRandomWrite = "sweep-random-write" => RANDOM_WRITE,
            SweepSeqRead = "sweep-seq-read" => SEQ_READ,
            SweepSeqWrite = "sweep-seq-write" => SEQ_WRITE,
        }
        mixed_sweep {
            MixedRandom = "mixed-random" => RANDOM,
            MixedSeq = "mixed-seq" => SEQUENTIAL,
        }
        idle_wake { IdleWake = "idle-wake" => TEST }
        quick {
            Quick = "quick" => TEST,
            QuickNvme = "quick-nvme" => NVME_TEST,
            QuickPeak = "quick-peak" => PEAK_TEST,
            QuickRealWorld = "quick-real-world" => REAL_WORLD_TEST,
        }
    }
    results {
        /// `ssdlab trace replay`'s results: not a test `ssdlab run` takes.
        Replay = "replay" => (Kind::Replay, Some(ReviewSection::StorageBench)),
    }
}

/// The names of the tests `ssdlab run` takes.
pub fn names() -> Vec<&'static str> {
    TESTS.iter().map(Test::name).collect()
}

/// The test `id` names; `replay` (a result of `trace replay`) is not one `ssdlab run` takes.
pub fn get(id: TestId) -> Result<&'static Test> {
    TESTS
        .iter()
        .find(|t| t.id == id)
        .ok_or_else(|| SuiteError::UnknownTest(id.name().into(), names().join(", ")))
}

/// The test `ssdlab run NAME` runs.
pub fn find(name: &str) -> Result<&'static Test> {
    get(name.parse()?)
}

/// Run a test. Groups (corners) and tests with variants return several results.
pub fn run(
    id: TestId,
    dev: &mut dyn Device,
    ctx: &mut Context,
    o: &Overrides,
) -> Result<Vec<TestResult>> {
    let test = get(id)?;
    o.validate(test)?;
    if !test.takes(Options::PTS) {
        return (test.run)(dev, ctx, o);
    }
    // The write cache as the PTS variant asks, put back whatever the test's outcome.
    let variant = o.pts_variant.unwrap_or_default();
    let mut cache = WriteCacheRecord::set_for(dev, variant);
    if let Some(note) = &cache.note {
        ctx.observer.note(&format!("write cache: {note}"));
    }
    let results = (test.run)(dev, ctx, o);
    cache.restore(dev);
    if !cache.restored {
        ctx.observer.note(cache.note.as_deref().unwrap_or_default());
    }
    let mut results = results?;
    for r in &mut results {
        r.deviations.extend(cache.deviation(variant));
        r.write_cache = Some(cache.clone());
    }
    Ok(results)
}

/// The measured phase of a test that starts from a clean drive (write saturation, the
/// whole-drive fill): the whole drive purged, then `w`, stopping short of it when the purge
/// was interrupted.
pub(crate) fn from_clean(
    ctx: &mut Context,
    dev: &mut dyn Device,
    w: &Workload,
    report: &mut Report,
) -> Result<engine::driver::Outcome> {
    let capacity = dev.geometry().capacity_bytes;
    report
        .preconditioning
        .push(precondition::purge(ctx, dev, 0, capacity));
    if ctx.stopped() {
        return Err(SuiteError::Interrupted);
    }
    ctx.drive(dev, w, &report.label, true)
}

/// The measured phase of a test that is one workload: a span it reads is filled first (or,
/// with `--no-prefill`, the result says it was not), the workload runs, and with `--verify` on
/// reads only the fill's data is checked after the measured reads.
pub(crate) fn run_workload(
    ctx: &mut Context,
    dev: &mut dyn Device,
    w: &Workload,
    prefill: Option<bool>,
    mut report: Report,
) -> Result<TestResult> {
    let mut verification = match precondition::before_reads(ctx, dev, w, prefill, &mut report)? {
        BeforeReads::Ready(v) => v,
        BeforeReads::Stopped(outcome) => return Ok(report.finish(dev, w, outcome)),
    };
    let mut outcome = ctx.drive(dev, w, &report.label, true)?;
    if let Some(v) = verification.as_mut() {
        ctx.finish_verify(dev, v, w.qd, &mut outcome)?;
    }
    Ok(report.finish(dev, w, outcome))
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::units::format_size;

    #[test]
    fn every_option_a_user_gives_is_told_from_the_targets_size() {
        let o = Overrides {
            qd: Some(7),
            block_bytes: Some(8192),
            duration_s: Some(5.0),
            ios: Some(100),
            ..Overrides::default()
        };
        let mut notes = Vec::new();
        consistency::DEFAULTS.note_overrides(&mut notes, &o);
        assert_eq!(notes.len(), 4, "{notes:?}");
        assert!(notes.iter().all(|n| overridden(n)), "{notes:?}");
        assert!(!overridden(
            "span 8 GiB is larger than the target; used what fits (2 GiB)"
        ));
    }

    #[test]
    fn every_test_id_but_replay_has_one_record() {
        for &id in TestId::ALL {
            let records = TESTS.iter().filter(|t| t.id == id).count();
            assert_eq!(records, usize::from(id != TestId::Replay), "{id}");
        }
        assert!(find("replay").is_err());
    }

    /// `ssdlab tests` states defaults in words; they must be the ones the code runs with.
    #[test]
    fn what_a_test_says_of_its_defaults_is_what_it_uses() {
        // `what` in `about`, not followed by a digit (QD3 is not QD32).
        let states = |about: &str, what: &str| {
            about
                .match_indices(what)
                .any(|(i, _)| !about[i + what.len()..].starts_with(|c: char| c.is_ascii_digit()))
        };
        for t in TESTS {
            let (Some(d), about) = (t.defaults, t.about) else {
                continue;
            };
            if about.contains("QD") {
                assert!(states(about, &format!("QD{}", d.qd)), "{}: {about}", t.id);
            }
            if d.block_bytes > 0 && about.contains("iB ") {
                let size = format_size(d.block_bytes.into());
                assert!(about.contains(&size), "{}: {size}: {about}", t.id);
            }
            if about.contains(" span") {
                let span = match d.span {
                    Span::Bytes(b) => format!("{} span", format_size(b)),
                    Span::Percent(_) => "whole span".into(),
                };
                assert!(about.contains(&span), "{}: {span}: {about}", t.id);
            }
            if d.duration_s > 0.0 && (about.contains(" s") || about.contains(" min")) {
                let minutes = d.duration_s / 60.0;
                let said = [
                    format!("{} s", d.duration_s),
                    format!("{minutes} min"),
                    format!("{minutes} minute{}", if minutes == 1.0 { "" } else { "s" }),
                ];
                assert!(
                    said.iter().any(|s| states(about, s)),
                    "{}: {said:?}: {about}",
                    t.id
                );
            }
        }
    }
}
