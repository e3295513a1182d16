use serde_json::json;

use super::*;
use suite::result::TestResult;

// The fixtures the integration tests share (`result`, `run`): one file, since those tests
// cannot see this crate's `#[cfg(test)]` items.
#[path = "../../tests/bench/common.rs"]
mod common;
pub(crate) use common::{result, run};

fn count(b: &Bench, table: &str) -> i64 {
    b.conn
        .borrow_mut()
        .query_one(&format!("SELECT count(*) FROM {table}"), &[])
        .unwrap()
        .get(0)
        .unwrap()
}

fn a_new_database_gets_the_whole_schema(db: &Db) {
    let path = db.path_in("sub");
    let b = Bench::open(&path).unwrap();
    assert_eq!(b.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(count(&b, "drive_specs"), 0);
    if !b.is_postgres() {
        let mode: String = b
            .sqlite()
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
    }
    drop(b);
    // Opening again changes nothing.
    assert_eq!(
        Bench::open(&path).unwrap().schema_version().unwrap(),
        SCHEMA_VERSION
    );
}

#[test]
fn a_database_of_an_older_schema_is_migrated_with_its_data() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.db");
    // What a version before run identities stored: its runs and results through its own
    // tables (every migration since is applied to them).
    let old = Bench::create_at_version(&path, schema::RUN_IDS - 1).unwrap();
    let r = result(
        "seq-write",
        None,
        "old drive",
        "2026-01-01T00:00:00Z",
        300.0,
    );
    old.execute_batch(&format!(
        "INSERT INTO drives VALUES (1, 'sim|old', 'sim', 'old drive', 'S', 'F', NULL, 8000000000, '{{}}');
         INSERT INTO systems VALUES (1, 'k', 'h', 'cpu', 2, 1, '6', 'linux');
         INSERT INTO runs VALUES (1, 'key', 1, 1, 'test', 'sim:old', '2026-01-01T00:00:00Z', '0.0.9', 0, 1, NULL, 'now');
         INSERT INTO results VALUES (1, 1, 'seq-write', NULL, 'l', '2026-01-01T00:00:00Z', 1, 1.0, 300.0, '{{}}', '{{}}', '{}');",
        serde_json::to_string(&r).unwrap().replace('\'', "''")
    ))
    .unwrap();
    drop(old);

    let mut b = Bench::open(&path).unwrap();
    assert_eq!(b.schema_version().unwrap(), SCHEMA_VERSION);
    let drives = b.drives().unwrap();
    assert_eq!(drives.len(), 1);
    assert_eq!(drives[0].name, "old drive");
    assert_eq!(drives[0].runs, 1);
    assert_eq!(b.results_of_run(1).unwrap()[0].result, r);
    // And the new schema's table works.
    b.annotate(
        1,
        &Specs {
            price_usd: Some(80.0),
            ..Default::default()
        },
    )
    .unwrap();
    assert!((b.drive(1).unwrap().unwrap().price_per_gb().unwrap() - 10.0).abs() < 1e-12);
}

#[test]
fn a_newer_or_foreign_database_is_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let newer = dir.path().join("newer.db");
    {
        let c = rusqlite::Connection::open(&newer).unwrap();
        c.execute_batch("CREATE TABLE runs (id INTEGER); PRAGMA user_version = 99;")
            .unwrap();
    }
    let before = std::fs::read(&newer).unwrap();
    let e = Bench::open(&newer).err().expect("refused");
    assert!(matches!(e, BenchError::Newer { found: 99, .. }), "{e}");
    assert!(e.to_string().contains("newer ssdlab"), "{e}");
    assert!(Bench::open_read_only(&newer).is_err());
    assert_eq!(std::fs::read(&newer).unwrap(), before);

    let garbage = dir.path().join("garbage.db");
    let bytes: Vec<u8> = (0..8192u32).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(&garbage, &bytes).unwrap();
    let e = Bench::open(&garbage).err().expect("refused");
    assert!(matches!(e, BenchError::NotADatabase { .. }), "{e}");
    assert!(e.to_string().contains("left untouched"), "{e}");
    assert_eq!(std::fs::read(&garbage).unwrap(), bytes);

    let stranger = dir.path().join("stranger.db");
    rusqlite::Connection::open(&stranger)
        .unwrap()
        .execute_batch("CREATE TABLE t (x); PRAGMA user_version = 1;")
        .unwrap();
    assert!(matches!(
        Bench::open(&stranger),
        Err(BenchError::NotADatabase { .. })
    ));

    let missing = dir.path().join("missing.db");
    assert!(matches!(
        Bench::open_read_only(&missing),
        Err(BenchError::Missing { .. })
    ));
    assert!(!missing.exists(), "reading never creates a database");
}

fn runs_are_stored_once_and_resumed_runs_replace_their_results(db: &Db) {
    let mut b = Bench::open(&db.path()).unwrap();
    let t0 = "2026-01-01T00:00:00Z";
    let mut first = run("a", t0, vec![result("seq-write", None, "a", t0, 300.0)]);
    first.complete = false;
    let id = match b.store(&first).unwrap() {
        Stored::New(id) => id,
        other => panic!("{other:?}"),
    };
    assert_eq!(b.store(&first).unwrap(), Stored::Already(id));
    // The suite resumed and finished: same run, more results.
    let mut resumed = first.clone();
    resumed.complete = true;
    resumed
        .results
        .push(result("seq-read", None, "a", "2026-01-01T00:01:00Z", 500.0));
    assert_eq!(b.store(&resumed).unwrap(), Stored::Updated(id));
    let row = b.run(id).unwrap().unwrap();
    assert!(row.complete);
    assert_eq!(row.results, 2);
    assert_eq!((count(&b, "runs"), count(&b, "results")), (1, 2));
    assert_eq!(count(&b, "series"), 4, "two per-second points per result");

    // A later run of the same drive: one drive, and its newest results are compared.
    let t1 = "2026-02-01T00:00:00Z";
    b.store(&run(
        "a",
        t1,
        vec![result("seq-write", None, "a", t1, 310.0)],
    ))
    .unwrap();
    let drives = b.drives().unwrap();
    assert_eq!(drives.len(), 1);
    assert_eq!(drives[0].runs, 2);
    let latest = b.latest_results(drives[0].id).unwrap();
    let mbps: Vec<f64> = latest.iter().map(|s| s.result.summary.mbps).collect();
    assert_eq!(mbps, vec![500.0, 310.0]);

    // Removing the runs removes the drive with the last of them.
    assert!(b.remove_run(id).unwrap());
    assert!(!b.remove_run(id).unwrap());
    assert_eq!(b.drives().unwrap().len(), 1);
    let last = b.runs().unwrap()[0].id;
    b.remove_run(last).unwrap();
    assert!(b.drives().unwrap().is_empty());
    assert_eq!((count(&b, "results"), count(&b, "series")), (0, 0));
}

