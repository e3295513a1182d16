//! Runs reach the Bench as they are measured, and a Bench out of reach loses nothing: a
//! suite stores its run after each step; one whose PostgreSQL server is down stores it when
//! the server is back, during the suite or in the bounded wait at its end; one whose server
//! never comes back ends as usual with its results on disk and the `bench push` hint.
//! Each test has a PostgreSQL server of its own to stop and start (test_support::postgres).

use crate::common::*;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

/// A suite on a simulated drive (in virtual time: seconds), storing into `db`, with its
/// progress notes (no -q) on stderr.
fn suite(db: &str, out: &Path, args: &[&str]) -> std::process::Command {
    let mut c = ssdlab();
    c.env("SSDLAB_DB", db)
        .args(["suite", "--target", "sim:default"])
        .args(args)
        .arg("--out")
        .arg(out);
    c
}

/// A child's stderr, line by line, read as it comes.
struct Lines {
    rx: Receiver<String>,
    seen: Vec<String>,
}

impl Lines {
    fn of(child: &mut Child) -> Lines {
        let stderr = child.stderr.take().expect("stderr piped");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Lines {
            rx,
            seen: Vec::new(),
        }
    }

    /// Wait for a line containing `text` (panicking with what was seen after `secs`).
    fn wait_for(&mut self, text: &str, secs: u64) {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(line) => {
                    let found = line.contains(text);
                    self.seen.push(line);
                    if found {
                        return;
                    }
                }
                Err(_) => panic!("no line with {text:?} in {secs} s:\n{}", self.text()),
            }
        }
    }

    /// Everything, once the child has exited.
    fn rest(mut self) -> String {
        while let Ok(line) = self.rx.recv_timeout(Duration::from_secs(30)) {
            self.seen.push(line);
        }
        self.text()
    }

    fn text(&self) -> String {
        self.seen.join("\n")
    }
}

fn spawn(mut c: std::process::Command) -> (Child, Lines) {
    let mut child = c
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = Lines::of(&mut child);
    (child, lines)
}

fn signal(child: &Child, sig: &str) {
    let ok = std::process::Command::new("kill")
        .arg(format!("-{sig}"))
        .arg(child.id().to_string())
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -{sig}");
}

/// Wait for the child to exit, looking every 50 ms; killed, failing the test, after `secs`
/// (a hang guard, not a measure).
fn exit_within(child: &mut Child, secs: u64) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("still running after {secs} s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn run_id(out: &Path) -> String {
    let rec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("suite.json")).unwrap()).unwrap();
    rec["run_id"].as_str().unwrap().to_string()
}

#[test]
fn a_suite_is_in_the_bench_after_its_first_step_and_an_interrupted_one_stays_there() {
    let Some(server) = test_support::postgres::shared() else {
        return;
    };
    let db = server.new_database();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("review");
    // The second step takes seconds: long enough to look at the Bench while it runs.
    let args = ["--only", "transfer-sweep", "--only", "consistency-spare-25"];
    let (mut child, mut lines) = spawn(suite(&db, &out, &args));
    lines.wait_for("note: stored in the Bench as run", 60);

    // The suite is measuring its second step; its first is in the Bench already.
    let stored = stored_runs(&db);
    assert!(child.try_wait().unwrap().is_none(), "the suite still runs");
    assert_eq!(stored.len(), 1, "{stored:?}");
    let run = &stored[0];
    assert_eq!(run["run"]["uuid"], run_id(&out).as_str(), "{run}");
    assert_eq!(run["run"]["complete"], false, "incomplete until its end");
    let tests: Vec<&str> = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["test"].as_str().unwrap())
        .collect();
    assert!(
        !tests.is_empty() && tests.iter().all(|t| *t == "transfer-sweep"),
        "{tests:?}"
    );

    // Interrupted in the second step: what it measured joins the run, still incomplete.
    signal(&child, "INT");
    let status = exit_within(&mut child, 30);
    let t = lines.rest();
    assert_eq!(status.code(), Some(130), "{t}");
    let stored = stored_runs(&db);
    assert_eq!(stored.len(), 1, "{stored:?}");
    assert_eq!(stored[0]["run"]["complete"], false);
    let results = stored[0]["results"].as_array().unwrap();
    assert_eq!(results.len(), result_files(&out), "{t}");
    assert!(
        results
            .iter()
            .any(|r| r["test"] == "consistency" && r["complete"] == false),
        "{results:?}"
    );
}

