//! Synthetic look-alikes of the Storage Bench traces (docs/methodology.md section 7).
//!
//! The original traces are proprietary; their published statistics are not. A generator
//! builds a trace from scenario **streams** running at once (the Destroyer's photo, gaming,
//! virtualization, productivity, video and development streams), interleaved IO by IO, and
//! groups IOs into **episodes** (busy periods) separated by idle gaps, with occasional long
//! idle periods. It is seeded and reproducible, and streams its output: memory does not
//! depend on the trace length.
//!
//! ## How each published figure is met
//! Every figure is steered by a small quota controller that keeps the running count within
//! one or two IOs of its target while drawing at random inside that bound, so shares are exact
//! at any scale and the order is not periodic:
//! - **reads/writes**: an op quota with the published counts (times `scale`).
//! - **size breakdown**: per-op size-class quotas (4, 8, 16, 32, 64, 128 KiB and "other").
//!   The published overall shares are met by choosing the read side's shares and deriving the
//!   write side's from the overall target.
//! - **bytes**: "other" sizes (multiples of 4 KiB between 12 KiB and 1 MiB that are not one of
//!   the classes) are drawn around the remaining bytes divided by the remaining "other" IOs
//!   of that op, so the totals land within one IO of the target.
//! - **sequential share**: per stream and direction; each stream has its own share (video
//!   mostly sequential, virtualization mostly random) and one stream's share is derived so the
//!   overall share is the published one. Sequential = starts where the previous IO of its
//!   stream and direction ended, as `stats` counts it.
//! - **QD1 share**: every episode starts on an idle device, so its first IO is the only one
//!   issued at QD1; the number of episodes is steered to `qd1_share` x IOs (single-IO
//!   episodes raise the share, bursts lower it).
//! - **average queue depth**: a burst of `k` IOs runs closed-loop at depth `d` (d issued at
//!   once, each completion issuing the next); `d` is chosen per burst (2..=min(k, 64)) so the
//!   running time-weighted queue depth over busy time stays on target.
//!
//! ## The nominal service model
//! Issue and completion times come from a single-server FIFO device ("next free time", as
//! FEMU models a channel): an IO's service time is `base + len / bandwidth`
//! (reads 40 us + len / 500 MB/s, writes 30 us + len / 350 MB/s; a 2011-2013 SATA SSD); it
//! completes at `max(issue, device free) + service`. D2C therefore includes time queued inside
//! the device. Queue time (Q) equals issue time (D): there is no host scheduler.
//!
//! ## Figures the articles do not publish
//! Light 2011 publishes counts and four size shares only; the Destroyer counts, bytes and an
//! approximate queue depth. The rest (marked `chosen` in [`Profile`]) are ssdlab's choices,
//! stated here and in the profile's `notes`.

use std::collections::VecDeque;

use crate::{Op, Record, TraceError};

/// Size classes the breakdown reports, in bytes.
pub const CLASSES: [u32; 6] = [4096, 8192, 16384, 32768, 65536, 131072];
/// The largest IO a generator makes (an "other" size).
pub const LARGEST_IO_BYTES: u64 = 1 << 20;
/// The largest scale: ten times the published trace. A larger one repeats the same statistics
/// for longer at the cost of disk and replay time only (the Destroyer at 10 is already half a
/// billion IOs moving 25 TB, weeks on a 2013 SSD); a longer test replays the trace again.
pub const MAX_SCALE: f64 = 10.0;

/// One scenario stream.
#[derive(Clone, Debug)]
pub struct StreamSpec {
    pub name: &'static str,
    /// Share of all IOs.
    pub weight: f64,
    /// Share of its reads and writes that are sequential; `None` for the one stream whose
    /// share is derived from the profile's overall target.
    pub seq_share: Option<f64>,
    /// The IO size it favours (bytes); IOs of other sizes go to it less often.
    pub typical_bytes: f64,
    /// Share of the device's LBA space it uses.
    pub region_share: f64,
}

/// What a generated trace must look like.
#[derive(Clone, Debug)]
pub struct Profile {
    pub name: &'static str,
    pub reads: u64,
    pub writes: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    /// Overall shares of read+write IOs for 4, 8, 16, 32, 64, 128 KiB.
    pub class_shares: [f64; 6],
    /// The read side's shares; the write side's are derived from `class_shares`.
    pub read_class_shares: [f64; 6],
    pub sequential_share: f64,
    pub avg_queue_depth: f64,
    pub qd1_share: f64,
    pub capacity_bytes: u64,
    /// Mean idle gap between episodes.
    pub mean_gap_ns: f64,
    /// One long idle period (1 to 30 s) every this many episodes on average.
    pub long_idle_every: f64,
    pub streams: Vec<StreamSpec>,
    /// Which figures are published and which are ssdlab's choice.
    pub notes: &'static str,
}

