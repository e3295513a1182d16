//! Data verification from the command line: `ssdlab run verify` and `--verify` find nothing on
//! healthy targets (a simulated drive, a file, a RAM-backed loop device) and, on a simulated
//! drive with injected faults, exit non-zero naming the first bad LBAs. The TRIM test reports
//! what trimmed blocks read as against the drive's claim.

use crate::common::*;

use serde_json::Value;

const SIM: &str = "sim:default,capacity=1GiB,op=25%";

fn result(dir: &std::path::Path, stem: &str) -> Value {
    let text = std::fs::read_to_string(dir.join(format!("{stem}.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `ssdlab run ARGS --out DIR --no-store -q`: (exit code, output, the result `stem`).
fn run_in(dir: &std::path::Path, args: &[&str], stem: &str) -> (i32, String, Value) {
    let out = dir.join("out");
    let o = ssdlab()
        .arg("run")
        .args(args)
        .arg("--out")
        .arg(&out)
        .args(["--no-store", "-q"])
        .output()
        .unwrap();
    let t = text(&o);
    assert!(!t.contains("panicked"), "{t}");
    let code = o.status.code().unwrap_or(-1);
    (code, t, result(&out, stem))
}

fn assert_clean(v: &Value, t: &str) {
    let v = &v["verify"];
    assert_eq!(v["mismatches"], 0, "{t}\n{v}");
    assert!(v["units_checked"].as_u64().unwrap() > 0, "{v}");
    assert_eq!(v["complete"], true, "{v}");
    assert_eq!(v["final_pass"], true, "{v}");
}

#[test]
fn verify_finds_nothing_on_a_healthy_simulated_drive_or_file() {
    let dir = tempfile::tempdir().unwrap();
    let (code, t, r) = run_in(dir.path(), &["verify", "--target", SIM], "verify");
    assert_eq!(code, 0, "{t}");
    assert_clean(&r, &t);
    assert!(r["verify"]["backlog_checks"].as_u64().unwrap() > 10);
    assert_eq!(
        r["points"].as_array().unwrap().len(),
        6,
        "one point per phase"
    );

    let dir = tempfile::tempdir().unwrap();
    let file = format!("file:{}:64M", dir.path().join("t.img").display());
    let (code, t, r) = run_in(
        dir.path(),
        &["verify", "--target", &file, "--span", "32M"],
        "verify",
    );
    assert_eq!(code, 0, "{t}");
    assert_clean(&r, &t);

    // 4 KiB random writes at QD32 over 32 units (as many bytes as are in flight: a span any
    // smaller is refused) overlap all the time: the driver never has two overlapping writes
    // in flight (their order on the device is undefined).
    let out = tempfile::tempdir().unwrap();
    let (code, t, r) = run_in(
        out.path(),
        &[
            "custom",
            "--target",
            &file,
            "--span",
            "128K",
            "--read-pct",
            "0",
            "--qd",
            "32",
            "--ios",
            "5000",
            "--verify",
            "--verify-backlog",
            "64",
        ],
        "custom",
    );
    assert_eq!(code, 0, "{t}");
    assert_clean(&r, &t);
    assert_eq!(r["summary"]["ios"], 5000);
}

#[test]
fn verify_finds_nothing_on_a_ram_backed_loop_device() {
    let Some(dev) = LoopDev::ram("verify", "64M") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let target = dev.path.display().to_string();
    let (code, t, r) = run_in(
        dir.path(),
        &["verify", "--target", &target, "--span", "32M"],
        "verify",
    );
    assert_eq!(code, 0, "{t}");
    assert_clean(&r, &t);
}

#[test]
fn verify_on_a_faulty_drive_exits_non_zero_naming_the_first_bad_lbas() {
    let dir = tempfile::tempdir().unwrap();
    let target = format!("{SIM},faults=lost:1/8000+flip:1/10000+misdirect:1/10000+torn:1/5000");
    let (code, t, r) = run_in(dir.path(), &["verify", "--target", &target], "verify");
    assert_eq!(code, 1, "{t}");
    let v = &r["verify"];
    let found = |kind: &str| v["by_kind"][kind].as_u64().unwrap();
    // Every kind of fault the drive injected (its counters say how many) is found.
    let end = &r["device_counters"]["end"];
    for (fault, kinds) in [
        ("lost", &["stale", "zeroes"][..]),
        ("flip", &["corrupt"]),
        ("misdirect", &["misdirected"]),
        ("torn", &["torn"]),
    ] {
        let injected = end[format!("faults_{fault}")].as_u64().unwrap();
        assert!(injected > 0, "no {fault} injected: {end}");
        let caught: u64 = kinds.iter().map(|k| found(k)).sum();
        assert!(caught > 0, "{injected} {fault} injected, none found: {v}");
    }
    assert_eq!(
        found("corrupt"),
        end["faults_flip"].as_u64().unwrap(),
        "one unit per flip"
    );
    assert!(t.contains("VERIFY FAILED"), "{t}");
    let first = &v["first"][0];
    let lba = first["lba"].as_u64().unwrap();
    assert!(t.contains(&format!("LBA {lba} ")), "{t}");
    assert!(first["expected_generation"].as_u64().unwrap() > 0);
    // And the report shows it.
    let html = std::fs::read_to_string(dir.path().join("out/report.html")).unwrap();
    assert!(html.contains("<section id=\"verify\"><h2>Data verification</h2>"));
    assert!(html.contains(&format!("LBA {lba} ")));
}

#[test]
fn verify_flag_checks_a_write_test_and_catches_lost_writes() {
    let dir = tempfile::tempdir().unwrap();
    let args = |target: &'static str| {
        vec![
            "custom",
            "--target",
            target,
            "--read-pct",
            "0",
            "--span",
            "64M",
            "--qd",
            "16",
            "--ios",
            "40000",
            "--verify",
            "--verify-backlog",
            "256",
        ]
    };
    let (code, t, r) = run_in(dir.path(), &args(SIM), "custom");
    assert_eq!(code, 0, "{t}");
    assert_clean(&r, &t);
    // Verification reads are not the test's IOs.
    assert_eq!(r["summary"]["ios"], 40000, "{}", r["summary"]);
    assert_eq!(r["summary"]["read"], Value::Null, "{}", r["summary"]);

    let dir = tempfile::tempdir().unwrap();
    let (code, t, r) = run_in(
        dir.path(),
        &args("sim:default,capacity=1GiB,op=25%,faults=lost:3"),
        "custom",
    );
    assert_eq!(code, 1, "{t}");
    let v = &r["verify"];
    // 4 KiB random writes over fresh space: a lost write reads as zeroes (nothing was
    // there), or as an older generation once the unit had been written.
    let lost = v["by_kind"]["stale"].as_u64().unwrap() + v["by_kind"]["zeroes"].as_u64().unwrap();
    assert_eq!(lost, 3, "{v}");
    assert_eq!(v["mismatches"], 3, "{v}");
}

/// `--verify` on a read test verifies what its prefill wrote, read back after the measured
/// reads (which it does not slow): clean on a healthy drive, the lost writes of a faulty one
/// found (it used to be ignored: exit 0, no verify section).
#[test]
fn verify_flag_on_a_read_test_checks_what_its_prefill_wrote() {
    let args = |target: &'static str| {
        vec![
            "random-read",
            "--target",
            target,
            "--span",
            "64M",
            "--duration",
            "1",
            "--verify",
        ]
    };
    let dir = tempfile::tempdir().unwrap();
    let (code, t, r) = run_in(dir.path(), &args(SIM), "random-read");
    assert_eq!(code, 0, "{t}");
    assert_clean(&r, &t);
    assert_eq!(
        r["verify"]["units_written"].as_u64().unwrap(),
        (64u64 << 20) / 4096,
        "the prefill, every unit"
    );
    assert_eq!(r["summary"]["write"], Value::Null, "{}", r["summary"]);

    let dir = tempfile::tempdir().unwrap();
    let (code, t, r) = run_in(
        dir.path(),
        // The prefill is 512 writes of 128 KiB: about 8 of them lost.
        &args("sim:default,capacity=1GiB,op=25%,faults=lost:1/64"),
        "random-read",
    );
    assert_eq!(code, 1, "{t}");
    assert!(
        r["verify"]["mismatches"].as_u64().unwrap() > 0,
        "{}",
        r["verify"]
    );
}

#[test]
fn verify_is_refused_where_it_cannot_apply() {
    let o = run(&["run", "trim", "--target", SIM, "--verify"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("trimmed blocks"), "{}", text(&o));
    // Reads of nothing this run wrote: nothing known to verify.
    let o = run(&["run", "custom", "--target", SIM, "--no-prefill", "--verify"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("only reads"), "{}", text(&o));
    // Without it custom fills the span first, as the read corners do, and verifies that.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = run(&[
        "run",
        "custom",
        "--target",
        SIM,
        "--verify",
        "--ios",
        "2000",
        "--no-store",
        "--out",
        out,
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("verify: no corruption"), "{}", text(&o));
    let o = run(&[
        "run",
        "seq-read",
        "--target",
        SIM,
        "--no-prefill",
        "--verify",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("--no-prefill"), "{}", text(&o));
    let o = run(&["run", "custom", "--target", SIM, "--verify-backlog", "8"]);
    assert!(
        text(&o).contains("--verify-backlog needs --verify"),
        "{}",
        text(&o)
    );
}

#[test]
fn the_trim_test_reports_what_trimmed_blocks_read_as_against_the_claim() {
    let trimmed = |spec: &str| {
        let dir = tempfile::tempdir().unwrap();
        let target = format!("sim:default,capacity=512MiB,op=25%,{spec}");
        let (code, t, r) = run_in(
            dir.path(),
            &["trim", "--target", &target, "--duration", "2"],
            "trim",
        );
        assert_eq!(code, 0, "{t}");
        r["analysis"]["trimmed_reads"].clone()
    };
    // TRIM that unmaps at once, claiming zeroes: all zeroes, as claimed.
    let ok = trimmed("trim=on");
    assert_eq!(ok["claim"], "zeroes", "{ok}");
    assert_eq!(ok["zeroes"], ok["samples"], "{ok}");
    assert_eq!(ok["violation"], false, "{ok}");
    // A drive that keeps a share of trimmed data but claims zeroes: a violation, by LBA.
    let bad = trimmed("trim=partial,trim_keep=30%,trim_reads=zeroes");
    assert_eq!(bad["violation"], true, "{bad}");
    assert!(bad["old_data"].as_u64().unwrap() > 0, "{bad}");
    assert_eq!(bad["bad"][0]["read_as"], "old_data", "{bad}");
    assert!(bad["verdict"].as_str().unwrap().starts_with("VIOLATION"));
    // The same drive claiming nothing: reported, no violation.
    let honest = trimmed("trim=partial,trim_keep=30%");
    assert_eq!(honest["claim"], "unspecified", "{honest}");
    assert_eq!(honest["violation"], false, "{honest}");
}
