//! `ssdlab sim list|show|validate` (and `fit` and `serve`, in files of their own): the simulated SSD's presets, each parameter's source, and
//! the fidelity scorecard (the claims of the review articles each preset meets or misses).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use anyhow::{bail, Context as _};
use twin::fidelity::{self, Claim, Outcome};

/// What `ssdlab sim` does.
#[derive(Debug, clap::Subcommand)]
pub enum SimCmd {
    /// List the simulated SSD's presets.
    List,
    /// Show a preset's resolved configuration, where each parameter comes from, and which of
    /// the reviews' claims it meets.
    Show {
        /// A preset, optionally with overrides (ultra-plus-256,op=25%) or a .toml file.
        preset: String,
    },
    /// Check presets against every claim of the review articles (the fidelity scorecard):
    /// runs the tests the claims need and prints claim / published / simulated / pass.
    Validate {
        /// Presets to check (default: all): their own claims, a claim shared with other
        /// presets checked on these only; claims comparing them with other presets measure
        /// those too.
        presets: Vec<String>,
        /// Only the claims `cargo test` checks (a few minutes).
        #[arg(long)]
        fast: bool,
        /// Measurements run at once (default: the CPUs).
        #[arg(long)]
        jobs: Option<usize>,
        /// Print the table as Markdown (for BENCHMARKS.md).
        #[arg(long)]
        markdown: bool,
        /// Also write the outcomes as JSON.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Write the outcomes to the committed scorecard (crates/twin/src/fidelity/scorecard.tsv,
        /// from the workspace root): only with every claim checked.
        #[arg(long)]
        record: bool,
        /// Check a preset's claims on a twin in its place (`sim fit`'s TOML file): PRESET=FILE,
        /// repeatable; the claims comparing it with other presets measure those as they are.
        #[arg(long = "twin", value_name = "PRESET=FILE")]
        twins: Vec<String>,
        /// Check the fidelity corpus (corpus.toml, figures beyond the seeds) instead of the
        /// claims: met and missed by split and preset.
        #[arg(long)]
        corpus: bool,
        /// With --corpus: only the records of one split (fit or validation).
        #[arg(long, requires = "corpus")]
        split: Option<String>,
    },
    /// Fit a simulated twin of a drive to its results (or to published claims) and report,
    /// figure by figure, how well it reproduces them and predicts those held out.
    Fit(Box<crate::cmd_sim_fit::FitArgs>),
    /// Serve a simulated drive as a Linux block device (/dev/ublkbN, through ublk_drv) in
    /// real time: each IO completes when the simulated drive would complete it. Ctrl-C
    /// stops it and prints IOs, bytes, write amplification and how closely it kept pace.
    Serve(crate::cmd_sim_serve::ServeArgs),
}

pub fn run(cmd: SimCmd) -> anyhow::Result<()> {
    match cmd {
        SimCmd::List => {
            let presets = sim::presets();
            let width = presets.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
            for (name, summary) in presets {
                println!("{name:width$}  {summary}");
            }
            println!();
            println!("Use one as --target sim:NAME[,key=value...]; `ssdlab sim show NAME` prints its parameters, their sources and the claims it meets.");
        }
        SimCmd::Show { preset } => {
            let spec = sim::spec_of(&preset);
            print!("{}", sim::describe(spec)?);
            let name = spec.split(',').next().unwrap_or(spec);
            print_claims(name, spec != name)?;
            println!();
            println!("override keys (sim:{spec},key=value):");
            for key in sim::KEYS {
                println!("  {:16} {}", key.name, key.help);
            }
        }
        SimCmd::Validate {
            presets,
            jobs,
            json,
            corpus: true,
            split,
            ..
        } => crate::cmd_sim_corpus::validate(&presets, split.as_deref(), jobs, json)?,
        SimCmd::Validate {
            presets,
            fast,
            jobs,
            markdown,
            json,
            record,
            twins,
            ..
        } => validate(presets, fast, jobs, markdown, json, record, &twins)?,
        SimCmd::Fit(args) => crate::cmd_sim_fit::run(*args)?,
        SimCmd::Serve(args) => crate::cmd_sim_serve::run(args)?,
    }
    Ok(())
}

