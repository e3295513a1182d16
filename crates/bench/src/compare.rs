//! Comparisons across drives: the reviews' tables, one per test, one column per drive,
//! with the best value of each row marked. `bench compare` prints them; the web page draws
//! them.

use std::fmt::Write;

use crate::db::{DriveRow, StoredResult};
use crate::power;
use suite::result::TestResult;
use suite::TestId;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Better {
    Higher,
    Lower,
}

/// One row of a comparison: a figure of every drive.
#[derive(Clone, Debug)]
pub struct Metric {
    pub name: &'static str,
    pub unit: &'static str,
    pub better: Better,
    /// One per drive, in the drives' order; None where the drive has no such result.
    pub values: Vec<Option<f64>>,
}

impl Metric {
    /// The drive with the best value, when at least two drives have one and no other drive
    /// ties it.
    pub fn best(&self) -> Option<usize> {
        let have: Vec<(usize, f64)> = self
            .values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.filter(|v| v.is_finite()).map(|v| (i, v)))
            .collect();
        if have.len() < 2 {
            return None;
        }
        let pick = |a: &(usize, f64), b: &(usize, f64)| match self.better {
            Better::Higher => a.1.total_cmp(&b.1),
            Better::Lower => b.1.total_cmp(&a.1),
        };
        let best = have.iter().max_by(|a, b| pick(a, b))?;
        let ties = have.iter().filter(|v| v.1 == best.1).count();
        (ties == 1).then_some(best.0)
    }
}

/// The comparison of one test (one result stem, e.g. "consistency-spare-25").
#[derive(Clone, Debug)]
pub struct Table {
    pub stem: String,
    pub test: TestId,
    pub title: String,
    pub metrics: Vec<Metric>,
    /// The stored result behind each drive's column.
    pub result_ids: Vec<Option<i64>>,
    /// What a reader must know about the figures, printed under the title: a power figure
    /// that was modelled or estimated rather than measured, or why one is missing.
    pub notes: Vec<String>,
}

/// A drive and the results it is compared with (its newest of each test).
pub type DriveResults = (DriveRow, Vec<StoredResult>);

/// The tables for the drives, in the order tests were first measured; only tests whose
/// name or stem is `only`, when given.
pub fn tables(drives: &[DriveResults], only: Option<&str>) -> Vec<Table> {
    let mut stems: Vec<(String, TestId, String)> = Vec::new();
    for (_, results) in drives {
        for s in results {
            let r = &s.result;
            let stem = r.file_stem();
            let wanted = only.is_none_or(|o| o == r.test.name() || o == stem);
            if wanted && !stems.iter().any(|(st, _, _)| *st == stem) {
                stems.push((stem, r.test, r.label.clone()));
            }
        }
    }
    stems
        .into_iter()
        .map(|(stem, test, title)| {
            let found: Vec<Option<&StoredResult>> = drives
                .iter()
                .map(|(_, rs)| rs.iter().find(|s| s.result.file_stem() == stem))
                .collect();
            let names = metrics_of(test);
            let metrics = names
                .iter()
                .map(|&(name, unit, better, get)| Metric {
                    name,
                    unit,
                    better,
                    values: found
                        .iter()
                        .map(|s| s.and_then(|s| get(&s.result)))
                        .collect(),
                })
                .filter(|m| m.values.iter().any(Option::is_some))
                .collect();
            let notes = drives
                .iter()
                .zip(&found)
                .filter_map(|((d, _), s)| Some((d, power_note(&(*s)?.result)?)))
                .map(|(d, note)| format!("{}: {note}", d.name))
                .collect();
            Table {
                stem,
                test,
                title,
                metrics,
                result_ids: found.iter().map(|s| s.map(|s| s.id)).collect(),
                notes,
            }
        })
        .collect()
}

type Getter = fn(&TestResult) -> Option<f64>;

/// What a power test's figures are when they are not a measurement, or why they are
/// missing.
fn power_note(r: &TestResult) -> Option<String> {
    use engine::power::Basis;
    if !power::is_power_test(r.test) {
        return None;
    }
    let reading = power::Reading::of(r);
    match (reading.mean_w, reading.basis) {
        (None, _) => Some(format!(
            "power missing ({})",
            reading.missing.as_deref().unwrap_or("no reading")
        )),
        (Some(_), Some(b @ (Basis::Model | Basis::Estimate))) => {
            Some(power::basis_sentence(b).to_string())
        }
        _ => None,
    }
}

