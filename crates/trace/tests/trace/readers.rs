//! Every reader on small fixtures made by hand (tests/fixtures), with the expected records
//! worked out from the fixture text, not from the readers' output.

use std::path::{Path, PathBuf};

use trace::blktrace::{ta, tc, RawEvent};
use trace::{Format, Op, ReadOptions, Record, TraceError};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn read_all(path: &Path) -> Vec<Record> {
    trace::open(path)
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap()
}

fn rec(
    op: Op,
    off: u64,
    len: u32,
    q: Option<u64>,
    d: Option<u64>,
    c: Option<u64>,
    s: u32,
) -> Record {
    Record {
        op,
        offset_bytes: off,
        len_bytes: len,
        queue_ns: q,
        issue_ns: d,
        complete_ns: c,
        stream: s,
        merged: false,
    }
}

const SDA: u32 = 8 << 20;

#[test]
fn blkparse_pairs_events_btt_style() {
    let p = fixture("blkparse.txt");
    assert_eq!(trace::detect::detect(&p).unwrap(), Format::Blkparse);
    let got = read_all(&p);
    let mut merged = rec(
        Op::Write,
        4112 * 512,
        8192,
        Some(22_000),
        Some(30_000),
        Some(230_000),
        SDA,
    );
    merged.merged = true;
    let want = vec![
        rec(
            Op::Read,
            2048 * 512,
            4096,
            Some(1_000),
            Some(10_000),
            Some(110_000),
            SDA,
        ),
        rec(
            Op::Write,
            4096 * 512,
            8192,
            Some(20_000),
            Some(30_000),
            Some(230_000),
            SDA,
        ),
        merged,
        // D FN / C FN: a flush without a Q; the C NS after it carries nothing.
        rec(Op::Flush, 0, 0, None, Some(300_000), Some(400_000), SDA),
        // issued twice (requeued without an R event): the later D counts.
        rec(
            Op::Discard,
            10_000 * 512,
            32_768,
            None,
            Some(600_000),
            Some(1_600_000),
            SDA,
        ),
        // queued when the trace ends: no issue, no completion.
        rec(Op::Read, 9000 * 512, 4096, Some(2_000_000), None, None, SDA),
    ];
    assert_eq!(got, want);
}

/// A blkparse text of many chunks (the reader parses chunks of lines on several threads)
/// gives every IO, in order, with the times written; a malformed line far into it is
/// reported with its line number after the records before it.
#[test]
fn blkparse_text_of_many_chunks_reads_every_io_in_order() {
    use std::fmt::Write;
    let mut want = Vec::new();
    let mut text = String::new();
    let mut t = 0u64;
    for i in 0..120_000u64 {
        // Numbers of every width, and the widths blkparse pads to.
        let sector = (i * 7_919_993) % (1 << 40);
        let (op, rwbs) = if i % 3 == 0 {
            (Op::Read, "R")
        } else {
            (Op::Write, "WS")
        };
        let q = t + i % 1000;
        let (d, c) = (q + 2_000, q + 2_000 + 50_000 + i % 77_777);
        for (seq, (when, action)) in [(q, "Q"), (d, "D"), (c, "C")].into_iter().enumerate() {
            writeln!(
                text,
                "{:>3},{:<4}{:>2} {:>8} {:>5}.{:09} {:>5}  {action} {rwbs:>3} {sector} + 16 [fio]",
                8,
                16,
                i % 2,
                3 * i + seq as u64,
                when / 1_000_000_000,
                when % 1_000_000_000,
                4242
            )
            .unwrap();
        }
        want.push(rec(
            op,
            sector * 512,
            8192,
            Some(q),
            Some(d),
            Some(c),
            SDA | 16,
        ));
        t += 1_000_000 + i * 13;
    }
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("big.blkparse.txt");
    std::fs::write(&p, &text).unwrap();
    assert!(
        text.len() > 8 << 20,
        "{} bytes: not several chunks",
        text.len()
    );
    let got = read_all_as(&p, Format::Blkparse);
    assert_eq!(got.len(), want.len());
    assert_eq!(got, want);

    text.push_str("  8,16   0   1   99.000000000  1  Q  W oops + 8 [x]\n");
    std::fs::write(&p, &text).unwrap();
    let opts = ReadOptions {
        format: Some(Format::Blkparse),
        skip_bad: false,
    };
    let mut r = trace::open_with(&p, opts).unwrap();
    let read = r.by_ref().take_while(|x| x.is_ok()).count();
    assert_eq!(read, want.len());
    match trace::open_with(&p, opts).unwrap().last() {
        Some(Err(TraceError::Parse { line, msg, .. })) => {
            assert_eq!(line, 3 * want.len() as u64 + 1);
            assert!(msg.contains("sector number"), "{msg}");
        }
        other => panic!("expected the bad line, got {other:?}"),
    }
}

