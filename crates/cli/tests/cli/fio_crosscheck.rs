//! The same IO-count-bounded workload run by fio and by ssdlab: both complete exactly the
//! requested IOs, and both per-second series sum to their totals. (fio's averaged iops log,
//! log_avg_msec=1000, drops the last partial second, so its per-IO log is bucketed here.)

use crate::common::*;

use std::collections::BTreeMap;

const IOS: u64 = 300_000;

#[test]
fn same_io_count_as_fio() {
    if !test_support::tool("fio") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // A RAM-backed loop device when we may make one (fast), else a file.
    let ram = LoopDev::try_ram("fio", "256M");
    let file = dir.path().join("t.img");
    let (fio_target, ssd_target, flag) = match &ram {
        Some(l) => (
            l.dev().to_string(),
            l.dev().to_string(),
            Some(format!("--destroy-data={}", l.dev())),
        ),
        None => {
            std::fs::write(&file, vec![0u8; 0]).unwrap();
            let f = file.display().to_string();
            // fio lays the file out with data: ssdlab writes it only when named.
            let flag = Some(format!("--destroy-data={f}"));
            (f.clone(), format!("file:{f}:256M"), flag)
        }
    };
    let prefix = dir.path().join("fio");
    let fio = std::process::Command::new("fio")
        .args([
            "--name=crosscheck",
            "--size=256M",
            "--io_size=100G",
            "--rw=randrw",
            "--bs=4k",
            "--iodepth=32",
        ])
        .args(["--ioengine=io_uring", "--direct=1", "--output-format=json"])
        .arg(format!("--filename={fio_target}"))
        .arg(format!("--number_ios={IOS}"))
        .arg(format!("--write_iops_log={}", prefix.display()))
        .output()
        .unwrap();
    assert!(fio.status.success(), "{}", text(&fio));
    let report: serde_json::Value = serde_json::from_slice(&fio.stdout).unwrap();
    let job = &report["jobs"][0];
    let fio_total =
        job["read"]["total_ios"].as_u64().unwrap() + job["write"]["total_ios"].as_u64().unwrap();
    let mut fio_seconds: BTreeMap<u64, u64> = BTreeMap::new();
    let log = std::fs::read_to_string(format!("{}_iops.1.log", prefix.display())).unwrap();
    for line in log.lines() {
        let mut f = line.split(',').map(str::trim);
        let ms: u64 = f.next().unwrap().parse().unwrap();
        let n: u64 = f.next().unwrap().parse().unwrap();
        *fio_seconds.entry(ms / 1000).or_default() += n;
    }

    let json = dir.path().join("r.json");
    let mut args = vec![
        "run",
        "custom",
        "--target",
        &ssd_target,
        "--access",
        "random",
        "--bs",
        "4K",
        "--qd",
        "32",
        "--read-pct",
        "50",
        "--span",
        "256M",
        "--backend",
        "io_uring",
        "-q",
    ];
    let ios = IOS.to_string();
    args.extend(["--ios", &ios]);
    if let Some(f) = &flag {
        args.push(f);
    }
    let out = dir.path().join("out");
    let o = ssdlab()
        .args(&args)
        .arg("--json")
        .arg(&json)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let ours = r["summary"]["ios"].as_u64().unwrap();
    let our_series: u64 = r["per_second"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["ios"].as_u64().unwrap())
        .sum();

    assert_eq!(fio_total, IOS, "fio completed {fio_total}");
    assert_eq!(ours, IOS, "ssdlab completed {ours}");
    assert_eq!(fio_seconds.values().sum::<u64>(), fio_total);
    assert_eq!(our_series, ours);
    // Both did a 50/50 mix.
    let reads = r["summary"]["read"]["ios"].as_f64().unwrap() / ours as f64;
    assert!((0.48..0.52).contains(&reads), "read share {reads}");
    assert_eq!(r["summary"]["max_in_flight"], 32);
}

/// ssdlab's latency percentiles are fio's: fio's per-IO completion-latency log, put through
/// ssdlab's latency window, gives exactly the percentiles fio reports for the same IOs (both
/// take the middle of the bucket holding the percentile, 64 buckets per power of two).
#[test]
fn latency_percentiles_are_fios_for_the_same_ios() {
    if !test_support::tool("fio") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("fio");
    let fio = std::process::Command::new("fio")
        .args([
            "--name=percentiles",
            "--size=64M",
            "--rw=randread",
            "--bs=4k",
            "--ioengine=psync",
            "--number_ios=20000",
            "--log_avg_msec=0",
            "--output-format=json",
            "--percentile_list=50:90:99:99.9:99.99",
        ])
        .arg(format!("--filename={}", dir.path().join("t.img").display()))
        .arg(format!("--write_lat_log={}", prefix.display()))
        .output()
        .unwrap();
    assert!(fio.status.success(), "{}", text(&fio));
    let report: serde_json::Value = serde_json::from_slice(&fio.stdout).unwrap();
    let clat = &report["jobs"][0]["read"]["clat_ns"];
    let mut window = engine::measure::LatencyWindow::default();
    let log = std::fs::read_to_string(format!("{}_clat.1.log", prefix.display())).unwrap();
    let mut n = 0;
    for line in log.lines() {
        // time (ms), latency (ns), direction, block size, offset
        window.record(line.split(',').nth(1).unwrap().trim().parse().unwrap());
        n += 1;
    }
    assert_eq!(n, clat["N"].as_u64().unwrap(), "fio's log holds every IO");
    for (pct, key) in [
        (50.0, "50.000000"),
        (90.0, "90.000000"),
        (99.0, "99.000000"),
        (99.9, "99.900000"),
        (99.99, "99.990000"),
    ] {
        let fio_ns = clat["percentile"][key].as_u64().unwrap();
        assert_eq!(window.percentile_ns(pct), fio_ns, "p{pct}");
    }
}

/// fio's `ss=iops_slope` and the PTS steady-state rule's slope test on the same per-second
/// IOPS: the same least-squares slope and the same verdict, with fio's limit (|slope| / mean)
/// as the PTS's rise across the window (limit x (n - 1)). A tight and a loose limit, so
/// that fio reports both verdicts on most machines; whichever it reports, ours must match.
#[test]
fn steady_state_slope_is_fios() {
    if !test_support::tool("fio") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ss.dat");
    for limit_pct in [0.001, 5.0] {
        let o = std::process::Command::new("fio")
            .args([
                "--name=ss",
                "--size=64M",
                "--rw=randwrite",
                "--bs=4k",
                "--ioengine=psync",
                "--time_based",
                "--runtime=8",
                "--ss_dur=5",
                "--output-format=json",
            ])
            .arg(format!("--steadystate=iops_slope:{limit_pct}%"))
            .arg(format!("--filename={}", file.display()))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
        let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let ss = &json["jobs"][0]["steadystate"];
        let iops: Vec<f64> = (ss["data"]["iops"].as_array().unwrap().iter())
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert_eq!(iops.len(), 5, "{ss}");
        let rule = suite::methodology::steady_state::Rule {
            window: 5,
            max_excursion: f64::INFINITY,
            max_slope_excursion: limit_pct / 100.0 * 4.0,
            max_rounds: 5,
        };
        let slope = suite::methodology::steady_state::Rule::slope(&iops);
        assert!(
            (slope - ss["slope"].as_f64().unwrap()).abs() < 0.05,
            "{slope}: {ss}"
        );
        assert_eq!(rule.steady(&iops), ss["attained"] == 1, "{ss}");
    }
}
