//! Every parameter of a result's measurement, typed by test: most tests measure one
//! workload; the others store what shapes their measurement. Parsed once the result's test is
//! known, like its analysis.

use serde::{Deserialize, Serialize, Serializer};

use engine::pattern::DataKind;
use engine::workload::{Access, Workload};

use super::stored::{typed_part, PartError};
use crate::methodology::verify::PhaseSpec;
use crate::methodology::{Kind, TestId};
use crate::replay::Plan;

#[derive(Clone, Debug, PartialEq)]
pub enum Parameters {
    Workload(Workload),
    Power(PowerParameters),
    Trim(TrimParameters),
    Verify(VerifyParameters),
    TransferSweep(SweepParameters),
    Replay(ReplayParameters),
}

/// An idle period in one power state (the power tests under IO measure a workload).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PowerParameters {
    pub state: String,
    pub rest_s: f64,
    pub duration_s: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrimParameters {
    pub span_bytes: u64,
    pub pass: TrimPass,
    pub torture: Workload,
    pub table_s: f64,
    pub margin: f64,
    /// The idle before each read pass. Results of ssdlab before 2026-11-23 14:25 idled only
    /// after the TRIM, and say so in `idle_after_trim_s` instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_before_pass_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_after_trim_s: Option<f64>,
}