/// A suite stores its run after every step: the results it stored before keep their rows,
/// and so the ids pages link to; only a result that changed is replaced.
fn a_result_keeps_its_id_while_its_run_is_stored_again(db: &Db) {
    let mut b = Bench::open(&db.path()).unwrap();
    let t0 = "2026-01-01T00:00:00Z";
    let mut suite = run("a", t0, vec![result("seq-write", None, "a", t0, 300.0)]);
    suite.complete = false;
    let id = b.store(&suite).unwrap().id();
    // Another bench's run in between, so a freed id is not simply handed out again.
    b.store(&run("b", t0, vec![result("seq-write", None, "b", t0, 1.0)]))
        .unwrap();
    let ids =
        |b: &Bench| -> Vec<i64> { b.results_of_run(id).unwrap().iter().map(|r| r.id).collect() };
    let first = ids(&b);
    let t1 = "2026-01-01T00:01:00Z";
    suite.results.push(result("seq-read", None, "a", t1, 500.0));
    assert_eq!(b.store(&suite).unwrap(), Stored::Updated(id));
    let second = ids(&b);
    assert_eq!(second.len(), 2);
    assert_eq!(second[0], first[0], "the first step's result keeps its id");
    // The second step was redone (an incomplete result completed): it alone is replaced.
    suite.results[1].summary.mbps = 510.0;
    suite.complete = true;
    assert_eq!(b.store(&suite).unwrap(), Stored::Updated(id));
    let third = ids(&b);
    assert_eq!(third[0], first[0]);
    assert_eq!(
        b.result(third[1]).unwrap().unwrap().result.summary.mbps,
        510.0
    );
    assert_eq!((count(&b, "results"), count(&b, "series")), (3, 6));
    assert_eq!(b.store(&suite).unwrap(), Stored::Already(id));
    assert_eq!(ids(&b), third);
}

fn annotations_set_what_is_given_and_empty_text_clears(db: &Db) {
    let mut b = Bench::open(&db.path()).unwrap();
    let t = "2026-01-01T00:00:00Z";
    b.store(&run(
        "m",
        t,
        vec![result("seq-write", None, "Model M", t, 1.0)],
    ))
    .unwrap();
    let id = b.drives().unwrap()[0].id;
    let set = |name: Option<&str>, controller: Option<&str>| Specs {
        name: name.map(Into::into),
        controller: controller.map(Into::into),
        ..Default::default()
    };
    b.annotate(id, &set(Some("My drive"), Some("Marvell")))
        .unwrap();
    b.annotate(
        id,
        &Specs {
            price_usd: Some(229.99),
            ..Default::default()
        },
    )
    .unwrap();
    let d = b.drive(id).unwrap().unwrap();
    assert_eq!(
        (d.name.as_str(), d.specs.controller.as_deref()),
        ("My drive", Some("Marvell"))
    );
    assert_eq!(d.specs.price_usd, Some(229.99));
    b.annotate(id, &set(Some(""), None)).unwrap();
    let d = b.drive(id).unwrap().unwrap();
    assert_eq!(d.name, "Model M", "an empty name falls back to the model");
    assert_eq!(d.specs.controller.as_deref(), Some("Marvell"));
    assert!(b.annotate(id + 100, &set(Some("x"), None)).is_err());
    assert!(b.find_drives(&["nothing like it".into()]).is_err());
    assert_eq!(b.find_drives(&["model m".into()]).unwrap()[0].id, id);
}

