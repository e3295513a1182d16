//! IDENTIFY DEVICE (ECh), ACS-3 / ACS-4 §7.12 and table 45: 256 little-endian words.

use std::os::fd::BorrowedFd;

use serde::{Deserialize, Serialize};

use super::passthru::{ata_command, Data, Taskfile};
use crate::bytes::ascii;
use crate::error::{fixed, Error, ParseError, Result};

pub const IDENTIFY_LEN: usize = 512;

/// Security feature set state (word 128) and erase time estimates (words 89, 90).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Security {
    pub supported: bool,
    pub enabled: bool,
    pub locked: bool,
    pub frozen: bool,
    pub count_expired: bool,
    pub enhanced_erase_supported: bool,
    /// Minutes the drive estimates for SECURITY ERASE UNIT, normal / enhanced; None when not
    /// reported. A value at the top of the field's range means "more than" that.
    pub erase_minutes: Option<u32>,
    pub enhanced_erase_minutes: Option<u32>,
}

/// Sanitize feature set (word 59 bits 15:12).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Sanitize {
    pub supported: bool,
    pub crypto_scramble: bool,
    pub overwrite: bool,
    pub block_erase: bool,
}

/// SATA link generations and power management (words 76-79).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Sata {
    /// Highest generation supported: 1 (1.5 Gb/s), 2 (3.0), 3 (6.0); None if not SATA.
    pub max_gen: Option<u8>,
    /// The negotiated generation (word 77 bits 3:1), None when not reported.
    pub current_gen: Option<u8>,
    pub ncq: bool,
    /// NCQ queue depth (word 75 bits 4:0, plus one).
    pub queue_depth: u8,
    /// Host- and device-initiated link power management.
    pub hipm_supported: bool,
    pub dipm_supported: bool,
    pub dipm_enabled: bool,
    pub devsleep_supported: bool,
}

impl Sata {
    /// Link speed in Gb/s of a generation.
    pub fn gbps(gen: u8) -> Option<f64> {
        match gen {
            1 => Some(1.5),
            2 => Some(3.0),
            3 => Some(6.0),
            _ => None,
        }
    }
}

/// IDENTIFY DEVICE data, decoded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IdentifyDevice {
    pub model: String,
    pub serial: String,
    pub firmware: String,
    /// User-addressable logical sectors (words 100-103 when 48-bit addressing is supported,
    /// else words 60-61).
    pub sectors: u64,
    pub logical_sector_size: u32,
    pub physical_sector_size: u32,
    pub trim: bool,
    /// Reads after TRIM are deterministic (word 69 bit 14) / return zeroes (bit 5).
    pub deterministic_read_after_trim: bool,
    pub zeroes_after_trim: bool,
    pub security: Security,
    pub sanitize: Sanitize,
    pub sata: Sata,
    /// Nominal media rotation rate: Some(0) for a non-rotating (solid state) device, rpm
    /// for a disk, None when not reported.
    pub rotation_rpm: Option<u16>,
    pub smart_supported: bool,
    pub smart_enabled: bool,
    pub write_cache_supported: bool,
    pub write_cache_enabled: bool,
    /// Word 255's checksum was present and wrong: the data may be corrupt.
    pub checksum_bad: bool,
}

/// An ATA string: two characters per word, the first in the high byte.
fn ata_string(words: &[u16]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
    ascii(&bytes)
}

/// Words 89 / 90: bit 15 set: extended format, bits 14:0 in 2-minute units; else bits 7:0 in
/// 2-minute units. 0: not reported.
fn erase_time(w: u16) -> Option<u32> {
    let units = if w & 0x8000 != 0 {
        w & 0x7FFF
    } else {
        w & 0xFF
    };
    (units != 0).then(|| u32::from(units) * 2)
}

