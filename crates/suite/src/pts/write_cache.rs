//! The write cache a PTS variant asks for (PTS-E: off where the drive allows; PTS-C: on), set
//! on the drive before a PTS test and put back after it, and what was done recorded with
//! the result: the spec's report header states it.

use serde::{Deserialize, Serialize};

use engine::Device;

use super::PtsVariant;

/// What a PTS test found, set and put back of the drive's volatile write cache.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WriteCacheRecord {
    /// On or off as found; `None`: the drive has none, or it could not be told (`note`).
    pub found: Option<bool>,
    /// What it was switched to for the test (`None`: left as found).
    pub set: Option<bool>,
    /// Whether a switched cache was put back as found.
    pub restored: bool,
    /// Why it could not be told, set or put back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl WriteCacheRecord {
    /// Switch the cache as `variant` asks, when the drive has one and it differs.
    pub fn set_for(dev: &mut dyn Device, variant: PtsVariant) -> WriteCacheRecord {
        let want = variant == PtsVariant::Client;
        let mut record = WriteCacheRecord {
            found: None,
            set: None,
            restored: true,
            note: None,
        };
        match dev.write_cache() {
            Err(why) => record.note = Some(why.to_string()),
            Ok(None) => record.note = Some("the drive has no volatile write cache".into()),
            Ok(Some(on)) => {
                record.found = Some(on);
                if on != want {
                    match dev.set_write_cache(want) {
                        Ok(()) => (record.set, record.restored) = (Some(want), false),
                        Err(e) => record.note = Some(format!("cannot switch it: {e}")),
                    }
                }
            }
        }
        record
    }

    /// Put a switched cache back as found.
    pub fn restore(&mut self, dev: &mut dyn Device) {
        let (Some(_), Some(found)) = (self.set, self.found) else {
            return;
        };
        match dev.set_write_cache(found) {
            Ok(()) => self.restored = true,
            Err(e) => {
                self.note = Some(format!(
                    "could not switch the write cache back {}: {e}; do it by hand (nvme \
                     set-feature -f 6 -v {v}, or hdparm -W{v})",
                    if found { "on" } else { "off" },
                    v = u8::from(found)
                ))
            }
        }
    }

    /// Whether the test ran with the cache on (`None`: not known).
    pub fn on_during_test(&self) -> Option<bool> {
        self.set.or(self.found)
    }

    /// What a report header says of it.
    pub fn describe(&self) -> String {
        let state = |on: bool| if on { "enabled" } else { "disabled" };
        match (self.set, self.found) {
            (Some(set), _) => format!(
                "{} for the test ({} before{})",
                state(set),
                state(!set),
                if self.restored {
                    ", put back after"
                } else {
                    ", NOT put back"
                }
            ),
            (None, Some(found)) => format!("{} (as found)", state(found)),
            (None, None) => format!("not known: {}", self.note.as_deref().unwrap_or("not read")),
        }
    }

    /// Where the test departs from what `variant` asks: the deviation, if any.
    pub fn deviation(&self, variant: PtsVariant) -> Option<String> {
        let want = variant == PtsVariant::Client;
        match self.on_during_test() {
            Some(on) if on == want => None,
            Some(on) => Some(format!(
                "the write cache was {} ({}); PTS-{} asks for it {}",
                if on { "on" } else { "off" },
                self.note.as_deref().unwrap_or("left as found"),
                variant.letter(),
                variant.write_cache()
            )),
            None if want => None,
            None => Some(format!(
                "the write cache was left as the drive has it ({}); PTS-E asks for it {}",
                self.note.as_deref().unwrap_or("not known"),
                variant.write_cache()
            )),
        }
    }
}