/// A suite killed before its first result keeps its identity when resumed: suite.json's run
/// id, which the resumed run stores under, once, complete (a new id matched no result, so the
/// live store stored nothing and said nothing).
#[test]
fn a_suite_killed_before_its_first_result_keeps_its_run_when_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    let db = db.to_str().unwrap();
    let out = dir.path().join("review");
    let only = ["--only", "consistency-spare-25"];
    let (mut child, mut lines) = spawn(suite(db, &out, &only));
    lines.wait_for("step 1 of 1", 60);
    signal(&child, "KILL");
    exit_within(&mut child, 30);
    assert_eq!(result_files(&out), 0, "killed before its first result");
    let id = run_id(&out);

    let o = ssdlab()
        .env("SSDLAB_DB", db)
        .args(["suite", "-q"])
        .args(only)
        .arg("--resume")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let stored = stored_runs(db);
    assert_eq!(stored.len(), 1, "{stored:?}");
    assert_eq!(
        stored[0]["run"]["uuid"],
        id.as_str(),
        "the run of suite.json"
    );
    assert_eq!(stored[0]["run"]["complete"], true);
    assert_eq!(
        stored[0]["results"].as_array().unwrap().len(),
        result_files(&out)
    );
}

#[test]
fn a_bench_down_at_the_start_and_back_during_the_suite_gets_the_run_once_complete() {
    let Some(server) = test_support::postgres::private() else {
        return;
    };
    let db = server.new_database();
    server.stop().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("review");
    let args = [
        "--quick",
        "--only",
        "transfer-sweep",
        "--only",
        "seq-incompressible",
        "--only",
        "corners",
    ];
    let (mut child, mut lines) = spawn(suite(&db, &out, &args));
    lines.wait_for("the Bench is out of reach", 60);
    // Held while the server starts, so that it is back before the suite's next step ends
    // (a quick step on a simulated drive takes well under a second).
    signal(&child, "STOP");
    server.start().unwrap();
    signal(&child, "CONT");
    let status = exit_within(&mut child, 60);
    let t = lines.rest();
    assert!(status.success(), "{t}");
    assert!(t.contains("now that it answers again"), "{t}");
    assert!(
        !t.contains("trying again for up to"),
        "stored while it ran: {t}"
    );
    assert!(!t.contains("not stored"), "{t}");

    let stored = stored_runs(&db);
    assert_eq!(stored.len(), 1, "stored once: {stored:?}");
    assert_eq!(stored[0]["run"]["uuid"], run_id(&out).as_str());
    assert_eq!(stored[0]["run"]["complete"], true);
    assert_eq!(
        stored[0]["results"].as_array().unwrap().len(),
        result_files(&out)
    );
}

#[test]
fn a_bench_back_during_the_wait_at_the_end_gets_the_run() {
    let Some(server) = test_support::postgres::private() else {
        return;
    };
    let db = server.new_database();
    server.stop().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("review");
    let (mut child, mut lines) = spawn(suite(&db, &out, &["--quick", "--only", "corners"]));
    lines.wait_for("trying again for up to 60 s", 60);
    server.start().unwrap();
    let status = exit_within(&mut child, 60);
    let t = lines.rest();
    assert!(status.success(), "{t}");
    assert!(t.contains("stored in the Bench as run 1"), "{t}");
    assert!(!t.contains("not stored"), "{t}");
    let stored = stored_runs(&db);
    assert_eq!(stored.len(), 1, "{stored:?}");
    assert_eq!(stored[0]["run"]["complete"], true);
}