fn concurrent_writers_lose_nothing(db: &Db) {
    let path = db.path();
    let writers: Vec<_> = ["a", "b", "c"]
        .into_iter()
        .map(|model| {
            let path = path.clone();
            std::thread::spawn(move || {
                // Each writer opens its own connection, as separate processes do.
                let mut b = Bench::open(&path).unwrap();
                for i in 0..25 {
                    let t = format!("2026-01-01T00:00:{i:02}Z");
                    let results = (0..4)
                        .map(|k| result("custom", Some(&format!("t{k}")), model, &t, k as f64))
                        .collect();
                    assert!(matches!(
                        b.store(&run(model, &t, results)).unwrap(),
                        Stored::New(_)
                    ));
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let b = Bench::open(&path).unwrap();
    assert_eq!(b.drives().unwrap().len(), 3);
    assert_eq!((count(&b, "runs"), count(&b, "results")), (75, 300));
}

/// The bar: 16 writers storing 50 runs each into PostgreSQL, 4 into SQLite (whose
/// writers take turns), each run twice: every run stored, once. Writers share drives.
fn many_writers_store_every_run_once(db: &Db) {
    let path = db.path();
    let writers = if matches!(db, Db::Postgres(_)) { 16 } else { 4 };
    let handles: Vec<_> = (0..writers)
        .map(|w| {
            let path = path.clone();
            std::thread::spawn(move || {
                let model = format!("m{}", w % 3);
                let mut b = Bench::open(&path).unwrap();
                for i in 0..50 {
                    let t = format!("2026-01-01T00:{:02}:{:02}Z", w, i);
                    let results = (0..2)
                        .map(|k| result("custom", Some(&format!("t{k}")), &model, &t, k as f64))
                        .collect();
                    let r = run(&model, &t, results);
                    let id = match b.store(&r).unwrap() {
                        Stored::New(id) => id,
                        other => panic!("{other:?}"),
                    };
                    assert_eq!(b.store(&r).unwrap(), Stored::Already(id));
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let b = Bench::open(&path).unwrap();
    let runs = b.runs().unwrap();
    assert_eq!(runs.len(), writers * 50);
    let mut uuids: Vec<&str> = runs.iter().map(|r| r.uuid.as_str()).collect();
    uuids.sort();
    uuids.dedup();
    assert_eq!(uuids.len(), writers * 50, "none duplicated");
    assert_eq!(count(&b, "results"), (writers * 100) as i64);
    assert_eq!(b.drives().unwrap().len(), 3);
}

/// A Bench of some runs over many pages, closed (so checkpointed into the one file).
fn filled(path: &std::path::Path) {
    let mut b = Bench::open(path).unwrap();
    for i in 0..40 {
        let t = format!("2026-01-01T00:{:02}:{:02}Z", i / 60, i % 60);
        let results = (0..3)
            .map(|k| result("custom", Some(&format!("t{k}")), "m", &t, k as f64))
            .collect();
        b.store(&run("m", &t, results)).unwrap();
    }
}

/// Overwrite 8 KiB in the middle of a file with (seeded) random bytes; the new contents.
pub(crate) fn damage_middle(path: &std::path::Path) -> Vec<u8> {
    let mut bytes = std::fs::read(path).unwrap();
    let mid = (bytes.len() / 2) & !4095;
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for b in &mut bytes[mid..mid + 8192] {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    std::fs::write(path, &bytes).unwrap();
    bytes
}

#[test]
fn a_database_failing_its_integrity_check_is_refused_before_any_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.db");
    filled(&path);
    let damaged = damage_middle(&path);
    let check: String =
        rusqlite::Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap()
            .query_row("PRAGMA quick_check", [], |r| r.get(0))
            .unwrap_or_else(|e| e.to_string());
    assert_ne!(check, "ok", "the damage is one quick_check sees");

    let e = Bench::open(&path).err().expect("refused");
    assert!(matches!(e, BenchError::Damaged { .. }), "{e}");
    let msg = e.to_string();
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    assert!(msg.contains("damaged") && msg.contains(".recover"), "{msg}");
    assert_eq!(std::fs::read(&path).unwrap(), damaged, "byte-identical");
    let wal = path.with_extension("db-wal");
    assert!(
        std::fs::metadata(&wal).map_or(true, |m| m.len() == 0),
        "nothing written to a WAL either"
    );
}

#[test]
fn a_foreign_sqlite_file_is_never_given_the_benchs_tables() {
    let dir = tempfile::tempdir().unwrap();
    let foreign = dir.path().join("places.sqlite");
    rusqlite::Connection::open(&foreign)
        .unwrap()
        .execute_batch("CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT);")
        .unwrap();
    let before = std::fs::read(&foreign).unwrap();
    for e in [
        Bench::open_read_only(&foreign).err().expect("refused"),
        Bench::open(&foreign).err().expect("refused"),
    ] {
        assert!(matches!(e, BenchError::NotADatabase { .. }), "{e}");
        assert!(e.to_string().contains("another program"), "{e}");
    }
    assert_eq!(std::fs::read(&foreign).unwrap(), before);
    let tables: Vec<String> = rusqlite::Connection::open(&foreign)
        .unwrap()
        .prepare("SELECT name FROM sqlite_master")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert_eq!(tables, ["moz_places"]);

    // An empty file read is no Bench yet, and stays empty.
    let empty = dir.path().join("empty.db");
    std::fs::write(&empty, b"").unwrap();
    assert!(matches!(
        Bench::open_read_only(&empty),
        Err(BenchError::Missing { .. })
    ));
    assert_eq!(std::fs::metadata(&empty).unwrap().len(), 0);
}

/// A single test's run of `seq-write` on drive "a" started at `t`, with seed `seed`.
fn test_run(t: &str, seed: u64, complete: bool) -> RunRecord {
    let mut r = result("seq-write", None, "a", t, 300.0 + seed as f64);
    let suite::result::Parameters::Workload(w) = &mut r.parameters else {
        unreachable!("a seq-write result measures a workload")
    };
    w.seed = seed;
    r.complete = complete;
    RunRecord {
        kind: "test".into(),
        target_spec: "sim:a".into(),
        complete,
        quick: false,
        ..run("a", t, vec![r])
    }
}

fn runs_of_the_same_test_target_and_second_are_kept_apart(db: &Db) {
    let mut b = Bench::open(&db.path()).unwrap();
    let t = "2026-01-01T00:00:00Z";
    let runs: Vec<RunRecord> = (0..8).map(|seed| test_run(t, seed, true)).collect();
    let ids: Vec<i64> = runs
        .iter()
        .map(|r| match b.store(r).unwrap() {
            Stored::New(id) => id,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(count(&b, "runs"), 8);
    for (r, id) in runs.iter().zip(&ids) {
        assert_eq!(b.store(r).unwrap(), Stored::Already(*id));
        let stored = b.results_of_run(*id).unwrap();
        assert_eq!(stored[0].result.parameters, r.results[0].parameters);
    }
    assert_eq!(count(&b, "runs"), 8);
}

fn a_complete_result_is_never_replaced_by_an_incomplete_one(db: &Db) {
    let mut b = Bench::open(&db.path()).unwrap();
    let t = "2026-01-01T00:00:00Z";
    let done = test_run(t, 1, true);
    let id = b.store(&done).unwrap().id();
    // Another run, interrupted, started the same second: a run of its own.
    let other = test_run(t, 1, false);
    assert!(matches!(b.store(&other).unwrap(), Stored::New(i) if i != id));
    // The same run's result turned incomplete (a damaged or edited directory): kept complete.
    let mut worse = done.clone();
    worse.complete = false;
    worse.results[0].complete = false;
    assert_eq!(b.store(&worse).unwrap(), Stored::Already(id));
    let row = b.run(id).unwrap().unwrap();
    assert!(row.complete);
    assert_eq!(b.results_of_run(id).unwrap()[0].result, done.results[0]);
    // And the run may still gain results (a resumed suite).
    let mut more = done.clone();
    more.results
        .push(result("seq-read", None, "a", "2026-01-01T00:01:00Z", 500.0));
    assert_eq!(b.store(&more).unwrap(), Stored::Updated(id));
    assert_eq!(b.run(id).unwrap().unwrap().results, 2);
}

#[test]
fn runs_stored_before_identities_keep_theirs_when_imported_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.db");
    let t = "2026-01-01T00:00:00Z";
    // Two results directories of an earlier ssdlab (no run ids), started the same second:
    // the old Bench kept the first and called the second "already stored".
    let dirs: Vec<std::path::PathBuf> =
        (0..2).map(|i| dir.path().join(format!("run{i}"))).collect();
    for (seed, d) in dirs.iter().enumerate() {
        let r = &test_run(t, seed as u64, true).results[0];
        assert!(r.run_id.is_none());
        suite::results_dir::write_result(d, r).unwrap();
    }
    let first = &suite::results_dir::read_results(&dirs[0]).unwrap()[0];
    let old = Bench::create_at_version(&path, 2).unwrap();
    let source = std::fs::canonicalize(&dirs[0]).unwrap();
    old.execute(
        "INSERT INTO drives VALUES (1, 'sim|sim:a|8000000000', 'sim', 'a', 'SIM-1', '1', NULL, 8000000000, '{}')",
        [],
    )
    .unwrap();
    old.execute(
        "INSERT INTO systems VALUES (1, 'k', 'h', 'cpu', 2, 1, '6', 'linux')",
        [],
    )
    .unwrap();
    old.execute(
        "INSERT INTO runs VALUES (1, 'sim|sim:a|8000000000|sim:a|2026-01-01T00:00:00Z|test|seq-write',
         1, 1, 'test', 'sim:a', '2026-01-01T00:00:00Z', '0.1.0', 0, 1, ?1, 'then')",
        [source.display().to_string()],
    )
    .unwrap();
    old.execute(
        "INSERT INTO results VALUES (1, 1, 'seq-write', NULL, 'l', '2026-01-01T00:00:00Z', 1, 1.0,
         300.0, ?1, '{}', ?2)",
        [
            first.parameters.to_value().to_string(),
            serde_json::to_string(first).unwrap(),
        ],
    )
    .unwrap();
    drop(old);

    let mut b = Bench::open(&path).unwrap();
    let uuid = b.run(1).unwrap().unwrap().uuid;
    assert!(uuid::Uuid::try_parse(&uuid).is_ok(), "{uuid}");
    let again = RunRecord::from_dir(&dirs[0]).unwrap();
    assert_eq!(again.len(), 1);
    assert_eq!(
        again[0].run_id, uuid,
        "the same identity as the migration gave"
    );
    assert_eq!(b.store(&again[0]).unwrap(), Stored::Already(1));
    // The directory the old Bench lost is a run of its own now.
    let lost = RunRecord::from_dir(&dirs[1]).unwrap();
    assert_ne!(lost[0].run_id, uuid);
    assert!(matches!(b.store(&lost[0]).unwrap(), Stored::New(2)));
    assert_eq!(b.store(&lost[0]).unwrap(), Stored::Already(2));
}

#[test]
fn a_directory_reused_by_several_runs_stores_each_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let t = "2026-01-01T00:00:00Z";
    let ids: Vec<String> = (0..2).map(|_| uuid::Uuid::new_v4().to_string()).collect();
    for (i, test) in ["seq-write", "seq-read"].into_iter().enumerate() {
        let mut r = result(test, None, "a", t, 1.0);
        r.run_id = Some(ids[i].clone());
        suite::results_dir::write_result(&out, &r).unwrap();
    }
    let runs = RunRecord::from_dir(&out).unwrap();
    let mut got: Vec<&str> = runs.iter().map(|r| r.run_id.as_str()).collect();
    got.sort();
    let mut want: Vec<&str> = ids.iter().map(String::as_str).collect();
    want.sort();
    assert_eq!(got, want);
    assert!(runs
        .iter()
        .all(|r| r.results.len() == 1 && r.kind == "test"));

    // An identity that is not a UUID is refused, naming the file.
    let mut r = result("seq-write", None, "a", t, 1.0);
    r.run_id = Some("../../x".into());
    suite::results_dir::write_result(&out, &r).unwrap();
    let e = RunRecord::from_dir(&out).unwrap_err().to_string();
    assert!(
        e.contains("seq-write.json") && e.contains("not a UUID"),
        "{e}"
    );
}

/// A power test's result with power in two of its three seconds.
fn powered(model: &str, started: &str) -> TestResult {
    let mut r = result("power-seq-write", None, model, started, 300.0);
    let mut third = r.per_second[1].clone();
    third.t = 2;
    r.per_second.push(third);
    r.per_second[0].watts = Some(3.5);
    r.per_second[1].watts = None;
    r.per_second[2].watts = Some(2.25);
    r.power = Some(engine::power::PhasePower::modelled(
        8.6,
        3.0,
        &[Some(3.5), None, Some(2.25)],
    ));
    r
}

fn watts_of(b: &Bench, result_id: i64) -> (Option<f64>, Vec<Option<f64>>) {
    let mut conn = b.conn.borrow_mut();
    let mean = conn
        .query_one(
            "SELECT mean_w FROM results WHERE id = ?1",
            conn::params![result_id],
        )
        .unwrap()
        .get(0)
        .unwrap();
    let seconds = conn
        .query(
            "SELECT watts FROM series WHERE result_id = ?1 AND kind = 'second' ORDER BY idx",
            conn::params![result_id],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0).unwrap())
        .collect();
    (mean, seconds)
}

fn power_survives_storing_and_reading_and_missing_seconds_stay_null(db: &Db) {
    let mut b = Bench::open(&db.path()).unwrap();
    let r = powered("p", "2026-01-01T00:00:00Z");
    let id = b
        .store(&run("p", "2026-01-01T00:00:00Z", vec![r.clone()]))
        .unwrap()
        .id();
    let back = &b.results_of_run(id).unwrap()[0];
    assert_eq!(back.result, r, "the whole result, power and watts included");
    assert_eq!(back.result.per_second[1].watts, None, "missing, not 0 W");
    let (mean, seconds) = watts_of(&b, back.id);
    assert!((mean.unwrap() - 8.6 / 3.0).abs() < 1e-9);
    assert_eq!(seconds, [Some(3.5), None, Some(2.25)]);
}

#[test]
fn the_migration_to_watts_fills_them_from_the_stored_results() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.db");
    let r = powered("old", "2026-01-01T00:00:00Z");
    let plain = result("seq-read", None, "old", "2026-01-01T00:00:00Z", 500.0);
    // A Bench of the schema before watts, its results stored by that version.
    let old = Bench::create_at_version(&path, schema::WATTS - 1).unwrap();
    old.execute_batch(
        "INSERT INTO drives VALUES (1, 'sim|old', 'sim', 'old', 'S', 'F', NULL, 8000000000, '{}');
         INSERT INTO systems VALUES (1, 'k', 'h', 'cpu', 2, 1, '6', 'linux');
         INSERT INTO runs VALUES (1, 'key', 1, 1, 'suite', 'sim:old', '2026-01-01T00:00:00Z',
                                  '0.1.0', 0, 1, NULL, 'then', 'c3a0e7f4-0000-4000-8000-000000000001');",
    )
    .unwrap();
    for (id, x) in [(1, &r), (2, &plain)] {
        old.execute(
            "INSERT INTO results VALUES (?1, 1, ?2, NULL, 'l', '2026-01-01T00:00:00Z', 1, 1.0,
             300.0, '{}', '{}', ?3)",
            rusqlite::params![id, x.test.name(), serde_json::to_string(x).unwrap()],
        )
        .unwrap();
        for (i, p) in x.per_second.iter().enumerate() {
            old.execute(
                "INSERT INTO series VALUES (?1, 'second', ?2, ?3, ?4, ?5, NULL, NULL)",
                rusqlite::params![id, i as i64, p.t as f64, p.iops, p.mbps],
            )
            .unwrap();
        }
    }
    drop(old);

    let b = Bench::open(&path).unwrap();
    assert_eq!(b.schema_version().unwrap(), SCHEMA_VERSION);
    let (mean, seconds) = watts_of(&b, 1);
    assert!(mean.is_some());
    assert_eq!(seconds, [Some(3.5), None, Some(2.25)]);
    assert_eq!(
        watts_of(&b, 2),
        (None, vec![None, None]),
        "no power: NULL, not 0"
    );
    assert_eq!(b.results_of_run(1).unwrap()[0].result, r);
}

#[test]
fn drives_stored_before_interfaces_get_theirs_from_their_identities() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.db");
    let old = Bench::create_at_version(&path, schema::INTERFACES - 1).unwrap();
    let identity = |details: serde_json::Value| {
        json!({"kind": "block", "path": "/dev/x", "capacity_bytes": 1, "logical_block_bytes": 512,
               "physical_block_bytes": 512, "details": details})
        .to_string()
    };
    for (id, details) in [
        (1, json!({"transport": "nvme"})),
        (2, json!({"interface": "ATA", "transport": "usb"})),
        (3, json!({})),
    ] {
        old.execute(
            "INSERT INTO drives VALUES (?1, ?2, 'block', 'm', 's', 'f', NULL, 1, ?3)",
            rusqlite::params![id, format!("block|m|{id}"), identity(details)],
        )
        .unwrap();
    }
    old.execute(
        "INSERT INTO drives VALUES (4, 'x', 'block', 'm', 's', 'f', NULL, 1, 'not json')",
        [],
    )
    .unwrap();
    drop(old);

    let b = Bench::open(&path).unwrap();
    assert_eq!(b.schema_version().unwrap(), SCHEMA_VERSION);
    let interfaces: Vec<Option<String>> = (1..=4)
        .map(|id| b.drive(id).unwrap().unwrap().interface)
        .collect();
    assert_eq!(
        interfaces,
        [Some("NVMe".into()), Some("SATA".into()), None, None]
    );
    assert_eq!(b.interfaces().unwrap(), ["NVMe", "SATA"]);
}

#[test]
fn an_unknown_scheme_is_an_error_and_creates_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let cwd_file = std::path::Path::new("postgres:");
    // A server that is not there: port 1 on loopback refuses at once (no name to look up).
    for db in ["mysql://u@h:5432/bench", "postgres://u@127.0.0.1:1/bench"] {
        let url = std::path::Path::new(db);
        assert!(Bench::open(url).is_err(), "{db}");
        assert!(Bench::open_read_only(url).is_err(), "{db}");
    }
    assert!(!cwd_file.exists(), "no file named after the URL");
    // sqlite:PATH is a file.
    let path = dir.path().join("b.db");
    let b = Bench::open(std::path::Path::new(&format!("sqlite:{}", path.display()))).unwrap();
    assert_eq!(b.location(), &Location::Sqlite(path.clone()));
    assert!(path.exists());
}

/// Drives, runs, results (with their ids and runs' ids) and the number of series points.
type Everything = (Vec<DriveRow>, Vec<RunRow>, Vec<(i64, i64, TestResult)>, i64);

/// Everything a Bench holds, row ids included, as `bench export` shows it.
fn everything(b: &Bench) -> Everything {
    let runs = b.runs().unwrap();
    let results = runs
        .iter()
        .flat_map(|r| b.results_of_run(r.id).unwrap())
        .map(|s| (s.id, s.run_id, s.result))
        .collect();
    (b.drives().unwrap(), runs, results, count(b, "series"))
}

/// A Bench of two drives (one annotated), three runs and a gap in the run ids.
fn a_bench_to_copy() -> (Db, Bench) {
    let db = Db::sqlite();
    let mut b = Bench::open(&db.path()).unwrap();
    for (i, model) in ["a", "b", "a", "b"].iter().enumerate() {
        let t = format!("2026-01-0{}T00:00:00Z", i + 1);
        let results = vec![
            result("seq-write", None, model, &t, 300.0 + i as f64),
            result("consistency", Some("spare-25"), model, &t, 1.5),
        ];
        b.store(&run(model, &t, results)).unwrap();
    }
    assert!(b.remove_run(2).unwrap());
    let a = b.find_drives(&["a".into()]).unwrap()[0].id;
    let specs = Specs {
        name: Some("Drive A".into()),
        price_usd: Some(99.5),
        ..Default::default()
    };
    b.annotate(a, &specs).unwrap();
    (db, b)
}

/// Into this database and back into a new SQLite file: everything arrives whole, with its
/// ids; copying again adds nothing; a target holding some of the runs gets the rest.
fn a_bench_copied_there_and_back_is_the_same_and_copies_once(db: &Db) {
    let (_src_dir, src) = a_bench_to_copy();
    let mut there = Bench::open(&db.path()).unwrap();
    let mut calls = Vec::new();
    let copied = there
        .copy_from(&src, |done, total| calls.push((done, total)))
        .unwrap();
    assert_eq!(copied, Copied { new: 3, already: 0 });
    assert_eq!(calls, vec![(1, 3), (2, 3), (3, 3)]);
    let again = there.copy_from(&src, |_, _| {}).unwrap();
    assert_eq!(again, Copied { new: 0, already: 3 });
    let itself = Bench::open_read_only(&db.path()).unwrap();
    let onto_itself = there.copy_from(&itself, |_, _| {}).unwrap();
    assert_eq!(onto_itself, Copied { new: 0, already: 3 });
    assert_eq!(count(&there, "runs"), 3);

    let back_dir = Db::sqlite();
    let mut back = Bench::open(&back_dir.path()).unwrap();
    back.copy_from(&there, |_, _| {}).unwrap();
    let original = everything(&src);
    assert_eq!(original.2.len(), 6);
    assert!(original.3 > 0);
    assert_eq!(everything(&there), original);
    assert_eq!(everything(&back), original);

    // New runs stored after a copy get new ids (PostgreSQL's sequence followed the copy).
    let t = "2026-03-01T00:00:00Z";
    let id = there
        .store(&run("c", t, vec![result("seq-write", None, "c", t, 1.0)]))
        .unwrap()
        .id();
    assert!(id > 4, "{id}");

    // A target holding one of the runs (under another id) gets the other two.
    let partial_dir = Db::sqlite();
    let mut partial = Bench::open(&partial_dir.path()).unwrap();
    let held = src.runs().unwrap().pop().unwrap();
    let results = src.results_of_run(held.id).unwrap();
    let mut record = run(
        "a",
        &held.started_at,
        results.into_iter().map(|s| s.result).collect(),
    );
    record.run_id = held.uuid.clone();
    let t = "2026-04-01T00:00:00Z";
    partial
        .store(&run("z", t, vec![result("seq-write", None, "z", t, 1.0)]))
        .unwrap();
    partial.store(&record).unwrap();
    let copied = partial.copy_from(&src, |_, _| {}).unwrap();
    assert_eq!(copied, Copied { new: 2, already: 1 });
    assert_eq!(count(&partial, "runs"), 4);
    let uuids: Vec<String> = partial
        .runs()
        .unwrap()
        .into_iter()
        .map(|r| r.uuid)
        .collect();
    for r in src.runs().unwrap() {
        assert!(uuids.contains(&r.uuid), "{} copied", r.uuid);
    }
}

/// Benches storing runs into the database while a Bench of many runs is copied into it, on
/// drives new to both and drives of both: no writer and no copy fails, and every run of
/// both is there once with its results. (Before the copy held the tables and reserved the
/// ids it keeps, PostgreSQL's sequences gave stores ids the copy had just used, and the
/// copy used ids stores had taken but not committed: a unique violation, every time.)
fn a_copy_and_concurrent_stores_lose_nothing(db: &Db) {
    let src_dir = Db::sqlite();
    let mut source = Bench::open(&src_dir.path()).unwrap();
    let sources = 40;
    for i in 0..sources {
        let model = format!("s{}", i % 10);
        let t = format!("2026-02-01T00:00:{i:02}Z");
        let results = (0..2)
            .map(|k| result("custom", Some(&format!("t{k}")), &model, &t, k as f64))
            .collect();
        source.store(&run(&model, &t, results)).unwrap();
    }
    let path = db.path();
    drop(Bench::open(&path).unwrap());
    let writers = if matches!(db, Db::Postgres(_)) { 4 } else { 2 };
    let start = std::sync::Arc::new(std::sync::Barrier::new(writers + 1));
    let copying = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let handles: Vec<_> = (0..writers)
        .map(|w| {
            let (path, start, copying) = (path.clone(), start.clone(), copying.clone());
            std::thread::spawn(move || -> Result<Vec<(String, usize, String)>> {
                let mut b = Bench::open(&path)?;
                start.wait();
                let mut stored = Vec::new();
                // Until the copy is done, and a few runs at least.
                for i in 0.. {
                    if i >= 5 && !copying.load(std::sync::atomic::Ordering::SeqCst) {
                        break;
                    }
                    // New drives at first, then these again; the copy's s* drives too.
                    let model = match i % 3 {
                        2 => format!("s{}", i % 10),
                        _ => format!("w{w}-{}", i % 20),
                    };
                    let t = format!("2026-03-01T00:{w:02}:{:02}Z", i % 60);
                    let results = (0..2)
                        .map(|k| result("custom", Some(&format!("t{k}")), &model, &t, k as f64))
                        .collect();
                    let mut r = run(&model, &t, results);
                    assert!(matches!(b.store(&r)?, Stored::New(_)));
                    if i % 4 == 3 {
                        // A resumed run: its results are replaced, a third added.
                        r.results
                            .push(result("custom", Some("t2"), &model, &t, 2.0));
                        assert!(matches!(b.store(&r)?, Stored::Updated(_)));
                    }
                    stored.push((r.run_id, r.results.len(), model));
                }
                Ok(stored)
            })
        })
        .collect();
    let mut target = Bench::open(&path).unwrap();
    start.wait();
    let copied = target.copy_from(&source, |_, _| {});
    copying.store(false, std::sync::atomic::Ordering::SeqCst);
    let stored: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(
        copied.as_ref().map_err(chain),
        Ok(&Copied {
            new: sources,
            already: 0
        })
    );
    let mut expected: Vec<String> = source.runs().unwrap().into_iter().map(|r| r.uuid).collect();
    let mut results = 2 * sources;
    let mut models: Vec<String> = (0..10).map(|i| format!("s{i}")).collect();
    for s in stored {
        for (uuid, n, model) in s.map_err(|e| chain(&e)).expect("every store succeeds") {
            expected.push(uuid);
            results += n;
            models.push(model);
        }
    }
    expected.sort();
    models.sort();
    models.dedup();
    let mut uuids: Vec<String> = target.runs().unwrap().into_iter().map(|r| r.uuid).collect();
    uuids.sort();
    assert_eq!(uuids, expected, "every run once");
    assert_eq!(count(&target, "results"), results as i64);
    assert_eq!(count(&target, "drives"), models.len() as i64);
}

/// An error with its causes, as the command line shows it (PostgreSQL's says "db error"
/// and names the violation in its source).
fn chain(e: &BenchError) -> String {
    let mut out = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        out += &format!(": {c}");
        cause = c.source();
    }
    out
}

/// Where a test's Bench lives: a new SQLite file, or a new database on the tests' own
/// PostgreSQL server (`test_support::postgres`).
pub(crate) enum Db {
    Sqlite(tempfile::TempDir),
    Postgres(String),
}

impl Db {
    pub(crate) fn sqlite() -> Db {
        Db::Sqlite(tempfile::tempdir().unwrap())
    }

    /// `None` (after a skip, which fails under CI) where PostgreSQL is not installed.
    pub(crate) fn postgres() -> Option<Db> {
        test_support::postgres::shared().map(|s| Db::Postgres(s.new_database()))
    }

    /// What `--db` would name.
    pub(crate) fn path(&self) -> std::path::PathBuf {
        self.path_in("")
    }

    /// For SQLite, a file in a subdirectory (made by opening).
    pub(crate) fn path_in(&self, sub: &str) -> std::path::PathBuf {
        match self {
            Db::Sqlite(dir) => dir.path().join(sub).join("bench.db"),
            Db::Postgres(url) => url.into(),
        }
    }
}

/// Each test on SQLite and on PostgreSQL: `NAME::sqlite`, `NAME::postgres`. The tests take
/// a `&Db` and `Db` must be in scope where this is used.
macro_rules! on_both {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[test]
            fn sqlite() {
                super::$name(&super::Db::sqlite());
            }
            #[test]
            fn postgres() {
                if let Some(db) = super::Db::postgres() {
                    super::$name(&db);
                }
            }
        }
    )*};
}
pub(crate) use on_both;

