//! Storing runs: a results directory (a suite's, or one `ssdlab run`'s) becomes one run row,
//! its drive and test system rows (shared with earlier runs of the same drive), a result row
//! per test result and its series, all in one transaction. A run is known by its identity
//! (a UUID made when it started) and by nothing else: storing is idempotent on it, so runs
//! started in the same second on the same target are all kept.

use super::conn::{params, Conn};

use engine::{Identity, TargetKind};
use suite::result::TestResult;

use super::import::{legacy_run_id, parse_run_id, FirstResult};
use super::{Bench, BenchError, Result};

/// One run as it is stored: what was run on what, and its results.
#[derive(Clone, Debug)]
pub struct RunRecord {
    /// The run's identity: the UUID it was given as it started (or, for results of earlier
    /// versions, one derived from them).
    pub run_id: String,
    /// "suite" or "test".
    pub kind: String,
    pub target_spec: String,
    pub started_at: String,
    pub quick: bool,
    pub complete: bool,
    /// The results directory it came from.
    pub source: Option<String>,
    pub results: Vec<TestResult>,
}

/// What `store` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stored {
    New(i64),
    /// This run (its identity) was stored before with these results.
    Already(i64),
    /// This run was stored before, unfinished or with other results (a resumed suite):
    /// its results are now the directory's, except that a complete result is never
    /// replaced by an incomplete one.
    Updated(i64),
}

impl Stored {
    pub fn id(self) -> i64 {
        match self {
            Stored::New(id) | Stored::Already(id) | Stored::Updated(id) => id,
        }
    }
}

/// Which drive rows are the same drive: model and serial for real drives, the path for files
/// and the preset spec for simulated drives (whose serial names only the preset).
pub(crate) fn identity_key(t: &Identity) -> String {
    match (t.kind, &t.model, &t.serial) {
        (TargetKind::Block, Some(model), Some(serial)) => format!("block|{model}|{serial}"),
        (kind, _, _) => format!("{kind}|{}|{}", t.path, t.capacity_bytes),
    }
}

/// Give every run stored before runs had an identity the one its results directory gets
/// when imported now (the migration to schema 3 calls this).
pub(super) fn backfill_run_ids(tx: &mut Conn) -> Result<()> {
    let rows = tx.query(
        "SELECT id, run_key, source FROM runs WHERE uuid IS NULL",
        &[],
    )?;
    for row in rows {
        let (id, key, source): (i64, String, Option<String>) =
            (row.get(0)?, row.get(1)?, row.get(2)?);
        let first = tx.query_opt(
            "SELECT test, variant, started_at, parameters, body FROM results
             WHERE run_id = ?1 ORDER BY started_at, id LIMIT 1",
            params![id],
        )?;
        let uuid = match first {
            Some(r) => {
                let (test, variant, started_at, parameters, body): (
                    String,
                    Option<String>,
                    String,
                    String,
                    String,
                ) = (r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?);
                let body: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
                let parameters: serde_json::Value =
                    serde_json::from_str(&parameters).unwrap_or_default();
                let first = FirstResult {
                    test,
                    variant,
                    started_at,
                    ios: body["summary"]["ios"].as_u64().unwrap_or(0),
                    bytes: body["summary"]["bytes"].as_u64().unwrap_or(0),
                    parameters: parameters.to_string(),
                };
                legacy_run_id(&key, source.as_deref(), &first)
            }
            None => uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, key.as_bytes()).to_string(),
        };
        tx.execute("UPDATE runs SET uuid = ?1 WHERE id = ?2", params![uuid, id])?;
    }
    Ok(())
}

