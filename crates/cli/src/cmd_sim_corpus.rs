//! `ssdlab sim validate --corpus`: the fidelity corpus's records (published figures beyond the
//! seed articles) checked on the presets, met and missed by split (fit, validation) and by
//! preset. Records whose review procedure no measurement runs are counted as protocol gaps.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use anyhow::{bail, Context as _};
use twin::fidelity::{self, corpus, Claim, Outcome};

pub fn validate(
    presets: &[String],
    split: Option<&str>,
    jobs: Option<usize>,
    json: Option<PathBuf>,
) -> anyhow::Result<()> {
    if let Some(s) = split {
        if !corpus::SPLITS.contains(&s) {
            bail!("--split {s}: give fit or validation");
        }
    }
    let records: Vec<corpus::CorpusRecord> = corpus::records()
        .map_err(anyhow::Error::msg)?
        .into_iter()
        .filter(|r| presets.is_empty() || presets.contains(&r.drive))
        .filter(|r| split.is_none_or(|s| r.split == s))
        .collect();
    let known: BTreeSet<&str> = sim::presets().into_iter().map(|(n, _)| n).collect();
    for p in presets {
        if !known.contains(p.as_str()) {
            bail!("{}", sim::preset::unknown_preset(p));
        }
    }
    let checked: Vec<(&corpus::CorpusRecord, Claim)> = records
        .iter()
        .filter_map(|r| r.to_claim().map(|c| (r, c)))
        .collect();
    let claims: Vec<Claim> = checked.iter().map(|(_, c)| c.clone()).collect();
    let plan = fidelity::plan(&claims).map_err(anyhow::Error::msg)?;
    let threads = jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    eprintln!(
        "corpus: {} records, {} with a metric: {} measurements, {threads} at a time",
        records.len(),
        claims.len(),
        plan.len()
    );
    let total = plan.len();
    let finished = std::sync::atomic::AtomicUsize::new(0);
    let measured = fidelity::measure_all(
        &plan,
        &BTreeMap::new(),
        threads,
        &|drive, m, _figures, secs| {
            let n = finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            eprintln!("  [{n}/{total}] {drive} {} ({secs:.1} s)", m.prefix());
        },
    )
    .map_err(anyhow::Error::msg)?;
    let outcomes: Vec<Outcome> = claims
        .iter()
        .map(|c| fidelity::evaluate(c, &measured))
        .collect();
    for ((r, c), o) in checked.iter().zip(&outcomes) {
        println!(
            "{:4} {:10} {:46} published {:16} simulated {}",
            if o.pass { "pass" } else { "MISS" },
            r.split,
            r.id,
            c.published_text(),
            o.simulated
        );
    }
    println!();
    let tally = corpus::tally(&records, &outcomes);
    for s in corpus::SPLITS {
        let rows: Vec<_> = tally.iter().filter(|((sp, _), _)| sp == s).collect();
        if rows.is_empty() {
            continue;
        }
        let (met, n) = rows
            .iter()
            .fold((0, 0), |(m, n), (_, (a, b))| (m + a, n + b));
        let gaps = records
            .iter()
            .filter(|r| r.split == *s && r.metric.is_empty())
            .count();
        println!(
            "{s}: {met} of {n} met ({:.0}%), {gaps} more records are protocol gaps",
            100.0 * met as f64 / n.max(1) as f64
        );
        for ((_, drive), (m, n)) in rows {
            println!("  {drive:20} {m} of {n}");
        }
    }
    if let Some(path) = json {
        let body =
            serde_json::json!({ "records": records, "outcomes": outcomes, "figures": measured });
        std::fs::write(&path, serde_json::to_string_pretty(&body)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}
