//! Nothing on the driver's per-IO path allocates: with a counting allocator, a run of 20,000
//! IOs and one of 200,000 on the same one-second stretch of a device's clock allocate the
//! same number of times (what a run allocates is per run and per second, never per IO),
//! with every workload shape and the per-second latency windows on, and with threads: as
//! streams on one device and as a team of threads each with its own queue.
//!
//! Its own test binary: the allocator is global to the binary that declares it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};

use engine::driver::{self, Hooks};
use engine::pattern::DataKind;
use engine::shape::Shape;
use engine::workload::{Access, Limit, Workload};
use engine::{
    Clock, Completion, Device, DeviceError, Geometry, Identity, Io, QueueMaker, TargetKind,
};

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// Only the run's own threads count (the test harness allocates on others).
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.with(Cell::get) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// A device on a virtual clock that completes each IO `service_ns` after it is reaped for,
/// one at a time, and keeps no data; with `queues`, it gives each thread of a run a queue
/// of its own, as a real target does.
struct Instant {
    now_ns: u64,
    service_ns: u64,
    queue: VecDeque<Io>,
    queues: bool,
}

impl Device for Instant {
    fn another_queue(&self) -> Option<Result<QueueMaker, DeviceError>> {
        let service_ns = self.service_ns;
        self.queues.then(|| -> Result<QueueMaker, DeviceError> {
            Ok(Box::new(move || {
                // Made in the thread that uses it: count that thread's allocations too.
                COUNTING.with(|c| c.set(true));
                Ok(Box::new(Instant {
                    now_ns: 0,
                    service_ns,
                    queue: VecDeque::new(),
                    queues: true,
                }))
            }))
        })
    }
    fn identity(&self) -> Identity {
        Identity::new(TargetKind::Sim, "instant")
    }
    fn geometry(&self) -> Geometry {
        Geometry {
            capacity_bytes: 1 << 30,
            logical_block_bytes: 512,
            physical_block_bytes: 4096,
        }
    }
    fn clock(&self) -> Clock {
        Clock::Virtual
    }
    fn now_ns(&self) -> u64 {
        self.now_ns
    }
    fn prepare(&mut self, slots: u32, _: usize) -> Result<(), DeviceError> {
        self.queue.reserve(slots as usize);
        Ok(())
    }
    fn buffer(&mut self, _: u32) -> Option<&mut [u8]> {
        None
    }
    fn submit(&mut self, io: Io) -> Result<(), DeviceError> {
        self.queue.push_back(io);
        Ok(())
    }
    fn reap(
        &mut self,
        min: u32,
        until_ns: Option<u64>,
        done: &mut Vec<Completion>,
    ) -> Result<(), DeviceError> {
        let mut reaped = 0;
        while reaped < min.max(1) {
            let Some(io) = self.queue.front() else {
                if let Some(until) = until_ns {
                    self.now_ns = self.now_ns.max(until);
                }
                return Ok(());
            };
            let at = self.now_ns + self.service_ns;
            if until_ns.is_some_and(|u| at > u) {
                self.now_ns = until_ns.unwrap();
                return Ok(());
            }
            self.now_ns = at;
            done.push(Completion {
                slot: io.slot,
                complete_ns: at,
                result: io.len as i64,
            });
            self.queue.pop_front();
            reaped += 1;
        }
        Ok(())
    }
}

/// How a run's threads reach the device.
#[derive(Clone, Copy, Debug)]
enum Threads {
    One,
    /// Four streams on the one device.
    Streams,
    /// Four threads, each with its own queue.
    Team,
}

fn allocations_for(ios: u64, shape: &Shape, threads: Threads) -> u64 {
    let n = match threads {
        Threads::One => 1,
        Threads::Streams | Threads::Team => 4,
    };
    // The run lasts 0.9 s of the device's clock whatever its IO count (each thread's, with
    // queues of their own).
    let per_queue = if matches!(threads, Threads::Team) {
        ios / n
    } else {
        ios
    };
    let mut dev = Instant {
        now_ns: 0,
        service_ns: 900_000_000 / per_queue,
        queue: VecDeque::new(),
        queues: matches!(threads, Threads::Team),
    };
    let block = shape.block_mix.as_ref().map_or(4096, |m| m.smallest());
    let w = Workload {
        access: Access::Random,
        block_bytes: block,
        offset_bytes: 0,
        span_bytes: 1 << 30,
        read_pct: 50,
        op: None,
        data: DataKind::Incompressible,
        qd: 32,
        limit: Limit {
            ios: Some(ios),
            ..Limit::default()
        },
        seed: 1,
        shape: shape.clone(),
        threads: n as u32,
    };
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    COUNTING.with(|c| c.set(true));
    let outcome = driver::run(&mut dev, &w, Hooks::default());
    COUNTING.with(|c| c.set(false));
    let after = ALLOCATIONS.load(Ordering::Relaxed);
    let outcome = outcome.unwrap();
    assert_eq!(outcome.measurements.summary.ios, ios);
    after - before
}

#[test]
fn the_per_io_path_does_not_allocate() {
    let shapes = [
        Shape::default(),
        Shape {
            distribution: "zipf:1.1".parse().unwrap(),
            block_mix: Some("4K:67,8K:10,16K:23".parse().unwrap()),
            ..Shape::default()
        },
        Shape {
            distribution: "zoned:50/5:30/15:20/".parse().unwrap(),
            ..Shape::default()
        },
    ];
    for shape in &shapes {
        for threads in [Threads::One, Threads::Streams, Threads::Team] {
            let few = allocations_for(20_000, shape, threads);
            let many = allocations_for(200_000, shape, threads);
            assert_eq!(
                few, many,
                "{shape:?}, {threads:?}: allocations grow with the IO count"
            );
        }
    }
}
