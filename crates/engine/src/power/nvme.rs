//! An NVMe drive's own power-state table as an estimate: the current power state (Get
//! Features, Power Management, FID 02h) and that state's rated maximum power from Identify
//! Controller. Never a measurement: a drive usually draws less than its state's maximum,
//! and with APST it may change state between polls.

use std::collections::BTreeSet;
use std::os::fd::BorrowedFd;
use std::path::{Path, PathBuf};
use std::time::Instant;

use drive::nvme::identify::PowerState;
use drive::nvme::passthru::{admin, AdminCommand};

use super::{MeterError, Sensor, SensorError};

const OPC_GET_FEATURES: u8 = 0x0A;
const FID_POWER_MANAGEMENT: u32 = 0x02;

/// The drive's current power state (Get Features, Power Management, current value).
pub fn current_power_state(fd: BorrowedFd<'_>) -> drive::Result<u8> {
    let cmd = AdminCommand {
        opcode: OPC_GET_FEATURES,
        // SEL (bits 10:8) 0: the current value.
        cdw10: FID_POWER_MANAGEMENT,
        // A drive that takes longer to say its power state is stuck, not busy.
        timeout_ms: 5_000,
        ..AdminCommand::default()
    };
    let dword0 = admin(fd, "Get Features (Power Management)", &cmd, None)?;
    Ok(power_state_of(dword0))
}

/// Power State (PS) from Get Features Power Management's Dword 0: bits 4:0.
pub fn power_state_of(dword0: u32) -> u8 {
    (dword0 & 0x1F) as u8
}

/// The rated maximum power of `state`, if the table lists it.
pub fn rated_max_w(states: &[PowerState], state: u8) -> Option<f64> {
    states.get(usize::from(state)).map(|s| s.max_power_w)
}

/// How an estimate is labelled wherever it is shown.
pub fn estimate_label(state: u8, watts: f64) -> String {
    format!("rated maximum for power state {state} ({watts} W; an estimate, not a measurement)")
}

pub(super) struct NvmeStates {
    device: PathBuf,
    drive: drive::Drive<'static>,
    states: Vec<PowerState>,
    seen: BTreeSet<u8>,
}

impl NvmeStates {
    pub(super) fn open(device: &Path) -> Result<NvmeStates, MeterError> {
        let name = device.display().to_string();
        let failed = |source| MeterError::Drive {
            device: name.clone(),
            error: source,
        };
        let drive = drive::open(device)
            .map_err(failed)?
            .filter(|d| d.interface() == drive::Interface::Nvme)
            .ok_or_else(|| MeterError::NotNvme {
                device: name.clone(),
            })?;
        let states = drive::nvme::identify_controller(drive.fd())
            .map_err(failed)?
            .power_states;
        if states.is_empty() {
            return Err(MeterError::NoPowerStates { device: name });
        }
        // Ask once now, so a drive that refuses Get Features fails here, not as a gap.
        current_power_state(drive.fd()).map_err(failed)?;
        Ok(NvmeStates {
            device: device.to_path_buf(),
            drive,
            states,
            seen: BTreeSet::new(),
        })
    }
}

impl Sensor for NvmeStates {
    fn read(&mut self) -> Result<Option<(Instant, f64)>, SensorError> {
        let state = current_power_state(self.drive.fd()).map_err(SensorError::Drive)?;
        let at = Instant::now();
        let watts = rated_max_w(&self.states, state).ok_or(SensorError::UnlistedPowerState {
            state,
            listed: self.states.len(),
        })?;
        self.seen.insert(state);
        Ok(Some((at, watts)))
    }

    fn description(&self) -> String {
        let seen: Vec<String> = self
            .seen
            .iter()
            .filter_map(|&s| Some(estimate_label(s, rated_max_w(&self.states, s)?)))
            .collect();
        let seen = if seen.is_empty() {
            String::new()
        } else {
            format!("; seen: {}", seen.join(", "))
        };
        format!(
            "NVMe power-state table of {}: the rated maximum for the current power state (an estimate, not a measurement){seen}",
            self.device.display()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(max_power_w: f64) -> PowerState {
        PowerState {
            max_power_w,
            non_operational: false,
            entry_latency_us: 0,
            exit_latency_us: 0,
            relative_read_throughput: 0,
            relative_read_latency: 0,
            relative_write_throughput: 0,
            relative_write_latency: 0,
            idle_power_w: None,
            active_power_w: None,
        }
    }

    #[test]
    fn the_current_state_and_its_rated_maximum() {
        // PS 2, Workload Hint 1 (bits 7:5) set beside it.
        assert_eq!(power_state_of(0x22), 2);
        let table = [state(8.49), state(4.0), state(0.005)];
        assert_eq!(rated_max_w(&table, 1), Some(4.0));
        assert_eq!(rated_max_w(&table, 3), None);
        let label = estimate_label(1, 4.0);
        assert!(label.contains("rated maximum for power state 1"));
        assert!(label.contains("an estimate, not a measurement"));
    }
}
