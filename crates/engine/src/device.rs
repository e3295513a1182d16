//! The contract between the driver and every device, real or simulated.
//!
//! Like fio's `ioengine_ops`, it is deliberately tiny: queue an IO, reap completions, tell the
//! time. Each device keeps its own clock. Real devices use the wall clock; the simulator uses a
//! virtual clock that `reap` advances, so the driver never knows which one it has.

use serde::{Deserialize, Serialize};

use crate::counters::DeviceCounters;
use crate::identity::Identity;
use crate::power::link::{LinkPowerControl, LinkPowerError};
use crate::target_kind::TargetKind;

/// What an IO does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Read,
    Write,
    /// Unmap the range (TRIM / BLKDISCARD / hole punch).
    Discard,
    /// Make earlier writes durable; `offset` and `len` are ignored.
    Flush,
}

impl Op {
    pub fn name(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Discard => "discard",
            Op::Flush => "flush",
        }
    }

    /// Every op, in [`Op::index`] order.
    pub const ALL: [Op; 4] = [Op::Read, Op::Write, Op::Discard, Op::Flush];

    /// Its place in [`Op::ALL`], for tables counted by op.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// One IO request. `slot` names the buffer it uses (`0..slots` from [`Device::prepare`]) and
/// comes back in its [`Completion`]; at most one IO per slot is in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Io {
    pub slot: u32,
    pub op: Op,
    pub offset: u64,
    pub len: u32,
}

/// A finished IO: `result` is the byte count transferred, or a negative errno.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    pub slot: u32,
    pub complete_ns: u64,
    pub result: i64,
}

/// Which clock a device runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Clock {
    /// Real time: the device is real hardware or a file.
    Wall,
    /// Simulated time: advances only as the simulated device works.
    Virtual,
}

/// The size of a device as the host sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Geometry {
    pub capacity_bytes: u64,
    /// The smallest IO the device accepts (O_DIRECT alignment).
    pub logical_block_bytes: u32,
    /// The device's internal block (4 KiB on most SSDs).
    pub physical_block_bytes: u32,
}

#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    /// The OS error is in the message, not the source chain: `{:#}` would print it twice.
    #[error("{what}: {error}")]
    Os { what: String, error: std::io::Error },
    #[error("invalid IO: {0}")]
    Invalid(String),
    #[error("{0}")]
    Other(String),
    /// The drive's own error is in the message, not the source chain: `{:#}` would print
    /// its OS error twice.
    #[error("{0}")]
    Drive(drive::Error),
    #[error("a {0} target has no write cache ssdlab can switch")]
    NoWriteCache(TargetKind),
    #[error(transparent)]
    LinkPower(#[from] LinkPowerError),
}

impl DeviceError {
    pub fn os(what: impl Into<String>, source: std::io::Error) -> Self {
        DeviceError::Os {
            what: what.into(),
            error: source,
        }
    }
}

/// What a test needs reads to return, for [`Device::need_data`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataNeed {
    /// Written blocks told apart from unwritten or trimmed ones (which read as zeroes): the
    /// contents may be a stand-in.
    Mapping,
    /// Exactly what was written (data verification).
    Exact,
    /// No data any more: the simulator may go back to not looking at data (what a test
    /// asked for with `Mapping`); data it keeps for verification it keeps.
    Nothing,
}

/// What a device claims trimmed blocks read back as: NVMe's DLFEAT, ATA's RZAT and DRAT.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TrimmedReads {
    /// Deterministic zeroes (RZAT; DLFEAT 001b).
    Zeroes,
    /// Every byte 0xFF (DLFEAT 010b).
    Ones,
    /// The same data every time, not necessarily zeroes (DRAT without RZAT).
    Deterministic,
    /// No promise: old data, zeroes or anything.
    Unspecified,
}

