// Shared by every fuzz target: read all records of `data` as `format`, with and without
// skipping bad lines, and feed them to the statistics. Any panic is a bug; errors are fine.
use trace::{reader_from, Format, ReadOptions};

pub fn exercise(format: Format, data: &[u8]) {
    for skip_bad in [false, true] {
        let opts = ReadOptions {
            format: Some(format),
            skip_bad,
        };
        let Ok(reader) = reader_from(std::io::Cursor::new(data.to_vec()), "fuzz", opts) else {
            continue;
        };
        digest(reader);
    }
}

/// Every record (up to 100,000) into the statistics, stopping at the first error.
pub fn digest(reader: Box<dyn trace::TraceReader>) {
    let mut stats = trace::StatsBuilder::new();
    for r in reader.take(100_000) {
        match r {
            Ok(r) => stats.add(&r),
            Err(_) => break,
        }
    }
    let _ = stats.finish();
}
