//! SMART / Health Information log page (LID 02h), NVMe base specification 1.4 figure 194 /
//! 2.0 figure 207, controller-wide (nsid FFFFFFFFh).

use std::os::fd::BorrowedFd;

use serde::{Deserialize, Serialize};

use super::passthru::{get_log_page, NSID_ALL};
use crate::bytes::{u128_at, u16_at, u32_at, u8_at};
use crate::error::{fixed, Error, ParseError, Result};

pub const SMART_LOG_LEN: usize = 512;
const LID_SMART: u8 = 0x02;

/// One data unit: 1000 units of 512 bytes. The drive rounds up, so a delta is exact to one
/// unit (512,000 bytes) either way.
pub const DATA_UNIT_BYTES: u128 = 512_000;

/// Critical Warning bits (byte 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CriticalWarning {
    pub spare_below_threshold: bool,
    pub temperature: bool,
    pub reliability_degraded: bool,
    pub read_only: bool,
    pub volatile_backup_failed: bool,
    pub persistent_memory_read_only: bool,
}

impl CriticalWarning {
    pub fn any(&self) -> bool {
        self.spare_below_threshold
            || self.temperature
            || self.reliability_degraded
            || self.read_only
            || self.volatile_backup_failed
            || self.persistent_memory_read_only
    }
}

/// The SMART / Health log, counters as the drive reports them (128-bit where the spec says).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SmartLog {
    pub critical_warning: CriticalWarning,
    /// Composite temperature in °C (the drive reports kelvin).
    pub temperature_c: i32,
    /// Available spare, % of the original spare.
    pub available_spare: u8,
    pub available_spare_threshold: u8,
    /// Vendor estimate of life used in %, may exceed 100 (capped at 255 by the drive).
    pub percentage_used: u8,
    /// In data units (see [`DATA_UNIT_BYTES`]).
    pub data_units_read: u128,
    pub data_units_written: u128,
    pub host_read_commands: u128,
    pub host_write_commands: u128,
    /// Minutes the controller was busy with IO.
    pub controller_busy_minutes: u128,
    pub power_cycles: u128,
    pub power_on_hours: u128,
    pub unsafe_shutdowns: u128,
    pub media_errors: u128,
    pub error_log_entries: u128,
    /// Minutes the composite temperature spent at or above WCTEMP / CCTEMP.
    pub warning_temp_minutes: u32,
    pub critical_temp_minutes: u32,
    /// Temperature sensors 1..8 in °C; None where the sensor is absent (reported as 0).
    pub sensors_c: [Option<i32>; 8],
    /// Thermal management temperature 1 / 2 transitions (light / heavy throttling) and
    /// total seconds spent in each.
    pub thermal_transitions: [u32; 2],
    pub thermal_seconds: [u32; 2],
}

fn kelvin_to_c(k: u16) -> i32 {
    i32::from(k) - 273
}

impl SmartLog {
    pub fn parse(data: &[u8]) -> Result<Self, ParseError> {
        let b: &[u8; SMART_LOG_LEN] = fixed("SMART / Health log", data)?;
        let cw = u8_at(b, 0);
        let mut sensors_c = [None; 8];
        for (i, s) in sensors_c.iter_mut().enumerate() {
            let k = u16_at(b, 200 + 2 * i);
            *s = (k != 0).then(|| kelvin_to_c(k));
        }
        Ok(SmartLog {
            critical_warning: CriticalWarning {
                spare_below_threshold: cw & 1 != 0,
                temperature: cw & 2 != 0,
                reliability_degraded: cw & 4 != 0,
                read_only: cw & 8 != 0,
                volatile_backup_failed: cw & 0x10 != 0,
                persistent_memory_read_only: cw & 0x20 != 0,
            },
            temperature_c: kelvin_to_c(u16_at(b, 1)),
            available_spare: u8_at(b, 3),
            available_spare_threshold: u8_at(b, 4),
            percentage_used: u8_at(b, 5),
            data_units_read: u128_at(b, 32),
            data_units_written: u128_at(b, 48),
            host_read_commands: u128_at(b, 64),
            host_write_commands: u128_at(b, 80),
            controller_busy_minutes: u128_at(b, 96),
            power_cycles: u128_at(b, 112),
            power_on_hours: u128_at(b, 128),
            unsafe_shutdowns: u128_at(b, 144),
            media_errors: u128_at(b, 160),
            error_log_entries: u128_at(b, 176),
            warning_temp_minutes: u32_at(b, 192),
            critical_temp_minutes: u32_at(b, 196),
            sensors_c,
            thermal_transitions: [u32_at(b, 216), u32_at(b, 220)],
            thermal_seconds: [u32_at(b, 224), u32_at(b, 228)],
        })
    }