/// The read pass that samples the drive's speed before and after the torture.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrimPass {
    pub access: Access,
    pub block_bytes: u32,
    pub qd: u32,
    pub samples: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VerifyParameters {
    pub offset_bytes: u64,
    pub span_bytes: u64,
    pub phases: Vec<PhaseSpec>,
    pub backlog_units: u64,
    pub unit_bytes: u32,
    pub seed: u64,
    pub data: DataKind,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepParameters {
    pub access: Access,
    pub region_bytes: u64,
    pub transfer_bytes: Vec<u32>,
    pub qd: u32,
    pub data: DataKind,
    pub read_pct: u8,
    /// The workload of the peak point, which the result's summary is.
    pub headline_point: Workload,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayParameters {
    pub trace: String,
    pub plan: Plan,
    /// A Storage Bench trace laid out on a drive smaller than its span: the scale it was
    /// replayed at and the span it was laid out on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_scale: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_span_bytes: Option<u64>,
}

impl Parameters {
    /// The stored parameters of a `test` result; the error names the test and what is wrong.
    pub fn parse(test: TestId, stored: serde_json::Value) -> Result<Parameters, PartError> {
        Ok(match test.kind() {
            Kind::TransferSweep => {
                Parameters::TransferSweep(typed_part(test, "parameters", stored)?)
            }
            Kind::Trim => Parameters::Trim(typed_part(test, "parameters", stored)?),
            Kind::Replay => Parameters::Replay(typed_part(test, "parameters", stored)?),
            Kind::Verify => Parameters::Verify(typed_part(test, "parameters", stored)?),
            Kind::IdlePower | Kind::SlumberPower => {
                Parameters::Power(typed_part(test, "parameters", stored)?)
            }
            Kind::Summary
            | Kind::Consistency
            | Kind::SteadyState
            | Kind::LoadPower
            | Kind::Saturation
            | Kind::Fill
            | Kind::Pts
            | Kind::Recovery
            | Kind::Steps
            | Kind::Wake => Parameters::Workload(typed_part(test, "parameters", stored)?),
        })
    }

    /// As JSON with its keys sorted, as parameters have always been stored: the Bench's
    /// column and a legacy run's identity are made of this text.
    pub fn to_value(&self) -> serde_json::Value {
        let value = match self {
            Parameters::Workload(p) => serde_json::to_value(p),
            Parameters::Power(p) => serde_json::to_value(p),
            Parameters::Trim(p) => serde_json::to_value(p),
            Parameters::Verify(p) => serde_json::to_value(p),
            Parameters::TransferSweep(p) => serde_json::to_value(p),
            Parameters::Replay(p) => serde_json::to_value(p),
        };
        value.expect("parameters serialize")
    }
}

impl super::TestResult {
    /// The transfer-size sweep's parameters, when this is a sweep result.
    pub fn sweep_parameters(&self) -> Option<&SweepParameters> {
        match &self.parameters {
            Parameters::TransferSweep(p) => Some(p),
            _ => None,
        }
    }
}

impl Serialize for Parameters {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::TestResult;

    /// A result of `test` with these parameters, loaded as a results directory loads it.
    fn load(test: TestId, parameters: serde_json::Value) -> Result<TestResult, serde_json::Error> {
        let mut r: serde_json::Value =
            serde_json::from_str(include_str!("../../tests/fixtures/minimal-result.json"))
                .expect("fixture parses");
        r["test"] = test.name().into();
        r["parameters"] = parameters;
        serde_json::from_value(r)
    }

    /// Stored parameters load typed and are written back as they were, to the byte: the
    /// Bench's column and a legacy run's identity are that text.
    fn round_trips(test: TestId, stored: serde_json::Value) -> Parameters {
        let r = load(test, stored.clone()).expect("loads");
        let written = serde_json::to_string(&r).unwrap();
        assert!(
            written.contains(&format!("\"parameters\":{stored},")),
            "{written}"
        );
        assert_eq!(r.parameters.to_value().to_string(), stored.to_string());
        r.parameters
    }

    fn workload() -> serde_json::Value {
        serde_json::json!({"access": "sequential", "block_bytes": 131072,
            "data": {"kind": "incompressible"}, "offset_bytes": 0, "qd": 1, "read_pct": 100,
            "limit": {"bytes": null, "duration_ns": 60000000000u64, "ios": null},
            "seed": 5624235, "span_bytes": 8589934592u64})
    }

    #[test]
    fn a_missing_field_is_an_error_that_names_the_test_and_the_field() {
        let e = load(
            TestId::PowerIdle,
            serde_json::json!({"state": "idle", "rest_s": 60.0}),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("power-idle") && e.contains("parameters") && e.contains("duration_s"),
            "{e}"
        );
    }

    #[test]
    fn every_shape_round_trips() {
        let p = round_trips(TestId::SeqRead, workload());
        assert!(matches!(p, Parameters::Workload(w) if w.block_bytes == 131072));
        round_trips(
            TestId::PowerSlumber,
            serde_json::json!({"state": "slumber", "rest_s": 60.0, "duration_s": 300.0}),
        );
        round_trips(
            TestId::TransferSweep,
            serde_json::json!({"access": "sequential", "region_bytes": 1073741824u64,
                "transfer_bytes": [512, 1024], "qd": 4, "data": {"kind": "incompressible"},
                "read_pct": 100, "headline_point": workload()}),
        );
        round_trips(
            TestId::Verify,
            serde_json::json!({"offset_bytes": 0, "span_bytes": 1048576,
                "phases": [{"access": "random", "block_bytes": 4096, "qd": 32, "span_share": 0.25}],
                "backlog_units": 64, "unit_bytes": 4096, "seed": 7,
                "data": {"kind": "incompressible"}}),
        );
        let plan = serde_json::json!({"mode": {"mode": "idle-capped", "cap_ns": 1000, "speed": 1.0},
            "remap": "wrap", "max_in_flight": 64, "max_io_bytes": 1048576,
            "data": {"kind": "incompressible"}, "seed": 1});
        round_trips(
            TestId::Replay,
            serde_json::json!({"trace": "t", "plan": plan}),
        );
        let p = round_trips(
            TestId::StorageBench,
            serde_json::json!({"trace": "t", "plan": plan, "trace_scale": 0.5,
                "trace_span_bytes": 1073741824u64}),
        );
        assert!(matches!(p, Parameters::Replay(r) if r.trace_scale == Some(0.5)));
    }

    #[test]
    fn trim_parameters_of_either_idle_round_trip() {
        for idle in ["idle_before_pass_s", "idle_after_trim_s"] {
            let mut trim = serde_json::json!({"span_bytes": 1048576,
                "pass": {"access": "sequential", "block_bytes": 131072, "qd": 1, "samples": 100},
                "torture": workload(), "table_s": 60.0, "margin": 0.1});
            trim[idle] = 60.0.into();
            round_trips(TestId::Trim, trim);
        }
    }
}