on_both!(
    a_new_database_gets_the_whole_schema,
    runs_are_stored_once_and_resumed_runs_replace_their_results,
    a_result_keeps_its_id_while_its_run_is_stored_again,
    annotations_set_what_is_given_and_empty_text_clears,
    concurrent_writers_lose_nothing,
    many_writers_store_every_run_once,
    runs_of_the_same_test_target_and_second_are_kept_apart,
    a_complete_result_is_never_replaced_by_an_incomplete_one,
    power_survives_storing_and_reading_and_missing_seconds_stay_null,
    a_bench_copied_there_and_back_is_the_same_and_copies_once,
    a_copy_and_concurrent_stores_lose_nothing,
);

/// A plain client of a test's PostgreSQL database, to do what ssdlab never would.
fn client(url: &str) -> postgres::Client {
    let Location::Postgres(c) = Location::parse(std::path::Path::new(url)).unwrap() else {
        panic!("{url}: a PostgreSQL URL");
    };
    postgres_config(&c)
        .unwrap()
        .connect(postgres::NoTls)
        .unwrap()
}

#[test]
fn a_newer_foreign_or_empty_postgres_database_is_refused_and_left_untouched() {
    let Some(server) = test_support::postgres::shared() else {
        return;
    };
    let tables = |url: &str| -> Vec<String> {
        client(url)
            .query(
                "SELECT table_name::text FROM information_schema.tables
                 WHERE table_schema = current_schema() ORDER BY 1",
                &[],
            )
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect()
    };

    let foreign = server.new_database();
    client(&foreign)
        .batch_execute("CREATE TABLE moz_places (id BIGINT, url TEXT)")
        .unwrap();
    for e in [
        Bench::open_read_only(foreign.as_ref())
            .err()
            .expect("refused"),
        Bench::open(foreign.as_ref()).err().expect("refused"),
    ] {
        assert!(matches!(e, BenchError::NotADatabase { .. }), "{e}");
        assert!(e.to_string().contains("another program"), "{e}");
    }
    assert_eq!(tables(&foreign), ["moz_places"]);

    let empty = server.new_database();
    assert!(matches!(
        Bench::open_read_only(empty.as_ref()),
        Err(BenchError::Missing { .. })
    ));
    assert!(
        tables(&empty).is_empty(),
        "reading never creates the schema"
    );

    let newer = server.new_database();
    drop(Bench::open(newer.as_ref()).unwrap());
    client(&newer)
        .batch_execute("UPDATE ssdlab_schema SET version = 99")
        .unwrap();
    for e in [
        Bench::open(newer.as_ref()).err().expect("refused"),
        Bench::open_read_only(newer.as_ref())
            .err()
            .expect("refused"),
    ] {
        assert!(matches!(e, BenchError::Newer { found: 99, .. }), "{e}");
    }
}

