//! The flags every command that drives a target shares.

use std::time::Duration;

use clap::Args;

use engine::polling::Polling;
use engine::power::{Meter, MeterOptions, MeterSpec};
use engine::target::{Backend, OpenRequest};
use engine::Device;
use suite::target::CreatedFile;

use crate::RunError;

use bench::live::LiveStore;

#[derive(Args, Debug)]
pub struct TargetArgs {
    /// A block device (/dev/...), file:PATH[:SIZE] or sim:PRESET[,key=value...].
    #[arg(long, default_value = suite::target::DEFAULT_TARGET)]
    pub target: String,
    /// Allow writing a block device that holds data (or a file behind a loop device), by
    /// naming it: --destroy-data=/dev/sdX.
    #[arg(long, value_name = "DEVICE")]
    pub destroy_data: Option<String>,
    #[command(flatten)]
    pub drive: DriveArgs,
}

/// The flags of [`TargetArgs`] but the target itself, shared with `suite`, which takes
/// several targets.
#[derive(Args, Debug)]
pub struct DriveArgs {
    /// io_uring (default when available), sync (pread/pwrite threads) or io_uring-cmd (NVMe
    /// passthrough on the namespace's generic device /dev/ngXnY).
    #[arg(long, default_value = "auto", value_parser = Backend::parse)]
    pub backend: Backend,
    /// io_uring: poll the device for completions instead of waiting for interrupts (fio's
    /// hipri); needs a block device with poll queues (NVMe: nvme.poll_queues=N).
    #[arg(long)]
    pub poll: bool,
    /// io_uring: a kernel thread polls the submission queue, so submitting needs no system
    /// call (fio's sqthread_poll); it keeps a core busy.
    #[arg(long)]
    pub sqpoll: bool,
    /// How a test from a clean drive purges it: auto (NVMe Sanitize, else Format NVM, else ATA
    /// SANITIZE or SECURITY ERASE, else discard), sanitize, format, secure-erase, discard or
    /// none.
    #[arg(long, default_value = "auto", value_parser = str::parse::<engine::drive::PurgeMethod>)]
    pub purge: engine::drive::PurgeMethod,
    /// How the tests of random writes in steady state (steady-state, consistency) prepare
    /// the purged drive: fill (one sequential pass; the measurement runs into the steady
    /// state) or sprandom[:op=OP,cache=SIZE,regions=N] (one pass of fio's SPRandom order,
    /// which starts the measurement near the steady state: OP the drive's spare area as
    /// physical/logical - 1, e.g. op=7%, fio's 15% when not given; SIZE its write cache,
    /// none when not given; N fio's 100 regions, each larger than the cache).
    #[arg(long, default_value = "fill", value_parser = str::parse::<suite::Precondition>)]
    pub precondition: suite::Precondition,
    /// A meter for the drive's power, read over every measured phase: cmd:PROGRAM (one
    /// reading a line: watts, or volts and amps), hwmon:SENSOR[/CHANNELS], powercap:ZONE or
    /// nvme-states[:/dev/nvmeXnY] (the drive's power-state table: an estimate).
    #[arg(long, value_name = "METER", env = "SSDLAB_POWER_METER", value_parser = meter_spec)]
    pub power_meter: Option<String>,
    /// No progress bar, notes or summary.
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub store: StoreArgs,
}

/// Where finished runs are kept: the Bench database.
#[derive(Args, Debug)]
pub struct StoreArgs {
    /// Do not store the results in the Bench database.
    #[arg(long)]
    pub no_store: bool,
    /// The Bench database: an SQLite file (PATH or sqlite:PATH) or PostgreSQL
    /// (postgres://user@host[:port]/dbname, or key=value words; PGHOST, PGUSER,
    /// PGPASSWORD... fill what it leaves out) [default: $XDG_DATA_HOME/ssdlab/bench.db].
    /// Help never shows its value: it may hold a password.
    #[arg(
        long,
        env = "SSDLAB_DB",
        hide_env_values = true,
        value_name = "PATH|URL"
    )]
    pub db: Option<std::path::PathBuf>,
    /// How long the command waits at its end for a Bench it cannot reach, trying again
    /// (0: not at all); the results stay on disk, and `ssdlab bench push DIR` stores them
    /// later.
    #[arg(
        long,
        env = "SSDLAB_STORE_WAIT",
        value_name = "SECONDS",
        default_value_t = 60
    )]
    pub store_wait: u64,
}

