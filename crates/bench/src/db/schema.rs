//! The Bench database's schema as a list of migrations. `PRAGMA user_version` holds how many
//! have been applied; opening a database applies the rest in one transaction. Append new
//! migrations; never edit one that has shipped.

/// Migration `i` takes a database from schema version `i` to `i + 1`.
pub const MIGRATIONS: &[&str] = &[
    // 1: drives, test systems, runs, results and their series.
    "
    CREATE TABLE drives (
        id INTEGER PRIMARY KEY,
        identity_key TEXT NOT NULL UNIQUE,  -- kind, model, serial, capacity (or path)
        kind TEXT NOT NULL,
        model TEXT,
        serial TEXT,
        firmware TEXT,
        vendor TEXT,
        capacity_bytes INTEGER NOT NULL,
        identity TEXT NOT NULL              -- engine::Identity as JSON
    );
    CREATE TABLE systems (
        id INTEGER PRIMARY KEY,
        system_key TEXT NOT NULL UNIQUE,
        hostname TEXT NOT NULL,
        cpu TEXT NOT NULL,
        cores INTEGER NOT NULL,
        memory_bytes INTEGER NOT NULL,
        kernel TEXT NOT NULL,
        os TEXT NOT NULL
    );
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        run_key TEXT NOT NULL UNIQUE,       -- so a results directory is stored once
        drive_id INTEGER NOT NULL REFERENCES drives(id),
        system_id INTEGER NOT NULL REFERENCES systems(id),
        kind TEXT NOT NULL,                 -- 'suite' or 'test'
        target_spec TEXT NOT NULL,
        started_at TEXT NOT NULL,
        tool_version TEXT NOT NULL,
        quick INTEGER NOT NULL,
        complete INTEGER NOT NULL,
        source TEXT,                        -- the results directory it came from
        stored_at TEXT NOT NULL
    );
    CREATE TABLE results (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        test TEXT NOT NULL,
        variant TEXT,
        label TEXT NOT NULL,
        started_at TEXT NOT NULL,
        complete INTEGER NOT NULL,
        iops REAL NOT NULL,
        mbps REAL NOT NULL,
        parameters TEXT NOT NULL,           -- JSON
        analysis TEXT NOT NULL,             -- JSON
        body TEXT NOT NULL                  -- the whole suite::result::TestResult as JSON
    );
    CREATE INDEX results_by_run ON results(run_id);
    -- Per-second points and curve points, for queries; `body` holds them too.
    CREATE TABLE series (
        result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,
        kind TEXT NOT NULL,                 -- 'second' or 'curve'
        idx INTEGER NOT NULL,
        x REAL NOT NULL,                    -- second, or the curve's x (e.g. transfer size)
        iops REAL NOT NULL,
        mbps REAL NOT NULL,
        read_mbps REAL,
        write_mbps REAL,
        PRIMARY KEY (result_id, kind, idx)
    ) WITHOUT ROWID;
    ",
    // 2: what a user knows of a drive that it cannot tell (bench annotate), and lookups by test.
    "
    CREATE TABLE drive_specs (
        drive_id INTEGER PRIMARY KEY REFERENCES drives(id) ON DELETE CASCADE,
        name TEXT,
        controller TEXT,
        nand TEXT,
        dram TEXT,
        price_usd REAL,
        notes TEXT,
        updated_at TEXT NOT NULL
    );
    CREATE INDEX results_by_test ON results(test, variant);
    ",
    // 3: a run's identity, the UUID it was given as it started; runs are stored once by it.
    // (Runs stored before get one derived from their results: `store::backfill_run_ids`.)
    "
    ALTER TABLE runs ADD COLUMN uuid TEXT;
    CREATE UNIQUE INDEX runs_by_uuid ON runs(uuid);
    ",
    // 4: the drive's mean power in each second (NULL where it is missing, never 0 W), and
    // the mean over each result's measured phase, for queries; `body` holds them too.
    // (Results stored before get theirs from their bodies: `store::backfill_power`.)
    "
    ALTER TABLE series ADD COLUMN watts REAL;
    ALTER TABLE results ADD COLUMN mean_w REAL;
    ",
    // 5: the host interface (NVMe, SATA, ...) a lab filters drives by, and the index the
    // drive list's per-drive run counts and newest runs need once a Bench holds thousands.
    // (Drives stored before get theirs from their identities: `store::backfill_interfaces`.)
    "
    ALTER TABLE drives ADD COLUMN interface TEXT;
    CREATE INDEX runs_by_drive ON runs(drive_id, started_at);
    ",
];

/// The version that gave drives their interface.
pub const INTERFACES: u32 = 5;

/// The version that gave series their watts.
pub const WATTS: u32 = 4;

/// The version that gave runs their identity.
pub const RUN_IDS: u32 = 3;

/// The schema version this build writes.
pub const LATEST: u32 = MIGRATIONS.len() as u32;
