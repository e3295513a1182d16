//! Turning blktrace events (Q, M/F, D, C, ...) into one record per queued IO, as btt does.
//!
//! btt's rules (blktrace `btt/trace_*.c`): every Q (a bio entering the block layer) is an IO;
//! a D (issue to the driver) covers the queued IOs of its device whose start sector lies in
//! `[sector, sector + nsec)`, and a C (completion) covers the IOs of its D in the same way.
//! Q2C is measured per Q and D2C per Q that was issued, both against the request's D and C.
//! A trace without Q events (blktrace filtered to D and C) gets one record per D.
//!
//! Records come out in the order their IOs were queued (issued, for D-only traces) through a
//! reorder window that holds only IOs still in flight: memory is bounded by the in-flight
//! count, not the trace length. An IO whose completion never comes (a trace cut short, lost
//! events) is let out with `complete_ns = None` once the trace's clock has passed its start by
//! `orphan_timeout_ns`, or at the end of input.
//!
//! A second D for a request already issued and not completed (a requeue whose R event was not
//! traced) moves the request's issue time to the later D, as btt's requeue handling does.

use std::collections::{BTreeMap, VecDeque};

use rustc_hash::FxHashMap;

use crate::{Op, Record};

/// What an event does, in blktrace's terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    Queue,
    Merge,
    Issue,
    Complete,
    Requeue,
    /// Everything else (A, G, I, P, U, S, X, m, ...): no effect on the records.
    Other,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Event {
    pub dev: u32,
    pub action: Action,
    /// `None` for events that carry no data and are not flushes (e.g. `C N`).
    pub op: Option<Op>,
    pub sector: u64,
    pub bytes: u32,
    pub time_ns: u64,
}

struct Slot {
    rec: Record,
    done: bool,
}

struct Request {
    seqs: Vec<u64>,
    issue_ns: u64,
}

/// Counters a user may want to see next to the records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairingCounts {
    /// Completions that matched no issued request (their D was before the trace started).
    pub orphan_completions: u64,
    /// Issues of a request already issued (requeued without an R event in the trace).
    pub reissues: u64,
    /// IOs let out without a completion.
    pub incomplete: u64,
}

pub(crate) struct Pairer {
    base: u64,
    window: VecDeque<Slot>,
    /// Queued, not yet issued: (dev, sector, seq).
    queued: BTreeMap<(u32, u64, u64), ()>,
    /// Issued, not completed, by (dev, start sector).
    issued: FxHashMap<(u32, u64), Request>,
    /// Emptied `Request::seqs` and queued keys, kept so that pairing an IO allocates nothing.
    spare_seqs: Vec<Vec<u64>>,
    keys: Vec<(u32, u64, u64)>,
    pub orphan_timeout_ns: u64,
    now_ns: u64,
    pub counts: PairingCounts,
}

impl Pairer {
    pub(crate) fn new() -> Self {
        Pairer {
            base: 0,
            window: VecDeque::new(),
            queued: BTreeMap::new(),
            issued: FxHashMap::default(),
            spare_seqs: Vec::new(),
            keys: Vec::new(),
            orphan_timeout_ns: 60_000_000_000,
            now_ns: 0,
            counts: PairingCounts::default(),
        }
    }

    fn push(&mut self, rec: Record) -> u64 {
        let seq = self.base + self.window.len() as u64;
        self.window.push_back(Slot { rec, done: false });
        seq
    }

    fn slot(&mut self, seq: u64) -> Option<&mut Slot> {
        seq.checked_sub(self.base)
            .and_then(|i| self.window.get_mut(i as usize))
    }

