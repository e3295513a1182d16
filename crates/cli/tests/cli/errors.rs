//! Bad input gets a clear error naming the problem and the fix, never a panic.

use crate::common::*;

fn fails_with(args: &[&str], needle: &str) {
    let o = run(args);
    let t = text(&o);
    assert!(!o.status.success(), "{args:?} succeeded: {t}");
    assert!(!t.contains("panicked"), "{args:?} panicked: {t}");
    assert!(t.contains(needle), "{args:?}: expected '{needle}' in: {t}");
}

#[test]
fn bad_arguments_are_explained() {
    let dir = tempfile::tempdir().unwrap();
    let file = format!("file:{}:16M", dir.path().join("t.img").display());
    let missing = format!("file:{}", dir.path().join("missing.img").display());
    fails_with(
        &["run", "nonsense", "--target", &file],
        "unknown test 'nonsense'",
    );
    // A recording of no time is the flag's fault, said before blktrace is asked.
    let recorded = dir.path().join("r.ssdt");
    fails_with(
        &[
            "trace",
            "record",
            "/dev/null",
            "--duration",
            "0",
            "-o",
            recorded.to_str().unwrap(),
        ],
        "invalid value '0' for '--duration",
    );
    fails_with(
        &["run", "custom", "--target", &file, "--bs", "4Q"],
        "unknown unit",
    );
    fails_with(
        &[
            "run", "custom", "--target", &file, "--qd", "0", "--ios", "10",
        ],
        "queue depth 0",
    );
    fails_with(
        &[
            "run", "custom", "--target", &file, "--qd", "5000", "--ios", "10",
        ],
        "1 to 1024",
    );
    fails_with(
        &["run", "custom", "--target", &file, "--span", "150%"],
        "at most 100%",
    );
    fails_with(
        &[
            "run", "custom", "--target", &file, "--bs", "1000", "--ios", "10",
        ],
        "multiple",
    );
    fails_with(
        &[
            "run", "custom", "--target", &file, "--span", "1M", "--bs", "2M", "--ios", "1",
        ],
        "smaller than one block",
    );
    fails_with(
        &["run", "custom", "--target", "/tmp/plain.img"],
        "file:PATH",
    );
    fails_with(&["run", "custom", "--target", &missing], "give a size");
    fails_with(
        &["run", "custom", "--target", &file, "--data", "fluffy"],
        "unknown data kind",
    );
    fails_with(
        &["run", "custom", "--target", &file, "--duration=0"],
        "positive number",
    );
    fails_with(
        &["run", "custom", "--target", "/dev/null"],
        "not a block device",
    );
}

/// Fails with exit status 2 before any IO, naming the problem and the fix, leaving no
/// result behind.
fn refused(args: &[&str], needles: &[&str]) -> String {
    let out = tempfile::tempdir().unwrap();
    let mut all = args.to_vec();
    all.extend(["--no-store", "--out", out.path().to_str().unwrap()]);
    let o = run(&all);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {t}");
    assert!(!t.contains("panicked"), "{args:?} panicked: {t}");
    for n in needles {
        assert!(t.contains(n), "{args:?}: expected '{n}' in: {t}");
    }
    assert_eq!(result_files(out.path()), 0, "{args:?} stored a result: {t}");
    t
}

#[test]
fn argument_edge_cases_are_refused_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let file = format!("file:{}:16M", dir.path().join("t.img").display());
    // A zero block size divided by zero.
    refused(
        &[
            "run", "custom", "--target", &file, "--bs", "0", "--ios", "10",
        ],
        &["'--bs", "at least 512"],
    );
    refused(
        &["run", "random-write", "--target", &file, "--bs", "0"],
        &["'--bs", "at least 512"],
    );
    // A duration beyond what the clock can count stored an empty result marked complete.
    refused(
        &[
            "run",
            "random-write",
            "--target",
            &file,
            "--duration",
            "2e10",
        ],
        &["--duration", "at most"],
    );
    refused(
        &[
            "run",
            "random-write",
            "--target",
            "sim:default",
            "--duration",
            "2e10",
        ],
        &["--duration", "at most"],
    );
    refused(
        &["run", "custom", "--target", &file, "--duration", "nan"],
        &["--duration"],
    );
    // Limits of zero end a run before it starts.
    refused(
        &["run", "custom", "--target", &file, "--ios", "0"],
        &["'--ios", "at least 1"],
    );
    refused(
        &["run", "custom", "--target", &file, "--bytes", "0"],
        &["'--bytes", "at least 1"],
    );
    // A span that does not fit after the offset was silently cut to 1 MiB.
    for test in ["custom", "random-write"] {
        refused(
            &[
                "run", test, "--target", &file, "--offset", "15M", "--span", "8M", "--ios", "10",
            ],
            &["--span 8 MiB", "--offset 15 MiB", "16 MiB", "at most 1 MiB"],
        );
    }
    refused(
        &[
            "run", "custom", "--target", &file, "--offset", "17M", "--ios", "10",
        ],
        &["--offset 17 MiB", "beyond the end", "16 MiB"],
    );
    // Offset errors name the offset, not a span.
    let o = run(&[
        "run",
        "custom",
        "--target",
        &file,
        "--offset",
        "1000",
        "--ios",
        "10",
        "--no-store",
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("--offset 1000"), "{t}");
    assert!(!t.contains("span offset"), "{t}");
    // Tests that always start at LBA 0 do not take an offset silently.
    refused(
        &[
            "run",
            "consistency",
            "--target",
            "sim:default",
            "--offset",
            "1M",
        ],
        &["--offset", "consistency"],
    );
}

