//! A run's results from start to the Bench: each run in a directory of its own, never over
//! another's; a run that measured nothing, or could not, stores nothing.

use std::path::Path;

use crate::common::*;

/// The run ids of the results in `dir`.
fn run_ids(dir: &Path) -> Vec<String> {
    suite_results(dir)
        .iter()
        .map(|r| r["run_id"].as_str().unwrap().to_string())
        .collect()
}

fn suite_results(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap())
        .collect()
}

#[test]
fn runs_started_at_once_each_keep_a_directory_of_their_own() {
    let cwd = tempfile::tempdir().unwrap();
    // Started together, most in one second: default directory names are to the second.
    let runs: Vec<_> = (0..20)
        .map(|_| {
            custom_on_sim_command(&["--ios", "200"])
                .current_dir(cwd.path())
                .spawn()
                .unwrap()
        })
        .collect();
    for r in runs {
        let o = r.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", text(&o));
    }
    let dirs: Vec<_> = std::fs::read_dir(cwd.path().join("results"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(dirs.len(), 20, "{dirs:?}");
    let mut ids: Vec<String> = dirs.iter().flat_map(|d| run_ids(d)).collect();
    assert_eq!(ids.len(), 20, "one result in each: {dirs:?}");
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 20, "each directory holds its own run's result");
}

#[test]
fn an_out_that_holds_results_is_refused_before_running() {
    let cwd = tempfile::tempdir().unwrap();
    let out = cwd.path().join("out");
    let first = custom_on_sim_command(&["--ios", "100"])
        .current_dir(cwd.path())
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(first.status.success(), "{}", text(&first));
    let kept = run_ids(&out);
    let second = custom_on_sim_command(&["--ios", "100", "--seed", "7"])
        .current_dir(cwd.path())
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let t = text(&second);
    assert!(!second.status.success(), "{t}");
    assert!(t.contains("already holds results of"), "{t}");
    assert!(t.contains("another --out"), "{t}");
    assert_eq!(run_ids(&out), kept, "the first run's result is untouched");
}

#[test]
fn too_many_bytes_in_flight_are_refused_up_front() {
    let cwd = tempfile::tempdir().unwrap();
    // 512 GiB of buffers: refused before one is allocated, as the message says.
    let o = custom_on_sim_command(&[
        "--threads",
        "8",
        "--qd",
        "1024",
        "--bs",
        "64M",
        "--duration",
        "1",
    ])
    .current_dir(cwd.path())
    .output()
    .unwrap();
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    assert!(t.contains("549755813888 bytes in flight"), "{t}");
    assert!(t.contains("lower --threads, --qd or --bs"), "{t}");
    // No run directory left behind (results/ itself may remain).
    let left = std::fs::read_dir(cwd.path().join("results")).map_or(0, |d| d.count());
    assert_eq!(left, 0, "{t}");
}

/// Limit the files `cmd` writes to `bytes` (RLIMIT_FSIZE), SIGXFSZ ignored: a write past
/// the limit fails with EFBIG, as a full filesystem fails it, without root.
fn file_size_limit(cmd: &mut std::process::Command, bytes: u64) -> &mut std::process::Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: only async-signal-safe calls (signal, setrlimit) between fork and exec; an
    // ignored signal stays ignored across exec.
    unsafe {
        cmd.pre_exec(move || {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            match libc::setrlimit(libc::RLIMIT_FSIZE, &limit) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        })
    }
}

