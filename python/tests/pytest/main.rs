//! The Python package's tests, run by pytest inside `cargo test`: each test here runs one
//! `python/tests/test_*.py` against the extension cargo just built (this crate's cdylib,
//! `deps/lib_ssdlab.so`, imported as `ssdlab._ssdlab` from a temporary directory) and the
//! `ssdlab` binary the Python tests compare with.
//!
//! A missing Python module skips (under `CI`, fails: `.ci/run` installs them with pip).

use std::path::{Path, PathBuf};
use std::process::Command;

/// What the Python tests import, beside `ssdlab`.
const MODULES: [&str; 6] = [
    "pytest",
    "pyarrow",
    "pandas",
    "numpy",
    "dask",
    "distributed",
];
const PIP: &str = "python3 -m pip install pytest pyarrow pandas numpy dask distributed \
                   (.ci/run installs them in a virtual environment and sets PYTHON to it)";

/// The Python the tests run with: `PYTHON`, else the one the extension was built for
/// (`PYO3_PYTHON`), else `python3`.
fn python() -> String {
    std::env::var("PYTHON")
        .or_else(|_| std::env::var("PYO3_PYTHON"))
        .unwrap_or_else(|_| "python3".into())
}

/// The Python modules the tests need that `python` cannot import.
fn missing_modules(python: &str) -> Result<Vec<&'static str>, String> {
    let mut missing = Vec::new();
    for m in MODULES {
        let out = Command::new(python)
            .args(["-c", &format!("import {m}")])
            .output()
            .map_err(|e| format!("{python}: {e}"))?;
        if !out.status.success() {
            missing.push(m);
        }
    }
    Ok(missing)
}

/// `target/<profile>`, where cargo put this crate's cdylib and the `ssdlab` binary.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let deps = exe
        .parent()
        .expect("the test binary is in target/<profile>/deps");
    deps.parent().expect("target/<profile>").to_path_buf()
}

/// The `ssdlab` binary: `cargo test --workspace` builds it for the CLI's tests; when this
/// crate's tests run alone (`cargo test -p ssdlab-python`) and it is missing, it is built.
/// It is not rebuilt when present: `cargo build -p ssdlab` unifies features over other
/// packages than the workspace's build and would replace the binary under the CLI's
/// tests running beside these.
fn ssdlab_binary(dir: &Path) -> PathBuf {
    let bin = dir.join("ssdlab");
    if bin.exists() {
        return bin;
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--quiet", "-p", "ssdlab", "--bin", "ssdlab"]);
    if dir.file_name().is_some_and(|n| n == "release") {
        cmd.arg("--release");
    }
    let status = cmd.status().expect("running cargo to build ssdlab");
    assert!(status.success(), "building the ssdlab binary failed");
    bin
}

/// Run pytest on one of `python/tests/`'s files; passes when every test in it passes.
fn pytest(file: &str) {
    pytest_with(file, &[]);
}

/// [`pytest`] with more environment variables.
fn pytest_with(file: &str, env: &[(&str, &str)]) {
    let python = python();
    let missing = match missing_modules(&python) {
        Ok(m) => m,
        Err(e) => {
            test_support::skip(&format!("Python 3 ({e})"), "install python3");
            return;
        }
    };
    if !missing.is_empty() {
        test_support::skip(
            &format!("the Python modules {}", missing.join(", ")),
            &format!("pip install them: {PIP}"),
        );
        return;
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = profile_dir();
    // Built beside this test binary as its dependency (cargo copies it up to target/<profile>
    // only for `cargo build`, which may be older).
    let lib = dir.join("deps").join("lib_ssdlab.so");
    assert!(
        lib.exists(),
        "{} is missing: cargo builds it as this crate's library",
        lib.display()
    );
    let ssdlab = ssdlab_binary(&dir);

    // The package as `pip install` lays it out: the Python half and the extension beside it.
    let site = tempfile::tempdir().unwrap();
    let pkg = site.path().join("ssdlab");
    std::fs::create_dir(&pkg).unwrap();
    for entry in std::fs::read_dir(manifest.join("ssdlab")).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "py") {
            std::fs::copy(&p, pkg.join(p.file_name().unwrap())).unwrap();
        }
    }
    std::fs::copy(&lib, pkg.join("_ssdlab.so")).unwrap();

    let test = manifest.join("tests").join(file);
    let out = Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs"])
        .arg(&test)
        .current_dir(site.path())
        .env("PYTHONPATH", site.path())
        // Nothing written into the source tree (python/tests/__pycache__).
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("SSDLAB_CLI", &ssdlab)
        .env("SSDLAB_REPO", manifest.parent().unwrap())
        .envs(env.iter().copied())
        .output()
        .expect("running pytest");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}{stderr}");
    assert!(
        out.status.success(),
        "pytest {} failed:\n{stdout}{stderr}",
        test.display()
    );
    // A skipped Python test hides a missing piece as a skipped Rust test would.
    if let Some(line) = stdout.lines().rev().find(|l| l.contains(" skipped")) {
        test_support::skip(&format!("what pytest skipped ({line})"), PIP);
    }
}

#[test]
fn trace() {
    pytest("test_trace.py");
}

#[test]
fn sim() {
    pytest("test_sim.py");
}

#[test]
fn run() {
    pytest("test_run.py");
}

#[test]
fn sweep() {
    pytest("test_sweep.py");
}

#[test]
fn fit() {
    pytest("test_fit.py");
}

#[test]
fn bench() {
    // The Bench's PostgreSQL side: a database on a server of the tests' own.
    let Some(server) = test_support::postgres::shared() else {
        return;
    };
    let url = server.new_database();
    pytest_with("test_bench.py", &[("SSDLAB_TEST_POSTGRES", &url)]);
}
