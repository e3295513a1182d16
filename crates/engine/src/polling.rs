//! Polled IO on io_uring, as fio's `hipri` and `sqthread_poll`: completions polled from the
//! device's poll queues instead of interrupts, and a kernel thread polling the submission
//! queue so a submission needs no system call. Both trade CPU time for latency.

use std::path::Path;

/// How long the submission-polling kernel thread spins with nothing to do before it sleeps
/// (the next submission then wakes it with a system call), in ms: the kernel's default.
const SQPOLL_IDLE_MS: u32 = 1000;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Polling {
    /// `--poll`: reap completions by polling the device (IORING_SETUP_IOPOLL). Needs O_DIRECT
    /// and a block device with poll queues (NVMe: the nvme module's `poll_queues`).
    pub completions: bool,
    /// `--sqpoll`: a kernel thread takes submissions off the ring (IORING_SETUP_SQPOLL).
    pub submissions: bool,
}

impl Polling {
    pub fn any(self) -> bool {
        self.completions || self.submissions
    }

    /// The flags, as the user gave them, for messages.
    pub fn flags(self) -> String {
        let mut flags = Vec::new();
        if self.completions {
            flags.push("--poll");
        }
        if self.submissions {
            flags.push("--sqpoll");
        }
        flags.join(" and ")
    }

    /// Ask `builder` for this polling.
    pub(crate) fn apply<S, C>(self, builder: &mut io_uring::Builder<S, C>)
    where
        S: io_uring::squeue::EntryMarker,
        C: io_uring::cqueue::EntryMarker,
    {
        if self.completions {
            builder.setup_iopoll();
        }
        if self.submissions {
            builder.setup_sqpoll(SQPOLL_IDLE_MS);
        }
    }

    /// Why the device at `path` cannot be polled as asked, if it cannot: completions are
    /// polled only on a block device whose queue says so (`queue/io_poll`).
    pub(crate) fn refused(self, path: &Path, is_block: bool) -> Option<String> {
        if !self.completions {
            return None;
        }
        if !is_block {
            return Some(
                "--poll polls a block device's poll queues, and a file has none: drop --poll"
                    .into(),
            );
        }
        let polls = crate::sysfs::BlockNode::of_device(path)
            .ok()
            .and_then(|n| n.attr("queue/io_poll"))
            .is_some_and(|v| v.trim() == "1");
        (!polls).then(|| {
            format!(
                "--poll needs a device with poll queues, and {} has none (its queue/io_poll \
                 is not 1): for NVMe, load the nvme module with poll_queues=N (e.g. \
                 nvme.poll_queues=4 on the kernel command line); or drop --poll",
                path.display()
            )
        })
    }
}
