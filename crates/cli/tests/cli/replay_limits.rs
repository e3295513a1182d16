//! Replaying a trace costs memory by its IOs, not its time span: a six-line blkparse trace
//! with an IO at t = 1e8 s (idle for three years in between) replays idle-capped in a span
//! of the cap, in virtual time on the simulator within 100 MB, and is refused up front, with
//! the fix named, where a timed replay would wait out the gap on the wall clock. What is
//! asserted is what the replay reports, not how long it took: a run is only killed, failing
//! its test, after a generous hang guard.

use crate::common::*;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn six_line_trace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/idle-1e8s.blkparse.txt")
}

/// How long a replay may run before it is killed and the test fails: a hang guard, not a
/// measure. Every replay here ends in well under a second on an idle machine; one that
/// waited out the trace's gap would take three years, so only that bug exceeds it.
const HANG_GUARD: Duration = Duration::from_secs(60);

/// Run ssdlab with `args`; its output and peak resident memory in bytes (killed, failing
/// the test, after [`HANG_GUARD`]). The child is reaped with wait4 (for its own rusage),
/// not Child::wait.
#[allow(clippy::zombie_processes)]
fn run_measured(args: &[&str]) -> (std::process::Output, u64) {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    let mut child = ssdlab()
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    // wait4 reaps this child and gives its own peak RSS (not the other tests' children).
    // Looked at every 10 ms (WNOHANG) until it has exited; killed at the hang guard.
    let mut status = 0;
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    let deadline = Instant::now() + HANG_GUARD;
    loop {
        match unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut ru) } {
            0 if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            0 => {
                unsafe { libc::kill(pid, libc::SIGKILL) };
                unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
                panic!("ssdlab {args:?} still running after {HANG_GUARD:?}: killed");
            }
            reaped => {
                assert_eq!(reaped, pid);
                break;
            }
        }
    }
    let out = std::process::Output {
        status: std::process::ExitStatus::from_raw(status),
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    };
    (out, ru.ru_maxrss as u64 * 1024)
}

fn result(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("replay.json")).unwrap()).unwrap()
}

/// Replay the six-line trace on `sim:default` in `mode` into `out`: its output and peak
/// RSS.
fn replay_on_sim(mode: &str, out: &Path) -> (std::process::Output, u64) {
    let trace = six_line_trace();
    run_measured(&[
        "trace",
        "replay",
        trace.to_str().unwrap(),
        "--target",
        "sim:default",
        "--mode",
        mode,
        "--no-store",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ])
}

#[test]
fn idle_capped_replay_of_a_three_year_gap_spans_the_cap_not_the_gap() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r");
    let (o, _) = replay_on_sim("idle-capped", &out);
    assert!(o.status.success(), "{}", text(&o));
    let r = result(&out);
    assert_eq!(r["complete"], true);
    assert_eq!(r["summary"]["ios"], 2);
    // What the replay says it did, not how fast: the three-year gap became the idle cap
    // (25 ms), so the replayed span is well under a second.
    assert_eq!(r["parameters"]["plan"]["mode"]["mode"], "idle-capped");
    let span = r["summary"]["duration_s"].as_f64().unwrap();
    assert!(span < 1.0, "replayed span {span} s");
    assert!(r["per_second"].as_array().unwrap().len() <= 2);
}

#[test]
fn timed_replay_in_virtual_time_keeps_memory_by_ios_not_span() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r");
    let (o, rss) = replay_on_sim("timed", &out);
    assert!(o.status.success(), "{}", text(&o));
    // A series by span would be 94M seconds (gigabytes). The bound is loose because Linux
    // hands a child the peak RSS of the test process it was forked from (ru_maxrss survives
    // exec), and that process runs other tests meanwhile: 148 MB was seen.
    assert!(rss < 1 << 30, "peak RSS {} MB", rss >> 20);
    let r = result(&out);
    assert_eq!(r["complete"], true);
    assert_eq!(r["summary"]["ios"], 2);
    // Both IOs' seconds are in the series, the gap between them is not: it is idle, and
    // the summary says how many idle seconds the series leaves out.
    let series = r["per_second"].as_array().unwrap();
    assert!(series.len() <= 4, "{} points", series.len());
    let ts: Vec<u64> = series.iter().map(|p| p["t"].as_u64().unwrap()).collect();
    assert_eq!(ts.first(), Some(&0));
    assert_eq!(ts.last(), Some(&100_000_000));
    let omitted = r["summary"]["idle_seconds_omitted"].as_u64().unwrap();
    assert!(omitted > 99_999_990, "{omitted}");
}

#[test]
fn timed_replay_on_the_wall_clock_refuses_a_three_year_wait_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let target = format!("file:{}:16M", dir.path().join("t.img").display());
    let out = dir.path().join("r");
    let trace = six_line_trace();
    let (o, rss) = run_measured(&[
        "trace",
        "replay",
        trace.to_str().unwrap(),
        "--target",
        &target,
        "--mode",
        "timed",
        "--no-store",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(!t.contains("panicked"), "{t}");
    // Refused before it plans anything the size of the wait (the bound: see above).
    assert!(rss < 1 << 30, "peak RSS {} MB", rss >> 20);
    assert!(t.contains("100000000"), "names the span: {t}");
    assert!(t.contains("--mode idle-capped"), "names the fix: {t}");
    assert!(t.contains("--speed"), "names the other fix: {t}");
    // Refused up front, not after waiting (the hang guard catches a wait): before the
    // target was touched, nothing created, no results.
    assert!(!dir.path().join("t.img").exists(), "{t}");
    assert!(!out.exists(), "{t}");
}
