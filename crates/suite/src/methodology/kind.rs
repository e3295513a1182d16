//! What a test's results are: the kind decides how a stored result of it reads back (its
//! analysis and parameters), what `bench compare` compares it on and how the page draws it.
//! A new test whose results are of a kind that exists names that kind in its record and needs
//! nothing else; a new kind is a new variant here, and every `match` on it (not on the test)
//! points at what it needs.

/// The kinds of results, one per shape of figures the tests have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// One workload, whose summary is its figures (the corners' rows, custom, ...).
    Summary,
    /// Purge, fill, a long random write measured every second (`consistency`).
    Consistency,
    /// Rounds until the SNIA PTS steady-state rule holds.
    SteadyState,
    /// One workload at every transfer size.
    TransferSweep,
    /// Read speed clean, dirty and after TRIM.
    Trim,
    /// A trace replayed (the Storage Bench, `trace replay`).
    Replay,
    /// Written data read back and checked.
    Verify,
    /// Power at rest (idle), in watts.
    IdlePower,
    /// Power in a link power state (slumber), in milliwatts.
    SlumberPower,
    /// Power under a write workload, with performance per watt.
    LoadPower,
    /// Writes from clean, IOPS per round against time and bytes written (SNIA PTS WSAT).
    Saturation,
    /// Sequential writes over the whole drive from clean, MB/s per GB written and the SLC
    /// cache found in them.
    Fill,
    /// SNIA PTS rounds to steady state of a list of stimuli, each reported over the
    /// measurement window (the PTS IOPS, throughput and latency tests).
    Pts,
    /// Segments of changing stimuli on one clock and how the drive recovers (the PTS's host
    /// idle and cross-stimulus recovery).
    Recovery,
    /// One workload stepped along queue depths or read shares on an empty or full drive
    /// (the 2018-2021 reviews' random, sequential and mixed tests).
    Steps,
    /// Single reads after rests with link power management on, against reads awake (idle
    /// wake-up latency).
    Wake,
}

impl Kind {
    /// Whether its results are a power figure (idle, slumber or under load).
    pub fn is_power(self) -> bool {
        matches!(self, Kind::IdlePower | Kind::SlumberPower | Kind::LoadPower)
    }
}