    /// Host bytes read / written from the data unit counters (saturating at u128::MAX).
    pub fn bytes_read(&self) -> u128 {
        self.data_units_read.saturating_mul(DATA_UNIT_BYTES)
    }

    pub fn bytes_written(&self) -> u128 {
        self.data_units_written.saturating_mul(DATA_UNIT_BYTES)
    }
}

/// Read the controller's SMART / Health log.
pub fn smart_log(fd: BorrowedFd<'_>) -> Result<SmartLog> {
    const NAME: &str = "Get Log Page (SMART / Health)";
    let mut buf = vec![0u8; SMART_LOG_LEN];
    get_log_page(fd, NAME, LID_SMART, NSID_ALL, &mut buf)?;
    SmartLog::parse(&buf).map_err(|source| Error::Parse {
        command: NAME,
        source,
    })
}

#[cfg(test)]
pub(crate) mod fixtures {
    use crate::nvme::identify::fixtures::put;

    /// A used drive: 310 K composite, two sensors, counters beyond 64 bits where it matters.
    pub fn smart() -> Vec<u8> {
        let mut b = vec![0u8; 512];
        b[0] = 0b0000_0010; // temperature warning
        put(&mut b, 1, &310u16.to_le_bytes()); // 37 °C
        b[3] = 100;
        b[4] = 10;
        b[5] = 3;
        put(&mut b, 32, &12_345_678u128.to_le_bytes());
        put(&mut b, 48, &((1u128 << 64) | 7).to_le_bytes()); // beyond u64
        put(&mut b, 64, &900_000_000u128.to_le_bytes());
        put(&mut b, 80, &800_000_000u128.to_le_bytes());
        put(&mut b, 96, &4321u128.to_le_bytes());
        put(&mut b, 112, &1500u128.to_le_bytes());
        put(&mut b, 128, &8760u128.to_le_bytes());
        put(&mut b, 144, &42u128.to_le_bytes());
        put(&mut b, 160, &0u128.to_le_bytes());
        put(&mut b, 176, &17u128.to_le_bytes());
        put(&mut b, 192, &12u32.to_le_bytes());
        put(&mut b, 196, &1u32.to_le_bytes());
        put(&mut b, 200, &310u16.to_le_bytes()); // sensor 1: 37 °C
        put(&mut b, 202, &325u16.to_le_bytes()); // sensor 2: 52 °C; 3..8 absent
        put(&mut b, 216, &5u32.to_le_bytes());
        put(&mut b, 220, &1u32.to_le_bytes());
        put(&mut b, 224, &300u32.to_le_bytes());
        put(&mut b, 228, &20u32.to_le_bytes());
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn health_fields() {
        let s = SmartLog::parse(&fixtures::smart()).unwrap();
        assert!(s.critical_warning.temperature && s.critical_warning.any());
        assert!(!s.critical_warning.read_only);
        assert_eq!(s.temperature_c, 37);
        assert_eq!(
            (
                s.available_spare,
                s.available_spare_threshold,
                s.percentage_used
            ),
            (100, 10, 3)
        );
        assert_eq!(s.data_units_read, 12_345_678);
        assert_eq!(s.bytes_read(), 12_345_678 * 512_000);
        assert_eq!(s.data_units_written, (1u128 << 64) | 7);
        assert_eq!(s.bytes_written(), ((1u128 << 64) | 7) * 512_000);
        assert_eq!(
            (s.host_read_commands, s.host_write_commands),
            (900_000_000, 800_000_000)
        );
        assert_eq!(s.controller_busy_minutes, 4321);
        assert_eq!(
            (s.power_cycles, s.power_on_hours, s.unsafe_shutdowns),
            (1500, 8760, 42)
        );
        assert_eq!((s.media_errors, s.error_log_entries), (0, 17));
        assert_eq!((s.warning_temp_minutes, s.critical_temp_minutes), (12, 1));
        assert_eq!(
            s.sensors_c,
            [Some(37), Some(52), None, None, None, None, None, None]
        );
        assert_eq!(
            (s.thermal_transitions, s.thermal_seconds),
            ([5, 1], [300, 20])
        );
    }

    #[test]
    fn counters_saturate_instead_of_overflowing() {
        let mut b = fixtures::smart();
        b[48..64].fill(0xFF);
        assert_eq!(SmartLog::parse(&b).unwrap().bytes_written(), u128::MAX);
    }

    #[test]
    fn a_zero_kelvin_temperature_is_below_zero_celsius_not_a_panic() {
        let mut b = fixtures::smart();
        b[1..3].fill(0);
        assert_eq!(SmartLog::parse(&b).unwrap().temperature_c, -273);
    }
}