/// Options that need no target to judge are judged before the target is touched: a bad
/// --qd, --span or output path was found after the fill had started (issue #66: q7, qd2,
/// hl1), and a preset given without `sim:` is pointed to it.
#[test]
fn options_are_checked_before_the_target_is_touched() {
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("t.img");
    let file = format!("file:{}:16M", img.display());
    let missing_dir = dir.path().join("no-such-dir/h.log");
    let dir_path = dir.path().to_str().unwrap();
    for (flags, needles) in [
        (&["--span", "0"][..], &["'--span", "empty"][..]),
        (&["--qd", "0"], &["'--qd", "queue depth 0"]),
        (&["--qd", "Q4T0"], &["'--qd", "0 threads"]),
        (
            &["--span", "1M", "--bs", "2M"],
            &["--span", "smaller than one block"],
        ),
        (
            &["--hist-log", missing_dir.to_str().unwrap()],
            &["--hist-log", "no-such-dir does not exist"],
        ),
        (&["--json", dir_path], &["--json", "is a directory"]),
        (&["--iolog", dir_path], &["--iolog", "is a directory"]),
    ] {
        let mut args = vec!["run", "custom", "--target", &file, "--read-pct", "100"];
        args.extend(flags);
        let t = refused(&args, needles);
        assert!(
            !t.contains("fill"),
            "{flags:?}: the target was touched first: {t}"
        );
        assert!(!img.exists(), "{flags:?}: the target file was created");
    }
    refused(
        &["run", "custom", "--target", "840-evo-250,op=25%"],
        &["did you mean --target sim:840-evo-250,op=25%?"],
    );
}

/// A file's size is exact: below one 4 KiB block it was blamed on the file ("is 0 bytes ...:
/// give a size", though one was given), and 4097 bytes silently became 4096 (issue #22).
#[test]
fn a_file_size_is_a_whole_number_of_4k_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let file = |size: &str| format!("file:{}:{size}", dir.path().join("t.img").display());
    refused(
        &["run", "custom", "--target", &file("512"), "--ios", "10"],
        &["512 bytes", "below the 4 KiB minimum", &file("4K")],
    );
    refused(
        &["run", "custom", "--target", &file("4097"), "--ios", "10"],
        &["not a multiple of 4 KiB", &file("4K"), &file("8K")],
    );
    refused(
        &[
            "run",
            "custom",
            "--target",
            &file("1000001K"),
            "--ios",
            "10",
        ],
        &[&file("1000000K"), &file("1000004K")],
    );
    assert!(
        !dir.path().join("t.img").exists(),
        "a refused size creates no file"
    );
}

#[test]
fn os_errors_are_printed_once() {
    for args in [
        vec![
            "run",
            "custom",
            "--target",
            "/dev/ssdlab-nonexistent",
            "--ios",
            "1",
        ],
        vec![
            "run",
            "custom",
            "--target",
            "file:/nonexistent-ssdlab-dir/x:1M",
            "--ios",
            "1",
        ],
        vec!["trace", "stats", "/nonexistent-ssdlab-trace"],
        vec!["trace", "replay", "/nonexistent-ssdlab-trace", "--no-store"],
    ] {
        let o = run(&args);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {t}");
        for reason in ["No such file or directory", "no such file"] {
            assert!(
                t.matches(reason).count() <= 1,
                "{args:?}: '{reason}' printed twice: {t}"
            );
        }
    }
}

/// `--precondition` prepares the drive for steady-state and consistency: a command or test
/// that would ignore it refuses it.
#[test]
fn a_precondition_nothing_uses_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &[
            "run",
            "custom",
            "--target",
            "sim:default",
            "--precondition",
            "sprandom",
        ][..],
        &[
            "purge",
            "--target",
            "sim:default",
            "--precondition",
            "sprandom",
        ][..],
    ] {
        let o = ssdlab()
            .args(args)
            .arg("--no-store")
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(!o.status.success(), "{args:?} ran");
        assert!(
            text(&o).contains("does not use it"),
            "{args:?}: {}",
            text(&o)
        );
    }
}

/// A sim drive that fits the machine but not the process's address-space limit (`ulimit
/// -v`) is refused naming that limit, rather than aborted by a failed allocation (cap5).
#[test]
fn a_sim_drive_beyond_the_address_space_limit_is_refused_naming_it() {
    use std::os::unix::process::CommandExt;
    const LIMIT: libc::rlim_t = 768 << 20;
    let dir = tempfile::tempdir().unwrap();
    let mut c = ssdlab();
    // 512 GiB of default drive needs about 1.1 GB of mapping tables.
    c.args([
        "run",
        "random-read",
        "--target",
        "sim:default,capacity=512G",
        "--duration",
        "1",
        "--no-store",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    // SAFETY: only setrlimit(2) runs between fork and exec.
    unsafe {
        c.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: LIMIT,
                rlim_max: LIMIT,
            };
            match libc::setrlimit(libc::RLIMIT_AS, &limit) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
    let o = c.output().unwrap();
    let t = text(&o);
    // An exit with a status, not a signal (an abort on a failed allocation).
    assert!(
        matches!(o.status.code(), Some(c) if c != 0),
        "{:?}: {t}",
        o.status
    );
    assert!(t.contains("needs about") && t.contains("of RAM"), "{t}");
    let machine_kib: u64 = std::fs::read_to_string("/proc/meminfo")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    // The machine's own memory is the tighter limit only where it has under 2 GiB free.
    if machine_kib > 2 << 20 {
        assert!(t.contains("RLIMIT_AS"), "{t}");
    }
}
