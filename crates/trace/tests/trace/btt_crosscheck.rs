//! Cross-check `trace stats` against blktrace's own tools on the real samples in
//! `../shared/traces` (next to the repository). Skips (a failure under CI), saying why, when
//! the samples or `btt`/`blkparse` are missing.
//!
//! - blkparse text sample: btt reads only binary traces, so the test re-encodes the text's
//!   events as a blktrace binary file (with its own small parser, independent of the crate's),
//!   checks that `blkparse` prints that file back as the same events, runs `btt` on it and
//!   compares D2C and Q2C means and counts, Q and D counts and the time-weighted queue depth
//!   (integrated from btt's `-Q` active-queue-depth data) with our stats of the text file.
//! - binary per-CPU sample (D and C events only): btt reports nothing for it (it ignores a
//!   device's events until its first Q), so the comparison there is with blkparse's own
//!   per-CPU summary: dispatches, completions and KiB.

use std::path::{Path, PathBuf};
use std::process::Command;

use trace::blktrace::{ta, tc, RawEvent};

fn shared() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces");
    p.is_dir().then_some(p)
}

fn ready() -> Option<PathBuf> {
    let Some(dir) = shared() else {
        test_support::skip(
            "the sample traces in ../shared/traces next to the repository",
            "check out the shared samples beside the repository",
        );
        return None;
    };
    if !test_support::tool("btt") || !test_support::tool("blkparse") {
        return None;
    }
    Some(dir)
}

/// Category bits for an rwbs string, as the kernel sets them.
fn categories(rwbs: &str) -> u32 {
    let mut c = 0;
    let mut chars = rwbs.chars().peekable();
    if chars.peek() == Some(&'F') {
        c |= tc::FLUSH;
        chars.next();
    }
    for ch in chars {
        c |= match ch {
            'W' => tc::WRITE,
            'D' => tc::DISCARD,
            'S' => tc::SYNC,
            'F' => tc::FUA,
            'M' => 1 << 12,
            'A' => 1 << 11,
            _ => 0,
        };
    }
    c
}

/// Re-encode the blkparse text's Q/M/F/G/I/D/C/R events as one blktrace binary file.
fn text_to_binary(text: &str) -> (Vec<u8>, Vec<String>) {
    let mut out = Vec::new();
    let mut kept = Vec::new();
    let mut seq = 0u32;
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 7 || !f[0].contains(',') {
            if f.first()
                .is_some_and(|w| w.starts_with("CPU") || *w == "Total")
            {
                break;
            }
            continue;
        }
        let (code, act) = match f[5] {
            "Q" => (ta::QUEUE, tc::QUEUE),
            "M" => (ta::BACKMERGE, tc::QUEUE),
            "F" => (ta::FRONTMERGE, tc::QUEUE),
            "G" => (ta::GETRQ, tc::QUEUE),
            "I" => (ta::INSERT, tc::QUEUE),
            "D" => (ta::ISSUE, tc::ISSUE),
            "C" => (ta::COMPLETE, tc::COMPLETE),
            "R" => (ta::REQUEUE, tc::REQUEUE),
            _ => continue,
        };
        let (maj, min) = f[0].split_once(',').unwrap();
        let dev = (maj.parse::<u32>().unwrap() << 20) | min.parse::<u32>().unwrap();
        let (s, ns) = f[3].split_once('.').unwrap();
        let time_ns = s.parse::<u64>().unwrap() * 1_000_000_000 + ns.parse::<u64>().unwrap();
        let (sector, nsec) = if f.len() >= 10 && f[8] == "+" {
            (f[7].parse::<u64>().unwrap(), f[9].parse::<u32>().unwrap())
        } else {
            (f[7].parse::<u64>().unwrap_or(0), 0)
        };
        seq += 1;
        let ev = RawEvent {
            sequence: seq,
            time_ns,
            sector,
            bytes: nsec * 512,
            action: code | ((act | categories(f[6])) << 16),
            pid: f[4].parse().unwrap(),
            device: dev,
            // One file: blkparse wants every event of NAME.blktrace.0 to say CPU 0.
            cpu: 0,
            error: 0,
        };
        // The kernel puts the process name in each event's payload for Q, G, I, D...; btt and
        // blkparse do not need it.
        ev.encode(false, &[], &mut out);
        kept.push(line.to_string());
    }
    (out, kept)
}