fn read_all_as(path: &Path, format: Format) -> Vec<Record> {
    let opts = ReadOptions {
        format: Some(format),
        skip_bad: false,
    };
    trace::open_with(path, opts)
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap()
}

#[test]
fn blkparse_stats_by_hand() {
    let s = trace::stats::stats_of(trace::open(&fixture("blkparse.txt")).unwrap()).unwrap();
    assert_eq!((s.reads, s.writes, s.discards, s.flushes), (2, 2, 1, 1));
    // requests in flight: [10,110] [30,230] [300,400] [600,1600] us
    assert_eq!(s.busy_time_s, Some(1_320_000e-9));
    let qd = s.avg_queue_depth.unwrap();
    assert!((qd - 1_400_000.0 / 1_320_000.0).abs() < 1e-12, "{qd}");
    assert_eq!(s.qd1_share, Some(0.75));
    assert_eq!(s.requests_timed, Some(4));
    // D2C over IOs with data: 100, 200, 200, 1000 us; Q2C: 109, 210, 208 us
    assert!((s.d2c_mean_us.unwrap() - 375.0).abs() < 1e-9);
    assert!((s.q2c_mean_us.unwrap() - 527.0 / 3.0).abs() < 1e-9);
    // the second write starts where the first ended
    assert_eq!(s.sequential_share, 0.25);
    assert_eq!(s.busy_time_read_s, Some(100_000e-9));
}

fn blktrace_event(t: u64, code: u32, cat: u32, sector: u64, bytes: u32, cpu: u32) -> RawEvent {
    RawEvent {
        sequence: 0,
        time_ns: t,
        sector,
        bytes,
        action: code | (cat << 16),
        pid: 42,
        device: SDA | 16,
        cpu,
        error: 0,
    }
}

fn write_blktrace(dir: &Path, big_endian: bool) {
    // CPU 0 queues and issues; CPU 1 completes. Times interleave across the files.
    let q = tc::QUEUE;
    let cpu0 = [
        (
            blktrace_event(1_000_000, ta::QUEUE, q | tc::WRITE, 100, 4096, 0),
            b"kworker".as_slice(),
        ),
        (
            blktrace_event(1_000_500, ta::GETRQ, q | tc::WRITE, 100, 4096, 0),
            b"".as_slice(),
        ),
        (
            blktrace_event(1_002_000, ta::ISSUE, tc::ISSUE | tc::WRITE, 100, 4096, 0),
            b"".as_slice(),
        ),
        (
            blktrace_event(1_050_000, ta::QUEUE, q, 500, 8192, 0),
            b"".as_slice(),
        ),
        (
            blktrace_event(1_051_000, ta::ISSUE, tc::ISSUE, 500, 8192, 0),
            b"".as_slice(),
        ),
        // a notify event (process name) with a payload: skipped
        (
            blktrace_event(1_052_000, 0, tc::NOTIFY, 0, 0, 0),
            b"some-process\0\0\0\0".as_slice(),
        ),
    ];
    let cpu1 = [
        (
            blktrace_event(
                1_040_000,
                ta::COMPLETE,
                tc::COMPLETE | tc::WRITE,
                100,
                4096,
                1,
            ),
            b"".as_slice(),
        ),
        (
            blktrace_event(1_090_000, ta::COMPLETE, tc::COMPLETE, 500, 8192, 1),
            b"".as_slice(),
        ),
    ];
    for (cpu, evs) in [(0, &cpu0[..]), (1, &cpu1[..])] {
        let mut buf = Vec::new();
        for (e, pdu) in evs {
            e.encode(big_endian, pdu, &mut buf);
        }
        std::fs::write(dir.join(format!("dev.blktrace.{cpu}")), buf).unwrap();
    }
}