    pub(crate) fn event(&mut self, e: Event, out: &mut VecDeque<Record>) {
        self.now_ns = self.now_ns.max(e.time_ns);
        let sectors = u64::from(e.bytes).div_ceil(512);
        match e.action {
            Action::Queue => {
                let Some(op) = e.op else { return };
                let mut r = Record::new(op, e.sector.saturating_mul(512), e.bytes, None);
                r.queue_ns = Some(e.time_ns);
                r.stream = e.dev;
                let seq = self.push(r);
                self.queued.insert((e.dev, e.sector, seq), ());
            }
            Action::Merge => {
                // The merged IO joins a request another IO started: mark it so queue depth
                // counts the request once.
                let key = self
                    .queued
                    .range((e.dev, e.sector, 0)..=(e.dev, e.sector, u64::MAX))
                    .next_back()
                    .map(|(k, _)| *k);
                if let Some((_, _, seq)) = key {
                    if let Some(s) = self.slot(seq) {
                        s.rec.merged = true;
                    }
                }
            }
            Action::Issue => {
                let Some(op) = e.op else { return };
                if let Some(req) = self.issued.get_mut(&(e.dev, e.sector)) {
                    req.issue_ns = e.time_ns;
                    self.counts.reissues += 1;
                    return;
                }
                let end = e.sector.saturating_add(sectors.max(1));
                let mut keys = std::mem::take(&mut self.keys);
                keys.clear();
                keys.extend(
                    self.queued
                        .range((e.dev, e.sector, 0)..(e.dev, end, 0))
                        .map(|(k, _)| *k),
                );
                let mut seqs = self.spare_seqs.pop().unwrap_or_default();
                for k in &keys {
                    self.queued.remove(k);
                    if k.2 >= self.base {
                        seqs.push(k.2);
                    }
                }
                self.keys = keys;
                if seqs.is_empty() {
                    let mut r =
                        Record::new(op, e.sector.saturating_mul(512), e.bytes, Some(e.time_ns));
                    r.stream = e.dev;
                    seqs.push(self.push(r));
                } else {
                    seqs.sort_unstable();
                    // The first-queued IO carries the request; the rest were merged into it.
                    for (i, &s) in seqs.iter().enumerate() {
                        if let Some(slot) = self.slot(s) {
                            slot.rec.merged = i > 0;
                        }
                    }
                }
                self.issued.insert(
                    (e.dev, e.sector),
                    Request {
                        seqs,
                        issue_ns: e.time_ns,
                    },
                );
            }
            Action::Complete => {
                if e.op.is_none() {
                    return;
                }
                match self.issued.remove(&(e.dev, e.sector)) {
                    Some(mut req) => {
                        for &s in &req.seqs {
                            if let Some(slot) = self.slot(s) {
                                slot.rec.issue_ns = Some(req.issue_ns);
                                slot.rec.complete_ns = Some(e.time_ns);
                                slot.done = true;
                            }
                        }
                        req.seqs.clear();
                        self.spare_seqs.push(req.seqs);
                    }
                    None => self.counts.orphan_completions += 1,
                }
            }
            Action::Requeue | Action::Other => {}
        }
        self.release(out, false);
    }

    fn release(&mut self, out: &mut VecDeque<Record>, all: bool) {
        while let Some(front) = self.window.front() {
            let start = front.rec.start_ns().unwrap_or(0);
            let expired = self.now_ns.saturating_sub(start) > self.orphan_timeout_ns;
            if !(front.done || all || expired) {
                break;
            }
            let slot = self.window.pop_front().expect("front exists");
            if !slot.done {
                self.counts.incomplete += 1;
                // An IO let out incomplete must not be matched later.
                let seq = self.base;
                let r = slot.rec;
                if r.queue_ns.is_some() {
                    self.queued.remove(&(r.stream, r.offset_bytes / 512, seq));
                }
                // If it was issued, keep its issue time in the record.
                if let Some(req) = self.issued.get(&(r.stream, r.offset_bytes / 512)) {
                    if req.seqs.contains(&seq) {
                        let mut r = r;
                        r.issue_ns = Some(req.issue_ns);
                        self.base += 1;
                        out.push_back(r);
                        continue;
                    }
                }
            }
            self.base += 1;
            out.push_back(slot.rec);
        }
        if all {
            self.queued.clear();
            self.issued.clear();
        }
    }

    pub(crate) fn finish(&mut self, out: &mut VecDeque<Record>) {
        self.release(out, true);
    }
}
