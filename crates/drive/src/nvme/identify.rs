//! Identify Controller (CNS 01h) and Identify Namespace (CNS 00h), NVMe base specification
//! 1.4 / 2.0, decoded into typed structs. Offsets are the specification's byte offsets.

use std::os::fd::BorrowedFd;

use serde::{Deserialize, Serialize};

use super::passthru::{admin, AdminCommand, OPC_IDENTIFY};
use crate::bytes::{ascii, bit, u128_at, u16_at, u32_at, u64_at, u8_at};
use crate::error::{fixed, Error, ParseError, Result};

pub const IDENTIFY_LEN: usize = 4096;

/// Optional Admin Command Support (OACS, bytes 257:256).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Oacs {
    pub security_send_receive: bool,
    pub format_nvm: bool,
    pub firmware_download: bool,
    pub namespace_management: bool,
    pub device_self_test: bool,
    pub directives: bool,
    pub get_lba_status: bool,
}

/// Optional NVM Command Support (ONCS, bytes 521:520).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Oncs {
    pub compare: bool,
    pub write_uncorrectable: bool,
    /// Dataset Management: deallocate (TRIM).
    pub dataset_management: bool,
    pub write_zeroes: bool,
    pub save_select_features: bool,
    pub reservations: bool,
    pub timestamp: bool,
    pub verify: bool,
    pub copy: bool,
}

/// Format NVM Attributes (FNA, byte 524).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Fna {
    /// A format of one namespace formats them all.
    pub format_applies_to_all_namespaces: bool,
    /// A secure erase (Format with SES) of one namespace erases them all.
    pub secure_erase_applies_to_all_namespaces: bool,
    /// Format NVM supports SES = 2 (cryptographic erase).
    pub crypto_erase_supported: bool,
}

/// Sanitize Capabilities (SANICAP, bytes 331:328).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Sanicap {
    pub crypto_erase: bool,
    pub block_erase: bool,
    pub overwrite: bool,
    /// No-Deallocate Inhibited: the drive ignores a request not to deallocate after sanitize.
    pub no_deallocate_inhibited: bool,
}

impl Sanicap {
    pub fn any(&self) -> bool {
        self.crypto_erase || self.block_erase || self.overwrite
    }
}

/// Firmware Updates (FRMW, byte 260).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Frmw {
    pub slot1_read_only: bool,
    pub slots: u8,
    pub activation_without_reset: bool,
}

/// One Power State Descriptor (32 bytes from byte 2048).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PowerState {
    /// Maximum power (MP scaled by MXPS: 0.01 W or 0.0001 W units).
    pub max_power_w: f64,
    /// Non-Operational State: no IO is processed in this state.
    pub non_operational: bool,
    pub entry_latency_us: u32,
    pub exit_latency_us: u32,
    pub relative_read_throughput: u8,
    pub relative_read_latency: u8,
    pub relative_write_throughput: u8,
    pub relative_write_latency: u8,
    /// Idle power (IDLP scaled by IPS), None when the drive does not report it.
    pub idle_power_w: Option<f64>,
    /// Active power (ACTP scaled by APS), None when the drive does not report it.
    pub active_power_w: Option<f64>,
}

impl PowerState {
    fn parse(d: &[u8]) -> Self {
        let scale = |code: u8| match code {
            1 => Some(0.0001),
            2 => Some(0.01),
            _ => None, // 0: not reported, 3: reserved
        };
        let mp = f64::from(u16_at(d, 0));
        let flags = u8_at(d, 3);
        PowerState {
            max_power_w: mp * if bit(flags.into(), 0) { 0.0001 } else { 0.01 },
            non_operational: bit(flags.into(), 1),
            entry_latency_us: u32_at(d, 4),
            exit_latency_us: u32_at(d, 8),
            relative_read_throughput: u8_at(d, 12) & 0x1F,
            relative_read_latency: u8_at(d, 13) & 0x1F,
            relative_write_throughput: u8_at(d, 14) & 0x1F,
            relative_write_latency: u8_at(d, 15) & 0x1F,
            idle_power_w: scale(u8_at(d, 18) >> 6).map(|s| f64::from(u16_at(d, 16)) * s),
            active_power_w: scale(u8_at(d, 22) >> 6).map(|s| f64::from(u16_at(d, 20)) * s),
        }
    }
}

