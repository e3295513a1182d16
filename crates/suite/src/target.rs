//! Opening any target: real ones through the engine, `sim:` ones through the simulator.

use engine::target::{open_real, OpenRequest, TargetSpec};
use engine::Device;

use crate::SuiteError;

/// The target a newcomer's first command reviews.
pub const DEFAULT_TARGET: &str = "sim:default";

pub fn open(spec: &str, req: &OpenRequest) -> Result<Box<dyn Device>, SuiteError> {
    let parsed = TargetSpec::parse(spec)?;
    match parsed {
        TargetSpec::Sim(preset) => open_sim(&preset),
        real => Ok(open_real(&real, req)?),
    }
}

fn open_sim(spec: &str) -> Result<Box<dyn Device>, SuiteError> {
    let dev = sim::open(spec).map_err(|e| SuiteError::Target(format!("sim:{spec}: {e}")))?;
    Ok(Box::new(dev))
}
