//! The flags every command that drives a target shares.

use anyhow::Context;
use clap::Args;

use engine::target::{Backend, OpenRequest};
use engine::Device;

#[derive(Args, Debug)]
pub struct TargetArgs {
    /// A block device (/dev/...), file:PATH[:SIZE] or sim:PRESET[,key=value...].
    #[arg(long, default_value = suite::target::DEFAULT_TARGET)]
    pub target: String,
    /// io_uring (default when available) or sync (pread/pwrite threads).
    #[arg(long, default_value = "auto", value_parser = Backend::parse)]
    pub backend: Backend,
    /// Allow writing a block device that holds data, by naming it: --destroy-data=/dev/sdX.
    #[arg(long, value_name = "DEVICE")]
    pub destroy_data: Option<String>,
    /// No progress bar, notes or summary.
    #[arg(long, short)]
    pub quiet: bool,
}

impl TargetArgs {
    /// Open `spec` (the --target, or a resumed suite's) for a test that does or does not write.
    pub fn open(&self, spec: &str, write: bool) -> anyhow::Result<Box<dyn Device>> {
        let request = OpenRequest {
            write,
            backend: self.backend,
            destroy_data: self.destroy_data.clone(),
        };
        suite::target::open(spec, &request).with_context(|| format!("opening target {spec}"))
    }
}