const GB: f64 = 1e9;

impl Profile {
    pub const NAMES: [&'static str; 3] = ["heavy-2011", "light-2011", "destroyer-2013"];

    pub fn by_name(name: &str) -> Option<Profile> {
        match name {
            "heavy-2011" | "heavy" => Some(Self::heavy_2011()),
            "light-2011" | "light" => Some(Self::light_2011()),
            "destroyer-2013" | "destroyer" => Some(Self::destroyer_2013()),
            _ => None,
        }
    }

    /// AnandTech Storage Bench 2011, Heavy workload.
    pub fn heavy_2011() -> Profile {
        Profile {
            name: "heavy-2011",
            reads: 2_168_893,
            writes: 1_783_447,
            bytes_read: (48.63 * GB) as u64,
            bytes_written: (106.32 * GB) as u64,
            // published: 4K 28%, 16K 10%, 32K 10%, 64K 4%; chosen: 8K 10%, 128K 15%
            class_shares: [0.28, 0.10, 0.10, 0.10, 0.04, 0.15],
            read_class_shares: [0.30, 0.12, 0.12, 0.10, 0.04, 0.04],
            sequential_share: 0.42,
            avg_queue_depth: 4.625,
            qd1_share: 0.59,
            capacity_bytes: 120_000_000_000,
            mean_gap_ns: 1e6,
            long_idle_every: 20_000.0,
            streams: vec![
                stream("productivity", 0.40, None, 8192.0, 0.30),
                stream("photo", 0.15, Some(0.55), 131072.0, 0.15),
                stream("virtualization", 0.20, Some(0.15), 16384.0, 0.25),
                stream("gaming", 0.10, Some(0.50), 65536.0, 0.15),
                stream("download", 0.15, Some(0.85), 131072.0, 0.15),
            ],
            notes: "published: read/write counts, GB read/written, 4/16/32/64 KiB shares, \
                    sequential 42%, average QD 4.625, QD1 59%; chosen: 8 KiB 10%, 128 KiB 15%",
        }
    }

    /// AnandTech Storage Bench 2011, Light workload.
    pub fn light_2011() -> Profile {
        Profile {
            name: "light-2011",
            reads: 372_630,
            writes: 459_709,
            // chosen: about 24 KiB per read, 33 KiB per write
            bytes_read: (9.15 * GB) as u64,
            bytes_written: (15.5 * GB) as u64,
            // published: 4K 27%, 16K 8%, 32K 6%, 64K 5%; chosen: 8K 12%, 128K 6%
            class_shares: [0.27, 0.12, 0.08, 0.06, 0.05, 0.06],
            read_class_shares: [0.28, 0.12, 0.09, 0.06, 0.05, 0.05],
            sequential_share: 0.35,
            avg_queue_depth: 1.8,
            qd1_share: 0.75,
            capacity_bytes: 120_000_000_000,
            mean_gap_ns: 5e6,
            long_idle_every: 5_000.0,
            streams: vec![
                stream("productivity", 0.50, None, 8192.0, 0.35),
                stream("browsing", 0.25, Some(0.20), 4096.0, 0.25),
                stream("photo", 0.15, Some(0.55), 131072.0, 0.20),
                stream("media", 0.10, Some(0.85), 65536.0, 0.20),
            ],
            notes: "published: read/write counts, 4/16/32/64 KiB shares; chosen: bytes \
                    (9.15 GB read, 15.5 GB written), 8 KiB 12%, 128 KiB 6%, sequential 35%, \
                    average QD 1.8, QD1 75%",
        }
    }

    /// AnandTech Storage Bench 2013, "The Destroyer".
    pub fn destroyer_2013() -> Profile {
        Profile {
            name: "destroyer-2013",
            reads: 38_830_000,
            writes: 10_980_000,
            bytes_read: (1583.02 * GB) as u64,
            bytes_written: (875.62 * GB) as u64,
            // chosen (not published): 4K 30%, 8K 10%, 16K 10%, 32K 8%, 64K 6%, 128K 16%
            class_shares: [0.30, 0.10, 0.10, 0.08, 0.06, 0.16],
            read_class_shares: [0.30, 0.10, 0.10, 0.08, 0.06, 0.16],
            sequential_share: 0.45,
            avg_queue_depth: 5.5,
            qd1_share: 0.55,
            capacity_bytes: 256_000_000_000,
            mean_gap_ns: 2e6,
            long_idle_every: 20_000.0,
            streams: vec![
                stream("productivity", 0.30, None, 8192.0, 0.25),
                stream("photo", 0.12, Some(0.55), 131072.0, 0.12),
                stream("gaming", 0.18, Some(0.50), 65536.0, 0.18),
                stream("virtualization", 0.20, Some(0.15), 16384.0, 0.25),
                stream("video", 0.08, Some(0.90), 262144.0, 0.10),
                stream("development", 0.12, Some(0.30), 4096.0, 0.10),
            ],
            notes: "published: read/write counts (38.83M/10.98M), GB read/written, average QD \
                    about 5.5; chosen: size shares, sequential 45%, QD1 55%",
        }
    }

    fn write_class_shares(&self) -> [f64; 6] {
        let n = (self.reads + self.writes) as f64;
        std::array::from_fn(|i| {
            (self.class_shares[i] * n - self.read_class_shares[i] * self.reads as f64)
                / self.writes as f64
        })
    }

    /// Check the profile can be met (no negative derived share, feasible "other" sizes).
    pub fn validate(&self) -> Result<(), TraceError> {
        let w = self.write_class_shares();
        for (side, shares) in [("read", self.read_class_shares), ("write", w)] {
            if shares.iter().any(|&s| s < 0.0) || shares.iter().sum::<f64>() > 1.0 {
                return Err(TraceError::Format(format!(
                    "{}: {side} size shares are infeasible: {shares:?}",
                    self.name
                )));
            }
        }
        let wsum: f64 = self.streams.iter().map(|s| s.weight).sum();
        if (wsum - 1.0).abs() > 1e-9 {
            return Err(TraceError::Format(format!(
                "{}: stream weights sum to {wsum}, not 1",
                self.name
            )));
        }
        let free = self
            .streams
            .iter()
            .filter(|s| s.seq_share.is_none())
            .count();
        if free != 1 {
            return Err(TraceError::Format(format!(
                "{}: exactly one stream must derive its sequential share",
                self.name
            )));
        }
        if self
            .streams
            .iter()
            .any(|s| !s.region_share.is_finite() || s.region_share <= 0.0)
        {
            return Err(TraceError::Format(format!(
                "{}: every stream needs a region",
                self.name
            )));
        }
        if self.capacity_bytes < self.min_span_bytes() {
            return Err(TraceError::Format(format!(
                "{}: a span of {} bytes is too small: its streams' regions need at least {} \
                 bytes to hold a {} KiB IO each",
                self.name,
                self.capacity_bytes,
                self.min_span_bytes(),
                LARGEST_IO_BYTES >> 10
            )));
        }
        let derived = self.derived_seq_share();
        if !(0.0..=1.0).contains(&derived) {
            return Err(TraceError::Format(format!(
                "{}: derived sequential share {derived} is infeasible",
                self.name
            )));
        }
        Ok(())
    }

    /// The smallest span (`capacity_bytes`) the profile can be laid out on: every stream's
    /// region must hold the largest IO and one more 4 KiB slot.
    pub fn min_span_bytes(&self) -> u64 {
        self.streams
            .iter()
            .map(|s| ((LARGEST_IO_BYTES + 2 * 4096) as f64 / s.region_share).ceil() as u64)
            .max()
            .unwrap_or(0)
    }

    fn derived_seq_share(&self) -> f64 {
        let fixed: f64 = self
            .streams
            .iter()
            .filter_map(|s| s.seq_share.map(|q| q * s.weight))
            .sum();
        let w = self
            .streams
            .iter()
            .find(|s| s.seq_share.is_none())
            .map_or(1.0, |s| s.weight);
        (self.sequential_share - fixed) / w
    }
}

fn stream(
    name: &'static str,
    weight: f64,
    seq_share: Option<f64>,
    typical_bytes: f64,
    region_share: f64,
) -> StreamSpec {
    StreamSpec {
        name,
        weight,
        seq_share,
        typical_bytes,
        region_share,
    }
}

/// Keeps counts of categories within a small bound of `share x total` while choosing at
/// random in proportion to the shares.
struct Quota {
    shares: Vec<f64>,
    counts: Vec<u64>,
    n: u64,
}

impl Quota {
    fn new(shares: Vec<f64>) -> Self {
        let k = shares.len();
        Quota {
            shares,
            counts: vec![0; k],
            n: 0,
        }
    }