/// The claims about a preset and their recorded outcomes, split honestly: those a parameter
/// was fitted to (meeting them shows the fit, not that the model predicts) and those it
/// predicts; then the figures from outside the seeds a parameter was fitted to, and the known
/// gaps.
fn print_claims(preset: &str, overridden: bool) -> anyhow::Result<()> {
    let claims: Vec<Claim> = fidelity::claims()
        .map_err(anyhow::Error::msg)?
        .into_iter()
        .filter(|c| c.on.iter().any(|d| d == preset))
        .collect();
    let definition = sim::preset::find(preset);
    let fitted = definition.map(|p| p.fitted_claims()).unwrap_or_default();
    println!();
    if claims.is_empty() {
        println!("review claims: none (no seed article measured this drive)");
    } else {
        let recorded = fidelity::recorded();
        println!(
            "review claims about {preset}, as the last `ssdlab sim validate` found them{}:",
            if overridden {
                " (of the preset as shipped, not with your overrides)"
            } else {
                ""
            }
        );
        let (fit, predicted): (Vec<&Claim>, Vec<&Claim>) =
            claims.iter().partition(|c| fitted.contains(c.id.as_str()));
        for (group, what) in [
            (fit, "fitted (a parameter was chosen to meet them: they show the fit, not that the model predicts)"),
            (predicted, "predicted (no parameter was chosen for them)"),
        ] {
            let met = group
                .iter()
                .filter(|c| recorded.get(&c.id).is_some_and(|r| r.outcome.pass))
                .count();
            println!("  {what}: meets {met} of {}", group.len());
            for c in group {
                print_claim(c, recorded.get(&c.id), preset);
            }
        }
    }
    let outside = definition.map(|p| p.fitted_outside()).unwrap_or_default();
    if !outside.is_empty() {
        println!(
            "  fitted to figures outside the seeds (no longer evidence that it predicts them):"
        );
        for (key, source, what) in outside {
            println!("    {key}: {source}: {what}");
        }
    }
    let gaps: Vec<_> = definition.into_iter().flat_map(|p| p.gaps()).collect();
    if !gaps.is_empty() {
        println!("  known gaps (published figures from outside the seeds it misses, kept back as a fair test):");
        for g in gaps {
            println!("    {}", g.figure);
            println!("      why: {}", g.why);
        }
    }
    Ok(())
}

fn print_claim(c: &Claim, recorded: Option<&fidelity::Recorded>, preset: &str) {
    let (mark, sim, stale) = match recorded {
        Some(r) => (
            if r.outcome.pass { "meets" } else { "MISSES" },
            simulated_for(c, &r.outcome, preset),
            r.fingerprint != fidelity::fingerprint(c),
        ),
        None => ("unchecked", String::new(), false),
    };
    println!(
        "    {mark:9} {}: {} [published {}; simulated {sim}]{}",
        c.id,
        c.claim,
        c.published_text(),
        if stale {
            " (recorded before the preset changed: rerun ssdlab sim validate)"
        } else {
            ""
        }
    );
}

/// A recorded outcome's figures for `preset`: its own, and where a claim shared by several
/// presets is missed by others, theirs (the miss is theirs).
fn simulated_for(c: &Claim, o: &Outcome, preset: &str) -> String {
    let drives = c.on.len();
    let own = own_part(&o.simulated, preset, drives);
    if o.pass || drives < 2 || o.missed_by == [preset] {
        return own;
    }
    // Recorded before the scorecard named who misses: every drive's figure.
    if o.missed_by.is_empty() {
        return o.simulated.clone();
    }
    let others: Vec<String> = o
        .missed_by
        .iter()
        .filter(|d| *d != preset)
        .map(|d| own_part(&o.simulated, d, drives))
        .collect();
    let own = if o.missed_by.iter().any(|d| d == preset) {
        own
    } else {
        format!("{own}, which meets it")
    };
    format!("{own}; missed by {}", others.join("; "))
}

/// Of a claim about several drives ("a 0.4; b 0.5"), the part about `preset`.
fn own_part(simulated: &str, preset: &str, drives: usize) -> String {
    if drives < 2 {
        return simulated.to_string();
    }
    simulated
        .split("; ")
        .find(|p| p.starts_with(&format!("{preset} ")))
        .unwrap_or(simulated)
        .to_string()
}

