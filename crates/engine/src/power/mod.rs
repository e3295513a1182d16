//! Power meters for real drives, chosen with `--power-meter` ([`MeterSpec`]):
//!
//! - [`command`]: a program printing one reading per line (USB meters, lab supplies);
//! - [`hwmon`] and [`powercap`]: Linux sensors on the drive's rail, where a board has them;
//! - [`nvme`]: the drive's own power-state table, an estimate labelled as one;
//! - [`link`]: the host's link power management (SATA HIPM+DIPM, NVMe APST), which lets an
//!   idle drive slumber.
//!
//! A started [`Meter`] reads in the background; readings are stamped on the monotonic clock
//! (`Instant`) the engine's real devices stamp IOs with, as seconds since the meter started.
//! [`Meter::now_s`] taken beside the run's start places the run on that timeline, and
//! [`PowerLog::per_second`] folds the readings into the run's seconds. A meter that stops,
//! falls silent or reports nonsense ends its log with [`MissingPower`]; what it read before
//! is kept, and a window without readings is `None`, never 0 W.
//!
//! ```no_run
//! # use engine::power::*;
//! let spec: MeterSpec = "cmd:my-usb-meter --watts".parse()?;
//! let meter = Meter::start(&spec, &MeterOptions::default())?.expect("a meter");
//! let run_start_s = meter.now_s();
//! // ... run the test ...
//! let run_end_s = meter.now_s();
//! let log = meter.stop();
//! let watts_by_second: Vec<Option<f64>> = log.per_second(run_start_s, run_end_s);
//! let whole_run = log.summary(run_start_s, run_end_s); // None: power missing
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod bounded_lines;
pub mod command;
pub mod hwmon;
pub mod link;
pub mod nvme;
pub mod powercap;
mod series;
mod spec;

