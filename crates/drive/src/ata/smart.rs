//! SMART READ DATA (B0h/D0h): the vendor attribute table, and the few counters a benchmark
//! needs (bytes written by the host and to the NAND), read the way each vendor defines them.
//!
//! The table layout (30 entries of 12 bytes from byte 2) is the de-facto one every SATA drive
//! uses (ATA-8 and later leave it vendor specific). What an attribute's raw value counts is up
//! to the vendor: the units here are the ones smartmontools' drive database (drivedb.h)
//! records for each family, in the attribute's name (e.g. `241 Host_Writes_32MiB`).

use std::os::fd::BorrowedFd;

use serde::{Deserialize, Serialize};

use super::passthru::{ata_command, Data, Taskfile};
use crate::bytes::{u16_at, u48_at, u8_at};
use crate::error::{fixed, Error, ParseError, Result};

pub const SMART_DATA_LEN: usize = 512;
const ENTRIES: usize = 30;

/// One vendor attribute.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attribute {
    pub id: u8,
    /// The usual name (smartmontools' default), or "Unknown_Attribute".
    pub name: String,
    pub flags: u16,
    /// Normalized current and worst values (vendor scale, usually 100 or 200 = new).
    pub current: u8,
    pub worst: u8,
    /// The 48-bit raw value, little endian.
    pub raw: u64,
}

/// The common names of attribute ids (smartmontools' defaults, SSD meanings where the HDD
/// one differs); vendors reuse ids, so a name is a hint, not a definition.
pub fn attribute_name(id: u8) -> &'static str {
    match id {
        1 => "Raw_Read_Error_Rate",
        5 => "Reallocated_Sector_Ct",
        9 => "Power_On_Hours",
        12 => "Power_Cycle_Count",
        170 => "Available_Reservd_Space",
        171 => "Program_Fail_Count",
        172 => "Erase_Fail_Count",
        173 => "Ave_Block-Erase_Count",
        174 => "Unexpect_Power_Loss_Ct",
        177 => "Wear_Leveling_Count",
        179 => "Used_Rsvd_Blk_Cnt_Tot",
        180 => "Unused_Rsvd_Blk_Cnt_Tot",
        181 => "Program_Fail_Cnt_Total",
        182 => "Erase_Fail_Count_Total",
        183 => "Runtime_Bad_Block",
        184 => "End-to-End_Error",
        187 => "Reported_Uncorrect",
        188 => "Command_Timeout",
        190 => "Airflow_Temperature_Cel",
        192 => "Power-Off_Retract_Count",
        194 => "Temperature_Celsius",
        195 => "Hardware_ECC_Recovered",
        196 => "Reallocated_Event_Count",
        197 => "Current_Pending_Sector",
        198 => "Offline_Uncorrectable",
        199 => "UDMA_CRC_Error_Count",
        202 => "Percent_Lifetime_Remain",
        231 => "SSD_Life_Left",
        232 => "Available_Reservd_Space",
        233 => "Media_Wearout_Indicator",
        241 => "Total_LBAs_Written",
        242 => "Total_LBAs_Read",
        246 => "Total_Host_Sector_Write",
        247 => "Host_Program_Page_Count",
        248 => "FTL_Program_Page_Count",
        249 => "NAND_Writes_1GiB",
        _ => "Unknown_Attribute",
    }
}

/// The SMART data structure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SmartData {
    pub revision: u16,
    pub attributes: Vec<Attribute>,
    pub offline_collection_status: u8,
    pub self_test_status: u8,
    /// Byte 511 makes the 512 bytes sum to zero; false: the data may be corrupt.
    pub checksum_ok: bool,
}

impl SmartData {
    pub fn parse(data: &[u8]) -> Result<Self, ParseError> {
        let b: &[u8; SMART_DATA_LEN] = fixed("SMART data", data)?;
        let attributes = (0..ENTRIES)
            .map(|i| 2 + 12 * i)
            .filter(|&at| u8_at(b, at) != 0) // id 0: unused entry
            .map(|at| {
                let id = u8_at(b, at);
                Attribute {
                    id,
                    name: attribute_name(id).to_string(),
                    flags: u16_at(b, at + 1),
                    current: u8_at(b, at + 3),
                    worst: u8_at(b, at + 4),
                    raw: u48_at(b, at + 5),
                }
            })
            .collect();
        Ok(SmartData {
            revision: u16_at(b, 0),
            attributes,
            offline_collection_status: u8_at(b, 362),
            self_test_status: u8_at(b, 363),
            checksum_ok: b.iter().fold(0u8, |s, &x| s.wrapping_add(x)) == 0,
        })
    }