/// Identify Controller data structure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IdentifyController {
    pub vendor_id: u16,
    pub subsystem_vendor_id: u16,
    pub serial: String,
    pub model: String,
    pub firmware: String,
    /// Maximum Data Transfer Size: 2^MDTS units of the minimum memory page size
    /// (CAP.MPSMIN, usually 4 KiB); 0 = no limit.
    pub mdts: u8,
    pub controller_id: u16,
    /// NVMe version the controller implements (VER): major, minor, tertiary. 0.0.0 on
    /// pre-1.2 controllers, which did not report it.
    pub version: (u16, u8, u8),
    pub oacs: Oacs,
    pub frmw: Frmw,
    /// Number of power states supported (NPSS is 0-based; this is the count).
    pub power_state_count: u8,
    /// Autonomous Power State Transitions supported.
    pub apst_supported: bool,
    /// Warning / critical composite temperature thresholds in °C (None: not reported).
    pub warning_temp_c: Option<i32>,
    pub critical_temp_c: Option<i32>,
    /// Total / unallocated NVM capacity in bytes (0 when namespace management is absent).
    pub total_capacity_bytes: u128,
    pub unallocated_capacity_bytes: u128,
    pub sanicap: Sanicap,
    /// Number of namespaces (NN): the largest namespace id the controller supports.
    pub namespaces: u32,
    pub oncs: Oncs,
    pub fna: Fna,
    /// A volatile write cache is present.
    pub volatile_write_cache: bool,
    pub power_states: Vec<PowerState>,
}

impl IdentifyController {
    pub fn parse(data: &[u8]) -> Result<Self, ParseError> {
        let b: &[u8; IDENTIFY_LEN] = fixed("Identify Controller", data)?;
        let oacs = u16_at(b, 256).into();
        let oncs = u16_at(b, 520).into();
        let frmw = u8_at(b, 260);
        let fna = u8_at(b, 524).into();
        let sanicap = u32_at(b, 328).into();
        let ver = u32_at(b, 80);
        let kelvin = |k: u16| (k != 0).then(|| i32::from(k) - 273);
        let power_state_count = u8_at(b, 263).saturating_add(1).min(32);
        let power_states = (0..usize::from(power_state_count))
            .map(|i| PowerState::parse(&b[2048 + 32 * i..2048 + 32 * (i + 1)]))
            .collect();
        Ok(IdentifyController {
            vendor_id: u16_at(b, 0),
            subsystem_vendor_id: u16_at(b, 2),
            serial: ascii(&b[4..24]),
            model: ascii(&b[24..64]),
            firmware: ascii(&b[64..72]),
            mdts: u8_at(b, 77),
            controller_id: u16_at(b, 78),
            version: ((ver >> 16) as u16, (ver >> 8) as u8, ver as u8),
            oacs: Oacs {
                security_send_receive: bit(oacs, 0),
                format_nvm: bit(oacs, 1),
                firmware_download: bit(oacs, 2),
                namespace_management: bit(oacs, 3),
                device_self_test: bit(oacs, 4),
                directives: bit(oacs, 5),
                get_lba_status: bit(oacs, 9),
            },
            frmw: Frmw {
                slot1_read_only: bit(frmw.into(), 0),
                slots: (frmw >> 1) & 0x7,
                activation_without_reset: bit(frmw.into(), 4),
            },
            power_state_count,
            apst_supported: bit(u8_at(b, 265).into(), 0),
            warning_temp_c: kelvin(u16_at(b, 266)),
            critical_temp_c: kelvin(u16_at(b, 268)),
            total_capacity_bytes: u128_at(b, 280),
            unallocated_capacity_bytes: u128_at(b, 296),
            sanicap: Sanicap {
                crypto_erase: bit(sanicap, 0),
                block_erase: bit(sanicap, 1),
                overwrite: bit(sanicap, 2),
                no_deallocate_inhibited: bit(sanicap, 29),
            },
            namespaces: u32_at(b, 516),
            oncs: Oncs {
                compare: bit(oncs, 0),
                write_uncorrectable: bit(oncs, 1),
                dataset_management: bit(oncs, 2),
                write_zeroes: bit(oncs, 3),
                save_select_features: bit(oncs, 4),
                reservations: bit(oncs, 5),
                timestamp: bit(oncs, 6),
                verify: bit(oncs, 7),
                copy: bit(oncs, 8),
            },
            fna: Fna {
                format_applies_to_all_namespaces: bit(fna, 0),
                secure_erase_applies_to_all_namespaces: bit(fna, 1),
                crypto_erase_supported: bit(fna, 2),
            },
            volatile_write_cache: bit(u8_at(b, 525).into(), 0),
            power_states,
        })
    }
}

