//! The Bench database: every run ssdlab makes, kept in SQLite so any drives can be compared
//! later (`ssdlab bench ...`, the web page). One file, WAL mode so readers never block the
//! writer, and every run stored in one transaction so concurrent writers lose nothing.
//!
//! A database that is damaged (it fails SQLite's `quick_check`, run before every write), is
//! another program's, or was made by a newer ssdlab, gives a clear error and is left exactly
//! as it was. Reading never creates or adds tables: only a Bench of an older schema is
//! upgraded.

mod conn;
mod copy;
mod import;
mod location;
mod query;
mod schema;
mod store;

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use conn::Conn;

pub use copy::Copied;
pub use import::{check_name, check_result, check_time, Unwritten};
pub use location::{ConnectionString, Location};
pub use query::{DriveFilter, DriveListing, DriveRow, RunRow, Specs, StoredResult};
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
    /// A PostgreSQL Bench that could not be connected to; `transient` when trying again
    /// may succeed (see [`BenchError::is_transient`]).
    #[error("{path}: cannot connect: {detail}")]
    Connect {
        path: String,
        detail: String,
        transient: bool,
    },
    #[error("{0}")]
    Input(String),
    #[error("Bench database: {0}")]
    Sql(#[from] rusqlite::Error),
    /// The server's own words (the postgres crate's error says only "db error" and has them
    /// as its cause): in the message, and no cause, so no error chain says them twice.
    #[error("Bench database (PostgreSQL): {}", postgres_message(.0))]
    Postgres(postgres::Error),
}

impl From<postgres::Error> for BenchError {
    fn from(e: postgres::Error) -> BenchError {
        BenchError::Postgres(e)
    }
}

pub type Result<T> = std::result::Result<T, BenchError>;

impl BenchError {
    /// Whether trying again later may succeed: the database could not be reached (connection
    /// refused, no socket, timed out, connection lost, the server starting up or shutting
    /// down, out of connections) or was busy. Not so for what only a person can fix: a
    /// damaged, foreign or newer database, bad input, a refused login, a missing database.
    pub fn is_transient(&self) -> bool {
        match self {
            BenchError::Connect { transient, .. } => *transient,
            BenchError::Postgres(e) => postgres_transient(e),
            BenchError::Sql(e) => matches!(
                e.sqlite_error_code(),
                Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
            ),
            _ => false,
        }
    }
}

/// An error and what caused it, in one line: the postgres crate's errors say only their kind
/// ("error connecting to server", "db error"), their cause the rest.
pub fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let more = c.to_string();
        // thiserror's `{0}` has said it already.
        if !text.ends_with(&more) {
            text = format!("{text}: {more}");
        }
        cause = c.source();
    }
    text
}

/// What the server said ("ERROR: relation \"runs\" does not exist", with its detail and
/// hint), else the error and its causes.
fn postgres_message(e: &postgres::Error) -> String {
    e.as_db_error()
        .map_or_else(|| with_causes(e), ToString::to_string)
}

/// Whether a PostgreSQL error is the server out of reach rather than a refusal.
fn postgres_transient(e: &postgres::Error) -> bool {
    if let Some(state) = e.code() {
        let code = state.code();
        // Class 08: connection exceptions; 57P01-57P03: shutting down, crashed, starting
        // up; 53300: too many connections; 40001, 40P01: a serialization failure, a deadlock;
        // 57014: a statement cancelled (its statement_timeout: the server is overloaded).
        return code.starts_with("08")
            || matches!(
                code,
                "57P01" | "57P02" | "57P03" | "53300" | "40001" | "40P01" | "57014"
            );
    }
    if e.is_closed() {
        return true;
    }
    // Socket errors (connect, read, write, DNS) come as an io::Error source; what the kinds
    // below say will not change by waiting.
    use std::io::ErrorKind;
    std::error::Error::source(e)
        .and_then(|s| s.downcast_ref::<std::io::Error>())
        .is_some_and(|io| {
            !matches!(
                io.kind(),
                ErrorKind::PermissionDenied
                    | ErrorKind::InvalidInput
                    | ErrorKind::InvalidData
                    | ErrorKind::Unsupported
            )
        })
}

/// How long connecting to PostgreSQL may take when the URL sets no `connect_timeout`: long
/// enough for any network's handshake, short enough that a store between a suite's steps
/// never holds the measurement up for long.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// When the URL sets no `tcp_user_timeout`: a server that vanished mid-store (its host down,
/// the network cut) is given up after this rather than TCP's ~15 minutes of retransmissions.
const TCP_USER_TIMEOUT: Duration = Duration::from_secs(30);

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
    conn: RefCell<Conn>,
    location: Location,
}

