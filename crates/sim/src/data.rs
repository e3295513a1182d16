//! The data a drive in data mode returns. `data=stamp` stores nothing: a mapped 4 KiB unit
//! reads as a stamp of its LBA, an unmapped one as zeroes. `data=on` keeps what is written,
//! per written 4 KiB unit, over the stamps; the FTL's mapping still decides what is unmapped,
//! so TRIM and secure erase behave as in stamp mode. Injected faults ([`crate::faults`]) act
//! here, on the kept data only.

use std::collections::HashMap;

use crate::ftl::Ftl;
use crate::geometry::UNIT_BYTES;
use crate::mapping::UNMAPPED;

const UNIT: usize = UNIT_BYTES as usize;

/// The stamp a mapped 4 KiB unit reads back as when nothing is kept for it: every
/// little-endian u64 word is this value. Never zero, so it cannot be mistaken for an unmapped
/// unit.
pub fn lba_stamp(unit: u64) -> u64 {
    (unit + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1
}

/// Data kept per written 4 KiB unit (by unit number).
#[derive(Default)]
pub(crate) struct DataStore {
    units: HashMap<u64, Box<[u8]>>,
}

/// Whether the FTL maps the 4 KiB unit `unit`.
fn mapped(ftl: &Ftl, unit: u64) -> bool {
    let map_unit = ftl.layout().unit_bytes;
    ftl.lookup((unit * UNIT_BYTES / map_unit) as u32) != UNMAPPED
}

/// What a unit reads as: zeroes when unmapped, its kept data, else its stamp. `kept` is the
/// store in `data=on`, `None` in stamp mode.
pub(crate) fn read_unit(
    ftl: &Ftl,
    kept: Option<&DataStore>,
    unit: u64,
    out: &mut [u8],
    from: usize,
) {
    if !mapped(ftl, unit) {
        out.fill(0);
    } else if let Some(data) = kept.and_then(|s| s.units.get(&unit)) {
        out.copy_from_slice(&data[from..from + out.len()]);
    } else {
        let word = lba_stamp(unit).to_le_bytes();
        for (i, byte) in out.iter_mut().enumerate() {
            *byte = word[(from + i) % 8];
        }
    }
}

/// Fill `buf` with what `offset..offset+buf.len()` reads as.
pub(crate) fn read(ftl: &Ftl, kept: Option<&DataStore>, offset: u64, buf: &mut [u8]) {
    let end = offset + buf.len() as u64;
    let mut at = offset;
    while at < end {
        let unit = at / UNIT_BYTES;
        let stop = ((unit + 1) * UNIT_BYTES).min(end);
        let from = (at - unit * UNIT_BYTES) as usize;
        let chunk = &mut buf[(at - offset) as usize..(stop - offset) as usize];
        read_unit(ftl, kept, unit, chunk, from);
        at = stop;
    }
}

impl DataStore {
    pub fn clear(&mut self) {
        self.units.clear();
    }

    /// Units kept.
    pub fn len(&self) -> usize {
        self.units.len()
    }

    /// Keep what `offset..offset+len` reads as now, so a later change to the FTL's mapping
    /// (the write about to happen) does not change it: a lost write's target keeps its data.
    pub fn freeze(&mut self, ftl: &Ftl, offset: u64, len: u64) {
        for unit in offset / UNIT_BYTES..(offset + len).div_ceil(UNIT_BYTES) {
            let mut data = vec![0u8; UNIT].into_boxed_slice();
            read_unit(ftl, Some(self), unit, &mut data, 0);
            self.units.insert(unit, data);
        }
    }

    /// Keep `data` as the contents of `offset..offset+data.len()` (capped at `capacity`).
    /// A unit written in part keeps the rest of what it read as before.
    pub fn write(&mut self, ftl: &Ftl, offset: u64, data: &[u8], capacity: u64) {
        let end = (offset + data.len() as u64).min(capacity);
        let mut at = offset;
        while at < end {
            let unit = at / UNIT_BYTES;
            let stop = ((unit + 1) * UNIT_BYTES).min(end);
            let src = &data[(at - offset) as usize..(stop - offset) as usize];
            let from = (at - unit * UNIT_BYTES) as usize;
            if src.len() == UNIT {
                match self.units.get_mut(&unit) {
                    Some(kept) => kept.copy_from_slice(src),
                    None => {
                        self.units.insert(unit, src.into());
                    }
                }
            } else {
                if !self.units.contains_key(&unit) {
                    self.freeze(ftl, unit * UNIT_BYTES, UNIT_BYTES);
                }
                let kept = self.units.get_mut(&unit).expect("frozen");
                kept[from..from + src.len()].copy_from_slice(src);
            }
            at = stop;
        }
    }

    /// Flip one bit of the kept byte at `byte` (which was just written).
    pub fn flip(&mut self, byte: u64, bit: u8) {
        if let Some(kept) = self.units.get_mut(&(byte / UNIT_BYTES)) {
            kept[(byte % UNIT_BYTES) as usize] ^= 1 << bit;
        }
    }

    /// Forget units the FTL no longer maps (after a discard): they read as zeroes anyway,
    /// and must not come back if a partial write maps them again.
    pub fn drop_unmapped(&mut self, ftl: &Ftl, offset: u64, len: u64) {
        let units = offset / UNIT_BYTES..(offset + len).div_ceil(UNIT_BYTES);
        if units.end - units.start > self.units.len() as u64 {
            self.units
                .retain(|u, _| !units.contains(u) || mapped(ftl, *u));
        } else {
            for unit in units {
                if !mapped(ftl, unit) {
                    self.units.remove(&unit);
                }
            }
        }
    }
}