fn mean_w(r: &TestResult) -> Option<f64> {
    power::Reading::of(r).mean_w
}

fn analysis_w(r: &TestResult, f: fn(&power::PowerAnalysis) -> Option<f64>) -> Option<f64> {
    f(&power::analysis(r)?)
}

/// Which figures each test is compared on, as the reviews charted them.
fn metrics_of(test: TestId) -> Vec<(&'static str, &'static str, Better, Getter)> {
    use Better::{Higher, Lower};
    use TestId::*;
    match test {
        Consistency => vec![
            ("steady-state mean", "IOPS", Higher, |r| {
                r.consistency()?.steady_state.map(|s| s.mean)
            }),
            ("steady-state median", "IOPS", Higher, |r| {
                r.consistency()?.steady_state.map(|s| s.median)
            }),
            ("steady-state min", "IOPS", Higher, |r| {
                r.consistency()?.steady_state.map(|s| s.min)
            }),
            ("steady-state p1", "IOPS", Higher, |r| {
                r.consistency()?.steady_state.map(|s| s.p1)
            }),
            ("steady-state p99", "IOPS", Higher, |r| {
                r.consistency()?.steady_state.map(|s| s.p99)
            }),
            ("steady-state stddev", "IOPS", Lower, |r| {
                r.consistency()?.steady_state.map(|s| s.stddev)
            }),
            ("drop at", "s", Higher, |r| {
                r.consistency()?.drop_s.map(|t| t as f64)
            }),
            ("write amplification (steady)", "x", Lower, |r| {
                r.write_amplification.and_then(|w| w.steady_state)
            }),
        ],
        StorageBench | Replay => vec![
            ("data rate", "MB/s", Higher, |r| {
                Some(r.replay()?.metrics.data_rate_mbps)
            }),
            ("read data rate", "MB/s", Higher, |r| {
                r.replay()?.metrics.read_rate_mbps
            }),
            ("write data rate", "MB/s", Higher, |r| {
                r.replay()?.metrics.write_rate_mbps
            }),
            ("disk busy time", "s", Lower, |r| {
                Some(r.replay()?.metrics.busy_time_s)
            }),
            ("read busy time", "s", Lower, |r| {
                r.replay()?.metrics.read_busy_time_s
            }),
            ("write busy time", "s", Lower, |r| {
                r.replay()?.metrics.write_busy_time_s
            }),
            ("average service time", "us", Lower, |r| {
                Some(r.replay()?.metrics.avg_service_time_us)
            }),
        ],
        Trim => vec![
            ("clean", "MB/s", Higher, |r| Some(r.trim()?.clean.mbps)),
            ("dirty", "MB/s", Higher, |r| Some(r.trim()?.dirty.mbps)),
            ("after TRIM", "MB/s", Higher, |r| {
                Some(r.trim()?.after_trim.mbps)
            }),
        ],
        TransferSweep => vec![
            ("peak", "MB/s", Higher, |r| {
                Some(r.transfer_sweep()?.peak_mbps)
            }),
            ("90% of peak from", "size", Lower, |r| {
                r.transfer_sweep()?.reaches_90pct_at_bytes.map(|b| b as f64)
            }),
        ],
        SteadyState => vec![("steady state", "IOPS", Higher, |r| {
            Some(r.steady_state()?.steady_iops)
        })],
        // The reviews' power charts: lowest best; slumber in milliwatts.
        PowerSlumber => vec![
            ("mean power", "mW", Lower, |r| mean_w(r).map(|w| w * 1e3)),
            ("min power", "mW", Lower, |r| {
                power::Reading::of(r).min_w.map(|w| w * 1e3)
            }),
            ("max power", "mW", Lower, |r| {
                power::Reading::of(r).max_w.map(|w| w * 1e3)
            }),
        ],
        PowerIdle | PowerSeqWrite | PowerRandomWrite => vec![
            ("mean power", "W", Lower, mean_w),
            ("min power", "W", Lower, |r| power::Reading::of(r).min_w),
            ("max power", "W", Lower, |r| power::Reading::of(r).max_w),
            ("performance per watt", "MB/s/W", Higher, |r| {
                analysis_w(r, |a| a.mbps_per_w)
            }),
            ("performance per watt", "IOPS/W", Higher, |r| {
                analysis_w(r, |a| a.iops_per_w)
            }),
            ("first 30 s", "W", Lower, |r| {
                analysis_w(r, |a| a.first_30s_w)
            }),
            ("after 30 s", "W", Lower, |r| {
                analysis_w(r, |a| a.after_30s_w)
            }),
            ("tail (60 s after the writes)", "W", Lower, |r| {
                analysis_w(r, |a| a.tail_w)
            }),
        ],
        // The four corners' rows, the sequential tests and custom: throughput and latency.
        Corners | RandomRead | RandomWrite | RandomWriteQd32 | SeqRead | SeqWrite
        | SeqIncompressible | Verify | Custom => vec![
            ("throughput", "MB/s", Higher, |r| Some(r.summary.mbps)),
            ("IOPS", "IOPS", Higher, |r| Some(r.summary.iops)),
            ("mean latency", "us", Lower, |r| latency(r).map(|l| l.mean)),
            ("p99 latency", "us", Lower, |r| latency(r).map(|l| l.p99)),
        ],
    }
}

