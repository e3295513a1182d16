//! What a new user sees: aligned tables with sizes in units, the Storage Bench's data rate as
//! the reviews defined it, a report path after every run, a plain log off a terminal, errors
//! that name the target once and guess what was meant, and drives compared by a part of
//! their names.

use crate::common::*;

use std::path::Path;
use std::process::Output;

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs a command that must succeed, with a Bench of the test's own.
fn ok(db: &Path, args: &[&str]) -> Output {
    let o = ssdlab().env("SSDLAB_DB", db).args(args).output().unwrap();
    assert!(o.status.success(), "{args:?}: {}", text(&o));
    o
}

/// The summary has `results` rows, each with only figures before the header's "test" column
/// and its label starting there (the notes under a row are text from their start).
fn assert_aligned(summary: &str, results: usize) {
    let mut lines = summary
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("IOPS"));
    let header = lines.next().expect("a summary header");
    let at = header.find("test").unwrap();
    let rows: Vec<&str> = lines
        .filter(|l| {
            l.get(..at).is_some_and(|figures| {
                figures
                    .chars()
                    .all(|c| c.is_ascii_digit() || c == '.' || c == ' ')
            })
        })
        .collect();
    // A result's row has its label in the test column, its parts' rows their names indented.
    let name_at = |row: &str| row.len() > at && row.as_bytes()[at - 1] == b' ';
    let own = |row: &&&str| row.as_bytes()[at] != b' ';
    let part = |row: &str| row[at..].starts_with("  ") && row.as_bytes()[at + 2] != b' ';
    assert!(
        rows.iter().all(|r| name_at(r)),
        "the names are not in the test column:\n{summary}"
    );
    assert_eq!(rows.iter().filter(own).count(), results, "{summary}");
    assert!(
        rows.iter().all(|r| own(&r) || part(r)),
        "a name is not in the test column:\n{summary}"
    );
}

#[test]
fn transfer_sweep_summary_is_aligned_with_sizes_in_units_and_a_report_path() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep");
    let o = ok(
        &dir.path().join("bench.db"),
        &[
            "run",
            "transfer-sweep",
            "--target",
            "sim:default",
            "--span",
            "8M",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let summary = stdout(&o);
    assert_aligned(&summary, 2);
    assert!(
        summary.contains("MiB") && summary.contains("peak"),
        "{summary}"
    );
    assert!(!summary.contains(" bytes"), "raw byte counts: {summary}");
    assert!(!summary.contains("- over"), "a dangling dash: {summary}");
    let report = out.join("report.html");
    assert!(report.exists());
    assert!(
        stderr(&o).contains(&format!("report: {}", report.display())),
        "{}",
        stderr(&o)
    );
}

#[test]
fn storage_bench_prints_its_data_rate_over_busy_time_and_no_wall_time_mbps() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sb");
    let o = ok(
        &dir.path().join("bench.db"),
        &[
            "run",
            "storage-bench",
            "--target",
            "sim:default",
            "--trace-scale",
            "0.01",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let summary = stdout(&o);
    assert_aligned(&summary, 2);
    let header = summary.lines().find(|l| l.contains("IOPS")).unwrap();
    let mbps_end = header.find("MB/s").unwrap() + "MB/s".len();
    let rows: Vec<&str> = summary
        .lines()
        .filter(|l| l.contains("replay of"))
        .collect();
    assert!(!rows.is_empty(), "{summary}");
    for row in rows {
        assert!(
            row[..mbps_end].trim().is_empty(),
            "a replay's row has a wall-time IOPS or MB/s:\n{summary}"
        );
    }
    // The figure the report and the web page show: bytes over disk busy time.
    let file = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "json") && !p.ends_with("run.json"))
        .unwrap();
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let rate = r["analysis"]["metrics"]["data_rate_mbps"].as_f64().unwrap();
    let shown = if rate < 100.0 {
        format!("{rate:.1}")
    } else {
        format!("{rate:.0}")
    };
    assert!(
        summary.contains(&format!("data rate (over busy time) {shown} MB/s")),
        "{shown}: {summary}"
    );
}

