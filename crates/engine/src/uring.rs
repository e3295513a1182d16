//! The default backend for real targets: io_uring with O_DIRECT, registered buffers and a
//! registered file; each IO is submitted as it is queued and completions are reaped in batches.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::time::Instant;

use io_uring::{opcode, types, IoUring};

use crate::blockdev;
use crate::buffer::BufferPool;
use crate::device::{Completion, DeviceError, Io, Op};
use crate::polling::Polling;
use crate::wall::{duplicate, MakeQueue, Queue};

pub(crate) struct UringQueue {
    ring: IoUring,
    /// Whether the kernel holds completions back until we enter the ring for events
    /// (`DEFER_TASKRUN`): then a submission asks for them too, and a drain enters the ring
    /// when the kernel flags some as waiting.
    deferred: bool,
    file: File,
    is_block: bool,
    polling: Polling,
    /// Whether the buffer pool is registered with the ring (saves a page walk per IO).
    fixed_buffers: bool,
    /// IOs that completed synchronously (discards on block devices: io_uring has no
    /// portable opcode for them).
    ready: Vec<Completion>,
}

impl UringQueue {
    /// A ring for an open file or block device. Fails when io_uring is not available, so the
    /// caller can fall back to the sync backend.
    pub(crate) fn new(file: File, is_block: bool, polling: Polling) -> io::Result<UringQueue> {
        let (ring, deferred) = ring_with(64, polling)?;
        ring.submitter().register_files(&[file.as_raw_fd()])?;
        Ok(UringQueue {
            ring,
            deferred,
            file,
            is_block,
            polling,
            fixed_buffers: false,
            ready: Vec::new(),
        })
    }
}

impl Queue for UringQueue {
    const BACKEND: &'static str = "io_uring";

    fn file(&self) -> &File {
        &self.file
    }

    fn another(&self) -> Result<MakeQueue<Self>, DeviceError> {
        let (file, is_block, polling) = (duplicate(&self.file)?, self.is_block, self.polling);
        Ok(Box::new(move || {
            UringQueue::new(file, is_block, polling)
                .map_err(|e| DeviceError::os("io_uring setup", e))
        }))
    }

    fn prepare(&mut self, pool: &BufferPool, _: Instant) -> Result<(), DeviceError> {
        let polling = self.polling;
        if let Some((ring, deferred)) = larger(&self.ring, pool.slots(), |n| ring_with(n, polling))?
        {
            self.ring = ring;
            self.deferred = deferred;
            self.ring
                .submitter()
                .register_files(&[self.file.as_raw_fd()])
                .map_err(|e| DeviceError::os("io_uring register file", e))?;
            self.fixed_buffers = false;
        }
        if self.fixed_buffers {
            let _ = self.ring.submitter().unregister_buffers();
            self.fixed_buffers = false;
        }
        let iovecs: Vec<libc::iovec> = (0..pool.slots())
            .map(|s| libc::iovec {
                iov_base: pool.slot_ptr(s).cast(),
                iov_len: pool.slot_len(),
            })
            .collect();
        // SAFETY: the iovecs point into `pool`, which lives as long as the registration
        // (it is unregistered above before the pool is replaced). Registration can fail on
        // memlock limits; then we use plain reads and writes.
        self.fixed_buffers = unsafe { self.ring.submitter().register_buffers(&iovecs) }.is_ok();
        Ok(())
    }

