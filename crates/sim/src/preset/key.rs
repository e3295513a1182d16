//! A key's record: everything ssdlab knows of one `key=value` override (what it means, its
//! physical range, its default, how it sets a configuration) in one place, as fio's
//! `options.c` has one record per option. The records themselves are [`super::KEYS`].

use super::keys::KEYS;
use crate::config::Config;
use crate::error::KeyError;
use crate::range::{Quantity, Range};

/// What a key does to a configuration given its value (trimmed).
type Setter = fn(&mut Config, &Key, &str) -> Result<(), KeyError>;

/// The keys a key resets to what it implies, with their values, as `ssdlab sim show`
/// reports them.
type Resets = fn(&Config) -> Vec<(&'static str, String)>;

/// One override key.
pub struct Key {
    pub name: &'static str,
    /// What the key means, with an example of its value.
    pub help: &'static str,
    /// The value every preset starts from (the spec language's, so `ssdlab sim show` can say
    /// where it came from); `None` for a key whose default another key implies.
    pub base: Option<&'static str>,
    /// An older name the key is also set by.
    alias: Option<&'static str>,
    /// The ranges of the quantities the key takes, the first its own: at most two
    /// (`gc_burst` takes a block count or a share). None for a name, a switch or a list.
    ranges: [Option<Range>; 2],
    /// What a bare number is in, as a multiple of the range's unit (`e_read=4` is 4 uJ).
    bare: f64,
    set: Setter,
    /// The keys it resets (`cell` resets the NAND latencies): an override of it goes first.
    pub(super) resets: Option<Resets>,
    /// The reviewed-hardware fact (`drives::FACT_KEYS`) an override of it makes untrue of
    /// the simulated drive.
    pub(super) fact: Option<&'static str>,
}

impl Key {
    pub(super) const fn new(name: &'static str, help: &'static str, set: Setter) -> Key {
        Key {
            name,
            help,
            base: None,
            alias: None,
            ranges: [None, None],
            bare: 1.0,
            set,
            resets: None,
            fact: None,
        }
    }

    pub(super) const fn resets(self, resets: Resets) -> Key {
        Key {
            resets: Some(resets),
            ..self
        }
    }

    pub(super) const fn voids_fact(self, fact: &'static str) -> Key {
        Key {
            fact: Some(fact),
            ..self
        }
    }

    /// Whether setting the key resets others, so that an override of it goes first.
    pub fn resets_others(&self) -> bool {
        self.resets.is_some()
    }

    pub(super) const fn base(self, value: &'static str) -> Key {
        Key {
            base: Some(value),
            ..self
        }
    }

    pub(super) const fn alias(self, name: &'static str) -> Key {
        Key {
            alias: Some(name),
            ..self
        }
    }

    /// The key takes a `quantity` from `min` to `max` (in the unit the configuration holds
    /// it in), because `why`.
    pub(super) const fn range(
        mut self,
        quantity: Quantity,
        min: f64,
        max: f64,
        why: &'static str,
    ) -> Key {
        let range = Some(Range::new(self.name, quantity, min, max, why));
        if self.ranges[0].is_none() {
            self.ranges[0] = range;
        } else {
            self.ranges[1] = range;
        }
        self
    }

    /// The key's (first) range says `what` a value of 0 would do.
    pub(super) const fn when_zero(mut self, what: &'static str) -> Key {
        if let Some(range) = self.ranges[0] {
            self.ranges[0] = Some(range.when_zero(what));
        }
        self
    }

    pub(super) const fn bare(self, scale: f64) -> Key {
        Key {
            bare: scale,
            ..self
        }
    }

    /// The ranges of the quantities the key takes, its own first.
    pub fn ranges(&self) -> impl Iterator<Item = &Range> {
        self.ranges.iter().flatten()
    }

    /// The quantity a numeric key holds (the first, for `gc_burst`'s two).
    pub fn quantity(&self) -> Option<Quantity> {
        self.ranges().next().map(|r| r.quantity)
    }

    /// The key's range for `quantity`.
    pub(super) fn range_of(&self, quantity: Quantity) -> Option<&Range> {
        self.ranges().find(|r| r.quantity == quantity)
    }

    /// What a bare number is in, as a multiple of the range's unit.
    pub(super) fn bare_scale(&self) -> f64 {
        self.bare
    }

    /// Set the key to `value` (trimmed) on `cfg`.
    pub(super) fn set(&self, cfg: &mut Config, value: &str) -> Result<(), KeyError> {
        (self.set)(cfg, self, value)
    }

    fn is_called(&self, name: &str) -> bool {
        self.name == name || self.alias == Some(name)
    }
}

/// The key called `name` (or by its older name).
pub fn key(name: &str) -> Option<&'static Key> {
    KEYS.iter().find(|k| k.is_called(name))
}

