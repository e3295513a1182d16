//! `run custom --fio FILE` on job files from fio's own `examples/` (tests/fixtures/fio-examples):
//! each one within the subset runs on the same target as fio itself, both shortened alike (a
//! small size and no time basis, so each job ends after its bytes), and each job moves the
//! same bytes as fio's, with the same share of reads; the others are refused by the option
//! and line that take them outside the subset. (Agreement in IOPS is a timing, so it is a
//! benchmark: benches/fio-jobs.sh.)

use crate::common::*;

use std::path::{Path, PathBuf};

/// The examples ssdlab runs, with what shortens each (beside `size`).
const RUNS: [(&str, &[(&str, &str)]); 12] = [
    ("fio-rand-read", &[]),
    ("fio-rand-write", &[]),
    ("fio-rand-RW", &[]),
    ("fio-seq-read", &[]),
    ("fio-seq-write", &[]),
    ("fio-seq-RW", &[]),
    ("ssd-test", &[]),
    ("iometer-file-access-server", &[]),
    ("rand-zones", &[]),
    ("tiobench-example", &[]),
    // Rate-limited: fewer IOs, so the rate ends them in about a second.
    (
        "poisson-rate-submission",
        &[("size", "256k"), ("rate_iops", "100")],
    ),
    ("fixed-rate-submission", &[("size", "1m")]),
];

const SIZE: &str = "16m";

/// What a shortened example leaves out.
const DROPPED: [&str; 5] = [
    "time_based",
    "ramp_time",
    "filename",
    "directory",
    "io_submit_mode",
];

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fio-examples")
        .join(format!("{name}.fio"))
}

/// The example shortened: `size` is SIZE (or the case's), `time_based` and `ramp_time` are
/// dropped so a job ends after its bytes, the target comes from the command line. And
/// `io_submit_mode` is dropped: fio 3.33 with `offload` and a rate never ends its job (stuck
/// for 300 s, then a double free); it changes only how fio submits, which ssdlab ignores.
fn shortened(name: &str, set: &[(&str, &str)]) -> String {
    let text = std::fs::read_to_string(example(name)).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        let key = line.split(['=', ';', '#']).next().unwrap_or("").trim();
        if DROPPED.contains(&key) {
            continue;
        }
        let value = match set.iter().find(|(k, _)| *k == key) {
            Some((_, v)) => Some(*v),
            None => (key == "size").then_some(SIZE),
        };
        match value {
            Some(v) => out.push_str(&format!("{key}={v}\n")),
            None => out.push_str(&format!("{line}\n")),
        }
    }
    out
}

/// Bytes (read, written) of each job in order: fio reports a job's copies in its group.
fn fio_jobs(job_file: &Path, target: &str) -> Vec<(u64, u64)> {
    let o = std::process::Command::new("fio")
        .arg("--output-format=json")
        .arg(format!("--filename={target}"))
        .arg(job_file)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "fio {}: {}",
        job_file.display(),
        text(&o)
    );
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut groups: Vec<(u64, (u64, u64))> = Vec::new();
    for job in report["jobs"].as_array().unwrap() {
        let group = job["groupid"].as_u64().unwrap();
        let bytes = |d: &str| job[d]["io_bytes"].as_u64().unwrap();
        match groups.last_mut() {
            Some((g, (r, w))) if *g == group => {
                *r += bytes("read");
                *w += bytes("write");
            }
            _ => groups.push((group, (bytes("read"), bytes("write")))),
        }
    }
    groups.into_iter().map(|(_, b)| b).collect()
}

fn ssdlab_jobs(job_file: &Path, target: &str, confirm: &str, out: &Path) -> Vec<(u64, u64)> {
    let json = out.with_extension("json");
    let o = ssdlab()
        .args([
            "run",
            "custom",
            "-q",
            "--no-store",
            "--target",
            target,
            confirm,
        ])
        .arg("--fio")
        .arg(job_file)
        .arg("--out")
        .arg(out)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}: {}", job_file.display(), text(&o));
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let results = match r {
        serde_json::Value::Array(many) => many,
        one => vec![one],
    };
    results
        .iter()
        .map(|r| {
            let bytes = |d: &str| r["summary"][d]["bytes"].as_u64().unwrap_or(0);
            (bytes("read"), bytes("write"))
        })
        .collect()
}

