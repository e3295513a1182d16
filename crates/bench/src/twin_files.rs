//! The files of a fitted twin (`ssdlab sim fit`, `ssdlab.sim.fit`): the twin itself, which
//! `--target sim:twin.toml` runs, and beside it its fit's report (Markdown and JSON) and the
//! loss chart the report shows.

use std::path::{Path, PathBuf};

use suite::fit::{Fit, FitReport};

use crate::chart::{Axis, Series, XYChart};

/// Where a twin and its report go, from the twin's path.
#[derive(Clone, Debug)]
pub struct TwinFiles {
    pub twin: PathBuf,
    pub report: PathBuf,
    pub report_json: PathBuf,
    pub chart: PathBuf,
    /// The evaluations kept, from which a stopped fit resumes.
    pub evaluations: PathBuf,
}

impl TwinFiles {
    /// The files beside `twin`, which must be a `.toml` file.
    pub fn beside(twin: &Path) -> Result<TwinFiles, String> {
        if twin.extension().and_then(|e| e.to_str()) != Some("toml") {
            return Err(format!(
                "{}: the twin is a .toml file (e.g. twin.toml), which `--target sim:twin.toml` runs",
                twin.display()
            ));
        }
        // Checked before a fit runs for hours to find it cannot write its twin.
        if twin.is_dir() {
            return Err(format!(
                "{}: is a directory: give the twin's file (e.g. {})",
                twin.display(),
                twin.join("twin.toml").display()
            ));
        }
        let dir = twin.parent().filter(|d| !d.as_os_str().is_empty());
        if let Some(dir) = dir.filter(|d| !d.is_dir()) {
            return Err(format!(
                "{}: the directory {} does not exist: create it, or write the twin elsewhere",
                twin.display(),
                dir.display()
            ));
        }
        let with = |ext: &str| twin.with_extension(ext);
        Ok(TwinFiles {
            twin: twin.to_path_buf(),
            report: with("fit.md"),
            report_json: with("fit.json"),
            chart: with("fit.svg"),
            evaluations: with("evals.jsonl"),
        })
    }

    /// Write the twin, its report and its chart.
    pub fn write(&self, fit: &Fit) -> Result<(), String> {
        let json = serde_json::to_string_pretty(&fit.report).map_err(|e| e.to_string())?;
        write(&self.twin, &fit.toml(&file_name(&self.report)))?;
        write(&self.chart, &loss_chart(&fit.report))?;
        write(
            &self.report,
            &fit.report.markdown(Some(&file_name(&self.chart))),
        )?;
        write(&self.report_json, &json)
    }
}

/// The best loss by evaluations, as a line; with screening, the confirmed losses as dots.
fn loss_chart(r: &FitReport) -> String {
    let points = |h: &[(usize, f64)]| {
        h.iter()
            .map(|&(n, loss)| (n as f64, loss))
            .collect::<Vec<_>>()
    };
    let screened = r.screen > 1;
    let mut chart = XYChart::new(
        &format!("Fitting a twin of {}", r.drive),
        Axis::linear("simulated drives evaluated"),
        Axis::linear("best loss (weighted mean relative error)"),
    )
    .series(Series::line(
        if screened {
            "best screened loss (corrected)"
        } else {
            "best loss"
        },
        points(&r.history),
    ));
    if screened {
        chart.push(Series::dots(
            "best confirmed at full length",
            points(&r.confirmed),
        ));
    }
    chart.to_svg()
}

fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("writing {}: {e}", path.display()))
}
