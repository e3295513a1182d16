use super::*;
use crate::db::tests::{result, run};
use crate::db::Bench;

#[test]
fn tables_put_drives_side_by_side_and_mark_the_best() {
    let dir = tempfile::tempdir().unwrap();
    let mut b = Bench::open(&dir.path().join("bench.db")).unwrap();
    let t = "2026-01-01T00:00:00Z";
    for (model, mbps) in [("slow", 100.0), ("fast", 400.0)] {
        let results = vec![
            result("seq-write", None, model, t, mbps),
            result("consistency", Some("spare-25"), model, t, mbps / 10.0),
        ];
        b.store(&run(model, t, results)).unwrap();
    }
    // Only one drive has a read result.
    b.store(&run(
        "slow",
        "2026-01-02T00:00:00Z",
        vec![result("seq-read", None, "slow", t, 9.0)],
    ))
    .unwrap();
    let drives = latest_of(&b, &["slow", "fast"]);
    let all = tables(&drives, None);
    let stems: Vec<&str> = all.iter().map(|t| t.stem.as_str()).collect();
    assert_eq!(stems, ["seq-write", "consistency-spare-25", "seq-read"]);
    let mbps = &all[0].metrics[0];
    assert_eq!(
        (mbps.name, mbps.values.clone()),
        ("throughput", vec![Some(100.0), Some(400.0)])
    );
    assert_eq!(mbps.best(), Some(1));
    let latency = all[0].metrics.iter().find(|m| m.better == Better::Lower);
    assert!(
        latency.is_none(),
        "the fixture has no latency figures: no empty rows"
    );
    assert_eq!(all[1].metrics[0].name, "steady-state mean");
    assert_eq!(all[2].metrics[0].best(), None, "one drive: nothing to mark");
    assert_eq!(all[2].result_ids[1], None);

    let only = tables(&drives, Some("consistency"));
    assert_eq!(only.len(), 1);
    let text = render_text(&[drives[0].0.clone(), drives[1].0.clone()], &all);
    assert!(text.contains("400.0*") || text.contains("400*"), "{text}");
    assert!(!text.contains("100*") && !text.contains("100.0*"), "{text}");
}

#[test]
fn power_tests_compare_in_watts_and_milliwatts_lowest_best() {
    use crate::view::sections::power::tests::power_result;
    use engine::power::Basis;
    let dir = tempfile::tempdir().unwrap();
    let mut b = Bench::open(&dir.path().join("bench.db")).unwrap();
    let t = "2026-01-01T00:00:00Z";
    let drives_results = [
        ("metered", Some(0.05), Some(3.2), Basis::Measured, None),
        ("simulated", Some(0.12), Some(2.4), Basis::Model, None),
        (
            "no meter",
            None,
            None,
            Basis::Measured,
            Some("the meter command exited"),
        ),
    ];
    for (model, slumber, write, basis, missing) in drives_results {
        let results = vec![
            power_result("power-slumber", model, slumber, basis, missing, &[slumber]),
            power_result("power-seq-write", model, write, basis, missing, &[write]),
        ];
        b.store(&run(model, t, results)).unwrap();
    }
    let drives = latest_of(&b, &["metered", "simulated", "no meter"]);
    let slumber = &tables(&drives, Some("power-slumber"))[0];
    let mean = &slumber.metrics[0];
    assert_eq!((mean.name, mean.unit), ("mean power", "mW"));
    assert_eq!(mean.values, [Some(50.0), Some(120.0), None]);
    assert_eq!(mean.best(), Some(0), "the lowest");
    let write = &tables(&drives, Some("power-seq-write"))[0];
    assert_eq!(write.metrics[0].unit, "W");
    assert_eq!(write.metrics[0].best(), Some(1));
    let rows: Vec<DriveRow> = drives.iter().map(|d| d.0.clone()).collect();
    let text = render_text(&rows, &[slumber.clone(), write.clone()]);
    assert!(
        text.contains("mean power (mW)") && text.contains("50*"),
        "{text}"
    );
    assert!(text.contains("2.40*") && text.contains("3.20 "), "{text}");
    assert!(
        text.contains("simulated: modelled by the simulator"),
        "not passed off as measured: {text}"
    );
    assert!(
        text.contains("no meter: power missing (the meter command exited)"),
        "{text}"
    );
    assert!(!text.contains("0.00"), "missing is not 0 W: {text}");
}