fn latency(r: &TestResult) -> Option<&engine::measure::LatencyStats> {
    let s = &r.summary;
    s.write.as_ref().or(s.read.as_ref()).map(|d| &d.latency_us)
}

/// The most a price may be (`bench annotate --price`): more than any drive costs, few
/// enough digits to print.
pub const MAX_PRICE_USD: f64 = 10_000_000.0;

/// A price in dollars with `decimals` decimals; a figure too large for a price column (only
/// a Bench written before prices were bounded holds one) in scientific notation.
pub fn usd(v: f64, decimals: usize) -> String {
    if v.is_finite() && v.abs() < 1e9 {
        format!("${v:.decimals$}")
    } else {
        format!("${v:.2e}")
    }
}

/// A figure as a table shows it; a "size" in KiB, MiB, GiB.
pub fn format_value(v: f64, unit: &str) -> String {
    match unit {
        "x" => format!("{v:.2}"),
        "size" if v >= 0.0 => engine::size::format_size(v as u64),
        "MB/s" | "s" | "MB/s/W" if v.abs() < 100.0 => format!("{v:.1}"),
        "W" => format!("{v:.2}"),
        _ => format!("{v:.0}"),
    }
}

/// The drives `selectors` name, in order, each once: a selector is a drive's id or a part of
/// its name, model or serial (any case) that only one drive has; a whole name picks its drive
/// even when longer names contain it.
pub fn select_drives(all: &[DriveRow], selectors: &[String]) -> Result<Vec<DriveRow>, String> {
    let listing = |drives: &[&DriveRow]| {
        drives
            .iter()
            .map(|d| format!("{} = {}", d.id, crate::term::printable(&d.name)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    // "840-evo" finds "Samsung SSD 840 EVO": case, '-' and '_' do not matter.
    let fold = |s: &str| s.to_lowercase().replace(['-', '_'], " ");
    let mut chosen: Vec<DriveRow> = Vec::new();
    for selector in selectors {
        let needle = fold(selector.trim());
        let by_id = selector
            .trim()
            .parse::<i64>()
            .ok()
            .and_then(|id| all.iter().find(|d| d.id == id));
        let whole: Vec<&DriveRow> = all.iter().filter(|d| fold(&d.name) == needle).collect();
        let partial: Vec<&DriveRow> = all
            .iter()
            .filter(|d| {
                [Some(&d.name), d.model.as_ref(), d.serial.as_ref()]
                    .into_iter()
                    .flatten()
                    .any(|s| fold(s).contains(&needle))
            })
            .collect();
        let drive = match (by_id, whole.as_slice(), partial.as_slice()) {
            (Some(d), _, _) => d,
            (None, [d], _) => d,
            (None, _, [d]) => d,
            (None, _, []) => {
                return Err(format!(
                    "no drive matches {selector:?}: give a drive's id or part of its name ({}; \
                     `ssdlab bench list` shows them)",
                    match all.len() {
                        0 => "the Bench has no drives yet".to_string(),
                        _ => listing(&all.iter().collect::<Vec<_>>()),
                    }
                ))
            }
            (None, _, many) => {
                return Err(format!(
                    "{selector:?} matches {} drives ({}): give more of the name, or the id",
                    many.len(),
                    listing(many)
                ))
            }
        };
        if !chosen.iter().any(|c| c.id == drive.id) {
            chosen.push(drive.clone());
        }
    }
    Ok(chosen)
}

/// `text` in lines of at most `width` characters, broken between words (a longer word alone
/// on its line, whole).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// The tables as text: a column per drive headed by its whole name (wrapped, never cut, so
/// two drives always read apart), `*` after each row's best value.
pub fn render_text(drives: &[DriveRow], tables: &[Table]) -> String {
    use crate::term::printable;
    // Every row first, to size the columns.
    enum Row {
        Title(String),
        Note(String),
        Figures(String, Vec<String>),
    }
    let mut rows = vec![Row::Figures(
        "price per GB".into(),
        drives
            .iter()
            .map(|d| d.price_per_gb().map_or("-".into(), |p| usd(p, 2)) + " ")
            .collect(),
    )];
    for t in tables {
        rows.push(Row::Title(format!(
            "{} [{}]",
            printable(&t.title),
            printable(&t.stem)
        )));
        for note in &t.notes {
            rows.push(Row::Note(printable(note).into_owned()));
        }
        for m in &t.metrics {
            let best = m.best();
            let label = match m.unit {
                "size" => m.name.to_string(),
                unit if unit == m.name => m.name.to_string(),
                unit => format!("{} ({unit})", m.name),
            };
            let cells = m
                .values
                .iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Some(v) => format!(
                        "{}{}",
                        format_value(*v, m.unit),
                        if best == Some(i) { "*" } else { " " }
                    ),
                    None => "- ".into(),
                })
                .collect();
            rows.push(Row::Figures(label, cells));
        }
    }
    let label_width = rows
        .iter()
        .filter_map(|r| match r {
            Row::Figures(label, _) => Some(label.chars().count() + 2),
            Row::Title(_) | Row::Note(_) => None,
        })
        .max()
        .unwrap_or(0)
        .max("drive".len());
    // A column is as wide as its widest figure, at least 16, and wider for a long word.
    let widths: Vec<usize> = drives
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let figures = rows.iter().filter_map(|r| match r {
                Row::Figures(_, cells) => cells.get(i).map(|c| c.chars().count()),
                Row::Title(_) | Row::Note(_) => None,
            });
            let words = printable(&d.name)
                .split_whitespace()
                .map(|w| w.chars().count() + 1)
                .max()
                .unwrap_or(0);
            figures.chain([16, words]).max().unwrap_or(16)
        })
        .collect();
    let names: Vec<Vec<String>> = drives
        .iter()
        .zip(&widths)
        // One column of space is the best-value mark's.
        .map(|(d, &w)| wrap(&printable(&d.name), w - 1))
        .collect();
    let header_lines = names.iter().map(Vec::len).max().unwrap_or(0).max(1);
    let mut out = String::new();
    for line in 0..header_lines {
        let mut text = format!("{:<label_width$}", if line == 0 { "drive" } else { "" });
        for (name, &w) in names.iter().zip(&widths) {
            let part = name.get(line).map_or("", String::as_str);
            text += &format!("  {:>w$}", format!("{part} "));
        }
        out += text.trim_end();
        out.push('\n');
    }
    for row in &rows {
        match row {
            Row::Title(title) => {
                let _ = writeln!(out, "\n{title}");
            }
            Row::Note(note) => {
                let _ = writeln!(out, "  ({note})");
            }
            Row::Figures(label, cells) => {
                let mut text = format!("{:<label_width$}", format!("  {label}"));
                for (cell, &w) in cells.iter().zip(&widths) {
                    text += &format!("  {cell:>w$}");
                }
                out += text.trim_end();
                out.push('\n');
            }
        }
    }
    out += "\n* best of the drives compared\n";
    out
}

#[cfg(test)]
mod tests {
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
        let drives: Vec<DriveResults> = b
            .find_drives(&["slow".into(), "fast".into()])
            .unwrap()
            .into_iter()
            .map(|d| {
                let rs = b.latest_results(d.id).unwrap();
                (d, rs)
            })
            .collect();
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
        let drives: Vec<DriveResults> = b
            .find_drives(&["metered".into(), "simulated".into(), "no meter".into()])
            .unwrap()
            .into_iter()
            .map(|d| {
                let rs = b.latest_results(d.id).unwrap();
                (d, rs)
            })
            .collect();
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
        let ambiguous = ids(&["840"]).unwrap_err();
        assert!(
            ambiguous.contains("matches 2 drives")
                && ambiguous.contains("1 = ssdlab model of Samsung SSD 840 EVO 250GB")
                && ambiguous.contains("3 = "),
            "{ambiguous}"
        );
        let unknown = ids(&["970"]).unwrap_err();
        assert!(
            unknown.contains("no drive matches \"970\"")
                && unknown.contains("2 = Crucial M500 240GB"),
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
}
