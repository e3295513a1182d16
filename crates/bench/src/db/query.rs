//! Reading the Bench, and the two edits a user makes: removing a run, annotating a drive.

use super::conn::{params, Row, Value};
use serde::Serialize;

use suite::result::TestResult;

use super::{Bench, BenchError, Result};

/// What a user knows of a drive that it cannot report itself (`bench annotate`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Specs {
    /// A display name instead of the model string.
    pub name: Option<String>,
    pub controller: Option<String>,
    pub nand: Option<String>,
    pub dram: Option<String>,
    pub price_usd: Option<f64>,
    pub notes: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DriveRow {
    pub id: i64,
    /// The annotated name, else the model, else the path.
    pub name: String,
    pub kind: String,
    /// How the host reaches it: NVMe, SATA, ... (`None`: unknown).
    pub interface: Option<String>,
    pub model: Option<String>,
    pub serial: Option<String>,
    pub firmware: Option<String>,
    pub capacity_bytes: u64,
    pub specs: Specs,
    pub runs: u32,
    pub last_run: Option<String>,
}

impl DriveRow {
    /// Dollars per (decimal) gigabyte, as the reviews priced drives.
    pub fn price_per_gb(&self) -> Option<f64> {
        let gb = self.capacity_bytes as f64 / 1e9;
        self.specs.price_usd.filter(|_| gb > 0.0).map(|p| p / gb)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunRow {
    pub id: i64,
    pub drive_id: i64,
    pub drive: String,
    pub kind: String,
    pub target_spec: String,
    pub started_at: String,
    pub tool_version: String,
    pub quick: bool,
    pub complete: bool,
    pub source: Option<String>,
    pub stored_at: String,
    pub results: u32,
    /// The run's identity (a UUID).
    pub uuid: String,
    /// The test a run of one test (kind "test") ran.
    pub test: Option<String>,
}

impl RunRow {
    /// What the run was, for a list: "suite", or "test consistency".
    pub fn what(&self) -> String {
        match (&self.test, self.kind.as_str()) {
            (Some(test), "test") => format!("test {test}"),
            _ => self.kind.clone(),
        }
    }
}

/// A test result as stored, with where it belongs.
#[derive(Clone, Debug)]
pub struct StoredResult {
    pub id: i64,
    pub run_id: i64,
    pub drive_id: i64,
    pub result: TestResult,
}

const DRIVE_SELECT: &str = "
    SELECT d.id, COALESCE(s.name, d.model), d.kind, d.model,
           d.serial, d.firmware, d.capacity_bytes, s.name, s.controller, s.nand, s.dram,
           s.price_usd, s.notes,
           (SELECT count(*) FROM runs r WHERE r.drive_id = d.id),
           (SELECT max(started_at) FROM runs r WHERE r.drive_id = d.id), d.identity, d.interface
    FROM drives d LEFT JOIN drive_specs s ON s.drive_id = d.id";

/// A drive's name: its annotated name, else its model, else the path in its identity.
fn name_or_path(name: Option<String>, identity: &str) -> String {
    name.unwrap_or_else(|| {
        serde_json::from_str::<serde_json::Value>(identity)
            .ok()
            .and_then(|v| v["path"].as_str().map(String::from))
            .unwrap_or_default()
    })
}

fn drive_row(r: &Row) -> Result<DriveRow> {
    Ok(DriveRow {
        id: r.get(0)?,
        name: name_or_path(r.get(1)?, &r.get::<String>(15)?),
        kind: r.get(2)?,
        interface: r.get(16)?,
        model: r.get(3)?,
        serial: r.get(4)?,
        firmware: r.get(5)?,
        capacity_bytes: r.get::<i64>(6)? as u64,
        specs: Specs {
            name: r.get(7)?,
            controller: r.get(8)?,
            nand: r.get(9)?,
            dram: r.get(10)?,
            price_usd: r.get(11)?,
            notes: r.get(12)?,
        },
        runs: r.get(13)?,
        last_run: r.get(14)?,
    })
}

const RUN_SELECT: &str = "
    SELECT r.id, r.drive_id, COALESCE(s.name, d.model),
           r.kind, r.target_spec, r.started_at, r.tool_version, r.quick, r.complete, r.source,
           r.stored_at, (SELECT count(*) FROM results x WHERE x.run_id = r.id), r.uuid, d.identity,
           (SELECT min(x.test) FROM results x WHERE x.run_id = r.id)
    FROM runs r JOIN drives d ON d.id = r.drive_id LEFT JOIN drive_specs s ON s.drive_id = d.id";

fn run_row(r: &Row) -> Result<RunRow> {
    Ok(RunRow {
        id: r.get(0)?,
        drive_id: r.get(1)?,
        drive: name_or_path(r.get(2)?, &r.get::<String>(13)?),
        kind: r.get(3)?,
        target_spec: r.get(4)?,
        started_at: r.get(5)?,
        tool_version: r.get(6)?,
        quick: r.get(7)?,
        complete: r.get(8)?,
        source: r.get(9)?,
        stored_at: r.get(10)?,
        results: r.get(11)?,
        uuid: r.get(12)?,
        test: r.get(14)?,
    })
}

impl Bench {
    /// Every drive, by name.
    pub fn drives(&self) -> Result<Vec<DriveRow>> {
        let rows = self.conn.borrow_mut().query(DRIVE_SELECT, &[])?;
        let mut drives = rows.iter().map(drive_row).collect::<Result<Vec<_>>>()?;
        // By name, ignoring ASCII case (SQLite's NOCASE), the same on both databases.
        drives.sort_by(|a, b| {
            (a.name.to_ascii_lowercase(), a.id).cmp(&(b.name.to_ascii_lowercase(), b.id))
        });
        Ok(drives)
    }

    pub fn drive(&self, id: i64) -> Result<Option<DriveRow>> {
        let row = self
            .conn
            .borrow_mut()
            .query_opt(&format!("{DRIVE_SELECT} WHERE d.id = ?1"), params![id])?;
        row.as_ref().map(drive_row).transpose()
    }

    /// The drives a user means: a drive id, or text found in the name, model or serial
    /// (case-insensitive). Errors name what matched nothing.
    pub fn find_drives(&self, queries: &[String]) -> Result<Vec<DriveRow>> {
        let all = self.drives()?;
        let mut found: Vec<DriveRow> = Vec::new();
        for q in queries {
            let needle = q.to_lowercase();
            let hits: Vec<&DriveRow> = match q.parse::<i64>() {
                Ok(id) => all.iter().filter(|d| d.id == id).collect(),
                Err(_) => all
                    .iter()
                    .filter(|d| {
                        [Some(&d.name), d.model.as_ref(), d.serial.as_ref()]
                            .into_iter()
                            .flatten()
                            .any(|s| s.to_lowercase().contains(&needle))
                    })
                    .collect(),
            };
            if hits.is_empty() {
                return Err(BenchError::Input(format!(
                    "no drive matches {q:?}: `ssdlab bench list` shows the drives and their ids"
                )));
            }
            for d in hits {
                if !found.iter().any(|f| f.id == d.id) {
                    found.push(d.clone());
                }
            }
        }
        Ok(found)
    }

    /// Every run, newest first.
    pub fn runs(&self) -> Result<Vec<RunRow>> {
        let rows = self.conn.borrow_mut().query(
            &format!("{RUN_SELECT} ORDER BY r.started_at DESC, r.id DESC"),
            &[],
        )?;
        rows.iter().map(run_row).collect()
    }

    pub fn run(&self, id: i64) -> Result<Option<RunRow>> {
        let row = self
            .conn
            .borrow_mut()
            .query_opt(&format!("{RUN_SELECT} WHERE r.id = ?1"), params![id])?;
        row.as_ref().map(run_row).transpose()
    }

    fn results_where(&self, clause: &str, arg: i64) -> Result<Vec<StoredResult>> {
        let rows = self.conn.borrow_mut().query(
            &format!(
                "SELECT x.id, x.run_id, r.drive_id, x.body FROM results x JOIN runs r ON r.id = x.run_id
                 WHERE {clause} ORDER BY x.started_at, x.id"
            ),
            params![arg],
        )?;
        let mut out = Vec::new();
        for row in rows {
            let (id, run_id, drive_id, body): (i64, i64, i64, String) =
                (row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?);
            let result = serde_json::from_str(&body).map_err(|e| {
                BenchError::Input(format!("result {id} in the Bench does not parse: {e}"))
            })?;
            out.push(StoredResult {
                id,
                run_id,
                drive_id,
                result,
            });
        }
        Ok(out)
    }

    /// A run's results in the order they were measured.
    pub fn results_of_run(&self, run_id: i64) -> Result<Vec<StoredResult>> {
        self.results_where("x.run_id = ?1", run_id)
    }

    pub fn result(&self, id: i64) -> Result<Option<StoredResult>> {
        Ok(self.results_where("x.id = ?1", id)?.pop())
    }

    /// A drive's newest result of each test and variant: what comparisons show. Complete
    /// results win over newer incomplete ones.
    pub fn latest_results(&self, drive_id: i64) -> Result<Vec<StoredResult>> {
        self.latest_results_where(drive_id, |_| true)
    }

    /// [`Bench::latest_results`] among the results `keep` lets through.
    pub fn latest_results_where(
        &self,
        drive_id: i64,
        keep: impl Fn(&TestResult) -> bool,
    ) -> Result<Vec<StoredResult>> {
        let mut all = self.results_where("r.drive_id = ?1", drive_id)?;
        all.retain(|s| keep(&s.result));
        all.sort_by(|a, b| {
            (a.result.complete, &a.result.started_at, a.id).cmp(&(
                b.result.complete,
                &b.result.started_at,
                b.id,
            ))
        });
        let mut latest: Vec<StoredResult> = Vec::new();
        for r in all.into_iter().rev() {
            let stem = r.result.file_stem();
            if !latest.iter().any(|l| l.result.file_stem() == stem) {
                latest.push(r);
            }
        }
        latest.sort_by(|a, b| (&a.result.started_at, a.id).cmp(&(&b.result.started_at, b.id)));
        Ok(latest)
    }

    /// Remove a run and its results; a drive left without runs goes too.
    pub fn remove_run(&mut self, id: i64) -> Result<bool> {
        let mut tx = self.conn.get_mut().begin_write()?;
        let drive: Option<i64> =
            match tx.query_opt("SELECT drive_id FROM runs WHERE id = ?1", params![id])? {
                Some(r) => Some(r.get(0)?),
                None => None,
            };
        let Some(drive) = drive else {
            return Ok(false);
        };
        tx.execute("DELETE FROM runs WHERE id = ?1", params![id])?;
        tx.execute(
            "DELETE FROM drives WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM runs WHERE drive_id = ?1)",
            params![drive],
        )?;
        tx.commit()?;
        Ok(true)
    }

    /// Set the facts given (others keep their values); an empty string clears one.
    pub fn annotate(&mut self, drive_id: i64, specs: &Specs) -> Result<()> {
        if self.drive(drive_id)?.is_none() {
            return Err(BenchError::Input(format!("no drive {drive_id}")));
        }
        let mut tx = self.conn.get_mut().begin_write()?;
        tx.execute(
            "INSERT INTO drive_specs (drive_id, updated_at) VALUES (?1, ?2)
             ON CONFLICT (drive_id) DO NOTHING",
            params![drive_id, suite::result::utc_now()],
        )?;
        let text = |v: &Option<String>| v.as_ref().map(|s| (!s.is_empty()).then(|| s.clone()));
        let fields: [(&str, Option<Value>); 6] = [
            ("name", text(&specs.name).map(Value::from)),
            ("controller", text(&specs.controller).map(Value::from)),
            ("nand", text(&specs.nand).map(Value::from)),
            ("dram", text(&specs.dram).map(Value::from)),
            ("price_usd", specs.price_usd.map(Value::from)),
            ("notes", text(&specs.notes).map(Value::from)),
        ];
        for (column, value) in fields {
            if let Some(v) = value {
                tx.execute(
                    &format!(
                        "UPDATE drive_specs SET {column} = ?1, updated_at = ?2 WHERE drive_id = ?3"
                    ),
                    params![v, suite::result::utc_now(), drive_id],
                )?;
            }
        }
        tx.commit()?;
        Ok(())
    }
}

/// Which drives the drive list shows: every filter given must hold. Text is matched
/// case-insensitively (ASCII), as part of the field; vendor, kind and host exactly but for
/// case. A drive matches the date range and host if one of its runs does.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DriveFilter {
    /// Part of the name, model or serial.
    pub text: Option<String>,
    pub vendor: Option<String>,
    /// How it was measured: `block`, `file`, `sim`.
    pub kind: Option<String>,
    /// How the host reaches it: `NVMe`, `SATA`, ...
    pub interface: Option<String>,
    /// Part of the annotated NAND.
    pub nand: Option<String>,
    pub min_capacity_bytes: Option<u64>,
    pub max_capacity_bytes: Option<u64>,
    /// A run started on or after this day (`YYYY-MM-DD`, UTC) ...
    pub from: Option<String>,
    /// ... and on or before this day.
    pub to: Option<String>,
    /// A run on the machine of this host name.
    pub host: Option<String>,
}

/// A drive as a list shows it, with the target its newest run measured.
#[derive(Clone, Debug, PartialEq)]
pub struct DriveListing {
    pub drive: DriveRow,
    pub target: Option<String>,
}

/// `%needle%` for LIKE with `\` escaping, lower case.
fn like(needle: &str) -> String {
    let mut p = String::from("%");
    for c in needle.to_ascii_lowercase().chars() {
        if matches!(c, '%' | '_' | '\\') {
            p.push('\\');
        }
        p.push(c);
    }
    p.push('%');
    p
}

impl DriveFilter {
    /// The WHERE clause (over `drives d` and `drive_specs s`) and its parameters.
    fn clause(&self) -> (String, Vec<Value>) {
        // Each filter that is set adds one condition; `{a}` stands for its parameter.
        let text = self.text.as_deref().map(|t| Value::from(like(t)));
        let lower = |s: &Option<String>| s.as_deref().map(|s| Value::from(s.to_ascii_lowercase()));
        let bytes = |b: Option<u64>| b.map(|b| Value::Int(b.min(i64::MAX as u64) as i64));
        let drive_filters = [
            (
                text,
                "(lower(COALESCE(s.name, '')) LIKE {a} ESCAPE '\\' OR lower(COALESCE(d.model, '')) LIKE {a} ESCAPE '\\' \
                 OR lower(COALESCE(d.serial, '')) LIKE {a} ESCAPE '\\')",
            ),
            (lower(&self.vendor), "lower(d.vendor) = {a}"),
            (self.kind.clone().map(Value::from), "d.kind = {a}"),
            (lower(&self.interface), "lower(d.interface) = {a}"),
            (
                self.nand.as_deref().map(|n| Value::from(like(n))),
                "lower(s.nand) LIKE {a} ESCAPE '\\'",
            ),
            (bytes(self.min_capacity_bytes), "d.capacity_bytes >= {a}"),
            (bytes(self.max_capacity_bytes), "d.capacity_bytes <= {a}"),
        ];
        let run_filters = [
            (
                self.from.clone().map(Value::from),
                "substr(r.started_at, 1, 10) >= {a}",
            ),
            (
                self.to.clone().map(Value::from),
                "substr(r.started_at, 1, 10) <= {a}",
            ),
            (
                lower(&self.host),
                "r.system_id IN (SELECT y.id FROM systems y WHERE lower(y.hostname) = {a})",
            ),
        ];
        fn conditions(filters: Vec<(Option<Value>, &str)>, args: &mut Vec<Value>) -> Vec<String> {
            let mut terms = Vec::new();
            for (value, condition) in filters {
                if let Some(v) = value {
                    args.push(v);
                    terms.push(condition.replace("{a}", &format!("?{}", args.len())));
                }
            }
            terms
        }
        let mut args: Vec<Value> = Vec::new();
        let mut terms = conditions(drive_filters.into(), &mut args);
        let run_terms = conditions(run_filters.into(), &mut args);
        if !run_terms.is_empty() {
            terms.push(format!(
                "EXISTS (SELECT 1 FROM runs r WHERE r.drive_id = d.id AND {})",
                run_terms.join(" AND ")
            ));
        }
        let clause = if terms.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", terms.join(" AND "))
        };
        (clause, args)
    }
}

