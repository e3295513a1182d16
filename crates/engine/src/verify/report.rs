//! What verification found: counts, and the first mismatches by LBA with what was expected
//! and what was found. Part of every verified result (`"verify"`).

use std::fmt;

use serde::{Deserialize, Serialize};

/// How many mismatches a report lists one by one (the lowest LBAs); the rest are counted.
pub const LISTED: usize = 32;

/// What a unit held instead of its last write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MismatchKind {
    /// Another LBA's data: a write that landed at the wrong place.
    Misdirected,
    /// An older write of this LBA (or another run's): the last write was lost.
    Stale,
    /// Part of a multi-unit write landed and this unit did not (a torn write).
    Torn,
    /// This run's header, but the checksum does not match: the data changed (a bit flip).
    Corrupt,
    /// Zeroes where data was written (unmapped, or a lost write to fresh space).
    Zeroes,
    /// No verify header: data this run did not write.
    Garbage,
    /// The read-back itself failed.
    Unreadable,
}

impl MismatchKind {
    pub const ALL: [MismatchKind; 7] = [
        MismatchKind::Misdirected,
        MismatchKind::Stale,
        MismatchKind::Torn,
        MismatchKind::Corrupt,
        MismatchKind::Zeroes,
        MismatchKind::Garbage,
        MismatchKind::Unreadable,
    ];

    pub fn name(self) -> &'static str {
        match self {
            MismatchKind::Misdirected => "misdirected",
            MismatchKind::Stale => "stale",
            MismatchKind::Torn => "torn",
            MismatchKind::Corrupt => "corrupt",
            MismatchKind::Zeroes => "zeroes",
            MismatchKind::Garbage => "garbage",
            MismatchKind::Unreadable => "unreadable",
        }
    }
}

/// One unit that did not read back as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mismatch {
    /// In the device's logical blocks.
    pub lba: u64,
    /// In bytes.
    pub offset: u64,
    pub len: u32,
    pub kind: MismatchKind,
    /// The generation of the unit's last write.
    pub expected_generation: u32,
    /// The generation the unit's header carries, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_generation: Option<u32>,
    /// Misdirected: the LBA whose data the unit holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_lba: Option<u64>,
    /// Stale data of another run: that run's seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_seed: Option<u64>,
    /// Unreadable: the read's result (a negative errno, or the bytes transferred).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_result: Option<i64>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let gen = self.expected_generation;
        write!(f, "LBA {} (byte {}): ", self.lba, self.offset)?;
        let held = || match (self.found_generation, self.found_seed) {
            (Some(g), Some(s)) => format!("another run's write (seed {s}, generation {g})"),
            (Some(g), None) => format!("generation {g}"),
            _ => "older data (zeroes, or data this run did not write)".to_string(),
        };
        match self.kind {
            MismatchKind::Misdirected => write!(
                f,
                "misdirected: holds the data written for LBA {} (generation {}), not its own generation {gen}",
                self.found_lba.unwrap_or_default(),
                self.found_generation.unwrap_or_default()
            ),
            MismatchKind::Stale => write!(
                f,
                "lost write: generation {gen} expected, found {}",
                held()
            ),
            MismatchKind::Torn => write!(
                f,
                "torn write: other units of generation {gen} landed, this one holds {}",
                held()
            ),
            MismatchKind::Corrupt => write!(
                f,
                "bad checksum (the data changed after it was written): generation {gen} expected"
            ),
            MismatchKind::Zeroes => {
                write!(f, "reads as zeroes: generation {gen} expected")
            }
            MismatchKind::Garbage => write!(
                f,
                "no verify header (data this run did not write): generation {gen} expected"
            ),
            MismatchKind::Unreadable => match self.read_result {
                Some(r) if r < 0 => write!(
                    f,
                    "the read-back failed: {}",
                    std::io::Error::from_raw_os_error(-r as i32)
                ),
                Some(r) => write!(f, "the read-back transferred only {r} bytes"),
                None => write!(f, "the read-back failed"),
            },
        }
    }
}

/// Mismatches by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KindCounts {
    pub misdirected: u64,
    pub stale: u64,
    pub torn: u64,
    pub corrupt: u64,
    pub zeroes: u64,
    pub garbage: u64,
    pub unreadable: u64,
}

impl KindCounts {
    pub fn get(&self, kind: MismatchKind) -> u64 {
        match kind {
            MismatchKind::Misdirected => self.misdirected,
            MismatchKind::Stale => self.stale,
            MismatchKind::Torn => self.torn,
            MismatchKind::Corrupt => self.corrupt,
            MismatchKind::Zeroes => self.zeroes,
            MismatchKind::Garbage => self.garbage,
            MismatchKind::Unreadable => self.unreadable,
        }
    }

