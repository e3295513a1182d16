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
            (f.clone(), format!("file:{f}:256M"), None)
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
