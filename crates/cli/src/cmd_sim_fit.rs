//! `ssdlab sim fit`: a simulated twin of a drive, from its results or from published claims.

use std::path::PathBuf;

use anyhow::bail;
use twin::files::TwinFiles;
use twin::fit::{self, Budget, Target};

#[derive(Debug, clap::Args)]
pub struct FitArgs {
    /// Results directories of the drive (`ssdlab suite -o DIR` on it, real or simulated).
    results: Vec<PathBuf>,
    /// Fit to a drive in the Bench instead: its id, or text of its name, model or serial
    /// (`ssdlab bench list`); its newest result of every test is the target.
    #[arg(long, value_name = "DRIVE", conflicts_with_all = ["results", "claims"])]
    bench_drive: Option<String>,
    /// The Bench database, for --bench-drive: PATH or sqlite:PATH or postgres://... Help
    /// never shows its value: it may hold a password.
    #[arg(
        long,
        env = "SSDLAB_DB",
        hide_env_values = true,
        value_name = "PATH|URL"
    )]
    db: Option<PathBuf>,
    /// Fit to published claims instead, in the scorecard's format (`[[claim]]` entries; `seeds`
    /// for the claims of shared/seeds/ ssdlab carries), with --drive naming the drive.
    #[arg(long, requires = "drive", conflicts_with = "results")]
    claims: Option<String>,
    /// The drive the claims are about, as their `on` names it.
    #[arg(long)]
    drive: Option<String>,
    /// The drive the search starts from: a preset, with overrides.
    #[arg(long, default_value = "default")]
    from: String,
    /// Measurements kept out of the fit and predicted (heavy, light, destroyer, trim, power,
    /// consistency25, corners, atto, asssd, consistency), or figures by the beginning of
    /// their names (power.seq: the power tests' sequential write, the idle and random-write
    /// power fitted).
    #[arg(long = "hold-out", value_delimiter = ',')]
    hold_out: Vec<String>,
    /// Keys to search (default: the parallelism, NAND timings, controller costs, spare area,
    /// buffers, GC and its burstiness, pseudo-SLC cache and, with TRIM or power figures, the
    /// TRIM style or the energy terms, the NAND page: 8 or 16 KiB, a start each, and cell:
    /// MLC or TLC, tried after each round); any
    /// numeric key (planes, pages_per_block, meta and slc_max_write each with a reach of its
    /// own), the choices trim, page_size, slc_region, slc_full and slc_drain, and `default`
    /// for the default ones (--params default,planes adds planes to them).
    #[arg(long, value_delimiter = ',')]
    params: Vec<String>,
    /// What is known of the drive's hardware, as KEY=VALUE (a datasheet's NAND page, pages a
    /// block and cell; the controller's channels; the dies a teardown counts): set in the
    /// start and never searched. The figures cannot tell a drive's geometry (a twin with
    /// another fits as well and predicts worse: BENCHMARKS #27), its spec sheet can.
    #[arg(long, value_delimiter = ',', value_name = "KEY=VALUE")]
    known: Vec<String>,
    /// Simulated drives the search evaluates at most (screened ones, when screening); the
    /// polish after it a quarter more. At least a first generation of the search from each
    /// of its starts (a smaller budget is refused, naming that least).
    #[arg(long, default_value_t = 300)]
    evals: usize,
    /// The search's seed: the same seed, target and start give the same twin.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Fit at this many seeds (--seed and the ones after it), each a whole search (as many
    /// times the time): the twin is the lowest loss's, and the report gives every figure the
    /// spread of the seeds' twins. Where they disagree, the results do not pin the figure
    /// and the twin's is a draw; agreeing, they may share a mistake (a key no fitted figure
    /// reads is the start's in every seed: the report's "What the results leave open" moves
    /// each such key on the twin). BENCHMARKS #27.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=fit::MAX_SEEDS))]
    seeds: u64,
    /// Screen candidates on drives this many times smaller, with tests as many times
    /// shorter, and run only each round's finalists at full length (1: every candidate at
    /// full length; default: what keeps the screened drive at 16 GiB or more).
    #[arg(long, value_name = "FACTOR", value_parser = clap::value_parser!(u32).range(1..=1024))]
    screen: Option<u32>,
    /// The drive the results came from, when known (a recovery test: the preset whose suite
    /// is the target): the report compares the twin's keys with its, and scores it with its
    /// own values of the searched keys, so a held-out miss is the search's, the fitted
    /// figures' or the keys' not searched.
    #[arg(long, value_name = "PRESET")]
    reference: Option<String>,
    /// Drives evaluated at once (default: the CPUs).
    #[arg(long)]
    jobs: Option<usize>,
    /// The twin's TOML file; its report goes beside it (.fit.md, .fit.json) with the
    /// evaluations (.evals.jsonl), from which a stopped fit resumes (if this ssdlab measures
    /// its drives as the one that wrote it did).
    #[arg(short, long)]
    output: PathBuf,
}

