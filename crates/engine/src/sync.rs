//! The portable backend: worker threads doing pread/pwrite, for kernels or sandboxes without
//! io_uring. Queue depth N means up to N threads blocked in the kernel at once.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::blockdev;
use crate::buffer::BufferPool;
use crate::device::{Clock, Completion, Device, DeviceError, Geometry, Io, Op};
use crate::identity::Identity;

/// An IO handed to a worker, with the address of its slot's buffer.
struct Job {
    io: Io,
    buf: usize,
}

pub struct SyncDevice {
    file: Arc<File>,
    is_block: bool,
    geometry: Geometry,
    identity: Identity,
    pool: Option<BufferPool>,
    epoch: Instant,
    jobs: Option<Sender<Job>>,
    results: Receiver<Completion>,
    result_tx: Sender<Completion>,
    workers: Vec<JoinHandle<()>>,
    queue: Arc<Mutex<Receiver<Job>>>,
    in_flight: u32,
}

impl SyncDevice {
    pub fn new(file: File, is_block: bool, geometry: Geometry, identity: Identity) -> SyncDevice {
        let (jobs, job_rx) = mpsc::channel();
        let (result_tx, results) = mpsc::channel();
        SyncDevice {
            file: Arc::new(file),
            is_block,
            geometry,
            identity,
            pool: None,
            epoch: Instant::now(),
            jobs: Some(jobs),
            results,
            result_tx,
            workers: Vec::new(),
            queue: Arc::new(Mutex::new(job_rx)),
            in_flight: 0,
        }
    }

    fn spawn_worker(&mut self) {
        let queue = Arc::clone(&self.queue);
        let file = Arc::clone(&self.file);
        let done = self.result_tx.clone();
        let (is_block, epoch) = (self.is_block, self.epoch);
        self.workers.push(std::thread::spawn(move || loop {
            let job = match queue.lock().map(|q| q.recv()) {
                Ok(Ok(job)) => job,
                _ => return,
            };
            let result = execute(&file, is_block, &job);
            let completion = Completion {
                slot: job.io.slot,
                complete_ns: blockdev::since(epoch),
                result,
            };
            if done.send(completion).is_err() {
                return;
            }
        }));
    }
}

fn execute(file: &File, is_block: bool, job: &Job) -> i64 {
    let fd = file.as_raw_fd();
    let Io {
        op, offset, len, ..
    } = job.io;
    let errno = || {
        -(std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO) as i64)
    };
    // SAFETY: `buf` is this slot's buffer of at least `len` bytes; the device contract allows
    // one IO per slot in flight, so nothing else touches it meanwhile.
    let ret = unsafe {
        match op {
            Op::Read => libc::pread(
                fd,
                job.buf as *mut libc::c_void,
                len as usize,
                offset as i64,
            ),
            Op::Write => libc::pwrite(
                fd,
                job.buf as *const libc::c_void,
                len as usize,
                offset as i64,
            ),
            Op::Flush => libc::fsync(fd) as isize,
            Op::Discard => {
                return match blockdev::discard(file, is_block, offset, len as u64) {
                    Ok(()) => 0,
                    Err(e) => -(e.raw_os_error().unwrap_or(libc::EIO) as i64),
                }
            }
        }
    };
    if ret < 0 {
        errno()
    } else {
        ret as i64
    }
}

impl Device for SyncDevice {
    fn identity(&self) -> Identity {
        let mut id = self.identity.clone();
        id.details.insert("backend".into(), "sync".into());
        id
    }

    fn geometry(&self) -> Geometry {
        self.geometry
    }

    fn drive(&self) -> Option<drive::Drive<'_>> {
        use std::os::fd::AsFd;
        drive::Drive::from_fd(self.file.as_fd()).ok().flatten()
    }

    fn clock(&self) -> Clock {
        Clock::Wall
    }

    fn now_ns(&self) -> u64 {
        blockdev::since(self.epoch)
    }

    fn prepare(&mut self, slots: u32, max_len: usize) -> Result<(), DeviceError> {
        let fits = self.pool.as_ref().is_some_and(|p| p.fits(slots, max_len));
        if !fits {
            assert_eq!(self.in_flight, 0, "prepare with IO in flight");
            self.pool = Some(BufferPool::new(slots, max_len));
        }
        while self.workers.len() < slots as usize {
            self.spawn_worker();
        }
        Ok(())
    }

    fn buffer(&mut self, slot: u32) -> Option<&mut [u8]> {
        self.pool.as_mut().map(|p| p.slot_mut(slot))
    }

    fn submit(&mut self, io: Io) -> Result<(), DeviceError> {
        let pool = self
            .pool
            .as_ref()
            .ok_or_else(|| DeviceError::Invalid("IO before prepare".into()))?;
        if io.slot >= pool.slots()
            || (io.len as usize > pool.slot_len() && matches!(io.op, Op::Read | Op::Write))
        {
            return Err(DeviceError::Invalid(format!(
                "IO of {} bytes on slot {} exceeds the prepared buffers",
                io.len, io.slot
            )));
        }
        let job = Job {
            io,
            buf: pool.slot_ptr(io.slot) as usize,
        };
        self.jobs
            .as_ref()
            .expect("workers running")
            .send(job)
            .map_err(|_| DeviceError::Other("sync backend workers stopped".into()))?;
        self.in_flight += 1;
        Ok(())
    }

    fn reap(
        &mut self,
        min: u32,
        until_ns: Option<u64>,
        done: &mut Vec<Completion>,
    ) -> Result<(), DeviceError> {
        let mut got = 0;
        while let Ok(c) = self.results.try_recv() {
            done.push(c);
            got += 1;
        }
        while got < min && self.in_flight > got {
            let c = match until_ns {
                None => self.results.recv().ok(),
                Some(until) => {
                    let left = until.saturating_sub(self.now_ns());
                    match self.results.recv_timeout(Duration::from_nanos(left)) {
                        Ok(c) => Some(c),
                        Err(RecvTimeoutError::Timeout) => break,
                        Err(RecvTimeoutError::Disconnected) => None,
                    }
                }
            };
            let c = c.ok_or_else(|| DeviceError::Other("sync backend workers stopped".into()))?;
            done.push(c);
            got += 1;
        }
        if self.in_flight == 0 {
            if let Some(until) = until_ns {
                std::thread::sleep(Duration::from_nanos(until.saturating_sub(self.now_ns())));
            }
        }
        self.in_flight -= got;
        Ok(())
    }
}

impl Drop for SyncDevice {
    fn drop(&mut self) {
        // Closing the job channel ends the workers once the IOs they hold are done.
        self.jobs = None;
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}