    /// Put an IO on the submission queue (a discard on a block device runs now).
    fn queue(&mut self, io: Io, buf: *mut u8, epoch: Instant) -> Result<(), DeviceError> {
        let fd = types::Fixed(0);
        let sqe = match (io.op, self.fixed_buffers) {
            (Op::Read, true) => opcode::ReadFixed::new(fd, buf, io.len, io.slot as u16)
                .offset(io.offset)
                .build(),
            (Op::Read, false) => opcode::Read::new(fd, buf, io.len).offset(io.offset).build(),
            (Op::Write, true) => opcode::WriteFixed::new(fd, buf, io.len, io.slot as u16)
                .offset(io.offset)
                .build(),
            (Op::Write, false) => opcode::Write::new(fd, buf, io.len)
                .offset(io.offset)
                .build(),
            (Op::Flush, _) => opcode::Fsync::new(fd).build(),
            (Op::Discard, _) if !self.is_block => opcode::Fallocate::new(fd, io.len as u64)
                .offset(io.offset)
                .mode(libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE)
                .build(),
            (Op::Discard, _) => {
                let result = match blockdev::discard(&self.file, true, io.offset, io.len as u64) {
                    Ok(()) => 0,
                    Err(e) => -(e.raw_os_error().unwrap_or(libc::EIO) as i64),
                };
                self.ready.push(Completion {
                    slot: io.slot,
                    complete_ns: blockdev::since(epoch),
                    result,
                });
                return Ok(());
            }
        };
        // SAFETY: the buffers an SQE points at are the device's pool, which is only replaced
        // in `prepare` when nothing is in flight.
        unsafe { push(&mut self.ring, &sqe.user_data(io.slot as u64)) }
    }

    fn start(&mut self) -> Result<(), DeviceError> {
        if self.deferred {
            // As fio commits: the same system call posts what has completed since.
            return enter_for_events(&mut self.ring);
        }
        start(&self.ring)
    }

    fn drain(&mut self, epoch: Instant, done: &mut Vec<Completion>) -> u32 {
        if self.deferred && self.ring.submission().taskrun() {
            // Completions wait in the kernel until we ask; an error here shows at the wait.
            let _ = enter_for_events(&mut self.ring);
        }
        let ready = self.ready.len() as u32;
        done.append(&mut self.ready);
        ready + drain(&mut self.ring, epoch, done, |_, result| result as i64)
    }

    fn wait(
        &mut self,
        want: u32,
        left_ns: Option<u64>,
        _: &mut Vec<Completion>,
    ) -> Result<u32, DeviceError> {
        enter(&self.ring.submitter(), want, left_ns).map(|()| 0)
    }
}

impl Drop for UringQueue {
    fn drop(&mut self) {
        // The kernel tears a ring down asynchronously, and a registered file stays open until
        // it has: unregister now, so the device is free (O_EXCL) the moment we return.
        let _ = self.ring.submitter().unregister_files();
        if self.fixed_buffers {
            let _ = self.ring.submitter().unregister_buffers();
        }
    }
}

/// Put an SQE on a ring's submission queue, entering the kernel first when it is full.
///
/// # Safety
/// What the SQE points at must stay valid until its completion is reaped.
pub(crate) unsafe fn push<S: io_uring::squeue::EntryMarker, C: io_uring::cqueue::EntryMarker>(
    ring: &mut IoUring<S, C>,
    sqe: &S,
) -> Result<(), DeviceError> {
    // SAFETY: the caller keeps what the SQE points at alive.
    unsafe {
        if ring.submission().push(sqe).is_err() {
            start(ring)?;
            ring.submission()
                .push(sqe)
                .map_err(|_| DeviceError::Other("io_uring submission queue full".into()))?;
        }
    }
    Ok(())
}

/// A new ring made by `make` when `ring` has no room for `slots` IOs in flight (a ring has
/// 64 entries at least).
pub(crate) fn larger<S: io_uring::squeue::EntryMarker, C: io_uring::cqueue::EntryMarker, R>(
    ring: &IoUring<S, C>,
    slots: u32,
    make: impl Fn(u32) -> io::Result<R>,
) -> Result<Option<R>, DeviceError> {
    let entries = slots.next_power_of_two().max(64);
    if entries <= ring.params().sq_entries() {
        return Ok(None);
    }
    make(entries)
        .map(Some)
        .map_err(|e| DeviceError::os("io_uring setup", e))
}

