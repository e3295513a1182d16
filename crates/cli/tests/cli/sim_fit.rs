//! `ssdlab sim fit`: a twin fitted to a simulated drive's own results (its transfer-size
//! sweep: the cheapest test that tells NAND channel and program speeds apart) recovers the
//! keys that were changed, the same seed gives the same twin, a fit run again resumes from
//! what it kept, the twin runs like any preset and says where its values came from;
//! published claims are a target too.

use std::path::Path;

use crate::common::{run, text};

/// The hidden drive: the default preset, small, with slower NAND channels and programs.
const HIDDEN: &str = "sim:default,capacity=2GiB,channel_mbps=90,t_prog=900us/2700us";
const FROM: &str = "default,capacity=2GiB";

fn ok(o: &std::process::Output) -> String {
    assert!(o.status.success(), "{}", text(o));
    text(o)
}

/// `ssdlab sim fit` on `target` (results directories, --claims or --bench-drive and their
/// arguments) from [`FROM`], searching `params` with at most `evals` drives, seed 3.
fn fit_with(target: &[&str], params: &str, evals: &str, out: &Path) -> String {
    fit_from(FROM, target, params, evals, out)
}

fn fit_from(from: &str, target: &[&str], params: &str, evals: &str, out: &Path) -> String {
    let mut args = vec!["sim", "fit"];
    args.extend_from_slice(target);
    args.extend([
        "--from",
        from,
        "--params",
        params,
        "--evals",
        evals,
        "--seed",
        "3",
        "--jobs",
        "2",
        "-o",
        out.to_str().unwrap(),
    ]);
    ok(&run(&args))
}

/// The hidden drive's transfer-size sweep into `out`, stored as `store` says.
fn measure_hidden(store: &[&str], out: &Path) {
    measure(HIDDEN, store, out)
}

fn measure(hidden: &str, store: &[&str], out: &Path) {
    let mut args = vec!["run", "transfer-sweep", "--target", hidden, "-q", "--out"];
    args.push(out.to_str().unwrap());
    args.extend_from_slice(store);
    ok(&run(&args));
}

fn fit(results: &Path, out: &Path) -> String {
    fit_with(
        &[results.to_str().unwrap()],
        "channel_mbps,t_prog",
        "60",
        out,
    )
}

/// A fit's JSON report, `name` in `dir`.
fn fit_report(dir: &Path, name: &str) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap()
}

/// The value a twin's file gives `key`.
fn value(toml_text: &str, key: &str) -> String {
    let table: toml::Table = toml_text.parse().unwrap();
    table[key].as_str().unwrap().to_string()
}

fn ns(text: &str) -> f64 {
    text.trim_end_matches("ns").parse().unwrap()
}

/// The twin found [`HIDDEN`]'s channel speed and program time.
fn assert_recovered(twin: &str) {
    let channel: f64 = value(twin, "channel_mbps").parse().unwrap();
    assert!(
        (channel / 90.0 - 1.0).abs() < 0.15,
        "channel_mbps {channel}\n{twin}"
    );
    let prog: Vec<f64> = value(twin, "t_prog").split('/').map(ns).collect();
    assert!(
        (prog[0] / 900e3 - 1.0).abs() < 0.25,
        "t_prog {prog:?}\n{twin}"
    );
}

#[test]
fn a_twin_recovers_hidden_keys_repeats_for_a_seed_and_runs() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("hidden");
    measure_hidden(&["--no-store"], &results);
    let (a, b) = (dir.path().join("a.toml"), dir.path().join("b.toml"));
    fit(&results, &a);
    fit(&results, &b);
    let a_text = std::fs::read_to_string(&a).unwrap();
    let b_text = std::fs::read_to_string(&b).unwrap();
    assert_eq!(
        a_text,
        b_text.replace("b.fit.md", "a.fit.md"),
        "the same seed, another twin"
    );

    // Run again, it resumes: every drive it evaluates is one the first run kept.
    let kept = || {
        std::fs::read_to_string(dir.path().join("a.evals.jsonl"))
            .unwrap()
            .lines()
            .count()
    };
    let before = kept();
    fit(&results, &a);
    assert_eq!(kept(), before, "a resumed fit measured drives again");
    assert_eq!(std::fs::read_to_string(&a).unwrap(), a_text);

    // Recovered: the hidden values, from the default's 200 MB/s and 650us/1950us.
    assert_recovered(&a_text);

    let report = fit_report(dir.path(), "a.fit.json");
    let (start, twin) = (
        report["loss_start"].as_f64().unwrap(),
        report["loss_twin"].as_f64().unwrap(),
    );
    assert!(twin < start / 5.0, "loss {start} -> {twin}");
    assert!(dir.path().join("a.fit.md").exists());

    // The twin is a drive like any preset, and says where its values came from.
    let spec = format!("sim:{}", a.display());
    let shown = ok(&run(&["sim", "show", &spec]));
    assert!(shown.contains("fitted by ssdlab sim fit to run"), "{shown}");
    let out = dir.path().join("twin-run");
    ok(&run(&[
        "run",
        "seq-read",
        "--target",
        &spec,
        "-q",
        "--no-store",
        "--out",
        out.to_str().unwrap(),
    ]));
    let result: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("seq-read.json")).unwrap()).unwrap();
    assert_eq!(result["target"]["details"]["fit report"], "a.fit.md");
}

