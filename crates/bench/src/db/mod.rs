//! The Bench database: every run ssdlab makes, kept in SQLite so any drives can be compared
//! later (`ssdlab bench ...`, the web page). One file, WAL mode so readers never block the
//! writer, and every run stored in one transaction so concurrent writers lose nothing.
//!
//! A database that is damaged (it fails SQLite's `quick_check`, run before every write), is
//! another program's, or was made by a newer ssdlab, gives a clear error and is left exactly
//! as it was. Reading never creates or adds tables: only a Bench of an older schema is
//! upgraded.

mod import;
mod location;
mod query;
mod schema;
mod store;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, TransactionBehavior};

pub use import::{check_name, check_result, check_time};
pub use location::{redacted, Location};
pub use query::{DriveRow, RunRow, Specs, StoredResult};
pub use schema::LATEST as SCHEMA_VERSION;
pub use store::{RunRecord, Stored};

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("{path}: not an ssdlab Bench database, or a damaged one ({detail}); it was left untouched: move it away or choose another with --db or SSDLAB_DB")]
    NotADatabase { path: String, detail: String },
    #[error("{path}: the Bench database is damaged (SQLite's integrity check says: {detail}); it was left untouched, and nothing is stored in it until it is repaired: keep a copy, recover what is readable with `sqlite3 {path} .recover | sqlite3 recovered.db` and use that (--db or SSDLAB_DB), or move it away to start a new Bench")]
    Damaged { path: String, detail: String },
    #[error("{path}: Bench schema version {found} is newer than this ssdlab understands ({latest}); it was left untouched: use a newer ssdlab")]
    Newer {
        path: String,
        found: u32,
        latest: u32,
    },
    #[error("{path}: no Bench database here yet: runs are stored in it as they finish (or `ssdlab bench import DIR`)")]
    Missing { path: String },
    #[error("{0}")]
    Input(String),
    #[error("Bench database: {0}")]
    Sql(#[from] rusqlite::Error),
}

pub type Result<T> = std::result::Result<T, BenchError>;

/// Where the database lives unless `--db`/`SSDLAB_DB` say otherwise:
/// `$XDG_DATA_HOME/ssdlab/bench.db`, else `~/.local/share/ssdlab/bench.db`.
pub fn default_path() -> PathBuf {
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .unwrap_or_else(|| PathBuf::from("."));
    data.join("ssdlab").join("bench.db")
}

pub struct Bench {
    conn: Connection,
    path: PathBuf,
}