    pub fn attribute(&self, id: u8) -> Option<&Attribute> {
        self.attributes.iter().find(|a| a.id == id)
    }

    fn raw(&self, id: u8) -> Option<u64> {
        self.attribute(id).map(|a| a.raw)
    }

    /// Temperature in °C: attribute 194, else 190 (the low byte of the raw value; the other
    /// bytes hold min / max on many drives).
    pub fn temperature_c(&self) -> Option<i32> {
        self.raw(194)
            .or_else(|| self.raw(190))
            .map(|r| i32::from(r as u8))
    }

    /// Power-on hours: attribute 9, low 24 bits (the upper bytes hold minutes or
    /// milliseconds on some drives).
    pub fn power_on_hours(&self) -> Option<u64> {
        self.raw(9).map(|r| r & 0xFF_FFFF)
    }

    pub fn power_cycles(&self) -> Option<u64> {
        self.raw(12)
    }

    /// Uncorrectable errors reported to the host (187), the nearest to NVMe's media errors.
    pub fn reported_uncorrectable(&self) -> Option<u64> {
        self.raw(187)
    }

    /// Bytes the host wrote, from the attribute and unit of the drive's family (see
    /// [`Convention`]); None for a family whose convention is not known here.
    pub fn host_writes_bytes(&self, model: &str) -> Option<u64> {
        let (id, unit) = convention(model)?.host_writes?;
        self.raw(id).and_then(|r| r.checked_mul(unit))
    }

    /// Bytes the host read, like [`SmartData::host_writes_bytes`].
    pub fn host_reads_bytes(&self, model: &str) -> Option<u64> {
        let (id, unit) = convention(model)?.host_reads?;
        self.raw(id).and_then(|r| r.checked_mul(unit))
    }

    /// Power losses without a clean shutdown, where the family counts them.
    pub fn unsafe_shutdowns(&self, model: &str) -> Option<u64> {
        self.raw(convention(model)?.unsafe_shutdowns?)
    }

    /// Bytes written to the NAND (host writes plus the drive's own: garbage collection, wear
    /// levelling), where the family reports it in a unit of bytes.
    pub fn nand_writes_bytes(&self, model: &str) -> Option<u64> {
        let c = convention(model)?;
        c.nand_writes
            .iter()
            .find_map(|&(id, unit)| self.raw(id).and_then(|r| r.checked_mul(unit)))
    }

    /// Life used in % from the family's wear attribute (100 - normalized value).
    pub fn percentage_used(&self, model: &str) -> Option<u8> {
        let id = convention(model)?.wear_normalized?;
        self.attribute(id).map(|a| 100u8.saturating_sub(a.current))
    }
}

const SECTOR: u64 = 512;
const MIB32: u64 = 32 << 20;
const GIB: u64 = 1 << 30;

/// Which attributes a drive family uses for host and NAND writes, and their units in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Convention {
    pub family: &'static str,
    pub host_writes: Option<(u8, u64)>,
    pub host_reads: Option<(u8, u64)>,
    /// Tried in order: the first attribute present wins.
    pub nand_writes: &'static [(u8, u64)],
    /// Attribute whose normalized value counts down from 100 as the flash wears.
    pub wear_normalized: Option<u8>,
    /// Attribute counting power losses without a clean shutdown.
    pub unsafe_shutdowns: Option<u8>,
}

const NONE: Convention = Convention {
    family: "",
    host_writes: None,
    host_reads: None,
    nand_writes: &[],
    wear_normalized: None,
    unsafe_shutdowns: None,
};

const INTEL: Convention = Convention {
    family: "Intel SSD",
    host_writes: Some((241, MIB32)),
    host_reads: Some((242, MIB32)),
    nand_writes: &[(243, MIB32), (249, GIB)],
    wear_normalized: Some(233),
    unsafe_shutdowns: Some(192),
};
const SAMSUNG: Convention = Convention {
    family: "Samsung SSD",
    host_writes: Some((241, SECTOR)),
    host_reads: Some((242, SECTOR)),
    wear_normalized: Some(177),
    ..NONE
};
const CRUCIAL: Convention = Convention {
    family: "Crucial/Micron",
    host_writes: Some((246, SECTOR)),
    wear_normalized: Some(202),
    unsafe_shutdowns: Some(174),
    ..NONE
};
const SANDISK: Convention = Convention {
    family: "SanDisk",
    host_writes: Some((241, GIB)),
    host_reads: Some((242, GIB)),
    nand_writes: &[(233, GIB)],
    ..NONE
};

