//! Copying one Bench into another (`ssdlab bench copy`), SQLite or PostgreSQL either way:
//! drives with their annotations, test systems, runs, and every result whole with its series.
//!
//! Runs are known by their identity (`uuid`), never by row ids, which differ between
//! databases: a run the target already holds is left as it is, so copying twice adds
//! nothing and an interrupted copy, run again, adds the rest. A row keeps its id when the
//! target has that id free (always, into an empty Bench), so run and result numbers stay
//! the ones users have written down; otherwise it gets a new one. Drives and test systems
//! are matched by their keys; a drive's annotations are copied only where the target has
//! none for it (the target's own are never overwritten). Each run is one transaction.
//!
//! Benches may store runs into the target meanwhile. On PostgreSQL, whose sequences hand
//! out ids outside any transaction, each of the copy's transactions holds the tables it
//! adds rows to against other writers (never readers) and reserves every id it keeps in
//! the table's sequence: no writer then takes an id the copy uses, nor the copy one a
//! writer took. SQLite's writers take turns anyway.

use super::conn::{params, Conn, Row, Value};
use super::{Bench, Result};

/// What a copy did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Copied {
    /// Runs the target did not hold, now stored.
    pub new: usize,
    /// Runs the target held already (the same identity), left as they were.
    pub already: usize,
}

const DRIVE_COLUMNS: &[&str] = &[
    "identity_key",
    "kind",
    "model",
    "serial",
    "firmware",
    "vendor",
    "capacity_bytes",
    "identity",
    "interface",
];
const SPEC_COLUMNS: &[&str] = &[
    "name",
    "controller",
    "nand",
    "dram",
    "price_usd",
    "notes",
    "updated_at",
];
const SYSTEM_COLUMNS: &[&str] = &[
    "system_key",
    "hostname",
    "cpu",
    "cores",
    "memory_bytes",
    "kernel",
    "os",
];
// `drive_id` and `system_id` come last: they are replaced by the target's ids.
const RUN_COLUMNS: &[&str] = &[
    "uuid",
    "run_key",
    "kind",
    "target_spec",
    "started_at",
    "tool_version",
    "quick",
    "complete",
    "source",
    "stored_at",
    "drive_id",
    "system_id",
];
const RESULT_COLUMNS: &[&str] = &[
    "test",
    "variant",
    "label",
    "started_at",
    "complete",
    "iops",
    "mbps",
    "parameters",
    "analysis",
    "body",
    "mean_w",
];
const SERIES_COLUMNS: &[&str] = &[
    "kind",
    "idx",
    "x",
    "iops",
    "mbps",
    "read_mbps",
    "write_mbps",
    "watts",
];

impl Bench {
    /// Copy everything of `from` that this Bench lacks into it. `progress(done, total)` is
    /// called after each run.
    pub fn copy_from(
        &mut self,
        from: &Bench,
        progress: impl FnMut(usize, usize),
    ) -> Result<Copied> {
        let mut src = from.conn.borrow_mut();
        // One snapshot of the source: runs stored into it meanwhile are copied whole (with
        // their drives) by the next copy, or not at all by this one.
        let begin = match src.is_postgres() {
            true => "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
            false => "BEGIN",
        };
        src.batch(begin)?;
        let copied = copy(&mut src, self.conn.get_mut(), from, progress);
        src.batch("ROLLBACK")?;
        copied
    }
}

