//! A result as stored, before its parameters and analysis are typed: their types depend on
//! the result's test, so they are parsed once the test is known. Defaults here are what results of
//! earlier versions lack.

use serde::Deserialize;

use engine::driver::{CounterSnapshots, Stopped};
use engine::measure::{SecondPoint, Summary};
use engine::system::SystemInfo;
use engine::{Clock, Identity};

use super::{CurvePoint, HostWrites, Parameters, Phase, TestResult, Tool, WriteAmplification};
use crate::analysis::Analysis;
use crate::methodology::TestId;

#[derive(Deserialize)]
pub(super) struct StoredResult {
    schema_version: u32,
    tool: Tool,
    #[serde(default)]
    run_id: Option<String>,
    test: TestId,
    #[serde(default)]
    variant: Option<String>,
    label: String,
    started_at: String,
    complete: bool,
    stopped: Option<Stopped>,
    parameters: serde_json::Value,
    #[serde(default)]
    deviations: Vec<String>,
    #[serde(default)]
    adaptations: Vec<String>,
    target: Identity,
    clock: Clock,
    system: SystemInfo,
    #[serde(default)]
    preconditioning: Vec<Phase>,
    #[serde(default)]
    measured_phase: Option<String>,
    summary: Summary,
    per_second: Vec<SecondPoint>,
    #[serde(default)]
    points: Vec<CurvePoint>,
    #[serde(default)]
    analysis: serde_json::Value,
    device_counters: Option<CounterSnapshots>,
    write_amplification: Option<WriteAmplification>,
    #[serde(default)]
    host_writes: Option<HostWrites>,
    #[serde(default)]
    warnings: Vec<String>,
    #[serde(default)]
    verify: Option<engine::verify::VerifyReport>,
    #[serde(default)]
    power: Option<engine::power::PhasePower>,
    #[serde(default)]
    write_cache: Option<crate::pts::WriteCacheRecord>,
}

impl TryFrom<StoredResult> for TestResult {
    type Error = PartError;

    fn try_from(s: StoredResult) -> Result<TestResult, PartError> {
        Ok(TestResult {
            analysis: Analysis::parse(s.test, s.analysis)?,
            schema_version: s.schema_version,
            tool: s.tool,
            run_id: s.run_id,
            test: s.test,
            variant: s.variant,
            label: s.label,
            started_at: s.started_at,
            complete: s.complete,
            stopped: s.stopped,
            parameters: Parameters::parse(s.test, s.parameters)?,
            deviations: s.deviations,
            adaptations: s.adaptations,
            target: s.target,
            clock: s.clock,
            system: s.system,
            preconditioning: s.preconditioning,
            measured_phase: s.measured_phase,
            summary: s.summary,
            per_second: s.per_second,
            points: s.points,
            device_counters: s.device_counters,
            write_amplification: s.write_amplification,
            host_writes: s.host_writes,
            warnings: s.warnings,
            verify: s.verify,
            power: s.power,
            write_cache: s.write_cache,
        })
    }
}

/// One part (`"analysis"`, `"parameters"`) of a stored result of `test`, typed.
pub(crate) fn typed_part<T: serde::de::DeserializeOwned>(
    test: TestId,
    part: &'static str,
    stored: serde_json::Value,
) -> Result<T, PartError> {
    serde_json::from_value(stored).map_err(|source| PartError { test, part, source })
}

/// A part of a stored result that cannot be read as its test's: it names the test, the part
/// and what is wrong with it (e.g. a field missing from a result of another version).
#[derive(Debug, thiserror::Error)]
#[error("the {test} result's {part} cannot be read: {source}")]
pub struct PartError {
    test: TestId,
    part: &'static str,
    source: serde_json::Error,
}