/// Relative Performance (RP) of an LBA format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RelativePerformance {
    Best,
    Better,
    Good,
    Degraded,
}

/// One LBA Format descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LbaFormat {
    /// Metadata bytes per block.
    pub metadata_size: u16,
    /// LBADS: the block size is 2^LBADS bytes; below 9 the format is not available.
    pub lbads: u8,
    pub relative_performance: RelativePerformance,
}

impl LbaFormat {
    fn parse(v: u32) -> Self {
        LbaFormat {
            metadata_size: v as u16,
            lbads: (v >> 16) as u8,
            relative_performance: match (v >> 24) & 0x3 {
                0 => RelativePerformance::Best,
                1 => RelativePerformance::Better,
                2 => RelativePerformance::Good,
                _ => RelativePerformance::Degraded,
            },
        }
    }

    /// Data bytes per block, None when the format is not available (LBADS < 9) or absurd.
    pub fn data_size(&self) -> Option<u32> {
        (9..32).contains(&self.lbads).then(|| 1u32 << self.lbads)
    }
}

/// What a read of a deallocated (trimmed) block returns (DLFEAT bits 2:0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DeallocatedRead {
    NotReported,
    Zeroes,
    Ones,
    Reserved,
}

/// Deallocate Logical Block Features (DLFEAT, byte 33).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dlfeat {
    pub read_value: DeallocatedRead,
    /// Write Zeroes may deallocate (its DEAC bit is supported).
    pub write_zeroes_deallocate: bool,
    /// The guard field of deallocated blocks holds the CRC of the read value.
    pub guard_is_crc: bool,
}

/// Identify Namespace data structure (NVM command set).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IdentifyNamespace {
    /// Namespace Size (NSZE), Capacity (NCAP), Utilization (NUSE), in blocks.
    pub size_blocks: u64,
    pub capacity_blocks: u64,
    pub utilization_blocks: u64,
    /// NSFEAT bit 0: thin provisioning (capacity may be below size).
    pub thin_provisioning: bool,
    pub lba_formats: Vec<LbaFormat>,
    /// Index of the LBA format in use (FLBAS bits 3:0, plus 6:5 when there are > 16 formats).
    pub format_index: u8,
    /// FLBAS bit 4: metadata travels at the end of each block (extended LBA).
    pub metadata_extended: bool,
    /// End-to-end Data Protection type (DPS bits 2:0; 0 = none) and location (bit 3).
    pub protection_type: u8,
    pub protection_first: bool,
    pub dlfeat: Dlfeat,
    /// NVM Capacity (NVMCAP): bytes, 0 when not reported.
    pub nvm_capacity_bytes: u128,
}

