//! NVMe passthrough: NVMe Read, Write, Dataset Management (deallocate) and Flush commands
//! issued through io_uring's `IORING_OP_URING_CMD` on a namespace's generic character device
//! (`/dev/ngXnY`), as fio's `io_uring_cmd` engine does. The block layer (scheduler, splitting,
//! merging) is bypassed; the measurements are the same as the block path's.
//!
//! Needs Linux 5.19+ (big SQEs and CQEs) and an NVMe drive: loop devices, SATA drives and
//! files have no generic device and are refused with a clear message.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::Instant;

use io_uring::{cqueue, opcode, squeue, types, IoUring};

use drive::nvme::passthru::PassthruCmd;

use crate::buffer::BufferPool;
use crate::device::{Completion, Device, DeviceError, Io, Op};
use crate::polling::Polling;
use crate::target::{OpenRequest, TargetError};
use crate::uring;
use crate::wall::{duplicate, MakeQueue, Queue, WallDevice};

/// `_IOWR('N', 0x80, struct nvme_uring_cmd)`: an NVMe IO command through io_uring.
const NVME_URING_CMD_IO: u32 = 0xC048_4E80;

// NVMe IO command opcodes (NVM Command Set).
const NVME_CMD_FLUSH: u8 = 0x00;
const NVME_CMD_WRITE: u8 = 0x01;
const NVME_CMD_READ: u8 = 0x02;
const NVME_CMD_DSM: u8 = 0x09;
/// Dataset Management attribute: deallocate.
const NVME_DSM_AD: u32 = 1 << 2;

/// One Dataset Management range.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct DsmRange {
    attributes: u32,
    blocks: u32,
    first_lba: u64,
}

/// `--target /dev/ngXnY`: the generic device itself.
pub fn open(spec: &str, req: &OpenRequest) -> Result<Box<dyn Device>, TargetError> {
    let generic = PathBuf::from(spec);
    let Some(block) = block_of_generic(&generic) else {
        return Err(TargetError::Passthrough {
            path: spec.to_string(),
            reason: "not an NVMe generic device: their names are /dev/ngXnY, namespace Y of \
                     controller X (`ls /dev/ng*` lists them)"
                .into(),
        });
    };
    Ok(Box::new(open_generic(&generic, &block, spec, req)?))
}

/// `--target /dev/nvmeXnY --backend io_uring-cmd`: the namespace's generic device.
pub fn open_namespace(block: &Path, req: &OpenRequest) -> Result<Box<dyn Device>, TargetError> {
    let shown = block.display().to_string();
    let Some(generic) = generic_of_block(block) else {
        return Err(TargetError::Passthrough {
            path: shown,
            reason: "not an NVMe namespace: the io_uring-cmd backend issues NVMe commands \
                     through a namespace's generic character device (/dev/ngXnY), which only \
                     NVMe drives have; use --backend io_uring (the default) for this device"
                .into(),
        });
    };
    Ok(Box::new(open_generic(&generic, block, &shown, req)?))
}

/// The block device of an NVMe namespace's generic character device, beside it:
/// `/dev/ng0n1` -> `/dev/nvme0n1` (the kernel numbers the two alike).
pub fn block_of_generic(generic: &Path) -> Option<PathBuf> {
    renamed(generic, "ng", "nvme")
}

/// The generic character device of an NVMe namespace's block device: `/dev/nvme0n1` ->
/// `/dev/ng0n1`.
pub fn generic_of_block(block: &Path) -> Option<PathBuf> {
    renamed(block, "nvme", "ng")
}

/// `DIR/{from}XnY` as `DIR/{to}XnY`; `None` for a name of another form (a partition
/// `nvme0n1p1`, a controller `nvme0`).
fn renamed(path: &Path, from: &str, to: &str) -> Option<PathBuf> {
    let numbers = path.file_name()?.to_str()?.strip_prefix(from)?;
    let (controller, namespace) = numbers.split_once('n')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(controller) && digits(namespace)).then(|| path.with_file_name(format!("{to}{numbers}")))
}