impl Bench {
    /// Open (creating it and its directory if needed) and bring the schema up to date.
    pub fn open(path: &Path) -> Result<Bench> {
        let path = &Bench::sqlite_path(path)?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| BenchError::Input(format!("cannot create {}: {e}", dir.display())))?;
        }
        let conn = Connection::open(path)?;
        let bench = Bench::checked(conn, path)?;
        // Before anything is written: a damaged database stays exactly as it is.
        bench.check_integrity()?;
        bench.conn.pragma_update(None, "journal_mode", "WAL")?;
        bench.migrate()?;
        Ok(bench)
    }

    /// Open an existing database for reading only (the web page, list, show, compare,
    /// export). A Bench of an older schema is upgraded first, which is the only write; an
    /// empty or foreign SQLite file is never given the Bench's tables.
    pub fn open_read_only(path: &Path) -> Result<Bench> {
        let path = &Bench::sqlite_path(path)?;
        let missing = || BenchError::Missing {
            path: path.display().to_string(),
        };
        if !path.exists() {
            return Err(missing());
        }
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        let bench = Bench::checked(conn, path)?;
        let version = bench.version()?;
        if version == 0 {
            // An empty SQLite file (checked refused one with tables of its own).
            return Err(missing());
        }
        if version < SCHEMA_VERSION {
            drop(bench);
            Bench::open(path)?;
            let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
            return Bench::checked(conn, path);
        }
        Ok(bench)
    }

    /// The SQLite file `--db` names; any other scheme is an error.
    fn sqlite_path(db: &Path) -> Result<PathBuf> {
        match Location::parse(db)? {
            Location::Sqlite(p) => Ok(p),
            Location::Postgres(url) => Err(BenchError::Input(format!(
                "--db {}: this ssdlab keeps the Bench in SQLite only (a path, or sqlite:PATH)",
                crate::term::printable(&redacted(&url))
            ))),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Refuse, before anything is written, a file that is not a database or is too new.
    fn checked(conn: Connection, path: &Path) -> Result<Bench> {
        conn.busy_timeout(Duration::from_secs(60))?;
        let bench = Bench {
            conn,
            path: path.to_path_buf(),
        };
        // One statement, so one snapshot: another writer creating the schema meanwhile is
        // seen either not at all or whole (tables and version together), never as tables
        // without a version, which would look like another program's database.
        let (found, tables, ours): (u32, i64, i64) = bench
            .conn
            .query_row(
                "SELECT (SELECT user_version FROM pragma_user_version), \
                        (SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'), \
                        (SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'runs')",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .map_err(|e| BenchError::NotADatabase {
                path: path.display().to_string(),
                detail: e.to_string(),
            })?;
        if found > SCHEMA_VERSION {
            return Err(BenchError::Newer {
                path: path.display().to_string(),
                found,
                latest: SCHEMA_VERSION,
            });
        }
        if found == 0 && tables > 0 {
            // A new database is empty; one with tables but no version is another program's,
            // and the Bench's tables must not be added to it.
            return Err(BenchError::NotADatabase {
                path: path.display().to_string(),
                detail: format!("an SQLite database of another program, with {tables} tables or indexes and no Bench schema"),
            });
        }
        if found > 0 && ours == 0 {
            // Our tables must be there: a stranger's database with a user_version is not ours.
            return Err(BenchError::NotADatabase {
                path: path.display().to_string(),
                detail: "no runs table".into(),
            });
        }
        bench.conn.pragma_update(None, "foreign_keys", "ON")?;
        Ok(bench)
    }

    /// SQLite's `quick_check` (the integrity check without matching indexes to tables): cheap
    /// next to a run, and it finds damaged pages before a write spreads them.
    fn check_integrity(&self) -> Result<()> {
        let damaged = |detail: String| BenchError::Damaged {
            path: self.path.display().to_string(),
            detail,
        };
        let mut q = self
            .conn
            .prepare("PRAGMA quick_check(5)")
            .map_err(|e| damaged(e.to_string()))?;
        let lines: Vec<String> = q
            .query_map([], |r| r.get::<_, String>(0))
            .and_then(|rows| rows.collect())
            .map_err(|e| damaged(e.to_string()))?;
        if lines.len() == 1 && lines[0] == "ok" {
            return Ok(());
        }
        Err(damaged(lines.join("; ")))
    }

    fn version(&self) -> rusqlite::Result<u32> {
        self.conn.query_row("PRAGMA user_version", [], |r| r.get(0))
    }

    /// Apply the migrations this database lacks, all in one transaction. Taking the write
    /// lock first means two processes opening a new database migrate it once.
    fn migrate(&self) -> Result<()> {
        if self.version()? == SCHEMA_VERSION {
            return Ok(());
        }
        let tx = rusqlite::Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
        let from = tx.query_row("PRAGMA user_version", [], |r| r.get::<_, u32>(0))?;
        for (i, sql) in schema::MIGRATIONS.iter().enumerate().skip(from as usize) {
            tx.execute_batch(sql)?;
            if i + 1 == schema::RUN_IDS as usize {
                store::backfill_run_ids(&tx)?;
            }
            if i + 1 == schema::WATTS as usize {
                store::backfill_power(&tx)?;
            }
            tx.pragma_update(None, "user_version", i as u32 + 1)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// The schema version of the open database.
    pub fn schema_version(&self) -> Result<u32> {
        Ok(self.version()?)
    }

    /// A database at an older schema version, for tests of the migrations.
    #[doc(hidden)]
    pub fn create_at_version(path: &Path, version: u32) -> Result<Connection> {
        let conn = Connection::open(path)?;
        for (i, sql) in schema::MIGRATIONS.iter().enumerate().take(version as usize) {
            conn.execute_batch(sql)?;
            conn.pragma_update(None, "user_version", i as u32 + 1)?;
        }
        Ok(conn)
    }
}

#[cfg(test)]
pub(crate) mod tests;