/// A lab's PostgreSQL Bench of the schema before interfaces, with drives in it, is brought
/// up to date once by the first ssdlab of this version to open it, readers included.
#[test]
fn an_older_postgres_bench_is_migrated_once_with_its_data() {
    let Some(server) = test_support::postgres::shared() else {
        return;
    };
    let url = server.new_database();
    let mut b = Bench::open(url.as_ref()).unwrap();
    let mut nvme = result("seq-write", None, "n", "2026-01-01T00:00:00Z", 900.0);
    nvme.target
        .details
        .insert("transport".into(), "nvme".into());
    b.store(&run("n", "2026-01-01T00:00:00Z", vec![nvme]))
        .unwrap();
    drop(b);
    // Back to schema 4 as that version left it.
    client(&url)
        .batch_execute(&format!(
            "DROP INDEX runs_by_drive; ALTER TABLE drives DROP COLUMN interface;
             UPDATE ssdlab_schema SET version = {}",
            schema::INTERFACES - 1
        ))
        .unwrap();

    let readers: Vec<_> = (0..4)
        .map(|_| {
            let url = url.clone();
            std::thread::spawn(move || {
                let b = Bench::open_read_only(url.as_ref()).unwrap();
                (
                    b.schema_version().unwrap(),
                    b.drives().unwrap()[0].interface.clone(),
                )
            })
        })
        .collect();
    for r in readers {
        assert_eq!(r.join().unwrap(), (SCHEMA_VERSION, Some("NVMe".into())));
    }
    let b = Bench::open(url.as_ref()).unwrap();
    assert_eq!(b.interfaces().unwrap(), ["NVMe"]);
    assert_eq!(b.run_count().unwrap(), 1);
}

