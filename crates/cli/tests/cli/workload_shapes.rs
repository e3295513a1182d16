//! `run custom`'s workload shapes, checked on the per-IO log of a run on a simulated drive:
//! what the drive was sent, not what the generator meant to send.

use crate::common::*;

/// The SNIA PTS composite workload's access zones and block sizes on a random-write run.
#[test]
fn a_composite_workload_sends_its_zones_and_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let iolog = dir.path().join("io.log");
    let span: u64 = 64 << 20;
    custom_on_sim(
        dir.path(),
        &[
            "--read-pct",
            "0",
            "--qd",
            "8",
            "--span",
            "64M",
            "--ios",
            "200000",
            "--distribution",
            "zoned:50/5:30/15:20/",
            "--bs",
            "512:4,4K:67,8K:10,16K:7,32K:6,64K:6",
            "--iolog",
            iolog.to_str().unwrap(),
        ],
    );
    let records: Vec<_> = engine::iolog::read(&iolog)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(records.len(), 200_000);
    let n = records.len() as f64;
    let share = |hit: &dyn Fn(&engine::iolog::IoRecord) -> bool| {
        records.iter().filter(|r| hit(r)).count() as f64 * 100.0 / n
    };
    // Binomial standard error at 200k IOs is at most 0.11 points: 0.6 is over 5 of them.
    let zones = [(0.0, 0.05, 50.0), (0.05, 0.20, 30.0), (0.20, 1.0, 20.0)];
    for (from, to, want) in zones {
        let (from, to) = ((span as f64 * from) as u64, (span as f64 * to) as u64);
        let got = share(&|r| (from..to).contains(&r.offset));
        assert!((got - want).abs() < 0.6, "zone {from}..{to}: {got}%");
    }
    for (bytes, want) in [(512, 4.0), (4096, 67.0), (8192, 10.0), (65536, 6.0)] {
        let got = share(&|r| r.len == bytes);
        assert!((got - want).abs() < 0.6, "{bytes} bytes: {got}%");
    }
    assert!(records
        .iter()
        .all(|r| r.offset % 512 == 0 && r.offset + r.len as u64 <= span));
}

#[test]
fn shapes_are_refused_where_the_methodology_fixes_the_workload() {
    let out = run(&[
        "run",
        "random-write",
        "--target",
        "sim:default",
        "--distribution",
        "zipf:1.1",
        "--no-store",
        "-q",
    ]);
    assert!(!out.status.success());
    assert!(text(&out).contains("ssdlab run custom"), "{}", text(&out));
    let out = run(&[
        "run",
        "custom",
        "--bs",
        "4K:60,8K:30",
        "--target",
        "sim:default",
    ]);
    assert!(text(&out).contains("add up to 90%"), "{}", text(&out));
}

fn paced_run(args: &[&str]) -> Vec<engine::iolog::IoRecord> {
    let dir = tempfile::tempdir().unwrap();
    let iolog = dir.path().join("io.log");
    let mut all = vec![
        "--no-prefill",
        "--qd",
        "32",
        "--iolog",
        iolog.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    custom_on_sim(dir.path(), &all);
    engine::iolog::read(&iolog)
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// An open loop at 20,000 IOPS for 10 s of the simulated drive's clock (far below what it
/// does): the rate is met within 1%, and Poisson gaps have a coefficient of variation of 1.
#[test]
fn an_open_loop_meets_its_rate_with_poisson_arrivals() {
    let records = paced_run(&[
        "--rate-iops",
        "20000",
        "--arrivals",
        "poisson",
        "--duration",
        "10",
    ]);
    let n = records.len() as f64;
    assert!((n - 200_000.0).abs() < 2_000.0, "{n} IOs in 10 s");
    let mut submits: Vec<u64> = records.iter().map(|r| r.submit_ns).collect();
    submits.sort_unstable();
    let gaps: Vec<f64> = submits.windows(2).map(|w| (w[1] - w[0]) as f64).collect();
    let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
    let sd = (gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64).sqrt();
    assert!(
        (sd / mean - 1.0).abs() < 0.05,
        "coefficient of variation {}",
        sd / mean
    );
}

/// Bursts of 32 MiB of sequential writes at 20% duty: each burst is followed by four times
/// its length of idle time.
#[test]
fn bursts_idle_for_their_duty_cycle() {
    let records = paced_run(&[
        "--access",
        "sequential",
        "--read-pct",
        "0",
        "--bs",
        "128K",
        "--burst",
        "32M",
        "--duty",
        "20",
        "--bytes",
        "128M",
    ]);
    assert_eq!(records.len(), 1024);
    let mut ios = records.clone();
    ios.sort_unstable_by_key(|r| r.submit_ns);
    for burst in ios.chunks(256).collect::<Vec<_>>().windows(2) {
        let busy = burst[0].iter().map(|r| r.complete_ns).max().unwrap() - burst[0][0].submit_ns;
        let idle = burst[1][0].submit_ns - burst[0].iter().map(|r| r.complete_ns).max().unwrap();
        let share = busy as f64 / (busy + idle) as f64;
        assert!((share - 0.20).abs() < 0.005, "busy share {share}");
    }
}

/// The highest depth whose p99 meets the target: its own p99 does, and the next depth up,
/// tried in the search, does not.
#[test]
fn a_latency_target_finds_the_highest_depth_meeting_it() {
    let dir = tempfile::tempdir().unwrap();
    let r = custom_on_sim(
        dir.path(),
        &["--latency-target", "p99<300us", "--duration", "1"],
    );
    let qd = r["parameters"]["qd"].as_u64().unwrap();
    assert!(r["summary"]["read"]["latency_us"]["p99"].as_f64().unwrap() <= 300.0);
    let tried = r["adaptations"][0].as_str().unwrap();
    assert!(tried.contains(&format!("QD{qd}: p99")), "{tried}");
    let next = format!("QD{}: p99", qd + 1);
    let at = tried
        .find(&next)
        .unwrap_or_else(|| panic!("{next} not tried: {tried}"));
    assert!(
        tried[at..].split(';').next().unwrap().contains("(missed)"),
        "{tried}"
    );
}