/// At several seeds (`--seeds 2`), each a whole search: the twin is the lower loss's, the
/// first seed's search is the one a fit at that seed alone runs, and every figure carries
/// the spread of the two twins.
#[test]
fn several_seeds_keep_the_lower_loss_and_give_each_figure_their_spread() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("hidden");
    measure_hidden(&["--no-store"], &results);
    let results = results.to_str().unwrap();
    let (one, two) = (dir.path().join("one.toml"), dir.path().join("two.toml"));
    fit_with(&[results], "channel_mbps,t_prog", "20", &one);
    let printed = fit_with(
        &[results, "--seeds", "2"],
        "channel_mbps,t_prog",
        "20",
        &two,
    );
    assert!(printed.contains("agree within 5% on"), "{printed}");

    let (alone, both) = (
        fit_report(dir.path(), "one.fit.json"),
        fit_report(dir.path(), "two.fit.json"),
    );
    let seeds = both["seeds"].as_array().unwrap();
    let seed_of = |i: usize| seeds[i]["seed"].as_u64().unwrap();
    let loss_of = |i: usize| seeds[i]["loss"].as_f64().unwrap();
    assert_eq!((seed_of(0), seed_of(1)), (3, 4), "{both}");
    assert_eq!(loss_of(0), alone["loss_twin"].as_f64().unwrap());
    let best = if loss_of(1) < loss_of(0) { 1 } else { 0 };
    assert_eq!(both["seed"].as_u64().unwrap(), seed_of(best));
    assert_eq!(both["loss_twin"].as_f64().unwrap(), loss_of(best));
    for row in both["fitted"].as_array().unwrap() {
        assert!(row["spread"].as_f64().unwrap() >= 0.0, "{row}");
    }
    assert!(alone["fitted"][0]["spread"].is_null(), "{alone}");
    // Each key's value in each seed's twin, the kept one's among them.
    for p in both["params"].as_array().unwrap() {
        let values = p["seeds"].as_array().unwrap();
        assert_eq!(values.len(), 2, "{p}");
        assert_eq!(values[best], p["twin"], "{p}");
    }
    let report = std::fs::read_to_string(dir.path().join("two.fit.md")).unwrap();
    assert!(report.contains("## Several seeds"), "{report}");
}

