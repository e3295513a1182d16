//! A results directory: one JSON per test result, its per-second series as CSV, and for a
//! suite `suite.json` listing every step. Written as results arrive, so an interrupted run
//! keeps what it measured and `--resume` can carry on.
//!
//! A run has an identity of its own, a UUID made as it starts: written into the directory
//! (`run-id`) before anything is measured, and into every result (and `suite.json`), so the
//! Bench stores each run once however many start in the same second.

use std::path::{Path, PathBuf};

use crate::result::TestResult;
use crate::SuiteError;

fn io_err(path: &Path, e: impl std::fmt::Display) -> SuiteError {
    SuiteError::Output(format!("{}: {e}", path.display()))
}

/// The most ssdlab reads of one result file (or `suite.json`): a longer file is not a
/// result (a week of per-second points is a few tens of MiB).
pub const MAX_RESULT_BYTES: u64 = 256 << 20;

/// What a results directory's files are, to read them ([`read_capped`]).
const RESULT_FILE: engine::regular_file::RegularFile =
    engine::regular_file::RegularFile::new("an ssdlab result", MAX_RESULT_BYTES);

/// Read a file of a results directory: a regular file only (a FIFO would wait for a writer
/// forever, a device such as /dev/zero never ends), of at most [`MAX_RESULT_BYTES`].
pub fn read_capped(path: &Path) -> Result<Vec<u8>, SuiteError> {
    RESULT_FILE.read(path).map_err(|e| io_err(path, e))
}

/// Parse one result file's bytes (`path` names it in errors). Older results read with
/// defaults for what they lack; newer ones may mean something this version cannot know.
pub fn parse_result(bytes: &[u8], path: &Path) -> Result<TestResult, SuiteError> {
    let value: serde_json::Value = serde_json::from_slice(bytes)
        .map_err(|e| io_err(path, format!("not an ssdlab test result ({e})")))?;
    let version = value["schema_version"].as_u64().unwrap_or(0);
    if version > crate::result::SCHEMA_VERSION as u64 {
        return Err(io_err(
            path,
            format!(
                "result schema {version} is newer than this ssdlab's ({}): use a newer ssdlab",
                crate::result::SCHEMA_VERSION
            ),
        ));
    }
    serde_json::from_value(value)
        .map_err(|e| io_err(path, format!("not an ssdlab test result ({e})")))
}

/// The file that names the run a results directory was made by.
pub const RUN_ID_FILE: &str = "run-id";

/// A new run's identity: a random (version 4) UUID.
pub fn new_run_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Mark `dir` (created if need be) as the directory of the new run `run_id`, as the run
/// starts. A directory that already holds results is refused: a second run there would
/// overwrite the first's (`--resume` carries on a suite through [`resume_run`]). The mark is
/// made with create-new, so of two runs starting in one directory at once only one has it.
pub fn start_run(dir: &Path, run_id: &str) -> Result<(), SuiteError> {
    std::fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
    check_unused(dir)?;
    let mark = dir.join(RUN_ID_FILE);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&mark)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => holds_results(dir),
            _ => io_err(&mark, e),
        })?;
    std::io::Write::write_all(&mut file, format!("{run_id}\n").as_bytes())
        .map_err(|e| io_err(&mark, e))
}

/// Mark `dir`, a directory the user named for `ssdlab run TEST`, as run `run_id`'s. It may
/// hold other tests' results (a drive's tests gathered for `sim fit` or a report), but not
/// this test's: those the run would overwrite, so they are refused.
pub fn add_run(dir: &Path, run_id: &str, test: &str) -> Result<(), SuiteError> {
    std::fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
    let entries = std::fs::read_dir(dir).map_err(|e| io_err(dir, e))?;
    let overwrites = entries.flatten().any(|e| {
        let name = e.file_name();
        let name = name.to_string_lossy();
        name.strip_suffix(".json")
            .is_some_and(|stem| stem == test || stem.starts_with(&format!("{test}-")))
    });
    if overwrites {
        return Err(SuiteError::Parameter(format!(
            "{} already holds results of {test}, which this run would overwrite: give \
             another --out (or none, for a new directory under results/)",
            dir.display()
        )));
    }
    write_atomic(&dir.join(RUN_ID_FILE), format!("{run_id}\n").as_bytes())
}

/// Mark `dir` as the directory of run `run_id` carried on by `--resume`.
pub fn resume_run(dir: &Path, run_id: &str) -> Result<(), SuiteError> {
    std::fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
    write_atomic(&dir.join(RUN_ID_FILE), format!("{run_id}\n").as_bytes())
}

