//! `SimSsd`: the simulated drive behind the engine's `Device` contract, on a virtual clock.
//!
//! `submit` runs the FTL at the current virtual time and computes the IO's completion time
//! with the timing model; completions wait in a min-heap. `reap` pops them in time order and
//! moves the clock to each; with nothing in flight and a deadline given, the clock jumps to
//! the deadline and the idle time goes to SLC migration and background GC. Nothing here
//! reads the wall clock or iterates a hash map, so the same spec gives the same results.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use engine::counters::{DeviceCounters, EnergyCounters, FaultCounts};
use engine::power::link::{LinkPowerControl, LinkPowerError};
use engine::system::MemoryBudget;
use engine::{
    Clock, Completion, DataNeed, Device, DeviceError, Geometry, Identity, Io, Op, TargetKind,
    TrimmedReads,
};

use crate::config::{fmt_bytes, Config, DataMode};
use crate::data::{self, DataStore};
use crate::energy::{Breakdown, PowerStates, Tally};
use crate::error::SimError;
use crate::faults::{FaultKind, Faults, InjectedFault};
use crate::ftl::Ftl;
use crate::geometry::UNIT_BYTES;

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
    /// What reads return; raised by [`Device::need_data`].
    data: DataMode,
    /// The data kept in `DataMode::On`.
    store: Option<Box<DataStore>>,
    /// Injected faults, when `faults=` is set (always with a store).
    faults: Option<Box<Faults>>,
    /// The previous write's offset (where a misdirected write lands).
    last_write: Option<u64>,
    /// Active, idle and slumber time for the energy model.
    power: PowerStates,
}

impl SimSsd {
    /// A drive from a resolved configuration; `spec` is recorded in its identity.
    pub fn new(cfg: Config, spec: &str) -> Result<SimSsd, SimError> {
        if let Some(budget) = engine::system::memory_budget() {
            check_memory(&cfg, budget)?;
        }
        let ftl = Ftl::new(&cfg)?;
        let faults = (!cfg.faults.is_empty()).then(|| Box::new(Faults::new(&cfg.faults, cfg.seed)));
        let mut ssd = SimSsd {
            spec: spec.to_string(),
            ftl,
            now: 0,
            inflight: BinaryHeap::with_capacity(64),
            seq: 0,
            slots: 0,
            max_len: 0,
            buffers: Vec::new(),
            data: DataMode::Off,
            store: None,
            faults,
            last_write: None,
            power: PowerStates::default(),
            cfg,
        };
        ssd.set_data(ssd.cfg.data_mode())?;
        Ok(ssd)
    }

    /// Switch to a data mode (only ever up: off, stamp, on), checking that the kept data
    /// would fit in memory.
    fn set_data(&mut self, mode: DataMode) -> Result<(), SimError> {
        if rank(mode) <= rank(self.data) {
            return Ok(());
        }
        if mode == DataMode::On {
            if let Some(budget) = engine::system::memory_budget() {
                check_data_memory(&self.cfg, budget)?;
            }
            self.store = Some(Box::default());
        }
        self.data = mode;
        self.buffers = (0..self.slots).map(|_| vec![0u8; self.max_len]).collect();
        Ok(())
    }

    /// The faults injected so far (the first 100,000 of them), in order.
    pub fn injected_faults(&self) -> &[InjectedFault] {
        self.faults.as_ref().map_or(&[], |f| &f.log)
    }

    /// 4 KiB units whose data the drive keeps (`data=on`).
    pub fn kept_units(&self) -> usize {
        self.store.as_ref().map_or(0, |s| s.len())
    }

    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// IOs submitted and not yet reaped.
    pub fn in_flight(&self) -> usize {
        self.inflight.len()
    }

    /// Check the FTL's whole state: the map and its reverse, the free pools, every block's
    /// valid count (`ftl/invariants.rs`). Panics at the first invariant broken.
    pub fn assert_invariants(&self) {
        self.ftl.assert_invariants();
    }

    /// Bytes of RAM the mapping tables take (the bulk of the simulator's memory).
    pub fn mapping_ram_bytes(&self) -> u64 {
        self.ftl.mapping_ram_bytes()
    }

    /// The FTL's counters as a struct (the JSON form is `Device::counters`).
    pub fn stats(&self) -> crate::counters::Counters {
        self.ftl.counters().clone()
    }