/// Families by model prefix. Sources: smartmontools drivedb.h entries "Intel 320/330/335/
/// 520/530/710 Series SSDs" and "Intel DC S3xxx" (241/242 Host_Writes/Reads_32MiB, 249
/// NAND_Writes_1GiB, 243 NAND_Writes_32MiB on S3510/S3610, 233 Media_Wearout_Indicator, 192
/// Unsafe_Shutdown_Count); "Samsung based SSDs" (241/242 Total_LBAs_Written/Read in 512-byte
/// sectors, 177 Wear_Leveling_Count); "Crucial/Micron BX/MX1/2/3/500" (246
/// Total_LBAs_Written in 512-byte sectors, 202 Percent_Lifetime_Remain, 174
/// Unexpect_Power_Loss_Ct; its 247/248 count NAND pages of an unpublished size, so no NAND
/// bytes); "SanDisk based SSDs" (241/242 Total_Writes/Reads_GiB, 233 Total_NAND_Writes_GiB);
/// "Phison Driven SSDs" (KINGSTON SA400: 241 Lifetime_Writes_GiB); "Silicon Motion based
/// SSDs" (KINGSTON SKC600: 241/242 Host_Writes/Reads_32MiB). Other drives: None, rather
/// than a guess.
const CONVENTIONS: &[(&str, Convention)] = &[
    ("INTEL SSD", INTEL),
    ("Samsung SSD", SAMSUNG),
    ("SAMSUNG MZ", SAMSUNG),
    ("Crucial_CT", CRUCIAL),
    ("CT", CRUCIAL),
    ("Micron_", CRUCIAL),
    ("SanDisk", SANDISK),
    (
        "KINGSTON SA400",
        Convention {
            family: "Kingston (Phison)",
            host_writes: Some((241, GIB)),
            ..NONE
        },
    ),
    (
        "KINGSTON SKC600",
        Convention {
            family: "Kingston (Silicon Motion)",
            host_writes: Some((241, MIB32)),
            host_reads: Some((242, MIB32)),
            ..NONE
        },
    ),
];

/// The convention of the drive whose IDENTIFY model is `model`, if known. "CT" alone is
/// Crucial only when followed by a capacity digit (CT500MX500SSD1).
pub fn convention(model: &str) -> Option<&'static Convention> {
    CONVENTIONS.iter().find_map(|(prefix, c)| {
        let rest = model.strip_prefix(prefix)?;
        let crucial_short = *prefix == "CT";
        (!crucial_short || rest.starts_with(|ch: char| ch.is_ascii_digit())).then_some(c)
    })
}

/// SMART READ DATA's taskfile: feature D0h; LBA mid/high 4Fh/C2h is the SMART signature.
pub(crate) const SMART_READ_DATA: Taskfile = Taskfile {
    command: 0xB0,
    feature: 0xD0,
    count: 1,
    lba: 0xC2_4F00,
    device: 0,
};

/// SMART READ DATA.
pub fn smart_data(fd: BorrowedFd<'_>) -> Result<SmartData> {
    const NAME: &str = "SMART READ DATA";
    let mut buf = vec![0u8; SMART_DATA_LEN];
    ata_command(
        fd,
        NAME,
        &SMART_READ_DATA,
        Data::In(&mut buf),
        false,
        false,
        10_000,
    )?;
    SmartData::parse(&buf).map_err(|source| Error::Parse {
        command: NAME,
        source,
    })
}