fn validate(
    presets: Vec<String>,
    fast: bool,
    jobs: Option<usize>,
    markdown: bool,
    json: Option<PathBuf>,
    record: bool,
    twins: &[String],
) -> anyhow::Result<()> {
    let all = fidelity::claims().map_err(anyhow::Error::msg)?;
    let known: BTreeSet<&str> = sim::presets().into_iter().map(|(n, _)| n).collect();
    for p in &presets {
        if !known.contains(p.as_str()) {
            bail!("{}", sim::preset::unknown_preset(p));
        }
    }
    if record && (fast || !presets.is_empty() || !twins.is_empty()) {
        bail!("--record writes the whole scorecard of the presets: run it without presets, --twin and --fast");
    }
    let mut stand_ins = BTreeMap::new();
    for t in twins {
        let Some((preset, file)) = t.split_once('=') else {
            bail!("--twin {t}: give the preset and the twin's file, e.g. --twin 840-evo-250=twin.toml");
        };
        if !known.contains(preset) {
            bail!("--twin {t}: {}", sim::preset::unknown_preset(preset));
        }
        sim::resolve(file).map_err(|e| anyhow::anyhow!("--twin {t}: {e}"))?;
        eprintln!("{preset}: measured as its twin {file}");
        stand_ins.insert(preset.to_string(), file.to_string());
    }
    let claims: Vec<Claim> = all
        .into_iter()
        .filter(|c| !fast || c.fast)
        .filter_map(|c| about(c, &presets))
        .collect();
    let jobs_list = fidelity::plan(&claims).map_err(anyhow::Error::msg)?;
    let threads = jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let measured_presets: BTreeSet<&String> = jobs_list.iter().map(|(d, _)| d).collect();
    let compared: Vec<&str> = measured_presets
        .iter()
        .filter(|d| !presets.contains(d))
        .map(|d| d.as_str())
        .collect();
    eprintln!(
        "checking {} claims{}: {} measurements on {} presets{}, {threads} at a time",
        claims.len(),
        if presets.is_empty() {
            String::new()
        } else {
            format!(
                " about {} (a claim shared with other presets is checked on these only)",
                presets.join(", ")
            )
        },
        jobs_list.len(),
        measured_presets.len(),
        if presets.is_empty() || compared.is_empty() {
            String::new()
        } else {
            format!(
                " ({} measured too: claims compare them with it)",
                compared.join(", ")
            )
        }
    );
    let start = std::time::Instant::now();
    let progress = crate::validate_progress::ValidateProgress::new(&claims, &jobs_list)
        .map_err(anyhow::Error::msg)?;
    let measured = fidelity::measure_all(&jobs_list, &stand_ins, threads, &|drive, m, f, secs| {
        progress.done(drive, m, f, secs)
    })
    .map_err(anyhow::Error::msg)?;
    let outcomes: Vec<Outcome> = claims
        .iter()
        .map(|c| fidelity::evaluate(c, &measured))
        .collect();
    print_table(&claims, &outcomes, markdown);
    let passed = outcomes.iter().filter(|o| o.pass).count();
    let by_kind = |kind: &str| {
        let (n, p) = claims
            .iter()
            .zip(&outcomes)
            .filter(|(c, _)| c.kind == kind)
            .fold((0, 0), |(n, p), (_, o)| (n + 1, p + o.pass as usize));
        format!("{p} of {n} {kind}")
    };
    println!();
    println!(
        "{passed} of {} claims pass ({:.0}%): {}, {}; {:.0} s",
        claims.len(),
        100.0 * passed as f64 / claims.len().max(1) as f64,
        by_kind("review"),
        by_kind("spec"),
        start.elapsed().as_secs_f64()
    );
    if let Some(path) = json {
        let body =
            serde_json::json!({ "claims": claims, "outcomes": outcomes, "figures": measured });
        std::fs::write(&path, serde_json::to_string_pretty(&body)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    if record {
        let path = PathBuf::from(fidelity::SCORECARD_PATH);
        if !path.exists() {
            bail!(
                "--record writes {}: run it from the workspace root",
                fidelity::SCORECARD_PATH
            );
        }
        std::fs::write(&path, fidelity::format_scorecard(&claims, &outcomes))
            .with_context(|| format!("writing {}", path.display()))?;
        eprintln!("recorded the scorecard in {}", path.display());
    }
    Ok(())
}

/// A claim as `sim validate PRESETS` checks it: about those presets (all when none are
/// given), on them only: a claim shared by every preset is checked on the presets asked
/// for, not measured on the others. None when it is about none of them.
fn about(mut c: Claim, presets: &[String]) -> Option<Claim> {
    if presets.is_empty() {
        return Some(c);
    }
    c.on.retain(|d| presets.contains(d));
    (!c.on.is_empty()).then_some(c)
}

fn print_table(claims: &[Claim], outcomes: &[Outcome], markdown: bool) {
    if markdown {
        println!("| claim | drive | published | simulated | |");
        println!("|---|---|---|---|---|");
        for (c, o) in claims.iter().zip(outcomes) {
            println!(
                "| {} ({}) | {} | {} | {} | {} |",
                c.claim.replace('|', "\\|"),
                c.id,
                c.on.join(", "),
                c.published_text(),
                o.simulated.replace('|', "\\|"),
                if o.pass { "pass" } else { "**miss**" }
            );
        }
        return;
    }
    for (c, o) in claims.iter().zip(outcomes) {
        println!(
            "{:4} {:40} published {:28} simulated {}",
            if o.pass { "pass" } else { "MISS" },
            c.id,
            c.published_text(),
            o.simulated
        );
    }
}
