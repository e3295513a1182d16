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
use crate::device::{Completion, DeviceError, Io, Op};
use crate::wall::{duplicate, MakeQueue, Queue};

/// An IO handed to a worker, with the address of its slot's buffer.
struct Job {
    io: Io,
    buf: usize,
}

pub(crate) struct SyncQueue {
    file: Arc<File>,
    is_block: bool,
    jobs: Option<Sender<Job>>,
    results: Receiver<Completion>,
    result_tx: Sender<Completion>,
    workers: Vec<JoinHandle<()>>,
    queue: Arc<Mutex<Receiver<Job>>>,
}

impl SyncQueue {
    pub(crate) fn new(file: File, is_block: bool) -> SyncQueue {
        let (jobs, job_rx) = mpsc::channel();
        let (result_tx, results) = mpsc::channel();
        SyncQueue {
            file: Arc::new(file),
            is_block,
            jobs: Some(jobs),
            results,
            result_tx,
            workers: Vec::new(),
            queue: Arc::new(Mutex::new(job_rx)),
        }
    }

    fn spawn_worker(&mut self, epoch: Instant) {
        let queue = Arc::clone(&self.queue);
        let file = Arc::clone(&self.file);
        let done = self.result_tx.clone();
        let is_block = self.is_block;
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

impl Queue for SyncQueue {
    const BACKEND: &'static str = "sync";

    fn file(&self) -> &File {
        &self.file
    }

    fn another(&self) -> Result<MakeQueue<Self>, DeviceError> {
        let (file, is_block) = (duplicate(&self.file)?, self.is_block);
        Ok(Box::new(move || Ok(SyncQueue::new(file, is_block))))
    }

    fn prepare(&mut self, pool: &BufferPool, epoch: Instant) -> Result<(), DeviceError> {
        while self.workers.len() < pool.slots() as usize {
            self.spawn_worker(epoch);
        }
        Ok(())
    }

    fn queue(&mut self, io: Io, buf: *mut u8, _: Instant) -> Result<(), DeviceError> {
        let job = Job {
            io,
            buf: buf as usize,
        };
        self.jobs
            .as_ref()
            .expect("workers running")
            .send(job)
            .map_err(|_| stopped())
    }

    /// A worker starts an IO as soon as it is queued.
    fn start(&mut self) -> Result<(), DeviceError> {
        Ok(())
    }

    fn drain(&mut self, _: Instant, done: &mut Vec<Completion>) -> u32 {
        let mut n = 0;
        while let Ok(c) = self.results.try_recv() {
            done.push(c);
            n += 1;
        }
        n
    }

    fn wait(
        &mut self,
        want: u32,
        left_ns: Option<u64>,
        done: &mut Vec<Completion>,
    ) -> Result<u32, DeviceError> {
        // With nothing in flight the channel stays empty, and a wait with a limit lets the
        // time pass.
        let c = match left_ns {
            None if want == 0 => return Ok(0),
            None => self.results.recv().map_err(|_| stopped())?,
            Some(left) => match self.results.recv_timeout(Duration::from_nanos(left)) {
                Ok(c) => c,
                Err(RecvTimeoutError::Timeout) => return Ok(0),
                Err(RecvTimeoutError::Disconnected) => return Err(stopped()),
            },
        };
        done.push(c);
        Ok(1)
    }
}

fn stopped() -> DeviceError {
    DeviceError::Other("sync backend workers stopped".into())
}

impl Drop for SyncQueue {
    fn drop(&mut self) {
        // Closing the job channel ends the workers once the IOs they hold are done.
        self.jobs = None;
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}