/// The generic device of the namespace whose block device is `block`, shown as `shown`.
fn open_generic(
    generic_path: &Path,
    block: &Path,
    shown: &str,
    req: &OpenRequest,
) -> Result<WallDevice<PassthroughQueue>, TargetError> {
    let refuse = |reason: String| TargetError::Passthrough {
        path: shown.to_string(),
        reason,
    };
    // The block device goes through the same safety checks and exclusive open as the
    // block path.
    let (claim, _, geometry, mut identity) = crate::target::block::open_block(block, req)?;
    let generic = OpenOptions::new()
        .read(true)
        .write(req.write)
        .open(generic_path)
        .map_err(|e| {
            refuse(match e.raw_os_error() {
                Some(libc::ENOENT) => format!(
                    "{} does not exist: NVMe generic character devices need Linux 5.13 \
                     or later",
                    generic_path.display()
                ),
                Some(libc::EACCES) | Some(libc::EPERM) => format!(
                    "{}: permission denied (NVMe passthrough needs root)",
                    generic_path.display()
                ),
                _ => format!("{}: {e}", generic_path.display()),
            })
        })?;
    use std::os::fd::AsFd;
    let Some(nsid) = drive::nvme::namespace_id(generic.as_fd()) else {
        return Err(refuse(format!(
            "{} is not an NVMe namespace",
            generic_path.display()
        )));
    };
    if let Some(why) = req.polling.refused(block, true) {
        return Err(refuse(why));
    }
    let ring = ring_with(64, req.polling).map_err(|e| {
        refuse(format!(
            "io_uring with big entries (SQE128/CQE32) is not available ({e}): NVMe \
             passthrough needs Linux 5.19 or later; use --backend io_uring"
        ))
    })?;
    let max_hw_kb = crate::sysfs::BlockNode::of_device(block)
        .ok()
        .and_then(|n| n.attr("queue/max_hw_sectors_kb"))
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(128);
    identity.path = shown.to_string();
    identity
        .details
        .insert("generic_device".into(), generic_path.display().to_string());
    identity.details.insert("nsid".into(), nsid.to_string());
    let queue = PassthroughQueue {
        ring,
        generic,
        _claim: claim,
        nsid,
        polling: req.polling,
        lba_shift: geometry.logical_block_bytes.trailing_zeros(),
        max_bytes: max_hw_kb << 10,
        ranges: Vec::new(),
        lens: Vec::new(),
    };
    let mut dev = WallDevice::new(queue, identity, geometry);
    probe(&mut dev).map_err(|e| {
        refuse(format!(
            "the kernel refused an NVMe command through io_uring ({e}): passthrough \
             needs Linux 5.19 or later and the nvme driver; use --backend io_uring"
        ))
    })?;
    Ok(dev)
}

/// Read the first block: proves the kernel and drive take passthrough commands.
fn probe(dev: &mut impl Device) -> Result<(), DeviceError> {
    let block = dev.geometry().logical_block_bytes;
    dev.prepare(1, block as usize)?;
    dev.submit(Io {
        slot: 0,
        op: Op::Read,
        offset: 0,
        len: block,
    })?;
    let mut done = Vec::with_capacity(1);
    dev.reap(1, None, &mut done)?;
    match done.first().map(|c| c.result) {
        Some(r) if r >= 0 => Ok(()),
        Some(r) => Err(DeviceError::os(
            "probe read",
            io::Error::from_raw_os_error(-r as i32),
        )),
        None => Err(DeviceError::Other("probe read did not complete".into())),
    }
}

pub(crate) struct PassthroughQueue {
    ring: IoUring<squeue::Entry128, cqueue::Entry32>,
    generic: File,
    /// The namespace's block device, held open exclusively so nobody mounts it meanwhile.
    _claim: File,
    nsid: u32,
    polling: Polling,
    lba_shift: u32,
    /// The largest transfer one command may carry (the block device's max_hw_sectors).
    max_bytes: u64,
    /// One DSM range per slot: a deallocate command points at its slot's.
    ranges: Vec<DsmRange>,
    /// The length of each slot's IO in flight: what a successful completion transferred.
    lens: Vec<u32>,
}

impl PassthroughQueue {
    fn command(&mut self, io: Io, buf: *mut u8) -> Result<PassthruCmd, DeviceError> {
        let block = 1u64 << self.lba_shift;
        let mut cmd = PassthruCmd {
            nsid: self.nsid,
            ..PassthruCmd::default()
        };
        if io.op == Op::Flush {
            cmd.opcode = NVME_CMD_FLUSH;
            return Ok(cmd);
        }
        if !io.offset.is_multiple_of(block) || !(io.len as u64).is_multiple_of(block) || io.len == 0
        {
            return Err(DeviceError::Invalid(format!(
                "{} of {} bytes at {} is not in whole {block}-byte blocks",
                io.op.name(),
                io.len,
                io.offset
            )));
        }
        let lba = io.offset >> self.lba_shift;
        let blocks = (io.len as u64 >> self.lba_shift) as u32;
        if io.op == Op::Discard {
            let range = &mut self.ranges[io.slot as usize];
            *range = DsmRange {
                attributes: 0,
                blocks,
                first_lba: lba,
            };
            cmd.opcode = NVME_CMD_DSM;
            cmd.addr = range as *const DsmRange as u64;
            cmd.data_len = std::mem::size_of::<DsmRange>() as u32;
            cmd.cdw10 = 0; // one range (0-based)
            cmd.cdw11 = NVME_DSM_AD;
            return Ok(cmd);
        }
        if io.len as u64 > self.max_bytes {
            return Err(DeviceError::Invalid(format!(
                "an IO of {} bytes exceeds the largest one NVMe command may carry here ({} \
                 bytes, the namespace's max_hw_sectors_kb): passthrough does not split IOs; \
                 use --backend io_uring for larger transfers",
                io.len, self.max_bytes
            )));
        }
        cmd.opcode = if io.op == Op::Read {
            NVME_CMD_READ
        } else {
            NVME_CMD_WRITE
        };
        cmd.addr = buf as u64;
        cmd.data_len = io.len;
        cmd.cdw10 = lba as u32;
        cmd.cdw11 = (lba >> 32) as u32;
        cmd.cdw12 = blocks - 1; // number of logical blocks, 0-based
        Ok(cmd)
    }
}

