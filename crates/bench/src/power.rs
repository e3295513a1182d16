//! The power tests' figures as the Bench reads them, and the words every page uses for
//! where a power figure comes from: measured by a meter, estimated from the drive's NVMe
//! power-state table, or modelled by the simulator. A figure that is not measured is
//! always said to be so; a missing one is missing (with its reason), never 0 W.

use engine::power::Basis;
use suite::result::TestResult;
use suite::TestId;

pub use suite::methodology::power::PowerAnalysis;

/// Whether `test` is one of the power tests.
pub fn is_power_test(test: TestId) -> bool {
    test.kind().is_power()
}

/// The figures of a power test's result, when it is one and they can be read.
pub fn analysis(r: &TestResult) -> Option<&PowerAnalysis> {
    r.power_analysis()
}

/// What a power test's result says of the drive's power: from its analysis, else from the
/// power of its measured phase.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    /// Mean watts; `None`: missing.
    pub mean_w: Option<f64>,
    pub min_w: Option<f64>,
    pub max_w: Option<f64>,
    pub basis: Option<Basis>,
    /// Why power is missing or partial.
    pub missing: Option<String>,
    /// What was done to the meter's readings (a meter too fast averaged).
    pub note: Option<String>,
}

impl Reading {
    pub fn of(r: &TestResult) -> Reading {
        let phase = r.power.as_ref();
        let summary = phase.and_then(|p| p.summary);
        let phase_missing = || {
            phase
                .and_then(|p| p.missing.as_ref())
                .map(|m| format!("from {:.0} s: {}", m.from_s, m.reason))
        };
        let note = phase.and_then(|p| p.note.clone());
        let no_meter = || {
            "no power reading: a real drive's power is measured only with --power-meter".to_string()
        };
        match analysis(r) {
            Some(a) => Reading {
                mean_w: a.mean_w,
                min_w: a.min_w,
                max_w: a.max_w,
                basis: a.basis.or(phase.map(|p| p.basis)),
                missing: a
                    .missing
                    .clone()
                    .or_else(phase_missing)
                    .or_else(|| a.mean_w.is_none().then(no_meter)),
                note,
            },
            None => Reading {
                mean_w: summary.map(|s| s.mean_w),
                min_w: summary.map(|s| s.min_w),
                max_w: summary.map(|s| s.max_w),
                basis: phase.map(|p| p.basis),
                missing: phase_missing().or_else(|| summary.is_none().then(no_meter)),
                note,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::tests::result;
    use suite::Analysis;

    #[test]
    fn missing_power_has_a_reason_and_no_value() {
        let mut r = result("power-idle", None, "d", "2026-01-01T00:00:00Z", 0.0);
        let stored = serde_json::json!({"state": "idle", "mean_w": null, "min_w": null,
            "max_w": null, "basis": null, "mbps_per_w": null, "iops_per_w": null,
            "first_30s_w": null, "after_30s_w": null, "tail_w": null,
            "link_power": null, "missing": null});
        r.analysis = Analysis::parse(r.test, stored).unwrap();
        let reading = Reading::of(&r);
        assert_eq!(reading.mean_w, None);
        assert!(reading.missing.unwrap().contains("--power-meter"));
        if let Analysis::Power(a) = &mut r.analysis {
            a.missing = Some("the meter command exited".into());
        }
        assert_eq!(
            Reading::of(&r).missing.as_deref(),
            Some("the meter command exited")
        );
    }
}