/// Screening (`--screen 4`): candidates run on drives 4 times smaller with tests 4 times
/// shorter, each round's finalists at full length; the twin is a confirmed drive, and as
/// good a recovery as a fit at full length. (8 GiB: a quarter of the default's 2 GiB has
/// too few spare blocks to build.)
#[test]
fn a_screened_fit_confirms_its_finalists_at_full_length() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("hidden");
    measure(&HIDDEN.replace("2GiB", "8GiB"), &["--no-store"], &results);
    let target = [results.to_str().unwrap(), "--screen", "4"];
    let from = FROM.replace("2GiB", "8GiB");
    let (a, b) = (dir.path().join("a.toml"), dir.path().join("b.toml"));
    let printed = fit_from(&from, &target, "channel_mbps,t_prog", "60", &a);
    assert!(printed.contains("screened at 1/4"), "{printed}");
    fit_from(&from, &target, "channel_mbps,t_prog", "60", &b);
    let a_text = std::fs::read_to_string(&a).unwrap();
    assert_eq!(
        a_text,
        std::fs::read_to_string(&b)
            .unwrap()
            .replace("b.fit.md", "a.fit.md"),
        "the same seed, another twin"
    );

    let report = fit_report(dir.path(), "a.fit.json");
    assert_eq!(report["screen"], 4);
    let finalists = report["finalists"].as_u64().unwrap();
    // Four a round, the first round's two starts' best drives (judged at full length), and
    // the polished drive when the polish moved.
    assert!((1..=15).contains(&finalists), "{report}");
    let confirmed: Vec<f64> = report["confirmed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p[1].as_f64().unwrap())
        .collect();
    assert!(
        (4..=5).contains(&confirmed.len()),
        "the start, three rounds and the polish if it moved: {confirmed:?}"
    );
    assert!(confirmed.windows(2).all(|w| w[1] <= w[0]), "{confirmed:?}");
    let last = *confirmed.last().unwrap();
    assert_eq!(report["loss_twin"].as_f64().unwrap(), last);
    assert!(last < confirmed[0] / 5.0, "{confirmed:?}");
    assert!(
        report["stopped"].as_str().unwrap().contains("the polish"),
        "{report}"
    );

    // Screened drives and full-length ones are kept apart: the start and the finalists ran
    // at full length, every other drive screened.
    let kept = std::fs::read_to_string(dir.path().join("a.evals.jsonl")).unwrap();
    let full = kept
        .lines()
        .filter(|l| !l.contains(r#""screen":4"#))
        .count() as u64;
    assert!(
        full >= 1 && full <= 1 + finalists,
        "{full} full-length of {finalists}"
    );
    assert!(kept.lines().count() as u64 > 40 + full, "{kept}");

    assert_recovered(&a_text);
}

/// A recovery test names the drive the results came from (`--reference`): its values of the
/// searched keys, on the start's others, are measured and scored beside the twin. Here they
/// are the hidden drive itself, so its loss is 0 and a short search's twin is worse: the
/// search's miss, said so.
#[test]
fn the_reference_is_scored_as_the_search_could_have_found_it() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("hidden");
    measure_hidden(&["--no-store"], &results);
    let twin = dir.path().join("twin.toml");
    let target = [results.to_str().unwrap(), "--reference", HIDDEN];
    let o = fit_with(&target, "channel_mbps,t_prog", "8", &twin);
    assert!(
        o.contains("with its own values of the searched keys: loss 0.000"),
        "{o}"
    );
    let report = fit_report(dir.path(), "twin.fit.json");
    assert_eq!(report["reference"]["loss"].as_f64(), Some(0.0), "{report}");
    assert!(report["loss_twin"].as_f64().unwrap() > 0.0, "{report}");
    let channel = report["params"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["key"] == "channel_mbps")
        .unwrap();
    assert_eq!(channel["reference"], "90", "{channel}");
    assert!(
        report["fitted"][0]["reference_error"].as_f64() == Some(0.0),
        "{report}"
    );
    let md = std::fs::read_to_string(dir.path().join("twin.fit.md")).unwrap();
    assert!(md.contains("the search did not find it"), "{md}");
    // Where the time went: what ran, and the slowest drive named.
    assert!(report["time"]["full_length"].as_u64() > Some(0), "{report}");
    assert!(md.contains("## Where the time went"), "{md}");

    // A reference no point of the space holds (one program time, where the space scales the
    // start's two alike) is named so: a better fit of it would be the space's, not the search's.
    let outside = HIDDEN.replace("t_prog=900us/2700us", "t_prog=1.8ms");
    let target = [results.to_str().unwrap(), "--reference", &outside];
    let o = fit_with(
        &target,
        "channel_mbps,t_prog",
        "8",
        &dir.path().join("o.toml"),
    );
    assert!(o.contains("(outside the space: t_prog)"), "{o}");
    let md = std::fs::read_to_string(dir.path().join("o.fit.md")).unwrap();
    assert!(
        md.contains("`t_prog` 1.8ms (not in the start's proportions (650000ns/1950000ns)"),
        "{md}"
    );

    let o = run(&[
        "sim",
        "fit",
        results.to_str().unwrap(),
        "--reference",
        "no-such-drive",
        "-o",
        dir.path().join("t.toml").to_str().unwrap(),
    ]);
    assert!(
        text(&o).contains("--reference no-such-drive"),
        "{}",
        text(&o)
    );
}

#[test]
fn published_claims_are_a_target() {
    let dir = tempfile::tempdir().unwrap();
    let claims = dir.path().join("claims.toml");
    std::fs::write(
        &claims,
        r#"
[[claim]]
id = "small-seq-read"
kind = "spec"
claim = "a spec sheet: sequential read 300 MB/s"
source = "this test"
on = ["default"]
metric = "spec.seq_read_mbps"
check = "value"
published = 300
tolerance = 5

[[claim]]
id = "compared"
kind = "review"
claim = "slower than another drive"
source = "this test"
on = ["default"]
metric = "spec.seq_read_mbps"
check = "less"
than = "ultra-plus-64"
"#,
    )
    .unwrap();
    let twin = dir.path().join("twin.toml");
    let claims = claims.to_str().unwrap();
    let o = fit_with(
        &["--claims", claims, "--drive", "default"],
        "channel_mbps",
        "40",
        &twin,
    );
    assert!(o.contains("loss 0.000"), "{o}");
    let md = std::fs::read_to_string(dir.path().join("twin.fit.md")).unwrap();
    // Fitted against the other drive's figure, as its preset simulates it.
    assert!(
        md.contains("claim compared, against ultra-plus-64's preset"),
        "{md}"
    );
    assert!(o.contains("measuring ultra-plus-64 (spec)"), "{o}");
}

#[test]
fn bad_requests_say_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(&["sim", "fit", "-o", "twin.toml"]);
    assert!(!o.status.success());
    assert!(
        text(&o).contains("give results directories"),
        "{}",
        text(&o)
    );
    let o = run(&["sim", "fit", dir.path().to_str().unwrap(), "-o", "twin.txt"]);
    assert!(text(&o).contains("is a .toml file"), "{}", text(&o));
    let o = run(&[
        "sim",
        "fit",
        dir.path().to_str().unwrap(),
        "-o",
        "twin.toml",
    ]);
    assert!(!o.status.success());
    assert!(text(&o).contains("no results to fit"), "{}", text(&o));
    // An output the twin cannot be written to is refused before anything is read.
    let taken = dir.path().join("taken.toml");
    std::fs::create_dir(&taken).unwrap();
    let missing = dir.path().join("no-such-dir").join("twin.toml");
    for (out, says) in [(&taken, "is a directory"), (&missing, "does not exist")] {
        let o = run(&[
            "sim",
            "fit",
            dir.path().to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(!o.status.success());
        assert!(text(&o).contains(says), "{}: {}", out.display(), text(&o));
    }
}

#[test]
fn a_drive_in_the_bench_is_a_target() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    let db = db.to_str().unwrap();
    let out = dir.path().join("r");
    measure_hidden(&["--db", db], &out);
    let twin = dir.path().join("twin.toml");
    let o = fit_with(
        &["--bench-drive", "default", "--db", db],
        "channel_mbps",
        "8",
        &twin,
    );
    assert!(o.contains("twin of"), "{o}");
    let o = run(&[
        "sim",
        "fit",
        "--bench-drive",
        "no such drive",
        "--db",
        db,
        "-o",
        "t.toml",
    ]);
    assert!(text(&o).contains("no drive matches"), "{}", text(&o));
}

/// The energy model's prices change nothing a drive does, so they are fitted after its
/// behaviour on a model linear in them: a drive drawing more at idle and under load is
/// priced exactly from three runs of its power tests (the start and each price moved).
#[test]
fn prices_are_fitted_on_a_linear_model_of_the_power_tests() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("hidden");
    for test in [
        "power-idle",
        "power-slumber",
        "power-random-write",
        "power-seq-write",
    ] {
        ok(&run(&[
            "run",
            test,
            "--target",
            "sim:default,capacity=2GiB,p_idle=0.6W,p_active=2W",
            "-q",
            "--no-store",
            "--out",
            results.to_str().unwrap(),
        ]));
    }
    let twin = dir.path().join("twin.toml");
    // The sequential write's watts held out: predicted, with what the prices leave open.
    let target = [results.to_str().unwrap(), "--hold-out", "power.seq"];
    fit_with(&target, "p_idle,p_active", "10", &twin);
    let text = std::fs::read_to_string(&twin).unwrap();
    let watts = |key: &str| {
        value(&text, key)
            .trim_end_matches("mW")
            .parse::<f64>()
            .unwrap()
    };
    assert!((watts("p_idle") / 600.0 - 1.0).abs() < 0.01, "{text}");
    assert!((watts("p_active") / 2000.0 - 1.0).abs() < 0.01, "{text}");

    let report = fit_report(dir.path(), "twin.fit.json");
    assert_eq!(report["price_runs"], 3, "{report}");
    assert_eq!(report["evaluations"], 0, "no behaviour to search: {report}");
    let watts_rows = report["fitted"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["figure"].as_str().unwrap().ends_with("_w"));
    for row in watts_rows {
        assert!(row["twin_error"].as_f64().unwrap() < 0.005, "{row}");
    }
    // Idle and one load point tell both prices, so the held-out watts are pinned: each
    // spread holds the twin's figure and the hidden drive's, within a few percent.
    let spreads = report["price_spreads"].as_array().unwrap();
    assert!(
        spreads.iter().any(|s| s["figure"] == "power.seq_write_w"),
        "{report}"
    );
    for s in spreads {
        let row = report["held_out"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["figure"] == s["figure"])
            .unwrap();
        let (low, high) = (s["low"].as_f64().unwrap(), s["high"].as_f64().unwrap());
        for v in [&row["twin"], &row["drive"]] {
            let v = v.as_f64().unwrap();
            assert!(low <= v * 1.005 && v <= high * 1.005, "{s} {row}");
        }
        assert!(high / low < 1.1, "{s}");
    }
    let md = std::fs::read_to_string(dir.path().join("twin.fit.md")).unwrap();
    assert!(md.contains("from 3 runs of the twin's power tests"), "{md}");
    assert!(md.contains("What the prices leave open"), "{md}");
}