fn drive(id: i64, name: &str) -> DriveRow {
    DriveRow {
        id,
        name: name.into(),
        kind: "sim".into(),
        interface: Some("SATA".into()),
        model: Some(name.into()),
        serial: None,
        firmware: None,
        capacity_bytes: 250_000_000_000,
        specs: Default::default(),
        runs: 1,
        last_run: None,
    }
}

#[test]
fn drives_are_selected_by_id_or_a_part_of_the_name_only_one_has() {
    let all = [
        drive(1, "ssdlab model of Samsung SSD 840 EVO 250GB"),
        drive(2, "Crucial M500 240GB"),
        drive(3, "ssdlab model of Samsung SSD 840 Pro 256GB"),
        drive(4, "Crucial M500"),
    ];
    let ids = |sel: &[&str]| {
        let sel: Vec<String> = sel.iter().map(|s| s.to_string()).collect();
        select_drives(&all, &sel).map(|ds| ds.iter().map(|d| d.id).collect::<Vec<_>>())
    };
    // The README's example: a number that is no id is a part of a name.
    assert_eq!(ids(&["840 evo", "m500 240"]), Ok(vec![1, 2]));
    assert_eq!(ids(&["3", "1", "3"]), Ok(vec![3, 1]), "ids, each once");
    assert_eq!(ids(&["PRO"]), Ok(vec![3]), "any case");
    assert_eq!(ids(&["840-evo"]), Ok(vec![1]), "a preset's spelling");
    assert_eq!(ids(&["crucial m500"]), Ok(vec![4]), "a whole name wins");
    let ambiguous = ids(&["840"]).unwrap_err().to_string();
    assert!(
        ambiguous.contains("matches 2 drives")
            && ambiguous.contains("1 = ssdlab model of Samsung SSD 840 EVO 250GB")
            && ambiguous.contains("3 = "),
        "{ambiguous}"
    );
    let unknown = ids(&["970"]).unwrap_err().to_string();
    assert!(
        unknown.contains("no drive matches \"970\"") && unknown.contains("2 = Crucial M500 240GB"),
        "{unknown}"
    );
}

#[test]
fn drives_whose_names_share_a_long_prefix_stay_apart_and_columns_align() {
    let drives = [
        drive(1, "ssdlab model of Samsung SSD 840 EVO 250GB"),
        drive(2, "ssdlab model of Samsung SSD 840 Pro 256GB"),
    ];
    let metric = |name, unit, values: Vec<Option<f64>>| Metric {
        name,
        unit,
        better: Better::Higher,
        values,
    };
    let table = Table {
        stem: "transfer-sweep-read".into(),
        test: TestId::TransferSweep,
        title: "read MB/s against transfer size".into(),
        metrics: vec![
            metric("peak", "MB/s", vec![Some(54.2), Some(12345.0)]),
            metric("90% of peak from", "size", vec![Some(131072.0), None]),
        ],
        result_ids: vec![Some(1), Some(2)],
        notes: Vec::new(),
    };
    let text = render_text(&drives, &[table]);
    assert!(text.contains("EVO") && text.contains("Pro"), "{text}");
    assert!(text.contains("128 KiB"), "sizes in units: {text}");
    assert!(!text.contains("131072"), "{text}");
    // The first drive's name, every line of it, and its figures end at one column.
    let end_of = |row: &str, figure: &str| {
        let line = text.lines().find(|l| l.contains(row)).unwrap();
        line.find(figure).unwrap() + figure.len()
    };
    let edge = end_of("peak (MB/s)", "54.2");
    assert_eq!(end_of("90% of peak", "128 KiB"), edge, "{text}");
    for line in text.lines().take_while(|l| !l.is_empty()) {
        let b = line.as_bytes();
        assert!(b[edge - 1] != b' ' && b[edge] == b' ', "{edge}: {text}");
    }
}