/// Refuse a directory that holds a run's results (or its mark): a new run there would
/// overwrite them. A missing or empty directory, or one of other files, is fine.
pub fn check_unused(dir: &Path) -> Result<(), SuiteError> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    let taken = entries.flatten().any(|e| {
        let name = e.file_name();
        let name = name.to_string_lossy();
        name == RUN_ID_FILE || name.ends_with(".json")
    });
    match taken {
        true => Err(holds_results(dir)),
        false => Ok(()),
    }
}

fn holds_results(dir: &Path) -> SuiteError {
    SuiteError::Parameter(format!(
        "{} already holds the results of a run, which a new run would overwrite: give \
         another --out (or none, for a new directory under results/), or carry on an \
         interrupted suite with `suite --resume {}`",
        dir.display(),
        dir.display()
    ))
}

/// The most directories [`create_new`] tries: `BASE`, `BASE-2`, ... `BASE-1000`.
const MAX_SUFFIX: u32 = 1000;

/// Create a new directory for a run's results named `base`, or `base-2`, `base-3`, ... when
/// that is taken: each created with create_dir, which fails when the name exists, so runs
/// started in the same second (default names are to the second) never share one.
pub fn create_new(base: &Path) -> Result<PathBuf, SuiteError> {
    if let Some(parent) = base.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| io_err(parent, e))?;
    }
    for n in 1..=MAX_SUFFIX {
        let dir = match n {
            1 => base.to_path_buf(),
            n => PathBuf::from(format!("{}-{n}", base.display())),
        };
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io_err(&dir, e)),
        }
    }
    Err(io_err(
        base,
        format!("{MAX_SUFFIX} directories of this name exist already: give --out"),
    ))
}

/// Undo [`start_run`] for a run that measured nothing: the mark goes, and the directory too
/// when nothing else is in it.
pub fn abandon_run(dir: &Path) {
    let _ = std::fs::remove_file(dir.join(RUN_ID_FILE));
    let _ = std::fs::remove_dir(dir);
}

/// The per-second series as CSV.
pub fn per_second_csv(r: &TestResult) -> String {
    engine::measure::Measurements {
        summary: r.summary.clone(),
        per_second: r.per_second.clone(),
    }
    .per_second_csv()
}

/// Write one result (`STEM.json`, `STEM.per_second.csv`); returns the JSON's path.
pub fn write_result(dir: &Path, r: &TestResult) -> Result<PathBuf, SuiteError> {
    std::fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
    let stem = r.file_stem();
    let json = dir.join(format!("{stem}.json"));
    let text = serde_json::to_string_pretty(r).map_err(|e| io_err(&json, e))?;
    write_atomic(&json, text.as_bytes())?;
    let csv = dir.join(format!("{stem}.per_second.csv"));
    write_atomic(&csv, per_second_csv(r).as_bytes())?;
    Ok(json)
}

/// Write via a temporary file and rename, so a crash never leaves half a file; one that
/// cannot be written leaves no temporary file behind either.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), SuiteError> {
    let tmp = path.with_extension("tmp");
    let written = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        SuiteError::Output(write_failure(path, &e))
    })
}

/// Why `path` could not be written, naming a full filesystem (or a file-size limit) and
/// what to do about it.
pub fn write_failure(path: &Path, e: &std::io::Error) -> String {
    use std::io::ErrorKind;
    let fix = match e.kind() {
        ErrorKind::StorageFull | ErrorKind::QuotaExceeded => {
            ": the filesystem holding it is full; free some space there or write elsewhere"
        }
        ErrorKind::FileTooLarge => {
            ": larger than this process may write (ulimit -f) or the filesystem holds"
        }
        _ => "",
    };
    format!("writing {}: {e}{fix}", path.display())
}

/// Every test result in a directory, sorted by start time.
pub fn read_results(dir: &Path) -> Result<Vec<TestResult>, SuiteError> {
    Ok(read_results_with_paths(dir)?
        .into_iter()
        .map(|(_, r)| r)
        .collect())
}

/// Every test result in a directory with the file it was read from, sorted by start time.
pub fn read_results_with_paths(dir: &Path) -> Result<Vec<(PathBuf, TestResult)>, SuiteError> {
    let entries = std::fs::read_dir(dir).map_err(|e| io_err(dir, e))?;
    let mut results = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !name.ends_with(".json") || name == "suite.json" {
            continue;
        }
        let r = parse_result(&read_capped(&path)?, &path)?;
        results.push((path, r));
    }
    results.sort_by(|(_, a), (_, b)| {
        a.started_at
            .cmp(&b.started_at)
            .then(a.file_stem().cmp(&b.file_stem()))
    });
    Ok(results)
}