/// Give the drives stored before drives had an interface theirs, from their identities (the
/// migration to schema 5 calls this). An identity that does not parse or does not say
/// keeps NULL: unknown.
pub(super) fn backfill_interfaces(tx: &mut Conn) -> Result<()> {
    for row in tx.query("SELECT id, identity FROM drives", &[])? {
        let (id, identity): (i64, String) = (row.get(0)?, row.get(1)?);
        let Ok(t) = serde_json::from_str::<Identity>(&identity) else {
            continue;
        };
        if let Some(interface) = t.interface() {
            tx.execute(
                "UPDATE drives SET interface = ?1 WHERE id = ?2",
                params![interface, id],
            )?;
        }
    }
    Ok(())
}

/// Give the results stored before series had watts theirs, from their bodies (the
/// migration to schema 4 calls this). A body that does not parse keeps NULL: missing.
pub(super) fn backfill_power(tx: &mut Conn) -> Result<()> {
    let rows = tx.query("SELECT id, body FROM results", &[])?;
    for row in rows {
        let (id, body): (i64, String) = (row.get(0)?, row.get(1)?);
        let Ok(r) = serde_json::from_str::<TestResult>(&body) else {
            continue;
        };
        tx.execute(
            "UPDATE results SET mean_w = ?1 WHERE id = ?2",
            params![r.power.as_ref().and_then(|p| p.mean_w()), id],
        )?;
        for (i, p) in r.per_second.iter().enumerate() {
            if p.watts.is_some() {
                tx.execute(
                    "UPDATE series SET watts = ?1 WHERE result_id = ?2 AND kind = 'second' AND idx = ?3",
                    params![p.watts, id, i as i64],
                )?;
            }
        }
    }
    Ok(())
}

impl Bench {
    /// Store a run (its drive and test system too). A run stored before (the same
    /// identity) is stored once: a result that changed is replaced (a suite storing itself
    /// step by step, or resumed), the others keep their rows and ids, and a complete result
    /// is never replaced by an incomplete one.
    pub fn store(&mut self, run: &RunRecord) -> Result<Stored> {
        let first = run
            .results
            .first()
            .ok_or_else(|| BenchError::Input("a run with no results: nothing to store".into()))?;
        let uuid = parse_run_id(&run.run_id).map_err(|e| BenchError::Input(e.to_string()))?;
        let conn = self.conn.get_mut();
        let postgres = conn.is_postgres();
        let mut tx = conn.begin_write()?;
        if postgres {
            // Writers of the same run wait for each other (SQLite's write lock does this).
            tx.execute(
                "SELECT pg_advisory_xact_lock(hashtext(?1))",
                params![uuid.as_str()],
            )?;
        }
        let before: Option<(i64, bool)> = match tx.query_opt(
            "SELECT id, complete FROM runs WHERE uuid = ?1",
            params![uuid.as_str()],
        )? {
            Some(r) => Some((r.get(0)?, r.get(1)?)),
            None => None,
        };
        let merged = match before {
            Some((id, was_complete)) => match merge(&mut tx, id, was_complete, run)? {
                Some(merged) => merged,
                None => return Ok(Stored::Already(id)),
            },
            None => Merged::fresh(run),
        };
        let drive_id = store_drive(&mut tx, &first.target)?;
        let system_id = store_system(&mut tx, &first.system)?;
        // The run row is written before its results take ids: `bench copy` relies on it.
        let row = RunRow {
            uuid: &uuid,
            drive_id,
            system_id,
            tool_version: &first.tool.version,
            complete: merged.complete,
        };
        let run_id = match before {
            Some((id, _)) => row.update(&mut tx, run, id)?,
            None => row.insert(&mut tx, run)?,
        };
        for (i, (r, body)) in merged.results.iter().zip(&merged.bodies).enumerate() {
            if !merged.unchanged.contains(&i) {
                store_result(&mut tx, run_id, r, body)?;
            }
        }
        tx.commit()?;
        Ok(match before {
            Some(_) => Stored::Updated(run_id),
            None => Stored::New(run_id),
        })
    }
}