impl Queue for PassthroughQueue {
    const BACKEND: &'static str = "io_uring-cmd";

    fn file(&self) -> &File {
        &self.generic
    }

    fn another(&self) -> Result<MakeQueue<Self>, DeviceError> {
        let (generic, claim) = (duplicate(&self.generic)?, duplicate(&self._claim)?);
        let (nsid, lba_shift, max_bytes) = (self.nsid, self.lba_shift, self.max_bytes);
        let polling = self.polling;
        Ok(Box::new(move || {
            Ok(PassthroughQueue {
                ring: ring_with(64, polling).map_err(|e| DeviceError::os("io_uring setup", e))?,
                generic,
                _claim: claim,
                nsid,
                polling,
                lba_shift,
                max_bytes,
                ranges: Vec::new(),
                lens: Vec::new(),
            })
        }))
    }

    fn prepare(&mut self, pool: &BufferPool, _: Instant) -> Result<(), DeviceError> {
        let polling = self.polling;
        if let Some(ring) = uring::larger(&self.ring, pool.slots(), |n| ring_with(n, polling))? {
            self.ring = ring;
        }
        self.ranges = vec![DsmRange::default(); pool.slots() as usize];
        self.lens = vec![0; pool.slots() as usize];
        Ok(())
    }

    fn queue(&mut self, io: Io, buf: *mut u8, _: Instant) -> Result<(), DeviceError> {
        let cmd = self.command(io, buf)?;
        self.lens[io.slot as usize] = if io.op == Op::Flush { 0 } else { io.len };
        let sqe = opcode::UringCmd80::new(types::Fd(self.generic.as_raw_fd()), NVME_URING_CMD_IO)
            .cmd(cmd.uring_cmd_bytes())
            .build()
            .user_data(io.slot as u64);
        // SAFETY: the buffer and DSM range the command points at are the device's pool and
        // `self.ranges`, replaced only in `prepare`, with nothing in flight.
        unsafe { uring::push(&mut self.ring, &sqe) }
    }

    fn start(&mut self) -> Result<(), DeviceError> {
        uring::start(&self.ring)
    }

    fn drain(&mut self, epoch: Instant, done: &mut Vec<Completion>) -> u32 {
        let lens = &self.lens;
        // 0: success; negative: an errno; positive: the NVMe status of a failed command.
        uring::drain(&mut self.ring, epoch, done, |slot, result| match result {
            0 => lens[slot as usize] as i64,
            r if r < 0 => r as i64,
            _ => -(libc::EIO as i64),
        })
    }

    fn wait(
        &mut self,
        want: u32,
        left_ns: Option<u64>,
        _: &mut Vec<Completion>,
    ) -> Result<u32, DeviceError> {
        uring::enter(&self.ring.submitter(), want, left_ns).map(|()| 0)
    }
}

fn ring_with(
    entries: u32,
    polling: Polling,
) -> io::Result<IoUring<squeue::Entry128, cqueue::Entry32>> {
    let mut builder = IoUring::<squeue::Entry128, cqueue::Entry32>::builder();
    polling.apply(&mut builder);
    builder.build(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_namespace_has_a_block_and_a_generic_name() {
        let p = |s: &str| Some(PathBuf::from(s));
        assert_eq!(block_of_generic(Path::new("/dev/ng0n1")), p("/dev/nvme0n1"));
        assert_eq!(
            block_of_generic(Path::new("/dev/ng12n3")),
            p("/dev/nvme12n3")
        );
        assert_eq!(generic_of_block(Path::new("/dev/nvme0n1")), p("/dev/ng0n1"));
        for not in [
            "/dev/nvme0n1p1",
            "/dev/nvme0",
            "/dev/sda",
            "/dev/ngx",
            "/dev/nvme0c0n1",
        ] {
            assert_eq!(generic_of_block(Path::new(not)), None, "{not}");
            assert_eq!(block_of_generic(Path::new(not)), None, "{not}");
        }
    }
}
