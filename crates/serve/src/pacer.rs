//! The simulated drive on the wall clock. The drive's virtual time is the wall time since it
//! was served (divided by the slowdown, when it is asked to run slower than the model): when
//! a request arrives the drive is first brought up to now (what it did meanwhile, idle work
//! included, is simulated then), the request is submitted, and the simulator tells when it
//! completes; the queue holds the request until the wall clock reaches that time. One drive
//! has one clock, so every queue's requests go through one lock.

use std::sync::Mutex;

use engine::{Completion, Device, DeviceError, Io, Op};
use sim::SimSsd;

use crate::store::Store;

/// What the drive made of a request.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Arrival {
    /// When the drive completes it, on the monotonic clock (ns).
    pub(crate) due_ns: u64,
    /// Its simulated service time, on the wall clock (times the slowdown).
    pub(crate) service_ns: u64,
    /// Bytes transferred, 0, or a negative errno: the request's result.
    pub(crate) result: i32,
}

pub(crate) struct Pacer {
    drive: Mutex<Drive>,
    /// The monotonic clock when the drive's virtual time was 0.
    start_ns: u64,
    /// Wall-clock time per unit of the drive's time (1: real time).
    slowdown: u64,
}

struct Drive {
    sim: SimSsd,
    store: Store,
    /// Completions the simulator hands back as its clock moves (unused: each request's
    /// completion time is known when it is submitted), kept to reuse its memory.
    reaped: Vec<Completion>,
    /// Requests that arrived.
    ios: u64,
}

impl Pacer {
    /// `slots`: requests that can be in flight at once (queues x depth); `slowdown`: how
    /// many times slower than the model the drive runs on the wall clock.
    pub(crate) fn new(
        mut sim: SimSsd,
        store: Store,
        slots: u32,
        slowdown: u32,
    ) -> Result<Pacer, DeviceError> {
        sim.prepare(slots, 0)?;
        Ok(Pacer {
            drive: Mutex::new(Drive {
                sim,
                store,
                reaped: Vec::with_capacity(slots as usize),
                ios: 0,
            }),
            start_ns: monotonic_ns(),
            slowdown: u64::from(slowdown.max(1)),
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
        let now = monotonic_ns().saturating_sub(self.start_ns) / self.slowdown;
        let Drive {
            sim,
            store,
            reaped,
            ios,
        } = &mut *drive;
        *ios += 1;
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

    /// A request arriving at `now` and done at `done`, both on the drive's clock.
    fn at(&self, now: u64, done: u64, result: i32) -> Arrival {
        Arrival {
            due_ns: self.start_ns + done * self.slowdown,
            service_ns: done.saturating_sub(now) * self.slowdown,
            result,
        }
    }

    /// The served drive's status brought up to date: requests so far and the simulated
    /// drive's counters.
    pub(crate) fn update(&self, status: &mut engine::served::ServedDrive) {
        let drive = self.drive.lock().unwrap_or_else(|e| e.into_inner());
        let c = drive.sim.stats();
        status.ios = drive.ios;
        status.host_bytes_read = c.host_read_pages * 4096;
        status.host_bytes_written = c.host_write_pages * 4096;
        status.nand_bytes_written = c.nand_write_pages * 4096;
        status.gc_invocations = c.gc_invocations;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The first write to a fresh drive, served in real time and 10 times slower.
    fn first_write(slowdown: u32) -> (u64, Arrival) {
        let spec = "default,capacity=1GiB,op=25%";
        let sim = SimSsd::new(sim::resolve(spec).unwrap(), spec).unwrap();
        let store = Store::new(1 << 30, None, spec).unwrap();
        let pacer = Pacer::new(sim, store, 4, slowdown).unwrap();
        let mut buf = vec![7u8; 4096];
        (
            pacer.start_ns,
            pacer.arrive(0, Op::Write, 0, 4096, &mut buf),
        )
    }

    #[test]
    fn a_slowed_drive_takes_its_service_time_times_the_slowdown() {
        let (_, real) = first_write(1);
        let (start, slow) = first_write(10);
        assert!(real.service_ns > 0);
        assert_eq!(slow.service_ns, 10 * real.service_ns);
        // Due when the wall clock has run ten times the drive's time.
        assert!(slow.due_ns >= start + slow.service_ns, "{slow:?}");
        assert_eq!(slow.result, 4096);
    }

    /// Allocations made on this thread: the per-IO path is measured on its own thread, so
    /// tests running beside it do not count.
    mod counting {
        use std::alloc::{GlobalAlloc, Layout, System};
        use std::cell::Cell;

        thread_local! {
            static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
        }

        struct Counting;

        // SAFETY: every call is passed to the system allocator unchanged.
        unsafe impl GlobalAlloc for Counting {
            unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
                let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
                unsafe { System.alloc(layout) }
            }
            unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
                unsafe { System.dealloc(ptr, layout) }
            }
            unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, size: usize) -> *mut u8 {
                let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
                unsafe { System.realloc(ptr, layout, size) }
            }
        }

        #[global_allocator]
        static COUNTING: Counting = Counting;

        pub(super) fn so_far() -> u64 {
            ALLOCATIONS.with(Cell::get)
        }
    }

    /// What the serve loop does for each request, besides handing it to the kernel: the
    /// drive's arrival (its data moved, the simulator brought up to now and the IO
    /// submitted) and the pacing record. After a warm-up it allocates nothing, through the
    /// drive's garbage collection.
    #[test]
    fn a_request_allocates_nothing() {
        let spec = "default,capacity=256MiB,op=50%";
        let sim = SimSsd::new(sim::resolve(spec).unwrap(), spec).unwrap();
        let capacity = sim.geometry().capacity_bytes;
        let store = Store::new(capacity, None, spec).unwrap();
        const DEPTH: u32 = 8;
        let pacer = Pacer::new(sim, store, DEPTH, 1).unwrap();
        let mut pacing = crate::pacing::Pacing::new();
        let mut buf = vec![0u8; 4096];
        let mut due = [0u64; DEPTH as usize];
        let pages = capacity / 4096;
        let mut rng = fastrand::Rng::with_seed(7);
        let (mut measured_from, mut ios) = (0, 0u64);
        // Twice the drive's capacity in 4 KiB random writes (GC runs in the second half),
        // one read in eight; counted after the first quarter. The drive's speed sets the time.
        let total = 2 * pages;
        for i in 0..total {
            if i == total / 4 {
                measured_from = counting::so_far();
            }
            let slot = (i % u64::from(DEPTH)) as usize;
            // The slot's last IO completes before the slot is used again, as the kernel's
            // tags are.
            while monotonic_ns() < due[slot] {
                std::hint::spin_loop();
            }
            let op = if i % 8 == 7 { Op::Read } else { Op::Write };
            let offset = rng.u64(0..pages) * 4096;
            let a = pacer.arrive(slot as u32, op, offset, 4096, &mut buf);
            assert_eq!(a.result, 4096, "IO {i}");
            pacing.record(
                op,
                4096,
                a.service_ns,
                monotonic_ns().saturating_sub(a.due_ns),
            );
            due[slot] = a.due_ns;
            ios += u64::from(i >= total / 4);
        }
        let allocations = counting::so_far() - measured_from;
        // The count sees this thread's allocations.
        let before = counting::so_far();
        drop(std::hint::black_box(vec![1u8; 64]));
        assert_eq!(counting::so_far(), before + 1);
        assert!(
            pacer.write_amplification().unwrap() > 1.1,
            "GC did not run: WA {:?}",
            pacer.write_amplification()
        );
        assert_eq!(allocations, 0, "{allocations} allocations in {ios} IOs");
    }
}
