//! A key's record: everything ssdlab knows of one `key=value` override (what it means, its
//! physical range, its default, how it sets a configuration) in one place, as fio's
//! `options.c` has one record per option. The records themselves are [`super::KEYS`].

use super::keys::KEYS;
use crate::config::Config;
use crate::error::KeyError;
use crate::range::{Quantity, Range};

/// What a key does to a configuration given its value (trimmed).
type Setter = fn(&mut Config, &Key, &str) -> Result<(), KeyError>;

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
        }
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