#[test]
fn blktrace_binary_both_byte_orders() {
    for be in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        write_blktrace(dir.path(), be);
        let first = dir.path().join("dev.blktrace.0");
        assert_eq!(trace::detect::detect(&first).unwrap(), Format::Blktrace);
        // NAME without the suffix finds the same files
        assert_eq!(
            trace::detect::detect(&dir.path().join("dev")).unwrap(),
            Format::Blktrace
        );
        let got = read_all(&first);
        let dev = SDA | 16;
        // times are relative to the earliest event (1_000_000)
        let want = vec![
            rec(
                Op::Write,
                100 * 512,
                4096,
                Some(0),
                Some(2_000),
                Some(40_000),
                dev,
            ),
            rec(
                Op::Read,
                500 * 512,
                8192,
                Some(50_000),
                Some(51_000),
                Some(90_000),
                dev,
            ),
        ];
        assert_eq!(got, want, "big endian: {be}");
    }
}

/// `blktrace -o -` interleaves whole events of every CPU in one stream (what `trace record`
/// reads); split, it gives back each CPU's file byte for byte.
#[test]
fn blktrace_piped_output_splits_into_its_cpu_files() {
    for be in [false, true] {
        let files = tempfile::tempdir().unwrap();
        write_blktrace(files.path(), be);
        let cpu = |n: u32| std::fs::read(files.path().join(format!("dev.blktrace.{n}"))).unwrap();
        // CPU 1's completions arrive between CPU 0's events, at an event boundary.
        let (cpu0, cpu1) = (cpu(0), cpu(1));
        let boundary = {
            let mut first = Vec::new();
            blktrace_event(0, ta::QUEUE, 0, 0, 0, 0).encode(be, b"kworker", &mut first);
            first.len()
        };
        let stream = [&cpu0[..boundary], &cpu1[..], &cpu0[boundary..]].concat();
        let split = tempfile::tempdir().unwrap();
        let mut seen = 0;
        let n =
            trace::blktrace::split_by_cpu(&stream[..], split.path(), "dev", || seen += 1).unwrap();
        assert_eq!((n, seen), (8, 8), "big endian: {be}");
        for c in [0, 1] {
            let got = std::fs::read(split.path().join(format!("dev.blktrace.{c}"))).unwrap();
            assert_eq!(got, cpu(c), "CPU {c}, big endian: {be}");
        }
    }
}

#[test]
fn blktrace_truncated_and_bad_magic() {
    let dir = tempfile::tempdir().unwrap();
    let mut buf = Vec::new();
    blktrace_event(5, ta::QUEUE, tc::QUEUE, 1, 512, 0).encode(false, b"", &mut buf);
    buf.truncate(40);
    let p = dir.path().join("t.blktrace.0");
    std::fs::write(&p, &buf).unwrap();
    let err = trace::blktrace::BlktraceReader::open(&p)
        .err()
        .expect("truncated header is an error");
    assert!(
        err.to_string().contains("ends inside a record header"),
        "{err}"
    );

    std::fs::write(&p, [0u8; 48]).unwrap();
    let r = trace::open_with(
        &p,
        ReadOptions {
            format: Some(Format::Blktrace),
            skip_bad: false,
        },
    );
    let err = r.err().expect("bad magic is an error");
    assert!(err.to_string().contains("magic"), "{err}");
}