/// btt's "All Devices" line for `name`: (avg seconds, N).
fn btt_avg(out: &str, name: &str) -> Option<(f64, u64)> {
    out.lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        (f.len() == 5 && f[0] == name).then(|| (f[2].parse().unwrap(), f[4].parse().unwrap()))
    })
}

/// Time-weighted mean of btt's active-queue-depth step data over its first..last time.
fn aqd_mean(dat: &str) -> f64 {
    let pts: Vec<(f64, f64)> = dat
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            Some((f.next()?.parse().ok()?, f.next()?.parse().ok()?))
        })
        .collect();
    let mut area = 0.0;
    for w in pts.windows(2) {
        // each pair is (t, old) (t, new): the level after a point holds until the next time
        area += w[0].1 * (w[1].0 - w[0].0).max(0.0);
    }
    area / (pts.last().unwrap().0 - pts[0].0)
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1e-12)
}

#[test]
fn blkparse_text_matches_btt() {
    let Some(dir) = ready() else { return };
    let txt_path = dir.join("blkparse-hadoop-hdd.txt");
    let text = std::fs::read_to_string(&txt_path).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let (bin, kept) = text_to_binary(&text);
    let bin_path = tmp.path().join("hadoop.blktrace.0");
    std::fs::write(&bin_path, &bin).unwrap();
    if let Ok(d) = std::env::var("BTT_KEEP") {
        std::fs::write(Path::new(&d).join("hadoop.blktrace.0"), &bin).unwrap();
    }

    // 1. blkparse prints the re-encoded file as the same events (time, dev, action, sector).
    let bp = Command::new("blkparse")
        .current_dir(tmp.path())
        .args(["-q", "-i"])
        .arg(tmp.path().join("hadoop"))
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&bp.stdout);
    let ns = |t: &str| {
        let (s, n) = t.split_once('.').unwrap();
        s.parse::<u64>().unwrap() * 1_000_000_000 + n.parse::<u64>().unwrap()
    };
    // blkparse prints times from the first event it sees.
    let base = ns(kept[0].split_whitespace().nth(3).unwrap());
    let key = |l: &str, base: u64| {
        let f: Vec<&str> = l.split_whitespace().collect();
        let rest: Vec<String> = f[5..f.len().min(10)]
            .iter()
            .map(|s| s.to_string())
            .collect();
        (f[0].to_string(), ns(f[3]) - base, rest)
    };
    let printed: Vec<_> = printed
        .lines()
        .filter(|l| l.split_whitespace().count() >= 7 && l.contains(','))
        .map(|l| key(l, 0))
        .collect();
    let original: Vec<_> = kept.iter().map(|l| key(l, base)).collect();
    assert_eq!(
        printed.len(),
        original.len(),
        "blkparse printed a different number of events"
    );
    let same = printed
        .iter()
        .zip(&original)
        .filter(|(a, b)| a == b)
        .count();
    assert!(
        same as f64 >= 0.999 * original.len() as f64,
        "blkparse reads back only {same} of {} events unchanged",
        original.len()
    );

    // 2. btt on the binary.
    let aqd = tmp.path().join("aqd");
    // btt writes its per-device IOPS/MB/s files (DEV_iops_fp.dat, ...) into its working
    // directory: the temporary one, not the crate's.
    let bo = Command::new("btt")
        .current_dir(tmp.path())
        .arg("-i")
        .arg(&bin_path)
        .arg("-Q")
        .arg(&aqd)
        .output()
        .unwrap();
    let btt = String::from_utf8_lossy(&bo.stdout).to_string();
    let (d2c_s, d2c_n) = btt_avg(&btt, "D2C").expect("btt printed a D2C line");
    let (q2c_s, q2c_n) = btt_avg(&btt, "Q2C").expect("btt printed a Q2C line");

    // 3. Ours, on the text file.
    let ours = trace::stats::stats_of(trace::open(&txt_path).unwrap()).unwrap();
    let d2c = ours.d2c.as_ref().unwrap();
    let q2c = ours.q2c.as_ref().unwrap();
    eprintln!(
        "D2C: ours {:.1} us (n={}), btt {:.1} us (n={d2c_n})",
        d2c.mean_us,
        d2c.count,
        d2c_s * 1e6
    );
    eprintln!(
        "Q2C: ours {:.1} us (n={}), btt {:.1} us (n={q2c_n})",
        q2c.mean_us,
        q2c.count,
        q2c_s * 1e6
    );
    // Tolerance: 1% of the means and of the counts. Differences come from btt's and our
    // handling of IOs it cannot pair (btt drops a Q whose C covers it only partly).
    assert!(
        rel(d2c.mean_us, d2c_s * 1e6) < 0.01,
        "D2C mean differs from btt's by over 1%"
    );
    assert!(
        rel(q2c.mean_us, q2c_s * 1e6) < 0.01,
        "Q2C mean differs from btt's by over 1%"
    );
    assert!(
        rel(d2c.count as f64, d2c_n as f64) < 0.01,
        "D2C count differs from btt's"
    );
    assert!(
        rel(q2c.count as f64, q2c_n as f64) < 0.01,
        "Q2C count differs from btt's"
    );

    // Active queue depth: btt -Q writes one step-function file per device.
    let dat = std::fs::read_dir(tmp.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .find(|e| {
            e.file_name().to_string_lossy().starts_with("aqd")
                && e.file_name().to_string_lossy().ends_with(".dat")
        })
        .map(|e| std::fs::read_to_string(e.path()).unwrap());
    match dat {
        Some(dat) => {
            let btt_qd = aqd_mean(&dat);
            let our_qd = ours.avg_queue_depth_span.unwrap();
            eprintln!("avg queue depth over the span: ours {our_qd:.4}, btt aqd {btt_qd:.4}");
            assert!(
                rel(our_qd, btt_qd) < 0.01,
                "queue depth differs from btt's aqd by over 1%"
            );
        }
        None => panic!("btt -Q wrote no active-queue-depth file; its output:\n{btt}"),
    }
}