/// A Bench out of reach (stopped, or a server that never answers) is an error worth trying
/// again, told apart from those only a person can fix; connecting never hangs.
#[test]
fn a_bench_out_of_reach_is_transient_and_a_refusal_is_not() {
    let Some(server) = test_support::postgres::private() else {
        return;
    };
    let url = server.new_database();
    let mut open = Bench::open(url.as_ref()).unwrap();
    open.store(&run(
        "a",
        "2024-05-01T10:00:00Z",
        vec![result(
            "seq-write",
            None,
            "a",
            "2024-05-01T10:00:00Z",
            100.0,
        )],
    ))
    .unwrap();

    let missing = server.url("no_such_database");
    let e = Bench::open(missing.as_ref()).err().expect("no database");
    assert!(matches!(e, BenchError::Connect { .. }), "{e}");
    assert!(!e.is_transient(), "a missing database waits in vain: {e}");

    server.stop().unwrap();
    let e = Bench::open(url.as_ref()).err().expect("stopped");
    assert!(matches!(e, BenchError::Connect { .. }), "{e}");
    assert!(e.is_transient(), "{e}");
    // A connection open when the server went: the next statement fails, transiently.
    let e = open
        .store(&run(
            "a",
            "2024-05-01T11:00:00Z",
            vec![result(
                "seq-write",
                None,
                "a",
                "2024-05-01T11:00:00Z",
                100.0,
            )],
        ))
        .unwrap_err();
    assert!(matches!(e, BenchError::Postgres(_)), "{e}");
    assert!(e.is_transient(), "{e}");
    server.start().unwrap();
    Bench::open(url.as_ref()).unwrap();

    // A socket that takes the connection and never answers: given up in twice the URL's
    // connect_timeout, not waited on forever.
    let dir = tempfile::tempdir().unwrap();
    let _silent = std::os::unix::net::UnixListener::bind(dir.path().join(".s.PGSQL.5432")).unwrap();
    let silent = format!(
        "postgres://ssdlab@/bench?host={}&connect_timeout=1",
        dir.path().display()
    );
    let started = std::time::Instant::now();
    let e = Bench::open(silent.as_ref()).err().expect("no answer");
    let took = started.elapsed();
    assert!(
        e.is_transient() && e.to_string().contains("no answer within 2 s"),
        "{e}"
    );
    // Given up, not waited on: the message above says after what. The bound, 30 times
    // the 2 s, only catches a wait far past the timeout, whatever the machine's load.
    assert!(took < std::time::Duration::from_secs(60), "{took:?}");

    for refusal in [
        BenchError::Newer {
            path: "p".into(),
            found: 99,
            latest: SCHEMA_VERSION,
        },
        BenchError::Damaged {
            path: "p".into(),
            detail: "d".into(),
        },
        BenchError::Input("bad".into()),
    ] {
        assert!(!refusal.is_transient(), "{refusal}");
    }
    let busy =
        rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY), None);
    assert!(BenchError::Sql(busy).is_transient());
}

