//! What can stop a drive from being served, each saying what to do about it.

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(
        "ublk_drv is not loaded: modprobe ublk_drv (Linux 6.0+ with CONFIG_BLK_DEV_UBLK; \
         /dev/ublk-control is missing)"
    )]
    NoUblk,
    #[error("/dev/ublk-control: {0}: serving a drive needs root (or CAP_SYS_ADMIN)")]
    NotPermitted(std::io::Error),
    #[error("`sim serve` serves a simulated drive: give sim:PRESET[,key=value...], not {0}")]
    NotSim(String),
    #[error(
        "`sim serve` keeps the served drive's data itself: drop {0}= from the target (every \
         byte written reads back as written, discarded ranges as zeroes)"
    )]
    OwnData(&'static str),
    #[error("sim:{spec}: {error}")]
    Sim { spec: String, error: sim::SimError },
    #[error(
        "serving sim:{spec} keeps its data in memory: written whole, its {} could take more \
         than half of the {} of RAM available; give a smaller capacity \
         (sim:{spec},capacity={}G fits)",
        gib(*capacity_bytes),
        gib(*available_bytes),
        ((available_bytes / 2) >> 30).max(1)
    )]
    DataMemory {
        spec: String,
        capacity_bytes: u64,
        available_bytes: u64,
    },
    #[error("{0}")]
    Options(String),
    #[error("{0}: {1}")]
    Os(String, std::io::Error),
    #[error("ublk: {0}")]
    Ublk(String),
    /// The simulated drive could not allocate its buffers for the requests in flight.
    #[error("{0}")]
    Prepare(engine::DeviceError),
}

fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
}
