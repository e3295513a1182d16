//! The verify block format: every verify unit (4 KiB, or less when an IO is smaller) of a
//! verified write starts with a 32-byte header, and the rest is the run's usual data (fresh
//! random bytes: still incompressible). Little-endian:
//!
//! | bytes  | field |
//! |--------|-------|
//! | 0..4   | magic `SSDV` |
//! | 4..8   | crc32c of the whole unit but these four bytes |
//! | 8..16  | the unit's byte offset on the device |
//! | 16..24 | the run's seed |
//! | 24..28 | write generation (one per write IO, from 1; every unit of an IO has the same) |
//! | 28..32 | the unit's length in bytes |
//!
//! As fio's `verify=crc32c` header, it says where the data belongs and which write put it
//! there, so a read-back tells a misdirected write from a lost one from a flipped bit.

pub const MAGIC: [u8; 4] = *b"SSDV";
pub const HEADER_BYTES: usize = 32;

/// What a header says about its unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub offset: u64,
    pub seed: u64,
    pub generation: u32,
    pub len: u32,
}

/// What a unit read back holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// A well-formed block (magic, length and checksum right): whose it is is in the header.
    Intact(Header),
    /// A header that belongs to this run or this unit, but a checksum that does not match:
    /// the data changed after it was written (a bit flip, corruption).
    Corrupt(Header),
    /// Nothing but zero bytes.
    Zeroes,
    /// No verify header: data this run did not write.
    Garbage,
}

/// Write the header of one unit over the start of `unit` (which holds its data already).
#[inline]
pub fn stamp(unit: &mut [u8], offset: u64, seed: u64, generation: u32) {
    debug_assert!(unit.len() >= HEADER_BYTES);
    unit[0..4].copy_from_slice(&MAGIC);
    unit[8..16].copy_from_slice(&offset.to_le_bytes());
    unit[16..24].copy_from_slice(&seed.to_le_bytes());
    unit[24..28].copy_from_slice(&generation.to_le_bytes());
    let len = unit.len() as u32;
    unit[28..32].copy_from_slice(&len.to_le_bytes());
    let crc = checksum(unit);
    unit[4..8].copy_from_slice(&crc.to_le_bytes());
}

/// crc32c over the unit, skipping the checksum field itself.
#[inline]
fn checksum(unit: &[u8]) -> u32 {
    crc32c::crc32c_append(crc32c::crc32c(&unit[..4]), &unit[8..])
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

pub fn header(unit: &[u8]) -> Header {
    Header {
        offset: u64_at(unit, 8),
        seed: u64_at(unit, 16),
        generation: u32_at(unit, 24),
        len: u32_at(unit, 28),
    }
}

/// Inspect a unit read back from `offset` in a run seeded `seed`. A header whose magic is
/// damaged still counts as this run's (corrupt) when its offset or seed is right, so a bit
/// flip anywhere in the unit shows as corruption.
pub fn inspect(unit: &[u8], offset: u64, seed: u64) -> Found {
    let h = header(unit);
    let magic = unit[0..4] == MAGIC;
    let sums = || u32_at(unit, 4) == checksum(unit);
    if magic && h.len as usize == unit.len() && sums() {
        return Found::Intact(h);
    }
    if unit.iter().all(|&b| b == 0) {
        return Found::Zeroes;
    }
    if magic || h.offset == offset || h.seed == seed {
        return Found::Corrupt(h);
    }
    Found::Garbage
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::Rng;

    fn block(len: usize, offset: u64, seed: u64, generation: u32) -> Vec<u8> {
        let mut b = vec![0u8; len];
        Rng::new(offset ^ seed).fill(&mut b);
        stamp(&mut b, offset, seed, generation);
        b
    }

    #[test]
    fn a_flip_anywhere_is_corruption_and_zeroes_are_zeroes() {
        let b = block(4096, 8192, 7, 3);
        let h = Header {
            offset: 8192,
            seed: 7,
            generation: 3,
            len: 4096,
        };
        assert_eq!(inspect(&b, 8192, 7), Found::Intact(h));
        for byte in [0, 3, 5, 9, 17, 25, 29, 31, 32, 4095] {
            let mut c = b.clone();
            c[byte] ^= 0x10;
            assert!(
                matches!(inspect(&c, 8192, 7), Found::Corrupt(_)),
                "flip at byte {byte}"
            );
        }
        assert_eq!(inspect(&[0u8; 4096], 0, 7), Found::Zeroes);
        let mut other = vec![0u8; 4096];
        Rng::new(1).fill(&mut other);
        assert_eq!(inspect(&other, 8192, 7), Found::Garbage);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 256,
            failure_persistence: None,
            ..Default::default()
        })]

        /// A stamped unit reads back as exactly what was stamped, whatever its size, place,
        /// seed and generation; one flipped bit anywhere makes it corrupt.
        #[test]
        fn stamped_units_round_trip_and_any_flip_is_caught(
            len in proptest::sample::select(vec![512usize, 1024, 2048, 4096]),
            offset in 0u64..1 << 50,
            seed in proptest::prelude::any::<u64>(),
            generation in 1u32..u32::MAX,
            bit in 0usize..4096 * 8,
        ) {
            let b = block(len, offset, seed, generation);
            let want = Header { offset, seed, generation, len: len as u32 };
            proptest::prop_assert_eq!(inspect(&b, offset, seed), Found::Intact(want));
            let mut c = b.clone();
            let bit = bit % (len * 8);
            c[bit / 8] ^= 1 << (bit % 8);
            proptest::prop_assert!(matches!(inspect(&c, offset, seed), Found::Corrupt(_)));
        }
    }
}