use std::path::PathBuf;
use std::sync::{mpsc, Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub use series::{Basis, MissingPower, PhasePower, PowerLog, PowerSample, PowerSummary};
pub use spec::{Channel, Chip, MeterSpec, SpecError};

/// More than this is not one drive's power: the meter is misread (milliwatts as watts?) or
/// measures something else.
pub const MAX_DRIVE_WATTS: f64 = 100.0;

/// Readings a meter keeps at most (64 MiB of them): a phase's readings are let go once it is
/// measured ([`Meter::forget_before`]), so only a meter printing thousands of lines a
/// second through a long phase reaches this, and its power is missing from then on rather
/// than the machine's memory exhausted.
pub const MAX_SAMPLES: usize = 1 << 22;

/// Readings kept in any one second at most: no drive's power meter reads faster, so past
/// that a reading is averaged into the one kept before it, and a command printing as fast
/// as it can (`yes 5.0`) keeps a thousand readings a second, not millions. A meter that
/// prints a few readings at once (a buffered pipe) keeps every one.
pub const MAX_READINGS_PER_S: usize = 1000;

/// Lines of a meter command's output waiting for the meter's thread at most: a command
/// faster than the thread waits on its pipe rather than queueing without bound.
const QUEUED_LINES: usize = 1024;

/// How a meter runs.
#[derive(Clone, Debug)]
pub struct MeterOptions {
    /// Where sysfs is mounted (a test points this at a fake tree).
    pub sysfs_root: PathBuf,
    /// The target's device node, for `nvme-states` without a device of its own.
    pub device: Option<PathBuf>,
    /// How often hwmon and powercap are read.
    pub poll_interval: Duration,
    /// How often the NVMe power state is asked for: an admin command, so seldom enough
    /// not to keep the drive out of its idle states.
    pub nvme_poll_interval: Duration,
    /// No reading for this long and the meter counts as gone: power is missing from its
    /// last reading. Also how long one reading stands for the power at most, and how long
    /// a meter command that closed its output is waited on for its error output and exit.
    pub silence_timeout: Duration,
}

impl Default for MeterOptions {
    fn default() -> Self {
        MeterOptions {
            sysfs_root: PathBuf::from("/sys"),
            device: None,
            poll_interval: Duration::from_millis(100),
            nvme_poll_interval: Duration::from_secs(1),
            silence_timeout: Duration::from_secs(5),
        }
    }
}

/// A meter that cannot start: what is wrong and what to do.
#[derive(Debug, thiserror::Error)]
pub enum MeterError {
    // The OS error is in the message, not the source chain: `{:#}` would print it twice.
    #[error("cannot run the meter command '{command}': {error}")]
    Spawn {
        command: String,
        error: std::io::Error,
    },
    #[error("no hwmon sensor named '{name}' under {dir} (there: {present}); `grep . /sys/class/hwmon/hwmon*/name` lists them, or give the sensor's directory")]
    NoSuchSensor {
        name: String,
        dir: String,
        present: String,
    },
    #[error("{count} hwmon sensors are named '{name}' ({dirs}): give the one on the drive's rail by its directory, e.g. hwmon:{first}")]
    AmbiguousSensor {
        name: String,
        count: usize,
        dirs: String,
        first: String,
    },
    #[error("hwmon sensor {dir} has no power*_input (it has: {channels}); name a voltage and current pair, e.g. hwmon:{dir}/in1_input+curr1_input")]
    NoPowerChannel { dir: String, channels: String },
    #[error("no powercap zone '{zone}' under {dir} (there: {present})")]
    NoSuchZone {
        zone: String,
        dir: String,
        present: String,
    },
    #[error("cannot read {path}: {error}{hint}")]
    Unreadable {
        path: String,
        error: std::io::Error,
        hint: &'static str,
    },
    #[error("{path} says '{text}', not a number in {unit}")]
    NotANumber {
        path: String,
        text: String,
        unit: &'static str,
    },
    #[error("nvme-states needs the NVMe drive: give it as nvme-states:/dev/nvme0n1 (the target names no device)")]
    NvmeNeedsDevice,
    #[error(
        "nvme-states: {device} is not an NVMe drive; its power-state table exists only on NVMe"
    )]
    NotNvme { device: String },
    #[error("nvme-states on {device}: {error}")]
    Drive { device: String, error: drive::Error },
    #[error("nvme-states on {device}: the drive's Identify Controller lists no power states")]
    NoPowerStates { device: String },
}

/// Why a reading was not taken.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReadingError {
    #[error("'{0}' is not a reading: expected watts ('3.2', '3.2 W', '850 mW') or volts and amps ('5.02 V 0.41 A', '5.02,0.41')")]
    Malformed(String),
    #[error("{value} is not a sensible reading: {why}")]
    Nonsense { value: String, why: &'static str },
}

impl ReadingError {
    /// A line that is not a reading, cut to a length an error message can show.
    pub fn malformed(text: &str) -> ReadingError {
        const SHOWN: usize = 80;
        match text.char_indices().nth(SHOWN) {
            Some((cut, _)) => ReadingError::Malformed(format!("{}...", &text[..cut])),
            None => ReadingError::Malformed(text.to_string()),
        }
    }
}

/// A power in watts, or why it cannot be a drive's.
pub fn check_watts(watts: f64) -> Result<f64, ReadingError> {
    let why = if !watts.is_finite() {
        "not a finite number"
    } else if watts < 0.0 {
        "negative"
    } else if watts > MAX_DRIVE_WATTS {
        "more than 100 W (a drive draws a few watts: is the meter printing milliwatts?)"
    } else {
        return Ok(watts);
    };
    Err(ReadingError::Nonsense {
        value: format!("{} W", shown(watts)),
        why,
    })
}

/// A reading as an error shows it: a few significant digits, however many the meter printed
/// (a 309-digit number is 1e308 again, not 309 digits).
pub(crate) fn shown(value: f64) -> String {
    if !value.is_finite() {
        value.to_string()
    } else if value == 0.0 || (1e-3..1e6).contains(&value.abs()) {
        crate::units::significant(value, 6)
    } else {
        format!("{value:.3e}")
    }
}

