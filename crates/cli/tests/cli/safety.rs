//! A write test on a block device holding data or in use is refused, with a message that
//! names what was found and the fix.

use crate::common::*;

/// A short random-write test on `dev`, with extra flags, writing results to `out`.
fn write_test(dev: &str, extra: &[&str], out: Option<&str>) -> std::process::Output {
    let mut args = vec![
        "run",
        "random-write",
        "--target",
        dev,
        "--duration",
        "0.2",
        "-q",
    ];
    args.extend(extra);
    if let Some(out) = out {
        args.extend(["--out", out]);
    }
    run(&args)
}

#[test]
fn ext4_signature_is_refused_until_the_device_is_named() {
    let Some(dev) = LoopDev::ram("ext4", "64M") else {
        return;
    };
    if !dev.mkfs_ext4() {
        return;
    }
    let out_dir = tempfile::tempdir().unwrap();
    let out = out_dir.path().to_str().unwrap();
    let o = write_test(dev.dev(), &[], Some(out));
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("ext2/3/4 filesystem"), "{t}");
    assert!(t.contains(&format!("--destroy-data={}", dev.dev())), "{t}");

    // Naming another device is not a confirmation.
    let o = write_test(dev.dev(), &["--destroy-data=/dev/null"], Some(out));
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("must be the same device"), "{}", text(&o));

    // Named: it runs.
    let flag = format!("--destroy-data={}", dev.dev());
    let o = write_test(dev.dev(), &[&flag], Some(out));
    assert!(o.status.success(), "{}", text(&o));
    let r: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out_dir.path().join("random-write.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(r["complete"], true);
    assert_eq!(r["target"]["kind"], "block");
    assert!(r["summary"]["iops"].as_f64().unwrap() > 0.0);
}

#[test]
fn mounted_device_is_refused_even_when_named() {
    let Some(mut dev) = LoopDev::ram("mounted", "64M") else {
        return;
    };
    if !dev.mkfs_ext4() || !dev.mount() {
        return;
    }
    let flag = format!("--destroy-data={}", dev.dev());
    let o = write_test(dev.dev(), &[&flag], None);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("is mounted on"), "{t}");
    assert!(t.contains("in use"), "{t}");
}

#[test]
fn blank_device_needs_no_confirmation_and_reads_never_do() {
    let Some(dev) = LoopDev::ram("blank", "64M") else {
        return;
    };
    let out_dir = tempfile::tempdir().unwrap();
    let out = out_dir.path().to_str().unwrap();
    let o = write_test(dev.dev(), &[], Some(out));
    assert!(o.status.success(), "{}", text(&o));
    // Now it holds data of unknown kind: a second write test must be confirmed.
    let o = write_test(dev.dev(), &[], Some(out));
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("unknown kind"), "{}", text(&o));
}

#[test]
fn a_read_only_device_refuses_write_tests_and_runs_read_tests() {
    let Some(dev) = LoopDev::read_only("ro", "64M") else {
        return;
    };
    // Every write used to fail with EPERM while the test "completed" at thousands of IOPS.
    let out = tempfile::tempdir().unwrap();
    let out = out.path().to_str().unwrap();
    let o = write_test(dev.dev(), &["--no-store"], Some(out));
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("is read-only"), "{t}");
    assert!(
        t.contains("--read-pct 100 --no-prefill"),
        "names a test that can run: {t}"
    );
    let o = run(&[
        "run",
        "custom",
        "--target",
        dev.dev(),
        "--read-pct",
        "100",
        "--no-prefill",
        "--ios",
        "100",
        "-q",
        "--no-store",
        "--out",
        out,
    ]);
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn a_suite_stops_at_the_first_failed_io_and_fails() {
    // Writes fail once 8 MiB of the 64 MiB device are used: the first step fails part-way.
    let Some(dev) = LoopDev::over_small_tmpfs("suitefails", "64M", "8M") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("suite");
    let o = run(&[
        "suite",
        "--target",
        dev.dev(),
        "--quick",
        "--no-store",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("an IO failed"), "{t}");
    let rec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("suite.json")).unwrap()).unwrap();
    let statuses: Vec<&str> = rec["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["status"].as_str().unwrap())
        .collect();
    assert_eq!(rec["complete"], false);
    assert!(statuses.contains(&"failed"), "{statuses:?}");
    // Nothing ran after the failure.
    let after = statuses.iter().skip_while(|s| **s != "failed").skip(1);
    assert!(after.clone().all(|s| *s == "pending"), "{statuses:?}");
}

#[test]
fn passthrough_on_a_loop_device_says_it_is_not_available() {
    let Some(dev) = LoopDev::ram("passthrough", "64M") else {
        return;
    };
    let o = write_test(
        dev.dev(),
        &["--backend", "io_uring-cmd", "--no-store"],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("not an NVMe namespace"), "{t}");
    assert!(t.contains("--backend io_uring"), "{t}");
    // Refused before anything was written: the device is still blank.
    let mut head = vec![0u8; 1 << 20];
    std::io::Read::read_exact(&mut std::fs::File::open(dev.dev()).unwrap(), &mut head).unwrap();
    assert!(head.iter().all(|&b| b == 0));
}

/// `file:LINK` to a block device is refused naming what works: the device itself, not the
/// link (which is no target) (issue #22).
#[test]
fn a_file_link_to_a_device_names_the_device() {
    let Some(dev) = LoopDev::ram("filelink", "64M") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("disk");
    std::os::unix::fs::symlink(dev.dev(), &link).unwrap();
    let o = write_test(&format!("file:{}", link.display()), &["--no-store"], None);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains(&format!("use --target {}", dev.dev())), "{t}");
}

/// The ext4 signature at byte 1080 of a file: whether it is still there.
fn holds_ext4(file: &str) -> bool {
    let head = std::fs::read(file).unwrap();
    head[1080..1082] == [0x53, 0xEF]
}

/// A file behind a loop device is that device: holding a filesystem, it is written only when
/// named with --destroy-data (issue #22).
#[test]
fn a_file_behind_a_loop_device_is_guarded_as_the_device() {
    let Some(dev) = LoopDev::ram("backingext4", "64M") else {
        return;
    };
    if !dev.mkfs_ext4() {
        return;
    }
    let file = format!("file:{}", dev.backing());
    let o = write_test(&file, &["--no-store"], None);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("ext2/3/4 filesystem"), "{t}");
    assert!(t.contains(&format!("loop device {}", dev.dev())), "{t}");
    assert!(
        t.contains(&format!("--destroy-data={}", dev.backing())),
        "{t}"
    );
    assert!(holds_ext4(dev.backing()), "the refused test wrote the file");

    let out = tempfile::tempdir().unwrap();
    let flag = format!("--destroy-data={}", dev.backing());
    let o = write_test(&file, &[&flag, "--no-store"], out.path().to_str());
    assert!(o.status.success(), "{}", text(&o));
}

/// A file behind a mounted loop device is never written, named or not.
#[test]
fn a_file_behind_a_mounted_loop_device_is_refused_even_when_named() {
    let Some(mut dev) = LoopDev::ram("backingmounted", "64M") else {
        return;
    };
    if !dev.mkfs_ext4() || !dev.mount() {
        return;
    }
    let flag = format!("--destroy-data={}", dev.backing());
    let o = write_test(
        &format!("file:{}", dev.backing()),
        &[&flag, "--no-store"],
        None,
    );
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("is mounted on"), "{t}");
    assert!(holds_ext4(dev.backing()), "the refused test wrote the file");
}
