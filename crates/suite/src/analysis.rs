//! A result's test-specific figures, typed. Results store them as JSON (`analysis`); the
//! report and the Bench read them through [`Analysis::of`], never by string key, so a field
//! that is missing or renamed is an error a reader sees rather than a silent blank.

use crate::methodology::consistency::ConsistencyAnalysis;
use crate::methodology::power::PowerAnalysis;
use crate::methodology::steady_state::SteadyStateAnalysis;
use crate::methodology::transfer_sweep::SweepAnalysis;
use crate::methodology::trim::TrimAnalysis;
use crate::methodology::verify::VerifyAnalysis;
use crate::methodology::TestId;
use crate::replay::ReplayAnalysis;
use crate::result::TestResult;

/// The figures of one test, by test.
#[derive(Clone, Debug, PartialEq)]
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
    /// A test that has no figures beyond its summary (the four corners, custom, ...).
    None,
}

impl Analysis {
    /// The figures of `r`, typed by its test. An error names the test and what is wrong
    /// with its `analysis` (e.g. a field missing from a result of another version).
    pub fn of(r: &TestResult) -> Result<Analysis, String> {
        fn parse<T: serde::de::DeserializeOwned>(r: &TestResult) -> Result<T, String> {
            serde_json::from_value(r.analysis.clone())
                .map_err(|e| format!("the {} result's analysis cannot be read: {e}", r.test))
        }
        use TestId::*;
        Ok(match r.test {
            Consistency => Analysis::Consistency(parse(r)?),
            SteadyState => Analysis::SteadyState(parse(r)?),
            TransferSweep => Analysis::TransferSweep(parse(r)?),
            Trim => Analysis::Trim(parse(r)?),
            StorageBench | Replay => Analysis::Replay(parse(r)?),
            Verify => Analysis::Verify(parse(r)?),
            PowerIdle | PowerSlumber | PowerSeqWrite | PowerRandomWrite => {
                Analysis::Power(parse(r)?)
            }
            Corners | RandomRead | RandomWrite | RandomWriteQd32 | SeqRead | SeqWrite
            | SeqIncompressible | Custom => Analysis::None,
        })
    }
}

impl TestResult {
    /// The consistency figures, when this is a readable consistency result.
    pub fn consistency(&self) -> Option<ConsistencyAnalysis> {
        match Analysis::of(self) {
            Ok(Analysis::Consistency(a)) => Some(a),
            _ => None,
        }
    }
    /// The steady-state figures, when this is a readable steady-state result.
    pub fn steady_state(&self) -> Option<SteadyStateAnalysis> {
        match Analysis::of(self) {
            Ok(Analysis::SteadyState(a)) => Some(a),
            _ => None,
        }
    }
    /// The transfer-size curve's figures, when this is a readable sweep result.
    pub fn transfer_sweep(&self) -> Option<SweepAnalysis> {
        match Analysis::of(self) {
            Ok(Analysis::TransferSweep(a)) => Some(a),
            _ => None,
        }
    }
    /// The TRIM validation figures, when this is a readable TRIM result.
    pub fn trim(&self) -> Option<TrimAnalysis> {
        match Analysis::of(self) {
            Ok(Analysis::Trim(a)) => Some(a),
            _ => None,
        }
    }
    /// The power figures, when this is a readable power test result.
    pub fn power_analysis(&self) -> Option<PowerAnalysis> {
        match Analysis::of(self) {
            Ok(Analysis::Power(a)) => Some(a),
            _ => None,
        }
    }
    /// The replay figures (Storage Bench, `trace replay`), when readable.
    pub fn replay(&self) -> Option<ReplayAnalysis> {
        match Analysis::of(self) {
            Ok(Analysis::Replay(a)) => Some(a),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(test: TestId, analysis: serde_json::Value) -> TestResult {
        let mut r: TestResult =
            serde_json::from_str(include_str!("../tests/fixtures/minimal-result.json"))
                .expect("fixture parses");
        r.test = test;
        r.analysis = analysis;
        r
    }

    #[test]
    fn a_missing_field_is_an_error_that_names_the_test() {
        let r = result(TestId::Consistency, serde_json::json!({"spare_pct": 0.0}));
        let e = Analysis::of(&r).unwrap_err();
        assert!(
            e.contains("consistency") && e.contains("steady_from_s"),
            "{e}"
        );
        assert_eq!(r.consistency(), None);
    }

    #[test]
    fn a_test_without_figures_has_none() {
        let r = result(TestId::SeqRead, serde_json::Value::Null);
        assert_eq!(Analysis::of(&r), Ok(Analysis::None));
    }

    #[test]
    fn typed_figures_round_trip() {
        let json = serde_json::json!({"spare_pct": 25.0, "steady_from_s": 1400.0,
            "steady_state": null, "drop_s": 831, "whole_run": null});
        let r = result(TestId::Consistency, json.clone());
        let a = r.consistency().expect("readable");
        assert_eq!((a.spare_pct, a.drop_s), (25.0, Some(831)));
        assert_eq!(serde_json::to_value(&a).unwrap()["drop_s"], json["drop_s"]);
    }
}