impl TrimmedReads {
    /// The claim in a drive's identify data.
    pub fn claimed_by(id: &drive::Identify) -> Option<TrimmedReads> {
        use drive::identify::Detail;
        use drive::nvme::identify::DeallocatedRead;
        match &id.detail {
            Detail::Nvme { namespace, .. } => match namespace.as_ref()?.dlfeat.read_value {
                DeallocatedRead::Zeroes => Some(TrimmedReads::Zeroes),
                DeallocatedRead::Ones => Some(TrimmedReads::Ones),
                _ => Some(TrimmedReads::Unspecified),
            },
            Detail::Ata(d) if !d.trim => None,
            Detail::Ata(d) if d.deterministic_read_after_trim && d.zeroes_after_trim => {
                Some(TrimmedReads::Zeroes)
            }
            Detail::Ata(d) if d.deterministic_read_after_trim => Some(TrimmedReads::Deterministic),
            Detail::Ata(_) => Some(TrimmedReads::Unspecified),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            TrimmedReads::Zeroes => "zeroes",
            TrimmedReads::Ones => "ones",
            TrimmedReads::Deterministic => "deterministic",
            TrimmedReads::Unspecified => "unspecified",
        }
    }
}

/// Makes another queue to a device's target, in the thread that will use it: an io_uring
/// ring takes submissions only from the thread that made it.
pub type QueueMaker = Box<dyn FnOnce() -> Result<Box<dyn Device>, DeviceError> + Send>;

/// A block device, a file or a simulated SSD.
pub trait Device {
    /// Who the device is: model, serial, firmware, kind of target.
    fn identity(&self) -> Identity;

    fn geometry(&self) -> Geometry;

    fn clock(&self) -> Clock;

    /// Nanoseconds since the device was opened, on the device's own clock.
    fn now_ns(&self) -> u64;

    /// Allocate `slots` data buffers of `max_len` bytes; called before any IO and again
    /// whenever a workload needs more or larger buffers (never with IO in flight).
    fn prepare(&mut self, slots: u32, max_len: usize) -> Result<(), DeviceError>;

    /// The data buffer of a slot: filled before a write, holds the data after a read.
    /// `None` when the device does not look at data (the simulator), so the driver can
    /// skip generating it.
    fn buffer(&mut self, slot: u32) -> Option<&mut [u8]>;

    /// Queue an IO. It starts no later than the next [`Device::reap`].
    fn submit(&mut self, io: Io) -> Result<(), DeviceError>;

    /// Queue IOs that are due together and start them with as little time between them as
    /// the device allows (io_uring: one system call for all).
    fn submit_all(&mut self, ios: &[Io]) -> Result<(), DeviceError> {
        ios.iter().try_for_each(|io| self.submit(*io))
    }

    /// Start queued IOs, then wait until at least `min` of them have completed or, when
    /// `until_ns` is given, the clock reaches it, whichever comes first. Completions are
    /// appended to `done`. With nothing in flight and `until_ns` given, this just lets the
    /// time pass (a simulated device may use the idle time, e.g. for background GC).
    fn reap(
        &mut self,
        min: u32,
        until_ns: Option<u64>,
        done: &mut Vec<Completion>,
    ) -> Result<(), DeviceError>;

    /// Another queue to the same target, on the same clock, for another submitting thread;
    /// `None` where the device has one queue (the simulator runs several threads as streams
    /// on its own clock).
    fn another_queue(&self) -> Option<Result<QueueMaker, DeviceError>> {
        None
    }