/// A run's results as they are to be stored: the directory's, merged with what the Bench
/// held of the same run.
struct Merged {
    results: Vec<TestResult>,
    /// Each result's body, serialized once: compared with the stored ones, then stored.
    bodies: Vec<String>,
    /// The stored results the run keeps as they are: their rows, and so their ids (which
    /// pages link to while a suite stores itself step by step), stay.
    unchanged: Vec<usize>,
    complete: bool,
}

impl Merged {
    fn fresh(run: &RunRecord) -> Merged {
        Merged {
            results: run.results.clone(),
            bodies: run.results.iter().map(body_of).collect(),
            unchanged: Vec::new(),
            complete: run.complete,
        }
    }
}

fn body_of(r: &TestResult) -> String {
    serde_json::to_string(r).expect("results serialize")
}

/// Merge a run with its stored rows (run `id`): a stored complete result stays over an
/// incomplete one of the same test, and a stored result the directory no longer holds stays
/// too, so storing never loses one. The stored rows that changed are deleted; `None` when
/// nothing did.
fn merge(tx: &mut Conn, id: i64, was_complete: bool, run: &RunRecord) -> Result<Option<Merged>> {
    let stored: Vec<(i64, String, bool, String)> = tx
        .query(
            "SELECT id, body, complete, test || coalesce('-' || variant, '') FROM results WHERE run_id = ?1",
            params![id],
        )?
        .into_iter()
        .map(|r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .collect::<Result<_>>()?;
    let mut results: Vec<TestResult> = run.results.clone();
    for (_, body, done, stem) in &stored {
        let incoming = results.iter().position(|r| &r.file_stem() == stem);
        let keep = match incoming {
            Some(i) => *done && !results[i].complete,
            None => true,
        };
        if keep {
            let r: TestResult = serde_json::from_str(body).map_err(|e| {
                BenchError::Input(format!(
                    "a result of run {id} in the Bench does not parse: {e}"
                ))
            })?;
            match incoming {
                Some(i) => results[i] = r,
                None => results.push(r),
            }
        }
    }
    let complete = run.complete | was_complete;
    let bodies: Vec<String> = results.iter().map(body_of).collect();
    let mut unchanged: Vec<usize> = Vec::new();
    let mut replaced: Vec<i64> = Vec::new();
    for (row, body, _, stem) in &stored {
        let same = results
            .iter()
            .zip(&bodies)
            .position(|(r, b)| &r.file_stem() == stem && b == body);
        match same {
            Some(i) if !unchanged.contains(&i) => unchanged.push(i),
            _ => replaced.push(*row),
        }
    }
    if replaced.is_empty() && unchanged.len() == results.len() && complete == was_complete {
        return Ok(None);
    }
    // Replaced by the caller; the run keeps its id, unchanged results theirs.
    for row in replaced {
        tx.execute("DELETE FROM results WHERE id = ?1", params![row])?;
    }
    Ok(Some(Merged {
        results,
        bodies,
        unchanged,
        complete,
    }))
}

/// The drive's row (shared with earlier runs of the same drive), its firmware and identity
/// brought up to date.
fn store_drive(tx: &mut Conn, t: &Identity) -> Result<i64> {
    let drive_key = identity_key(t);
    tx.execute(
        "INSERT INTO drives (identity_key, kind, model, serial, firmware, vendor, capacity_bytes, identity, interface)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
         ON CONFLICT (identity_key) DO UPDATE SET firmware = excluded.firmware, identity = excluded.identity,
             interface = COALESCE(excluded.interface, drives.interface)",
        params![
            drive_key,
            t.kind.name(),
            t.model,
            t.serial,
            t.firmware,
            t.vendor,
            t.capacity_bytes as i64,
            serde_json::to_string(t).expect("identity serializes"),
            t.interface(),
        ],
    )?;
    tx.query_one(
        "SELECT id FROM drives WHERE identity_key = ?1",
        params![drive_key.as_str()],
    )?
    .get(0)
}

/// The test system's row, shared with earlier runs on the same system.
fn store_system(tx: &mut Conn, s: &engine::system::SystemInfo) -> Result<i64> {
    let system_key = format!(
        "{}|{}|{}|{}|{}",
        s.hostname, s.cpu, s.cores, s.memory_bytes, s.kernel
    );
    tx.execute(
        "INSERT INTO systems (system_key, hostname, cpu, cores, memory_bytes, kernel, os)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (system_key) DO NOTHING",
        params![
            system_key,
            s.hostname,
            s.cpu,
            s.cores as i64,
            s.memory_bytes as i64,
            s.kernel,
            s.os
        ],
    )?;
    tx.query_one(
        "SELECT id FROM systems WHERE system_key = ?1",
        params![system_key.as_str()],
    )?
    .get(0)
}

/// What a run's row says beyond the run record.
struct RunRow<'a> {
    uuid: &'a str,
    drive_id: i64,
    system_id: i64,
    tool_version: &'a str,
    complete: bool,
}

