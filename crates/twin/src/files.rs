//! The files of a fitted twin (`ssdlab sim fit`, `ssdlab.sim.fit`): the twin itself, which
//! `--target sim:twin.toml` runs, and beside it its fit's report (Markdown and JSON) and the
//! loss chart the report shows.

use std::path::{Path, PathBuf};

use crate::fit::Fit;

/// Why a twin's files cannot be placed or written.
#[derive(Debug, thiserror::Error)]
pub enum FilesError {
    #[error("{0}: the twin is a .toml file (e.g. twin.toml), which `--target sim:twin.toml` runs")]
    NotToml(String),
    #[error("{0}: is a directory: give the twin's file (e.g. {1})")]
    IsDirectory(String, String),
    #[error("{0}: the directory {1} does not exist: create it, or write the twin elsewhere")]
    NoDirectory(String, String),
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error("writing {0}: {1}")]
    Write(String, std::io::Error),
}

/// Draws a fit's loss chart: `bench::fit_chart::loss_chart`.
pub type LossChart = fn(&str, &[(usize, f64)], Option<&[(usize, f64)]>) -> String;

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
    pub fn beside(twin: &Path) -> Result<TwinFiles, FilesError> {
        let shown = || twin.display().to_string();
        if twin.extension().and_then(|e| e.to_str()) != Some("toml") {
            return Err(FilesError::NotToml(shown()));
        }
        // Checked before a fit runs for hours to find it cannot write its twin.
        if twin.is_dir() {
            let example = twin.join("twin.toml").display().to_string();
            return Err(FilesError::IsDirectory(shown(), example));
        }
        let dir = twin.parent().filter(|d| !d.as_os_str().is_empty());
        if let Some(dir) = dir.filter(|d| !d.is_dir()) {
            return Err(FilesError::NoDirectory(shown(), dir.display().to_string()));
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

    /// Write the twin, its report and the loss chart the report shows, drawn by `chart` (the
    /// Bench's, which this crate does not depend on) from the drive's name, the best loss by
    /// evaluations and, with screening, the losses confirmed at full length.
    pub fn write(&self, fit: &Fit, chart: LossChart) -> Result<(), FilesError> {
        let r = &fit.report;
        let json = serde_json::to_string_pretty(r)?;
        write(&self.twin, &fit.toml(&file_name(&self.report)))?;
        let confirmed = (r.screen > 1).then_some(&r.confirmed[..]);
        write(&self.chart, &chart(&r.drive, &r.history, confirmed))?;
        write(
            &self.report,
            &fit.report.markdown(Some(&file_name(&self.chart))),
        )?;
        write(&self.report_json, &json)
    }
}

fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

fn write(path: &Path, text: &str) -> Result<(), FilesError> {
    std::fs::write(path, text).map_err(|e| FilesError::Write(path.display().to_string(), e))
}
