//! The drive a recovery test's results came from, when it is known (`--reference`): the
//! twin's keys are compared with its, and it is scored as the search could have found it,
//! its own values of the searched keys on the start's others (the point of the space
//! nearest it). Its loss against the twin's says whose a held-out miss is: the search's (it
//! fits better and predicts), the fitted figures' (they prefer the twin, which predicts
//! worse), or the space's (even it misses: the keys not searched matter).

use std::collections::BTreeMap;

use serde::Serialize;

/// The reference as the fit scores it.
#[derive(Clone, Debug, Serialize)]
pub struct Reference {
    /// As given: a preset, with overrides.
    pub drive: String,
    /// The drive measured: its values of the searched keys, the start's of the others.
    pub spec: String,
    /// Its loss on the fitted figures (the twin's is the report's `loss_twin`); none when
    /// the simulator refused it (`refused` says why).
    pub loss: Option<f64>,
    pub refused: Option<String>,
}

/// Each key's value in `drive` (a spec), as its sources last set it.
pub fn values(drive: &str) -> Result<BTreeMap<String, String>, String> {
    let cfg = sim::resolve(drive).map_err(|e| format!("--reference {drive}: {e}"))?;
    Ok(cfg.sources.into_iter().map(|(k, v, _)| (k, v)).collect())
}

/// `searched` (keys as the space sets them) with the reference's values; a key it does not
/// set keeps the start's.
pub fn project(
    searched: &[(String, String)],
    reference: &BTreeMap<String, String>,
) -> Vec<(String, String)> {
    searched
        .iter()
        .map(|(k, v)| (k.clone(), reference.get(k).unwrap_or(v).clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_gives_the_searched_keys_and_nothing_else() {
        let reference = values("ultra-plus-256").unwrap();
        let searched = vec![
            ("cmd_write".to_string(), "12us".to_string()),
            ("op".to_string(), "7%".to_string()),
        ];
        let p = project(&searched, &reference);
        assert_eq!(p.len(), 2, "only the searched keys: {p:?}");
        assert_eq!(p[0].1, reference["cmd_write"]);
        assert_ne!(
            p[0].1, "12us",
            "the Ultra Plus's controller is slower than default's"
        );
        assert_eq!(p[1].1, reference["op"]);
        assert!(values("no-such-drive")
            .unwrap_err()
            .contains("--reference no-such-drive"));
    }
}
