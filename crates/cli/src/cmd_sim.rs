//! `ssdlab sim list` and `ssdlab sim show PRESET`: the simulated SSD's presets, printed from
//! the `sim` crate (no logic here).

/// What `ssdlab sim` does.
#[derive(Debug, clap::Subcommand)]
pub enum SimCmd {
    /// List the simulated SSD's presets.
    List,
    /// Show a preset's resolved configuration, with over-provisioning in both conventions.
    Show {
        /// A preset, optionally with overrides (ultra-plus-256,op=25%) or a .toml file.
        preset: String,
    },
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
            println!("Use one as --target sim:NAME[,key=value...]; `ssdlab sim show NAME` prints its parameters and the keys.");
        }
        SimCmd::Show { preset } => {
            let spec = preset.strip_prefix("sim:").unwrap_or(&preset);
            print!("{}", sim::describe(spec)?);
            println!();
            println!("override keys (sim:{spec},key=value):");
            for (key, meaning) in sim::KEYS {
                println!("  {key:16} {meaning}");
            }
        }
    }
    Ok(())
}
