//! What a user may change about a test. Every test starts from the methodology's parameters
//! and applies these; anything changed is recorded as a deviation in the result.

use engine::pattern::DataKind;
use engine::shape::Shape;
use engine::size::{Span, MAX_DURATION_S};
use engine::units::format_size;
use engine::workload::{Access, Limit, Workload, MAX_QD, MAX_THREADS};

use crate::drive_state::DriveState;
use crate::latency_target::LatencyTarget;
use crate::methodology::{Options, Test, TESTS};
use crate::pts::PtsVariant;
use crate::SuiteError;

/// The shortest `--pts-scale`: rounds of 60 ms instead of the spec's minute (the emulated
/// drives' tests run at 0.002; 1e-9 gave rounds of 60 ns, which measure nothing).
pub const MIN_PTS_SCALE: f64 = 0.001;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overrides {
    pub qd: Option<u32>,
    /// Submitting threads, each with `qd` in flight (the tests that take them).
    pub threads: Option<u32>,
    pub block_bytes: Option<u32>,
    pub span: Option<Span>,
    pub offset_bytes: Option<u64>,
    pub duration_s: Option<f64>,
    pub ios: Option<u64>,
    pub bytes: Option<u64>,
    pub read_pct: Option<u8>,
    pub access: Option<Access>,
    pub data: Option<DataKind>,
    pub seed: Option<u64>,
    /// Spare area to leave untouched (consistency): test only the first (100 - pct)% of LBAs.
    pub spare_pct: Option<f64>,
    /// Fill the span before a read test (default on).
    pub prefill: Option<bool>,
    /// Storage Bench: a synthetic profile name or a trace file.
    pub trace: Option<String>,
    /// Storage Bench: scale of a synthetic trace (1 = its published size).
    pub trace_scale: Option<f64>,
    /// Power idle and slumber: seconds of rest before measuring.
    pub rest_s: Option<f64>,
    /// Custom: the access distribution, block-size mix, rate and duty cycle (plain unless
    /// given).
    pub shape: Shape,
    /// Custom: find the highest queue depth up to `qd` that meets this latency target.
    pub latency_target: Option<LatencyTarget>,
    /// The PTS tests: client or enterprise (enterprise unless given).
    pub pts_variant: Option<PtsVariant>,
    /// The PTS tests: shorten rounds and preconditioning by this factor (0 < f <= 1), a
    /// deviation from the spec for a quick look.
    pub pts_scale: Option<f64>,
    /// The 2018-2021 review tests: how full the drive is (empty unless given).
    pub state: Option<DriveState>,
}

pub const DEFAULT_SEED: u64 = 0x55D1AB;

/// Seconds to nanoseconds, for limits.
pub fn ns(seconds: f64) -> u64 {
    (seconds * 1e9).round() as u64
}

impl Overrides {
    /// The unit random offsets align to: the smallest size of `--bs`'s mix, else `--bs`, else
    /// the test's `default`.
    pub fn block_unit(&self, default: u32) -> u32 {
        match &self.shape.block_mix {
            Some(mix) => mix.smallest(),
            None => self.block_bytes.unwrap_or(default),
        }
    }

    /// Writes over `span_bytes` from LBA 0 as the tests that write at random shape them:
    /// random, 0/100 and incompressible unless `--access`, `--read-pct` or `--data` say
    /// otherwise, seeded by `--seed`.
    pub fn random_writes(
        &self,
        block_bytes: u32,
        span_bytes: u64,
        qd: u32,
        threads: u32,
        limit: Limit,
    ) -> Workload {
        Workload {
            access: self.access.unwrap_or(Access::Random),
            block_bytes,
            offset_bytes: 0,
            span_bytes,
            read_pct: self.read_pct.unwrap_or(0),
            op: None,
            data: self.data.unwrap_or(DataKind::Incompressible),
            qd,
            threads,
            limit,
            seed: self.seed.unwrap_or(DEFAULT_SEED),
            shape: Shape::default(),
        }
    }

    /// `--span` resolved against `room` in whole blocks of `block` bytes; `None` when not given.
    pub fn span_within(&self, room: u64, block: u64) -> Option<u64> {
        self.span.map(|s| s.resolve(room, block))
    }

