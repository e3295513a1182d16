//! Writers round-trip through their readers.

use trace::{Format, Op, ReadOptions, Record, TraceWriter};

fn sample() -> Vec<Record> {
    let mut v = Vec::new();
    let mut rng = fastrand::Rng::with_seed(3);
    let mut t = 1_000_000u64;
    for i in 0..5000u64 {
        let op = Op::ALL[rng.usize(0..4)];
        let (off, len) = if op == Op::Flush {
            (0, 0)
        } else {
            (rng.u64(0..1 << 40) & !511, (rng.u32(1..256)) * 512)
        };
        t += rng.u64(0..2_000_000);
        let q = rng.bool().then_some(t);
        let d = rng.bool().then_some(t + rng.u64(0..10_000));
        let c = d.map(|d| d + rng.u64(0..5_000_000));
        v.push(Record {
            op,
            offset_bytes: off,
            len_bytes: len,
            queue_ns: q,
            issue_ns: d,
            complete_ns: c,
            stream: if i % 7 == 0 { rng.u32(..) } else { 3 },
            merged: rng.u8(..) < 20,
        });
    }
    // sequential runs, huge values and a time going backwards
    v.push(Record::new(
        Op::Write,
        u64::MAX - 8192,
        4096,
        Some(u64::MAX - 1),
    ));
    v.push(Record::new(Op::Write, u64::MAX - 4096, 4096, Some(5)));
    v
}

fn write_to(format: Format, records: &[Record]) -> Vec<u8> {
    let file = tempfile::NamedTempFile::new().unwrap();
    let mut w = trace::create_writer(file.path(), format).unwrap();
    for r in records {
        w.write(r).unwrap();
    }
    w.finish().unwrap();
    drop(w);
    std::fs::read(file.path()).unwrap()
}

fn read_back(format: Format, bytes: Vec<u8>) -> Vec<Record> {
    let opts = ReadOptions {
        format: Some(format),
        skip_bad: false,
    };
    trace::reader_from(std::io::Cursor::new(bytes), "mem", opts)
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap()
}

#[test]
fn native_is_lossless() {
    let recs = sample();
    let bytes = write_to(Format::Native, &recs);
    assert_eq!(trace::detect::detect_bytes(&bytes), Some(Format::Native));
    // compact: well under the 40+ bytes a fixed layout would take
    assert!(bytes.len() < recs.len() * 24, "{} bytes", bytes.len());
    assert_eq!(read_back(Format::Native, bytes), recs);
}

#[test]
fn native_detects_truncation_and_corruption() {
    let recs = sample();
    let bytes = write_to(Format::Native, &recs);
    let opts = ReadOptions {
        format: Some(Format::Native),
        skip_bad: false,
    };
    let cut = bytes[..bytes.len() - 3].to_vec();
    let res: Result<Vec<_>, _> = trace::reader_from(std::io::Cursor::new(cut), "cut", opts)
        .unwrap()
        .collect();
    let e = res.unwrap_err();
    assert!(e.to_string().contains("cut"), "{e}");
    let mut bad = bytes.clone();
    bad[0] = b'X';
    assert!(trace::reader_from(std::io::Cursor::new(bad), "bad", opts).is_err());
    let mut newer = bytes;
    newer[8] = 9;
    let e = trace::reader_from(std::io::Cursor::new(newer), "newer", opts)
        .err()
        .unwrap();
    assert!(e.to_string().contains("version"), "{e}");
}

#[test]
fn fio_iolog_v3_round_trip() {
    let recs: Vec<Record> = sample()
        .into_iter()
        .filter(|r| r.start_ns().is_some() && r.start_ns() < Some(1 << 50))
        .collect();
    let text = write_to(Format::FioIolog, &recs);
    let back = read_back(Format::FioIolog, text);
    assert_eq!(back.len(), recs.len());
    let t0 = recs[0].start_ns().unwrap();
    let mut last = 0;
    for (a, b) in recs.iter().zip(&back) {
        assert_eq!(a.op, b.op);
        if a.op != Op::Flush {
            assert_eq!((a.offset_bytes, a.len_bytes), (b.offset_bytes, b.len_bytes));
        }
        // whole microseconds from the first record (fio's unit), never going back
        let us = (a.start_ns().unwrap().saturating_sub(t0) / 1_000).max(last);
        last = us;
        assert_eq!(b.issue_ns, Some(us * 1_000));
    }
    // streams become files stream0, stream1, ... and come back as distinct streams
    let distinct_in: std::collections::HashSet<u32> = recs.iter().map(|r| r.stream).collect();
    let distinct_out: std::collections::HashSet<u32> = back.iter().map(|r| r.stream).collect();
    assert_eq!(distinct_in.len(), distinct_out.len());
}

#[test]
fn disksim_round_trip() {
    let recs: Vec<Record> = sample()
        .into_iter()
        .filter(|r| matches!(r.op, Op::Read | Op::Write) && r.offset_bytes < 1 << 50)
        .collect();
    let text = write_to(Format::DiskSim, &recs);
    assert_eq!(trace::detect::detect_bytes(&text), Some(Format::DiskSim));
    let back = read_back(Format::DiskSim, text);
    assert_eq!(back.len(), recs.len());
    for (a, b) in recs.iter().zip(&back) {
        assert_eq!(
            (a.op, a.offset_bytes, a.len_bytes, a.stream),
            (b.op, b.offset_bytes, b.len_bytes, b.stream)
        );
        assert_eq!(b.issue_ns, Some(a.start_ns().unwrap_or(0)));
    }
}

#[test]
fn convert_blkparse_to_native_keeps_records() {
    let input =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/blkparse.txt");
    let out = tempfile::NamedTempFile::new().unwrap();
    let sum = trace::convert(&input, ReadOptions::default(), out.path(), Format::Native).unwrap();
    assert_eq!(sum.records, 6);
    let a: Vec<Record> = trace::open(&input).unwrap().map(Result::unwrap).collect();
    let b: Vec<Record> = trace::open(out.path())
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(a, b);
}
