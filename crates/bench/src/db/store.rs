//! Storing runs: a results directory (a suite's, or one `ssdlab run`'s) becomes one run row,
//! its drive and test system rows (shared with earlier runs of the same drive), a result row
//! per test result and its series, all in one transaction.

use std::path::Path;

use rusqlite::{params, OptionalExtension, TransactionBehavior};

use engine::Identity;
use suite::result::TestResult;

use super::{Bench, BenchError, Result};

/// One run as it is stored: what was run on what, and its results.
#[derive(Clone, Debug)]
pub struct RunRecord {
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
    /// This run was stored before (same drive, target and start) with these results.
    Already(i64),
    /// This run was stored before, unfinished or with other results (a resumed suite):
    /// its results are now the directory's.
    Updated(i64),
}

impl Stored {
    pub fn id(self) -> i64 {
        match self {
            Stored::New(id) | Stored::Already(id) | Stored::Updated(id) => id,
        }
    }
}

impl RunRecord {
    /// A results directory: a suite's (with `suite.json`) or any directory of results.
    pub fn from_dir(dir: &Path) -> Result<RunRecord> {
        let input = |e: suite::SuiteError| BenchError::Input(e.to_string());
        let results = suite::results_dir::read_results(dir).map_err(input)?;
        if results.is_empty() {
            return Err(BenchError::Input(format!(
                "{} holds no ssdlab results (STEM.json files)",
                dir.display()
            )));
        }
        let source = Some(
            std::fs::canonicalize(dir)
                .unwrap_or_else(|_| dir.to_path_buf())
                .display()
                .to_string(),
        );
        Ok(match suite::runner::read_suite(dir) {
            Ok(rec) => RunRecord {
                kind: "suite".into(),
                target_spec: rec.target_spec,
                started_at: rec.started_at,
                quick: rec.quick,
                complete: rec.complete,
                source,
                results,
            },
            Err(_) => RunRecord {
                kind: "test".into(),
                target_spec: results[0].target.path.clone(),
                started_at: results[0].started_at.clone(),
                quick: false,
                complete: results.iter().all(|r| r.complete),
                source,
                results,
            },
        })
    }
}

/// Which drive rows are the same drive: model and serial for real drives, the path for files
/// and the preset spec for simulated drives (whose serial names only the preset).
fn identity_key(t: &Identity) -> String {
    match (t.kind.as_str(), &t.model, &t.serial) {
        ("block", Some(model), Some(serial)) => format!("block|{model}|{serial}"),
        (kind, _, _) => format!("{kind}|{}|{}", t.path, t.capacity_bytes),
    }
}

impl Bench {
    /// Store a run (its drive and test system too). A run stored before is stored once: its
    /// results are replaced when they changed (a resumed suite).
    pub fn store(&mut self, run: &RunRecord) -> Result<Stored> {
        let first = run
            .results
            .first()
            .ok_or_else(|| BenchError::Input("a run with no results: nothing to store".into()))?;
        let drive_key = identity_key(&first.target);
        // A suite is one run however often it is resumed; a single test's run is told from
        // another started the same second by its test.
        let run_key = match run.kind.as_str() {
            "suite" => format!("{drive_key}|{}|{}|suite", run.target_spec, run.started_at),
            kind => format!(
                "{drive_key}|{}|{}|{kind}|{}",
                run.target_spec, run.started_at, first.test
            ),
        };
        let json = |v: &serde_json::Value| v.to_string();
        let tx = rusqlite::Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
        let before: Option<(i64, bool, usize)> = tx
            .query_row(
                "SELECT id, complete, (SELECT count(*) FROM results WHERE run_id = runs.id)
                 FROM runs WHERE run_key = ?1",
                [&run_key],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        if let Some((id, complete, count)) = before {
            if complete == run.complete && count == run.results.len() {
                return Ok(Stored::Already(id));
            }
            // Replaced below; the run keeps its id.
            tx.execute("DELETE FROM results WHERE run_id = ?1", [id])?;
        }

        let t = &first.target;
        tx.execute(
            "INSERT INTO drives (identity_key, kind, model, serial, firmware, vendor, capacity_bytes, identity)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
             ON CONFLICT (identity_key) DO UPDATE SET firmware = excluded.firmware, identity = excluded.identity",
            params![
                drive_key,
                t.kind,
                t.model,
                t.serial,
                t.firmware,
                t.vendor,
                t.capacity_bytes as i64,
                serde_json::to_string(t).expect("identity serializes"),
            ],
        )?;
        let drive_id: i64 = tx.query_row(
            "SELECT id FROM drives WHERE identity_key = ?1",
            [&drive_key],
            |r| r.get(0),
        )?;

        let s = &first.system;
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
        let system_id: i64 = tx.query_row(
            "SELECT id FROM systems WHERE system_key = ?1",
            [&system_key],
            |r| r.get(0),
        )?;

        tx.execute(
            "INSERT INTO runs (run_key, drive_id, system_id, kind, target_spec, started_at,
                               tool_version, quick, complete, source, stored_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
             ON CONFLICT (run_key) DO UPDATE SET complete = excluded.complete,
                 tool_version = excluded.tool_version, source = excluded.source,
                 stored_at = excluded.stored_at",
            params![
                run_key,
                drive_id,
                system_id,
                run.kind,
                run.target_spec,
                run.started_at,
                first.tool.version,
                run.quick,
                run.complete,
                run.source,
                suite::result::utc_now(),
            ],
        )?;
        let run_id: i64 =
            tx.query_row("SELECT id FROM runs WHERE run_key = ?1", [&run_key], |r| {
                r.get(0)
            })?;

        for r in &run.results {
            tx.execute(
                "INSERT INTO results (run_id, test, variant, label, started_at, complete, iops, mbps,
                                      parameters, analysis, body)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                params![
                    run_id,
                    r.test,
                    r.variant,
                    r.label,
                    r.started_at,
                    r.complete,
                    r.summary.iops,
                    r.summary.mbps,
                    json(&r.parameters),
                    json(&r.analysis),
                    serde_json::to_string(r).expect("results serialize"),
                ],
            )?;
            let result_id = tx.last_insert_rowid();
            let mut point = tx.prepare_cached(
                "INSERT INTO series (result_id, kind, idx, x, iops, mbps, read_mbps, write_mbps)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?;
            for (i, p) in r.per_second.iter().enumerate() {
                point.execute(params![
                    result_id,
                    "second",
                    i as i64,
                    p.t as f64,
                    p.iops,
                    p.mbps,
                    p.read_mbps,
                    p.write_mbps
                ])?;
            }
            for (i, p) in r.points.iter().enumerate() {
                let s = &p.summary;
                point.execute(params![
                    result_id,
                    "curve",
                    i as i64,
                    p.x,
                    s.iops,
                    s.mbps,
                    s.read.as_ref().map(|d| d.mbps),
                    s.write.as_ref().map(|d| d.mbps)
                ])?;
            }
        }
        tx.commit()?;
        Ok(match before {
            Some(_) => Stored::Updated(run_id),
            None => Stored::New(run_id),
        })
    }
}