    fn deficit(&self, i: usize) -> f64 {
        self.shares[i] * (self.n + 1) as f64 - self.counts[i] as f64
    }

    /// Pick with weights `bias[i] * share[i]` among categories not more than `slack` ahead.
    fn pick(&mut self, rng: &mut fastrand::Rng, bias: impl Fn(usize) -> f64, slack: f64) -> usize {
        let k = self.shares.len();
        // A category far behind is taken at once.
        let (worst, wd) = (0..k)
            .map(|i| (i, self.deficit(i)))
            .fold((0, f64::MIN), |a, b| if b.1 > a.1 { b } else { a });
        let choice = if wd >= slack {
            worst
        } else {
            let w: Vec<f64> = (0..k)
                .map(|i| {
                    if self.shares[i] > 0.0 && self.deficit(i) > -slack {
                        self.shares[i] * bias(i)
                    } else {
                        0.0
                    }
                })
                .collect();
            let total: f64 = w.iter().sum();
            if total <= 0.0 {
                worst
            } else {
                let mut x = rng.f64() * total;
                let mut c = k - 1;
                for (i, wi) in w.iter().enumerate() {
                    if x < *wi {
                        c = i;
                        break;
                    }
                    x -= wi;
                }
                c
            }
        };
        self.counts[choice] += 1;
        self.n += 1;
        choice
    }
}

/// A yes/no decision whose running share stays within one of `share x n`.
fn steer(share: f64, yes: u64, n: u64, rng: &mut fastrand::Rng) -> bool {
    let d = share * (n + 1) as f64 - yes as f64;
    if d >= 1.0 {
        true
    } else if d <= 0.0 {
        false
    } else {
        rng.f64() < d
    }
}

struct OpState {
    classes: Quota,
    other_ios_left: u64,
    other_bytes_left: u64,
}

struct StreamState {
    base: u64,
    size: u64,
    last_end: [Option<u64>; 2],
    seq: [u64; 2],
    n: [u64; 2],
    seq_share: f64,
    ln_typical: f64,
}

/// Nominal service time of an IO (see the module docs).
pub fn service_ns(op: Op, len: u32) -> u64 {
    match op {
        // bytes / (500 * 10^6 B/s) in ns = bytes * 2; 350 MB/s = bytes * 20 / 7
        Op::Read => 40_000 + u64::from(len) * 2,
        _ => 30_000 + u64::from(len) * 20 / 7,
    }
}

/// Streams the records of a synthetic trace, in issue order.
pub struct Generator {
    profile: Profile,
    rng: fastrand::Rng,
    total: u64,
    made: u64,
    ops: Quota,
    op_state: [OpState; 2],
    streams: Vec<StreamState>,
    stream_quota: Quota,
    // timing
    now_ns: u64,
    episodes: u64,
    area: u128,
    busy: u128,
    out: VecDeque<Record>,
    burst: Vec<Record>,
}

impl Generator {
    /// A generator for `profile` at `scale` (1.0 = the published size) with `seed`.
    pub fn new(profile: Profile, scale: f64, seed: u64) -> Result<Self, TraceError> {
        profile.validate()?;
        if !(scale > 0.0 && scale.is_finite()) {
            return Err(TraceError::Format(format!(
                "scale must be a positive number, not {scale}"
            )));
        }
        if scale > MAX_SCALE {
            return Err(TraceError::Format(format!(
                "scale {scale} is above the most, {MAX_SCALE}: {} at {MAX_SCALE} is {:.1} million \
                 IOs, {MAX_SCALE} times the published trace, and a larger scale only repeats the \
                 same statistics at the cost of disk and replay time; give --scale {MAX_SCALE} \
                 or less, and replay the trace again for a longer test",
                profile.name,
                (profile.reads + profile.writes) as f64 * MAX_SCALE / 1e6
            )));
        }
        let reads = ((profile.reads as f64) * scale).round() as u64;
        let writes = ((profile.writes as f64) * scale).round() as u64;
        let total = reads + writes;
        if total == 0 {
            return Err(TraceError::Format(format!("scale {scale} leaves no IOs")));
        }
        let bytes = [
            ((profile.bytes_read as f64) * scale).round() as u64,
            ((profile.bytes_written as f64) * scale).round() as u64,
        ];
        let sides = [profile.read_class_shares, profile.write_class_shares()];
        let counts = [reads, writes];
        let op_state = [0, 1].map(|o| {
            let shares = sides[o];
            let other = 1.0 - shares.iter().sum::<f64>();
            let mut all = shares.to_vec();
            all.push(other.max(0.0));
            let class_bytes: f64 = shares
                .iter()
                .zip(CLASSES)
                .map(|(s, c)| s * counts[o] as f64 * f64::from(c))
                .sum();
            OpState {
                classes: Quota::new(all),
                other_ios_left: (other * counts[o] as f64).round() as u64,
                other_bytes_left: (bytes[o] as f64 - class_bytes).max(0.0) as u64,
            }
        });
        let derived = profile.derived_seq_share();
        let mut base = 0u64;
        let streams = profile
            .streams
            .iter()
            .map(|s| {
                let size = ((profile.capacity_bytes as f64 * s.region_share) as u64) & !4095;
                let st = StreamState {
                    base,
                    size,
                    last_end: [None; 2],
                    seq: [0; 2],
                    n: [0; 2],
                    seq_share: s.seq_share.unwrap_or(derived),
                    ln_typical: s.typical_bytes.ln(),
                };
                base += size;
                st
            })
            .collect();
        let weights = profile.streams.iter().map(|s| s.weight).collect();
        Ok(Generator {
            rng: fastrand::Rng::with_seed(seed),
            ops: Quota::new(vec![
                reads as f64 / total as f64,
                writes as f64 / total as f64,
            ]),
            stream_quota: Quota::new(weights),
            total,
            made: 0,
            op_state,
            streams,
            profile,
            now_ns: 0,
            episodes: 0,
            area: 0,
            busy: 0,
            out: VecDeque::new(),
            burst: Vec::with_capacity(64),
        })
    }