pub fn run(a: FitArgs) -> anyhow::Result<()> {
    let files = TwinFiles::beside(&a.output).map_err(|e| anyhow::anyhow!("-o {e}"))?;
    let target = fit_target(&a)?;
    if target.capacity_bytes.is_none() && !a.from.contains("capacity=") {
        let start = sim::resolve(sim::spec_of(&a.from))
            .map_err(|e| anyhow::anyhow!("--from {}: {e}", a.from))?;
        eprintln!(
            "note: the target does not give the drive's capacity: the twin has the start's, {}; set it with --from PRESET,capacity=SIZE",
            engine::units::format_size(start.capacity_bytes),
        );
    }
    let (from, params) =
        fit::known(sim::spec_of(&a.from), &a.params, &a.known).map_err(anyhow::Error::msg)?;
    let request = fit::Request {
        from,
        target,
        hold_out: a.hold_out.clone(),
        params,
        budget: Budget {
            evaluations: a.evals,
            seed: a.seed,
            jobs: a
                .jobs
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        },
        screen: a.screen,
        cache: Some(files.evaluations.clone()),
        measurer: None,
        reference: a.reference.as_deref().map(|r| sim::spec_of(r).to_string()),
    };
    eprintln!(
        "fitting a twin of {} from {}: {} figures ({} held out), at most {} simulated drives",
        request.target.drive,
        request.from,
        request.target.terms.len(),
        request
            .target
            .terms
            .iter()
            .filter(|t| request.hold_out.iter().any(|h| t.is_held_by(h)))
            .count(),
        a.evals
    );
    resume_on_interrupt(files.evaluations.clone())?;
    let first = a.seed;
    let mut on_seed = |seed: u64| {
        if a.seeds > 1 {
            eprintln!("seed {seed} ({} of {}):", seed - first + 1, a.seeds);
        }
    };
    let fit = fit::fit_seeds(&request, a.seeds, &mut on_seed, &mut show_progress)
        .map_err(anyhow::Error::msg)?;
    files.write(&fit, bench::fit_chart::loss_chart)?;
    say_fitted(&fit.report, &a.output, &files.report);
    Ok(())
}

/// What the twin is fitted to: the drive's results (directories or the Bench) or a claims
/// file.
fn fit_target(a: &FitArgs) -> anyhow::Result<Target> {
    Ok(match (&a.claims, a.results.is_empty()) {
        _ if a.bench_drive.is_some() => {
            let query = a.bench_drive.clone().unwrap_or_default();
            let path = a.db.clone().unwrap_or_else(bench::db::default_path);
            let b = bench::db::Bench::open_read_only(&path)?;
            let drives = b.find_drives(std::slice::from_ref(&query))?;
            let [drive] = drives.as_slice() else {
                bail!(
                    "--bench-drive {query:?} matches {} drives ({}): give one's id",
                    drives.len(),
                    drives.iter().map(|d| format!("{} {}", d.id, d.name)).collect::<Vec<_>>().join(", ")
                );
            };
            let results: Vec<_> = b.latest_results(drive.id)?.into_iter().map(|r| r.result).collect();
            Target::from_results(&results).map_err(anyhow::Error::msg)?
        }
        (Some(claims), _) => {
            let drive = a.drive.as_deref().unwrap_or_default();
            // Claims comparing the drive with another aim at the other's preset, as the
            // scorecard checks them.
            let mut other = twin::fidelity::preset_figures(|d, m| {
                eprintln!("measuring {d} ({}): a claim compares the drive with it", m.prefix())
            });
            Target::from_claims_file(claims, drive, &mut other)
                .map_err(|e| anyhow::anyhow!("--claims {e}"))?
        }
        (None, true) => bail!(
            "nothing to fit: give results directories of the drive (ssdlab sim fit RESULTS... -o twin.toml), --bench-drive DRIVE, or --claims FILE --drive NAME"
        ),
        (None, false) => Target::from_results_dirs(&a.results).map_err(anyhow::Error::msg)?,
    })
}

