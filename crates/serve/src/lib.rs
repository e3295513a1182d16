//! A simulated SSD served as a Linux block device (`ssdlab sim serve`): `/dev/ublkbN`,
//! through the kernel's ublk driver, backed by the simulator running in real time.
//!
//! - [`Pacer`](pacer): the drive's virtual clock is the wall clock; each request is
//!   submitted to the simulator at its arrival and completed when the wall clock reaches the
//!   simulated completion, so the drive's rate is the simulator's;
//! - `store`: the data written, in one sparse anonymous mapping (the simulator itself keeps
//!   none: `data=off`);
//! - `ublk`: the queues, one thread each, and their timers (libublk);
//! - `pacing`: how late each request completed against the simulation, and [`Summary`].
//!
//! A crate of its own rather than part of `sim`: the simulator stays deterministic and free
//! of the wall clock, threads and Linux's ublk, which only serving needs. It is empty unless
//! built with the `ublk` feature (`ssdlab`'s `--features ublk`): libublk's bindings are made
//! by bindgen at build time and need libclang, which nothing else in ssdlab does.
#![cfg(feature = "ublk")]

mod error;
mod pacer;
mod pacing;
mod store;
mod summary;
mod ublk;

use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use error::ServeError;
pub use summary::Summary;
pub use ublk::{Started, Stop};

use engine::served::ServedDrive;
use engine::Device;

/// The slowest a drive may be served: beyond it a drive's second is a quarter of an hour.
const MAX_SLOWDOWN: u32 = 1000;

/// What to serve, and how.
#[derive(Clone, Debug)]
pub struct Options {
    /// `sim:PRESET[,key=value...]` or `sim:drive.toml`.
    pub target: String,
    /// Hardware queues of the block device (each a thread here).
    pub queues: u16,
    /// Requests in flight per queue.
    pub depth: u16,
    /// How many times slower than the model the drive runs on the wall clock (1: real
    /// time). A host too slow for the model (an emulator) keeps up with a slowed drive; the
    /// drive's rates are then the measured ones times the slowdown.
    pub slowdown: u32,
}

/// The simulated drive a target names, checked for serving, and its model.
fn open(target: &str) -> Result<(sim::SimSsd, String), ServeError> {
    let spec = sim::target_spec(target).ok_or_else(|| ServeError::NotSim(target.into()))?;
    let sim_err = |error| ServeError::Sim {
        spec: spec.into(),
        error,
    };
    let cfg = sim::resolve(spec).map_err(sim_err)?;
    if cfg.data_mode() != sim::DataMode::Off {
        return Err(ServeError::OwnData(if cfg.faults.is_empty() {
            "data"
        } else {
            "faults"
        }));
    }
    let ssd = sim::SimSsd::new(cfg, spec).map_err(sim_err)?;
    let model = ssd.identity().model.unwrap_or_default();
    Ok((ssd, model))
}

/// Serve the drive until [`Stop::stop`] (or the device's removal); `started` is called once
/// the block device exists. Returns what it did.
pub fn serve(
    opts: &Options,
    started: impl FnOnce(Started) + Send + Sync + 'static,
) -> Result<Summary, ServeError> {
    if !(1..=64).contains(&opts.queues) {
        return Err(ServeError::Options(format!(
            "--queues {}: give 1 to 64",
            opts.queues
        )));
    }
    if !(1..=4096).contains(&opts.depth) {
        return Err(ServeError::Options(format!(
            "--depth {}: give 1 to 4096",
            opts.depth
        )));
    }
    if !(1..=MAX_SLOWDOWN).contains(&opts.slowdown) {
        return Err(ServeError::Options(format!(
            "--slowdown {}: give 1 (real time) to {MAX_SLOWDOWN}",
            opts.slowdown
        )));
    }
    let (ssd, model) = open(&opts.target)?;
    let capacity = ssd.geometry().capacity_bytes;
    let spec = sim::spec_of(&opts.target);
    let store = store::Store::new(capacity, engine::system::available_memory(), spec)?;
    ublk_available()?;
    let slots = opts.queues as u32 * opts.depth as u32;
    let pacer =
        Arc::new(pacer::Pacer::new(ssd, store, slots, opts.slowdown).map_err(ServeError::Prepare)?);
    let status = ServedDrive {
        pid: std::process::id(),
        device: String::new(),
        target: opts.target.clone(),
        model: model.clone(),
        capacity_bytes: capacity,
        slowdown: opts.slowdown,
        queues: opts.queues,
        depth: opts.depth,
        ios: 0,
        host_bytes_read: 0,
        host_bytes_written: 0,
        nand_bytes_written: 0,
        gc_invocations: 0,
    };
    // Published while the device exists, for `ssdlab identify` on it: the publisher waits
    // for the device's path, then publishes until `stop_publishing` is dropped.
    let (device_path, publisher_inbox) = channel::<String>();
    let stop_publishing = device_path.clone();
    let publisher = {
        let pacer = Arc::clone(&pacer);
        std::thread::spawn(move || publish(&publisher_inbox, &pacer, status))
    };
    let since = Instant::now();
    let result = ublk::run(
        Arc::clone(&pacer),
        model,
        capacity,
        opts.queues,
        opts.depth,
        move |s: Started| {
            let _ = device_path.send(s.block_device.clone());
            started(s);
        },
    );
    drop(stop_publishing);
    let _ = publisher.join();
    let pacing = result?;
    Ok(Summary {
        served: since.elapsed(),
        slowdown: opts.slowdown,
        write_amplification: pacer.write_amplification(),
        pacing,
    })
}

/// Once the device's path comes, publish the served drive's status each second until the
/// inbox's senders are gone, then withdraw it. A status that cannot be published is said
/// once, and serving goes on.
fn publish(inbox: &Receiver<String>, pacer: &pacer::Pacer, status: ServedDrive) {
    let Ok(device) = inbox.recv() else {
        return; // the device never came
    };
    let mut status = ServedDrive { device, ..status };
    loop {
        pacer.update(&mut status);
        if let Err(e) = status.publish() {
            eprintln!(
                "note: `ssdlab identify` will not know {} as a simulated drive: {e}",
                status.device
            );
            return;
        }
        if inbox.recv_timeout(Duration::from_secs(1)) != Err(RecvTimeoutError::Timeout) {
            break;
        }
    }
    status.withdraw();
}

/// The kernel's ublk driver is there and may be used.
fn ublk_available() -> Result<(), ServeError> {
    match std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/ublk-control")
    {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(ServeError::NoUblk),
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            Err(ServeError::NotPermitted(e))
        }
        Err(e) => Err(ServeError::Os("/dev/ublk-control".into(), e)),
    }
}