/// An error of the server's reaches the user with its own words, once.
#[test]
fn a_postgres_error_says_what_the_server_said_once() {
    let Some(server) = test_support::postgres::shared() else {
        return;
    };
    let url = server.new_database();
    let b = Bench::open(url.as_ref()).unwrap();
    client(&url)
        .batch_execute("DROP TABLE series, results, runs CASCADE")
        .unwrap();
    let e = b.runs().unwrap_err();
    let mut chain = e.to_string();
    let mut cause = std::error::Error::source(&e);
    while let Some(c) = cause {
        chain += &format!(": {c}");
        cause = c.source();
    }
    assert!(
        chain.contains("relation \"runs\" does not exist"),
        "{chain}"
    );
    assert_eq!(chain.matches("does not exist").count(), 1, "{chain}");
    assert!(!chain.contains("db error"), "{chain}");
}

/// No error says a password, whichever way the connection string carries it, nor
/// PGPASSWORD's: a database missing, a malformed string, an unterminated quote.
#[test]
fn a_password_never_reaches_an_error_message() {
    let Some(server) = test_support::postgres::shared() else {
        return;
    };
    let dir = server.socket_dir().display().to_string();
    for db in [
        format!("postgres:///no_such_database?host={dir}&user=ssdlab&password=S3cretQ"),
        format!("postgres:///no_such_database?host={dir}&user=ssdlab&PASS%57ORD=S3cretR"),
        format!("postgres://ssdlab:S3cretU@/no_such_database?host={dir}"),
        format!("postgres://ssdlab:S3cretV@/no_such_database?host={dir}&port=x"),
        format!("host={dir} dbname=no_such_database user=ssdlab password=S3cretW"),
        format!("host={dir} dbname=no_such_database password='S3cretX"),
        format!("host={dir} dbname=no_such_database password=S3cretY port=x"),
    ] {
        let path = std::path::Path::new(&db);
        for e in [Bench::open(path).err(), Bench::open_read_only(path).err()] {
            let e = e.expect("no such database");
            for text in [with_causes(&e), format!("{e:?}")] {
                assert!(!text.contains("S3cret"), "{db}: {text}");
            }
        }
    }
}

