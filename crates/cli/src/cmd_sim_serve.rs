//! `ssdlab sim serve`: a simulated drive as a Linux block device (ublk), until Ctrl-C.

#[cfg(feature = "ublk")]
use std::io::Write as _;

#[cfg(feature = "ublk")]
use signal_hook::consts::{SIGINT, SIGTERM};
#[cfg(feature = "ublk")]
use signal_hook::iterator::Signals;

#[derive(Debug, clap::Args)]
// Parsed in every build, so a build without ublk still names the command and says how to
// get it; read only with the feature.
#[cfg_attr(not(feature = "ublk"), allow(dead_code))]
pub struct ServeArgs {
    /// The drive: sim:PRESET[,key=value...] or sim:drive.toml (a smaller capacity= when its
    /// data would not fit in memory).
    target: String,
    /// Serve it through the kernel's ublk driver, /dev/ublkbN (the only way so far).
    #[arg(long)]
    ublk: bool,
    /// Hardware queues of the block device, each served by a thread.
    #[arg(long, default_value_t = 1)]
    queues: u16,
    /// Requests in flight per queue.
    #[arg(long, default_value_t = 128)]
    depth: u16,
    /// Run the drive N times slower than the model on the wall clock, for a host too slow
    /// to keep up with it (an emulator): rates measured on the device times N are the
    /// model's.
    #[arg(long, default_value_t = 1, value_name = "N")]
    slowdown: u32,
}

/// Without the `ublk` feature: what to build instead.
#[cfg(not(feature = "ublk"))]
pub fn run(_: ServeArgs) -> anyhow::Result<()> {
    anyhow::bail!(
        "this ssdlab was built without ublk, which serving needs: build it with `cargo install \
         --path crates/cli --features ublk` (or `cargo run --features ublk -- sim serve ...`); \
         libublk's bindings need libclang to build (apt-get install libclang-dev)"
    )
}

#[cfg(feature = "ublk")]
pub fn run(a: ServeArgs) -> anyhow::Result<()> {
    // Caught from now on: a Ctrl-C while the device is being set up stops it once it is up.
    // The thread waiting for them is left to end with the process (closing their handle
    // once the thread has gone would write to a closed socket: SIGPIPE).
    let mut signals = Signals::new([SIGINT, SIGTERM])?;
    // --ublk names the only way there is to serve; accepted so that commands written with
    // it stay valid when there are others.
    let _ = a.ublk;
    let opts = serve::Options {
        target: a.target,
        queues: a.queues,
        depth: a.depth,
        slowdown: a.slowdown,
    };
    let summary = serve::serve(&opts, move |s| {
        let pace = match opts.slowdown {
            1 => "in real time".to_string(),
            n => format!("{n} times slower than real time"),
        };
        println!(
            "{}: {} ({:.1} GB), {} queue(s) of {} requests, paced {pace}",
            s.block_device,
            s.drive,
            s.capacity_bytes as f64 / 1e9,
            opts.queues,
            opts.depth
        );
        println!("Ctrl-C (or SIGTERM) stops it and prints what it did");
        let _ = std::io::stdout().flush();
        std::thread::spawn(move || {
            if signals.forever().next().is_some() {
                s.stop.stop();
            }
        });
    })?;
    println!("{summary}");
    Ok(())
}
