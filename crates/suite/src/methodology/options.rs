//! What a test takes of the options only some tests take, declared once in its record:
//! [`Overrides::validate`](crate::params::Overrides::validate) refuses every other one from
//! it, and the messages naming the tests that do take one are made from it.

use super::Test;

/// A set of options a user may give that some tests refuse. A test's record declares the
/// ones it takes; an option not in the set is refused by name before the test runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options(u16);

impl Options {
    pub const NONE: Options = Options(0);
    /// `--qd`.
    pub const QD: Options = Options(1 << 0);
    /// `--bs`.
    pub const BS: Options = Options(1 << 1);
    /// `--access`.
    pub const ACCESS: Options = Options(1 << 2);
    /// `--read-pct`.
    pub const READ_PCT: Options = Options(1 << 3);
    /// `--span`.
    pub const SPAN: Options = Options(1 << 4);
    /// `--ios`.
    pub const IOS: Options = Options(1 << 5);
    /// `--bytes`.
    pub const BYTES: Options = Options(1 << 6);
    /// `--offset`: the others start at LBA 0 by the methodology.
    pub const OFFSET: Options = Options(1 << 7);
    /// `--threads`: the others drive one.
    pub const THREADS: Options = Options(1 << 8);
    /// `--precondition`: how it brings the drive to its steady state.
    pub const PRECONDITION: Options = Options(1 << 9);
    /// `--pts` and `--pts-scale`: its SNIA PTS variant and scale (the PTS tests).
    pub const PTS: Options = Options(1 << 10);
    /// `--state empty|full`: how full the drive is (the 2018-2021 review tests).
    pub const STATE: Options = Options(1 << 11);
    /// `--distribution`, block-size mixes, `--rate-iops`, `--burst` and `--latency-target`:
    /// a shaped workload (custom).
    pub const SHAPE: Options = Options(1 << 12);

    /// What a test of one workload takes: its depth, block size, direction, mix, span and
    /// bounds.
    pub const WORKLOAD: Options = Options::QD
        .with(Options::BS)
        .with(Options::ACCESS)
        .with(Options::READ_PCT)
        .with(Options::SPAN)
        .with(Options::IOS)
        .with(Options::BYTES);

    /// The workload's options with their flags, in the order a refusal lists them.
    pub(crate) const WORKLOAD_FLAGS: [(Options, &'static str); 7] = [
        (Options::QD, "--qd"),
        (Options::BS, "--bs"),
        (Options::ACCESS, "--access"),
        (Options::READ_PCT, "--read-pct"),
        (Options::SPAN, "--span"),
        (Options::IOS, "--ios"),
        (Options::BYTES, "--bytes"),
    ];

    /// These and `other`.
    pub const fn with(self, other: Options) -> Options {
        Options(self.0 | other.0)
    }

    /// These but not `other`.
    pub const fn without(self, other: Options) -> Options {
        Options(self.0 & !other.0)
    }

    /// Whether any option of `other` is in these.
    pub const fn intersects(self, other: Options) -> bool {
        self.0 & other.0 != 0
    }

    /// Whether every option of `other` is in these.
    pub const fn contains(self, other: Options) -> bool {
        self.0 & other.0 == other.0
    }
}

/// Why a test refuses the workload options ([`Options::WORKLOAD`]) its record does not take:
/// the words of the refusal, which name the options to drop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fixes {
    /// Nothing: it takes every workload option.
    Nothing,
    /// It runs a workload of its own: "`why`: drop" every workload option it refuses, then
    /// `then`. `{test}` in `why` is the test's name.
    Own {
        why: &'static str,
        then: &'static str,
    },
    /// It runs the stimuli the SNIA PTS lists: the refusal names the options given.
    PtsStimuli,
}

impl Fixes {
    /// The refusal of the workload options in `untaken`, which `test` does not take.
    pub(crate) fn refusal(self, test: &Test, untaken: Options) -> String {
        let flags = |of: Options, order: &[(Options, &'static str)]| -> Vec<&'static str> {
            let listed = order.iter().filter(|(o, _)| of.contains(*o));
            listed.map(|&(_, flag)| flag).collect()
        };
        match self {
            // Every workload option the test refuses, whichever of them were given.
            Fixes::Own { why, then } => {
                let refused = Options::WORKLOAD.without(test.takes);
                format!(
                    "{}: drop {}{then}",
                    why.replace("{test}", test.name()),
                    and_list(&flags(refused, &Options::WORKLOAD_FLAGS))
                )
            }
            Fixes::PtsStimuli => format!(
                "{}: {} runs the stimuli the SNIA PTS lists, for a round's time each; drop \
                 them (--pts-scale shortens the test, `ssdlab run custom` runs one workload)",
                flags(untaken, &PTS_STIMULUS_FLAGS).join(", "),
                test.name()
            ),
            // A record that leaves a workload option out says why; a test checks each does.
            Fixes::Nothing => format!(
                "{}: {} does not take them; drop them",
                and_list(&flags(untaken, &Options::WORKLOAD_FLAGS)),
                test.name()
            ),
        }
    }
}

/// The order a PTS test's refusal names the options given.
const PTS_STIMULUS_FLAGS: [(Options, &str); 5] = [
    (Options::BS, "--bs"),
    (Options::READ_PCT, "--read-pct"),
    (Options::ACCESS, "--access"),
    (Options::IOS, "--ios"),
    (Options::BYTES, "--bytes"),
];

/// `a, b and c`.
pub(crate) fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_holds_what_it_was_given_and_nothing_else() {
        let set = Options::QD.with(Options::OFFSET);
        assert!(set.contains(Options::QD) && set.contains(Options::OFFSET));
        assert!(!set.contains(Options::BS));
        assert!(!set.contains(Options::QD.with(Options::BS)));
        assert!(set.contains(Options::NONE));
        assert!(!set.without(Options::QD).contains(Options::QD));
        assert!(set.without(Options::QD).contains(Options::OFFSET));
        for (o, _) in Options::WORKLOAD_FLAGS {
            assert!(Options::WORKLOAD.contains(o));
        }
        let flags = Options::WORKLOAD_FLAGS.iter().map(|(o, _)| o.0);
        assert_eq!(flags.fold(0, |all, o| all | o), Options::WORKLOAD.0);
    }

    #[test]
    fn a_list_reads_as_words() {
        assert_eq!(and_list(&["--qd"]), "--qd");
        assert_eq!(and_list(&["--qd", "--bs"]), "--qd and --bs");
        assert_eq!(
            and_list(&["--qd", "--bs", "--span"]),
            "--qd, --bs and --span"
        );
    }
}