/// A key no fitted figure reads stays the start's in the twin: the hidden drive ignores
/// TRIM, the twin (fitted to the sweep, TRIM held out) keeps the start's whole TRIM and
/// misses the TRIM test; the check of the keys not searched names TRIM as what leaves its
/// figures open, and no sweep figure.
#[test]
fn the_keys_not_searched_name_the_figures_the_results_leave_open() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("hidden");
    let hidden = format!("{HIDDEN},trim=off");
    for test in ["transfer-sweep", "trim"] {
        let mut args = vec![
            "run",
            test,
            "--target",
            &hidden,
            "-q",
            "--no-store",
            "--out",
        ];
        args.push(results.to_str().unwrap());
        ok(&run(&args));
    }
    let twin = dir.path().join("twin.toml");
    let target = [results.to_str().unwrap(), "--hold-out", "trim"];
    fit_with(&target, "channel_mbps,t_prog,trim", "12", &twin);
    let report = fit_report(dir.path(), "twin.fit.json");
    let alternatives: Vec<&str> = report["alternatives"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["drive"].as_str().unwrap())
        .collect();
    assert!(alternatives.contains(&"trim=off"), "{alternatives:?}");
    assert!(alternatives.contains(&"planes=1"), "{alternatives:?}");
    let after = report["held_out"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["figure"] == "trim.after_60s_mbps")
        .unwrap();
    assert!(after["twin_error"].as_f64().unwrap() > 0.5, "{after}");
    let open = &after["open"];
    assert!(open["by"].as_str().unwrap().starts_with("trim="), "{after}");
    assert!(open["change"].as_f64().unwrap() > 0.5, "{after}");
    for row in report["fitted"].as_array().unwrap() {
        let by = row["open"]["by"].as_str().unwrap_or("");
        assert!(!by.starts_with("trim"), "TRIM moved a sweep figure: {row}");
    }
    let md = std::fs::read_to_string(dir.path().join("twin.fit.md")).unwrap();
    assert!(md.contains("## What the results leave open"), "{md}");
}

