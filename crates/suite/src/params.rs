//! What a user may change about a test. Every test starts from the methodology's parameters
//! and applies these; anything changed is recorded as a deviation in the result.

use engine::pattern::DataKind;
use engine::size::Span;
use engine::workload::Access;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overrides {
    pub qd: Option<u32>,
    pub block_bytes: Option<u32>,
    pub span: Option<Span>,
    pub offset_bytes: Option<u64>,
    pub duration_s: Option<f64>,
    pub ios: Option<u64>,
    pub bytes: Option<u64>,
    pub read_pct: Option<u8>,
    pub access: Option<Access>,
    pub data: Option<DataKind>,
    pub seed: Option<u64>,
    /// Spare area to leave untouched (consistency): test only the first (100 - pct)% of LBAs.
    pub spare_pct: Option<f64>,
    /// Fill the span before a read test (default on).
    pub prefill: Option<bool>,
    /// Storage Bench: a synthetic profile name or a trace file.
    pub trace: Option<String>,
    /// Storage Bench: scale of a synthetic trace (1 = its published size).
    pub trace_scale: Option<f64>,
}

pub const DEFAULT_SEED: u64 = 0x55D1AB;

/// Seconds to nanoseconds, for limits.
pub fn ns(seconds: f64) -> u64 {
    (seconds * 1e9).round() as u64
}
