//! The Bench from the command line: suites store themselves (two at once lose nothing),
//! results directories import once, drives compare side by side, annotate, export, remove;
//! a damaged database is refused and left as it was.

use crate::common::*;

use std::path::Path;

fn bench(db: &Path, args: &[&str]) -> std::process::Output {
    ssdlab()
        .env("SSDLAB_DB", db)
        .arg("bench")
        .args(args)
        .output()
        .unwrap()
}

/// A quick suite on a simulated drive, storing into `db`.
fn suite(db: &Path, target: &str, out: &Path) -> std::process::Command {
    let mut c = ssdlab();
    c.env("SSDLAB_DB", db)
        .args(["suite", "--target", target, "--quick", "-q"])
        .args(["--only", "seq-incompressible", "--only", "transfer-sweep"])
        .arg("--out")
        .arg(out);
    c
}

#[test]
fn suites_store_themselves_and_compare_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));

    // Two processes storing suites at the same time.
    let first = suite(&db, "sim:default", &a).spawn().unwrap();
    let second = suite(&db, "sim:default,op=25", &b).spawn().unwrap();
    for child in [first, second] {
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", text(&o));
    }
    let export = bench(&db, &["export"]);
    assert!(export.status.success(), "{}", text(&export));
    let all: serde_json::Value = serde_json::from_slice(&export.stdout).unwrap();
    let runs = all["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2, "both runs stored");
    let mut counts: Vec<usize> = runs
        .iter()
        .map(|r| r["results"].as_array().unwrap().len())
        .collect();
    counts.sort();
    let mut expected = vec![result_files(&a), result_files(&b)];
    expected.sort();
    assert_eq!(counts, expected, "every result of both runs");
    assert_eq!(all["drives"].as_array().unwrap().len(), 2);

    // Importing a directory already stored changes nothing.
    let o = bench(&db, &["import", a.to_str().unwrap()]);
    assert!(text(&o).contains("already stored as run"), "{}", text(&o));

    // The reviews' table: a column per drive, best values marked.
    // Quick suites deviate from the methodology: compared when asked for.
    let o = bench(
        &db,
        &[
            "compare",
            "1",
            "2",
            "--test",
            "seq-incompressible",
            "--include-deviating",
        ],
    );
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(
        t.contains("seq-incompressible-write") && t.contains('*'),
        "{t}"
    );
    assert!(
        !t.contains("transfer-sweep"),
        "--test limits the tables: {t}"
    );
    let o = bench(&db, &["compare", "no such drive"]);
    assert!(
        !o.status.success() && text(&o).contains("bench list"),
        "{}",
        text(&o)
    );

    // A price gives the price per GB (the default preset holds 8 GB... in decimal units).
    let o = bench(
        &db,
        &[
            "annotate",
            "1",
            "--price",
            "80",
            "--controller",
            "SandForce",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let list = text(&bench(&db, &["list"]));
    assert!(
        list.contains("$80.00") && list.contains("SandForce"),
        "{list}"
    );

    let csv = bench(&db, &["export", "--format", "csv", "--run", "1"]);
    let lines = String::from_utf8(csv.stdout).unwrap();
    let rows = lines.lines().count() - 1;
    assert_eq!(
        rows,
        runs.iter().find(|r| r["run"]["id"] == 1).unwrap()["results"]
            .as_array()
            .unwrap()
            .len()
    );

    let show = bench(&db, &["show", "2"]);
    assert!(
        show.status.success() && text(&show).contains("MB/s"),
        "{}",
        text(&show)
    );

    assert!(bench(&db, &["rm", "1"]).status.success());
    let o = bench(&db, &["show", "1"]);
    assert!(
        !o.status.success() && text(&o).contains("no run 1"),
        "{}",
        text(&o)
    );
    assert_eq!(text(&bench(&db, &["list"])).matches("suite").count(), 1);

    // A fresh database takes the directory back.
    let other = dir.path().join("other.db");
    let o = bench(
        &other,
        &["import", a.to_str().unwrap(), b.to_str().unwrap()],
    );
    assert_eq!(text(&o).matches("stored as run").count(), 2, "{}", text(&o));
}

#[test]
fn a_damaged_database_is_refused_untouched_and_runs_still_keep_their_results() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    let garbage = b"this is not a database, but someone's notes\n".repeat(200);
    std::fs::write(&db, &garbage).unwrap();

    let o = bench(&db, &["list"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("not an ssdlab Bench database"),
        "{}",
        text(&o)
    );

    let out = dir.path().join("run");
    let o = ssdlab()
        .env("SSDLAB_DB", &db)
        .args([
            "run",
            "seq-write",
            "--target",
            "sim:default",
            "--duration",
            "2",
            "-q",
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(
        t.contains("not stored in the Bench") && t.contains("bench push"),
        "{t}"
    );
    assert!(out.join("seq-write.json").exists());
    assert_eq!(std::fs::read(&db).unwrap(), garbage, "never modified");

    // --no-store does not even look.
    let o = ssdlab()
        .env("SSDLAB_DB", &db)
        .args([
            "run",
            "seq-write",
            "--target",
            "sim:default",
            "--duration",
            "1",
            "-q",
            "--no-store",
        ])
        .arg("--out")
        .arg(dir.path().join("run2"))
        .output()
        .unwrap();
    assert!(
        o.status.success() && !text(&o).contains("Bench"),
        "{}",
        text(&o)
    );
}

#[test]
fn import_takes_results_missing_later_fields_and_refuses_newer_ones() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    let out = dir.path().join("run");
    let o = ssdlab()
        .args([
            "run",
            "seq-write",
            "--target",
            "sim:default",
            "--duration",
            "2",
            "-q",
            "--no-store",
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let path = out.join("seq-write.json");
    let mut r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    // As an earlier ssdlab wrote it: without the fields added since the first schema.
    for later in [
        "variant",
        "deviations",
        "preconditioning",
        "points",
        "analysis",
    ] {
        r.as_object_mut().unwrap().remove(later);
    }
    std::fs::write(&path, r.to_string()).unwrap();
    let o = bench(&db, &["import", out.to_str().unwrap()]);
    assert!(
        o.status.success() && text(&o).contains("stored as run 1"),
        "{}",
        text(&o)
    );

    r["schema_version"] = 99.into();
    std::fs::write(&path, r.to_string()).unwrap();
    let o = ssdlab()
        .env("SSDLAB_DB", dir.path().join("other.db"))
        .args(["bench", "import"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(text(&o).contains("newer than this ssdlab"), "{}", text(&o));
}

/// `run random-write` on the default simulated drive with a seed, storing into `db`.
fn random_write(db: &Path, seed: u32, out: &Path) -> std::process::Command {
    let mut c = ssdlab();
    c.env("SSDLAB_DB", db)
        .args(["run", "random-write", "--target", "sim:default"])
        .args(["--duration", "5", "--seed", &seed.to_string(), "-q"])
        .arg("--out")
        .arg(out);
    c
}

fn stored_runs(db: &Path) -> Vec<serde_json::Value> {
    let export = bench(db, &["export"]);
    assert!(export.status.success(), "{}", text(&export));
    let all: serde_json::Value = serde_json::from_slice(&export.stdout).unwrap();
    all["runs"].as_array().unwrap().clone()
}

#[test]
fn runs_started_in_the_same_second_are_all_stored_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    let outs: Vec<_> = (0..16).map(|i| dir.path().join(format!("r{i}"))).collect();
    // Eight at once, then eight in a row (each takes a fraction of a second).
    let children: Vec<_> = (0..8)
        .map(|i| random_write(&db, i, &outs[i as usize]).spawn().unwrap())
        .collect();
    for child in children {
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", text(&o));
    }
    for i in 8..16 {
        let o = random_write(&db, i, &outs[i as usize]).output().unwrap();
        assert!(o.status.success(), "{}", text(&o));
    }
    let runs = stored_runs(&db);
    assert_eq!(runs.len(), 16, "every run stored");
    // Each run is its directory's: the identity written as it started, in its result too.
    for out in &outs {
        let id = std::fs::read_to_string(out.join("run-id")).unwrap();
        let id = id.trim();
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("random-write.json")).unwrap())
                .unwrap();
        assert_eq!(r["run_id"], id);
        let stored: Vec<_> = runs.iter().filter(|r| r["run"]["uuid"] == id).collect();
        assert_eq!(stored.len(), 1, "run {id} stored once");
        assert_eq!(
            stored[0]["results"][0]["parameters"], r["parameters"],
            "with its own results"
        );
    }
    // Importing each directory again stores nothing new.
    for out in &outs {
        let o = bench(&db, &["import", out.to_str().unwrap()]);
        assert!(
            o.status.success() && text(&o).contains("already stored as run"),
            "{}",
            text(&o)
        );
    }
    assert_eq!(stored_runs(&db).len(), 16);
}

#[test]
fn a_suite_of_an_earlier_version_resumed_stays_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    let out = dir.path().join("suite");
    let o = suite(&db, "sim:default", &out)
        .arg("--no-store")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    // As an earlier ssdlab left it: no run identity anywhere, interrupted in its second step.
    std::fs::remove_file(out.join("run-id")).unwrap();
    for e in std::fs::read_dir(&out).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "json") {
            let mut v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            v.as_object_mut().unwrap().remove("run_id");
            if p.ends_with("suite.json") {
                v["steps"][1]["status"] = "incomplete".into();
                v["complete"] = false.into();
            }
            std::fs::write(&p, v.to_string()).unwrap();
        }
    }
    let o = bench(&db, &["import", out.to_str().unwrap()]);
    assert!(text(&o).contains("stored as run 1"), "{}", text(&o));

    let o = ssdlab()
        .env("SSDLAB_DB", &db)
        .args([
            "suite",
            "-q",
            "--only",
            "seq-incompressible",
            "--only",
            "transfer-sweep",
        ])
        .arg("--resume")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let runs = stored_runs(&db);
    assert_eq!(runs.len(), 1, "the resumed suite updated its run");
    assert_eq!(runs[0]["run"]["complete"], true);
    let rec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("suite.json")).unwrap()).unwrap();
    assert_eq!(
        rec["run_id"], runs[0]["run"]["uuid"],
        "and carries its identity on"
    );
    let o = bench(&db, &["import", out.to_str().unwrap()]);
    assert!(text(&o).contains("already stored as run 1"), "{}", text(&o));
}