const NEWEST_TARGET: &str =
    "(SELECT r.target_spec FROM runs r WHERE r.drive_id = d.id ORDER BY r.started_at DESC, r.id DESC LIMIT 1)";

/// DRIVE_SELECT with the target of each drive's newest run after it.
fn listing_select() -> String {
    DRIVE_SELECT.replacen(
        ", d.interface\n",
        &format!(", d.interface, {NEWEST_TARGET}\n"),
        1,
    )
}

fn listing(r: &Row) -> Result<DriveListing> {
    Ok(DriveListing {
        drive: drive_row(r)?,
        target: r.get(17)?,
    })
}

impl Bench {
    /// The drives `filter` lets through, by name: `limit` of them from `offset`, and how
    /// many there are in all. One page is read, never the whole list.
    pub fn drive_page(
        &self,
        filter: &DriveFilter,
        offset: u64,
        limit: u64,
    ) -> Result<(Vec<DriveListing>, u64)> {
        let (clause, mut args) = filter.clause();
        let mut conn = self.conn.borrow_mut();
        let total: i64 = conn
            .query_one(
                &format!(
                    "SELECT count(*) FROM drives d LEFT JOIN drive_specs s ON s.drive_id = d.id{clause}"
                ),
                &args,
            )?
            .get(0)?;
        let n = args.len();
        args.push(Value::Int(limit.min(i64::MAX as u64) as i64));
        args.push(Value::Int(offset.min(i64::MAX as u64) as i64));
        let select = listing_select();
        // The page's ids first, so the per-drive counts are made for its rows only.
        let order = "ORDER BY lower(COALESCE(s.name, d.model, d.identity)), d.id";
        let rows = conn.query(
            &format!(
                "{select} WHERE d.id IN (SELECT d.id FROM drives d LEFT JOIN drive_specs s ON s.drive_id = d.id\
                 {clause} {order} LIMIT ?{} OFFSET ?{}) {order}",
                n + 1,
                n + 2
            ),
            &args,
        )?;
        let drives = rows.iter().map(listing).collect::<Result<Vec<_>>>()?;
        Ok((drives, total as u64))
    }

