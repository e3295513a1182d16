//! CSV: a row per result with its headline figures, for a spreadsheet. Text is made safe to
//! print and quoted as RFC 4180 says.

use std::io::Write;

use super::{ExportError, Exporter};
use crate::db::{Bench, RunRow};
use crate::term::printable;

pub struct CsvExporter;

const HEADER: &str = "run,drive,started_at,test,variant,label,complete,iops,mbps,mean_latency_us,p99_latency_us,mean_w,power_basis\n";

impl Exporter for CsvExporter {
    fn write(
        &self,
        bench: &Bench,
        runs: &[RunRow],
        out: &mut dyn Write,
    ) -> Result<(), ExportError> {
        out.write_all(HEADER.as_bytes())?;
        for r in runs {
            for s in bench.results_of_run(r.id)? {
                let x = &s.result;
                let lat = x
                    .summary
                    .write
                    .as_ref()
                    .or(x.summary.read.as_ref())
                    .map(|d| &d.latency_us);
                let cells = [
                    r.id.to_string(),
                    r.drive.clone(),
                    x.started_at.clone(),
                    x.test.name().to_string(),
                    x.variant.clone().unwrap_or_default(),
                    x.label.clone(),
                    x.complete.to_string(),
                    format!("{:.1}", x.summary.iops),
                    format!("{:.3}", x.summary.mbps),
                    lat.map_or(String::new(), |l| format!("{:.1}", l.mean)),
                    lat.map_or(String::new(), |l| format!("{:.1}", l.p99)),
                    // Blank where power is missing, never 0.
                    x.power
                        .as_ref()
                        .and_then(|p| p.mean_w())
                        .map_or(String::new(), |w| format!("{w:.4}")),
                    x.power
                        .as_ref()
                        .map_or(String::new(), |p| p.basis.word().into()),
                ];
                let quoted: Vec<String> = cells.iter().map(|c| cell(&printable(c))).collect();
                writeln!(out, "{}", quoted.join(","))?;
            }
        }
        Ok(())
    }
}

/// RFC 4180: quote a cell holding a comma, quote or line break.
fn cell(c: &str) -> String {
    if c.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", c.replace('"', "\"\""))
    } else {
        c.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_with_commas_quotes_or_line_breaks_are_quoted() {
        assert_eq!(cell("plain"), "plain");
        assert_eq!(cell("a,b"), "\"a,b\"");
        assert_eq!(cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(cell("two\nlines"), "\"two\nlines\"");
    }
}
