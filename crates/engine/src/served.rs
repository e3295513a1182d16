//! A simulated drive served as a block device (`ssdlab sim serve`, `/dev/ublkbN`): what its
//! server publishes while it runs, so that whoever opens the device can tell which simulated
//! drive it is and read its counters, as a real drive answers identify and SMART.
//!
//! The server rewrites `/run/ssdlab/served/NAME.json` every second and removes it when it
//! stops; a file whose server has gone (killed with -9) is ignored.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Where servers publish, one file per served device.
const DIR: &str = "/run/ssdlab/served";

/// A served simulated drive, as its server last published it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServedDrive {
    /// The server's process.
    pub pid: u32,
    /// The block device, `/dev/ublkbN`.
    pub device: String,
    /// The simulated drive served, `sim:PRESET[,key=value...]`.
    pub target: String,
    /// The simulated drive's model.
    pub model: String,
    pub capacity_bytes: u64,
    /// How many times slower than the model the drive runs on the wall clock.
    pub slowdown: u32,
    pub queues: u16,
    pub depth: u16,
    /// Requests served so far.
    pub ios: u64,
    /// The simulated drive's own counters, in bytes (4 KiB units).
    pub host_bytes_read: u64,
    pub host_bytes_written: u64,
    pub nand_bytes_written: u64,
    pub gc_invocations: u64,
}

impl ServedDrive {
    fn file(kernel_name: &str) -> PathBuf {
        PathBuf::from(DIR).join(format!("{kernel_name}.json"))
    }

    /// The kernel's name of the device (`ublkb0`).
    fn kernel_name(&self) -> &str {
        self.device.rsplit('/').next().unwrap_or(&self.device)
    }

    /// Publish (or update) the status, whole or not at all.
    pub fn publish(&self) -> std::io::Result<()> {
        std::fs::create_dir_all(DIR)?;
        let file = Self::file(self.kernel_name());
        let tmp = file.with_extension("json.new");
        std::fs::write(
            &tmp,
            serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?,
        )?;
        std::fs::rename(tmp, file)
    }

    /// The device is no longer served.
    pub fn withdraw(&self) {
        let _ = std::fs::remove_file(Self::file(self.kernel_name()));
    }

    /// The drive served as `/dev/KERNEL_NAME`, when one is and its server is running.
    pub fn of(kernel_name: &str) -> Option<ServedDrive> {
        let text = std::fs::read(Self::file(kernel_name)).ok()?;
        let served: ServedDrive = serde_json::from_slice(&text).ok()?;
        let alive =
            std::fs::read_to_string(format!("/proc/{}/status", served.pid)).is_ok_and(|s| {
                !s.lines()
                    .any(|l| l.starts_with("State:") && l.contains('Z'))
            });
        alive.then_some(served)
    }

    /// NAND writes over host writes; `None` before any write.
    pub fn write_amplification(&self) -> Option<f64> {
        (self.host_bytes_written > 0)
            .then(|| self.nand_bytes_written as f64 / self.host_bytes_written as f64)
    }
}