    /// The drive behind the target when it speaks NVMe or ATA, for its own commands
    /// (identify, health, purge). `None` for files, loop devices and the simulator.
    fn drive(&self) -> Option<drive::Drive<'_>> {
        None
    }

    /// The drive's temperature now, sampled once a second into the per-second series. NVMe
    /// only: its SMART log read is cheap, while an ATA SMART read is not a queued command and
    /// would drain the drive's queue every second.
    fn temperature_c(&self) -> Option<f64> {
        let drive = self
            .drive()
            .filter(|d| d.interface() == drive::Interface::Nvme)?;
        drive.health().ok()?.temperature_c.map(f64::from)
    }

    /// Counters the device keeps about itself, for results: the simulator's FTL statistics,
    /// a real drive's health (NVMe SMART / Health log, ATA SMART attributes).
    fn counters(&self) -> Option<DeviceCounters> {
        let health = self.drive()?.health().ok()?;
        Some(DeviceCounters::of_drive(health))
    }

    /// Erase every block of the device at once (no IO in flight), as a sanitize, format or
    /// secure erase does; `method` says which (`Auto`: the best the device has). Returns what
    /// was done, or `None` when the device has no such command and a purge must fall back to
    /// discards.
    fn erase(
        &mut self,
        method: drive::PurgeMethod,
        progress: &mut dyn FnMut(f64),
    ) -> Result<Option<String>, DeviceError> {
        match self.drive() {
            Some(drive) => crate::erase::erase(&drive, method, progress),
            None => Ok(None),
        }
    }

    /// Make reads return data of at least this fidelity from now on (no IO in flight). A
    /// real device always returns what it holds; the simulator looks at data only when
    /// asked, and refuses when it cannot keep it (an error that says why).
    fn need_data(&mut self, need: DataNeed) -> Result<(), DeviceError> {
        let _ = need;
        Ok(())
    }

    /// What the device claims trimmed blocks read back as; `None` when it does not say. A
    /// real drive says so in its identify data (NVMe DLFEAT, ATA RZAT/DRAT).
    fn trimmed_reads(&self) -> Option<TrimmedReads> {
        TrimmedReads::claimed_by(self.identity().drive.as_ref()?)
    }

    /// The energy the device has used since it was opened, in joules, up to [`Device::now_ns`]
    /// on its own clock: the simulator's energy model. `None` for real devices, whose power
    /// only a meter can tell (`--power-meter`).
    fn energy_j(&self) -> Option<f64> {
        None
    }

    /// Where the host's link power management for this device is set and its value now
    /// (see [`crate::power::link`]); `Err` says why there is none.
    fn link_power(&self) -> Result<LinkPowerControl, LinkPowerError> {
        let id = self.identity();
        if !id.kind.is_device_node() {
            return Err(LinkPowerError::NotADeviceNode(id.kind));
        }
        crate::power::link::control_of(std::path::Path::new("/sys"), std::path::Path::new(&id.path))
    }

    /// Set the link power management [`Device::link_power`] reports to `value`.
    fn set_link_power(&mut self, value: &str) -> Result<(), DeviceError> {
        let control = self.link_power()?;
        Ok(crate::power::link::set(&control, value)?)
    }

    /// Whether the drive's volatile write cache is on (`None`: it has none); `Err` says why
    /// it cannot be told (not an NVMe or ATA drive, passthrough refused).
    fn write_cache(&self) -> Result<Option<bool>, DeviceError> {
        match self.drive() {
            Some(d) => d.write_cache().map_err(DeviceError::Drive),
            None => Err(DeviceError::NoWriteCache(self.identity().kind)),
        }
    }

    /// Turn the drive's volatile write cache on or off (no IO in flight).
    fn set_write_cache(&mut self, on: bool) -> Result<(), DeviceError> {
        match self.drive() {
            Some(d) => d.set_write_cache(on).map_err(DeviceError::Drive),
            // Why there is no cache to switch, as the device says it.
            None => Err(self
                .write_cache()
                .err()
                .unwrap_or_else(|| DeviceError::Other(String::new()))),
        }
    }
}

