//! Read an iolog written by fio itself (a skip without fio, which fails under CI): fio 3.x writes version 3 with
//! microsecond timestamps, so 20 IOs rate-limited to 100 IOPS span about 0.19 s.

use std::process::Command;

#[test]
fn reads_what_fio_writes() {
    if !test_support::tool("fio") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let log = dir.path().join("io.log");
    let ok = Command::new("fio")
        .args([
            "--name=x",
            "--size=8M",
            "--io_size=1G",
            "--rw=randread",
            "--bs=4k",
            "--ioengine=psync",
        ])
        .args(["--number_ios=20", "--rate_iops=100"])
        .arg(format!("--filename={}", data.display()))
        .arg(format!("--write_iolog={}", log.display()))
        .output()
        .unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let recs: Vec<trace::Record> = trace::open(&log).unwrap().map(Result::unwrap).collect();
    assert_eq!(recs.len(), 20);
    assert!(recs
        .iter()
        .all(|r| r.op == trace::Op::Read && r.len_bytes == 4096));
    let span_s = (recs[19].issue_ns.unwrap() - recs[0].issue_ns.unwrap()) as f64 / 1e9;
    // 19 gaps of 10 ms; a unit error would make this 1000x off either way.
    assert!(
        (0.1..2.0).contains(&span_s),
        "20 IOs at 100 IOPS spanned {span_s} s"
    );
}