    /// Check what no target is needed to judge, naming the flag and the fix.
    pub fn validate(&self, test: &Test) -> Result<(), SuiteError> {
        let bad = |m: String| Err(SuiteError::Parameter(m));
        if let Some(b) = self.block_bytes.filter(|&b| b < 512) {
            return bad(format!(
                "--bs {b}: a block size must be at least 512 bytes (one sector), e.g. 4K"
            ));
        }
        if let Some(qd) = self.qd.filter(|qd| !(1..=MAX_QD).contains(qd)) {
            return bad(format!("--qd {qd}: give a queue depth from 1 to {MAX_QD}"));
        }
        if let Some(t) = self.threads.filter(|t| !(1..=MAX_THREADS).contains(t)) {
            return bad(format!("--threads {t}: give 1 to {MAX_THREADS} threads"));
        }
        if let Some(Span::Bytes(b)) = self.span {
            let block = self.block_bytes.unwrap_or(512);
            if b < u64::from(block) {
                return bad(format!(
                    "--span {b} is smaller than one block ({block} bytes): give a larger \
                     --span, e.g. 1G, a share of the target, e.g. 75%, or a smaller --bs"
                ));
            }
            // A span in bytes is taken as given or refused; a share (75%) rounds down to
            // whole blocks, as --help says.
            let test_block = test.defaults.map(|d| d.block_bytes).filter(|&b| b > 0);
            let align = u64::from(self.block_bytes.or(test_block).unwrap_or(4096));
            if b % align != 0 {
                let below = b / align * align;
                return bad(format!(
                    "--span {b} is not a multiple of {align}-byte blocks: use {below} or {}",
                    below + align
                ));
            }
        }
        if let Some(p) = self.spare_pct.filter(|p| !(0.0..100.0).contains(p)) {
            return bad(format!(
                "--spare {p}: give the spare area in percent from 0 to below 100, e.g. 25"
            ));
        }
        if let Some(d) = self.duration_s {
            if !(d > 0.0 && d <= MAX_DURATION_S) {
                return bad(format!(
                    "--duration {d}: give a positive number of seconds, at most {MAX_DURATION_S} (a week)"
                ));
            }
        }
        if self.ios == Some(0) || self.bytes == Some(0) {
            return bad(
                "--ios and --bytes must be at least 1: a limit of 0 ends the run before it starts"
                    .into(),
            );
        }
        self.refuse_untaken(test)?;
        if let Some(s) = self
            .pts_scale
            .filter(|s| !(*s >= MIN_PTS_SCALE && *s <= 1.0))
        {
            return bad(format!(
                "--pts-scale {s}: give a factor from {MIN_PTS_SCALE} (rounds of {} s; a \
                 shorter one measures too few IOs to mean anything) and at most 1 (the \
                 spec's durations), e.g. 0.1",
                crate::pts::ROUND_S * MIN_PTS_SCALE
            ));
        }
        if let Some(r) = self.rest_s.filter(|r| !(*r >= 0.0 && *r <= MAX_DURATION_S)) {
            return bad(format!(
                "--rest {r}: give the seconds of rest before an idle measurement, 0 or more"
            ));
        }
        if let Some(s) = self.trace_scale.filter(|s| !(*s > 0.0 && s.is_finite())) {
            return bad(format!(
                "--trace-scale {s}: give a positive factor, e.g. 0.1"
            ));
        }
        Ok(())
    }

    /// The options of those only some tests take that these give.
    pub fn given(&self) -> Options {
        [
            (Options::QD, self.qd.is_some()),
            (Options::BS, self.block_bytes.is_some()),
            (Options::ACCESS, self.access.is_some()),
            (Options::READ_PCT, self.read_pct.is_some()),
            (Options::SPAN, self.span.is_some()),
            (Options::IOS, self.ios.is_some()),
            (Options::BYTES, self.bytes.is_some()),
            (Options::OFFSET, self.offset_bytes.is_some()),
            (Options::THREADS, self.threads.is_some()),
            (
                Options::PTS,
                self.pts_variant.is_some() || self.pts_scale.is_some(),
            ),
            (Options::STATE, self.state.is_some()),
            (
                Options::SHAPE,
                !self.shape.is_plain() || self.latency_target.is_some(),
            ),
        ]
        .into_iter()
        .filter(|&(_, given)| given)
        .fold(Options::NONE, |all, (o, _)| all.with(o))
    }