/// A run stored before runs had an identity is known by a hash of its first result's
/// parameters as they were stored (compact, keys sorted): loaded typed, an old result hashes
/// to the same identity (computed from the file's own text, independently of ssdlab).
#[test]
fn an_old_results_legacy_run_id_is_unchanged() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../suite/tests/fixtures/minimal-result.json");
    let data = std::fs::read(&path).unwrap();
    let r = suite::results_dir::parse_result(&data, &path).unwrap();
    let first = import::FirstResult::of(&r);
    let stored: serde_json::Value = serde_json::from_slice(&data).unwrap();
    assert_eq!(first.parameters, stored["parameters"].to_string());
    assert_eq!(
        import::legacy_run_id("key", None, &first),
        "cc1270c9-56a0-5b1c-8794-9752922620ff"
    );
}

/// `bench list` and the page's newest runs say which test a run of one test ran.
#[test]
fn a_run_of_one_test_says_which() {
    let tmp = tempfile::tempdir().unwrap();
    let mut b = Bench::open(&tmp.path().join("bench.db")).unwrap();
    let t = "2026-01-01T00:00:00Z";
    let mut one = run(
        "a",
        t,
        vec![result("consistency", Some("spare-25"), "a", t, 1.0)],
    );
    one.kind = "test".into();
    b.store(&one).unwrap();
    b.store(&run("a", t, vec![result("seq-read", None, "a", t, 1.0)]))
        .unwrap();
    let what: Vec<String> = b.runs().unwrap().iter().map(RunRow::what).collect();
    assert_eq!(what, ["suite", "test consistency"]);
}