#[test]
fn fio_iolog_v2_and_v3() {
    let got = read_all(&fixture("fio_v2.log"));
    let mut trim = rec(Op::Discard, 1_048_576, 65_536, None, None, None, 1);
    trim.stream = 1;
    assert_eq!(
        got,
        vec![
            rec(Op::Write, 0, 4096, None, None, None, 0),
            rec(Op::Read, 8192, 16384, None, None, None, 0),
            trim,
            rec(Op::Flush, 0, 0, None, None, None, 0),
        ]
    );
    let got = read_all(&fixture("fio_v3.log"));
    assert_eq!(
        got,
        vec![
            rec(Op::Write, 0, 4096, None, Some(5_000), None, 0),
            rec(Op::Read, 8192, 16384, None, Some(12_000), None, 0),
        ]
    );
}

#[test]
fn msr_cambridge_filetime() {
    let got = read_all(&fixture("msr.csv"));
    // FILETIME ticks are 100 ns; times are relative to the first record
    assert_eq!(
        got,
        vec![
            rec(
                Op::Read,
                7_014_609_920,
                24_576,
                None,
                Some(0),
                Some(4_128_600),
                1
            ),
            rec(
                Op::Write,
                1_317_441_536,
                8192,
                None,
                Some(1_332_052_600),
                Some(1_332_052_600 + 196_300),
                1
            ),
            rec(
                Op::Write,
                2_436_562_944,
                4096,
                None,
                Some(2_332_061_600),
                Some(2_332_061_600 + 183_500),
                0
            ),
        ]
    );
}

#[test]
fn umass_spc() {
    let got = read_all(&fixture("umass.spc"));
    assert_eq!(
        got,
        vec![
            rec(
                Op::Write,
                20_941_264 * 512,
                8192,
                None,
                Some(551_706_000),
                None,
                0
            ),
            rec(
                Op::Read,
                20_939_840 * 512,
                4096,
                None,
                Some(554_041_000),
                None,
                1
            ),
            rec(
                Op::Read,
                20_941_280 * 512,
                512,
                None,
                Some(1_000_000_001),
                None,
                0
            ),
        ]
    );
}

#[test]
fn disksim_mqsim() {
    let got = read_all(&fixture("disksim.trace"));
    assert_eq!(
        got,
        vec![
            rec(
                Op::Read,
                657_728 * 512,
                16 * 512,
                None,
                Some(11_413_000),
                None,
                0
            ),
            rec(
                Op::Write,
                31_244_784 * 512,
                64 * 512,
                None,
                Some(11_565_000),
                None,
                1
            ),
            rec(Op::Read, 8 * 512, 8 * 512, None, Some(20_000_000), None, 2),
        ]
    );
}

#[test]
fn alibaba_and_tencent() {
    let got = read_all(&fixture("alibaba.csv"));
    assert_eq!(
        got,
        vec![
            rec(
                Op::Read,
                126_703_644_672,
                4096,
                None,
                Some(1_577_808_144_911_879_000),
                None,
                0
            ),
            rec(
                Op::Write,
                4096,
                65536,
                None,
                Some(1_577_808_144_911_900_000),
                None,
                3
            ),
        ]
    );
    let got = read_all(&fixture("tencent.csv"));
    assert_eq!(
        got,
        vec![
            rec(
                Op::Read,
                12_910_952 * 512,
                128 * 512,
                None,
                Some(1_538_323_200_000_000_000),
                None,
                1283
            ),
            rec(
                Op::Write,
                8 * 512,
                16 * 512,
                None,
                Some(1_538_323_201_000_000_000),
                None,
                7
            ),
        ]
    );
}

