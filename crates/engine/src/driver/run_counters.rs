//! The device's own counters over a run: at its start, at a checkpoint and at its end.

use crate::counters::DeviceCounters;
use crate::device::Device;

use super::CounterSnapshots;

pub(super) struct RunCounters {
    start: Option<DeviceCounters>,
    /// When the checkpoint is due, on the device's clock.
    checkpoint_at: Option<u64>,
    checkpoint: Option<DeviceCounters>,
}

impl RunCounters {
    /// The counters now, with a checkpoint due at `checkpoint_at`. A device that keeps none
    /// is not asked again at the checkpoint: nothing would keep its answer, and the asking
    /// (every reap until it answers) costs system calls, as a loop device is searched for a
    /// drive behind it each time.
    pub(super) fn start(dev: &dyn Device, checkpoint_at: Option<u64>) -> RunCounters {
        let start = dev.counters();
        RunCounters {
            checkpoint_at: checkpoint_at.filter(|_| start.is_some()),
            start,
            checkpoint: None,
        }
    }

    /// None at all: another thread of the run reads them.
    pub(super) fn none() -> RunCounters {
        RunCounters {
            start: None,
            checkpoint_at: None,
            checkpoint: None,
        }
    }

    /// Take the checkpoint once it is due, until the device answers.
    pub(super) fn poll(&mut self, dev: &dyn Device) {
        if self.checkpoint.is_none() && self.checkpoint_at.is_some_and(|c| dev.now_ns() >= c) {
            self.checkpoint = dev.counters();
        }
    }

    /// The snapshots with the counters at the end, when the device keeps any.
    pub(super) fn end(self, dev: &dyn Device) -> Option<CounterSnapshots> {
        self.start.map(|start| CounterSnapshots {
            start,
            checkpoint: self.checkpoint,
            end: dev.counters(),
        })
    }
}