/// Run `c`, killing it after `secs`: `None` if it had to be killed.
fn output_within(c: &mut std::process::Command, secs: u64) -> Option<std::process::Output> {
    use std::process::Stdio;
    let mut child = c
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while std::time::Instant::now() < deadline {
        if child.try_wait().unwrap().is_some() {
            return Some(child.wait_with_output().unwrap());
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// A results directory of one `seq-write` run (not stored), and its result as JSON.
fn one_result(dir: &Path) -> (std::path::PathBuf, serde_json::Value) {
    let out = dir.join("base");
    let o = ssdlab()
        .args([
            "run",
            "seq-write",
            "--target",
            "sim:default",
            "--duration",
            "1",
        ])
        .args(["-q", "--no-store", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let json = out.join("seq-write.json");
    let v = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    (out, v)
}

#[test]
fn import_refuses_what_is_not_a_result_without_hanging_or_reading_forever() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    let (_, good) = one_result(dir.path());
    let case = |name: &str| {
        let d = dir.path().join(name);
        std::fs::create_dir_all(&d).unwrap();
        d.join("seq-write.json")
    };
    let edited = |name: &str, edit: &dyn Fn(&mut serde_json::Value)| {
        let mut v = good.clone();
        edit(&mut v);
        std::fs::write(case(name), v.to_string()).unwrap();
    };
    std::os::unix::fs::symlink("/dev/zero", case("zero")).unwrap();
    let fifo = case("fifo");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    std::fs::File::create(case("huge"))
        .unwrap()
        .set_len((256 << 20) + 1)
        .unwrap();
    edited("negative", &|v| v["summary"]["iops"] = (-5.0).into());
    edited("nan-ish", &|v| v["per_second"][0]["mbps"] = (-0.5).into());
    edited("date", &|v| v["started_at"] = "yesterday".into());
    edited("month", &|v| {
        v["started_at"] = "2026-13-01T00:00:00Z".into()
    });
    edited("name", &|v| v["test"] = "../../etc/passwd".into());
    edited("variant", &|v| v["variant"] = "a/b".into());
    edited("run-id", &|v| v["run_id"] = "not-a-uuid".into());

    for (name, says) in [
        ("zero", "not a regular file"),
        ("fifo", "not a regular file"),
        ("huge", "longer than 256 MiB"),
        ("negative", "summary.iops is -5: a measured figure"),
        ("nan-ish", "per_second[0].mbps is -0.5"),
        ("date", "started_at \"yesterday\" is not a UTC time"),
        ("month", "is not a UTC time"),
        ("name", "unknown test '../../etc/passwd'"),
        ("variant", "variant \"a/b\" is not a test's name"),
        ("run-id", "is not a UUID"),
    ] {
        let d = dir.path().join(name);
        let o = output_within(
            ssdlab()
                .env("SSDLAB_DB", &db)
                .args(["bench", "import"])
                .arg(&d),
            30,
        )
        .unwrap_or_else(|| panic!("{name}: bench import did not finish"));
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{name}: {t}");
        assert!(t.contains(says), "{name}: {t}");
        assert!(
            t.contains("seq-write.json") && !t.contains("panicked"),
            "{name}: {t}"
        );
    }
    assert!(stored_runs(&db).is_empty(), "nothing was stored");
}

#[test]
fn bench_output_never_prints_terminal_escapes_from_imported_text() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    let (out, mut v) = one_result(dir.path());
    v["label"] = "evil \u{1b}]0;pwned\u{7} label \u{1b}[2J".into();
    v["target"]["model"] = "Drive \u{1b}[31mRED\u{9b}1m \u{202e}txt.exe".into();
    v["target"]["path"] = "sim:\u{1b}[8m".into();
    v["deviations"] = serde_json::json!(["\u{1b}[1A\u{1b}[2K"]);
    std::fs::write(out.join("seq-write.json"), v.to_string()).unwrap();
    let o = bench(&db, &["import", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(bench(&db, &["annotate", "1", "--nand", "TLC\u{1b}[5m"])
        .status
        .success());
    for args in [
        &["list"][..],
        &["show", "1"],
        &["compare", "1", "--include-deviating"],
        &["export", "--format", "csv"],
        &["annotate", "1", "--notes", "x"],
    ] {
        let o = bench(&db, args);
        assert!(o.status.success(), "{args:?}: {}", text(&o));
        let bytes = [&o.stdout[..], &o.stderr[..]].concat();
        let raw = String::from_utf8_lossy(&bytes);
        assert!(
            !raw.contains(['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}']),
            "{args:?} printed control characters raw: {raw:?}"
        );
        assert!(
            raw.contains("\\u{1b}"),
            "{args:?} shows them escaped: {raw}"
        );
    }
}

#[test]
fn prices_are_bounded_and_printed_briefly() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    let (out, _) = one_result(dir.path());
    assert!(bench(&db, &["import", out.to_str().unwrap()])
        .status
        .success());
    let o = bench(&db, &["annotate", "1", "--price", "1e308"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(
        t.contains("--price 1e308") && t.contains("from 0 to 10000000"),
        "{t}"
    );
    assert!(t.len() < 300, "no 300-digit numbers: {t}");
    let o = bench(&db, &["annotate", "1", "--price", "9999999.5"]);
    assert!(o.status.success(), "{}", text(&o));
    let list = text(&bench(&db, &["list"]));
    assert!(list.contains("$9999999.50"), "{list}");
}

#[test]
fn a_database_failing_its_integrity_check_is_never_written() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    for seed in 0..6 {
        let o = random_write(&db, seed, &dir.path().join(format!("r{seed}")))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
    }
    // 8 KiB of random bytes in the middle, as a failing disk or a stray write leaves it.
    let mut bytes = std::fs::read(&db).unwrap();
    assert!(
        !db.with_extension("db-wal").exists()
            || std::fs::metadata(db.with_extension("db-wal"))
                .unwrap()
                .len()
                == 0
    );
    let mid = (bytes.len() / 2) & !4095;
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for b in &mut bytes[mid..mid + 8192] {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    std::fs::write(&db, &bytes).unwrap();

    let fresh = dir.path().join("fresh");
    let o = random_write(&db, 99, &fresh).output().unwrap();
    let t = text(&o);
    assert!(o.status.success(), "the run itself succeeds: {t}");
    assert!(
        t.contains("not stored in the Bench") && t.contains("damaged"),
        "{t}"
    );
    for args in [
        &["import", fresh.to_str().unwrap()][..],
        &["annotate", "1", "--price", "10"],
        &["rm", "1"],
    ] {
        let o = bench(&db, args);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {t}");
        assert!(
            t.contains("damaged") && t.contains(db.to_str().unwrap()) && t.contains(".recover"),
            "{args:?}: {t}"
        );
    }
    assert_eq!(std::fs::read(&db).unwrap(), bytes, "byte-identical");
}

#[test]
fn suites_started_together_on_one_target_are_each_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    let outs: Vec<_> = (0..3).map(|i| dir.path().join(format!("s{i}"))).collect();
    let children: Vec<_> = outs
        .iter()
        .map(|out| {
            let mut c = ssdlab();
            c.env("SSDLAB_DB", &db)
                .args(["suite", "--target", "sim:default", "--quick", "-q"])
                .args(["--only", "seq-incompressible", "--out"])
                .arg(out);
            c.spawn().unwrap()
        })
        .collect();
    for child in children {
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", text(&o));
    }
    let runs = stored_runs(&db);
    assert_eq!(runs.len(), 3, "three suites, three runs");
    for out in &outs {
        let rec: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("suite.json")).unwrap())
                .unwrap();
        assert_eq!(
            runs.iter()
                .filter(|r| r["run"]["uuid"] == rec["run_id"])
                .count(),
            1
        );
    }
}

#[test]
fn a_database_url_of_an_unknown_scheme_is_an_error_not_a_file() {
    let dir = tempfile::tempdir().unwrap();
    for db in ["mysql://user@host:5432/bench", "sqlite:"] {
        let o = ssdlab()
            .current_dir(dir.path())
            .env("SSDLAB_DB", db)
            .args(["bench", "list"])
            .output()
            .unwrap();
        assert!(!o.status.success(), "{db}: {}", text(&o));
        assert!(
            text(&o).contains("scheme") || text(&o).contains("sqlite:PATH"),
            "{db}: {}",
            text(&o)
        );
    }
    let o = ssdlab()
        .current_dir(dir.path())
        .args(["bench", "--db", "mysql://u@h/b", "import", "."])
        .output()
        .unwrap();
    assert!(!o.status.success(), "{}", text(&o));
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing created in the working directory"
    );
}

#[test]
fn a_suite_stores_itself_in_postgresql_and_the_bench_reads_it_there() {
    let Some(server) = test_support::postgres::shared() else {
        return;
    };
    let url = server.new_database();
    let db = Path::new(&url);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("a");
    let o = suite(db, "sim:default", &out).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let export = bench(db, &["export"]);
    assert!(export.status.success(), "{}", text(&export));
    let all: serde_json::Value = serde_json::from_slice(&export.stdout).unwrap();
    let runs = all["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(
        runs[0]["results"].as_array().unwrap().len(),
        result_files(&out)
    );
    // Importing it again stores nothing; list and compare read it.
    let o = bench(db, &["import", out.to_str().unwrap()]);
    assert!(text(&o).contains("already stored as run"), "{}", text(&o));
    let o = bench(db, &["list"]);
    assert!(
        o.status.success() && text(&o).contains("sim"),
        "{}",
        text(&o)
    );
    let o = bench(db, &["compare", "1", "--include-deviating"]);
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn push_stores_what_it_can_reports_each_directory_and_fails_if_any_failed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    let (good, empty) = (dir.path().join("good"), dir.path().join("empty"));
    // Written while the Bench was unreachable: the run stores nowhere.
    let o = random_write(Path::new("mysql://nowhere/x"), 1, &good)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    std::fs::create_dir(&empty).unwrap();
    let args = ["push", empty.to_str().unwrap(), good.to_str().unwrap()];
    let o = bench(&db, &args);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("good: 1 results stored as run 1"), "{t}");
    assert!(
        t.contains("empty: ") && t.contains("holds no ssdlab results"),
        "{t}"
    );
    assert!(t.contains("1 of 2 directories were not stored"), "{t}");
    // Pushed again: stored once. `import` is the same command.
    for command in ["push", "import"] {
        let o = bench(&db, &[command, good.to_str().unwrap()]);
        assert!(o.status.success(), "{}", text(&o));
        assert!(text(&o).contains("already stored as run 1"), "{}", text(&o));
    }
    assert_eq!(stored_runs(&db).len(), 1);
}

/// The acceptance test of `bench copy`: a Bench holding every kind of result (a whole quick
/// suite, a single test, an annotated drive) copied SQLite -> PostgreSQL -> SQLite exports
/// byte for byte as it did, row ids included; copying again adds nothing.
#[test]
fn a_bench_copied_to_postgresql_and_back_exports_byte_for_byte_the_same() {
    let Some(server) = test_support::postgres::shared() else {
        return;
    };
    let url = server.new_database();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    let o = ssdlab()
        .env("SSDLAB_DB", &db)
        .args(["suite", "--target", "sim:default", "--quick", "-q", "--out"])
        .arg(dir.path().join("suite"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let o = random_write(&db, 7, &dir.path().join("one"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let o = bench(&db, &["annotate", "1", "--price", "120", "--nand", "TLC"]);
    assert!(o.status.success(), "{}", text(&o));

    let copy = |from: &str, to: &str| {
        let o = ssdlab()
            .args(["bench", "copy", "--from", from, "--to", to])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
        text(&o)
    };
    let sqlite = format!("sqlite:{}", db.display());
    let t = copy(&sqlite, &url);
    assert!(t.contains("2 runs copied, 0 already there"), "{t}");
    assert!(t.contains("copied 2 of 2 runs"), "progress on stderr: {t}");
    let t = copy(&sqlite, &url);
    assert!(t.contains("0 runs copied, 2 already there"), "{t}");
    let back = dir.path().join("back.db");
    copy(&url, back.to_str().unwrap());

    let export = |db: &Path| {
        let o = bench(db, &["export", "--format", "json"]);
        assert!(o.status.success(), "{}", text(&o));
        o.stdout
    };
    let original = export(&db);
    let all: serde_json::Value = serde_json::from_slice(&original).unwrap();
    let results = all["runs"][1]["results"].as_array().unwrap().len()
        + all["runs"][0]["results"].as_array().unwrap().len();
    assert_eq!(results, result_files(&dir.path().join("suite")) + 1);
    assert_eq!(
        export(Path::new(&url)),
        original,
        "PostgreSQL holds the same"
    );
    assert_eq!(export(&back), original, "and back in SQLite, byte for byte");
}

/// Every file under `dir`, read.
fn files_under(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let path = e.path();
        match path.is_dir() {
            true => out.extend(files_under(&path)),
            false => out.push((path.clone(), std::fs::read(&path).unwrap())),
        }
    }
    out
}

/// A password in the Bench's connection string, in any of its forms, or in PGPASSWORD, is
/// never printed: not where a run says it was stored, not by `bench list`, not in an error,
/// not in the results.
#[test]
fn a_password_in_the_bench_location_is_never_printed() {
    let Some(server) = test_support::postgres::shared() else {
        return;
    };
    let url = server.new_database();
    let rest = url.strip_prefix("postgres://ssdlab@/").unwrap();
    let (db, host) = rest.split_once("?host=").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let secret = |s: &[u8]| String::from_utf8_lossy(s).contains("S3cret");
    for (i, with_password) in [
        format!("postgres:///{db}?host={host}&user=ssdlab&password=S3cretQ"),
        format!("postgres:///{db}?host={host}&user=ssdlab&pass%77ord=S3cretR"),
        format!("postgres://ssdlab:S3cretU@/{db}?host={host}"),
        format!("host={host} dbname={db} user=ssdlab password=S3cretW"),
    ]
    .iter()
    .enumerate()
    {
        let out = dir.path().join(format!("run-{i}"));
        // Not quiet: it says where it stored the run.
        let o = ssdlab()
            .env("SSDLAB_DB", with_password)
            .env("PGPASSWORD", "S3cretP")
            .args([
                "run",
                "random-write",
                "--target",
                "sim:default",
                "--duration",
                "5",
            ])
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        let t = text(&o);
        assert!(o.status.success(), "{t}");
        assert!(t.contains("stored in the Bench as run"), "{t}");
        assert!(!secret(t.as_bytes()), "{with_password}: {t}");
        for (path, bytes) in files_under(&out) {
            assert!(!secret(&bytes), "{}", path.display());
        }
        let o = bench(Path::new(with_password), &["list"]);
        assert!(
            o.status.success() && !secret(text(&o).as_bytes()),
            "{}",
            text(&o)
        );
        for help in [&["bench", "--help"][..], &["run", "random-write", "--help"]] {
            let o = ssdlab()
                .env("SSDLAB_DB", with_password)
                .args(help)
                .output()
                .unwrap();
            assert!(
                o.status.success() && !secret(text(&o).as_bytes()),
                "{}",
                text(&o)
            );
        }
    }
    let o = bench(
        Path::new(&format!(
            "postgres:///no_such_database?host={host}&user=ssdlab&password=S3cretE"
        )),
        &["list"],
    );
    assert!(!o.status.success(), "{}", text(&o));
    assert!(!secret(text(&o).as_bytes()), "{}", text(&o));
}