/// Results of two drives are refused before anything is measured, naming both and how they
/// differ: a twin fitted to both is neither's.
#[test]
fn results_of_two_drives_are_refused_with_how_they_differ() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    measure("sim:default,capacity=2G", &["--no-store"], &a);
    measure("sim:default,capacity=4G,channels=2", &["--no-store"], &b);
    let twin = dir.path().join("twin.toml");
    let o = run(&[
        "sim",
        "fit",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--evals",
        "60",
        "-o",
        twin.to_str().unwrap(),
    ]);
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    assert!(t.contains("are results of two drives"), "{t}");
    assert!(
        t.contains("sim:default,capacity=2G vs sim:default,capacity=4G,channels=2"),
        "{t}"
    );
    assert!(t.contains("capacity 2 GiB vs 4 GiB"), "{t}");
    assert!(!twin.exists(), "{t}");
}

/// A budget below one generation of the search is refused, naming the least it honours;
/// one generation that finds nothing better than the start keeps the start and says so,
/// never a worse twin and never a NaN. The target is [`FROM`]'s own results: every other
/// drive fits worse.
#[test]
fn a_budget_too_small_is_refused_and_one_generation_keeps_a_start_it_cannot_beat() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("start");
    measure(&format!("sim:{FROM}"), &["--no-store"], &results);
    let twin = dir.path().join("twin.toml");
    let target = [results.to_str().unwrap()];
    let mut args = vec!["sim", "fit", target[0], "--from", FROM, "--params"];
    args.extend(["channel_mbps,t_prog", "--evals", "1", "-o"]);
    args.push(twin.to_str().unwrap());
    let o = run(&args);
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    // Two coordinates: CMA-ES's population of 4 + 3 ln 2, from one start.
    assert!(
        t.contains("--evals 1: the search measures at least 6 drives"),
        "{t}"
    );
    assert!(t.contains("give --evals 6 or more"), "{t}");
    assert!(!twin.exists(), "{t}");

    let o = fit_with(&target, "channel_mbps,t_prog", "6", &twin);
    assert!(
        o.contains("no drive measured fitted better than the start, so the twin is the start"),
        "{o}"
    );
    let report = fit_report(dir.path(), "twin.fit.json");
    let (start, fitted) = (
        report["loss_start"].as_f64().unwrap(),
        report["loss_twin"].as_f64().unwrap(),
    );
    assert_eq!(fitted, start, "{o}");
    let md = std::fs::read_to_string(dir.path().join("twin.fit.md")).unwrap();
    for said in [&o, &md] {
        assert!(!said.contains("NaN"), "{said}");
    }
}