/// The key named exactly `name`, no alias: what a parameter search reads and writes.
pub(super) fn own_key(name: &str) -> Option<&'static Key> {
    KEYS.iter().find(|k| k.name == name)
}

/// Every numeric key's ranges, in the keys' order.
pub fn ranges() -> impl Iterator<Item = &'static Range> {
    KEYS.iter().flat_map(Key::ranges)
}

/// The keys' names, as messages list them.
pub(crate) fn key_names() -> String {
    KEYS.iter().map(|k| k.name).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preset::{apply, preset};

    fn names() -> impl Iterator<Item = &'static str> {
        KEYS.iter()
            .flat_map(|k| std::iter::once(k.name).chain(k.alias))
    }

    #[test]
    fn every_key_is_called_by_names_of_its_own_and_explained() {
        let mut seen = std::collections::BTreeSet::new();
        for name in names() {
            assert!(seen.insert(name), "{name} names two keys");
        }
        for k in KEYS {
            assert!(!k.help.trim().is_empty(), "{}", k.name);
        }
    }

    #[test]
    fn every_key_takes_its_base_value() {
        for k in KEYS {
            if let Some(base) = k.base {
                let mut cfg = preset("default").unwrap();
                apply(&mut cfg, k.name, base).unwrap_or_else(|e| panic!("{e}"));
            }
        }
    }

    /// A value no key takes is refused with a message that starts with the key's name.
    #[test]
    fn every_key_refuses_nonsense_naming_itself() {
        for k in KEYS {
            for name in std::iter::once(k.name).chain(k.alias) {
                let mut cfg = preset("default").unwrap();
                let e = apply(&mut cfg, name, "nonsense!").unwrap_err().to_string();
                let own = format!("{}=", k.name);
                let size = format!("{}:", k.name);
                assert!(e.starts_with(&own) || e.starts_with(&size), "{name}: {e}");
            }
        }
    }

    #[test]
    fn an_older_name_sets_its_key() {
        let (k, alias) = KEYS
            .iter()
            .find_map(|k| Some((k, k.alias?)))
            .expect("a key with an older name");
        let mut old = preset("default").unwrap();
        let mut new = preset("default").unwrap();
        apply(&mut old, alias, "3").unwrap();
        apply(&mut new, k.name, "3").unwrap();
        old.sources.clear();
        new.sources.clear();
        assert_eq!(old, new);
        assert_ne!(
            old,
            preset("default")
                .map(|mut c| {
                    c.sources.clear();
                    c
                })
                .unwrap()
        );
    }

    /// What a key resets are keys that reset nothing themselves (so that applying the
    /// resetting keys first is enough), and a fact it voids is a drive fact.
    #[test]
    fn what_a_key_resets_or_voids_exists() {
        let cfg = preset("default").unwrap();
        for k in KEYS {
            for (reset, _) in k.resets.map(|r| r(&cfg)).unwrap_or_default() {
                let other = key(reset).unwrap_or_else(|| panic!("{}: {reset}", k.name));
                assert!(!other.resets_others(), "{}: {reset}", k.name);
            }
            if let Some(fact) = k.fact {
                assert!(crate::drives::FACT_KEYS.contains(&fact), "{}", k.name);
            }
        }
    }
}