#[test]
fn off_a_terminal_progress_is_a_short_plain_log() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("trim");
    let o = ok(
        &dir.path().join("bench.db"),
        &[
            "run",
            "trim",
            "--target",
            "sim:default",
            "--duration",
            "30",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let log = stderr(&o);
    // The TRIM test runs some 300 phases; it printed a line for each.
    assert!(log.lines().count() < 30, "{log}");
    assert!(log.contains("TRIM test, dirty pass"), "{log}");

    let suite = dir.path().join("suite");
    let o = ok(
        &dir.path().join("bench.db"),
        &[
            "suite",
            "--target",
            "sim:default",
            "--quick",
            "--only",
            "transfer-sweep",
            "--only",
            "trim",
            "--out",
            suite.to_str().unwrap(),
        ],
    );
    let log = stderr(&o);
    for line in [
        "step 1 of 2: transfer-sweep",
        "step 1 of 2: transfer-sweep complete in",
        "step 2 of 2: trim (suite ETA ~",
        "step 2 of 2: trim complete in",
    ] {
        assert!(log.contains(line), "{line}: {log}");
    }
    // The ETA's form only: its figure is wall time (the arithmetic has a unit test).
    let eta = log
        .lines()
        .find(|l| l.starts_with("step 2 of 2: trim (suite ETA ~"))
        .unwrap();
    assert!(eta.ends_with(')'), "{eta}");
    assert!(
        log.contains("peak") && log.contains("MB/s"),
        "headline figures: {log}"
    );
    assert!(
        !log.contains("TRIM test, dirty pass"),
        "phases in a suite: {log}"
    );
}

#[test]
fn errors_name_the_target_once_and_guess_what_was_meant() {
    let o = run(&["run", "custom", "--target", "sim:nosuch", "--no-store"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert_eq!(t.matches("sim:nosuch").count(), 1, "{t}");
    assert!(t.contains("ssdlab sim list"), "{t}");

    for (args, says) in [
        (
            vec!["run", "custom", "--target", "sim:840-evo", "--no-store"],
            "did you mean one of 840-evo-120, 840-evo-250",
        ),
        (
            vec![
                "run",
                "custom",
                "--target",
                "sim:ultra-plus-265",
                "--no-store",
            ],
            "ultra-plus-256",
        ),
        (
            vec!["run", "consistensy", "--target", "sim:default"],
            "unknown test 'consistensy' (did you mean consistency?)",
        ),
        (
            vec!["suite", "--only", "trmi", "--target", "sim:default"],
            "did you mean trim?",
        ),
        (vec!["sim", "show", "840evo"], "840-evo-250"),
        (
            vec!["run", "custom", "--target", "/dev/ssdlab-nonexistent"],
            "lsblk",
        ),
    ] {
        let o = run(&args);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {t}");
        assert!(t.contains(says), "{args:?}: expected '{says}' in: {t}");
        assert!(!t.contains("panicked"), "{args:?}: {t}");
    }
}

#[test]
fn readme_bench_compare_finds_drives_by_a_part_of_their_names() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    for preset in ["840-evo-250", "840-pro-256", "ultra-plus-64"] {
        ok(
            &db,
            &[
                "run",
                "consistency",
                "--target",
                &format!("sim:{preset}"),
                "--duration",
                "10",
                "-q",
                "--out",
                dir.path().join(preset).to_str().unwrap(),
            ],
        );
    }
    // The README's command, with the drives this Bench has: their 10 s runs deviate from
    // the methodology, left out unless asked for, and then no steady state.
    let readme = [
        "bench",
        "compare",
        "840 evo",
        "ultra",
        "--test",
        "consistency",
    ];
    let o = ssdlab()
        .env("SSDLAB_DB", &db)
        .args(readme)
        .output()
        .unwrap();
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    assert!(
        t.contains("2 results that deviate from the methodology")
            && t.contains("--include-deviating shows them"),
        "{t}"
    );
    let o = ok(&db, &[&readme[..], &["--include-deviating"]].concat());
    let table = stdout(&o);
    assert!(table.contains("EVO") && table.contains("Ultra"), "{table}");
    assert!(!table.contains("steady-state mean"), "{table}");
    assert!(table.contains("not a steady state: the last"), "{table}");
    assert!(
        table.contains("(deviates) duration 10 s instead of 2000 s"),
        "{table}"
    );
    // Drives whose names share a long start stay apart.
    let o = ok(
        &db,
        &[
            "bench",
            "compare",
            "evo",
            "pro",
            "--test",
            "consistency",
            "--include-deviating",
        ],
    );
    let table = stdout(&o);
    assert!(table.contains("EVO") && table.contains("Pro"), "{table}");

    for (args, says) in [
        (
            vec!["bench", "compare", "840", "ultra"],
            "\"840\" matches 2 drives",
        ),
        (
            vec!["bench", "compare", "m500"],
            "no drive matches \"m500\"",
        ),
        (
            vec!["bench", "compare", "evo", "--test", "consistensy"],
            "did you mean consistency?",
        ),
        (
            vec!["bench", "annotate", "840", "--price", "1"],
            "matches 2 drives",
        ),
        (
            vec!["bench", "export", "--format", "jsno"],
            "did you mean json?",
        ),
    ] {
        let o = ssdlab().env("SSDLAB_DB", &db).args(&args).output().unwrap();
        let t = text(&o);
        assert!(!o.status.success(), "{args:?}: {t}");
        assert!(t.contains(says), "{args:?}: expected '{says}' in: {t}");
    }
    // Both candidates are listed for an ambiguous selector.
    let o = ssdlab()
        .env("SSDLAB_DB", &db)
        .args(["bench", "compare", "840"])
        .output()
        .unwrap();
    let t = text(&o);
    assert!(
        t.contains("840 EVO 250GB") && t.contains("840 Pro 256GB"),
        "{t}"
    );
}

/// `run custom` reads used to read a clean drive's unmapped LBAs (44K IOPS at QD1 on the
/// 250GB EVO where `random-read --qd 1`, which fills first, gives 11.6K) although the help
/// said the fill was the default. Now reads are of data unless `--no-prefill` says otherwise,
/// and then the result says what was read.
#[test]
fn custom_reads_measure_data_unless_told_not_to_fill_and_then_say_so() {
    let out = tempfile::tempdir().unwrap();
    let custom = |name: &str, extra: &[&str]| {
        let dir = out.path().join(name);
        let mut args = vec![
            "run",
            "custom",
            "--target",
            "sim:840-evo-msata-250,capacity=4GiB,slc_cache=64MiB",
            "--qd",
            "1",
            "--span",
            "256M",
            "--ios",
            "4000",
            "-q",
            "--no-store",
            "--out",
            dir.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let o = run(&args);
        assert!(o.status.success(), "{}", text(&o));
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("custom.json")).unwrap())
                .unwrap();
        r
    };
    let filled = custom("filled", &[]);
    let unfilled = custom("unfilled", &["--no-prefill"]);
    let iops = |r: &serde_json::Value| r["summary"]["iops"].as_f64().unwrap();
    println!(
        "QD1 reads: filled {:.0} IOPS, not filled {:.0}",
        iops(&filled),
        iops(&unfilled)
    );
    assert_eq!(filled["preconditioning"][0]["name"], "fill", "{filled}");
    assert!(filled.get("deviations").is_none(), "{filled}");
    assert!(unfilled
        .get("preconditioning")
        .is_none_or(|p| p.as_array().unwrap().is_empty()));
    let said = unfilled["deviations"].to_string();
    assert!(
        said.contains("not filled first") && said.contains("without reading NAND"),
        "{said}"
    );
    // Unmapped reads never reach the NAND: far faster than reads of data.
    assert!(
        iops(&unfilled) > 2.0 * iops(&filled),
        "{} vs {}",
        iops(&unfilled),
        iops(&filled)
    );
}

/// A claim shared by every preset that one preset misses is shown, on the others, with the
/// figure of the preset that misses it: the S3700's cliff (1.86) under the 2x all must show,
/// not the 840 EVO's own 10.8 beside a MISSES.
#[test]
fn sim_show_names_the_preset_that_misses_a_shared_claim() {
    let line_of = |preset: &str| {
        let o = run(&["sim", "show", preset]);
        assert!(o.status.success(), "{}", text(&o));
        stdout(&o)
            .lines()
            .find(|l| l.contains(" consistency-cliff: "))
            .map(String::from)
            .unwrap_or_else(|| panic!("{preset}: no consistency-cliff line"))
    };
    let evo = line_of("840-evo-250");
    assert!(
        evo.contains("840-evo-250 10.8, which meets it; missed by dc-s3700-200 1.86"),
        "{evo}"
    );
    let s3700 = line_of("dc-s3700-200");
    assert!(s3700.contains("simulated dc-s3700-200 1.86]"), "{s3700}");
}

/// `sim show` tells the claims a preset was fitted to from those it predicts, and names the
/// figures from outside the seeds a parameter was fitted to.
#[test]
fn sim_show_separates_fitted_claims_from_predicted_ones() {
    let o = run(&["sim", "show", "840-evo-msata-1tb"]);
    assert!(o.status.success(), "{}", text(&o));
    let t = stdout(&o);
    let fitted_at = t
        .find("  fitted (a parameter was chosen")
        .expect("a fitted group");
    let predicted_at = t
        .find("  predicted (no parameter")
        .expect("a predicted group");
    assert!(fitted_at < predicted_at, "{t}");
    // cmd_read is fitted to the 1TB's random read spec; no parameter to the EVOs' steadiness.
    let line = |id: &str| {
        t.lines()
            .position(|l| l.contains(&format!(" {id}: ")))
            .unwrap()
    };
    let at = |i: usize| t.lines().take(i).map(|l| l.len() + 1).sum::<usize>();
    assert!(
        at(line("evo-msata-1tb-spec-random-read")) < predicted_at,
        "{t}"
    );
    assert!(
        at(line("evo-msata-more-consistent-than-2.5")) > predicted_at,
        "{t}"
    );
    assert!(
        t.contains("max_programs: Samsung's 840 EVO datasheet"),
        "the outside figure it was fitted to: {t}"
    );
    // Where it is known to be off, with the mechanism, after the claims.
    let gaps_at = t.find("  known gaps").expect("a known-gaps group");
    assert!(gaps_at > predicted_at, "{t}");
    assert!(
        t[gaps_at..].contains("random writes at QD32") && t[gaps_at..].contains("why: "),
        "{t}"
    );
}

/// `suite --help` lists every methodology the suite knows: review-2021 was left out of a
/// list written by hand (issue #66).
#[test]
fn suite_help_lists_every_methodology() {
    let help = stdout(&run(&["suite", "--help"]));
    for m in suite::methodologies::Methodology::ALL {
        assert!(help.contains(m.name()), "{} missing from: {help}", m.name());
    }
}