#[test]
fn fios_examples_move_the_same_bytes_as_fio_job_by_job() {
    if !test_support::tool("fio") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ram = LoopDev::try_ram("fiojobs", "128M");
    let file = dir.path().join("t.img");
    let (fio_target, ours, confirm) = match &ram {
        Some(l) => (
            l.dev().to_string(),
            l.dev().to_string(),
            l.dev().to_string(),
        ),
        None => {
            std::fs::write(&file, vec![0u8; 128 << 20]).unwrap();
            let f = file.display().to_string();
            (f.clone(), format!("file:{f}"), f)
        }
    };
    let confirm = format!("--destroy-data={confirm}");
    for (name, set) in RUNS {
        let job_file = dir.path().join(format!("{name}.fio"));
        std::fs::write(&job_file, shortened(name, set)).unwrap();
        let theirs = fio_jobs(&job_file, &fio_target);
        let mine = ssdlab_jobs(&job_file, &ours, &confirm, &dir.path().join(name));
        assert_eq!(
            mine.len(),
            theirs.len(),
            "{name}: jobs {mine:?} against fio's {theirs:?}"
        );
        for (job, (&(r, w), &(fr, fw))) in mine.iter().zip(&theirs).enumerate() {
            // A mix of sizes may end one IO apart: at most the largest block, 64 KiB.
            let (total, fio_total) = (r + w, fr + fw);
            assert!(
                total.abs_diff(fio_total) <= 64 << 10,
                "{name} job {job}: {total} bytes against fio's {fio_total}"
            );
            let share = |r: u64, t: u64| r as f64 / t as f64;
            assert!(
                (share(r, total) - share(fr, fio_total)).abs() < 0.05,
                "{name} job {job}: reads {r} of {total} against fio's {fr} of {fio_total}"
            );
        }
    }
}

/// What `ssdlab run TEST --target sim:... ARGS --fio FILE` says when it refuses.
fn refusal(test: &str, args: &[&str], file: &Path) -> String {
    let o = ssdlab()
        .args(["run", test, "--target", "sim:ultra-plus-256", "--no-store"])
        .args(args)
        .arg("--fio")
        .arg(file)
        .output()
        .unwrap();
    assert!(
        !o.status.success(),
        "{test} {args:?} {}: {}",
        file.display(),
        text(&o)
    );
    text(&o)
}

#[test]
fn examples_outside_the_subset_are_refused_by_option_and_line() {
    for (name, says) in [
        ("zipf", "line 5: ioengine=null"),
        (
            "aio-read",
            "jobs 'file1' and 'file2' (line 13) run together",
        ),
        ("backwards-read", "line 6: rw=read:-8k"),
        ("jesd219", "blockalign=4096"),
    ] {
        let said = refusal("custom", &[], &example(name));
        assert!(said.contains(says), "{name}: {said}");
    }
}

#[test]
fn fio_is_given_with_the_custom_test_and_without_the_workloads_flags() {
    let job = example("ssd-test");
    let said = refusal("corners", &[], &job);
    assert!(said.contains("`run custom`"), "{said}");
    let said = refusal("custom", &["--qd", "4"], &job);
    assert!(said.contains("--qd"), "{said}");
    let said = refusal("custom", &[], Path::new("/dev/null"));
    assert!(said.contains("not a regular file"), "{said}");
}

/// `--fio-job` writes the job file of each measured phase; `--fio` reads it back to the same
/// workloads, result by result, and fio itself parses it.
#[test]
fn a_runs_fio_job_file_reads_back_as_the_same_workloads() {
    let dir = tempfile::tempdir().unwrap();
    let job_file = dir.path().join("quick.fio");
    let run = |args: &[&str], json: &Path, out: &str| {
        let o = ssdlab()
            .args(args)
            .args([
                "--target",
                "sim:ultra-plus-256",
                "--no-store",
                "-q",
                "--json",
            ])
            .arg(json)
            .arg("--out")
            .arg(dir.path().join(out))
            .output()
            .unwrap();
        assert!(o.status.success(), "{args:?}: {}", text(&o));
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
        match v {
            serde_json::Value::Array(many) => many,
            one => vec![one],
        }
    };
    let (first, again) = (dir.path().join("a.json"), dir.path().join("b.json"));
    let job = job_file.to_str().unwrap();
    let measured = run(&["run", "quick-nvme", "--fio-job", job], &first, "a");
    let written = std::fs::read_to_string(&job_file).unwrap();
    assert!(
        written.contains("; the target was sim:ultra-plus-256"),
        "{written}"
    );
    let replayed = run(&["run", "custom", "--fio", job], &again, "b");
    assert_eq!(measured.len(), 8, "quick-nvme's eight cells");
    assert_eq!(replayed.len(), measured.len());
    for (m, r) in measured.iter().zip(&replayed) {
        assert_eq!(
            m["parameters"], r["parameters"],
            "{}\n{written}",
            m["label"]
        );
    }
    if test_support::tool("fio") {
        let o = std::process::Command::new("fio")
            .arg("--parse-only")
            .arg(&job_file)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "fio --parse-only: {}\n{written}",
            text(&o)
        );
    }
}
