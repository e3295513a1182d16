//! The simulated drive on the wall clock. The drive's virtual time is the wall time since it
//! was served: when a request arrives the drive is first brought up to now (what it did
//! meanwhile, idle work included, is simulated then), the request is submitted, and the
//! simulator tells when it completes; the queue holds the request until the wall clock
//! reaches that time. One drive has one clock, so every queue's requests go through one lock.

use std::sync::Mutex;

use engine::{Completion, Device, Io, Op};
use sim::SimSsd;

use crate::store::Store;

/// What the drive made of a request.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Arrival {
    /// When the drive completes it, on the monotonic clock (ns).
    pub(crate) due_ns: u64,
    /// Its simulated service time.
    pub(crate) service_ns: u64,
    /// Bytes transferred, 0, or a negative errno: the request's result.
    pub(crate) result: i32,
}

pub(crate) struct Pacer {
    drive: Mutex<Drive>,
    /// The monotonic clock when the drive's virtual time was 0.
    start_ns: u64,
}

struct Drive {
    sim: SimSsd,
    store: Store,
    /// Completions the simulator hands back as its clock moves (unused: each request's
    /// completion time is known when it is submitted), kept to reuse its memory.
    reaped: Vec<Completion>,
}

impl Pacer {
    /// `slots`: requests that can be in flight at once (queues x depth).
    pub(crate) fn new(mut sim: SimSsd, store: Store, slots: u32) -> Result<Pacer, String> {
        sim.prepare(slots, 0).map_err(|e| e.to_string())?;
        Ok(Pacer {
            drive: Mutex::new(Drive {
                sim,
                store,
                reaped: Vec::with_capacity(slots as usize),
            }),
            start_ns: monotonic_ns(),
        })
    }

    /// A request arrives: its data moves (a write's into the store, a read's out of it) and
    /// the drive, brought up to now, tells when it completes. `slot` is unique among the
    /// requests in flight.
    pub(crate) fn arrive(
        &self,
        slot: u32,
        op: Op,
        offset: u64,
        len: u32,
        buf: &mut [u8],
    ) -> Arrival {
        let mut drive = self.drive.lock().unwrap_or_else(|e| e.into_inner());
        let now = monotonic_ns().saturating_sub(self.start_ns);
        let Drive { sim, store, reaped } = &mut *drive;
        // Until now: every IO due by then completes, an idle drive does its background work.
        let _ = sim.reap(u32::MAX, Some(now), reaped);
        reaped.clear();
        let data = buf.get_mut(..len as usize);
        let in_range = match (op, data) {
            (Op::Read, Some(data)) => store.read(offset, data),
            (Op::Write, Some(data)) => store.write(offset, data),
            (Op::Discard, _) => store.discard(offset, len as u64),
            (Op::Flush, _) => true,
            (_, None) => false,
        };
        if !in_range {
            return self.at(now, now, -libc::EINVAL);
        }
        match sim.submit_timed(Io {
            slot,
            op,
            offset,
            len,
        }) {
            Ok(c) => self.at(now, c.complete_ns, c.result as i32),
            Err(_) => self.at(now, now, -libc::EIO),
        }
    }

    fn at(&self, now: u64, done: u64, result: i32) -> Arrival {
        Arrival {
            due_ns: self.start_ns + done,
            service_ns: done.saturating_sub(now),
            result,
        }
    }

    /// Write amplification so far (NAND over host writes); `None` before any write.
    pub(crate) fn write_amplification(&self) -> Option<f64> {
        let drive = self.drive.lock().unwrap_or_else(|e| e.into_inner());
        let c = drive.sim.stats();
        (c.host_write_pages > 0).then(|| c.nand_write_pages as f64 / c.host_write_pages as f64)
    }
}

/// CLOCK_MONOTONIC in ns: the clock io_uring's absolute timeouts use.
pub(crate) fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}
