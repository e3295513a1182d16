//! JSON: everything, for a program to read back: the Bench's schema version, the runs'
//! drives, and each run with its results whole.

use std::io::Write;

use super::{ExportError, Exporter};
use crate::db::{Bench, RunRow, SCHEMA_VERSION};

pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn write(
        &self,
        bench: &Bench,
        runs: &[RunRow],
        out: &mut dyn Write,
    ) -> Result<(), ExportError> {
        let mut with_results = Vec::new();
        for r in runs {
            let results: Vec<_> = bench
                .results_of_run(r.id)?
                .into_iter()
                .map(|s| s.result)
                .collect();
            with_results.push(serde_json::json!({ "run": r, "results": results }));
        }
        let drives: Vec<_> = bench
            .drives()?
            .into_iter()
            .filter(|d| runs.iter().any(|r| r.drive_id == d.id))
            .collect();
        serde_json::to_writer_pretty(
            &mut *out,
            &serde_json::json!({
                "bench_schema_version": SCHEMA_VERSION,
                "drives": drives,
                "runs": with_results,
            }),
        )?;
        out.write_all(b"\n")?;
        Ok(())
    }
}
