//! One of a PTS test's workloads: an access pattern, a block size and a read/write mix at a
//! load, run for one round at a time.

use serde::{Deserialize, Serialize};

use engine::pattern::DataKind;
use engine::shape::Shape;
use engine::workload::{Access, Limit, Workload};

use crate::params::ns;

/// A test's stimuli for one sequence of rounds, and the one whose figure decides steady state
/// (the spec's tracking variable).
pub struct Schedule<'a> {
    /// What progress calls it ("PTS IOPS").
    pub name: &'a str,
    pub stimuli: &'a [Stimulus],
    pub tracking: usize,
    pub figure: super::Figure,
    /// Keep the response-time histograms of the highest, middle and lowest IOPS stimuli
    /// (DIRTH's plots).
    pub histograms: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stimulus {
    pub access: Access,
    /// The one block size, or the alignment of a block-size mix.
    pub block_bytes: u32,
    /// The spec's R/W mix: 65 is "65/35".
    pub read_pct: u8,
    pub threads: u32,
    pub qd: u32,
    /// A block-size mix and access distribution (the composite workload); plain otherwise.
    #[serde(default, skip_serializing_if = "Shape::is_plain")]
    pub shape: Shape,
}

impl Stimulus {
    /// Random IO at every read/write mix x block size, mixes outermost: the IOPS and latency
    /// tests' grid, in the spec's order.
    pub fn random_grid(mixes: &[u8], block_sizes: &[u32], threads: u32, qd: u32) -> Vec<Stimulus> {
        mixes
            .iter()
            .flat_map(|&read_pct| {
                block_sizes.iter().map(move |&block_bytes| Stimulus {
                    access: Access::Random,
                    block_bytes,
                    read_pct,
                    threads,
                    qd,
                    shape: Shape::default(),
                })
            })
            .collect()
    }

    /// `RND 4KiB 65/35`, as the spec writes it; `RND composite 40/60` for a mix.
    pub fn label(&self) -> String {
        let size = match self.shape.block_mix {
            Some(_) => "composite".to_string(),
            None => size_label(self.block_bytes),
        };
        format!(
            "{} {size} {}/{}",
            access_label(self.access),
            self.read_pct,
            100 - self.read_pct
        )
    }

    /// Its workload for one round of `round_s` over `span_bytes` from LBA 0.
    pub fn workload(&self, span_bytes: u64, round_s: f64, data: DataKind, seed: u64) -> Workload {
        Workload {
            access: self.access,
            block_bytes: self.block_bytes,
            offset_bytes: 0,
            span_bytes: span_bytes / self.block_bytes as u64 * self.block_bytes as u64,
            read_pct: self.read_pct,
            op: None,
            data,
            qd: self.qd,
            threads: self.threads,
            limit: Limit {
                duration_ns: Some(ns(round_s)),
                ..Limit::default()
            },
            seed,
            shape: self.shape.clone(),
        }
    }
}

pub(crate) fn access_label(access: Access) -> &'static str {
    match access {
        Access::Sequential => "SEQ",
        _ => "RND",
    }
}

/// `0.5KiB`, `4KiB`, `1024KiB`: the spec's block size names.
pub fn size_label(bytes: u32) -> String {
    if bytes.is_multiple_of(1024) {
        format!("{}KiB", bytes / 1024)
    } else {
        format!("{}KiB", bytes as f64 / 1024.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_the_specs() {
        let s = Stimulus {
            access: Access::Random,
            block_bytes: 512,
            read_pct: 65,
            threads: 4,
            qd: 32,
            shape: Shape::default(),
        };
        assert_eq!(s.label(), "RND 0.5KiB 65/35");
        assert_eq!(size_label(1 << 20), "1024KiB");
    }
}