/// The fit's outcome on the terminal: the loss, the held-out error, the seeds' agreement, the
/// keys not searched, the reference, and where the twin and its report are.
fn say_fitted(r: &fit::FitReport, output: &std::path::Path, report: &std::path::Path) {
    let screened = if r.screen > 1 {
        format!(
            " screened at 1/{} and {} at full length",
            r.screen, r.finalists
        )
    } else {
        String::new()
    };
    println!(
        "twin of {}: loss {:.3} (start {:.3}) after {} drives{screened} in {:.0} s",
        r.drive, r.loss_twin, r.loss_start, r.evaluations, r.wall_s
    );
    if r.stopped.contains(fit::KEPT_START) {
        println!("{}: a larger --evals searches further", fit::KEPT_START);
    }
    if let Some(m) = twin::fit::median_error(&r.held_out) {
        println!("held-out figures: median error {:.1}%", m * 100.0);
    }
    if !r.seeds.is_empty() {
        let losses: Vec<String> = r.seeds.iter().map(|s| format!("{:.3}", s.loss)).collect();
        let (fitted, held) = (fit::agreement(&r.fitted), fit::agreement(&r.held_out));
        println!(
            "the twin is seed {}'s of {} (losses {}); the seeds' twins agree within {:.0}% on {} of {} fitted figures and {} of {} held out",
            r.seed,
            r.seeds.len(),
            losses.join(", "),
            fit::AGREE * 100.0,
            fitted.agreed,
            fitted.agreed + fitted.disagreed,
            held.agreed,
            held.agreed + held.disagreed
        );
    }
    if !r.alternatives.is_empty() {
        let rows = || r.fitted.iter().chain(&r.held_out);
        let open = rows().filter(|row| row.open.is_some()).count();
        let mut keys: Vec<&str> = r
            .alternatives
            .iter()
            .filter(|a| a.as_well)
            .filter_map(|a| a.drive.split('=').next())
            .collect();
        keys.dedup();
        println!(
            "keys not searched, each moved on the twin: {} drives, {} fitting as well ({}); they leave {open} of {} figures open",
            r.alternatives.len(),
            r.alternatives.iter().filter(|a| a.as_well).count(),
            if keys.is_empty() { "none".to_string() } else { keys.join(", ") },
            rows().count()
        );
    }
    if let Some(reference) = &r.reference {
        match (reference.loss, &reference.refused) {
            (Some(loss), _) => println!(
                "the reference {}, with its own values of the searched keys: loss {loss:.3}{}",
                reference.drive,
                if reference.outside.is_empty() {
                    String::new()
                } else {
                    let keys: Vec<&str> = reference.outside.iter().map(|o| o.key.as_str()).collect();
                    format!(" (outside the space: {})", keys.join(", "))
                }
            ),
            (None, refused) => println!(
                "the reference {}, with its own values of the searched keys, was refused by the simulator: {}",
                reference.drive,
                refused.as_deref().unwrap_or_default()
            ),
        }
    }
    println!(
        "wrote {} (run it: --target sim:{}) and its report {}",
        output.display(),
        output.display(),
        report.display()
    );
}

/// A line of progress after each generation of the search, and at the polish's start and end.
fn show_progress(p: &fit::Progress) -> std::ops::ControlFlow<()> {
    match p.phase {
        fit::Phase::Search => {}
        fit::Phase::Polish => {
            eprintln!(
                "  polish: {}/{} drives, best loss {:.4}",
                p.evaluations, p.budget, p.best_loss
            );
            return std::ops::ControlFlow::Continue(());
        }
        fit::Phase::Open => {
            eprintln!(
                "  the twin with each key not searched set otherwise: {} drives",
                p.budget
            );
            return std::ops::ControlFlow::Continue(());
        }
    }
    eprintln!(
        "  generation {}: {}/{} drives, best loss {:.4}, {:.1} drives/min, about {} left",
        p.generation,
        p.evaluations,
        // A budget below a generation still runs the generation.
        p.budget.max(p.evaluations),
        p.best_loss,
        p.evaluations_per_min,
        crate::progress::duration(p.eta_s)
    );
    // Ctrl-C ends the process ([`resume_on_interrupt`]).
    std::ops::ControlFlow::Continue(())
}

/// Ctrl-C or SIGTERM ends the fit at once, saying what it kept and the command that resumes
/// from it: each drive reaches the evaluations file as it is measured, so none is lost
/// (but those being measured) and nothing needs waiting for.
fn resume_on_interrupt(evaluations: PathBuf) -> anyhow::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    let command: Vec<String> = (std::env::args_os())
        .map(|a| shell_word(&a.to_string_lossy()))
        .collect();
    let dir = std::env::current_dir().map_or_else(|_| ".".into(), |d| d.display().to_string());
    std::thread::spawn(move || {
        if signals.forever().next().is_some() {
            let kept = std::fs::read_to_string(&evaluations).map_or(0, |t| t.lines().count());
            eprintln!(
                "\ninterrupted: the {kept} evaluations measured so far are kept in {}; the same \
                 command, run from {dir}, resumes from them:\n  {}",
                evaluations.display(),
                command.join(" ")
            );
            std::process::exit(130);
        }
    });
    Ok(())
}

/// `word` as a shell reads it back: as it is when it holds nothing the shell would take apart.
fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./,:=+@%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}