/// Lines of the evaluations file `path` (none before it exists).
fn evaluations(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .map(|t| t.lines().map(String::from).collect())
        .unwrap_or_default()
}

/// `child` sent SIGINT once `path` holds more than `lines` evaluations: its exit code and
/// what it said.
fn interrupt_after(child: std::process::Child, path: &Path, lines: usize) -> (i32, String) {
    crate::common::wait_until(120, || evaluations(path).len() > lines);
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let o = child.wait_with_output().unwrap();
    (o.status.code().unwrap_or(-1), text(&o))
}

/// Ctrl-C ends a fit at once, saying what it kept and the exact command that resumes; that
/// command reads the kept drives back and measures none of them again.
#[test]
fn an_interrupted_fit_says_how_to_resume_and_the_command_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("hidden");
    measure_hidden(&["--no-store"], &results);
    let twin = dir.path().join("twin.toml");
    let kept_in = dir.path().join("twin.evals.jsonl");
    // A budget no run here ends before it is interrupted.
    let args = [
        "sim",
        "fit",
        results.to_str().unwrap(),
        "--from",
        FROM,
        "--params",
        "channel_mbps,t_prog",
        "--evals",
        "100000",
        "--jobs",
        "1",
        "-o",
        twin.to_str().unwrap(),
    ];
    let spawn = |args: &[&str]| {
        crate::common::ssdlab()
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (code, t) = interrupt_after(spawn(&args), &kept_in, 1);
    assert_eq!(code, 130, "{t}");
    let kept = evaluations(&kept_in);
    let said = format!(
        "evaluations measured so far are kept in {}; the same command, run from",
        kept_in.display()
    );
    assert!(t.contains(&said), "{t}");
    assert!(
        t.contains(&format!("the {} evaluations", kept.len())),
        "{t}"
    );
    let command = t.lines().last().unwrap().trim();
    let words: Vec<&str> = command.split(' ').collect();
    assert_eq!(words[0], env!("CARGO_BIN_EXE_ssdlab"), "{t}");
    assert_eq!(words[1..], args, "{t}");

    // The command resumes: the kept drives are read back, and what it measures is new.
    let (code, t) = interrupt_after(spawn(&words[1..]), &kept_in, kept.len());
    assert_eq!(code, 130, "{t}");
    assert!(t.contains("measuring 1 of its drives again"), "{t}");
    let after = evaluations(&kept_in);
    assert_eq!(after[..kept.len()], kept[..], "{t}");
    let drive = |line: &String| {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        (v["spec"].to_string(), v["measure"].to_string())
    };
    let before: Vec<_> = kept.iter().map(drive).collect();
    for line in &after[kept.len()..] {
        assert!(!before.contains(&drive(line)), "measured again: {line}");
    }
}