/// The readings so far, shared between the meter's thread and its handle.
#[derive(Clone)]
struct Recording {
    origin: Instant,
    log: Arc<Mutex<PowerLog>>,
}

impl Recording {
    fn t_s(&self, at: Instant) -> f64 {
        match at.checked_duration_since(self.origin) {
            Some(d) => d.as_secs_f64(),
            None => -self.origin.duration_since(at).as_secs_f64(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, PowerLog> {
        // A panicking meter thread leaves readings that are still good.
        self.log.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn push(&self, at: Instant, watts: f64) {
        let t_s = self.t_s(at);
        let mut log = self.lock();
        if log.samples.len() >= MAX_SAMPLES {
            if log.missing.is_none() {
                log.missing = Some(MissingPower {
                    from_s: t_s,
                    reason: format!(
                        "more than {MAX_SAMPLES} readings in one phase: have the meter print \
                         fewer a second"
                    ),
                });
            }
            return;
        }
        // Stamps arrive in order from one thread; never let the series run back.
        let t_s = log.samples.last().map_or(t_s, |l| t_s.max(l.t_s));
        let in_last = log.in_last_sample;
        let n = log.samples.len();
        let flooding =
            n >= MAX_READINGS_PER_S && t_s - log.samples[n - MAX_READINGS_PER_S].t_s < 1.0;
        if let Some(last) = log.samples.last_mut().filter(|_| flooding) {
            // A running mean of the readings folded into the last kept one.
            last.watts += (watts - last.watts) / f64::from(in_last + 1);
            log.in_last_sample += 1;
            log.averaged += 1;
            return;
        }
        log.samples.push(PowerSample { t_s, watts });
        log.in_last_sample = 1;
    }

    /// The first failure is the one that counts.
    fn fail(&self, from_s: f64, reason: String) {
        let mut log = self.lock();
        if log.missing.is_none() {
            log.missing = Some(MissingPower { from_s, reason });
        }
    }
}

/// Why a polled sensor has no reading this time (retried until the silence timeout).
#[derive(Debug, thiserror::Error)]
pub enum SensorError {
    /// The OS error is in the message, not the source chain: `{:#}` would print it twice.
    #[error("cannot read {path}: {error}")]
    Unreadable { path: String, error: std::io::Error },
    #[error("{path} says '{text}', not an integer")]
    NotAnInteger { path: String, text: String },
    #[error("{path} is negative")]
    Negative { path: String },
    #[error(
        "{path} ran back from {before} to {after} µJ without a max_energy_range_uj to wrap at"
    )]
    CounterRanBack {
        path: String,
        before: u64,
        after: u64,
    },
    #[error("{0}")]
    Drive(drive::Error),
    #[error("the drive reports power state {state} but lists {listed} states")]
    UnlistedPowerState { state: u8, listed: usize },
}

/// A meter polled at an interval (sysfs files, NVMe admin commands).
trait Sensor: Send {
    /// A reading and when it applies; `Ok(None)` when this poll has none yet (an energy
    /// counter's first read). An `Err` is retried until the silence timeout.
    fn read(&mut self) -> Result<Option<(Instant, f64)>, SensorError>;
    /// What the readings are, in words (at the end, for what was seen).
    fn description(&self) -> String;
}

enum Worker {
    Command(mpsc::SyncSender<command::Event>),
    Polled(mpsc::Sender<()>),
}

/// A running meter. Stop it with [`Meter::stop`]; dropping it stops it too.
pub struct Meter {
    recording: Recording,
    worker: Option<(Worker, JoinHandle<String>)>,
}

impl Meter {
    /// Start the meter `spec` names; `Ok(None)` for `none`. Misconfiguration (no such
    /// sensor, a command that cannot run, not an NVMe drive) is an error here; a meter that
    /// fails later ends its log with [`MissingPower`].
    pub fn start(spec: &MeterSpec, options: &MeterOptions) -> Result<Option<Meter>, MeterError> {
        let silence = options.silence_timeout;
        // Before the command starts, so no reading can predate the origin.
        let origin = Instant::now();
        let (basis, description, starter): (Basis, String, Starter) = match spec {
            MeterSpec::None => return Ok(None),
            MeterSpec::Command(text) => {
                let (meter, stdout, stderr) = command::CommandMeter::spawn(text)?;
                (
                    Basis::Measured,
                    meter.description(),
                    Starter::Command(meter, stdout, stderr),
                )
            }
            MeterSpec::Hwmon { chip, channel } => {
                let sensor = hwmon::Hwmon::open(&options.sysfs_root, chip, channel.as_ref())?;
                polled(Basis::Measured, sensor, options.poll_interval)
            }
            MeterSpec::Powercap(zone) => {
                let sensor = powercap::Powercap::open(&options.sysfs_root, zone)?;
                polled(Basis::Measured, sensor, options.poll_interval)
            }
            MeterSpec::NvmeStates(device) => {
                let device = device
                    .as_ref()
                    .or(options.device.as_ref())
                    .ok_or(MeterError::NvmeNeedsDevice)?;
                let sensor = nvme::NvmeStates::open(device)?;
                polled(Basis::Estimate, sensor, options.nvme_poll_interval)
            }
        };
        let recording = Recording {
            origin,
            log: Arc::new(Mutex::new(PowerLog {
                meter: spec.to_string(),
                basis,
                description,
                samples: Vec::new(),
                missing: None,
                hold_s: silence.as_secs_f64(),
                end_s: 0.0,
                averaged: 0,
                in_last_sample: 0,
            })),
        };
        let rec = recording.clone();
        let worker = match starter {
            Starter::Command(meter, stdout, stderr) => {
                let (events, received) = mpsc::sync_channel(QUEUED_LINES);
                command::CommandMeter::read_output(stdout, stderr, &events);
                let thread = std::thread::spawn(move || {
                    let description = meter.description();
                    meter.run(received, rec, silence);
                    description
                });
                (Worker::Command(events), thread)
            }
            Starter::Polled(sensor, interval) => {
                let (stop, stopped) = mpsc::channel();
                let thread =
                    std::thread::spawn(move || poll(sensor, interval, stopped, rec, silence));
                (Worker::Polled(stop), thread)
            }
        };
        Ok(Some(Meter {
            recording,
            worker: Some(worker),
        }))
    }

    /// Now, in seconds on the meter's timeline (the run's start and end are placed on it
    /// this way; IO timestamps of real devices come from the same monotonic clock).
    pub fn now_s(&self) -> f64 {
        self.recording.t_s(Instant::now())
    }

    /// An instant on the meter's timeline.
    pub fn t_s(&self, at: Instant) -> f64 {
        self.recording.t_s(at)
    }

    /// The readings so far (the meter keeps running).
    pub fn snapshot(&self) -> PowerLog {
        let mut log = self.recording.lock().clone();
        log.end_s = self.now_s();
        log
    }

    /// Let go of the readings before `t_s` (a phase already measured), keeping the one still
    /// in force then.
    pub fn forget_before(&self, t_s: f64) {
        let mut log = self.recording.lock();
        let keep_from = log
            .samples
            .partition_point(|s| s.t_s < t_s)
            .saturating_sub(1);
        log.samples.drain(..keep_from);
    }

    /// Stop reading and return everything read.
    pub fn stop(mut self) -> PowerLog {
        self.finish();
        self.recording.lock().clone()
    }

    fn finish(&mut self) {
        let Some((worker, thread)) = self.worker.take() else {
            return;
        };
        let end_s = self.now_s();
        match worker {
            Worker::Command(events) => drop(events.send(command::Event::Stop)),
            Worker::Polled(stop) => drop(stop.send(())),
        }
        let description = thread.join().ok();
        let mut log = self.recording.lock();
        // Recording ended when it was asked to: readings that came in while the meter was
        // being stopped are past it.
        log.samples.retain(|s| s.t_s <= end_s);
        log.end_s = end_s;
        if let Some(d) = description {
            log.description = d;
        }
    }
}

impl Drop for Meter {
    fn drop(&mut self) {
        self.finish();
    }
}

enum Starter {
    Command(
        command::CommandMeter,
        std::process::ChildStdout,
        std::process::ChildStderr,
    ),
    Polled(Box<dyn Sensor>, Duration),
}

fn polled(
    basis: Basis,
    sensor: impl Sensor + 'static,
    interval: Duration,
) -> (Basis, String, Starter) {
    let description = sensor.description();
    (
        basis,
        description,
        Starter::Polled(Box::new(sensor), interval),
    )
}

/// Read `sensor` every `interval` until told to stop or it fails; returns its description.
fn poll(
    mut sensor: Box<dyn Sensor>,
    interval: Duration,
    stop: mpsc::Receiver<()>,
    rec: Recording,
    silence: Duration,
) -> String {
    let started = Instant::now();
    let mut last_reading: Option<Instant> = None;
    loop {
        match sensor.read() {
            Ok(None) => {}
            Ok(Some((at, watts))) => match check_watts(watts) {
                Ok(w) => {
                    rec.push(at, w);
                    last_reading = Some(at);
                }
                Err(e) => {
                    rec.fail(rec.t_s(at), format!("{}: {e}", sensor.description()));
                    break;
                }
            },
            Err(e) if last_reading.unwrap_or(started).elapsed() >= silence => {
                let from = last_reading.map_or(0.0, |at| rec.t_s(at));
                let quiet = silence.as_secs_f64();
                rec.fail(from, format!("no reading for {quiet:.1} s: {e}"));
                break;
            }
            Err(_) => {} // Retried until the silence timeout.
        }
        match stop.recv_timeout(interval) {
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            _ => break,
        }
    }
    sensor.description()
}

/// A sysfs attribute holds a page at most (4 KiB; 64 KiB on some machines). The paths a
/// meter reads are the user's to name, so one may lead to /dev/zero or a FIFO.
const SYSFS_ATTRIBUTE: crate::regular_file::RegularFile =
    crate::regular_file::RegularFile::new("a sysfs attribute", 64 << 10);

/// A sysfs attribute's whole text.
fn read_sysfs(path: &std::path::Path) -> std::io::Result<String> {
    SYSFS_ATTRIBUTE.read_to_string(path)
}

/// A sysfs attribute's text, trimmed.
fn read_attr(path: &std::path::Path) -> Result<String, SensorError> {
    read_sysfs(path)
        .map(|t| t.trim().to_string())
        .map_err(|error| SensorError::Unreadable {
            path: path.display().to_string(),
            error,
        })
}

/// A sysfs attribute holding an integer.
fn read_integer(path: &std::path::Path) -> Result<i64, SensorError> {
    let text = read_attr(path)?;
    text.parse().map_err(|_| SensorError::NotAnInteger {
        path: path.display().to_string(),
        text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An OS error is in the message and not also the source, which `{:#}` prints again.
    #[test]
    fn an_os_error_is_said_once() {
        let os = || std::io::Error::from(std::io::ErrorKind::NotFound);
        for e in [
            MeterError::Spawn {
                command: "meter".into(),
                error: os(),
            },
            MeterError::Unreadable {
                path: "/sys/x".into(),
                error: os(),
                hint: "",
            },
        ] {
            assert!(std::error::Error::source(&e).is_none(), "{e}");
            assert!(e.to_string().contains("not found"), "{e}");
        }
    }
}