#[test]
fn a_log_failing_mid_run_keeps_the_measurement() {
    for log in ["--iolog", "--hist-log"] {
        let cwd = tempfile::tempdir().unwrap();
        let (out, db) = (cwd.path().join("out"), cwd.path().join("bench.db"));
        let log_path = cwd.path().join("the.log");
        // The per-IO log of 100000 IOs is 3.2 MB (32 bytes each); the histogram log has a
        // line for each second of the sim's clock, many at 100 IOs a second. The results
        // stay far below the 1 MiB limit.
        let load: &[&str] = match log {
            "--iolog" => &["--ios", "100000"],
            _ => &["--ios", "30000", "--rate-iops", "100"],
        };
        let mut c = ssdlab();
        c.current_dir(cwd.path())
            .env("SSDLAB_DB", &db)
            .args(["run", "custom", "--target", "sim:default", "-q"])
            .args(load)
            .arg(log)
            .arg(&log_path)
            .arg("--out")
            .arg(&out);
        let o = file_size_limit(&mut c, 1 << 20).output().unwrap();
        let t = text(&o);
        assert_eq!(o.status.code(), Some(1), "{log}: {t}");
        assert!(
            t.contains("the.log failed") && t.contains("File too large"),
            "{log}: {t}"
        );
        assert!(t.contains("the measurement is kept"), "{log}: {t}");
        let results = suite_results(&out);
        assert_eq!(results.len(), 1, "{log}: the result is kept: {t}");
        let warnings = results[0]["warnings"].to_string();
        assert!(
            warnings.contains("the.log failed"),
            "{log}: the result says so: {warnings}"
        );
        assert_eq!(stored_runs(&db).len(), 1, "{log}: stored in the Bench: {t}");
    }
}

/// `run custom` of 16 MiB writes, 4 at once (the 64 MiB a file of the probe's size holds),
/// on `target` for 10 ms: less than they take.
fn short_big_writes(cwd: &Path, target: &str) -> std::process::Output {
    ssdlab()
        .current_dir(cwd)
        .env("SSDLAB_DB", cwd.join("bench.db"))
        .args([
            "run",
            "custom",
            "--target",
            target,
            "--qd",
            "4",
            "--read-pct",
            "0",
        ])
        .args(["--bs", "16M", "--duration", "0.01", "-q", "--out"])
        .arg(cwd.join("out"))
        .output()
        .unwrap()
}

#[test]
fn ios_in_flight_at_the_deadline_are_counted() {
    // #66 item 10: on a file, setting up the buffers (a GiB for the probe's QD16 of 64 MiB,
    // refused now as more than its span) used up the 10 ms before the first IO, and the run
    // said "0 IOPS", complete. The IOs sent before the deadline are waited for and counted,
    // on a file as on the simulated drive.
    let cwd = tempfile::tempdir().unwrap();
    let file = format!("file:{}:64M", cwd.path().join("X").display());
    for target in [file.as_str(), "sim:default"] {
        let o = short_big_writes(cwd.path(), target);
        let t = text(&o);
        assert!(o.status.success(), "{target}: {t}");
        let out = cwd.path().join("out");
        let r = &suite_results(&out)[0];
        let ios = r["summary"]["ios"].as_u64().unwrap();
        assert!(ios >= 1, "{target}: {r}");
        let duration = r["summary"]["duration_s"].as_f64().unwrap();
        assert!(
            duration >= 0.01,
            "{target}: until the last IO completed: {duration}"
        );
        std::fs::remove_dir_all(&out).unwrap();
    }
    assert_eq!(stored_runs(cwd.path().join("bench.db")).len(), 2);
}

#[test]
fn more_bytes_in_flight_than_the_span_are_refused_up_front() {
    let cwd = tempfile::tempdir().unwrap();
    // 4 threads x QD8 x 1 MiB over 16 MiB: IOs in flight would share their bytes.
    let o = custom_on_sim_command(&[
        "--span",
        "16M",
        "--threads",
        "4",
        "--qd",
        "8",
        "--bs",
        "1M",
        "--duration",
        "2",
    ])
    .current_dir(cwd.path())
    .output()
    .unwrap();
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    assert!(
        t.contains("keep 33554432 bytes in flight, more than the 16777216-byte span holds"),
        "{t}"
    );
    assert!(
        t.contains("or give a --span (or a target) of at least that"),
        "{t}"
    );
    let left = std::fs::read_dir(cwd.path().join("results")).map_or(0, |d| d.count());
    assert_eq!(left, 0, "{t}");
}
