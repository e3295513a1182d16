//! A result's test-specific figures, typed. Results store them as JSON (`analysis`), parsed
//! by the result's test when it is loaded ([`Analysis::parse`]): a field that is missing or
//! renamed is an error naming the test and the field rather than a silent blank.

use serde::Serialize;

use crate::fill_curve::FillAnalysis;
use crate::methodology::consistency::ConsistencyAnalysis;
use crate::methodology::idle_wake::WakeAnalysis;
use crate::methodology::power::PowerAnalysis;
use crate::methodology::steady_state::SteadyStateAnalysis;
use crate::methodology::transfer_sweep::SweepAnalysis;
use crate::methodology::trim::TrimAnalysis;
use crate::methodology::verify::VerifyAnalysis;
use crate::methodology::{Kind, TestId};
use crate::pts::PtsAnalysis;
use crate::recovery::RecoveryAnalysis;
use crate::replay::ReplayAnalysis;
use crate::result::TestResult;
use crate::result::{typed_part, PartError};
use crate::saturation::SaturationAnalysis;
use crate::steps::StepsAnalysis;

/// The figures of one test, by test. Stored as the figures' own object; a test without
/// figures stores none.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Analysis {
    Consistency(ConsistencyAnalysis),
    SteadyState(SteadyStateAnalysis),
    TransferSweep(SweepAnalysis),
    Trim(TrimAnalysis),
    /// The Storage Bench (`storage-bench`) and `trace replay` (`replay`).
    Replay(ReplayAnalysis),
    Verify(VerifyAnalysis),
    /// The power tests (`power-idle`, `power-slumber`, `power-seq-write`, ...).
    Power(PowerAnalysis),
    Saturation(SaturationAnalysis),
    Fill(FillAnalysis),
    /// The PTS tests of stimuli in rounds (IOPS, throughput, latency).
    Pts(PtsAnalysis),
    /// The PTS recovery tests (host idle, cross-stimulus).
    Recovery(RecoveryAnalysis),
    /// The 2018-2021 reviews' stepped tests (queue depths, read shares).
    Steps(StepsAnalysis),
    /// Idle wake-up latency.
    Wake(WakeAnalysis),
    /// A test that has no figures beyond its summary (the four corners, custom, ...), or a
    /// run that stopped before it had any.
    #[default]
    None,
}

impl Analysis {
    /// The figures `stored` in a result of `test`, typed by its kind. An error names the test
    /// and what is wrong with them (e.g. a field missing from a result of another version).
    pub fn parse(test: TestId, stored: serde_json::Value) -> Result<Analysis, PartError> {
        if stored.is_null() {
            return Ok(Analysis::None);
        }
        Ok(match test.kind() {
            Kind::Consistency => Analysis::Consistency(typed_part(test, "analysis", stored)?),
            Kind::SteadyState => Analysis::SteadyState(typed_part(test, "analysis", stored)?),
            Kind::TransferSweep => Analysis::TransferSweep(typed_part(test, "analysis", stored)?),
            Kind::Trim => Analysis::Trim(typed_part(test, "analysis", stored)?),
            Kind::Replay => Analysis::Replay(typed_part(test, "analysis", stored)?),
            Kind::Verify => Analysis::Verify(typed_part(test, "analysis", stored)?),
            Kind::IdlePower | Kind::SlumberPower | Kind::LoadPower => {
                Analysis::Power(typed_part(test, "analysis", stored)?)
            }
            Kind::Saturation => Analysis::Saturation(typed_part(test, "analysis", stored)?),
            Kind::Fill => Analysis::Fill(typed_part(test, "analysis", stored)?),
            Kind::Pts => Analysis::Pts(typed_part(test, "analysis", stored)?),
            Kind::Recovery => Analysis::Recovery(typed_part(test, "analysis", stored)?),
            Kind::Steps => Analysis::Steps(typed_part(test, "analysis", stored)?),
            Kind::Wake => Analysis::Wake(typed_part(test, "analysis", stored)?),
            Kind::Summary => Analysis::None,
        })
    }

    pub fn is_none(&self) -> bool {
        *self == Analysis::None
    }
}