impl StoreArgs {
    pub fn db_path(&self) -> std::path::PathBuf {
        self.db.clone().unwrap_or_else(bench::db::default_path)
    }

    /// The Bench's place for run `run_id` of a results directory (nowhere with --no-store).
    pub fn live(&self, dir: &std::path::Path, run_id: &str) -> LiveStore {
        let db = (!self.no_store).then(|| self.db_path());
        LiveStore::new(db, dir, run_id, Duration::from_secs(self.store_wait))
    }

    /// Where runs are stored: the Bench at --db (or the default), nowhere with --no-store.
    pub fn store(&self) -> crate::Store {
        crate::Store {
            db: (!self.no_store).then(|| self.db_path()),
            wait: Duration::from_secs(self.store_wait),
        }
    }
}

/// A `--power-meter` value, checked as it is parsed (kept as text: the parsed spec is large).
fn meter_spec(text: &str) -> Result<String, engine::power::SpecError> {
    text.parse::<MeterSpec>().map(|_| text.to_string())
}

// The commands of one target read the shared flags as their own (`a.common.quiet`).
impl std::ops::Deref for TargetArgs {
    type Target = DriveArgs;
    fn deref(&self) -> &DriveArgs {
        &self.drive
    }
}

impl TargetArgs {
    /// Open `spec` (the --target, or a resumed suite's) for a test that does or does not write.
    /// A `file:` target that did not exist comes with a guard that removes it unless kept.
    pub fn open(
        &self,
        spec: &str,
        write: bool,
    ) -> Result<(Box<dyn Device>, CreatedFile), suite::SuiteError> {
        self.drive.open(spec, write, self.destroy_data.clone())
    }
}

impl DriveArgs {
    /// Start the `--power-meter`, if any, for a run on `target`; it reads until the command
    /// ends. A meter that cannot start is an error naming the fix.
    pub fn start_meter(&self, target: &str) -> Result<Option<Meter>, RunError> {
        match &self.power_meter {
            None => Ok(None),
            Some(spec) => start_meter(&spec.parse()?, target),
        }
    }

    /// Open `spec` for a test that does or does not write, allowed to destroy the data of the
    /// device `destroy_data` names. A `file:` target that did not exist comes with a guard that
    /// removes it unless kept.
    pub fn open(
        &self,
        spec: &str,
        write: bool,
        destroy_data: Option<String>,
    ) -> Result<(Box<dyn Device>, CreatedFile), suite::SuiteError> {
        let request = self.request(write, destroy_data);
        // Every target error names the target: no context to repeat it.
        suite::target::open_created(spec, &request)
    }

    /// How these flags open a target for a test that does or does not write.
    pub fn request(&self, write: bool, destroy_data: Option<String>) -> OpenRequest {
        OpenRequest {
            write,
            backend: self.backend,
            destroy_data,
            polling: Polling {
                completions: self.poll,
                submissions: self.sqpoll,
            },
        }
    }
}

/// Start the meter `spec` for a run on `target`; it reads until it is dropped. A meter that
/// cannot start is an error naming the fix.
pub fn start_meter(spec: &MeterSpec, target: &str) -> Result<Option<Meter>, RunError> {
    let options = MeterOptions {
        device: target
            .starts_with("/dev/")
            .then(|| std::path::PathBuf::from(target)),
        ..MeterOptions::default()
    };
    Ok(Meter::start(spec, &options)?)
}