    /// Refuse every option given that `test`'s record does not take, naming the tests that
    /// do take it. (`--precondition` is the CLI's to refuse: it is not an override.)
    fn refuse_untaken(&self, test: &Test) -> Result<(), SuiteError> {
        let untaken = self.given().without(test.takes);
        let bad = |m: String| Err(SuiteError::Parameter(m));
        // The tests that take an option, for the message when this one does not.
        let takers = |option: Options| {
            let names: Vec<&str> = TESTS
                .iter()
                .filter(|t| t.takes(option))
                .map(Test::name)
                .collect();
            names.join(", ")
        };
        if untaken.contains(Options::OFFSET) {
            return bad(format!(
                "--offset: {} tests from LBA 0 as the methodology says; drop --offset, or use \
                 a test that takes one ({})",
                test.name(),
                takers(Options::OFFSET)
            ));
        }
        if untaken.contains(Options::SHAPE) {
            return bad(format!(
                "--distribution, block-size mixes, --rate-iops, --burst and --latency-target \
                 shape custom workloads: {} runs the methodology's workload; use `ssdlab run custom` for a \
                 shaped one",
                test.name()
            ));
        }
        if untaken.contains(Options::THREADS) {
            return bad(format!(
                "--threads: {} drives one thread as the methodology says; drop --threads, or \
                 use a test that takes them ({})",
                test.name(),
                takers(Options::THREADS)
            ));
        }
        if untaken.contains(Options::PTS) {
            return bad(format!(
                "--pts and --pts-scale choose how a SNIA PTS test runs: {} is not one; drop \
                 them, or use a PTS test ({})",
                test.name(),
                takers(Options::PTS)
            ));
        }
        if untaken.contains(Options::STATE) {
            return bad(format!(
                "--state sets how full the drive is for the 2018-2021 review tests: {} \
                 prepares the drive as its own methodology says; drop --state, or use a test \
                 that takes it ({})",
                test.name(),
                takers(Options::STATE)
            ));
        }
        if untaken.intersects(Options::WORKLOAD) {
            return bad(test.fixes.refusal(test, untaken));
        }
        Ok(())
    }
}