impl IdentifyNamespace {
    pub fn parse(data: &[u8]) -> Result<Self, ParseError> {
        let b: &[u8; IDENTIFY_LEN] = fixed("Identify Namespace", data)?;
        // NLBAF is 0-based; up to 64 formats (bytes 128..384) since NVMe 2.0.
        let count = usize::from(u8_at(b, 25)) + 1;
        let count = count.min(64);
        let lba_formats = (0..count)
            .map(|i| LbaFormat::parse(u32_at(b, 128 + 4 * i)))
            .collect();
        let flbas = u8_at(b, 26);
        let mut format_index = flbas & 0xF;
        if count > 16 {
            format_index |= ((flbas >> 5) & 0x3) << 4;
        }
        let dlfeat = u8_at(b, 33);
        let dps = u8_at(b, 29);
        Ok(IdentifyNamespace {
            size_blocks: u64_at(b, 0),
            capacity_blocks: u64_at(b, 8),
            utilization_blocks: u64_at(b, 16),
            thin_provisioning: bit(u8_at(b, 24).into(), 0),
            lba_formats,
            format_index,
            metadata_extended: bit(flbas.into(), 4),
            protection_type: dps & 0x7,
            protection_first: bit(dps.into(), 3),
            dlfeat: Dlfeat {
                read_value: match dlfeat & 0x7 {
                    0 => DeallocatedRead::NotReported,
                    1 => DeallocatedRead::Zeroes,
                    2 => DeallocatedRead::Ones,
                    _ => DeallocatedRead::Reserved,
                },
                write_zeroes_deallocate: bit(dlfeat.into(), 3),
                guard_is_crc: bit(dlfeat.into(), 4),
            },
            nvm_capacity_bytes: u128_at(b, 48),
        })
    }

    /// The LBA format in use, None when FLBAS points past the formats the drive lists.
    pub fn lba_format(&self) -> Option<&LbaFormat> {
        self.lba_formats.get(usize::from(self.format_index))
    }

    /// Bytes per block of the format in use.
    pub fn block_size(&self) -> Option<u32> {
        self.lba_format().and_then(LbaFormat::data_size)
    }

    /// Namespace size in bytes.
    pub fn size_bytes(&self) -> Option<u64> {
        self.size_blocks.checked_mul(u64::from(self.block_size()?))
    }
}

fn identify(fd: BorrowedFd<'_>, name: &'static str, cns: u8, nsid: u32) -> Result<Vec<u8>> {
    let mut buf = vec![0u8; IDENTIFY_LEN];
    let cmd = AdminCommand {
        opcode: OPC_IDENTIFY,
        nsid,
        cdw10: u32::from(cns),
        ..Default::default()
    };
    admin(fd, name, &cmd, Some(&mut buf))?;
    Ok(buf)
}

/// Identify Controller (CNS 01h).
pub fn identify_controller(fd: BorrowedFd<'_>) -> Result<IdentifyController> {
    const NAME: &str = "Identify Controller";
    let buf = identify(fd, NAME, 1, 0)?;
    IdentifyController::parse(&buf).map_err(|source| Error::Parse {
        command: NAME,
        source,
    })
}

/// Identify Namespace (CNS 00h) for `nsid`.
pub fn identify_namespace(fd: BorrowedFd<'_>, nsid: u32) -> Result<IdentifyNamespace> {
    const NAME: &str = "Identify Namespace";
    let buf = identify(fd, NAME, 0, nsid)?;
    IdentifyNamespace::parse(&buf).map_err(|source| Error::Parse {
        command: NAME,
        source,
    })
}

#[cfg(test)]
pub(crate) mod fixtures {
    //! Identify data built field by field from the NVMe base specification.

    pub fn put(b: &mut [u8], at: usize, bytes: &[u8]) {
        b[at..at + bytes.len()].copy_from_slice(bytes);
    }

    fn ascii_field(b: &mut [u8], at: usize, len: usize, s: &str) {
        let mut f = vec![b' '; len];
        f[..s.len()].copy_from_slice(s.as_bytes());
        put(b, at, &f);
    }

