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

/// Write `bytes` at `offset` of the device `dev`, as another program's data would be.
fn write_at(dev: &str, offset: u64, bytes: &[u8]) {
    use std::os::unix::fs::FileExt;
    let f = std::fs::OpenOptions::new().write(true).open(dev).unwrap();
    f.write_all_at(bytes, offset).unwrap();
    f.sync_all().unwrap();
}

/// Every command that writes a whole target, on `target` with extra flags.
fn every_writer(target: &str, extra: &[&str]) -> Vec<(&'static str, std::process::Output)> {
    let with = |args: &[&str]| {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--target", target, "-q", "--no-store"]);
        all.extend(extra);
        run(&all)
    };
    vec![
        (
            "run seq-write",
            with(&["run", "seq-write", "--duration", "1"]),
        ),
        ("quick", with(&["quick", "--span", "32M"])),
        ("purge", with(&["purge"])),
    ]
}

/// An md 1.0 member keeps its superblock 8 KiB before the end, its first MiB all zeros: it
/// is a RAID member, refused by every command that writes (issue #66, item 8).
#[test]
fn an_md_superblock_at_the_end_is_refused() {
    let Some(dev) = LoopDev::ram("md10", "64M") else {
        return;
    };
    // struct mdp1_super_block: magic, major_version 1, then super_offset (in sectors) at 136.
    let at = (64 << 20) - 8192;
    let mut sb = vec![0u8; 256];
    sb[..4].copy_from_slice(&0xa92b_4efc_u32.to_le_bytes());
    sb[4..8].copy_from_slice(&1u32.to_le_bytes());
    sb[136..144].copy_from_slice(&(at / 512_u64).to_le_bytes());
    write_at(dev.dev(), at, &sb);
    let user_data = b"user data at 16 MiB ".repeat(50_000);
    write_at(dev.dev(), 16 << 20, &user_data);
    for (command, o) in every_writer(dev.dev(), &[]) {
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{command}: {t}");
        assert!(t.contains("Linux md RAID member (1.0)"), "{command}: {t}");
        assert!(t.contains(&format!("--destroy-data={}", dev.dev())), "{t}");
    }
    let mut back = vec![0u8; user_data.len()];
    std::os::unix::fs::FileExt::read_exact_at(
        &std::fs::File::open(dev.dev()).unwrap(),
        &mut back,
        16 << 20,
    )
    .unwrap();
    assert!(back == user_data, "a refused command wrote the device");
}

/// Zeros in the first 2 MiB and data at 5 and 16 MiB (a filesystem whose start was wiped, a
/// `dd seek=5`) are data: refused until named (issue #66, item 8).
#[test]
fn data_past_the_first_mib_is_data() {
    let Some(dev) = LoopDev::ram("dd5", "64M") else {
        return;
    };
    write_at(dev.dev(), 5 << 20, &[0x5a; 1 << 20]);
    write_at(dev.dev(), 16 << 20, &[0xa5; 1 << 20]);
    let o = write_test(dev.dev(), &["--no-store"], None);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("data of unknown kind"), "{t}");
    assert!(t.contains("at byte 5242880"), "{t}");
}

/// An existing file full of someone's text is neither written nor hole-punched until it is
/// named; once named it is ssdlab's, and a file of zeros and holes needs no naming (issue
/// #66, item 9).
#[test]
fn a_file_ssdlab_did_not_create_is_written_only_when_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("userdata.img");
    let user_text = b"a line of the user's text\n".repeat(40 << 20 >> 5);
    std::fs::write(&path, &user_text).unwrap();
    let shown = path.display().to_string();
    let target = format!("file:{shown}");
    for (command, o) in every_writer(&target, &[]) {
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{command}: {t}");
        assert!(t.contains("ssdlab did not create it"), "{command}: {t}");
        assert!(t.contains(&format!("--destroy-data={shown}")), "{t}");
    }
    assert!(
        std::fs::read(&path).unwrap() == user_text,
        "a refusal wrote it"
    );

    let out = tempfile::tempdir().unwrap();
    let named = format!("--destroy-data={shown}");
    let o = write_test(&target, &[&named, "--no-store"], out.path().to_str());
    assert!(o.status.success(), "{}", text(&o));
    let again = tempfile::tempdir().unwrap();
    let o = write_test(&target, &["--no-store"], again.path().to_str());
    assert!(o.status.success(), "ssdlab's own now: {}", text(&o));

    let sparse = dir.path().join("sparse.img");
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(16 << 20)
        .unwrap();
    let o = write_test(
        &format!("file:{}", sparse.display()),
        &["--no-store"],
        again.path().join("sparse").to_str(),
    );
    assert!(o.status.success(), "zeros and holes: {}", text(&o));
}

/// A file another program holds locked (a running ssdlab) is refused under any of its
/// names, a symlink or a hard link, naming the holder; free again, it runs (issue #66,
/// item 17).
#[test]
fn a_locked_file_is_refused_under_any_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.img");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(16 << 20).unwrap();
    let symlink = dir.path().join("symlink.img");
    std::os::unix::fs::symlink(&path, &symlink).unwrap();
    let hard = dir.path().join("hard.img");
    std::fs::hard_link(&path, &hard).unwrap();
    file.lock().unwrap();
    let holder = format!("(process {}", std::process::id());
    for name in [&path, &symlink, &hard] {
        let target = format!("file:{}", name.display());
        let read = run(&[
            "run",
            "seq-read",
            "--target",
            &target,
            "--ios",
            "10",
            "-q",
            "--no-store",
        ]);
        for o in [write_test(&target, &["--no-store"], None), read] {
            let t = text(&o);
            assert_eq!(o.status.code(), Some(2), "{t}");
            assert!(t.contains("locked by another run or program"), "{t}");
            assert!(t.contains(&holder), "{t}");
        }
    }
    file.unlock().unwrap();
    let out = tempfile::tempdir().unwrap();
    let target = format!("file:{}", hard.display());
    let o = write_test(&target, &["--no-store"], out.path().to_str());
    assert!(o.status.success(), "{}", text(&o));
}
