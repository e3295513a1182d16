//! Injected data faults, for testing a verifier against every fault it must catch (`faults=`):
//!
//! - **lost**: the write is acknowledged, but its data never lands: reads give the previous
//!   contents;
//! - **flip**: the data lands with one bit flipped;
//! - **misdirect**: the data lands at the previous write's LBA (a firmware using a stale
//!   address); the target keeps its old contents;
//! - **torn**: a power cut during a write of several 4 KiB units: only a prefix of its units
//!   lands (the drive comes back at once and the write is acknowledged, as one whose volatile
//!   cache lied about flushes).
//!
//! The schedule is deterministic (seeded by the drive's `seed`). The FTL and the timing never
//! see a fault: only the data kept in data mode does, so a drive with faults runs as fast as
//! one without.

use serde::Serialize;

use engine::pattern::Rng;

/// Counted faults hit every this many eligible writes.
pub const COUNT_SPACING: u64 = 1000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FaultKind {
    Lost,
    Flip,
    Misdirect,
    Torn,
}

impl FaultKind {
    pub const NAMES: &'static [&'static str] = &["lost", "flip", "misdirect", "torn"];

    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Lost => "lost",
            FaultKind::Flip => "flip",
            FaultKind::Misdirect => "misdirect",
            FaultKind::Torn => "torn",
        }
    }

    fn parse(s: &str) -> Option<FaultKind> {
        match s.trim().to_ascii_lowercase().as_str() {
            "lost" => Some(FaultKind::Lost),
            "flip" | "bitflip" => Some(FaultKind::Flip),
            "misdirect" | "misdirected" => Some(FaultKind::Misdirect),
            "torn" => Some(FaultKind::Torn),
            _ => None,
        }
    }
}

/// How often a fault hits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultRate {
    /// Each eligible write with probability 1/R.
    OneIn(u64),
    /// Exactly N, at every [`COUNT_SPACING`]th eligible write.
    Count(u64),
}

/// The `faults=` key: which faults, how often.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FaultSpec {
    pub faults: Vec<(FaultKind, FaultRate)>,
}

impl FaultSpec {
    pub fn is_empty(&self) -> bool {
        self.faults.is_empty()
    }

    /// `none`, or `KIND:1/R` / `KIND:N` joined by `+`.
    pub fn parse(text: &str) -> Result<FaultSpec, FaultError> {
        let text = text.trim();
        if matches!(text, "" | "none" | "off" | "0") {
            return Ok(FaultSpec::default());
        }
        let mut faults = Vec::new();
        for part in text.split('+') {
            let (kind, rate) = part
                .split_once(':')
                .ok_or_else(|| FaultError::NotKindRate(part.to_string()))?;
            let kind =
                FaultKind::parse(kind).ok_or_else(|| FaultError::UnknownKind(kind.to_string()))?;
            let bad = || FaultError::NotRate(rate.to_string());
            let rate = match rate.trim().split_once('/') {
                Some((one, r)) if one.trim() == "1" => {
                    FaultRate::OneIn(r.trim().parse().ok().filter(|&r| r >= 1).ok_or_else(bad)?)
                }
                Some(_) => return Err(bad()),
                None => FaultRate::Count(rate.trim().parse().map_err(|_| bad())?),
            };
            faults.push((kind, rate));
        }
        Ok(FaultSpec { faults })
    }

    pub fn label(&self) -> String {
        if self.is_empty() {
            return "none".into();
        }
        let parts: Vec<String> = self
            .faults
            .iter()
            .map(|(k, r)| match r {
                FaultRate::OneIn(n) => format!("{}:1/{n}", k.name()),
                FaultRate::Count(n) => format!("{}:{n}", k.name()),
            })
            .collect();
        parts.join("+")
    }
}

/// Why a fault list does not read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FaultError {
    #[error("'{0}' is not KIND:RATE: use e.g. lost:1/5000 or torn:1")]
    NotKindRate(String),
    #[error("unknown fault '{0}': use {names}", names = FaultKind::NAMES.join(", "))]
    UnknownKind(String),
    #[error("'{0}' is not a rate: give 1/R (one write in R) or N (N faults), e.g. 1/5000 or 3")]
    NotRate(String),
}