impl RunRow<'_> {
    fn insert(&self, tx: &mut Conn, run: &RunRecord) -> Result<i64> {
        tx.query_one(
            "INSERT INTO runs (run_key, uuid, drive_id, system_id, kind, target_spec,
                               started_at, tool_version, quick, complete, source, stored_at)
             VALUES (?1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) RETURNING id",
            params![
                self.uuid,
                self.drive_id,
                self.system_id,
                run.kind,
                run.target_spec,
                run.started_at,
                self.tool_version,
                run.quick,
                self.complete,
                run.source,
                suite::result::utc_now(),
            ],
        )?
        .get(0)
    }

    /// A run stored before keeps its row and id.
    fn update(&self, tx: &mut Conn, run: &RunRecord, id: i64) -> Result<i64> {
        tx.execute(
            "UPDATE runs SET complete = ?1, tool_version = ?2, source = ?3, stored_at = ?4
             WHERE id = ?5",
            params![
                self.complete,
                self.tool_version,
                run.source,
                suite::result::utc_now(),
                id
            ],
        )?;
        Ok(id)
    }
}

/// One result's row and its series: per second, and the curve's points.
fn store_result(tx: &mut Conn, run_id: i64, r: &TestResult, body: &str) -> Result<()> {
    let result_id: i64 = tx
        .query_one(
            "INSERT INTO results (run_id, test, variant, label, started_at, complete, iops, mbps,
                                  parameters, analysis, body, mean_w)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) RETURNING id",
            params![
                run_id,
                r.test.name(),
                r.variant,
                r.label,
                r.started_at,
                r.complete,
                r.summary.iops,
                r.summary.mbps,
                r.parameters.to_value().to_string(),
                json_column(&r.analysis),
                body,
                r.power.as_ref().and_then(|p| p.mean_w()),
            ],
        )?
        .get(0)?;
    let point =
        "INSERT INTO series (result_id, kind, idx, x, iops, mbps, read_mbps, write_mbps, watts)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";
    for (i, p) in r.per_second.iter().enumerate() {
        tx.execute(
            point,
            params![
                result_id,
                "second",
                i as i64,
                p.t as f64,
                p.iops,
                p.mbps,
                p.read_mbps,
                p.write_mbps,
                p.watts
            ],
        )?;
    }
    for (i, p) in r.points.iter().enumerate() {
        let s = &p.summary;
        tx.execute(
            point,
            params![
                result_id,
                "curve",
                i as i64,
                p.x,
                s.iops,
                s.mbps,
                s.read.as_ref().map(|d| d.mbps),
                s.write.as_ref().map(|d| d.mbps),
                None::<f64>
            ],
        )?;
    }
    Ok(())
}

/// A typed value as a JSON column: through a JSON value, so its keys are sorted as the
/// columns of earlier versions are.
fn json_column(v: &impl serde::Serialize) -> String {
    serde_json::to_value(v).map_or_else(|_| "null".into(), |v| v.to_string())
}
