//! Each second's latency percentiles, from the windows of every thread of a run. A second's
//! percentiles are those of all the IOs completed in it, so the threads' windows of a second
//! merge before any percentile is taken: percentiles of percentiles would be wrong, as
//! averaging fio's per-interval percentiles is.

use std::collections::VecDeque;

use super::hist_log::HistLine;
use super::{LatencyWindow, SecondLatency};

/// A second's read and write latencies.
type Windows = [LatencyWindow; 2];

pub struct LatencySeconds {
    /// Each thread's open second: it may still add IOs to that second and later ones.
    open: Vec<u64>,
    /// Seconds some thread has closed while another may still add to them, oldest first.
    pending: VecDeque<(u64, Windows)>,
    /// Windows of seconds already taken, kept for reuse (a window is 15 KiB).
    spare: Vec<Windows>,
    done: Vec<(u64, [Option<SecondLatency>; 2])>,
    /// Each second's bucket counts, kept only for a hist log.
    hist_lines: Option<Vec<HistLine>>,
}

impl LatencySeconds {
    /// For `threads` threads, all starting in second 0.
    pub fn new(threads: usize) -> LatencySeconds {
        LatencySeconds {
            open: vec![0; threads],
            pending: VecDeque::new(),
            spare: Vec::new(),
            done: Vec::new(),
            hist_lines: None,
        }
    }

    /// Keep each second's bucket counts for a hist log.
    pub fn keep_hist_lines(&mut self) {
        self.hist_lines.get_or_insert_with(Vec::new);
    }

    /// Thread `thread` is done with `second`, whose IOs are in `windows`, and goes on to
    /// `next` (`u64::MAX` when it has finished).
    pub fn close(&mut self, thread: usize, second: u64, windows: &Windows, next: u64) {
        if windows.iter().any(|w| !w.is_empty()) {
            let i = self.pending.partition_point(|&(s, _)| s < second);
            if self.pending.get(i).is_none_or(|&(s, _)| s != second) {
                let fresh = self.spare.pop().unwrap_or_default();
                self.pending.insert(i, (second, fresh));
            }
            let merged = &mut self.pending[i].1;
            merged[0].add(&windows[0]);
            merged[1].add(&windows[1]);
        }
        self.open[thread] = next;
        // No thread can add to a second before every thread's open one.
        let settled = self.open.iter().copied().min().unwrap_or(u64::MAX);
        while self.pending.front().is_some_and(|&(s, _)| s < settled) {
            let (second, mut windows) = self.pending.pop_front().expect("a pending second");
            self.take(second, &windows);
            windows.iter_mut().for_each(LatencyWindow::clear);
            self.spare.push(windows);
        }
    }

    fn take(&mut self, second: u64, [read, write]: &Windows) {
        self.done
            .push((second, [read.percentiles(), write.percentiles()]));
        if let Some(lines) = self.hist_lines.as_mut() {
            let end_ms = (second + 1) * 1000;
            for (direction, w) in [(0, read), (1, write)] {
                if !w.is_empty() {
                    lines.push(HistLine::of(end_ms, direction, w.counts()));
                }
            }
        }
    }

    /// The percentiles of the seconds settled so far, in order.
    pub fn seconds(&self) -> &[(u64, [Option<SecondLatency>; 2])] {
        &self.done
    }

    /// The hist-log lines of the seconds settled so far.
    pub fn take_hist_lines(&mut self) -> Vec<HistLine> {
        self.hist_lines.take().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn windows(read_ns: &[u64]) -> Windows {
        let mut w: Windows = Default::default();
        read_ns.iter().for_each(|&ns| w[0].record(ns));
        w
    }

    #[test]
    fn a_second_settles_only_when_every_thread_has_left_it() {
        let mut s = LatencySeconds::new(2);
        // Thread 0 closes second 0 (100 IOs at 10 µs) and moves on; thread 1 is still in it.
        s.close(0, 0, &windows(&[10_000; 100]), 1);
        assert!(s.seconds().is_empty());
        // Thread 1's IOs in second 0 are slower: the merged p99 is theirs, not thread 0's.
        s.close(1, 0, &windows(&[1_000_000; 2]), 1);
        let [(second, [read, write])] = s.seconds() else {
            panic!("one settled second: {:?}", s.seconds())
        };
        assert_eq!(*second, 0);
        assert!(write.is_none());
        let read = read.expect("reads");
        assert!((read.p50 - 10.0).abs() < 0.2, "{read:?}");
        assert!((read.p99 - 1000.0).abs() < 16.0, "{read:?}");
        assert_eq!(read.max, 1000.0);
    }

    #[test]
    fn seconds_closed_out_of_order_across_threads_come_out_in_order() {
        let mut s = LatencySeconds::new(2);
        s.close(1, 0, &windows(&[5_000]), 1);
        s.close(1, 1, &windows(&[6_000]), 2);
        s.close(0, 0, &windows(&[7_000]), u64::MAX);
        s.close(1, 2, &windows(&[8_000]), u64::MAX);
        let seconds: Vec<u64> = s.seconds().iter().map(|&(t, _)| t).collect();
        assert_eq!(seconds, [0, 1, 2]);
        assert_eq!(s.seconds()[0].1[0].expect("reads").max, 7.0);
    }
}
