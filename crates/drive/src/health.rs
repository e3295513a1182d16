//! A health snapshot from the drive's own counters, common to NVMe and ATA, and the
//! difference between two snapshots (what a test wrote, and what the flash absorbed).

use serde::{Deserialize, Serialize};

use crate::ata::SmartData;
use crate::nvme::SmartLog;
use crate::Interface;

/// The interface-specific health data the snapshot was taken from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RawHealth {
    Nvme(Box<SmartLog>),
    Ata {
        /// The model the vendor conventions were chosen by.
        model: String,
        smart: SmartData,
    },
}

/// What the drive's counters say now. None: the drive does not report it (or, on SATA,
/// reports it in a vendor unit not known here).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Health {
    pub interface: Interface,
    /// Host bytes read / written. NVMe: data units of 512,000 bytes, rounded up by the
    /// drive; SATA: the vendor's attribute and unit (see `ata::smart::Convention`).
    pub host_bytes_read: Option<u64>,
    pub host_bytes_written: Option<u64>,
    /// Bytes written to the NAND, host and internal writes together (SATA families that
    /// report it; NVMe only through vendor logs, not read here).
    pub nand_bytes_written: Option<u64>,
    /// Composite (NVMe) or drive (SATA) temperature.
    pub temperature_c: Option<i32>,
    /// NVMe temperature sensors 1..8 (None: absent).
    pub sensors_c: Vec<Option<i32>>,
    /// Thermal throttling: transitions into either throttle level, and seconds spent in them.
    pub thermal_throttle_events: Option<u64>,
    pub thermal_throttle_seconds: Option<u64>,
    /// Unrecovered media errors (NVMe) / uncorrectable errors reported (SATA attribute 187).
    pub media_errors: Option<u64>,
    /// Life used in % (vendor estimate).
    pub percentage_used: Option<u8>,
    pub power_on_hours: Option<u64>,
    pub unsafe_shutdowns: Option<u64>,
    pub raw: RawHealth,
}

fn sat(v: u128) -> u64 {
    u64::try_from(v).unwrap_or(u64::MAX)
}

impl Health {
    pub fn from_nvme(s: SmartLog) -> Self {
        Health {
            interface: Interface::Nvme,
            host_bytes_read: Some(sat(s.bytes_read())),
            host_bytes_written: Some(sat(s.bytes_written())),
            nand_bytes_written: None,
            temperature_c: Some(s.temperature_c),
            sensors_c: s.sensors_c.to_vec(),
            thermal_throttle_events: Some(
                u64::from(s.thermal_transitions[0]) + u64::from(s.thermal_transitions[1]),
            ),
            thermal_throttle_seconds: Some(
                u64::from(s.thermal_seconds[0]) + u64::from(s.thermal_seconds[1]),
            ),
            media_errors: Some(sat(s.media_errors)),
            percentage_used: Some(s.percentage_used),
            power_on_hours: Some(sat(s.power_on_hours)),
            unsafe_shutdowns: Some(sat(s.unsafe_shutdowns)),
            raw: RawHealth::Nvme(Box::new(s)),
        }
    }

    /// `model` is the drive's IDENTIFY model string: it selects the vendor conventions.
    pub fn from_ata(model: &str, s: SmartData) -> Self {
        Health {
            interface: Interface::Ata,
            host_bytes_read: s.host_reads_bytes(model),
            host_bytes_written: s.host_writes_bytes(model),
            nand_bytes_written: s.nand_writes_bytes(model),
            temperature_c: s.temperature_c(),
            sensors_c: vec![],
            thermal_throttle_events: None,
            thermal_throttle_seconds: None,
            media_errors: s.reported_uncorrectable(),
            percentage_used: s.percentage_used(model),
            power_on_hours: s.power_on_hours(),
            unsafe_shutdowns: s.unsafe_shutdowns(model),
            raw: RawHealth::Ata {
                model: model.to_string(),
                smart: s,
            },
        }
    }

    /// What changed from `before` to `after`. A counter missing from either snapshot, or
    /// that went backwards (another drive, a reset), gives None.
    pub fn delta(before: &Health, after: &Health) -> HealthDelta {
        let d = |a: Option<u64>, b: Option<u64>| b?.checked_sub(a?);
        HealthDelta {
            host_bytes_read: d(before.host_bytes_read, after.host_bytes_read),
            host_bytes_written: d(before.host_bytes_written, after.host_bytes_written),
            nand_bytes_written: d(before.nand_bytes_written, after.nand_bytes_written),
            media_errors: d(before.media_errors, after.media_errors),
            thermal_throttle_events: d(
                before.thermal_throttle_events,
                after.thermal_throttle_events,
            ),
            thermal_throttle_seconds: d(
                before.thermal_throttle_seconds,
                after.thermal_throttle_seconds,
            ),
            unsafe_shutdowns: d(before.unsafe_shutdowns, after.unsafe_shutdowns),
            granularity_bytes: match after.interface {
                Interface::Nvme => Some(512_000),
                Interface::Ata => None,
            },
        }
    }
}