#[test]
fn a_bench_gone_for_good_leaves_the_results_and_the_push_hint_in_bounded_time() {
    let Some(server) = test_support::postgres::private() else {
        return;
    };
    let db = server.new_database();
    server.stop().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("review");
    let started = Instant::now();
    let mut c = suite(&db, &out, &["--quick", "--only", "corners"]);
    c.args(["--store-wait", "3"]);
    let (mut child, lines) = spawn(c);
    // Bounded: it ends by itself (the 120 s only turns a wait without end into a failure;
    // how long the suite takes is the machine's business) ...
    let status = exit_within(&mut child, 120);
    let took = started.elapsed();
    let t = lines.rest();
    assert!(status.success(), "the measurements succeeded: {t}");
    // ... after the wait it says, and no less: a slower machine only makes it longer.
    assert!(t.contains("trying again for up to 3 s"), "{t}");
    assert!(took >= Duration::from_secs(3), "waited: {took:?}");
    assert!(t.contains("warning: not stored in the Bench"), "{t}");
    let push = format!("`ssdlab bench push {}`", out.display());
    assert!(t.contains(&push), "{t}");
    let rec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("suite.json")).unwrap()).unwrap();
    assert_eq!(rec["complete"], true);
    assert!(result_files(&out) > 0);

    // Pushed once the server is back: stored, complete, and once however often.
    server.start().unwrap();
    for again in [false, true] {
        let o = ssdlab()
            .env("SSDLAB_DB", &db)
            .args(["bench", "push"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
        assert_eq!(again, text(&o).contains("already stored"), "{}", text(&o));
    }
    let stored = stored_runs(&db);
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0]["run"]["complete"], true);
}

#[test]
fn ctrl_c_ends_the_wait_for_the_bench_and_leaves_the_push_hint() {
    // No server at all: a socket directory with no socket in it.
    let dir = tempfile::tempdir().unwrap();
    let db = format!("postgres://ssdlab@/bench?host={}", dir.path().display());
    let out = dir.path().join("review");
    // A wait of a day: only Ctrl-C ends it within exit_within's 60 s hang guard, however
    // slow the machine (instead of timing how soon after Ctrl-C the suite ended).
    let mut c = suite(&db, &out, &["--quick", "--only", "corners"]);
    c.args(["--store-wait", "86400"]);
    let (mut child, mut lines) = spawn(c);
    lines.wait_for("Ctrl-C stops waiting", 120);
    assert!(
        lines.text().contains("trying again for up to 86"),
        "{}",
        lines.text()
    );
    signal(&child, "INT");
    let status = exit_within(&mut child, 60);
    let t = lines.rest();
    assert_eq!(status.code(), Some(0), "the suite itself completed: {t}");
    let push = format!("`ssdlab bench push {}`", out.display());
    assert!(
        t.contains("warning: not stored in the Bench") && t.contains(&push),
        "{t}"
    );
}

#[test]
fn several_drives_each_store_their_own_run_as_they_go() {
    let Some(server) = test_support::postgres::shared() else {
        return;
    };
    let db = server.new_database();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("reviews");
    let o = ssdlab()
        .env("SSDLAB_DB", &db)
        .args([
            "suite",
            "--target",
            "sim:default",
            "--target",
            "sim:default,op=25%",
        ])
        .args(["--quick", "--only", "transfer-sweep", "--only", "corners"])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    for drive in ["sim:default:", "sim:default,op=25%:"] {
        assert!(
            t.lines()
                .any(|l| l.starts_with(drive) && l.contains("stored in the Bench as run")),
            "{drive} stored after its first step: {t}"
        );
    }
    let stored = stored_runs(&db);
    assert_eq!(stored.len(), 2, "{stored:?}");
    for name in ["sim_default", "sim_default_op_25"] {
        let drive = out.join(name);
        let run = stored
            .iter()
            .find(|r| r["run"]["uuid"] == run_id(&drive).as_str())
            .unwrap_or_else(|| panic!("{name}'s run: {stored:?}"));
        assert_eq!(run["run"]["complete"], true);
        assert_eq!(
            run["results"].as_array().unwrap().len(),
            result_files(&drive)
        );
    }
}
