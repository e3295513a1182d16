//! Inputs the fuzzers found crashing a reader, kept so the fixes stay fixed: each must end
//! in an error or records, never a panic.

use trace::{reader_from, Format, ReadOptions};

fn read(format: Format, bytes: &[u8]) -> Result<usize, String> {
    let opts = ReadOptions {
        format: Some(format),
        skip_bad: false,
    };
    let reader = reader_from(std::io::Cursor::new(bytes.to_vec()), "fuzz", opts)
        .map_err(|e| e.to_string())?;
    let mut stats = trace::StatsBuilder::new();
    let mut n = 0;
    for r in reader {
        let r = r.map_err(|e| e.to_string())?;
        stats.add(&r);
        n += 1;
    }
    let _ = stats.finish();
    Ok(n)
}

#[test]
fn native_record_ending_past_2_pow_64() {
    let bytes = include_bytes!("../fixtures/fuzz/native-offset-overflow.bin");
    let err = read(Format::Native, bytes).unwrap_err();
    // The source name ("fuzz") is in every error, so it proves nothing: the reason must be
    // the overflow, with where it was found.
    assert!(err.starts_with("fuzz: at byte "), "{err}");
    assert!(err.contains("ends past 2^64"), "{err}");
}

/// As the blktrace fuzz target does: the first byte splits the rest into two CPU files.
fn read_blktrace(bytes: &[u8]) -> Result<usize, String> {
    let (&cut, rest) = bytes.split_first().unwrap();
    let cut = (cut as usize * rest.len() / 255).min(rest.len());
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.blktrace.0"), &rest[..cut]).unwrap();
    std::fs::write(dir.path().join("t.blktrace.1"), &rest[cut..]).unwrap();
    let opts = ReadOptions {
        format: Some(Format::Blktrace),
        skip_bad: false,
    };
    let reader = trace::open_with(&dir.path().join("t"), opts).map_err(|e| e.to_string())?;
    let mut n = 0;
    for r in reader {
        r.map_err(|e| e.to_string())?;
        n += 1;
    }
    Ok(n)
}

#[test]
fn blktrace_sector_beyond_2_pow_64_bytes() {
    let bytes = include_bytes!("../fixtures/fuzz/blktrace-sector-overflow.bin");
    let err = read_blktrace(bytes).unwrap_err();
    assert!(err.contains("beyond any device"), "{err}");
}

#[test]
fn blkparse_sector_count_beyond_4_gib() {
    let bytes = include_bytes!("../fixtures/fuzz/blkparse-sector-count-overflow.txt");
    // Either the line is reported or (had it been skippable) skipped; never a panic.
    let _ = read(Format::Blkparse, bytes);
    let line = b"8,16 0 1 0.000000000 1 Q W 0 + 18446744073709551615 [x]\n";
    let err = read(Format::Blkparse, line).unwrap_err();
    assert!(err.contains("larger than 4 GiB"), "{err}");
}

#[test]
fn sector_lengths_that_overflow_are_errors_everywhere() {
    let huge = u64::MAX / 256;
    let disksim = format!("0.0 0 0 {huge} 1\n");
    assert!(read(Format::DiskSim, disksim.as_bytes())
        .unwrap_err()
        .contains("larger than 4 GiB"));
    let tencent = format!("1538323200,0,{huge},1,1282\n");
    assert!(read(Format::Tencent, tencent.as_bytes())
        .unwrap_err()
        .contains("larger than 4 GiB"));
}