impl IdentifyDevice {
    pub fn parse(data: &[u8]) -> Result<Self, ParseError> {
        let b: &[u8; IDENTIFY_LEN] = fixed("IDENTIFY DEVICE", data)?;
        let mut w = [0u16; 256];
        for (i, word) in w.iter_mut().enumerate() {
            *word = u16::from_le_bytes([b[2 * i], b[2 * i + 1]]);
        }
        let bit = |word: usize, n: u32| (w[word] >> n) & 1 == 1;
        // Words whose bit 15:14 must read 01b to be valid (ACS: 83, 84, 86 bit 15, 87, 106...).
        let valid = |word: usize| w[word] & 0xC000 == 0x4000;

        let lba48 = bit(83, 10) && valid(83);
        let sectors = if lba48 {
            u64::from(w[100])
                | u64::from(w[101]) << 16
                | u64::from(w[102]) << 32
                | u64::from(w[103]) << 48
        } else {
            u64::from(w[60]) | u64::from(w[61]) << 16
        };
        let mut logical_sector_size = 512u32;
        let mut physical_sector_size = 512u32;
        if valid(106) {
            if bit(106, 12) {
                let words = u32::from(w[117]) | u32::from(w[118]) << 16;
                if words >= 256 {
                    logical_sector_size = words.saturating_mul(2);
                }
            }
            physical_sector_size = logical_sector_size;
            if bit(106, 13) {
                physical_sector_size = logical_sector_size.saturating_mul(1 << (w[106] & 0xF));
            }
        }
        // Word 76 is 0000h or FFFFh on a device that is not SATA.
        let is_sata = w[76] != 0 && w[76] != 0xFFFF;
        let max_gen = (1..=3u8).rev().find(|&g| is_sata && bit(76, u32::from(g)));
        let current = ((w[77] >> 1) & 0x7) as u8;
        let rotation = w[217];
        let checksum_bad =
            w[255] & 0xFF == 0xA5 && b.iter().fold(0u8, |s, &x| s.wrapping_add(x)) != 0;
        Ok(IdentifyDevice {
            serial: ata_string(&w[10..20]),
            firmware: ata_string(&w[23..27]),
            model: ata_string(&w[27..47]),
            sectors,
            logical_sector_size,
            physical_sector_size,
            trim: bit(169, 0),
            deterministic_read_after_trim: bit(69, 14),
            zeroes_after_trim: bit(69, 5),
            security: Security {
                supported: bit(128, 0),
                enabled: bit(128, 1),
                locked: bit(128, 2),
                frozen: bit(128, 3),
                count_expired: bit(128, 4),
                enhanced_erase_supported: bit(128, 5),
                erase_minutes: erase_time(w[89]),
                enhanced_erase_minutes: erase_time(w[90]),
            },
            sanitize: Sanitize {
                supported: bit(59, 12),
                crypto_scramble: bit(59, 13),
                overwrite: bit(59, 14),
                block_erase: bit(59, 15),
            },
            sata: Sata {
                max_gen,
                current_gen: (is_sata && (1..=3).contains(&current)).then_some(current),
                ncq: is_sata && bit(76, 8),
                queue_depth: (w[75] & 0x1F) as u8 + 1,
                hipm_supported: is_sata && bit(76, 9),
                dipm_supported: valid_sata_features(w[78]) && bit(78, 3),
                dipm_enabled: valid_sata_features(w[79]) && bit(79, 3),
                devsleep_supported: valid_sata_features(w[78]) && bit(78, 8),
            },
            rotation_rpm: match rotation {
                1 => Some(0),
                0x0401..=0xFFFE => Some(rotation),
                _ => None,
            },
            smart_supported: valid(83) && bit(82, 0),
            smart_enabled: bit(85, 0),
            write_cache_supported: bit(82, 5),
            write_cache_enabled: bit(85, 5),
            checksum_bad,
        })
    }

    pub fn capacity_bytes(&self) -> u64 {
        self.sectors
            .saturating_mul(u64::from(self.logical_sector_size))
    }

    pub fn solid_state(&self) -> bool {
        self.rotation_rpm == Some(0)
    }
}

/// Words 78 / 79 are valid when neither 0000h nor FFFFh.
fn valid_sata_features(w: u16) -> bool {
    w != 0 && w != 0xFFFF
}

/// IDENTIFY DEVICE.
pub fn identify_device(fd: BorrowedFd<'_>) -> Result<IdentifyDevice> {
    const NAME: &str = "IDENTIFY DEVICE";
    let mut buf = vec![0u8; IDENTIFY_LEN];
    let tf = Taskfile {
        command: 0xEC,
        count: 1,
        ..Default::default()
    };
    ata_command(fd, NAME, &tf, Data::In(&mut buf), false, false, 10_000)?;
    IdentifyDevice::parse(&buf).map_err(|source| Error::Parse {
        command: NAME,
        source,
    })
}

#[cfg(test)]
pub(crate) mod fixtures {
    /// IDENTIFY data as 256 words; strings stored two characters per word, first in the
    /// high byte, as ACS specifies.
    pub struct Words(pub [u16; 256]);

    impl Words {
        pub fn string(&mut self, word: usize, len_words: usize, s: &str) {
            let mut bytes = vec![b' '; len_words * 2];
            bytes[..s.len()].copy_from_slice(s.as_bytes());
            for i in 0..len_words {
                self.0[word + i] = u16::from_be_bytes([bytes[2 * i], bytes[2 * i + 1]]);
            }
        }

        /// The 512 bytes, with word 255's signature and checksum.
        pub fn bytes(&self) -> Vec<u8> {
            let mut b: Vec<u8> = self.0.iter().flat_map(|w| w.to_le_bytes()).collect();
            b[510] = 0xA5;
            let sum = b[..511].iter().fold(0u8, |s, &x| s.wrapping_add(x));
            b[511] = 0u8.wrapping_sub(sum);
            b
        }
    }