    /// A 2 TB-class drive: Sanitize block + crypto erase, Format NVM, 3 power states.
    pub fn controller() -> Vec<u8> {
        let mut b = vec![0u8; 4096];
        put(&mut b, 0, &0x144Du16.to_le_bytes()); // VID: Samsung
        put(&mut b, 2, &0x144Du16.to_le_bytes());
        ascii_field(&mut b, 4, 20, "S4EWNX0R123456");
        ascii_field(&mut b, 24, 40, "Samsung SSD 980 PRO 2TB");
        ascii_field(&mut b, 64, 8, "5B2QGXA7");
        b[77] = 9; // MDTS: 2^9 * 4 KiB = 2 MiB
        put(&mut b, 78, &6u16.to_le_bytes());
        put(&mut b, 80, &0x0001_0400u32.to_le_bytes()); // 1.4.0
        put(&mut b, 256, &0b0000_0000_0001_0111u16.to_le_bytes()); // security, format, fw, self-test
        b[260] = 0b0001_0110; // 3 slots, activation without reset
        b[263] = 2; // NPSS 0-based: 3 states
        b[265] = 1; // APSTA
        put(&mut b, 266, &355u16.to_le_bytes()); // WCTEMP 82 °C
        put(&mut b, 268, &358u16.to_le_bytes()); // CCTEMP 85 °C
                                                 // TNVMCAP 2,000,398,934,016 bytes, then a 128-bit UNVMCAP above 2^64.
        put(&mut b, 280, &2_000_398_934_016u128.to_le_bytes());
        put(&mut b, 296, &((1u128 << 64) + 5).to_le_bytes());
        put(&mut b, 328, &0b011u32.to_le_bytes()); // SANICAP: crypto + block erase
        put(&mut b, 516, &1u32.to_le_bytes()); // NN
        put(&mut b, 520, &0b0101_1111u16.to_le_bytes()); // ONCS incl. DSM, write zeroes, timestamp
        b[524] = 0b100; // FNA: crypto erase supported
        b[525] = 1; // VWC
                    // PS0: 8.49 W operational; PS3-like non-operational 0.0050 W (MXPS=1) with latencies.
        put(&mut b, 2048, &849u16.to_le_bytes());
        put(&mut b, 2048 + 32, &470u16.to_le_bytes());
        put(&mut b, 2048 + 32 + 16, &350u16.to_le_bytes()); // IDLP
        b[2048 + 32 + 18] = 0b10 << 6; // IPS 0.01 W
        put(&mut b, 2048 + 32 + 20, &400u16.to_le_bytes()); // ACTP
        b[2048 + 32 + 22] = 0b01 << 6; // APS 0.0001 W
        let ps2 = 2048 + 64;
        put(&mut b, ps2, &50u16.to_le_bytes());
        b[ps2 + 3] = 0b11; // MXPS + NOPS
        put(&mut b, ps2 + 4, &2000u32.to_le_bytes());
        put(&mut b, ps2 + 8, &1200u32.to_le_bytes());
        b
    }