    /// IOs this generator will produce.
    pub fn total(&self) -> u64 {
        self.total
    }

    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    fn other_size(&mut self, o: usize) -> u32 {
        let st = &mut self.op_state[o];
        let left = st.other_ios_left.max(1);
        let target = st.other_bytes_left as f64 / left as f64;
        let size = if st.other_ios_left <= 1 {
            target
        } else {
            // log-normal around the target keeps sizes varied; the feedback keeps the total.
            target * (self.rng.f64() * 1.6 - 0.8).exp()
        };
        let mut s = ((size / 4096.0).round() as u64 * 4096).clamp(12_288, LARGEST_IO_BYTES) as u32;
        if CLASSES.contains(&s) {
            s += 4096;
        }
        st.other_ios_left = st.other_ios_left.saturating_sub(1);
        st.other_bytes_left = st.other_bytes_left.saturating_sub(u64::from(s));
        s
    }

    /// The next IO's op, size, stream and offset (no times yet).
    fn next_io(&mut self) -> Record {
        let o = self.ops.pick(&mut self.rng, |_| 1.0, 2.0);
        let op = if o == 0 { Op::Read } else { Op::Write };
        let class = self.op_state[o].classes.pick(&mut self.rng, |_| 1.0, 2.0);
        let len = if class < 6 {
            CLASSES[class]
        } else {
            self.other_size(o)
        };
        let ln = f64::from(len).ln();
        let streams = &self.streams;
        let s = self.stream_quota.pick(
            &mut self.rng,
            |i| {
                let d = (ln - streams[i].ln_typical) / 1.5;
                (-0.5 * d * d).exp() + 0.05
            },
            64.0,
        );
        let st = &mut self.streams[s];
        let seq = st.last_end[o].is_some_and(|e| e + u64::from(len) <= st.base + st.size)
            && steer(st.seq_share, st.seq[o], st.n[o], &mut self.rng);
        let offset = if seq {
            st.last_end[o].expect("checked")
        } else {
            let slots = (st.size - u64::from(len)) / 4096;
            let mut off = st.base + self.rng.u64(0..=slots) * 4096;
            if Some(off) == st.last_end[o] {
                off = if off >= st.base + 4096 {
                    off - 4096
                } else {
                    off + 4096
                };
            }
            off
        };
        st.n[o] += 1;
        if seq {
            st.seq[o] += 1;
        }
        st.last_end[o] = Some(offset + u64::from(len));
        let mut r = Record::new(op, offset, len, None);
        r.stream = s as u32;
        r
    }