#[cfg(test)]
pub(crate) mod fixtures {
    /// SMART data with the given (id, current, raw) attributes and a correct checksum.
    pub fn smart(attrs: &[(u8, u8, u64)]) -> Vec<u8> {
        let mut b = vec![0u8; 512];
        b[0] = 0x10;
        for (i, &(id, current, raw)) in attrs.iter().enumerate() {
            let at = 2 + 12 * i;
            b[at] = id;
            b[at + 1..at + 3].copy_from_slice(&0x0032u16.to_le_bytes());
            b[at + 3] = current;
            b[at + 4] = current;
            b[at + 5..at + 11].copy_from_slice(&raw.to_le_bytes()[..6]);
        }
        let sum = b[..511].iter().fold(0u8, |s, &x| s.wrapping_add(x));
        b[511] = 0u8.wrapping_sub(sum);
        b
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::smart;
    use super::*;

    #[test]
    fn attributes_and_common_counters() {
        // 194: 35 °C now, min 20, max 60 in the upper raw bytes; 9: hours + vendor bytes.
        let b = smart(&[
            (9, 99, 0x0000_2A00_1234),
            (12, 99, 321),
            (194, 65, 0x3C_0014_0023),
            (187, 100, 2),
        ]);
        let s = SmartData::parse(&b).unwrap();
        assert!(s.checksum_ok);
        assert_eq!(s.revision, 0x10);
        assert_eq!(s.attributes.len(), 4);
        let a = s.attribute(194).unwrap();
        assert_eq!(
            (a.name.as_str(), a.flags, a.current, a.worst),
            ("Temperature_Celsius", 0x32, 65, 65)
        );
        assert_eq!(s.temperature_c(), Some(35));
        assert_eq!(s.power_on_hours(), Some(0x00_1234));
        assert_eq!(s.power_cycles(), Some(321));
        assert_eq!(s.reported_uncorrectable(), Some(2));
    }

    #[test]
    fn raw_values_are_48_bits() {
        let s = SmartData::parse(&smart(&[(241, 99, 0xFFFF_FFFF_FFFF)])).unwrap();
        assert_eq!(s.attribute(241).unwrap().raw, 0xFFFF_FFFF_FFFF);
    }

    #[test]
    fn vendor_units() {
        let s = SmartData::parse(&smart(&[
            (241, 99, 1000),
            (243, 99, 3000),
            (249, 99, 5),
            (233, 97, 0),
        ]))
        .unwrap();
        assert_eq!(
            s.host_writes_bytes("INTEL SSDSC2BB480G6"),
            Some(1000 * 32 * 1024 * 1024)
        );
        assert_eq!(
            s.nand_writes_bytes("INTEL SSDSC2BB480G6"),
            Some(3000 * 32 * 1024 * 1024)
        );
        assert_eq!(s.percentage_used("INTEL SSDSC2BB480G6"), Some(3));
        assert_eq!(
            s.host_writes_bytes("Samsung SSD 860 EVO 1TB"),
            Some(1000 * 512)
        );
        assert_eq!(s.nand_writes_bytes("Samsung SSD 860 EVO 1TB"), None);
        assert_eq!(s.host_writes_bytes("SanDisk SDSSDH3500G"), Some(1000 << 30));
        assert_eq!(s.nand_writes_bytes("SanDisk SDSSDH3500G"), Some(0)); // 233 raw 0 GiB
        assert_eq!(s.host_writes_bytes("QEMU HARDDISK"), None);
        let intel_320 = SmartData::parse(&smart(&[(241, 99, 10), (249, 99, 7)])).unwrap();
        assert_eq!(
            intel_320.nand_writes_bytes("INTEL SSDSA2CW120G3"),
            Some(7 << 30)
        );
    }

    #[test]
    fn crucial_short_model_names() {
        assert_eq!(
            convention("CT500MX500SSD1").map(|c| c.family),
            Some("Crucial/Micron")
        );
        assert_eq!(convention("CTX something").map(|c| c.family), None);
        let s = SmartData::parse(&smart(&[(246, 100, 2_000_000), (202, 96, 4)])).unwrap();
        assert_eq!(s.host_writes_bytes("CT500MX500SSD1"), Some(2_000_000 * 512));
        assert_eq!(s.nand_writes_bytes("CT500MX500SSD1"), None);
        assert_eq!(s.percentage_used("CT500MX500SSD1"), Some(4));
    }

    #[test]
    fn empty_entries_and_bad_checksum() {
        let mut b = smart(&[(5, 100, 0)]);
        b[100] ^= 0x55;
        let s = SmartData::parse(&b).unwrap();
        assert!(!s.checksum_ok);
        assert_eq!(
            s.attributes.iter().map(|a| a.id).collect::<Vec<_>>(),
            vec![5]
        );
        assert_eq!(s.temperature_c(), None);
        assert!(SmartData::parse(&b[..511]).is_err());
    }
}
