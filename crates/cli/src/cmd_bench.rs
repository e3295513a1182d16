//! `ssdlab bench`: the results database: list, show, compare, remove, annotate, push
//! (import), copy, export, and serve it as a web page.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand};

use bench::compare;
use bench::db::{Bench, RunRow, Specs, Stored};
use bench::export::Format;
use bench::term::printable;

#[derive(Args)]
pub struct BenchArgs {
    /// The Bench database: an SQLite file (PATH or sqlite:PATH) or PostgreSQL
    /// (postgres://user@host[:port]/dbname, or key=value words; PGHOST, PGUSER,
    /// PGPASSWORD... fill what it leaves out) [default: $XDG_DATA_HOME/ssdlab/bench.db].
    /// Help never shows its value: it may hold a password.
    #[arg(
        long,
        env = "SSDLAB_DB",
        hide_env_values = true,
        value_name = "PATH|URL",
        global = true
    )]
    pub db: Option<PathBuf>,
    #[command(subcommand)]
    pub command: BenchCmd,
}

#[derive(Subcommand)]
pub enum BenchCmd {
    /// The drives and the runs stored.
    List,
    /// One run: its drive, and a line per result.
    Show {
        /// The run's number, as `bench list` shows it.
        run: i64,
    },
    /// The reviews' tables for some drives, best values marked. A drive is its id or a part of
    /// its name only it has (any case), e.g. `compare 840 m500`.
    Compare {
        /// The drives: each its id or a part of its name only it has.
        #[arg(required = true)]
        drives: Vec<String>,
        /// Only this test (e.g. consistency) or result (e.g. consistency-spare-25).
        #[arg(long)]
        test: Option<String>,
        /// Also compare results that deviate from the methodology (a quick suite, a scaled or
        /// shortened test), each marked; left out by default.
        #[arg(long)]
        include_deviating: bool,
    },
    /// Remove runs and their results.
    Rm {
        /// The runs' numbers, as `bench list` shows them.
        #[arg(required = true)]
        runs: Vec<i64>,
    },
    /// Add what a drive cannot report: price, controller, NAND, DRAM, a name, notes.
    Annotate {
        /// A drive id or part of its name (must match one drive).
        drive: String,
        /// A name to show instead of the model the drive reports.
        #[arg(long)]
        name: Option<String>,
        /// Price in US dollars; price per GB is then shown.
        #[arg(long)]
        price: Option<f64>,
        /// Its controller, e.g. Samsung MEX.
        #[arg(long)]
        controller: Option<String>,
        /// Its NAND, e.g. 21nm TLC.
        #[arg(long)]
        nand: Option<String>,
        /// Its DRAM cache, e.g. 512 MiB LPDDR2 (or none).
        #[arg(long)]
        dram: Option<String>,
        /// Anything else worth knowing about it.
        #[arg(long)]
        notes: Option<String>,
    },
    /// Store results directories (by `ssdlab run`, `suite` or `trace replay`), e.g. those
    /// written while the Bench was unreachable. A run already stored is stored once; every
    /// directory is tried, and the exit status says whether any failed. (`import` is the
    /// same command.)
    #[command(alias = "import")]
    Push {
        /// The results directories to store.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
    },
    /// Copy one Bench into another (SQLite or PostgreSQL either way): drives and their
    /// annotations, test systems, runs and results. Runs the target holds already (the same
    /// run identity) are left as they are, so copying again adds only what is new.
    Copy {
        /// The Bench to copy: PATH, sqlite:PATH or postgres://...
        #[arg(long, value_name = "PATH|URL")]
        from: PathBuf,
        /// The Bench to copy into (made if there is none).
        #[arg(long, value_name = "PATH|URL")]
        to: PathBuf,
    },
    /// Write the Bench (or some runs) as JSON or CSV.
    Export {
        /// json (everything, results whole) or csv (a row per result).
        #[arg(long, default_value = "json", value_parser = export_format)]
        format: Format,
        /// Only these runs (repeatable).
        #[arg(long)]
        run: Vec<i64>,
        /// Write here instead of standard output.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Serve the Bench as a web page (read-only).
    Serve {
        /// Address to listen on; loopback unless you say otherwise.
        #[arg(long, default_value = "127.0.0.1:8080")]
        listen: String,
    },
}

pub fn run(a: BenchArgs) -> anyhow::Result<ExitCode> {
    let path = a.db.clone().unwrap_or_else(bench::db::default_path);
    let read = || Bench::open_read_only(&path);
    let write = || Bench::open(&path);
    match a.command {
        BenchCmd::List => list(&read()?)?,
        BenchCmd::Show { run } => show(&read()?, run)?,
        BenchCmd::Compare {
            drives,
            test,
            include_deviating,
        } => compare_drives(&read()?, &drives, test, include_deviating)?,
        BenchCmd::Rm { runs } => {
            let mut b = write()?;
            for id in runs {
                anyhow::ensure!(
                    b.remove_run(id)?,
                    "no run {id} (`ssdlab bench list` shows them)"
                );
                println!("removed run {id}");
            }
        }
        BenchCmd::Annotate {
            drive,
            name,
            price,
            controller,
            nand,
            dram,
            notes,
        } => {
            let mut b = write()?;
            // One selector selects one drive, or fails saying why.
            let found = compare::select_drives(&b.drives()?, std::slice::from_ref(&drive))?;
            let d = found.first().context("no drive selected")?;
            if let Some(p) = price {
                anyhow::ensure!(
                    p.is_finite() && (0.0..=compare::MAX_PRICE_USD).contains(&p),
                    "--price {}: give the drive's price in US dollars, from 0 to {}",
                    if p.abs() < 1e9 {
                        p.to_string()
                    } else {
                        format!("{p:e}")
                    },
                    compare::MAX_PRICE_USD
                );
            }
            let specs = Specs {
                name,
                controller,
                nand,
                dram,
                price_usd: price,
                notes,
            };
            b.annotate(d.id, &specs)?;
            let d = b.drive(d.id)?.expect("annotated drive exists");
            print_drives(std::slice::from_ref(&d));
        }
        BenchCmd::Push { dirs } => return push(&mut write()?, &dirs),
        BenchCmd::Copy { from, to } => copy(&from, &to)?,
        BenchCmd::Export {
            format,
            run,
            output,
        } => {
            let text = bench::export::export(&read()?, format, &run)?;
            match output {
                Some(p) => {
                    std::fs::write(&p, text).with_context(|| format!("writing {}", p.display()))?
                }
                None => std::io::stdout().lock().write_all(&text)?,
            }
        }
        BenchCmd::Serve { listen } => {
            // Fail now, not at the first request, on a missing or unreadable database.
            drop(read()?);
            bench::web::serve(&path, &listen, |addr| {
                if !addr.ip().is_loopback() {
                    eprintln!("note: serving beyond this machine; the Bench is read-only");
                }
                println!("Bench: http://{addr}/");
                let _ = std::io::stdout().flush();
            })?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `bench compare`: the drives' results side by side, or why there are none.
fn compare_drives(
    b: &Bench,
    drives: &[String],
    test: Option<String>,
    include_deviating: bool,
) -> anyhow::Result<()> {
    let drives = compare::select_drives(&b.drives()?, drives)?;
    let deviating = match include_deviating {
        true => compare::Deviating::Included,
        false => compare::Deviating::LeftOut,
    };
    let wanted = |r: &suite::result::TestResult| {
        (test.as_deref()).is_none_or(|t| t == r.test.name() || t == r.file_stem())
    };
    let mut left = Vec::new();
    let mut with: Vec<compare::DriveResults> = Vec::new();
    for d in drives {
        let (shown, out) = compare::comparable(b, d.id, deviating)?;
        left.extend(out.into_iter().map(|s| s.result));
        with.push((d, shown));
    }
    let left_out = compare::left_out_note(
        left.iter().filter(|r| wanted(r)).count(),
        "--include-deviating",
    );
    let tables = compare::tables(&with, test.as_deref());
    if tables.is_empty() {
        let Some(test) = test else {
            match left_out {
                Some(why) => {
                    anyhow::bail!("none of these drives has results to compare: {why}")
                }
                None => anyhow::bail!("none of these drives has any results"),
            }
        };
        // What they do have, to suggest from: tests and result names.
        let mut have: Vec<String> = compare::tables(&with, None)
            .into_iter()
            .flat_map(|t| [t.test.name().to_string(), t.stem])
            .chain(
                left.iter()
                    .flat_map(|r| [r.test.name().to_string(), r.file_stem()]),
            )
            .collect();
        have.sort();
        have.dedup();
        if let Some(why) = left_out {
            anyhow::bail!("none of these drives has a {test} result to compare: {why}");
        }
        anyhow::bail!(
            "none of these drives has a {test} result{}: they have {}",
            crate::suggest::did_you_mean(&test, have.iter().map(String::as_str)),
            have.join(", ")
        );
    }
    let rows: Vec<_> = with.into_iter().map(|(d, _)| d).collect();
    print!("{}", compare::render_text(&rows, &tables));
    if let Some(why) = left_out {
        println!("{why}");
    }
    Ok(())
}

/// Store each directory's runs, reporting each; a directory that fails does not stop the rest.
fn push(b: &mut Bench, dirs: &[PathBuf]) -> anyhow::Result<ExitCode> {
    let mut failed = 0;
    for dir in dirs {
        let shown = printable(&dir.display().to_string()).into_owned();
        let runs = match bench::db::RunRecord::from_dir(dir) {
            Ok(runs) => runs,
            Err(e) => {
                failed += 1;
                eprintln!("error: {shown}: {e}");
                continue;
            }
        };
        for run in &runs {
            let what = match b.store(run) {
                Ok(Stored::New(id)) => format!("stored as run {id}"),
                Ok(Stored::Updated(id)) => format!("updated run {id}"),
                Ok(Stored::Already(id)) => format!("already stored as run {id}"),
                Err(e) => {
                    failed += 1;
                    eprintln!("error: {shown}: {e}");
                    break;
                }
            };
            println!("{shown}: {} results {what}", run.results.len());
        }
    }
    if failed == 0 {
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!(
        "error: {failed} of {} directories were not stored: correct them and push them again",
        dirs.len()
    );
    Ok(ExitCode::from(2))
}

/// Copy one Bench into another, with progress on stderr: a bar on a terminal, else a line
/// every `LINE_EVERY` runs.
fn copy(from: &std::path::Path, to: &std::path::Path) -> anyhow::Result<()> {
    const LINE_EVERY: usize = 100;
    let source = Bench::open_read_only(from)?;
    let mut target = Bench::open(to)?;
    let (shown_from, shown_to) = (
        printable(&source.location().to_string()).into_owned(),
        printable(&target.location().to_string()).into_owned(),
    );
    let bar = std::io::IsTerminal::is_terminal(&std::io::stderr()).then(|| {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template("copying runs {bar:30} {pos}/{len} {eta}")
                .expect("the template parses"),
        );
        bar
    });
    let copied = target.copy_from(&source, |done, total| match &bar {
        Some(bar) => {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        }
        None if done % LINE_EVERY == 0 || done == total => {
            eprintln!("copied {done} of {total} runs");
        }
        None => {}
    })?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    println!(
        "{shown_from} -> {shown_to}: {} runs copied, {} already there",
        copied.new, copied.already
    );
    Ok(())
}

fn print_drives(drives: &[bench::db::DriveRow]) {
    use crate::table::{Align::*, Table};
    let mut t = Table::new(&[
        ("id", Right),
        ("drive", Left),
        ("kind", Left),
        ("interface", Left),
        ("capacity", Right),
        ("price", Right),
        ("$/GB", Right),
        ("runs", Right),
        ("controller / NAND / DRAM", Left),
    ]);
    for d in drives {
        let s = &d.specs;
        let facts: Vec<String> = [&s.controller, &s.nand, &s.dram]
            .into_iter()
            .flatten()
            .map(|f| printable(f).into_owned())
            .collect();
        t.row(vec![
            d.id.to_string(),
            printable(&d.name).into_owned(),
            printable(&d.kind).into_owned(),
            printable(d.interface.as_deref().unwrap_or("-")).into_owned(),
            engine::units::capacity(d.capacity_bytes),
            s.price_usd.map_or("-".into(), |p| compare::usd(p, 2)),
            d.price_per_gb().map_or("-".into(), |p| compare::usd(p, 3)),
            d.runs.to_string(),
            facts.join(" / "),
        ]);
    }
    print!("{}", t.render());
}

fn print_runs(runs: &[RunRow]) {
    use crate::table::{Align::*, Table};
    let mut t = Table::new(&[
        ("run", Right),
        ("started", Left),
        ("kind", Left),
        ("results", Right),
        ("drive", Left),
        ("target", Left),
        ("", Left),
    ]);
    for r in runs {
        let flags: Vec<&str> = [(r.quick, "quick"), (!r.complete, "(incomplete)")]
            .into_iter()
            .filter_map(|(on, flag)| on.then_some(flag))
            .collect();
        t.row(vec![
            r.id.to_string(),
            printable(&r.started_at).into_owned(),
            printable(&r.what()).into_owned(),
            r.results.to_string(),
            printable(&r.drive).into_owned(),
            printable(&r.target_spec).into_owned(),
            flags.join(" "),
        ]);
    }
    print!("{}", t.render());
}

fn list(b: &Bench) -> anyhow::Result<()> {
    let drives = b.drives()?;
    if drives.is_empty() {
        println!(
            "The Bench at {} is empty: runs are stored as they finish.",
            printable(&b.location().to_string())
        );
        return Ok(());
    }
    print_drives(&drives);
    println!();
    print_runs(&b.runs()?);
    Ok(())
}

fn show(b: &Bench, id: i64) -> anyhow::Result<()> {
    let run = b
        .run(id)?
        .with_context(|| format!("no run {id} (`ssdlab bench list` shows them)"))?;
    print_runs(std::slice::from_ref(&run));
    println!(
        "ssdlab {}, stored {}{}\nrun identity {}",
        printable(&run.tool_version),
        printable(&run.stored_at),
        run.source
            .as_ref()
            .map_or(String::new(), |s| format!(" from {}", printable(s))),
        printable(&run.uuid)
    );
    if let Some(d) = b.drive(run.drive_id)? {
        print_drives(&[d]);
    }
    println!();
    let results: Vec<_> = b
        .results_of_run(id)?
        .into_iter()
        .map(|s| printable_result(s.result))
        .collect();
    crate::output::print_summary(&results);
    Ok(())
}

/// A result whose text the summary prints, made safe for a terminal.
fn printable_result(mut r: suite::result::TestResult) -> suite::result::TestResult {
    let p = |s: &mut String| *s = printable(s).into_owned();
    p(&mut r.label);
    r.deviations.iter_mut().for_each(p);
    r.adaptations.iter_mut().for_each(p);
    if let suite::Analysis::Trim(a) = &mut r.analysis {
        p(&mut a.verdict);
    }
    r
}

/// An export format by name; a name it is not gets the names it could be.
fn export_format(name: &str) -> Result<Format, String> {
    name.parse().map_err(|e| {
        let names = Format::ALL.map(Format::name);
        format!(
            "{e}{}: use {}",
            crate::suggest::did_you_mean(name, names),
            names.join(" or ")
        )
    })
}
