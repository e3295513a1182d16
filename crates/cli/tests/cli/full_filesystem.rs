//! A file target never fills its filesystem part-way: one that needs more space than is
//! free is refused before any IO, saying how much is free and what to do. A run whose IOs
//! fail part-way says so on the console, and a result names the phase it measured.

use crate::common::*;

use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// `run TEST` for a second, results in a temporary directory unless `extra` gives --out.
fn run_test(test: &str, target: &str, extra: &[&str]) -> std::process::Output {
    let tmp = tempfile::tempdir().unwrap();
    let mut args = vec![
        "run",
        test,
        "--target",
        target,
        "--duration",
        "1",
        "--no-store",
    ];
    if !extra.contains(&"--out") {
        args.extend(["--out", tmp.path().to_str().unwrap()]);
    }
    args.extend(extra);
    run(&args)
}

/// A small ext4 filesystem (32 MiB) on a RAM-backed loop device, mounted.
fn small_ext4(name: &str) -> Option<LoopDev> {
    let mut dev = LoopDev::ram(name, "32M")?;
    if !dev.mkfs_ext4() || !dev.mount() {
        return None;
    }
    Some(dev)
}

#[test]
fn a_file_larger_than_the_free_space_is_refused_up_front() {
    let Some(fs) = small_ext4("nospace") else {
        return;
    };
    let mnt = fs.mount_point().unwrap();
    let file = mnt.join("t.img");
    let out = tempfile::tempdir().unwrap();
    let target = format!("file:{}:64M", file.display());
    let o = run_test(
        "random-write",
        &target,
        &["--out", out.path().to_str().unwrap()],
    );
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(!t.contains("panicked"), "{t}");
    assert!(t.contains("64 MiB"), "names the size: {t}");
    assert!(t.contains("free"), "says how much is free: {t}");
    assert!(t.contains("smaller SIZE"), "names a fix: {t}");
    assert!(!file.exists(), "left {} behind", file.display());
    assert_eq!(result_files(out.path()), 0, "no result: {t}");
}

#[test]
fn an_existing_sparse_file_that_cannot_be_filled_is_refused() {
    let Some(fs) = small_ext4("sparse") else {
        return;
    };
    let file = fs.mount_point().unwrap().join("sparse.img");
    std::fs::File::create(&file)
        .unwrap()
        .set_len(48 << 20)
        .unwrap();
    let target = format!("file:{}", file.display());
    let o = run_test("seq-write", &target, &[]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("48 MiB") && t.contains("free"), "{t}");
    // Not ours: kept as it was.
    assert_eq!(std::fs::metadata(&file).unwrap().len(), 48 << 20);
}

#[test]
fn a_file_that_fits_is_allocated_whole_before_it_runs() {
    let Some(fs) = small_ext4("fits") else {
        return;
    };
    let file = fs.mount_point().unwrap().join("ok.img");
    let out = tempfile::tempdir().unwrap();
    let target = format!("file:{}:8M", file.display());
    let o = run_test(
        "seq-write",
        &target,
        &["--out", out.path().to_str().unwrap()],
    );
    assert!(o.status.success(), "{}", text(&o));
    let m = std::fs::metadata(&file).unwrap();
    assert_eq!(m.len(), 8 << 20);
    assert!(
        m.blocks() * 512 >= 8 << 20,
        "not sparse: {} blocks",
        m.blocks()
    );
}

fn json(dir: &Path, stem: &str) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{stem}.json"))).unwrap())
        .unwrap()
}

#[test]
fn a_fill_failing_part_way_is_printed_and_its_result_names_the_fill() {
    // A 64 MiB device whose writes fail after about 8 MiB: the fill before the random reads
    // fails part-way.
    let Some(dev) = LoopDev::over_small_tmpfs("fillfails", "64M", "8M") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let o = run_test(
        "random-read",
        dev.dev(),
        &["--out", out.path().to_str().unwrap()],
    );
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(!t.contains("panicked"), "{t}");
    // The console says the run failed, why, and that the figures are the fill's.
    assert!(t.contains("FAILED: write of"), "{t}");
    assert!(
        t.contains("No space left on device") || t.contains("Input/output error"),
        "{t}"
    );
    assert!(t.contains("fill"), "{t}");
    let r = json(out.path(), "random-read");
    assert_eq!(r["complete"], false);
    assert_eq!(r["stopped"]["reason"], "failed");
    assert_eq!(r["measured_phase"], "fill");
    let label = r["label"].as_str().unwrap();
    assert!(label.contains("stopped in the fill phase"), "{label}");
    // Failed IOs are counted apart, not as IOPS.
    assert!(r["summary"]["failed_ios"].as_u64().unwrap() >= 1, "{r}");
}

#[test]
fn a_write_test_failing_part_way_is_printed_and_fails() {
    let Some(dev) = LoopDev::over_small_tmpfs("writefails", "64M", "4M") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let o = run_test(
        "seq-write",
        dev.dev(),
        &["--out", out.path().to_str().unwrap()],
    );
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("FAILED: write of"), "{t}");
    assert!(t.contains("the run failed"), "{t}");
    let r = json(out.path(), "seq-write");
    assert_eq!(r["complete"], false);
    assert!(r.get("measured_phase").is_none(), "{r}");
}

#[test]
fn a_target_too_small_for_its_test_leaves_no_file_behind() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("X");
    let o = run_test("seq-write", &format!("file:{}:8K", file.display()), &[]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(!file.exists(), "left {} behind: {t}", file.display());
}

/// A tmpfs of 64 KiB with `free` KiB of it left (in whole 4 KiB pages).
fn nearly_full_tmpfs(name: &str, free: u64) -> Option<Tmpfs> {
    let fs = Tmpfs::mount(name, "64k")?;
    let filler = vec![0u8; ((64 - free) << 10) as usize];
    std::fs::write(fs.dir.join("filler"), filler).unwrap();
    Some(fs)
}

/// The temporary files left in `dir`.
fn tmp_files(dir: &Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "tmp"))
        .collect()
}

#[test]
fn a_json_that_fills_its_filesystem_keeps_the_results_directory() {
    let Some(fs) = nearly_full_tmpfs("jsonfull", 0) else {
        return;
    };
    let cwd = tempfile::tempdir().unwrap();
    let (out, db) = (cwd.path().join("out"), cwd.path().join("bench.db"));
    let o = ssdlab()
        .env("SSDLAB_DB", &db)
        .args(["run", "custom", "--target", "sim:default"])
        .args(["--ios", "1000", "--json"])
        .arg(fs.dir.join("r.json"))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("filesystem holding it is full"), "{t}");
    assert!(t.contains(&format!("results: {}", out.display())), "{t}");
    assert!(t.contains("the measurement is kept"), "{t}");
    assert_eq!(result_files(&out), 1, "{t}");
    assert_eq!(tmp_files(&fs.dir), Vec::<std::path::PathBuf>::new(), "{t}");
}

#[test]
fn results_that_fill_their_filesystem_leave_no_temporary_files() {
    // Room for the run's mark, not for its result.
    let Some(fs) = nearly_full_tmpfs("outfull", 4) else {
        return;
    };
    let out = fs.dir.join("out");
    let o = ssdlab()
        .args(["run", "custom", "--target", "sim:default"])
        .args(["--ios", "1000", "--no-store", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(!t.contains("panicked"), "{t}");
    assert!(t.contains("filesystem holding it is full"), "{t}");
    assert!(t.contains("nothing is kept"), "says what was kept: {t}");
    assert!(!out.exists() || tmp_files(&out).is_empty(), "{t}");
}
