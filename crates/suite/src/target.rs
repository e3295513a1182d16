//! Opening any target: the engine's real ones, and `sim:` ones through the simulator.

use engine::target::{OpenRequest, Opener, Registry, TargetError};
use engine::{Device, TargetKind};

use crate::SuiteError;

/// The target a newcomer's first command reviews.
pub const DEFAULT_TARGET: &str = "sim:default";

/// Every target the suite can open: the engine's and the simulator.
pub fn registry() -> Registry {
    let mut targets = Registry::real();
    targets.register(Opener {
        prefix: sim::TARGET_PREFIX,
        kind: TargetKind::Sim,
        syntax: "sim:PRESET[,key=value...]",
        open: open_sim,
        locate: None,
    });
    targets
}

pub fn open(spec: &str, req: &OpenRequest) -> Result<Box<dyn Device>, SuiteError> {
    Ok(registry()
        .open(spec, req)
        .map_err(|e| preset_hint(spec, e))?)
}

/// A spec that names no target but is a simulated drive's preset (`840-evo-250`): the
/// error says the `sim:` it lacks.
fn preset_hint(spec: &str, e: TargetError) -> TargetError {
    let name = spec.split(',').next().unwrap_or(spec);
    match e {
        TargetError::Unknown { .. } if sim::preset::find(name).is_some() => TargetError::Open(
            format!("{e}; {name} is a simulated drive's preset: did you mean --target sim:{spec}?"),
        ),
        other => other,
    }
}

/// Open `spec` like [`open`]; a `file:` target that did not exist comes with a guard that
/// removes it again unless kept (a run that failed leaves no file behind).
pub fn open_created(
    spec: &str,
    req: &OpenRequest,
) -> Result<(Box<dyn Device>, CreatedFile), SuiteError> {
    let new_file = match kind(spec) {
        Ok(TargetKind::File) => engine::target::file::parse(spec)
            .ok()
            .map(|(path, _)| path)
            .filter(|p| !p.exists()),
        _ => None,
    };
    let dev = open(spec, req)?;
    Ok((dev, CreatedFile(new_file)))
}

/// A target file this command created: removed again when dropped without
/// [`CreatedFile::keep`] (once results that refer to it are written).
#[must_use]
pub struct CreatedFile(Option<std::path::PathBuf>);

impl CreatedFile {
    pub fn keep(&mut self) {
        self.0 = None;
    }
}

impl Drop for CreatedFile {
    fn drop(&mut self) {
        if let Some(path) = self.0.take() {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// The kind of target a spec names, without opening it.
pub fn kind(spec: &str) -> Result<TargetKind, SuiteError> {
    let targets = registry();
    let opener = targets.find(spec).map_err(|e| preset_hint(spec, e))?;
    Ok(opener.kind)
}

fn open_sim(spec: &str, req: &OpenRequest) -> Result<Box<dyn Device>, TargetError> {
    if req.polling.any() {
        return Err(TargetError::Open(format!(
            "{spec}: a simulated drive runs on its own clock with no ring to poll: drop {}",
            req.polling.flags()
        )));
    }
    let preset = sim::spec_of(spec);
    // A spec error names the target already ("sim:PRESET: ...").
    let dev = sim::open(preset).map_err(|e| match e {
        sim::SimError::Spec { .. } => TargetError::Open(e.to_string()),
        other => TargetError::Open(format!("{spec}: {other}")),
    })?;
    Ok(Box::new(dev))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preset_without_sim_is_pointed_to_it() {
        let e = kind("840-evo-250,op=25%").unwrap_err().to_string();
        assert!(
            e.contains("did you mean --target sim:840-evo-250,op=25%?"),
            "{e}"
        );
        let e = kind("nonsense").unwrap_err().to_string();
        assert!(
            e.contains("is not a target") && !e.contains("sim:nonsense"),
            "{e}"
        );
    }
}