    /// What the energy model is computed from, up to now.
    pub fn energy_tally(&self) -> Tally {
        let c = self.ftl.counters();
        let tl = self.ftl.timeline();
        Tally {
            reads: c.reads,
            prog_pages: c.prog_pages,
            erases: c.erases,
            channel_bytes: tl.chan_units() * self.ftl.layout().unit_bytes,
            link_bytes: c.link_bytes,
            ctrl_busy_ns: tl.ctrl_busy_ns(),
            active_ns: self.power.active_ns(self.now),
            awake_ns: self.now - self.power.slumber_ns,
            slumber_ns: self.power.slumber_ns,
        }
    }

    /// Energy used so far by where it went.
    pub fn energy(&self) -> Breakdown {
        self.energy_tally().energy(&self.cfg.energy)
    }

    fn complete_at(&mut self, time: u64, slot: u32, result: i64) -> Completion {
        self.seq += 1;
        self.inflight.push(Reverse((time, self.seq, slot, result)));
        Completion {
            slot,
            complete_ns: time,
            result,
        }
    }

    /// Queue an IO as [`Device::submit`] does and tell when it completes on the drive's
    /// clock (what [`Device::reap`] will return for it): a drive served in real time
    /// (`ssdlab sim serve`) holds the host's request until then.
    pub fn submit_timed(&mut self, io: Io) -> Result<Completion, DeviceError> {
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
                self.ftl.count_failed_io();
                return Ok(self.complete_at(now, io.slot, -(libc::EINVAL as i64)));
            }
            if self.data != DataMode::Off && io.op != Op::Discard && len as usize > self.max_len {
                return Err(DeviceError::Invalid(format!(
                    "IO of {len} bytes exceeds the {} byte buffers prepared",
                    self.max_len
                )));
            }
        }
        // A command that finds the drive in slumber waits for it to wake.
        let now = self.power.arrive(&self.cfg.energy, now);
        let (done, result) = match io.op {
            Op::Read => {
                if self.data != DataMode::Off {
                    self.fill_read(io.slot, offset, len);
                }
                (self.ftl.read(now, offset, len), len as i64)
            }
            Op::Write if self.store.is_some() => {
                self.keep_write(io.slot, offset, len);
                match self.ftl.write(now, offset, len) {
                    Some(t) => (t, len as i64),
                    None => {
                        self.ftl.count_failed_io();
                        (now, -(libc::ENOSPC as i64))
                    }
                }
            }
            Op::Write => match self.ftl.write(now, offset, len) {
                Some(t) => (t, len as i64),
                None => {
                    self.ftl.count_failed_io();
                    (now, -(libc::ENOSPC as i64))
                }
            },
            Op::Discard => {
                let done = self.ftl.discard(now, offset, len);
                if let Some(store) = self.store.as_deref_mut() {
                    store.drop_unmapped(&self.ftl, offset, len);
                }
                (done, 0)
            }
            Op::Flush => (self.ftl.flush(now), 0),
        };
        let done = done.max(now);
        self.power
            .work(self.now, self.ftl.timeline().work_end().max(done));
        Ok(self.complete_at(done, io.slot, result))
    }

    fn fill_read(&mut self, slot: u32, offset: u64, len: u64) {
        let Some(buf) = self.buffers.get_mut(slot as usize) else {
            return;
        };
        data::read(
            &self.ftl,
            self.store.as_deref(),
            offset,
            &mut buf[..len as usize],
        );
    }

    /// Keep a write's data (`data=on`), with any fault that hits it. Runs before the FTL
    /// maps the write, so what the write's units held before is still readable.
    fn keep_write(&mut self, slot: u32, offset: u64, len: u64) {
        let (Some(store), Some(buf)) = (self.store.as_deref_mut(), self.buffers.get(slot as usize))
        else {
            return;
        };
        let data = &buf[..len as usize];
        let cap = self.cfg.capacity_bytes;
        let previous = self.last_write.replace(offset);
        let Some(faults) = self.faults.as_deref_mut() else {
            store.write(&self.ftl, offset, data, cap);
            return;
        };
        let units = (offset + len).div_ceil(UNIT_BYTES) - offset / UNIT_BYTES;
        let elsewhere = previous.filter(|&p| p.abs_diff(offset) >= len);
        let mut fault = InjectedFault {
            kind: FaultKind::Lost,
            offset,
            len: len as u32,
            landed_at: None,
            landed_bytes: None,
            flipped_byte: None,
        };
        match faults.draw(units, elsewhere.is_some()) {
            None => {
                store.write(&self.ftl, offset, data, cap);
                return;
            }
            Some(FaultKind::Lost) => store.freeze(&self.ftl, offset, len),
            Some(FaultKind::Flip) => {
                store.write(&self.ftl, offset, data, cap);
                let byte = offset + faults.pick(len);
                store.flip(byte, faults.pick(8) as u8);
                fault.kind = FaultKind::Flip;
                fault.flipped_byte = Some(byte);
            }
            Some(FaultKind::Misdirect) => {
                let at = elsewhere.expect("eligible");
                store.freeze(&self.ftl, offset, len);
                store.write(&self.ftl, at, data, cap);
                fault.kind = FaultKind::Misdirect;
                fault.landed_at = Some(at);
            }
            Some(FaultKind::Torn) => {
                // Whole 4 KiB units land, up to the cut: at least one, never all.
                let first_end = ((offset / UNIT_BYTES + 1) * UNIT_BYTES).min(offset + len);
                let cut = first_end + faults.pick(units - 1) * UNIT_BYTES;
                let landed = cut - offset;
                store.freeze(&self.ftl, cut, offset + len - cut);
                store.write(&self.ftl, offset, &data[..landed as usize], cap);
                fault.kind = FaultKind::Torn;
                fault.landed_bytes = Some(landed as u32);
            }
        }
        faults.record(fault);
    }
}