    fn slot(&mut self, kind: MismatchKind) -> &mut u64 {
        match kind {
            MismatchKind::Misdirected => &mut self.misdirected,
            MismatchKind::Stale => &mut self.stale,
            MismatchKind::Torn => &mut self.torn,
            MismatchKind::Corrupt => &mut self.corrupt,
            MismatchKind::Zeroes => &mut self.zeroes,
            MismatchKind::Garbage => &mut self.garbage,
            MismatchKind::Unreadable => &mut self.unreadable,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VerifyReport {
    /// The verify unit: every unit of this size carries its own header and checksum.
    pub unit_bytes: u32,
    /// Units read back and checked (a unit checked by a backlog and again by the final pass
    /// counts twice).
    pub units_checked: u64,
    pub bytes_checked: u64,
    /// Units written under verification.
    pub units_written: u64,
    /// A backlog read-back every this many written units (0: only the final pass).
    pub backlog_units: u64,
    pub backlog_checks: u64,
    /// Whether every unit written was read back at the end.
    pub final_pass: bool,
    /// False when verification was cut short (interrupted, or the run failed first).
    pub complete: bool,
    /// Units that did not read back as written (each counted once, when first found).
    pub mismatches: u64,
    pub by_kind: KindCounts,
    /// The mismatches at the lowest LBAs (at most [`LISTED`]), in LBA order.
    pub first: Vec<Mismatch>,
    /// Time the workload stood still while backlogs were read back, in seconds of the
    /// device's clock. Verification reads are never counted as the test's IOs, but these
    /// pauses are inside the measured duration.
    pub backlog_pause_s: f64,
}

impl VerifyReport {
    pub fn ok(&self) -> bool {
        self.mismatches == 0
    }

    /// Count a mismatch and list it if it is among the lowest LBAs. Allocates nothing once
    /// the list has its capacity.
    pub(crate) fn add(&mut self, m: Mismatch) {
        self.mismatches += 1;
        *self.by_kind.slot(m.kind) += 1;
        if self.first.len() < LISTED {
            self.first.push(m);
        } else if let Some((i, top)) = self.first.iter().enumerate().max_by_key(|(_, x)| x.lba) {
            if m.lba < top.lba {
                self.first[i] = m;
            }
        }
    }

    pub(crate) fn sort(&mut self) {
        self.first.sort_by_key(|m| m.lba);
    }

    /// Fold another report (a later round of the same test) into this one.
    pub fn merge(&mut self, other: &VerifyReport) {
        self.unit_bytes = self.unit_bytes.max(other.unit_bytes);
        self.units_checked += other.units_checked;
        self.bytes_checked += other.bytes_checked;
        self.units_written += other.units_written;
        self.backlog_units = self.backlog_units.max(other.backlog_units);
        self.backlog_checks += other.backlog_checks;
        self.final_pass &= other.final_pass;
        self.complete &= other.complete;
        self.backlog_pause_s += other.backlog_pause_s;
        for m in &other.first {
            self.add(m.clone());
        }
        self.mismatches += other.mismatches - other.first.len() as u64;
        for k in MismatchKind::ALL {
            let listed = other.first.iter().filter(|m| m.kind == k).count() as u64;
            *self.by_kind.slot(k) += other.by_kind.get(k) - listed;
        }
        self.sort();
    }

    /// One line: what was checked and what was found.
    pub fn headline(&self) -> String {
        let checked = format!(
            "{} units of {} bytes checked",
            self.units_checked, self.unit_bytes
        );
        if self.ok() {
            let state = if self.complete {
                "no corruption"
            } else {
                "no corruption so far (verification incomplete)"
            };
            return format!("verify: {state}; {checked}");
        }
        let kinds: Vec<String> = MismatchKind::ALL
            .iter()
            .filter(|&&k| self.by_kind.get(k) > 0)
            .map(|&k| format!("{} {}", self.by_kind.get(k), k.name()))
            .collect();
        format!(
            "verify: CORRUPTION: {} bad units ({}); {checked}",
            self.mismatches,
            kinds.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bad(lba: u64, kind: MismatchKind) -> Mismatch {
        Mismatch {
            lba,
            offset: lba * 512,
            len: 4096,
            kind,
            expected_generation: 2,
            found_generation: Some(1),
            found_lba: None,
            found_seed: None,
            read_result: None,
        }
    }

    #[test]
    fn a_report_lists_the_lowest_lbas_and_counts_every_mismatch_once() {
        let mut a = VerifyReport {
            complete: true,
            ..VerifyReport::default()
        };
        for lba in (0..100u64).rev() {
            a.add(bad(lba * 8, MismatchKind::Stale));
        }
        a.sort();
        assert_eq!(a.mismatches, 100);
        assert_eq!(a.first.len(), LISTED);
        assert_eq!(a.first[0].lba, 0);
        assert_eq!(a.first[LISTED - 1].lba, (LISTED as u64 - 1) * 8);
        let mut b = VerifyReport {
            complete: true,
            ..VerifyReport::default()
        };
        b.add(bad(4, MismatchKind::Corrupt));
        a.merge(&b);
        assert_eq!(a.mismatches, 101);
        assert_eq!((a.by_kind.stale, a.by_kind.corrupt), (100, 1));
        assert_eq!(a.first[1].lba, 4);
        assert!(a
            .headline()
            .contains("101 bad units (100 stale, 1 corrupt)"));
        assert!(a.first[0]
            .to_string()
            .starts_with("LBA 0 (byte 0): lost write"));
    }
}
