//! `SimSsd`: the simulated drive behind the engine's `Device` contract, on a virtual clock.
//!
//! `submit` runs the FTL at the current virtual time and computes the IO's completion time
//! with the timing model; completions wait in a min-heap. `reap` pops them in time order and
//! moves the clock to each; with nothing in flight and a deadline given, the clock jumps to
//! the deadline and the idle time goes to SLC migration and background GC. Nothing here
//! reads the wall clock or iterates a hash map, so the same spec gives the same results.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use engine::{Clock, Completion, Device, DeviceError, Geometry, Identity, Io, Op};

use crate::config::{fmt_bytes, Config};
use crate::error::SimError;
use crate::ftl::Ftl;
use crate::geometry::UNIT_BYTES;
use crate::mapping::UNMAPPED;

/// The stamp a mapped 4 KiB unit reads back as in data mode: every little-endian u64 word is
/// this value. Never zero, so it cannot be mistaken for an unmapped unit.
pub fn lba_stamp(unit: u64) -> u64 {
    (unit + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1
}

pub struct SimSsd {
    cfg: Config,
    spec: String,
    ftl: Ftl,
    now: u64,
    /// (completion time, submission sequence, slot, result)
    inflight: BinaryHeap<Reverse<(u64, u64, u32, i64)>>,
    seq: u64,
    slots: u32,
    max_len: usize,
    buffers: Vec<Vec<u8>>,
}

impl SimSsd {
    /// A drive from a resolved configuration; `spec` is recorded in its identity.
    pub fn new(cfg: Config, spec: &str) -> Result<SimSsd, SimError> {
        if let Some(avail) = engine::system::available_memory() {
            check_memory(&cfg, avail)?;
        }
        let ftl = Ftl::new(&cfg)?;
        Ok(SimSsd {
            cfg,
            spec: spec.to_string(),
            ftl,
            now: 0,
            inflight: BinaryHeap::with_capacity(64),
            seq: 0,
            slots: 0,
            max_len: 0,
            buffers: Vec::new(),
        })
    }

    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// IOs submitted and not yet reaped.
    pub fn in_flight(&self) -> usize {
        self.inflight.len()
    }

    /// Bytes of RAM the mapping tables take (the bulk of the simulator's memory).
    pub fn mapping_ram_bytes(&self) -> u64 {
        self.ftl.map.ram_bytes()
    }

    /// The FTL's counters as a struct (the JSON form is `Device::counters`).
    pub fn stats(&self) -> crate::counters::Counters {
        self.ftl.c.clone()
    }

    fn complete_at(&mut self, time: u64, slot: u32, result: i64) {
        self.seq += 1;
        self.inflight.push(Reverse((time, self.seq, slot, result)));
    }

    fn fill_read(&mut self, slot: u32, offset: u64, len: u64) {
        let Some(buf) = self.buffers.get_mut(slot as usize) else {
            return;
        };
        let buf = &mut buf[..len as usize];
        let end = offset + len;
        let mut at = offset;
        let map_unit = self.ftl.layout.unit_bytes;
        while at < end {
            let unit = at / UNIT_BYTES;
            let stop = ((unit + 1) * UNIT_BYTES).min(end);
            let chunk = &mut buf[(at - offset) as usize..(stop - offset) as usize];
            if self.ftl.map.lookup((at / map_unit) as u32) == UNMAPPED {
                chunk.fill(0);
            } else {
                let word = lba_stamp(unit).to_le_bytes();
                for (i, byte) in chunk.iter_mut().enumerate() {
                    *byte = word[(at as usize + i) % 8];
                }
            }
            at = stop;
        }
    }
}

/// Refuse a drive whose simulation would not fit in `available` bytes of memory, before
/// allocating it (a 14 TB drive would otherwise be killed by the OOM killer).
pub fn check_memory(cfg: &Config, available: u64) -> Result<(), SimError> {
    let layout = cfg.layout()?;
    let need = cfg.ram_estimate(&layout);
    if need <= available {
        return Ok(());
    }
    // The tables scale with capacity: suggest one that fits with 10% to spare, in GiB.
    let fits = (cfg.capacity_bytes as f64 * 0.9 * available as f64 / need as f64) as u64;
    Err(SimError::Config(format!(
        "simulating {} needs about {} of RAM for its mapping tables, but only {} is available: \
         use a smaller capacity (capacity={}G fits) or a larger map_unit (map_unit=16KiB needs a quarter)",
        fmt_bytes(cfg.capacity_bytes),
        fmt_bytes(need),
        fmt_bytes(available),
        (fits >> 30).max(1),
    )))
}

impl Device for SimSsd {
    fn identity(&self) -> Identity {
        let cfg = &self.cfg;
        let layout = &self.ftl.layout;
        let mut details = BTreeMap::new();
        details.insert("preset".into(), cfg.preset.clone());
        if let Some(m) = &cfg.model_of {
            details.insert(
                "models".into(),
                format!("{m} (a model fitted to its reviews; not the drive's firmware)"),
            );
        }
        details.insert(
            "nand".into(),
            format!("{} {} dies", layout.dies, layout.cell.name()),
        );
        details.insert(
            "geometry".into(),
            format!(
                "{} channels x {} dies x {} planes, {} pages of {} per block",
                layout.channels,
                cfg.dies_per_channel,
                layout.planes,
                layout.pages_per_block,
                fmt_bytes(layout.page_bytes as u64)
            ),
        );
        details.insert(
            "op_physical_over_logical_minus_one".into(),
            format!("{:.4}", layout.op_physical_over_logical_minus_one()),
        );
        details.insert(
            "spare_factor".into(),
            format!("{:.4}", layout.spare_factor()),
        );
        details.insert(
            "gc".into(),
            format!("{}, {}", cfg.gc.policy.name(), cfg.gc.style.name()),
        );
        details.insert("trim".into(), cfg.trim.style.name().into());
        details.insert("map_unit".into(), fmt_bytes(cfg.map_unit_bytes));
        details.insert("slc_cache".into(), fmt_bytes(cfg.slc.bytes));
        details.insert("write_buffer".into(), fmt_bytes(cfg.write_buffer_bytes));
        details.insert("dram".into(), fmt_bytes(cfg.dram_bytes));
        details.insert("link".into(), cfg.link.label().into());
        details.insert("data".into(), if cfg.data { "on" } else { "off" }.into());
        details.insert("clock".into(), "virtual".into());
        Identity {
            kind: "sim".into(),
            path: format!("sim:{}", self.spec),
            model: Some({
                let base = match &cfg.model_of {
                    Some(m) => format!("ssdlab model of {m}"),
                    None => format!("ssdlab simulated SSD ({})", cfg.preset),
                };
                // Overrides make another drive: say so where drives are listed by model.
                match self.spec.split_once(',') {
                    Some((_, overrides)) if !overrides.trim().is_empty() => {
                        format!("{base} with {}", overrides.trim())
                    }
                    _ => base,
                }
            }),
            serial: Some(format!("SIM-{}", cfg.preset.to_ascii_uppercase())),
            firmware: Some(format!("ssdlab-sim {}", env!("CARGO_PKG_VERSION"))),
            vendor: Some("ssdlab (simulated)".into()),
            capacity_bytes: cfg.capacity_bytes,
            logical_block_bytes: 512,
            physical_block_bytes: UNIT_BYTES as u32,
            rotational: Some(false),
            details,
        }
    }

    fn geometry(&self) -> Geometry {
        Geometry {
            capacity_bytes: self.cfg.capacity_bytes,
            logical_block_bytes: 512,
            physical_block_bytes: UNIT_BYTES as u32,
        }
    }

    fn clock(&self) -> Clock {
        Clock::Virtual
    }

    fn now_ns(&self) -> u64 {
        self.now
    }

    fn prepare(&mut self, slots: u32, max_len: usize) -> Result<(), DeviceError> {
        self.slots = slots;
        self.max_len = max_len;
        if self.cfg.data {
            self.buffers = (0..slots).map(|_| vec![0u8; max_len]).collect();
        }
        Ok(())
    }

    fn buffer(&mut self, slot: u32) -> Option<&mut [u8]> {
        if !self.cfg.data {
            return None;
        }
        self.buffers
            .get_mut(slot as usize)
            .map(|b| b.as_mut_slice())
    }

    fn submit(&mut self, io: Io) -> Result<(), DeviceError> {
        if io.slot >= self.slots {
            return Err(DeviceError::Invalid(format!(
                "slot {} but only {} prepared",
                io.slot, self.slots
            )));
        }
        let now = self.now;
        let (offset, len) = (io.offset, io.len as u64);
        if io.op != Op::Flush {
            let bad = len == 0
                || offset % 512 != 0
                || len % 512 != 0
                || offset
                    .checked_add(len)
                    .is_none_or(|e| e > self.cfg.capacity_bytes);
            if bad {
                self.ftl.c.failed_ios += 1;
                self.complete_at(now, io.slot, -(libc::EINVAL as i64));
                return Ok(());
            }
            if self.cfg.data && io.op != Op::Discard && len as usize > self.max_len {
                return Err(DeviceError::Invalid(format!(
                    "IO of {len} bytes exceeds the {} byte buffers prepared",
                    self.max_len
                )));
            }
        }
        let (done, result) = match io.op {
            Op::Read => {
                if self.cfg.data {
                    self.fill_read(io.slot, offset, len);
                }
                (self.ftl.read(now, offset, len), len as i64)
            }
            Op::Write => match self.ftl.write(now, offset, len) {
                Some(t) => (t, len as i64),
                None => {
                    self.ftl.c.failed_ios += 1;
                    (now, -(libc::ENOSPC as i64))
                }
            },
            Op::Discard => (self.ftl.discard(now, offset, len), 0),
            Op::Flush => (self.ftl.flush(now), 0),
        };
        self.complete_at(done.max(now), io.slot, result);
        Ok(())
    }

    fn reap(
        &mut self,
        min: u32,
        until_ns: Option<u64>,
        done: &mut Vec<Completion>,
    ) -> Result<(), DeviceError> {
        let mut got = 0u32;
        loop {
            match self.inflight.peek() {
                Some(&Reverse((t, _, _, _))) if until_ns.is_none_or(|u| t <= u) => {
                    if got >= min && t > self.now {
                        return Ok(());
                    }
                    let Reverse((t, _, slot, result)) = self.inflight.pop().expect("peeked");
                    self.now = self.now.max(t);
                    done.push(Completion {
                        slot,
                        complete_ns: self.now,
                        result,
                    });
                    got += 1;
                }
                Some(_) => {
                    // The next completion is after the deadline.
                    if let Some(u) = until_ns {
                        self.now = self.now.max(u);
                    }
                    return Ok(());
                }
                None => {
                    if let Some(u) = until_ns {
                        if u > self.now {
                            self.ftl.idle(self.now, u);
                            self.now = u;
                        }
                    }
                    return Ok(());
                }
            }
        }
    }

    fn secure_erase(&mut self) -> Result<Option<String>, DeviceError> {
        if !self.inflight.is_empty() {
            return Err(DeviceError::Invalid(
                "secure erase with IO in flight: reap every IO first".into(),
            ));
        }
        self.now = self.ftl.secure_erase(self.now);
        Ok(Some("secure erase (simulated: every block erased)".into()))
    }

    fn counters(&self) -> Option<serde_json::Value> {
        Some(self.ftl.c.to_json(
            &self.ftl.layout,
            &self.ftl.blocks,
            self.ftl.trims.pending_units(),
            self.now,
        ))
    }
}