fn rank(mode: DataMode) -> u8 {
    match mode {
        DataMode::Off => 0,
        DataMode::Stamp => 1,
        DataMode::On => 2,
    }
}

/// Refuse to keep data (`data=on`, or faults) for a drive whose capacity, were it all
/// written, would not fit in half of `available` bytes of memory.
pub fn check_data_memory(cfg: &Config, budget: MemoryBudget) -> Result<(), SimError> {
    let available = budget.bytes;
    let need = cfg.capacity_bytes;
    if need <= available / 2 {
        return Ok(());
    }
    Err(SimError::Config(format!(
        "keeping the data written to {} (data=on, which faults and verification need) could take \
         {} of RAM, but only {} is available ({}): use a smaller capacity (capacity={}G fits)",
        fmt_bytes(cfg.capacity_bytes),
        fmt_bytes(need),
        fmt_bytes(available),
        budget.limit,
        ((available / 2) >> 30).max(1),
    )))
}

/// Refuse a drive whose simulation would not fit in `available` bytes of memory, before
/// allocating it (a 14 TB drive would otherwise be killed by the OOM killer).
pub fn check_memory(cfg: &Config, budget: MemoryBudget) -> Result<(), SimError> {
    let available = budget.bytes;
    let layout = cfg.layout()?;
    let need = cfg.ram_estimate(&layout);
    if need <= available {
        return Ok(());
    }
    // The tables scale with capacity: suggest one that fits with 10% to spare, in GiB.
    let fits = (cfg.capacity_bytes as f64 * 0.9 * available as f64 / need as f64) as u64;
    Err(SimError::Config(format!(
        "simulating {} needs about {} of RAM for its mapping tables, but only {} is available \
         ({}): use a smaller capacity (capacity={}G fits) or a larger map_unit (map_unit=16KiB \
         needs a quarter)",
        fmt_bytes(cfg.capacity_bytes),
        fmt_bytes(need),
        fmt_bytes(available),
        budget.limit,
        (fits >> 30).max(1),
    )))
}

