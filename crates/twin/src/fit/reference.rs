//! The drive a recovery test's results came from, when it is known (`--reference`): the
//! twin's keys are compared with its, and it is scored as the search could have found it,
//! its own values of the searched keys on the start's others (the point of the space
//! nearest it). Its loss against the twin's says whose a held-out miss is: the search's (it
//! fits better and predicts), the fitted figures' (they prefer the twin, which predicts
//! worse), or the keys' not searched (even it misses).

use std::collections::BTreeMap;

use serde::Serialize;

use super::{ArgError, FitError};

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
    /// The keys not searched that make the reference another drive than the start: what a
    /// miss the reference shares comes down to.
    pub unsearched: Vec<Unsearched>,
    /// The searched keys whose reference values no point of the space sets: when any is, a
    /// reference fitting better than the twin is no drive the search could have found.
    pub outside: Vec<Outside>,
}

/// A searched key whose value in the reference the space cannot set.
#[derive(Clone, Debug, Serialize)]
pub struct Outside {
    pub key: String,
    pub reference: String,
    /// Why, as [`super::space::Space::beyond`] says.
    pub why: String,
}

/// A key not searched whose value differs between the start and the reference.
#[derive(Clone, Debug, Serialize)]
pub struct Unsearched {
    pub key: String,
    pub start: String,
    pub reference: String,
}

/// Each key's value, by key, as a spec writes it.
pub type KeyValues = BTreeMap<String, String>;

/// Each key's value in `drive` (a spec), as its sources last set it.
pub fn values(drive: &str) -> Result<KeyValues, FitError> {
    let cfg = sim::resolve(drive).map_err(|source| ArgError::Reference {
        drive: drive.to_string(),
        source,
    })?;
    Ok(values_of(&cfg))
}

/// Each key's value in a resolved drive: the last word of its sources.
pub fn values_of(cfg: &sim::Config) -> KeyValues {
    cfg.sources
        .iter()
        .map(|(k, v, _)| (k.clone(), v.clone()))
        .collect()
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

/// The keys of `searched` whose `reference` values no point of `spaces` sets, but those the
/// drive measured (`spec`) does not read.
pub fn outside(
    spaces: &[&super::space::Space],
    reference: &BTreeMap<String, String>,
    searched: &[(String, String)],
    spec: &str,
) -> Vec<Outside> {
    let drive = sim::resolve(spec).ok();
    searched
        .iter()
        .filter(|(key, _)| !drive.as_ref().is_some_and(|d| d.ignores(key)))
        .filter_map(|(key, _)| {
            let value = reference.get(key)?;
            let why = spaces.iter().find_map(|s| s.beyond(key, value))?;
            Some(Outside {
                key: key.clone(),
                reference: value.clone(),
                why,
            })
        })
        .collect()
}

/// The keys of `reference` not in `searched` (nor the capacity, the target's) that, set on
/// `base` (the start's spec), change the drive it builds: another value, not another way of
/// writing the start's (3ms for 3000000ns).
pub fn unsearched(
    base: &str,
    start: &BTreeMap<String, String>,
    reference: &BTreeMap<String, String>,
    searched: &[(String, String)],
) -> Vec<Unsearched> {
    // A drive as built, without the account of where its values came from.
    let built = |spec: &str| {
        sim::resolve(spec).ok().map(|mut cfg| {
            cfg.sources.clear();
            cfg.facts.clear();
            cfg
        })
    };
    let start_drive = built(base);
    reference
        .iter()
        .filter(|(k, _)| *k != "capacity" && !searched.iter().any(|(s, _)| s == *k))
        .filter(|(k, v)| start.get(*k) != Some(*v))
        .filter(|(k, v)| built(&format!("{base},{k}={v}")) != start_drive)
        .map(|(k, v)| Unsearched {
            key: k.clone(),
            start: start.get(k).cloned().unwrap_or_default(),
            reference: v.clone(),
        })
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
            .to_string()
            .contains("--reference no-such-drive"));
    }

    #[test]
    fn a_reference_outside_the_space_is_named_unless_it_ignores_the_key() {
        use crate::fit::space::{Space, DEFAULT_PARAMS};
        let start = values("default,capacity=2GiB").unwrap();
        let space = Space::new(DEFAULT_PARAMS, &start, 2 << 30, &["consistency"]);
        let searched = space.overrides(&space.origin());
        let outside = |drive: &str| -> Vec<String> {
            let reference = values(drive).unwrap();
            let spec = format!("default,capacity=2GiB,{drive}");
            outside(&[&space], &reference, &searched, &spec)
                .into_iter()
                .map(|o| format!("{} {}", o.key, o.reference))
                .collect()
        };
        // Bursts as a share of the free space: blocks are what the space moves.
        assert_eq!(outside("gc_style=bursty,gc_burst=0.6%"), ["gc_burst 0.6%"]);
        // Latency-first GC reads no burst: its bursts' values are no drive's.
        assert!(outside("gc_style=latency-first,gc_burst=0.6%,gc_jitter=0%").is_empty());
    }

    #[test]
    fn the_keys_not_searched_that_make_another_drive_are_named() {
        let base = "default,capacity=2GiB";
        let start = values(base).unwrap();
        let reference = values("default,capacity=4GiB,page_size=8KiB,op=9%,t_erase=3ms").unwrap();
        let searched = [("op".to_string(), "7%".to_string())];
        let keys: Vec<String> = unsearched(base, &start, &reference, &searched)
            .into_iter()
            .map(|u| format!("{} {} {}", u.key, u.start, u.reference))
            .collect();
        // Not op (searched), nor capacity (the target's), nor t_erase (the start's value).
        assert_eq!(keys, ["page_size 16KiB 8KiB"]);
    }
}
