//! A Linux powercap zone: power from its energy counter (`energy_uj`, microjoules) read at
//! intervals, across the counter's wrap at `max_energy_range_uj`. Zones are usually the CPU
//! package (RAPL); only one on the drive's rail measures the drive, and the user names it.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::{read_attr, read_integer, read_sysfs, Chip, MeterError, Sensor, SensorError};

pub(super) struct Powercap {
    dir: PathBuf,
    name: String,
    /// The counter wraps to 0 past this; `None` when the zone does not say.
    max_range_uj: Option<u64>,
    last: Option<(Instant, u64)>,
}

impl Powercap {
    pub(super) fn open(sysfs_root: &Path, zone: &Chip) -> Result<Powercap, MeterError> {
        let dir = match zone {
            Chip::Path(p) => p.clone(),
            Chip::Name(name) => {
                let class = sysfs_root.join("class/powercap");
                let dir = class.join(name);
                if !dir.is_dir() {
                    let mut present: Vec<String> = std::fs::read_dir(&class)
                        .map(|d| {
                            d.filter_map(|e| e.ok()?.file_name().into_string().ok())
                                .collect()
                        })
                        .unwrap_or_default();
                    present.sort();
                    return Err(MeterError::NoSuchZone {
                        zone: name.clone(),
                        dir: class.display().to_string(),
                        present: if present.is_empty() {
                            "none".into()
                        } else {
                            present.join(", ")
                        },
                    });
                }
                dir
            }
        };
        let energy = dir.join("energy_uj");
        let text = read_sysfs(&energy).map_err(|source| MeterError::Unreadable {
            path: energy.display().to_string(),
            hint: if source.kind() == std::io::ErrorKind::PermissionDenied {
                " (energy counters are readable by root only on recent kernels: run as root)"
            } else {
                ""
            },
            error: source,
        })?;
        if text.trim().parse::<u64>().is_err() {
            return Err(MeterError::NotANumber {
                path: energy.display().to_string(),
                text: text.trim().to_string(),
                unit: "microjoules",
            });
        }
        Ok(Powercap {
            name: read_attr(&dir.join("name")).unwrap_or_else(|_| dir.display().to_string()),
            max_range_uj: read_integer(&dir.join("max_energy_range_uj"))
                .ok()
                .and_then(|v| u64::try_from(v).ok()),
            dir,
            last: None,
        })
    }
}

/// Energy used between two counter readings, across one wrap; `None` when the counter ran
/// back and the zone gives no range to wrap at (or a reading lies past it).
pub fn energy_delta_uj(before: u64, after: u64, max_range_uj: Option<u64>) -> Option<u64> {
    if after >= before {
        return Some(after - before);
    }
    let max = max_range_uj.filter(|&m| m >= before)?;
    Some(max - before + after)
}

impl Powercap {
    /// The mean power since the last counter reading, stamped at the middle of the
    /// interval; `Ok(None)` for the first (it only sets the baseline).
    fn reading(
        &mut self,
        now: Instant,
        energy_uj: u64,
    ) -> Result<Option<(Instant, f64)>, SensorError> {
        let Some((then, before)) = self.last.replace((now, energy_uj)) else {
            return Ok(None);
        };
        let delta = energy_delta_uj(before, energy_uj, self.max_range_uj).ok_or_else(|| {
            SensorError::CounterRanBack {
                path: format!("{}/energy_uj", self.dir.display()),
                before,
                after: energy_uj,
            }
        })?;
        let interval = now.saturating_duration_since(then);
        if interval.is_zero() {
            return Ok(None);
        }
        Ok(Some((
            then + interval / 2,
            delta as f64 / 1e6 / interval.as_secs_f64(),
        )))
    }
}

impl Sensor for Powercap {
    fn read(&mut self) -> Result<Option<(Instant, f64)>, SensorError> {
        let path = self.dir.join("energy_uj");
        let energy = u64::try_from(read_integer(&path)?).map_err(|_| SensorError::Negative {
            path: path.display().to_string(),
        })?;
        self.reading(Instant::now(), energy)
    }

    fn description(&self) -> String {
        format!(
            "powercap zone {} ({}), energy counter differences",
            self.name,
            self.dir.display()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn energy_deltas_across_the_wrap() {
        assert_eq!(energy_delta_uj(100, 350, None), Some(250));
        assert_eq!(energy_delta_uj(900, 100, Some(1000)), Some(200));
        assert_eq!(energy_delta_uj(1000, 0, Some(1000)), Some(0));
        assert_eq!(energy_delta_uj(900, 100, None), None);
        assert_eq!(energy_delta_uj(2000, 100, Some(1000)), None);
    }

    #[test]
    fn power_from_counter_readings_across_a_wrap() {
        let mut zone = Powercap {
            dir: PathBuf::from("/sys/class/powercap/test:0"),
            name: "test".into(),
            max_range_uj: Some(10_000_000),
            last: None,
        };
        let t0 = Instant::now();
        let at = |ms: u64| t0 + std::time::Duration::from_millis(ms);
        assert_eq!(zone.reading(at(0), 9_000_000).unwrap(), None);
        // 1 J to the wrap and 2 J past it in one second: 3 W, stamped mid-interval.
        let (stamp, watts) = zone.reading(at(1000), 2_000_000).unwrap().unwrap();
        assert_eq!(stamp, at(500));
        assert!((watts - 3.0).abs() < 1e-9);
        let (_, watts) = zone.reading(at(1500), 3_000_000).unwrap().unwrap();
        assert!((watts - 2.0).abs() < 1e-9);
        zone.max_range_uj = None;
        let err = zone.reading(at(2000), 1_000).unwrap_err().to_string();
        assert!(err.contains("ran back"), "{err}");
    }
}