/// One injected fault, for tests and counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct InjectedFault {
    pub kind: FaultKind,
    /// The write that was hit.
    pub offset: u64,
    pub len: u32,
    /// Misdirect: where the data landed instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub landed_at: Option<u64>,
    /// Torn: how many bytes of the write landed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub landed_bytes: Option<u32>,
    /// Flip: the byte (on the device) whose bit flipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flipped_byte: Option<u64>,
}

/// The most injected faults remembered one by one (all are counted).
const LOGGED: usize = 100_000;

/// The schedule as the drive runs it.
pub(crate) struct Faults {
    entries: Vec<(FaultKind, FaultRate, u64, u64)>,
    rng: Rng,
    pub log: Vec<InjectedFault>,
    pub counts: [u64; 4],
}

impl Faults {
    pub fn new(spec: &FaultSpec, seed: u64) -> Faults {
        Faults {
            entries: spec.faults.iter().map(|&(k, r)| (k, r, 0, 0)).collect(),
            rng: Rng::new(seed ^ 0xFA17_5EED),
            log: Vec::new(),
            counts: [0; 4],
        }
    }

    /// The fault, if any, that hits a write of `units` 4 KiB units; `misdirectable` when
    /// there is a previous write elsewhere to land on.
    pub fn draw(&mut self, units: u64, misdirectable: bool) -> Option<FaultKind> {
        let mut hit = None;
        for (kind, rate, seen, injected) in &mut self.entries {
            let eligible = match kind {
                FaultKind::Torn => units >= 2,
                FaultKind::Misdirect => misdirectable,
                FaultKind::Lost | FaultKind::Flip => true,
            };
            if !eligible {
                continue;
            }
            *seen += 1;
            let fires = match *rate {
                FaultRate::OneIn(r) => self.rng.below(r) == 0,
                FaultRate::Count(n) => *injected < n && (*seen).is_multiple_of(COUNT_SPACING),
            };
            if fires && hit.is_none() {
                *injected += 1;
                hit = Some(*kind);
            }
        }
        hit
    }

    /// A seeded number in `0..n`.
    pub fn pick(&mut self, n: u64) -> u64 {
        self.rng.below(n.max(1))
    }

    pub fn record(&mut self, f: InjectedFault) {
        self.counts[f.kind as usize] += 1;
        if self.log.len() < LOGGED {
            self.log.push(f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_name_their_errors() {
        let s = FaultSpec::parse("lost:1/5000+flip:1/20000+misdirect:2+torn:1").unwrap();
        assert_eq!(s.faults.len(), 4);
        assert_eq!(s.faults[0], (FaultKind::Lost, FaultRate::OneIn(5000)));
        assert_eq!(s.faults[2], (FaultKind::Misdirect, FaultRate::Count(2)));
        assert_eq!(s.label(), "lost:1/5000+flip:1/20000+misdirect:2+torn:1");
        assert!(FaultSpec::parse("none").unwrap().is_empty());
        assert!(FaultSpec::parse("melt:1")
            .unwrap_err()
            .to_string()
            .contains("unknown fault"));
        assert!(FaultSpec::parse("lost:2/7")
            .unwrap_err()
            .to_string()
            .contains("1/R"));
        assert!(FaultSpec::parse("lost")
            .unwrap_err()
            .to_string()
            .contains("KIND:RATE"));
    }

    #[test]
    fn counted_faults_hit_every_thousandth_eligible_write() {
        let mut f = Faults::new(&FaultSpec::parse("torn:2").unwrap(), 1);
        let hits: Vec<u64> = (1..=5000u64)
            .filter(|_| f.draw(2, true).is_some())
            .collect();
        assert_eq!(hits, vec![1000, 2000]);
        // Single-unit writes cannot tear and do not count.
        assert_eq!(f.draw(1, true), None);
    }
}
