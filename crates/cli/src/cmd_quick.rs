//! `ssdlab quick`: one of CrystalDiskMark's profiles (`suite::methodology::quick`), shown as
//! CrystalDiskMark shows it, a row per workload and a column per direction.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use engine::size::{parse_duration, Span};
use suite::methodology::quick;
use suite::methodology::TestId;
use suite::params::Overrides;
use suite::result::{Parameters, TestResult};

use crate::table::{Align, Table};
use run::target_flags::TargetArgs;

#[derive(Args)]
pub struct QuickArgs {
    /// CrystalDiskMark 8's profile: default (SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K
    /// Q1T1), nvme (SEQ1M Q8T1, SEQ128K Q32T1, RND4K Q32T16, RND4K Q1T1), peak or real-world.
    #[arg(long, default_value = "default", value_parser = parse_profile)]
    pub profile: TestId,
    #[command(flatten)]
    pub common: TargetArgs,
    /// Each workload's measure time (default 5 s).
    #[arg(long, value_parser = parse_duration)]
    pub duration: Option<f64>,
    /// The test region from the start of the target (default 1G, CrystalDiskMark's size).
    #[arg(long, value_parser = Span::parse)]
    pub span: Option<Span>,
    /// Also run every workload as a mix with this share of reads (KDiskMark's mix: 70).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=99))]
    pub read_pct: Option<u8>,
    /// Also write the results as a JSON array here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Results directory (default: results/quick-...-TIMESTAMP).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

fn parse_profile(text: &str) -> Result<TestId, String> {
    match text {
        "default" => Ok(TestId::Quick),
        "nvme" => Ok(TestId::QuickNvme),
        "peak" => Ok(TestId::QuickPeak),
        "real-world" | "realworld" => Ok(TestId::QuickRealWorld),
        other => Err(format!(
            "unknown profile '{other}': use default, nvme, peak or real-world"
        )),
    }
}

pub fn run(a: QuickArgs) -> anyhow::Result<ExitCode> {
    let test = suite::methodology::get(a.profile)?;
    let overrides = Overrides {
        duration_s: a.duration,
        span: a.span,
        read_pct: a.read_pct,
        ..Overrides::default()
    };
    let output = run::Output {
        dir: a.out.map_or(run::ResultsDir::New, run::ResultsDir::At),
        json: a.json,
        fio_job: None,
    };
    let work = run::Work::Test(run::TestWork::of(test, overrides));
    let request = a.common.request_for(work, output)?;
    crate::cmd_run::execute(&request, "run", a.common.quiet)
}

/// A quick profile's results as CrystalDiskMark's grid: MB/s, IOPS and mean latency of each
/// workload (a row) in each direction (read, write, mix).
pub fn grid(results: &[TestResult]) -> String {
    // Each result's cell and direction, from the workload it ran.
    let split = |r: &TestResult| -> (String, &'static str) {
        let Parameters::Workload(w) = &r.parameters else {
            return (r.label.clone(), "read");
        };
        let cell = quick::cell_of(w).map_or_else(|| r.label.clone(), |c| c.name.to_string());
        let direction = match w.read_pct {
            100 => "read",
            0 => "write",
            _ => "mix",
        };
        (cell, direction)
    };
    let directions: Vec<&str> = ["read", "write", "mix"]
        .into_iter()
        .filter(|d| results.iter().any(|r| split(r).1 == *d))
        .collect();
    let mut headers = vec![("", Align::Left)];
    let titles: Vec<[String; 3]> = directions
        .iter()
        .map(|d| [format!("{d} MB/s"), format!("{d} IOPS"), format!("{d} us")])
        .collect();
    for t in &titles {
        headers.extend(t.iter().map(|h| (h.as_str(), Align::Right)));
    }
    let mut table = Table::new(&headers);
    let mut cells: Vec<String> = Vec::new();
    for r in results {
        let cell = split(r).0;
        if !cells.contains(&cell) {
            cells.push(cell);
        }
    }
    for cell in cells {
        let mut row = vec![cell.clone()];
        for d in &directions {
            let r = results.iter().find(|r| split(r) == (cell.clone(), *d));
            row.extend(match r {
                Some(r) => {
                    let s = &r.summary;
                    let mean = [&s.read, &s.write]
                        .into_iter()
                        .flatten()
                        .map(|d| d.latency_us.mean * d.ios as f64)
                        .sum::<f64>()
                        / s.ios.max(1) as f64;
                    [
                        format!("{:.1}", s.mbps),
                        format!("{:.0}", s.iops),
                        format!("{mean:.1}"),
                    ]
                }
                None => Default::default(),
            });
        }
        table.row(row);
    }
    // The cells share their deviations (a smaller test size, a shorter time): said once.
    let mut deviations: Vec<&str> = Vec::new();
    for d in results.iter().flat_map(|r| &r.deviations) {
        if !deviations.contains(&d.as_str()) {
            deviations.push(d);
        }
    }
    let mut text = table.render();
    for d in deviations {
        text += &format!("deviation: {d}\n");
    }
    text
}
