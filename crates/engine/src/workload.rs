//! What the driver issues: access pattern, block size, LBA span, read/write mix, data, queue
//! depth and when to stop. Seeded, so the same workload issues the same IOs.

use serde::{Deserialize, Serialize};

use crate::device::{Geometry, Op};
use crate::pattern::{DataKind, Rng};
use crate::shape::{
    DistributionError, PacingError, Sampler, Shape, SpRandom, SpRandomError, SpRandomOrder,
};

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    Sequential,
    /// Uniform over the span, aligned to the block size.
    Random,
    /// fio's SPRandom preconditioning pass: writes only, every block once and some again,
    /// ending after the drive's physical size.
    SpRandom(SpRandom),
}

/// When a run ends: the first limit reached. At least one must be set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Limit {
    /// On the device's clock (virtual time for the simulator).
    pub duration_ns: Option<u64>,
    pub bytes: Option<u64>,
    pub ios: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    pub access: Access,
    pub block_bytes: u32,
    /// The tested LBA range: `offset_bytes .. offset_bytes + span_bytes`.
    pub offset_bytes: u64,
    pub span_bytes: u64,
    /// Share of reads, 0..=100; the rest are writes. Ignored when `op` is set.
    pub read_pct: u8,
    /// Issue only this operation (e.g. discards) instead of a read/write mix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op: Option<Op>,
    pub data: DataKind,
    /// IOs in flight per thread.
    pub qd: u32,
    /// Submitting threads, each keeping `qd` IOs in flight: CrystalDiskMark's `Q32T16` is qd
    /// 32, threads 16. Each has its own queue to a real target; on a simulated drive they are
    /// independent submission streams on its one clock.
    #[serde(default = "one_thread", skip_serializing_if = "is_one_thread")]
    pub threads: u32,
    pub limit: Limit,
    pub seed: u64,
    /// Access distribution and block-size mix; plain (uniform, `block_bytes` only) unless set.
    #[serde(default, skip_serializing_if = "Shape::is_plain")]
    pub shape: Shape,
}

pub const MAX_QD: u32 = 1024;
pub const MAX_THREADS: u32 = 256;
/// The most bytes a workload may keep in flight (threads x depth x largest block): each IO
/// in flight has a buffer of its own, and a simulated drive still drains every IO queued at
/// the deadline, so a larger queue costs memory or time out of proportion to any result.
pub const MAX_IN_FLIGHT_BYTES: u64 = 4 << 30;

fn one_thread() -> u32 {
    1
}

