//! One IO of a trace, in bytes and nanoseconds (sectors exist only at format boundaries).

pub use engine::Op;

/// One IO as a trace saw it.
///
/// Times are nanoseconds on the trace's own clock (its zero is the trace's start or whatever
/// the format counts from). `queue_ns` is when the IO entered the block layer (blktrace `Q`),
/// `issue_ns` when it went to the device (`D`), `complete_ns` when the device finished it
/// (`C`). A format that has only one timestamp puts it in `issue_ns` (the time the IO was
/// sent to the device) unless it says otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    pub op: Op,
    pub offset_bytes: u64,
    pub len_bytes: u32,
    pub queue_ns: Option<u64>,
    pub issue_ns: Option<u64>,
    pub complete_ns: Option<u64>,
    /// Device, volume or stream the IO belongs to (blktrace dev_t, MSR disk number, Alibaba
    /// device id, Tencent volume, DiskSim devno, a synthetic scenario stream).
    pub stream: u32,
    /// The block layer merged this IO into a request started by an earlier IO: it shares that
    /// request's issue and completion, so queue depth and busy time count the request once.
    pub merged: bool,
}

impl Record {
    /// A record with only an offset, a length and an issue time.
    pub fn new(op: Op, offset_bytes: u64, len_bytes: u32, issue_ns: Option<u64>) -> Self {
        Record {
            op,
            offset_bytes,
            len_bytes,
            queue_ns: None,
            issue_ns,
            complete_ns: None,
            stream: 0,
            merged: false,
        }
    }

    /// The earliest time the trace knows for this IO (queue, else issue, else completion).
    pub fn start_ns(&self) -> Option<u64> {
        self.queue_ns.or(self.issue_ns).or(self.complete_ns)
    }

    /// The byte just past the IO (saturating: a corrupt trace must not overflow it).
    pub fn end_bytes(&self) -> u64 {
        self.offset_bytes.saturating_add(u64::from(self.len_bytes))
    }

    /// Issue to completion (btt's D2C), when both are known.
    pub fn d2c_ns(&self) -> Option<u64> {
        Some(self.complete_ns?.saturating_sub(self.issue_ns?))
    }

    /// Queue to completion (btt's Q2C), when both are known.
    pub fn q2c_ns(&self) -> Option<u64> {
        Some(self.complete_ns?.saturating_sub(self.queue_ns?))
    }
}

/// The largest 512-byte sector whose byte offset, plus the largest IO, still fits in u64:
/// readers reject anything beyond it as corrupt.
pub const MAX_SECTOR: u64 = (u64::MAX >> 9) - (1 << 23);

/// Parse an op name as the text formats spell it.
pub(crate) fn op_from_name(s: &str) -> Option<Op> {
    match s {
        "read" | "Read" | "READ" | "R" | "r" => Some(Op::Read),
        "write" | "Write" | "WRITE" | "W" | "w" => Some(Op::Write),
        "trim" | "discard" | "Discard" | "D" | "d" => Some(Op::Discard),
        "sync" | "datasync" | "flush" | "Flush" | "F" | "f" => Some(Op::Flush),
        _ => None,
    }
}