    /// A namespace with 512 B (best: no, good) and 4 KiB (best) formats, 4 KiB in use.
    pub fn namespace() -> Vec<u8> {
        let mut b = vec![0u8; 4096];
        put(&mut b, 0, &488_378_646u64.to_le_bytes()); // NSZE in 4 KiB blocks
        put(&mut b, 8, &488_378_646u64.to_le_bytes());
        put(&mut b, 16, &1_000u64.to_le_bytes());
        b[25] = 1; // NLBAF: 2 formats
        b[26] = 1; // FLBAS: format 1
        b[33] = 0b1001; // DLFEAT: reads zeroes, write zeroes may deallocate
        put(&mut b, 48, &2_000_398_934_016u128.to_le_bytes());
        put(&mut b, 128, &(9u32 << 16 | 2 << 24).to_le_bytes()); // 512 B, good
        put(&mut b, 132, &(12u32 << 16).to_le_bytes()); // 4 KiB, best
        b
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::*;
    use super::*;

    #[test]
    fn controller_fields() {
        let c = IdentifyController::parse(&controller()).unwrap();
        assert_eq!(c.vendor_id, 0x144D);
        assert_eq!(c.model, "Samsung SSD 980 PRO 2TB");
        assert_eq!(c.serial, "S4EWNX0R123456");
        assert_eq!(c.firmware, "5B2QGXA7");
        assert_eq!(c.mdts, 9);
        assert_eq!(c.version, (1, 4, 0));
        assert!(c.oacs.security_send_receive && c.oacs.format_nvm && c.oacs.firmware_download);
        assert!(!c.oacs.namespace_management && c.oacs.device_self_test);
        assert_eq!(
            c.frmw,
            Frmw {
                slot1_read_only: false,
                slots: 3,
                activation_without_reset: true
            }
        );
        assert!(c.apst_supported);
        assert_eq!((c.warning_temp_c, c.critical_temp_c), (Some(82), Some(85)));
        assert_eq!(c.total_capacity_bytes, 2_000_398_934_016);
        assert_eq!(c.unallocated_capacity_bytes, (1u128 << 64) + 5);
        assert!(c.sanicap.block_erase && c.sanicap.crypto_erase && !c.sanicap.overwrite);
        assert_eq!(c.namespaces, 1);
        assert!(c.oncs.dataset_management && c.oncs.write_zeroes && c.oncs.timestamp);
        assert!(!c.oncs.verify);
        assert!(c.fna.crypto_erase_supported && !c.fna.format_applies_to_all_namespaces);
        assert!(c.volatile_write_cache);
        assert_eq!(c.power_states.len(), 3);
        let ps0 = &c.power_states[0];
        assert!((ps0.max_power_w - 8.49).abs() < 1e-9 && !ps0.non_operational);
        assert_eq!((ps0.idle_power_w, ps0.active_power_w), (None, None));
        let ps1 = &c.power_states[1];
        assert!((ps1.idle_power_w.unwrap() - 3.5).abs() < 1e-9);
        assert!((ps1.active_power_w.unwrap() - 0.04).abs() < 1e-9);
        let ps2 = &c.power_states[2];
        assert!((ps2.max_power_w - 0.005).abs() < 1e-9 && ps2.non_operational);
        assert_eq!((ps2.entry_latency_us, ps2.exit_latency_us), (2000, 1200));
    }

    #[test]
    fn namespace_fields() {
        let n = IdentifyNamespace::parse(&namespace()).unwrap();
        assert_eq!(n.size_blocks, 488_378_646);
        assert_eq!(n.utilization_blocks, 1_000);
        assert_eq!(n.lba_formats.len(), 2);
        assert_eq!(n.lba_formats[0].data_size(), Some(512));
        assert_eq!(
            n.lba_formats[0].relative_performance,
            RelativePerformance::Good
        );
        assert_eq!(n.format_index, 1);
        assert_eq!(n.block_size(), Some(4096));
        assert_eq!(n.size_bytes(), Some(488_378_646 * 4096));
        assert_eq!(n.dlfeat.read_value, DeallocatedRead::Zeroes);
        assert!(n.dlfeat.write_zeroes_deallocate && !n.dlfeat.guard_is_crc);
        assert_eq!(n.nvm_capacity_bytes, 2_000_398_934_016);
    }

    #[test]
    fn format_index_uses_upper_bits_only_beyond_16_formats() {
        let mut b = namespace();
        b[26] = 0b0100_0011; // FLBAS: upper bits 10b, lower 3
        assert_eq!(IdentifyNamespace::parse(&b).unwrap().format_index, 3);
        b[25] = 63; // 64 formats
        let n = IdentifyNamespace::parse(&b).unwrap();
        assert_eq!(n.format_index, 0x23);
        assert_eq!(n.lba_format().map(|f| f.lbads), Some(0)); // listed but unavailable
        assert_eq!(n.block_size(), None);
    }

    #[test]
    fn short_data_is_an_error() {
        let e = IdentifyController::parse(&[0u8; 100]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Identify Controller: 100 bytes, expected at least 4096"
        );
        assert!(IdentifyNamespace::parse(&[]).is_err());
    }
}
