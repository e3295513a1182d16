//! Paths ssdlab reads or writes are regular files: a FIFO (or /dev/zero) given as a log, a
//! trace, a claims file or the Bench is refused at once, naming it, instead of blocking in
//! open() or reading without end (issue #66, item 13).

use std::path::{Path, PathBuf};

use crate::common::*;

fn fifo(dir: &Path) -> PathBuf {
    let path = dir.join("fifo");
    let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo(3) with a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    path
}

fn refused(o: &std::process::Output, flag: &str) {
    let t = text(o);
    assert_eq!(o.status.code(), Some(2), "{flag}: {t}");
    assert!(t.contains("not a regular file"), "{flag}: {t}");
}

/// A log given as a FIFO is refused before the run starts. A reader holds the FIFO open, so
/// that without the check the run would write into it and succeed.
#[test]
fn a_fifo_log_is_refused_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = fifo(dir.path());
    let _reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    let out = dir.path().join("out");
    let shown = fifo.to_str().unwrap();
    for flag in ["--hist-log", "--iolog"] {
        let o = run(&[
            "run",
            "custom",
            "--target",
            "sim:default",
            "--ios",
            "200",
            "-q",
            "--no-store",
            flag,
            shown,
            "--out",
            out.to_str().unwrap(),
        ]);
        refused(&o, flag);
        assert!(text(&o).contains(flag), "{}", text(&o));
    }
}

/// Inputs: a trace, a per-IO log, a claims file, the Bench; FIFOs and /dev/zero.
#[test]
fn fifo_and_device_inputs_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = fifo(dir.path());
    let twin = dir.path().join("twin.toml");
    for path in [fifo.to_str().unwrap(), "/dev/zero"] {
        let cases: Vec<(&str, Vec<&str>)> = vec![
            ("trace stats", vec!["trace", "stats", path]),
            (
                "trace stats --format fio-iolog",
                vec!["trace", "stats", path, "--format", "fio-iolog"],
            ),
            ("log csv", vec!["log", "csv", path]),
            (
                "sim fit --claims",
                vec!["sim", "fit", "--claims", path, "--drive", "x", "-o"],
            ),
            ("--db", vec!["bench", "list", "--db", path]),
        ];
        for (what, mut args) in cases {
            if what.starts_with("sim fit") {
                args.push(twin.to_str().unwrap());
            }
            refused(&run(&args), what);
        }
    }
}

use std::os::unix::fs::OpenOptionsExt;