/// The change between two snapshots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HealthDelta {
    pub host_bytes_read: Option<u64>,
    pub host_bytes_written: Option<u64>,
    pub nand_bytes_written: Option<u64>,
    pub media_errors: Option<u64>,
    pub thermal_throttle_events: Option<u64>,
    pub thermal_throttle_seconds: Option<u64>,
    pub unsafe_shutdowns: Option<u64>,
    /// How coarse the host byte counters are (NVMe: one data unit, so a delta is exact to
    /// that either way); None when it depends on the vendor's unit.
    pub granularity_bytes: Option<u64>,
}

impl HealthDelta {
    /// NAND bytes written per host byte written, when the drive reports both and the host
    /// wrote something.
    pub fn write_amplification(&self) -> Option<f64> {
        let host = self.host_bytes_written.filter(|&h| h > 0)?;
        Some(self.nand_bytes_written? as f64 / host as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ata::smart::fixtures::smart;
    use crate::nvme::smart::fixtures;

    #[test]
    fn nvme_snapshot() {
        let h = Health::from_nvme(SmartLog::parse(&fixtures::smart()).unwrap());
        assert_eq!(h.host_bytes_read, Some(12_345_678 * 512_000));
        assert_eq!(h.host_bytes_written, Some(u64::MAX)); // the fixture's 2^64 units saturate
        assert_eq!(h.temperature_c, Some(37));
        assert_eq!(h.sensors_c[..3], [Some(37), Some(52), None]);
        assert_eq!(
            (h.thermal_throttle_events, h.thermal_throttle_seconds),
            (Some(6), Some(320))
        );
        assert_eq!(
            (h.power_on_hours, h.unsafe_shutdowns, h.percentage_used),
            (Some(8760), Some(42), Some(3))
        );
        assert_eq!(h.nand_bytes_written, None);
        let back: Health = serde_json::from_str(&serde_json::to_string(&h).unwrap()).unwrap();
        assert_eq!(back, h);
    }

    #[test]
    fn nvme_delta_has_no_write_amplification() {
        let mut b = fixtures::smart();
        b[48..64].copy_from_slice(&1000u128.to_le_bytes());
        let before = Health::from_nvme(SmartLog::parse(&b).unwrap());
        b[48..64].copy_from_slice(&3000u128.to_le_bytes());
        let after = Health::from_nvme(SmartLog::parse(&b).unwrap());
        let d = Health::delta(&before, &after);
        assert_eq!(d.host_bytes_written, Some(2000 * 512_000));
        assert_eq!(d.host_bytes_read, Some(0));
        assert_eq!(d.granularity_bytes, Some(512_000));
        assert_eq!(d.write_amplification(), None);
        // Backwards: a different drive or a reset counter.
        assert_eq!(Health::delta(&after, &before).host_bytes_written, None);
    }

    #[test]
    fn ata_delta_with_write_amplification() {
        let model = "INTEL SSDSC2BB480G6";
        let before = Health::from_ata(
            model,
            SmartData::parse(&smart(&[(241, 100, 100), (243, 100, 150), (194, 100, 30)])).unwrap(),
        );
        let after = Health::from_ata(
            model,
            SmartData::parse(&smart(&[(241, 100, 132), (243, 100, 230), (194, 100, 41)])).unwrap(),
        );
        let d = Health::delta(&before, &after);
        assert_eq!(d.host_bytes_written, Some(32 * (32 << 20)));
        assert_eq!(d.nand_bytes_written, Some(80 * (32 << 20)));
        assert_eq!(d.write_amplification(), Some(2.5));
        assert_eq!(after.temperature_c, Some(41));
        assert_eq!(d.granularity_bytes, None);
        let unknown = Health::from_ata(
            "QEMU HARDDISK",
            SmartData::parse(&smart(&[(241, 100, 100)])).unwrap(),
        );
        assert_eq!(unknown.host_bytes_written, None);
        let back: Health = serde_json::from_str(&serde_json::to_string(&after).unwrap()).unwrap();
        assert_eq!(back, after);
    }

    #[test]
    fn no_host_writes_means_no_write_amplification() {
        let d = HealthDelta {
            host_bytes_read: None,
            host_bytes_written: Some(0),
            nand_bytes_written: Some(4096),
            media_errors: None,
            thermal_throttle_events: None,
            thermal_throttle_seconds: None,
            unsafe_shutdowns: None,
            granularity_bytes: None,
        };
        assert_eq!(d.write_amplification(), None);
    }
}