fn is_one_thread(threads: &u32) -> bool {
    *threads == 1
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum WorkloadError {
    #[error("queue depth {0} is out of range: use 1 to {MAX_QD}")]
    QueueDepth(u32),
    #[error("{0} threads is out of range: use 1 to {MAX_THREADS}")]
    Threads(u32),
    #[error("block size {block} is not a multiple of the target's {logical}-byte logical block: use a multiple such as {suggest}")]
    BlockSize {
        block: u32,
        logical: u32,
        suggest: u32,
    },
    #[error(
        "the tested region (--offset {offset} bytes, --span {span} bytes) does not fit the \
         target's {capacity} bytes: shrink --span or --offset"
    )]
    SpanTooLarge {
        offset: u64,
        span: u64,
        capacity: u64,
    },
    #[error(
        "the tested span ({span} bytes) is smaller than one block ({block} bytes): give a \
         larger --span (or a larger target), or a smaller --bs"
    )]
    SpanTooSmall { span: u64, block: u32 },
    #[error(
        "--offset {offset} is not a multiple of the target's {logical}-byte logical block: use \
         a multiple of it, e.g. {}",
        offset / *logical as u64 * *logical as u64
    )]
    Misaligned { offset: u64, logical: u32 },
    #[error(
        "{threads} thread(s) x queue depth {qd} x {block}-byte blocks keep {} bytes in \
         flight, more than the {MAX_IN_FLIGHT_BYTES} bytes ssdlab gives the IOs' buffers: \
         lower --threads, --qd or --bs",
        *threads as u64 * *qd as u64 * *block as u64
    )]
    InFlight { threads: u32, qd: u32, block: u32 },
    #[error(
        "{threads} thread(s) x queue depth {qd} x {block}-byte blocks keep {} bytes in \
         flight, more than the {span}-byte span holds: IOs in flight would share their bytes, \
         which measures nothing; lower --threads, --qd or --bs, or give a --span (or a \
         target) of at least that",
        *threads as u64 * *qd as u64 * *block as u64
    )]
    InFlightOverSpan {
        threads: u32,
        qd: u32,
        block: u32,
        span: u64,
    },
    #[error("read share {0}% is above 100%")]
    ReadShare(u8),
    #[error("the workload has no end: give a duration, a byte count or an IO count")]
    NoLimit,
    #[error(
        "a duty cycle bursts the whole run at once, which threads each pacing themselves \
         would not: use --threads 1 (and the total --qd) with --burst"
    )]
    DutyCycleThreads,
    #[error(
        "with a block-size mix the workload's block size is the mix's smallest ({smallest} \
         bytes), not {block}"
    )]
    MixBlockSize { smallest: u32, block: u32 },
    #[error(transparent)]
    Distribution(#[from] DistributionError),
    #[error(transparent)]
    Pacing(#[from] PacingError),
    #[error(transparent)]
    SpRandom(#[from] SpRandomError),
}

impl Workload {
    /// Check the workload against a target before any IO is issued.
    pub fn validate(&self, geo: &Geometry) -> Result<(), WorkloadError> {
        if self.qd == 0 || self.qd > MAX_QD {
            return Err(WorkloadError::QueueDepth(self.qd));
        }
        if self.threads == 0 || self.threads > MAX_THREADS {
            return Err(WorkloadError::Threads(self.threads));
        }
        if self.threads > 1 && self.shape.duty_cycle.is_some() {
            return Err(WorkloadError::DutyCycleThreads);
        }
        let logical = geo.logical_block_bytes.max(1);
        let mix = self.shape.block_mix.iter().flat_map(|m| m.shares());
        for block in std::iter::once(self.block_bytes).chain(mix.map(|s| s.bytes)) {
            if block == 0 || !block.is_multiple_of(logical) {
                return Err(WorkloadError::BlockSize {
                    block,
                    logical,
                    suggest: logical.max(4096),
                });
            }
        }
        if let Some(mix) = &self.shape.block_mix {
            if mix.smallest() != self.block_bytes {
                return Err(WorkloadError::MixBlockSize {
                    smallest: mix.smallest(),
                    block: self.block_bytes,
                });
            }
        }
        if !self.offset_bytes.is_multiple_of(logical as u64) {
            return Err(WorkloadError::Misaligned {
                offset: self.offset_bytes,
                logical,
            });
        }
        if self
            .offset_bytes
            .checked_add(self.span_bytes)
            .is_none_or(|end| end > geo.capacity_bytes)
        {
            return Err(WorkloadError::SpanTooLarge {
                offset: self.offset_bytes,
                span: self.span_bytes,
                capacity: geo.capacity_bytes,
            });
        }
        if self.span_bytes < self.largest_block_bytes() as u64 * self.sequential_parts() {
            return Err(WorkloadError::SpanTooSmall {
                span: self.span_bytes,
                block: self.largest_block_bytes(),
            });
        }
        let in_flight = self.threads as u64 * self.qd as u64 * self.largest_block_bytes() as u64;
        if in_flight > MAX_IN_FLIGHT_BYTES {
            return Err(WorkloadError::InFlight {
                threads: self.threads,
                qd: self.qd,
                block: self.largest_block_bytes(),
            });
        }
        if in_flight > self.span_bytes {
            return Err(WorkloadError::InFlightOverSpan {
                threads: self.threads,
                qd: self.qd,
                block: self.largest_block_bytes(),
                span: self.span_bytes,
            });
        }
        self.shape
            .distribution
            .check(self.units(), self.block_bytes as u64)?;
        self.shape.check()?;
        if let Access::SpRandom(s) = self.access {
            self.check_sprandom(s)?;
        }
        if self.read_pct > 100 {
            return Err(WorkloadError::ReadShare(self.read_pct));
        }
        let l = self.limit;
        if l.duration_ns.is_none() && l.bytes.is_none() && l.ios.is_none() {
            return Err(WorkloadError::NoLimit);
        }
        Ok(())
    }

    /// An SPRandom pass writes one block size uniformly over its span, as fio's.
    fn check_sprandom(&self, s: SpRandom) -> Result<(), SpRandomError> {
        let writes = self.op.map_or(self.read_pct == 0, |op| op == Op::Write);
        if !writes
            || self.threads > 1
            || self.shape.block_mix.is_some()
            || !self.shape.distribution.is_uniform()
        {
            return Err(SpRandomError::NotAPlainWrite);
        }
        s.check(self.units(), self.block_bytes as u64)
    }

    /// How many parts the span is cut into: one per thread for sequential access.
    fn sequential_parts(&self) -> u64 {
        match self.access {
            Access::Sequential => self.threads as u64,
            Access::Random | Access::SpRandom(_) => 1,
        }
    }

    /// Thread `t`'s part of a workload of several threads, issued as one thread: its own
    /// seed (thread 0 keeps the workload's, so one thread issues what it always did), its
    /// share of an IO or byte limit and of a rate, and, for sequential access, its own
    /// contiguous part of the span, as fio's `offset_increment` spreads jobs, so the threads
    /// together cover the span once.
    pub fn for_thread(&self, t: u32) -> Workload {
        let n = self.threads as u64;
        let share = |total: u64| total / n + u64::from((t as u64) < total % n);
        let (offset_bytes, span_bytes) = match self.access {
            Access::Sequential if n > 1 => {
                let align = self.largest_block_bytes() as u64;
                let part = self.span_bytes / n / align * align;
                let last = t as u64 + 1 == n;
                let at = self.offset_bytes + t as u64 * part;
                (
                    at,
                    if last {
                        self.offset_bytes + self.span_bytes - at
                    } else {
                        part
                    },
                )
            }
            _ => (self.offset_bytes, self.span_bytes),
        };
        let mut shape = self.shape.clone();
        if let Some(rate) = shape.rate.as_mut() {
            rate.iops /= n as f64;
        }
        Workload {
            offset_bytes,
            span_bytes,
            threads: 1,
            limit: Limit {
                duration_ns: self.limit.duration_ns,
                bytes: self.limit.bytes.map(share),
                ios: self.limit.ios.map(share),
            },
            seed: match t {
                0 => self.seed,
                _ => self.seed ^ (t as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            },
            shape,
            ..self.clone()
        }
    }

    /// The load in CrystalDiskMark's notation, `Q32T1`.
    pub fn load(&self) -> String {
        format!("Q{}T{}", self.qd, self.threads)
    }

    /// The largest IO it issues: the size of its buffers.
    pub fn largest_block_bytes(&self) -> u32 {
        match &self.shape.block_mix {
            Some(mix) => mix.largest(),
            None => self.block_bytes,
        }
    }

    /// The span in blocks of `block_bytes`, the unit random offsets are aligned to.
    fn units(&self) -> u64 {
        self.span_bytes / self.block_bytes as u64
    }

    /// The IOs this workload issues, in order.
    pub fn generator(&self) -> IoGen {
        let mut rng = Rng::new(self.seed);
        let units = self.units();
        let block = self.block_bytes as u64;
        let placement = match self.access {
            Access::Random => {
                Placement::Random(self.shape.distribution.sampler(units, block, &mut rng))
            }
            Access::Sequential => Placement::Sequential,
            Access::SpRandom(s) => Placement::SpRandom(s.order(units, block, &mut rng)),
        };
        IoGen {
            rng,
            placement,
            op: self.op,
            read_pct: self.read_pct,
            block: self.block_bytes as u64,
            start: self.offset_bytes,
            span: self.span_bytes,
            blocks: units,
            next_block: 0,
            next_offset: 0,
            mix: self.shape.block_mix.clone(),
        }
    }
}

/// One IO to issue: what, where and how long.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NextIo {
    pub op: Op,
    pub offset: u64,
    pub len: u32,
}

/// Where a workload's IOs go.
enum Placement {
    Sequential,
    Random(Sampler),
    SpRandom(SpRandomOrder),
}

/// Produces the IOs of a workload: sequential wraps around the span, random draws from its
/// distribution, SPRandom follows its pass; sizes from its block-size mix, if any.
pub struct IoGen {
    rng: Rng,
    placement: Placement,
    op: Option<Op>,
    read_pct: u8,
    block: u64,
    start: u64,
    span: u64,
    blocks: u64,
    next_block: u64,
    /// Where the next sequential IO of a mix starts, from the span's start.
    next_offset: u64,
    mix: Option<crate::shape::BlockMix>,
}

impl IoGen {
    /// The next IO; `None` when the workload's order has no more (an SPRandom pass's end).
    #[inline]
    pub fn next_io(&mut self) -> Option<NextIo> {
        let op = match self.op {
            Some(op) => op,
            None if self.read_pct >= 100 => Op::Read,
            None if self.read_pct == 0 => Op::Write,
            None if self.rng.below(100) < self.read_pct as u64 => Op::Read,
            None => Op::Write,
        };
        let Some(mix) = &self.mix else {
            let block = match &mut self.placement {
                Placement::Random(sampler) => sampler.next(&mut self.rng, self.blocks),
                Placement::SpRandom(order) => order.next(&mut self.rng)?,
                Placement::Sequential => {
                    let b = self.next_block;
                    self.next_block = if b + 1 == self.blocks { 0 } else { b + 1 };
                    b
                }
            };
            return Some(NextIo {
                op,
                offset: self.start + block * self.block,
                len: self.block as u32,
            });
        };
        let len = mix.draw(&mut self.rng);
        let last_fit = self.span - len as u64;
        let at = match &mut self.placement {
            // Aligned to the smallest size; one running past the span's end is pulled back.
            Placement::Random(sampler) => {
                (sampler.next(&mut self.rng, self.blocks) * self.block).min(last_fit) / self.block
                    * self.block
            }
            Placement::SpRandom(order) => {
                (order.next(&mut self.rng)? * self.block).min(last_fit) / self.block * self.block
            }
            Placement::Sequential => {
                if self.next_offset > last_fit {
                    self.next_offset = 0;
                }
                let at = self.next_offset;
                self.next_offset += len as u64;
                at
            }
        };
        Some(NextIo {
            op,
            offset: self.start + at,
            len,
        })
    }

    /// The generator's random stream, shared with the data filler so one seed fixes a run.
    pub fn rng(&mut self) -> &mut Rng {
        &mut self.rng
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geo() -> Geometry {
        Geometry {
            capacity_bytes: 1 << 30,
            logical_block_bytes: 512,
            physical_block_bytes: 4096,
        }
    }

    fn wl() -> Workload {
        Workload {
            access: Access::Random,
            block_bytes: 4096,
            offset_bytes: 1 << 20,
            span_bytes: 64 << 20,
            read_pct: 30,
            op: None,
            data: DataKind::Incompressible,
            qd: 32,
            threads: 1,
            limit: Limit {
                ios: Some(1000),
                ..Limit::default()
            },
            seed: 1,
            shape: Shape::default(),
        }
    }

    #[test]
    fn too_many_bytes_in_flight_are_refused_up_front() {
        // 8 x 1024 x 64 MiB: 512 GiB of buffers, refused before any is allocated; 8 x 8 x
        // 64 MiB is the bound itself.
        let huge = Workload {
            threads: 8,
            qd: 1024,
            block_bytes: 64 << 20,
            span_bytes: 1 << 30,
            offset_bytes: 0,
            ..wl()
        };
        let geo = Geometry {
            capacity_bytes: 1 << 50,
            ..geo()
        };
        let e = huge.validate(&geo).unwrap_err().to_string();
        assert!(e.contains("549755813888 bytes in flight"), "{e}");
        assert!(e.contains("IOs' buffers") && e.contains("--qd"), "{e}");
        let fits = Workload {
            qd: 8,
            span_bytes: 4 << 30,
            ..huge
        };
        assert_eq!(fits.validate(&geo), Ok(()));
    }

    #[test]
    fn more_bytes_in_flight_than_the_span_holds_are_refused() {
        // 4 x 8 x 1 MiB in flight over 16 MiB: the IOs would overlap; over 32 MiB, each has
        // bytes of its own.
        let crowded = Workload {
            threads: 4,
            qd: 8,
            block_bytes: 1 << 20,
            span_bytes: 16 << 20,
            ..wl()
        };
        let e = crowded.validate(&geo()).unwrap_err().to_string();
        assert!(
            e.contains("keep 33554432 bytes in flight, more than the 16777216-byte span"),
            "{e}"
        );
        assert!(
            e.contains("lower --threads, --qd or --bs, or give a --span"),
            "{e}"
        );
        let room = Workload {
            span_bytes: 32 << 20,
            ..crowded
        };
        assert_eq!(room.validate(&geo()), Ok(()));
    }

    #[test]
    fn random_ios_stay_in_span_and_aligned() {
        let w = wl();
        let mut g = w.generator();
        let mut reads = 0;
        for _ in 0..100_000 {
            let NextIo {
                op,
                offset: off,
                len,
            } = g.next_io().unwrap();
            assert_eq!(len, 4096);
            assert!(off >= w.offset_bytes && off + 4096 <= w.offset_bytes + w.span_bytes);
            assert_eq!(off % 4096, 0);
            reads += (op == Op::Read) as u32;
        }
        assert!((29_000..31_000).contains(&reads), "{reads} reads of 100000");
    }

    #[test]
    fn sequential_wraps() {
        let w = Workload {
            access: Access::Sequential,
            span_bytes: 3 * 4096,
            ..wl()
        };
        let mut g = w.generator();
        let offs: Vec<u64> = (0..4)
            .map(|_| g.next_io().unwrap().offset - w.offset_bytes)
            .collect();
        assert_eq!(offs, vec![0, 4096, 8192, 0]);
    }

    fn mixed(access: Access) -> Workload {
        Workload {
            access,
            block_bytes: 512,
            // As many bytes as QD32 of the mix's 64 KiB keeps in flight.
            span_bytes: 2 << 20,
            shape: Shape {
                block_mix: Some("512:50,64K:50".parse().unwrap()),
                ..Shape::default()
            },
            ..wl()
        }
    }

    #[test]
    fn a_mix_stays_in_span_aligned_to_its_smallest_size() {
        let w = mixed(Access::Random);
        assert!(w.validate(&geo()).is_ok());
        let mut g = w.generator();
        let end = w.offset_bytes + w.span_bytes;
        let large = (0..100_000)
            .map(|_| g.next_io().unwrap())
            .inspect(|io| assert!(io.offset % 512 == 0 && io.offset + io.len as u64 <= end))
            .filter(|io| io.len == 65536)
            .count();
        assert!((49_000..51_000).contains(&large), "{large}");
    }

    #[test]
    fn a_sequential_mix_is_contiguous_and_wraps() {
        let w = mixed(Access::Sequential);
        let mut g = w.generator();
        let mut at = w.offset_bytes;
        for _ in 0..10_000 {
            let io = g.next_io().unwrap();
            if io.offset != at {
                assert_eq!(io.offset, w.offset_bytes, "wraps to the start");
                assert!(at + io.len as u64 > w.offset_bytes + w.span_bytes);
            }
            at = io.offset + io.len as u64;
        }
    }

    #[test]
    fn a_mix_must_fit_the_target() {
        let e = Workload {
            span_bytes: 32 << 10,
            ..mixed(Access::Random)
        };
        assert!(matches!(
            e.validate(&geo()),
            Err(WorkloadError::SpanTooSmall { block: 65536, .. })
        ));
        let e = Workload {
            block_bytes: 4096,
            ..mixed(Access::Random)
        };
        assert!(e
            .validate(&geo())
            .unwrap_err()
            .to_string()
            .contains("smallest"));
    }

    #[test]
    fn an_sprandom_pass_only_writes_and_ends_after_the_physical_size() {
        let s = SpRandom::new(0.25, 10, 0).unwrap();
        let w = Workload {
            access: Access::SpRandom(s),
            read_pct: 0,
            span_bytes: 4 << 20,
            ..wl()
        };
        assert!(w.validate(&geo()).is_ok());
        let mut g = w.generator();
        let ios: Vec<NextIo> = std::iter::from_fn(|| g.next_io()).collect();
        let physical = s.writes(1024, 4096);
        assert_eq!(physical, 1280);
        assert!(
            ios.len() as u64 <= physical && ios.len() > 1200,
            "{}",
            ios.len()
        );
        let end = w.offset_bytes + w.span_bytes;
        assert!(ios.iter().all(|io| io.op == Op::Write
            && io.offset % 4096 == 0
            && io.offset >= w.offset_bytes
            && io.offset + 4096 <= end));
        // One pass: several threads would each write the drive once.
        for other in [
            Workload {
                read_pct: 30,
                ..w.clone()
            },
            Workload {
                threads: 2,
                ..w.clone()
            },
        ] {
            let e = other.validate(&geo()).unwrap_err().to_string();
            assert!(e.contains("only writes"), "{e}");
        }
    }

    #[test]
    fn threads_share_the_limits_and_split_a_sequential_span() {
        let w = Workload {
            access: Access::Sequential,
            threads: 3,
            limit: Limit {
                ios: Some(1000),
                bytes: Some(10),
                duration_ns: Some(5),
            },
            ..wl()
        };
        assert!(w.validate(&geo()).is_ok());
        let parts: Vec<Workload> = (0..3).map(|t| w.for_thread(t)).collect();
        let ios: Vec<u64> = parts.iter().map(|p| p.limit.ios.unwrap()).collect();
        assert_eq!(ios, [334, 333, 333]);
        assert_eq!(
            parts.iter().map(|p| p.limit.bytes.unwrap()).sum::<u64>(),
            10
        );
        assert!(parts
            .iter()
            .all(|p| p.limit.duration_ns == Some(5) && p.threads == 1));
        // Contiguous parts covering the span, each a whole number of blocks.
        let mut at = w.offset_bytes;
        for p in &parts {
            assert_eq!(p.offset_bytes, at);
            assert_eq!(p.span_bytes % 4096, 0);
            at += p.span_bytes;
        }
        assert_eq!(at, w.offset_bytes + w.span_bytes);
        assert_eq!(parts[0].seed, w.seed);
        assert!(parts[1].seed != parts[2].seed && parts[1].seed != w.seed);
        // Random threads each cover the whole span.
        let random = Workload { threads: 3, ..wl() }.for_thread(2);
        assert_eq!(
            (random.offset_bytes, random.span_bytes),
            (wl().offset_bytes, wl().span_bytes)
        );
    }

    #[test]
    fn validation_names_the_problem() {
        let g = geo();
        assert!(wl().validate(&g).is_ok());
        let e = Workload { qd: 0, ..wl() }.validate(&g).unwrap_err();
        assert_eq!(e, WorkloadError::QueueDepth(0));
        let e = Workload { threads: 0, ..wl() }.validate(&g).unwrap_err();
        assert_eq!(e, WorkloadError::Threads(0));
        let e = Workload {
            access: Access::Sequential,
            span_bytes: 4096,
            threads: 2,
            ..wl()
        };
        assert!(matches!(
            e.validate(&g),
            Err(WorkloadError::SpanTooSmall { .. })
        ));
        let e = Workload {
            block_bytes: 1000,
            ..wl()
        };
        assert!(e.validate(&g).unwrap_err().to_string().contains("multiple"));
        let e = Workload {
            span_bytes: 2 << 30,
            ..wl()
        };
        assert!(matches!(
            e.validate(&g),
            Err(WorkloadError::SpanTooLarge { .. })
        ));
        let e = Workload {
            limit: Limit::default(),
            ..wl()
        };
        assert_eq!(e.validate(&g), Err(WorkloadError::NoLimit));
    }
}