#[test]
fn best_is_unique_and_respects_direction() {
    let m = |better, values: &[Option<f64>]| Metric {
        name: "m",
        unit: "us",
        better,
        values: values.to_vec(),
    };
    assert_eq!(
        m(Better::Lower, &[Some(3.0), Some(1.0), None]).best(),
        Some(1)
    );
    assert_eq!(
        m(Better::Higher, &[Some(3.0), Some(1.0), None]).best(),
        Some(0)
    );
    assert_eq!(
        m(Better::Higher, &[Some(3.0), Some(3.0)]).best(),
        None,
        "a tie"
    );
    assert_eq!(m(Better::Higher, &[Some(3.0), Some(f64::NAN)]).best(), None);
}

/// The drives named, each with its latest results, as `bench compare` selects them.
fn latest_of(b: &Bench, names: &[&str]) -> Vec<DriveResults> {
    let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    b.find_drives(&names)
        .unwrap()
        .into_iter()
        .map(|d| {
            let rs = b.latest_results(d.id).unwrap();
            (d, rs)
        })
        .collect()
}

/// A quick suite's consistency result: 60 s, its window from 42 s still in the burst.
fn quick_consistency(model: &str, t: &str, iops: f64) -> TestResult {
    let mut r = result("consistency", None, model, t, iops / 244.0);
    r.deviations = vec!["duration 60 s instead of 2000 s".into()];
    let mut a = r.consistency().unwrap().clone();
    (a.steady_from_s, a.reached) = (42.0, false);
    let mut window = a.steady_state.clone().unwrap();
    window.count = 60;
    a.whole_run = Some(window.clone());
    window.count = 18;
    a.steady_state = Some(window);
    r.analysis = suite::Analysis::Consistency(a);
    r
}

#[test]
fn a_newer_deviating_result_is_left_out_unless_asked_for_and_then_marked() {
    let dir = tempfile::tempdir().unwrap();
    let mut b = Bench::open(&dir.path().join("bench.db")).unwrap();
    let (t1, t2) = ("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z");
    for (model, mbps) in [("evo", 25.0), ("s3700", 130.0)] {
        let full = result("consistency", None, model, t1, mbps);
        b.store(&run(model, t1, vec![full])).unwrap();
    }
    b.store(&run(
        "evo",
        t2,
        vec![quick_consistency("evo", t2, 65_790.0)],
    ))
    .unwrap();
    let drives = b.find_drives(&["evo".into(), "s3700".into()]).unwrap();
    let with = |deviating: Deviating| {
        let mut left = 0;
        let with: Vec<DriveResults> = (drives.iter())
            .map(|d| {
                let (shown, out) = comparable(&b, d.id, deviating).unwrap();
                left += out.len();
                (d.clone(), shown)
            })
            .collect();
        (tables(&with, Some("consistency")), left)
    };

    let (by_default, left_out) = with(Deviating::LeftOut);
    assert_eq!(left_out, 1);
    let mean = &by_default[0].metrics[0];
    assert_eq!(mean.name, "steady-state mean");
    assert_eq!(mean.values, [Some(25.0 * 244.0), Some(130.0 * 244.0)]);
    assert!(by_default[0].notes.is_empty(), "{:?}", by_default[0].notes);
    let note = left_out_note(left_out, "--include-deviating").unwrap();
    assert!(note.starts_with("1 result that deviates"), "{note}");

    let (included, left_out) = with(Deviating::Included);
    assert_eq!(left_out, 0);
    // The quick run's 65,790 IOPS is no steady state: its steady-state rows are blank, and
    // the table says what it is and how it deviates.
    let mean = &included[0].metrics[0];
    assert_eq!(mean.values, [None, Some(130.0 * 244.0)]);
    assert_eq!(
        included[0].notes,
        [
            "evo: not a steady state: the last 18 s of a 60 s run",
            "evo: (deviates) duration 60 s instead of 2000 s"
        ]
    );
}