impl Device for SimSsd {
    fn identity(&self) -> Identity {
        let cfg = &self.cfg;
        let layout = self.ftl.layout();
        let mut details = BTreeMap::new();
        details.insert("preset".into(), cfg.preset.clone());
        if let Some(m) = &cfg.model_of {
            details.insert(
                "models".into(),
                format!("{m} (a model fitted to its reviews; not the drive's firmware)"),
            );
        }
        // What the review states about the real drive's hardware, under the keys drive
        // tables read ("controller", "nand", "dram"); the model's own figures have keys of
        // their own, so nothing the review does not state fills those.
        for (key, value, _) in &cfg.facts {
            details.insert(key.clone(), value.clone());
        }
        if let Some(report) = &cfg.fit_report {
            details.insert("fit report".into(), report.clone());
        }
        details.insert(
            "dies".into(),
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
        details.insert("modelled_dram".into(), fmt_bytes(cfg.dram_bytes));
        details.insert("link".into(), cfg.link.label().into());
        details.insert("data".into(), self.data.name().into());
        if !cfg.faults.is_empty() {
            details.insert("faults".into(), cfg.faults.label());
        }
        details.insert("clock".into(), "virtual".into());
        Identity {
            kind: TargetKind::Sim,
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
            drive: None,
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
        if self.data != DataMode::Off {
            self.buffers = (0..slots).map(|_| vec![0u8; max_len]).collect();
        }
        Ok(())
    }

    fn buffer(&mut self, slot: u32) -> Option<&mut [u8]> {
        if self.data == DataMode::Off {
            return None;
        }
        self.buffers
            .get_mut(slot as usize)
            .map(|b| b.as_mut_slice())
    }

    fn submit(&mut self, io: Io) -> Result<(), DeviceError> {
        self.submit_timed(io).map(|_| ())
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
                            let pending = self.ftl.idle(self.now, u);
                            let end = self.ftl.timeline().work_end();
                            self.power.idle(&self.cfg.energy, self.now, u, end, pending);
                            self.now = u;
                        }
                    }
                    return Ok(());
                }
            }
        }
    }

    fn erase(
        &mut self,
        method: engine::drive::PurgeMethod,
        _progress: &mut dyn FnMut(f64),
    ) -> Result<Option<String>, DeviceError> {
        if matches!(
            method,
            engine::drive::PurgeMethod::Discard | engine::drive::PurgeMethod::None
        ) {
            return Ok(None);
        }
        if !self.inflight.is_empty() {
            return Err(DeviceError::Invalid(
                "secure erase with IO in flight: reap every IO first".into(),
            ));
        }
        let from = self.now;
        self.now = self.ftl.secure_erase(from);
        self.power.work(from, self.now);
        if let Some(store) = self.store.as_deref_mut() {
            store.clear();
        }
        Ok(Some("secure erase (simulated: every block erased)".into()))
    }

    fn counters(&self) -> Option<DeviceCounters> {
        let t = self.energy_tally();
        let b = t.energy(&self.cfg.energy);
        let energy = EnergyCounters {
            channel_bytes: t.channel_bytes,
            controller_busy_ns: t.ctrl_busy_ns,
            active_ns: t.active_ns,
            awake_ns: t.awake_ns,
            slumber_ns: t.slumber_ns,
            slumber_entries: self.power.slumber_entries,
            wakeups: self.power.wakeups,
            energy_j: b.total_j(),
            energy_nand_j: b.nand_j,
            energy_transfer_j: b.transfer_j,
            energy_controller_j: b.controller_j,
            energy_idle_j: b.idle_j,
            energy_slumber_j: b.slumber_j,
        };
        let faults = self.faults.as_ref().map(|f| FaultCounts {
            lost: f.counts[FaultKind::Lost as usize],
            flip: f.counts[FaultKind::Flip as usize],
            misdirect: f.counts[FaultKind::Misdirect as usize],
            torn: f.counts[FaultKind::Torn as usize],
        });
        let c = self.ftl.counters().snapshot(
            self.ftl.layout(),
            self.ftl.blocks(),
            self.ftl.trim_pending_units(),
            self.now,
            energy,
            faults,
        );
        Some(DeviceCounters::of_sim(c))
    }

    fn need_data(&mut self, need: DataNeed) -> Result<(), DeviceError> {
        let mode = match need {
            DataNeed::Mapping => DataMode::Stamp,
            DataNeed::Exact => DataMode::On,
            DataNeed::Nothing => {
                // Back to the configured mode, unless data is kept.
                if self.data == DataMode::Stamp {
                    self.data = self.cfg.data_mode();
                }
                return Ok(());
            }
        };
        self.set_data(mode)
            .map_err(|e| DeviceError::Other(format!("sim:{}: {e}", self.spec)))
    }

    fn trimmed_reads(&self) -> Option<TrimmedReads> {
        Some(self.cfg.trimmed_reads())
    }

    fn energy_j(&self) -> Option<f64> {
        Some(self.energy().total_j())
    }

    fn write_cache(&self) -> Result<Option<bool>, DeviceError> {
        Err(DeviceError::Other(
            "the simulated drive's DRAM write buffer (write_buffer) is part of its model, not \
             a cache the host switches: give write_buffer= in the target to change it"
                .into(),
        ))
    }

    fn link_power(&self) -> Result<LinkPowerControl, LinkPowerError> {
        Ok(LinkPowerControl {
            control: "sim:link_pm".into(),
            value: if self.cfg.energy.link_pm { "on" } else { "off" }.into(),
            slumber: "on".into(),
            active: "off".into(),
        })
    }

    fn set_link_power(&mut self, value: &str) -> Result<(), DeviceError> {
        self.cfg.energy.link_pm = match value {
            "on" => true,
            "off" => false,
            other => {
                return Err(DeviceError::Invalid(format!(
                    "sim:link_pm={other}: use on (the drive may slumber when idle) or off"
                )))
            }
        };
        Ok(())
    }
}