/// Append the completions on a ring, stamped now; `result` makes an IO's result of its slot
/// and its CQE's result. Returns how many.
pub(crate) fn drain<S: io_uring::squeue::EntryMarker, C: io_uring::cqueue::EntryMarker>(
    ring: &mut IoUring<S, C>,
    epoch: Instant,
    done: &mut Vec<Completion>,
    result: impl Fn(u32, i32) -> i64,
) -> u32 {
    let now = blockdev::since(epoch);
    let mut n = 0;
    for cqe in ring.completion() {
        let cqe: io_uring::cqueue::Entry = cqe.into();
        let slot = cqe.user_data() as u32;
        done.push(Completion {
            slot,
            complete_ns: now,
            result: result(slot, cqe.result()),
        });
        n += 1;
    }
    n
}

/// Start what is queued on a ring.
pub(crate) fn start<S: io_uring::squeue::EntryMarker, C: io_uring::cqueue::EntryMarker>(
    ring: &IoUring<S, C>,
) -> Result<(), DeviceError> {
    ring.submit()
        .map(drop)
        .map_err(|e| DeviceError::os("io_uring submit", e))
}

/// Submit what is queued and wait for `want` completions, or at most `left_ns` when given
/// (no wait at all when it is 0). A timeout or a signal is not an error.
pub(crate) fn enter(
    submitter: &io_uring::Submitter<'_>,
    want: u32,
    left_ns: Option<u64>,
) -> Result<(), DeviceError> {
    let result = match left_ns {
        None => submitter.submit_and_wait(want as usize),
        Some(0) => submitter.submit(),
        Some(left) => {
            let ts = types::Timespec::new()
                .sec(left / 1_000_000_000)
                .nsec((left % 1_000_000_000) as u32);
            let args = types::SubmitArgs::new().timespec(&ts);
            submitter.submit_with_args(want.max(1) as usize, &args)
        }
    };
    match result {
        Ok(_) => Ok(()),
        Err(e) if matches!(e.raw_os_error(), Some(libc::ETIME) | Some(libc::EINTR)) => Ok(()),
        Err(e) => Err(DeviceError::os("io_uring wait", e)),
    }
}

/// Submit what is queued and post the completions the kernel holds back, without waiting
/// (fio's commit: `io_uring_enter(queued, 0, GETEVENTS)`).
fn enter_for_events(ring: &mut IoUring) -> Result<(), DeviceError> {
    /// `IORING_ENTER_GETEVENTS`, which the io-uring crate does not export.
    const GETEVENTS: u32 = 1;
    let queued = ring.submission().len() as u32;
    // SAFETY: no argument is passed; what the queued SQEs point at is the caller's to keep.
    unsafe {
        ring.submitter()
            .enter::<libc::sigset_t>(queued, 0, GETEVENTS, None)
    }
    .map(drop)
    .map_err(|e| DeviceError::os("io_uring submit", e))
}

/// A ring, and whether its completion work is deferred. One thread submits and reaps, so tell
/// the kernel, as fio does: completion work waits until that thread enters the ring for events
/// rather than interrupting it (`DEFER_TASKRUN`, with the flag that says work is waiting).
/// Against cooperative task work alone, in the same alternating rounds on a RAM-backed loop
/// device: more IOPS with one thread and less CPU per IO (BENCHMARKS.md). Falls back to
/// cooperative task work, then to a plain ring, on kernels without them; the polling asked for
/// is kept either way.
fn ring_with(entries: u32, polling: Polling) -> io::Result<(IoUring, bool)> {
    let build = |setup: fn(&mut io_uring::Builder)| {
        let mut builder = IoUring::builder();
        polling.apply(&mut builder);
        setup(&mut builder);
        builder.build(entries)
    };
    let deferred = build(|b| {
        b.setup_coop_taskrun()
            .setup_single_issuer()
            .setup_defer_taskrun()
            .setup_taskrun_flag();
    });
    if let Ok(ring) = deferred {
        return Ok((ring, true));
    }
    build(|b| {
        b.setup_coop_taskrun().setup_single_issuer();
    })
    .or_else(|_| build(|_| {}))
    .map(|ring| (ring, false))
}