    fn gap(&mut self) -> u64 {
        let p = &self.profile;
        let mut g = -p.mean_gap_ns * (1.0 - self.rng.f64()).ln();
        if self.rng.f64() * p.long_idle_every < 1.0 {
            g += 1e9 + self.rng.f64() * 29e9;
        }
        (g as u64).max(1_000)
    }

    /// Issue and completion times of a closed-loop burst at depth `d` starting at `t0`.
    fn schedule(burst: &mut [Record], d: usize, t0: u64) -> (u128, u64) {
        let mut free = t0;
        let mut area: u128 = 0;
        for j in 0..burst.len() {
            let issue = if j < d {
                t0
            } else {
                burst[j - d].complete_ns.expect("set")
            };
            let c = free.max(issue) + service_ns(burst[j].op, burst[j].len_bytes);
            free = c;
            burst[j].queue_ns = Some(issue);
            burst[j].issue_ns = Some(issue);
            burst[j].complete_ns = Some(c);
            area += u128::from(c - issue);
        }
        (area, free - t0)
    }

    fn episode(&mut self) {
        let left = self.total - self.made;
        let p_qd1 = self.profile.qd1_share;
        let single = left == 1
            || steer(p_qd1, self.episodes, self.made, &mut self.rng) && {
                // A burst is due unless the episode count is behind the QD1 target.
                (self.episodes as f64) < p_qd1 * (self.made + 1) as f64
            };
        self.episodes += 1;
        let t0 = self.now_ns + self.gap();
        if single {
            let mut r = self.next_io();
            let c = t0 + service_ns(r.op, r.len_bytes);
            r.queue_ns = Some(t0);
            r.issue_ns = Some(t0);
            r.complete_ns = Some(c);
            self.area += u128::from(c - t0);
            self.busy += u128::from(c - t0);
            self.now_ns = c;
            self.made += 1;
            self.out.push_back(r);
            return;
        }
        let k = (self.rng.u64(4..=64)).min(left) as usize;
        self.burst.clear();
        for _ in 0..k {
            let r = self.next_io();
            self.burst.push(r);
        }
        self.made += k as u64;
        // Choose the depth that brings the running time-weighted queue depth closest to the
        // target.
        let target = self.profile.avg_queue_depth;
        let mut best = (f64::MAX, 2usize);
        for d in 2..=k.clamp(2, 64) {
            let (a, b) = Self::schedule(&mut self.burst, d, t0);
            let q = (self.area + a) as f64 / (self.busy + u128::from(b)) as f64;
            let err = (q - target).abs();
            if err < best.0 {
                best = (err, d);
            }
        }
        let (a, b) = Self::schedule(&mut self.burst, best.1.min(k.max(1)), t0);
        self.area += a;
        self.busy += u128::from(b);
        self.now_ns = t0 + b;
        self.out.extend(self.burst.drain(..));
    }
}

impl Iterator for Generator {
    type Item = Record;