/// `copy_from`'s work, inside the source's snapshot.
fn copy(
    src: &mut Conn,
    dst: &mut Conn,
    from: &Bench,
    mut progress: impl FnMut(usize, usize),
) -> Result<Copied> {
    let mut drives: Vec<(i64, i64)> = Vec::new();
    let mut systems: Vec<(i64, i64)> = Vec::new();
    let mut tx = dst.begin_write()?;
    hold(&mut tx, "drives, systems")?;
    let sql = format!(
        "SELECT id, {} FROM drives ORDER BY id",
        DRIVE_COLUMNS.join(", ")
    );
    for row in src.query(&sql, &[])? {
        let id = matched_or_inserted(&mut tx, "drives", DRIVE_COLUMNS, &row)?;
        drives.push((row.get(0)?, id));
        let sql = format!(
            "SELECT {} FROM drive_specs WHERE drive_id = ?1",
            SPEC_COLUMNS.join(", ")
        );
        if let Some(specs) = src.query_opt(&sql, params![row.get::<i64>(0)?])? {
            let mut values = vec![Value::Int(id)];
            values.extend(specs.0);
            tx.execute(
                &format!(
                    "INSERT INTO drive_specs (drive_id, {}) VALUES ({})
                         ON CONFLICT (drive_id) DO NOTHING",
                    SPEC_COLUMNS.join(", "),
                    placeholders(1 + SPEC_COLUMNS.len())
                ),
                &values,
            )?;
        }
    }
    let sql = format!(
        "SELECT id, {} FROM systems ORDER BY id",
        SYSTEM_COLUMNS.join(", ")
    );
    for row in src.query(&sql, &[])? {
        let id = matched_or_inserted(&mut tx, "systems", SYSTEM_COLUMNS, &row)?;
        systems.push((row.get(0)?, id));
    }
    tx.commit()?;
    let target = |map: &[(i64, i64)], id: i64| {
        map.iter().find(|(s, _)| *s == id).map(|&(_, t)| t).ok_or_else(|| {
                super::BenchError::Input(format!(
                    "{}: a run names drive or test system {id}, which is not there: the source Bench is damaged",
                    from.location()
                ))
            })
    };

    let runs = src.query(
        &format!(
            "SELECT id, {} FROM runs ORDER BY id",
            RUN_COLUMNS.join(", ")
        ),
        &[],
    )?;
    let mut copied = Copied::default();
    for (done, run) in runs.iter().enumerate() {
        let mut tx = dst.begin_write()?;
        let uuid: String = run.get(1)?;
        if tx.is_postgres() {
            // Writers of the same run wait for each other, as `store` does.
            tx.execute(
                "SELECT pg_advisory_xact_lock(hashtext(?1))",
                params![uuid.as_str()],
            )?;
        }
        if tx
            .query_opt("SELECT 1 FROM runs WHERE uuid = ?1", params![uuid.as_str()])?
            .is_some()
        {
            copied.already += 1;
            progress(done + 1, runs.len());
            continue;
        }
        // Results need no lock of their own: a writer takes ids for a run's results only
        // after writing its run row (`store`), so while runs are held none is doing so.
        // (Holding results too could deadlock with a store replacing a run's results.)
        hold(&mut tx, "runs")?;
        let mut row = run.clone();
        let n = row.0.len();
        row.0[n - 2] = Value::Int(target(&drives, run.get(n - 2)?)?);
        row.0[n - 1] = Value::Int(target(&systems, run.get(n - 1)?)?);
        let run_id = inserted(&mut tx, "runs", RUN_COLUMNS, &row)?;
        let sql = format!(
            "SELECT id, {} FROM results WHERE run_id = ?1 ORDER BY id",
            RESULT_COLUMNS.join(", ")
        );
        for result in src.query(&sql, params![run.get::<i64>(0)?])? {
            let mut row = result.clone();
            row.0.push(Value::Int(run_id));
            let columns: Vec<&str> = RESULT_COLUMNS.iter().copied().chain(["run_id"]).collect();
            let result_id = inserted(&mut tx, "results", &columns, &row)?;
            copy_series(src, &mut tx, result.get(0)?, result_id)?;
        }
        tx.commit()?;
        copied.new += 1;
        progress(done + 1, runs.len());
    }
    Ok(copied)
}

fn copy_series(src: &mut Conn, tx: &mut Conn, from: i64, to: i64) -> Result<()> {
    let sql = format!(
        "SELECT {} FROM series WHERE result_id = ?1 ORDER BY kind, idx",
        SERIES_COLUMNS.join(", ")
    );
    let insert = format!(
        "INSERT INTO series (result_id, {}) VALUES ({})",
        SERIES_COLUMNS.join(", "),
        placeholders(1 + SERIES_COLUMNS.len())
    );
    for point in src.query(&sql, params![from])? {
        let mut values = vec![Value::Int(to)];
        values.extend(point.0);
        tx.execute(&insert, &values)?;
    }
    Ok(())
}

/// `?1, ?2, ... ?n`
fn placeholders(n: usize) -> String {
    (1..=n)
        .map(|i| format!("?{i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The target's id of the drive or system `row` (its id, then `columns`, the first its key):
/// the row holding that key, else a new row.
fn matched_or_inserted(tx: &mut Conn, table: &str, columns: &[&str], row: &Row) -> Result<i64> {
    let key = &row.0[1];
    let sql = format!("SELECT id FROM {table} WHERE {} = ?1", columns[0]);
    match tx.query_opt(&sql, std::slice::from_ref(key))? {
        Some(found) => found.get(0),
        None => inserted(tx, table, columns, row),
    }
}

/// Insert `row` (its source id, then `columns`) keeping that id where the target has it
/// free, else taking a new one; the id it got. On PostgreSQL, `table` is held (`hold`).
fn inserted(tx: &mut Conn, table: &str, columns: &[&str], row: &Row) -> Result<i64> {
    let id: i64 = row.get(0)?;
    let free = tx
        .query_opt(&format!("SELECT 1 FROM {table} WHERE id = ?1"), params![id])?
        .is_none();
    if free && tx.is_postgres() {
        // Reserve the id in the sequence, which rows inserted with their own ids do not
        // advance: it moves on to the id if behind, so never hands it out. Nothing else
        // moves it meanwhile (`hold`); a kept id below it costs one value, a gap.
        tx.execute(
            "SELECT setval(s, greatest(nextval(s), ?2))
             FROM (SELECT pg_get_serial_sequence(?1, 'id') AS s) AS q",
            params![table, id],
        )?;
    }
    let (names, values) = match free {
        true => (
            std::iter::once("id")
                .chain(columns.iter().copied())
                .collect::<Vec<_>>(),
            &row.0[..],
        ),
        false => (columns.to_vec(), &row.0[1..]),
    };
    let sql = format!(
        "INSERT INTO {table} ({}) VALUES ({}) RETURNING id",
        names.join(", "),
        placeholders(names.len())
    );
    tx.query_one(&sql, values)?.get(0)
}

/// Let no other writer add rows to `tables` (so take ids for them) until this transaction
/// ends, and wait for those that have: an id seen free then stays free, and none is taken
/// from a sequence meanwhile. The mode conflicts with writers' (and another copy's), not
/// with readers'. SQLite's write lock, taken as the transaction began, does this already.
fn hold(tx: &mut Conn, tables: &str) -> Result<()> {
    if tx.is_postgres() {
        tx.batch(&format!("LOCK TABLE {tables} IN SHARE ROW EXCLUSIVE MODE"))?;
    }
    Ok(())
}