    /// The drives of these ids that are in the Bench, in the order asked.
    pub fn drive_listings(&self, ids: &[i64]) -> Result<Vec<DriveListing>> {
        let select = listing_select();
        let mut out = Vec::new();
        for id in ids {
            let row = self
                .conn
                .borrow_mut()
                .query_opt(&format!("{select} WHERE d.id = ?1"), params![id])?;
            if let Some(row) = row {
                out.push(listing(&row)?);
            }
        }
        Ok(out)
    }

    /// The `limit` newest runs, newest first.
    pub fn recent_runs(&self, limit: u64) -> Result<Vec<RunRow>> {
        let rows = self.conn.borrow_mut().query(
            &format!(
                "{RUN_SELECT} WHERE r.id IN (SELECT id FROM runs ORDER BY started_at DESC, id DESC LIMIT ?1)
                 ORDER BY r.started_at DESC, r.id DESC"
            ),
            params![limit.min(i64::MAX as u64) as i64],
        )?;
        rows.iter().map(run_row).collect()
    }

    /// The interfaces the Bench's drives have, for the drive list's filter.
    pub fn interfaces(&self) -> Result<Vec<String>> {
        let rows = self.conn.borrow_mut().query(
            "SELECT DISTINCT interface FROM drives WHERE interface IS NOT NULL ORDER BY interface",
            &[],
        )?;
        rows.iter().map(|r| r.get(0)).collect()
    }

    /// How many runs the Bench holds.
    pub fn run_count(&self) -> Result<u64> {
        let n: i64 = self
            .conn
            .borrow_mut()
            .query_one("SELECT count(*) FROM runs", &[])?
            .get(0)?;
        Ok(n as u64)
    }
}