/// The tested region `(offset, span)` in bytes, the span a multiple of `block`. A `--span`
/// the user gave must fit after `--offset` as given; the methodology's `default` span is cut
/// to what fits (the caller notes that as a deviation).
pub fn region(
    o: &Overrides,
    default: Span,
    capacity: u64,
    block: u32,
) -> Result<(u64, u64), SuiteError> {
    let offset = o.offset_bytes.unwrap_or(0);
    let size = format_size;
    if offset >= capacity {
        return Err(SuiteError::Parameter(format!(
            "--offset {} is beyond the end of the {} target: give an offset below {}",
            size(offset),
            size(capacity),
            size(capacity)
        )));
    }
    let room = capacity - offset;
    let block = u64::from(block.max(1));
    let span = match o.span {
        None => default.resolve(room, block),
        Some(span) => {
            let want = match span {
                Span::Bytes(b) => b,
                Span::Percent(p) => ((capacity as f64 * p / 100.0) as u64).min(capacity),
            };
            if want > room {
                let mut fix = format!("give --span at most {}", size(room));
                if want <= capacity {
                    fix += &format!(" or --offset at most {}", size(capacity - want));
                }
                return Err(SuiteError::Parameter(format!(
                    "--span {} from --offset {} would end at {}, beyond the end of the {} \
                     target: {fix}",
                    size(want),
                    size(offset),
                    size(offset.saturating_add(want)),
                    size(capacity)
                )));
            }
            want / block * block
        }
    };
    Ok((offset, span))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::methodology::{Fixes, TestId};

    fn test(id: TestId) -> &'static Test {
        crate::methodology::get(id).unwrap()
    }

    #[test]
    fn a_span_that_does_not_fit_after_the_offset_is_refused_not_cut() {
        let o = Overrides {
            offset_bytes: Some(15 << 20),
            span: Some(Span::Bytes(8 << 20)),
            ..Overrides::default()
        };
        let e = region(&o, Span::Percent(100.0), 16 << 20, 4096)
            .unwrap_err()
            .to_string();
        assert!(e.contains("--span 8 MiB from --offset 15 MiB"), "{e}");
        assert!(e.contains("at most 1 MiB or --offset at most 8 MiB"), "{e}");
        // The default span is cut to what fits after the offset.
        let o = Overrides {
            offset_bytes: Some(15 << 20),
            ..Overrides::default()
        };
        assert_eq!(
            region(&o, Span::Bytes(8 << 30), 16 << 20, 4096).unwrap(),
            (15 << 20, 1 << 20)
        );
        let o = Overrides {
            offset_bytes: Some(16 << 20),
            ..Overrides::default()
        };
        let e = region(&o, Span::Percent(100.0), 16 << 20, 4096)
            .unwrap_err()
            .to_string();
        assert!(e.contains("beyond the end of the 16 MiB target"), "{e}");
    }

    /// A span in bytes that is not whole blocks is refused with the two nearest that are;
    /// a share rounds down (sp9).
    #[test]
    fn a_span_in_bytes_is_whole_blocks() {
        let span = |text: &str, block_bytes: Option<u32>| Overrides {
            span: Some(Span::parse(text).unwrap()),
            block_bytes,
            ..Overrides::default()
        };
        let e = span("4097", None)
            .validate(test(TestId::RandomWrite))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--span 4097 is not a multiple of 4096-byte blocks: use 4096 or 8192"),
            "{e}"
        );
        let e = span("20K", Some(16 << 10))
            .validate(test(TestId::Custom))
            .unwrap_err()
            .to_string();
        assert!(e.contains("use 16384 or 32768"), "{e}");
        assert!(span("8192", None)
            .validate(test(TestId::RandomWrite))
            .is_ok());
        assert!(span("75%", None)
            .validate(test(TestId::RandomWrite))
            .is_ok());
    }

    #[test]
    fn overrides_no_target_can_take() {
        for (o, says) in [
            (
                Overrides {
                    block_bytes: Some(0),
                    ..Overrides::default()
                },
                "--bs 0",
            ),
            (
                Overrides {
                    qd: Some(0),
                    ..Overrides::default()
                },
                "--qd 0",
            ),
            (
                Overrides {
                    qd: Some(5000),
                    ..Overrides::default()
                },
                "--qd 5000",
            ),
            (
                Overrides {
                    threads: Some(0),
                    ..Overrides::default()
                },
                "--threads 0",
            ),
            (
                Overrides {
                    span: Some(Span::Bytes(0)),
                    ..Overrides::default()
                },
                "--span 0",
            ),
            (
                Overrides {
                    span: Some(Span::Bytes(1 << 20)),
                    block_bytes: Some(2 << 20),
                    ..Overrides::default()
                },
                "one block (2097152 bytes)",
            ),
            (
                Overrides {
                    spare_pct: Some(100.0),
                    ..Overrides::default()
                },
                "--spare 100",
            ),
            (
                Overrides {
                    duration_s: Some(2e10),
                    ..Overrides::default()
                },
                "--duration 20000000000: give a positive number of seconds, at most",
            ),
        ] {
            let e = o.validate(test(TestId::Custom)).unwrap_err().to_string();
            assert!(e.contains(says), "{e}");
        }
        let offset = Overrides {
            offset_bytes: Some(1 << 20),
            ..Overrides::default()
        };
        assert!(offset.validate(test(TestId::Custom)).is_ok());
        let e = offset
            .validate(test(TestId::Consistency))
            .unwrap_err()
            .to_string();
        assert!(e.contains("consistency tests from LBA 0"), "{e}");
    }

    /// Each option only some tests take, given alone, is refused by exactly the tests whose
    /// record leaves it out.
    #[test]
    fn a_test_refuses_exactly_the_options_its_record_leaves_out() {
        let d = Overrides::default;
        let one = [
            (Options::QD, Overrides { qd: Some(4), ..d() }),
            (
                Options::BS,
                Overrides {
                    block_bytes: Some(4096),
                    ..d()
                },
            ),
            (
                Options::ACCESS,
                Overrides {
                    access: Some(Access::Random),
                    ..d()
                },
            ),
            (
                Options::READ_PCT,
                Overrides {
                    read_pct: Some(50),
                    ..d()
                },
            ),
            (
                Options::SPAN,
                Overrides {
                    span: Some(Span::Bytes(64 << 20)),
                    ..d()
                },
            ),
            (
                Options::IOS,
                Overrides {
                    ios: Some(10),
                    ..d()
                },
            ),
            (
                Options::BYTES,
                Overrides {
                    bytes: Some(1 << 20),
                    ..d()
                },
            ),
            (
                Options::OFFSET,
                Overrides {
                    offset_bytes: Some(1 << 20),
                    ..d()
                },
            ),
            (
                Options::THREADS,
                Overrides {
                    threads: Some(2),
                    ..d()
                },
            ),
            (
                Options::PTS,
                Overrides {
                    pts_variant: Some(PtsVariant::Client),
                    ..d()
                },
            ),
            (
                Options::PTS,
                Overrides {
                    pts_scale: Some(0.5),
                    ..d()
                },
            ),
            (
                Options::STATE,
                Overrides {
                    state: Some(DriveState::Full),
                    ..d()
                },
            ),
            (
                Options::SHAPE,
                Overrides {
                    latency_target: Some("p99<1ms".parse().unwrap()),
                    ..d()
                },
            ),
        ];
        for t in TESTS {
            for (option, o) in &one {
                assert_eq!(o.given(), *option);
                let verdict = o.validate(t);
                assert_eq!(
                    verdict.is_ok(),
                    t.takes(*option),
                    "{} {option:?}: {verdict:?}",
                    t.id
                );
            }
        }
    }

    /// The refusals of the options a test fixes itself, word for word: what the tests and
    /// users match on.
    #[test]
    fn a_test_that_fixes_its_workload_says_what_to_drop() {
        let e = |id: TestId, o: Overrides| o.validate(test(id)).unwrap_err().to_string();
        let qd = || Overrides {
            qd: Some(4),
            ..Overrides::default()
        };
        assert_eq!(
            e(TestId::IdleWake, qd()),
            "idle-wake times single reads at QD1: drop --qd, --access and --read-pct"
        );
        assert_eq!(
            e(TestId::QuickPeak, qd()),
            "a quick profile runs its own cells (their block sizes, depths and threads): drop \
             --qd, --bs and --access, or use `ssdlab run custom`"
        );
        assert_eq!(
            e(TestId::MixedSeq, qd()),
            "mixed-seq runs its own steps (queue depths or read shares) over the region its \
             drive state sets: drop --qd, --access, --read-pct and --span (choose the state \
             with --state empty|full), or use `ssdlab run custom`"
        );
        let stimuli = Overrides {
            block_bytes: Some(8192),
            access: Some(Access::Sequential),
            bytes: Some(1 << 20),
            ..Overrides::default()
        };
        assert_eq!(
            e(TestId::PtsIops, stimuli.clone()),
            "--bs, --access, --bytes: pts-iops runs the stimuli the SNIA PTS lists, for a \
             round's time each; drop them (--pts-scale shortens the test, `ssdlab run custom` \
             runs one workload)"
        );
        // DIRTH's block size is the operator's.
        assert!(e(TestId::PtsDirth, stimuli).starts_with("--access, --bytes: pts-dirth runs"));
    }

    #[test]
    fn every_test_that_leaves_a_workload_option_out_says_why() {
        for t in TESTS {
            let fixes_some = !t.takes(Options::WORKLOAD);
            assert_eq!(fixes_some, t.fixes != Fixes::Nothing, "{}", t.id);
        }
    }

    fn span_strategy() -> impl proptest::strategy::Strategy<Value = Span> {
        use proptest::prelude::*;
        prop_oneof![
            any::<u64>().prop_map(Span::Bytes),
            (0u64..1 << 36).prop_map(Span::Bytes),
            (0.0001f64..=100.0).prop_map(Span::Percent),
            Just(Span::Percent(100.0)),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 256,
            failure_persistence: None,
            ..Default::default()
        })]

        /// Whatever --offset and --span say, a region is inside the target on the block grid,
        /// keeps the offset and a given span exactly (to the block), or is refused by name.
        #[test]
        fn a_region_is_inside_the_target_or_refused(
            offset in proptest::prop_oneof![
                proptest::prelude::any::<u64>(),
                0u64..1 << 36,
                proptest::prelude::Just(0u64)
            ],
            span in proptest::option::of(span_strategy()),
            default in span_strategy(),
            capacity in proptest::prop_oneof![
                proptest::prelude::any::<u64>(),
                1u64..1 << 36,
                proptest::prelude::Just((1u64 << 54) + 3)
            ],
            block in proptest::prop_oneof![
                proptest::prelude::Just(512u32),
                proptest::prelude::Just(4096u32),
                1u32..1 << 26
            ],
        ) {
            let o = Overrides {
                offset_bytes: Some(offset),
                span,
                ..Overrides::default()
            };
            match region(&o, default, capacity, block) {
                Ok((off, bytes)) => {
                    proptest::prop_assert_eq!(off, offset);
                    proptest::prop_assert!(off.checked_add(bytes).is_some_and(|e| e <= capacity));
                    proptest::prop_assert_eq!(bytes % u64::from(block), 0);
                    if let Some(Span::Bytes(b)) = span {
                        proptest::prop_assert_eq!(bytes, b / u64::from(block) * u64::from(block));
                    }
                }
                Err(e) => {
                    let e = e.to_string();
                    proptest::prop_assert!(e.starts_with("--offset") || e.starts_with("--span"), "{}", e);
                }
            }
        }
    }
}
