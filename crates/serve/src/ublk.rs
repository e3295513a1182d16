//! The drive as `/dev/ublkbN`: ublk hands each request to one of our queue threads, which
//! passes it to the [`Pacer`] and completes it when the wall clock reaches the simulated
//! completion: an absolute timeout on the queue's own io_uring, one per request in flight.
//! Buffers, timers and held requests are allocated once per queue, indexed by tag.

use std::sync::{Arc, Mutex};

use io_uring::{opcode, types};
use libublk::ctrl::{UblkCtrl, UblkCtrlBuilder};
use libublk::io::{BufDescList, UblkDev, UblkIOCtx, UblkQueue};
use libublk::{sys, BufDesc, UblkFlags, UblkIORes};

use engine::Op;

use crate::error::ServeError;
use crate::pacer::{monotonic_ns, Arrival, Pacer};
use crate::pacing::Pacing;

/// The op byte of a timer's user data (ublk's own commands never come back as target IO).
const TIMER_OP: u32 = 1;

/// The largest discard one request carries: its length must fit the simulator's u32.
const MAX_DISCARD_BYTES: u32 = 1 << 30;

/// Where the served drive is, once it is.
pub struct Started {
    pub dev_id: u32,
    /// `/dev/ublkbN`.
    pub block_device: String,
    /// The simulated drive's model.
    pub drive: String,
    pub capacity_bytes: u64,
    pub stop: Stop,
}

/// Stops a served drive from another thread (a signal handler's): its queues finish, and
/// the device is removed.
#[derive(Clone, Debug)]
pub struct Stop {
    dev_id: u32,
}

impl Stop {
    pub fn stop(&self) {
        if let Ok(ctrl) = UblkCtrl::new_simple(self.dev_id as i32) {
            let _ = ctrl.kill_dev();
        }
    }
}

/// Serve until stopped; the queues' pacing, merged.
pub(crate) fn run(
    pacer: Arc<Pacer>,
    drive: String,
    capacity_bytes: u64,
    queues: u16,
    depth: u16,
    started: impl FnOnce(Started) + Send + Sync + 'static,
) -> Result<Pacing, ServeError> {
    let ublk = |e: libublk::UblkError| ServeError::Ublk(e.to_string());
    let ctrl = UblkCtrlBuilder::default()
        .name("ssdlab-sim")
        .nr_queues(queues)
        .depth(depth)
        .dev_flags(UblkFlags::UBLK_DEV_F_ADD_DEV)
        .build()
        .map_err(ublk)?;
    let totals = Arc::new(Mutex::new(Pacing::new()));
    let tgt_init = move |dev: &mut UblkDev| {
        dev.set_default_params(capacity_bytes);
        let p = &mut dev.tgt.params;
        p.types |= sys::UBLK_PARAM_TYPE_DISCARD;
        p.discard = sys::ublk_param_discard {
            discard_granularity: 4096,
            max_discard_sectors: MAX_DISCARD_BYTES >> 9,
            max_discard_segments: 1,
            ..Default::default()
        };
        Ok(())
    };
    let queue_totals = Arc::clone(&totals);
    let q_fn = move |qid: u16, dev: &UblkDev| {
        let pacing = serve_queue(&pacer, qid, dev);
        queue_totals
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .merge(&pacing);
    };
    let device_fn = move |ctrl: &UblkCtrl| {
        let dev_id = ctrl.dev_info().dev_id;
        started(Started {
            dev_id,
            block_device: ctrl.get_bdev_path(),
            drive,
            capacity_bytes,
            stop: Stop { dev_id },
        });
    };
    ctrl.run_target(tgt_init, q_fn, device_fn).map_err(ublk)?;
    drop(ctrl);
    let totals = std::mem::replace(
        &mut *totals.lock().unwrap_or_else(|e| e.into_inner()),
        Pacing::new(),
    );
    Ok(totals)
}

/// A request held until the drive completes it.
#[derive(Clone, Copy)]
struct Held {
    op: Op,
    bytes: u64,
    arrival: Arrival,
}

/// One queue's thread: every request of the queue until the device stops.
fn serve_queue(pacer: &Pacer, qid: u16, dev: &UblkDev) -> Pacing {
    let depth = dev.dev_info.queue_depth as usize;
    let mut bufs = dev.alloc_queue_io_bufs();
    let mut timers = vec![types::Timespec::new(); depth];
    let mut held: Vec<Option<Held>> = vec![None; depth];
    let mut pacing = Pacing::new();
    let queue = match UblkQueue::new(qid, dev)
        .and_then(|q| q.submit_fetch_commands_unified(BufDescList::Slices(Some(&bufs))))
    {
        Ok(q) => q,
        Err(e) => {
            eprintln!("ublk queue {qid}: {e}");
            return pacing;
        }
    };
    let complete = |q: &UblkQueue,
                    tag: u16,
                    h: Held,
                    bufs: &[libublk::helpers::IoBuf<u8>],
                    pacing: &mut Pacing| {
        let error_ns = monotonic_ns().saturating_sub(h.arrival.due_ns);
        pacing.record(h.op, h.bytes, h.arrival.service_ns, error_ns);
        let _ = q.complete_io_cmd_unified(
            tag,
            BufDesc::Slice(bufs[tag as usize].as_slice()),
            Ok(UblkIORes::Result(h.arrival.result)),
        );
    };
    queue.wait_and_handle_io(|q, tag, ctx| {
        let t = tag as usize;
        if ctx.is_tgt_io() {
            // This request's timer: the drive has completed it.
            if let Some(h) = held[t].take() {
                complete(q, tag, h, &bufs, &mut pacing);
            }
            return;
        }
        let iod = q.get_iod(tag);
        let offset = iod.start_sector << 9;
        let len = iod.nr_sectors << 9;
        let op = match iod.op_flags & 0xff {
            sys::UBLK_IO_OP_READ => Op::Read,
            sys::UBLK_IO_OP_WRITE => Op::Write,
            sys::UBLK_IO_OP_FLUSH => Op::Flush,
            sys::UBLK_IO_OP_DISCARD => Op::Discard,
            _ => {
                let _ = q.complete_io_cmd_unified(
                    tag,
                    BufDesc::Slice(bufs[t].as_slice()),
                    Ok(UblkIORes::Result(-libc::EOPNOTSUPP)),
                );
                return;
            }
        };
        let slot = qid as u32 * depth as u32 + tag as u32;
        let arrival = pacer.arrive(slot, op, offset, len, bufs[t].as_mut_slice());
        let h = Held {
            op,
            bytes: if matches!(op, Op::Read | Op::Write) {
                len as u64
            } else {
                0
            },
            arrival,
        };
        if arrival.due_ns <= monotonic_ns() {
            complete(q, tag, h, &bufs, &mut pacing);
            return;
        }
        held[t] = Some(h);
        timers[t] = types::Timespec::new()
            .sec(arrival.due_ns / 1_000_000_000)
            .nsec((arrival.due_ns % 1_000_000_000) as u32);
        // The kernel reads the timespec when the entry is submitted, which is before this
        // tag's next request: its slot stays valid until then.
        let sqe = opcode::Timeout::new(&timers[t])
            .flags(types::TimeoutFlags::ABS)
            .build()
            .user_data(UblkIOCtx::build_user_data(tag, TIMER_OP, 0, true));
        if q.ublk_submit_sqe_sync(sqe).is_err() {
            if let Some(h) = held[t].take() {
                complete(q, tag, h, &bufs, &mut pacing);
            }
        }
    });
    pacing
}