    /// A 1 TB SATA SSD: 512e (4 KiB physical), TRIM with zeroes, security not frozen,
    /// sanitize block erase + crypto, SATA 6 Gb/s at 6 Gb/s, NCQ 32.
    pub fn ssd() -> Words {
        let mut w = Words([0; 256]);
        w.string(10, 10, "S3Z9NB0K123456A");
        w.string(23, 4, "RVT04B6Q");
        w.string(27, 20, "Samsung SSD 860 EVO 1TB");
        w.0[59] = 0b1011 << 12; // sanitize, crypto, block erase (no overwrite)
        w.0[60] = 0xFFFF;
        w.0[61] = 0x0FFF;
        w.0[69] = 1 << 14 | 1 << 5;
        w.0[75] = 31;
        w.0[76] = 1 << 9 | 1 << 8 | 0b1110;
        w.0[77] = 3 << 1;
        w.0[78] = 1 << 3 | 1 << 8;
        w.0[79] = 1 << 3;
        w.0[82] = 1 << 5 | 1;
        w.0[83] = 0x4000 | 1 << 10;
        w.0[85] = 1 << 5 | 1;
        w.0[89] = 1; // 2 minutes
        w.0[90] = 0x8000 | 4; // extended format: 8 minutes
        let sectors: u64 = 1_953_525_168;
        for i in 0..4 {
            w.0[100 + i] = (sectors >> (16 * i)) as u16;
        }
        w.0[106] = 0x4000 | 1 << 13 | 3; // 8 logical per physical
        w.0[128] = 1 | 1 << 5; // supported, enhanced erase; not enabled, not frozen
        w.0[169] = 1;
        w.0[217] = 1;
        w
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::*;
    use super::*;

    #[test]
    fn ssd_fields() {
        let d = IdentifyDevice::parse(&ssd().bytes()).unwrap();
        assert_eq!(d.model, "Samsung SSD 860 EVO 1TB");
        assert_eq!(d.serial, "S3Z9NB0K123456A");
        assert_eq!(d.firmware, "RVT04B6Q");
        assert_eq!(d.sectors, 1_953_525_168);
        assert_eq!((d.logical_sector_size, d.physical_sector_size), (512, 4096));
        assert_eq!(d.capacity_bytes(), 1_000_204_886_016);
        assert!(d.trim && d.deterministic_read_after_trim && d.zeroes_after_trim);
        assert_eq!(
            d.security,
            Security {
                supported: true,
                enhanced_erase_supported: true,
                erase_minutes: Some(2),
                enhanced_erase_minutes: Some(8),
                ..Security::default()
            }
        );
        assert_eq!(
            d.sanitize,
            Sanitize {
                supported: true,
                crypto_scramble: true,
                overwrite: false,
                block_erase: true
            }
        );
        assert_eq!(d.sata.max_gen, Some(3));
        assert_eq!(d.sata.current_gen, Some(3));
        assert_eq!(Sata::gbps(3), Some(6.0));
        assert!(
            d.sata.ncq && d.sata.hipm_supported && d.sata.dipm_supported && d.sata.dipm_enabled
        );
        assert!(d.sata.devsleep_supported);
        assert_eq!(d.sata.queue_depth, 32);
        assert_eq!(d.rotation_rpm, Some(0));
        assert!(d.solid_state());
        assert!(
            d.smart_supported
                && d.smart_enabled
                && d.write_cache_supported
                && d.write_cache_enabled
        );
        assert!(!d.checksum_bad);
    }

    #[test]
    fn strings_are_byte_swapped_per_word() {
        let mut w = Words([0; 256]);
        // "AB" in one word: 'A' in the high byte, so the little-endian bytes are B, A.
        w.0[27] = 0x4142;
        let b = w.bytes();
        assert_eq!(&b[54..56], b"BA");
        assert_eq!(IdentifyDevice::parse(&b).unwrap().model, "AB");
    }

    #[test]
    fn a_bad_checksum_is_flagged() {
        let mut b = ssd().bytes();
        b[200] ^= 1;
        assert!(IdentifyDevice::parse(&b).unwrap().checksum_bad);
    }

    #[test]
    fn frozen_disk_with_4k_native_sectors_and_no_sata_words() {
        let mut w = ssd();
        w.0[76] = 0xFFFF;
        w.0[77] = 0;
        w.0[78] = 0;
        w.0[79] = 0;
        w.0[83] = 0x4000; // no 48-bit: words 60-61
        w.0[106] = 0x4000 | 1 << 12;
        w.0[117] = 2048; // words per logical sector: 4096 bytes
        w.0[128] = 1 | 1 << 1 | 1 << 3;
        w.0[89] = 0xFF;
        w.0[217] = 7200;
        let d = IdentifyDevice::parse(&w.bytes()).unwrap();
        assert_eq!(d.sectors, 0x0FFF_FFFF);
        assert_eq!(
            (d.logical_sector_size, d.physical_sector_size),
            (4096, 4096)
        );
        assert!(d.security.enabled && d.security.frozen && !d.security.locked);
        assert_eq!(d.security.erase_minutes, Some(510));
        assert_eq!(d.sata.max_gen, None);
        assert_eq!(d.sata.current_gen, None);
        assert!(!d.sata.ncq && !d.sata.dipm_supported);
        assert_eq!(d.rotation_rpm, Some(7200));
    }
}