#[test]
fn detection_of_every_text_fixture() {
    for (name, f) in [
        ("blkparse.txt", Format::Blkparse),
        ("fio_v2.log", Format::FioIolog),
        ("fio_v3.log", Format::FioIolog),
        ("msr.csv", Format::Msr),
        ("umass.spc", Format::Umass),
        ("disksim.trace", Format::DiskSim),
        ("alibaba.csv", Format::Alibaba),
        ("tencent.csv", Format::Tencent),
    ] {
        assert_eq!(trace::detect::detect(&fixture(name)).unwrap(), f, "{name}");
    }
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("junk.txt");
    std::fs::write(&p, "hello world\n").unwrap();
    let e = trace::detect::detect(&p).unwrap_err();
    assert!(e.to_string().contains("--format"), "{e}");
}

/// A malformed line is reported with file, line number and what was expected; with
/// `skip_bad` it is counted and skipped.
fn check_bad(format: Format, text: &str, bad_line: u64, expect: &str, good: usize) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad");
    std::fs::write(&p, text).unwrap();
    let opts = ReadOptions {
        format: Some(format),
        skip_bad: false,
    };
    let res: Result<Vec<_>, _> = trace::open_with(&p, opts).unwrap().collect();
    match res {
        Err(TraceError::Parse { file, line, msg }) => {
            assert_eq!(line, bad_line, "{format}: {msg}");
            assert!(file.ends_with("bad"), "{file}");
            assert!(
                msg.contains(expect),
                "{format}: {msg:?} should mention {expect:?}"
            );
        }
        other => panic!("{format}: expected a parse error, got {other:?}"),
    }
    let mut r = trace::open_with(
        &p,
        ReadOptions {
            format: Some(format),
            skip_bad: true,
        },
    )
    .unwrap();
    let mut n = 0;
    for x in r.by_ref() {
        x.unwrap();
        n += 1;
    }
    assert_eq!((n, r.skipped()), (good, 1), "{format}");
}

#[test]
fn malformed_lines_name_the_line() {
    check_bad(
        Format::DiskSim,
        "1 0 8 8 1\n2 0 x 8 1\n3 0 8 8 0\n",
        2,
        "start LBA",
        2,
    );
    check_bad(
        Format::Msr,
        "1,h,0,Read,0,4096,1\n2,h,0,Erase,0,4096,1\n",
        2,
        "Read or Write",
        1,
    );
    check_bad(
        Format::Umass,
        "0,1,512,r,0.1\n0,1,512,r\n",
        2,
        "Timestamp",
        1,
    );
    check_bad(
        Format::Alibaba,
        "0,R,0,4096,1\n0,R,0,4096\n0,W,0,4096,2\n",
        2,
        "timestamp",
        2,
    );
    check_bad(Format::Tencent, "1,0,8,0,1\n1,0,8,2,1\n", 2, "IOType", 1);
    check_bad(
        Format::FioIolog,
        "fio version 3 iolog\n0 f add\n1 f write 0 4096\n2 f write zero 4096\n",
        4,
        "offset",
        1,
    );
    check_bad(
        Format::Blkparse,
        "  8,0 0 1 0.000001000 1 Q R 8 + 8 [a]\n  8,0 0 2 0.0000x2000 1 D R 8 + 8 [a]\n  8,0 0 3 0.000003000 1 C R 8 + 8 [0]\n",
        2,
        "time",
        1,
    );
}

#[test]
fn fio_header_is_required() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f");
    std::fs::write(&p, "f write 0 4096\n").unwrap();
    let opts = ReadOptions {
        format: Some(Format::FioIolog),
        skip_bad: false,
    };
    let e = trace::open_with(&p, opts)
        .unwrap()
        .next()
        .unwrap()
        .unwrap_err();
    assert!(matches!(e, TraceError::Parse { line: 1, .. }), "{e}");
    assert!(e.to_string().contains("fio version 2 iolog"), "{e}");
}