    fn next(&mut self) -> Option<Record> {
        loop {
            if let Some(r) = self.out.pop_front() {
                return Some(r);
            }
            if self.made >= self.total {
                return None;
            }
            self.episode();
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.total - self.made) as usize + self.out.len();
        (n, Some(n))
    }
}

/// Write a generated trace with `writer`; returns the number of records.
pub fn generate_into(
    profile: Profile,
    scale: f64,
    seed: u64,
    writer: &mut dyn crate::TraceWriter,
) -> Result<u64, crate::TraceError> {
    let generator = Generator::new(profile, scale, seed)?;
    let mut n = 0;
    for r in generator {
        writer.write(&r)?;
        n += 1;
    }
    writer.finish()?;
    Ok(n)
}

/// About how many bytes [`generate_into`] writes for `profile` at `scale` in `format`: the
/// bytes per record of the trace's first records, times its records.
pub fn estimated_bytes(
    profile: &Profile,
    scale: f64,
    seed: u64,
    format: crate::Format,
) -> Result<u64, crate::TraceError> {
    const SAMPLE: usize = 10_000;
    let generator = Generator::new(profile.clone(), scale, seed)?;
    let total = generator.total();
    let written = ByteCount::default();
    let mut writer = crate::writer_for(written.clone(), format)?;
    let mut sampled = 0u64;
    for r in generator.take(SAMPLE) {
        writer.write(&r)?;
        sampled += 1;
    }
    writer.finish()?;
    Ok((written.0.get() as f64 / sampled as f64 * total as f64).ceil() as u64)
}

/// A sink that counts the bytes written to it (and its clones).
#[derive(Clone, Default)]
struct ByteCount(std::rc::Rc<std::cell::Cell<u64>>);

impl std::io::Write for ByteCount {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.set(self.0.get() + buf.len() as u64);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