/// The advisory lock PostgreSQL writers take to migrate the schema (any number: ssdlab's).
const MIGRATION_LOCK: i64 = 0x5353_444c_4142_0001;

/// An SQLite Bench: a regular file or none yet (a FIFO would block SQLite's open).
const DB_FILE: engine::regular_file::RegularFile =
    engine::regular_file::RegularFile::new("an SQLite database", u64::MAX);

impl Bench {
    /// Open (creating it and its directory if needed) and bring the schema up to date.
    /// `path` is what `--db` names: a path, `sqlite:PATH` or `postgres://...`.
    pub fn open(path: &Path) -> Result<Bench> {
        Bench::open_at(&Location::parse(path)?)
    }

    /// [`Bench::open`] at a location already parsed.
    pub fn open_at(location: &Location) -> Result<Bench> {
        match location.clone() {
            Location::Sqlite(path) => Bench::open_sqlite(&path),
            Location::Postgres(c) => {
                let bench = Bench::postgres(c)?;
                bench.migrate()?;
                Ok(bench)
            }
        }
    }

    fn open_sqlite(path: &Path) -> Result<Bench> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| BenchError::Input(format!("cannot create {}: {e}", dir.display())))?;
        }
        DB_FILE
            .check_output(path)
            .map_err(|e| BenchError::Input(format!("--db {}: {e}", path.display())))?;
        let conn = Connection::open(path)?;
        let bench = Bench::checked(conn, path)?;
        // Before anything is written: a damaged database stays exactly as it is.
        bench.check_integrity()?;
        bench.sqlite().pragma_update(None, "journal_mode", "WAL")?;
        bench.migrate()?;
        Ok(bench)
    }

    /// Open an existing database for reading only (the web page, list, show, compare,
    /// export). A Bench of an older schema is upgraded first, which is the only write; an
    /// empty or foreign database is never given the Bench's tables.
    pub fn open_read_only(path: &Path) -> Result<Bench> {
        Bench::open_read_only_at(&Location::parse(path)?)
    }

    /// [`Bench::open_read_only`] at a location already parsed.
    pub fn open_read_only_at(location: &Location) -> Result<Bench> {
        let path = match location.clone() {
            Location::Sqlite(path) => path,
            Location::Postgres(c) => {
                let bench = Bench::postgres(c)?;
                let version = bench.schema_version()?;
                if version == 0 {
                    return Err(BenchError::Missing {
                        path: bench.location.to_string(),
                    });
                }
                if version < SCHEMA_VERSION {
                    bench.migrate()?;
                }
                bench
                    .conn
                    .borrow_mut()
                    .batch("SET default_transaction_read_only = on")?;
                return Ok(bench);
            }
        };
        let path = path.as_path();
        let missing = || BenchError::Missing {
            path: path.display().to_string(),
        };
        DB_FILE
            .check_output(path)
            .map_err(|e| BenchError::Input(format!("--db {}: {e}", path.display())))?;
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
            Bench::open_sqlite(path)?;
            let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
            return Bench::checked(conn, path);
        }
        Ok(bench)
    }

    /// Where the Bench is: a file, or a PostgreSQL database (shown without its password).
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// Have the database end a statement that runs longer than `limit` (PostgreSQL's
    /// `statement_timeout`, an error worth trying again; SQLite has no server to ask).
    pub(crate) fn limit_statements(&self, limit: Duration) -> Result<()> {
        if self.is_postgres() {
            let ms = limit.as_millis().max(1);
            self.conn
                .borrow_mut()
                .batch(&format!("SET statement_timeout = {ms}"))?;
        }
        Ok(())
    }

    /// Whether the Bench is a PostgreSQL database.
    pub fn is_postgres(&self) -> bool {
        self.conn.borrow().is_postgres()
    }

    fn sqlite(&self) -> std::cell::RefMut<'_, Connection> {
        std::cell::RefMut::map(self.conn.borrow_mut(), |c| match c {
            Conn::Sqlite(c) => c,
            Conn::Postgres(_) => unreachable!("an SQLite Bench"),
        })
    }

    /// Connect to a PostgreSQL Bench and refuse, before anything is written, a database
    /// that is another program's or too new.
    fn postgres(c: ConnectionString) -> Result<Bench> {
        let client = connect(postgres_config(&c)?, &c)?;
        let bench = Bench {
            conn: RefCell::new(Conn::Postgres(client)),
            location: Location::Postgres(c),
        };
        let row = bench.conn.borrow_mut().query_one(
            "SELECT (SELECT count(*) FROM information_schema.tables
                     WHERE table_schema = current_schema() AND table_name <> 'ssdlab_schema'),
                    to_regclass('ssdlab_schema') IS NOT NULL, to_regclass('runs') IS NOT NULL",
            &[],
        )?;
        let (tables, versioned, ours): (i64, bool, bool) = (row.get(0)?, row.get(1)?, row.get(2)?);
        let found = if versioned { bench.version()? } else { 0 };
        bench.refuse(found, tables, ours, "a PostgreSQL database")?;
        Ok(bench)
    }

    /// Refuse a database too new, or another program's.
    fn refuse(&self, found: u32, tables: i64, ours: bool, what: &str) -> Result<()> {
        let path = self.location.to_string();
        if found > SCHEMA_VERSION {
            return Err(BenchError::Newer {
                path,
                found,
                latest: SCHEMA_VERSION,
            });
        }
        if found == 0 && tables > 0 {
            // A new database is empty; one with tables but no version is another program's,
            // and the Bench's tables must not be added to it.
            return Err(BenchError::NotADatabase {
                path,
                detail: format!("{what} of another program, with {tables} tables or indexes and no Bench schema"),
            });
        }
        if found > 0 && !ours {
            // Our tables must be there: a stranger's database with a version is not ours.
            return Err(BenchError::NotADatabase {
                path,
                detail: "no runs table".into(),
            });
        }
        Ok(())
    }

    /// Refuse, before anything is written, a file that is not a database or is too new.
    fn checked(conn: Connection, path: &Path) -> Result<Bench> {
        conn.busy_timeout(Duration::from_secs(60))?;
        // One statement, so one snapshot: another writer creating the schema meanwhile is
        // seen either not at all or whole (tables and version together), never as tables
        // without a version, which would look like another program's database.
        let (found, tables, ours): (u32, i64, i64) = conn
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
        let bench = Bench {
            conn: RefCell::new(Conn::Sqlite(conn)),
            location: Location::Sqlite(path.to_path_buf()),
        };
        bench.refuse(found, tables, ours > 0, "an SQLite database")?;
        bench.sqlite().pragma_update(None, "foreign_keys", "ON")?;
        Ok(bench)
    }

    /// SQLite's `quick_check` (the integrity check without matching indexes to tables): cheap
    /// next to a run, and it finds damaged pages before a write spreads them.
    fn check_integrity(&self) -> Result<()> {
        let damaged = |detail: String| BenchError::Damaged {
            path: self.location.to_string(),
            detail,
        };
        let conn = self.sqlite();
        let mut q = conn
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

    fn version(&self) -> Result<u32> {
        version(&mut self.conn.borrow_mut())
    }

    /// Apply the migrations this database lacks, all in one transaction. Taking the write
    /// lock first (SQLite's, or an advisory lock on PostgreSQL) means two processes opening
    /// a new database migrate it once.
    fn migrate(&self) -> Result<()> {
        if self.version()? == SCHEMA_VERSION {
            return Ok(());
        }
        let mut conn = self.conn.borrow_mut();
        let postgres = conn.is_postgres();
        let mut tx = conn.begin_write()?;
        if postgres {
            tx.batch(&format!(
                "SELECT pg_advisory_xact_lock({MIGRATION_LOCK});
                 CREATE TABLE IF NOT EXISTS ssdlab_schema (version BIGINT NOT NULL);"
            ))?;
        }
        let from = version(&mut tx)?;
        if from > SCHEMA_VERSION {
            return Err(BenchError::Newer {
                path: self.location.to_string(),
                found: from,
                latest: SCHEMA_VERSION,
            });
        }
        for (i, sql) in schema::MIGRATIONS.iter().enumerate().skip(from as usize) {
            match postgres {
                true => tx.batch(&conn::postgres_ddl(sql))?,
                false => tx.batch(sql)?,
            }
            if i + 1 == schema::RUN_IDS as usize {
                store::backfill_run_ids(&mut tx)?;
            }
            if i + 1 == schema::WATTS as usize {
                store::backfill_power(&mut tx)?;
            }
            if i + 1 == schema::INTERFACES as usize {
                store::backfill_interfaces(&mut tx)?;
            }
        }
        match postgres {
            true => tx.batch(&format!(
                "DELETE FROM ssdlab_schema; INSERT INTO ssdlab_schema VALUES ({SCHEMA_VERSION});"
            ))?,
            false => tx.batch(&format!("PRAGMA user_version = {SCHEMA_VERSION}"))?,
        }
        tx.commit()?;
        Ok(())
    }

    /// The schema version of the open database.
    pub fn schema_version(&self) -> Result<u32> {
        self.version()
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

/// The schema version a database holds: SQLite's `user_version`, or the row of
/// PostgreSQL's `ssdlab_schema` (0 where there is none).
fn version(conn: &mut Conn) -> Result<u32> {
    let row = match conn.is_postgres() {
        true => {
            let exists: bool = conn
                .query_one("SELECT to_regclass('ssdlab_schema') IS NOT NULL", &[])?
                .get(0)?;
            if !exists {
                return Ok(0);
            }
            conn.query_opt("SELECT version FROM ssdlab_schema", &[])?
        }
        false => conn.query_opt("PRAGMA user_version", &[])?,
    };
    row.map_or(Ok(0), |r| r.get(0))
}

/// Connect within twice the connect timeout. The postgres crate's `connect_timeout` bounds
/// each socket connect only (libpq's bounds the whole), so a server that accepts but never
/// answers (stopped, overloaded, a stuck proxy) would hang the caller: the attempt runs on a
/// thread of its own, left behind if it does not finish in time.
fn connect(config: postgres::Config, at: &ConnectionString) -> Result<postgres::Client> {
    let limit = 2 * config
        .get_connect_timeout()
        .copied()
        .unwrap_or(CONNECT_TIMEOUT);
    let password = config.get_password().map(<[u8]>::to_vec);
    let failed = |detail: String, transient: bool| BenchError::Connect {
        path: at.to_string(),
        detail: at.scrubbed(&detail, password.as_deref()),
        transient,
    };
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("bench-connect".into())
        .spawn(move || {
            let _ = tx.send(config.connect(postgres::NoTls));
        })
        .map_err(|e| failed(format!("cannot start a thread: {e}"), true))?;
    match rx.recv_timeout(limit) {
        Ok(Ok(client)) => Ok(client),
        Ok(Err(e)) => Err(failed(with_causes(&e), postgres_transient(&e))),
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(failed(
            format!(
                "no answer within {} s (the URL's ?connect_timeout=SECONDS sets half this wait)",
                limit.as_secs()
            ),
            true,
        )),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            Err(failed("the attempt to connect failed".into(), false))
        }
    }
}

/// A PostgreSQL connection string, completed from libpq's environment variables (PGHOST,
/// PGPORT, PGUSER, PGPASSWORD, PGDATABASE) where it says nothing, and with timeouts (see
/// [`CONNECT_TIMEOUT`]) where it sets none. TLS is not offered: use a Unix socket or a
/// trusted network.
fn postgres_config(conn: &ConnectionString) -> Result<postgres::Config> {
    let mut c = conn.config()?;
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    if c.get_hosts().is_empty() {
        let host = env("PGHOST").unwrap_or_else(|| {
            let socket = "/var/run/postgresql";
            match Path::new(socket).is_dir() {
                true => socket.into(),
                false => "localhost".into(),
            }
        });
        for h in host.split(',') {
            match h.starts_with('/') {
                true => c.host_path(h),
                false => c.host(h),
            };
        }
    }
    if c.get_ports().is_empty() {
        if let Some(port) = env("PGPORT").and_then(|p| p.parse().ok()) {
            c.port(port);
        }
    }
    if c.get_user().is_none() {
        if let Some(user) = env("PGUSER").or_else(|| env("USER")) {
            c.user(&user);
        }
    }
    if c.get_password().is_none() {
        if let Some(pw) = env("PGPASSWORD") {
            c.password(pw);
        }
    }
    if c.get_dbname().is_none() {
        if let Some(db) = env("PGDATABASE") {
            c.dbname(&db);
        }
    }
    if c.get_application_name().is_none() {
        c.application_name("ssdlab");
    }
    if c.get_connect_timeout().is_none() {
        c.connect_timeout(CONNECT_TIMEOUT);
    }
    if c.get_tcp_user_timeout().is_none() {
        c.tcp_user_timeout(TCP_USER_TIMEOUT);
    }
    Ok(c)
}

#[cfg(test)]
pub(crate) mod tests;