impl<D: Device + ?Sized> Device for Box<D> {
    fn identity(&self) -> Identity {
        (**self).identity()
    }
    fn geometry(&self) -> Geometry {
        (**self).geometry()
    }
    fn clock(&self) -> Clock {
        (**self).clock()
    }
    fn now_ns(&self) -> u64 {
        (**self).now_ns()
    }
    fn prepare(&mut self, slots: u32, max_len: usize) -> Result<(), DeviceError> {
        (**self).prepare(slots, max_len)
    }
    fn buffer(&mut self, slot: u32) -> Option<&mut [u8]> {
        (**self).buffer(slot)
    }
    fn submit(&mut self, io: Io) -> Result<(), DeviceError> {
        (**self).submit(io)
    }
    fn submit_all(&mut self, ios: &[Io]) -> Result<(), DeviceError> {
        (**self).submit_all(ios)
    }
    fn reap(
        &mut self,
        min: u32,
        until_ns: Option<u64>,
        done: &mut Vec<Completion>,
    ) -> Result<(), DeviceError> {
        (**self).reap(min, until_ns, done)
    }
    fn another_queue(&self) -> Option<Result<QueueMaker, DeviceError>> {
        (**self).another_queue()
    }
    fn drive(&self) -> Option<drive::Drive<'_>> {
        (**self).drive()
    }
    fn counters(&self) -> Option<DeviceCounters> {
        (**self).counters()
    }
    fn temperature_c(&self) -> Option<f64> {
        (**self).temperature_c()
    }
    fn erase(
        &mut self,
        method: drive::PurgeMethod,
        progress: &mut dyn FnMut(f64),
    ) -> Result<Option<String>, DeviceError> {
        (**self).erase(method, progress)
    }
    fn need_data(&mut self, need: DataNeed) -> Result<(), DeviceError> {
        (**self).need_data(need)
    }
    fn trimmed_reads(&self) -> Option<TrimmedReads> {
        (**self).trimmed_reads()
    }
    fn energy_j(&self) -> Option<f64> {
        (**self).energy_j()
    }
    fn link_power(&self) -> Result<LinkPowerControl, LinkPowerError> {
        (**self).link_power()
    }
    fn set_link_power(&mut self, value: &str) -> Result<(), DeviceError> {
        (**self).set_link_power(value)
    }
    fn write_cache(&self) -> Result<Option<bool>, DeviceError> {
        (**self).write_cache()
    }
    fn set_write_cache(&mut self, on: bool) -> Result<(), DeviceError> {
        (**self).set_write_cache(on)
    }
}

#[cfg(test)]
mod tests {
    use super::TrimmedReads;
    use drive::ata::IdentifyDevice;
    use drive::nvme::{IdentifyController, IdentifyNamespace};
    use drive::Identify;

    fn nvme(dlfeat: u8) -> Identify {
        let mut ns = vec![0u8; 4096];
        ns[33] = dlfeat;
        Identify::from_nvme(
            Some(1),
            IdentifyController::parse(&[0; 4096]).unwrap(),
            Some(IdentifyNamespace::parse(&ns).unwrap()),
        )
    }

    fn ata(word69: u16, word169: u16) -> Identify {
        let mut words = [0u16; 256];
        words[69] = word69;
        words[169] = word169;
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        Identify::from_ata(IdentifyDevice::parse(&bytes).unwrap())
    }

    #[test]
    fn a_drive_claims_what_trimmed_blocks_read_as_in_its_identify_data() {
        assert_eq!(
            TrimmedReads::claimed_by(&nvme(0b001)),
            Some(TrimmedReads::Zeroes)
        );
        assert_eq!(
            TrimmedReads::claimed_by(&nvme(0b010)),
            Some(TrimmedReads::Ones)
        );
        assert_eq!(
            TrimmedReads::claimed_by(&nvme(0)),
            Some(TrimmedReads::Unspecified)
        );
        // ATA: TRIM supported (word 169 bit 0), DRAT (word 69 bit 14), RZAT (bit 5).
        let (drat, rzat) = (1 << 14, 1 << 5);
        assert_eq!(
            TrimmedReads::claimed_by(&ata(drat | rzat, 1)),
            Some(TrimmedReads::Zeroes)
        );
        assert_eq!(
            TrimmedReads::claimed_by(&ata(drat, 1)),
            Some(TrimmedReads::Deterministic)
        );
        assert_eq!(
            TrimmedReads::claimed_by(&ata(0, 1)),
            Some(TrimmedReads::Unspecified)
        );
        assert_eq!(TrimmedReads::claimed_by(&ata(drat | rzat, 0)), None);
    }
}