impl TestResult {
    /// The consistency figures, when this is a consistency result that has them.
    pub fn consistency(&self) -> Option<&ConsistencyAnalysis> {
        match &self.analysis {
            Analysis::Consistency(a) => Some(a),
            _ => None,
        }
    }
    /// The steady-state figures, when this is a steady-state result that has them.
    pub fn steady_state(&self) -> Option<&SteadyStateAnalysis> {
        match &self.analysis {
            Analysis::SteadyState(a) => Some(a),
            _ => None,
        }
    }
    /// The transfer-size curve's figures, when this is a sweep result that has them.
    pub fn transfer_sweep(&self) -> Option<&SweepAnalysis> {
        match &self.analysis {
            Analysis::TransferSweep(a) => Some(a),
            _ => None,
        }
    }
    /// The TRIM validation figures, when this is a TRIM result that has them.
    pub fn trim(&self) -> Option<&TrimAnalysis> {
        match &self.analysis {
            Analysis::Trim(a) => Some(a),
            _ => None,
        }
    }
    /// The power figures, when this is a power test result that has them.
    pub fn power_analysis(&self) -> Option<&PowerAnalysis> {
        match &self.analysis {
            Analysis::Power(a) => Some(a),
            _ => None,
        }
    }
    /// The write saturation figures, when this is a result of that kind that has them.
    pub fn saturation(&self) -> Option<&SaturationAnalysis> {
        match &self.analysis {
            Analysis::Saturation(a) => Some(a),
            _ => None,
        }
    }
    /// A PTS test's rounds and window figures, when this is one that has them.
    pub fn pts(&self) -> Option<&PtsAnalysis> {
        match &self.analysis {
            Analysis::Pts(a) => Some(a),
            _ => None,
        }
    }
    /// A recovery test's segments, when this is one that has them.
    pub fn recovery(&self) -> Option<&RecoveryAnalysis> {
        match &self.analysis {
            Analysis::Recovery(a) => Some(a),
            _ => None,
        }
    }
    /// A stepped test's figures, when this is one that has them.
    pub fn steps(&self) -> Option<&StepsAnalysis> {
        match &self.analysis {
            Analysis::Steps(a) => Some(a),
            _ => None,
        }
    }
    /// The idle wake-up figures, when this is a result of that kind that has them.
    pub fn wake(&self) -> Option<&WakeAnalysis> {
        match &self.analysis {
            Analysis::Wake(a) => Some(a),
            _ => None,
        }
    }
    /// The whole-drive fill's figures, when this is a result of that kind that has them.
    pub fn fill(&self) -> Option<&FillAnalysis> {
        match &self.analysis {
            Analysis::Fill(a) => Some(a),
            _ => None,
        }
    }
    /// The replay figures (Storage Bench, `trace replay`), when it has them.
    pub fn replay(&self) -> Option<&ReplayAnalysis> {
        match &self.analysis {
            Analysis::Replay(a) => Some(a),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(test: TestId, analysis: serde_json::Value) -> Result<TestResult, serde_json::Error> {
        let mut r: serde_json::Value =
            serde_json::from_str(include_str!("../tests/fixtures/minimal-result.json"))
                .expect("fixture parses");
        r["test"] = test.name().into();
        r["analysis"] = analysis;
        serde_json::from_value(r)
    }

    #[test]
    fn a_missing_field_is_an_error_that_names_the_test_and_the_field() {
        let e = parse(TestId::Consistency, serde_json::json!({"spare_pct": 0.0}))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("consistency") && e.contains("steady_from_s"),
            "{e}"
        );
    }

    #[test]
    fn a_test_without_figures_has_none() {
        let r = parse(TestId::SeqRead, serde_json::Value::Null).unwrap();
        assert_eq!(r.analysis, Analysis::None);
        assert!(serde_json::to_value(&r).unwrap().get("analysis").is_none());
    }

    #[test]
    fn typed_figures_round_trip() {
        let json = serde_json::json!({"spare_pct": 25.0, "steady_from_s": 1400.0,
            "steady_state": null, "drop_s": 831, "whole_run": null});
        let r = parse(TestId::Consistency, json.clone()).unwrap();
        assert!(!r.consistency().unwrap().reached);
        let a = r.consistency().expect("readable");
        assert_eq!((a.spare_pct, a.drop_s), (25.0, Some(831)));
        // Stored with the verdict an older result left out: no window, no steady state.
        let mut judged = json;
        judged["reached"] = false.into();
        assert_eq!(serde_json::to_value(&r).unwrap()["analysis"], judged);
    }
}