#[test]
fn blktrace_binary_matches_blkparse_summary() {
    let Some(dir) = ready() else { return };
    let first = dir.join("blktrace-percpu/keks.blktrace.0");
    let bp = Command::new("blkparse")
        .arg("-i")
        .arg(dir.join("blktrace-percpu/keks"))
        .current_dir(dir.join("blktrace-percpu"))
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&bp.stdout);
    // Count D and C events per rwbs from blkparse's own event lines.
    let mut d_w = 0u64;
    let mut c_w = 0u64;
    let mut c_ds = 0u64;
    let mut c_fn = 0u64;
    let mut c_w_kib = 0u64;
    for l in out.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() < 7 || !f[0].contains(',') {
            continue;
        }
        match (f[5], f[6]) {
            ("D", "W") => d_w += 1,
            ("C", "W") => {
                c_w += 1;
                c_w_kib += f[9].parse::<u64>().unwrap() / 2;
            }
            ("C", "DS") => c_ds += 1,
            ("C", "FN") => c_fn += 1,
            _ => {}
        }
    }
    let ours = trace::stats::stats_of(trace::open(&first).unwrap()).unwrap();
    eprintln!(
        "writes: ours {} ({} KiB), blkparse C W {c_w} ({c_w_kib} KiB), D W {d_w}",
        ours.writes,
        ours.bytes_written / 1024
    );
    // Every completed write is one record; a D repeated before its C is a re-issue.
    assert_eq!(ours.writes, c_w);
    assert_eq!(ours.bytes_written / 1024, c_w_kib);
    assert_eq!(ours.discards, c_ds);
    assert_eq!(ours.flushes, c_fn);
    assert_eq!(ours.d2c.as_ref().unwrap().count, c_w + c_ds);
}
