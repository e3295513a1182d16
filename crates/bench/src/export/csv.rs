//! CSV: a row per result with its headline figures and what they are (simulated, a quick
//! run's, deviating from the methodology, a steady state or not), for a spreadsheet. Text is
//! made safe to print, kept from being read as a formula, and quoted as RFC 4180 says.

use std::io::Write;

use super::{ExportError, Exporter};
use crate::db::{Bench, RunRow};
use crate::term::printable;

pub struct CsvExporter;

const HEADER: &str = "run,drive,started_at,test,variant,label,complete,iops,mbps,mean_latency_us,p99_latency_us,mean_w,power_basis,simulated,quick,deviations,steady_state_reached\n";

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
                    (x.target.kind == engine::target_kind::TargetKind::Sim).to_string(),
                    r.quick.to_string(),
                    x.deviations.join("; "),
                    steady_state_reached(x),
                ];
                let quoted: Vec<String> = (cells.iter())
                    .map(|c| cell(&not_a_formula(&printable(c))))
                    .collect();
                writeln!(out, "{}", quoted.join(","))?;
            }
        }
        Ok(())
    }
}

/// Whether a consistency or steady-state result's figures are a steady state by the
/// methodology's rule; blank for the other tests.
fn steady_state_reached(x: &suite::result::TestResult) -> String {
    match (x.consistency(), x.steady_state()) {
        (Some(a), _) => a.reached.to_string(),
        (_, Some(a)) => a.reached.to_string(),
        _ => String::new(),
    }
}

/// OWASP's rule against formula injection: text starting with = + - @ TAB or CR gets a
/// leading single quote, so a spreadsheet shows it rather than runs it. Numbers stay numbers.
fn not_a_formula(c: &str) -> std::borrow::Cow<'_, str> {
    let risky = c.starts_with(['=', '+', '-', '@', '\t', '\r']);
    match risky && c.parse::<f64>().is_err() {
        true => format!("'{c}").into(),
        false => c.into(),
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

    #[test]
    fn text_a_spreadsheet_would_run_as_a_formula_is_quoted_and_numbers_stay() {
        for risky in [
            "=HYPERLINK(\"http://evil\",\"x\")",
            "-1+1<b>bold</b>",
            "+A1",
            "@SUM(A1)",
            "\tx",
            "\rx",
        ] {
            assert_eq!(not_a_formula(risky), format!("'{risky}"));
        }
        for safe in ["-12.5", "+3", "840 EVO", "a=b", ""] {
            assert_eq!(not_a_formula(safe), safe);
        }
    }
}
