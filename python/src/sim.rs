//! `ssdlab.sim.Drive`: a simulated SSD a script steps IO by IO on its virtual clock.
//!
//! The drive is the `sim` crate's, behind the same `engine::Device` calls the CLI's driver
//! makes (submit, reap until a time): so IOs submitted at the times a CLI run submitted
//! them complete when they completed in that run.

use engine::{Completion, Device, Io, Op};
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use sim::SimSsd;

use crate::error::{msg, to_py};

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Drive>()?;
    m.add_class::<Counters>()?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    Ok(())
}

/// The largest IO a drive's buffers take, for drives that keep data (`data=on`).
const MAX_IO_BYTES: usize = 1 << 20;

fn parse_op(op: &str) -> PyResult<Op> {
    Op::ALL.into_iter().find(|o| o.name() == op).ok_or_else(|| {
        msg(format!(
            "unknown op {op:?}; expected read, write, discard or flush"
        ))
    })
}

/// A simulated drive: `Drive("840-evo-250", op="25%")` is `sim:840-evo-250,op=25%`.
#[pyclass(module = "ssdlab.sim")]
pub struct Drive {
    ssd: SimSsd,
    spec: String,
    queue_depth: u32,
    /// Slots with no IO in flight.
    free: Vec<u32>,
    done: Vec<Completion>,
}

impl Drive {
    /// Give back the slots of completions reaped.
    fn release(&mut self) {
        for c in self.done.drain(..) {
            self.free.push(c.slot);
        }
    }

    fn reap(&mut self, min: u32, until_ns: Option<u64>) -> Result<(), engine::DeviceError> {
        self.ssd.reap(min, until_ns, &mut self.done)?;
        self.release();
        Ok(())
    }

    /// Let the clock reach `t`, reaping every IO that completes by then (the drive works in
    /// the background while nothing is in flight).
    fn advance(&mut self, t: u64) -> Result<(), engine::DeviceError> {
        // A reap returns once it has `min` completions: asking for all in flight makes the
        // deadline the only way out.
        let all = self.ssd.in_flight() as u32;
        self.reap(all, Some(t))
    }

    /// Submit one IO at `at_ns` (now when earlier or `None`), first waiting for a completion
    /// when every slot is taken; returns its completion time.
    fn submit_at(&mut self, op: Op, offset: u64, len: u32, at_ns: Option<u64>) -> PyResult<u64> {
        if let Some(t) = at_ns.filter(|&t| t > self.ssd.now_ns()) {
            self.advance(t).map_err(to_py)?;
        }
        if self.free.is_empty() {
            self.reap(1, None).map_err(to_py)?;
        }
        let slot = self.free.pop().expect("a slot was freed");
        let c = self
            .ssd
            .submit_timed(Io {
                slot,
                op,
                offset,
                len,
            })
            .map_err(to_py)?;
        if c.result < 0 {
            return Err(msg(format!(
                "{} of {len} bytes at byte {offset} failed: {}",
                op.name(),
                std::io::Error::from_raw_os_error(-c.result as i32)
            )));
        }
        Ok(c.complete_ns)
    }
}

#[pymethods]
impl Drive {
    /// `spec` is a preset, optionally with `key=value` overrides, or a drive TOML file;
    /// keyword arguments add keys (`ssdlab sim show PRESET` lists them). `queue_depth` IOs at
    /// most are in flight.
    #[new]
    #[pyo3(signature = (spec="default", *, queue_depth=32, **keys))]
    fn new(
        py: Python<'_>,
        spec: &str,
        queue_depth: u32,
        keys: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        if !(1..=1024).contains(&queue_depth) {
            return Err(msg(format!(
                "queue_depth must be 1 to 1024, not {queue_depth}"
            )));
        }
        let mut spec = spec.to_string();
        if let Some(keys) = keys {
            for (k, v) in keys.iter() {
                spec.push_str(&format!(",{}={}", k.str()?, v.str()?));
            }
        }
        let mut ssd = py.detach(|| sim::open(&spec)).map_err(to_py)?;
        ssd.prepare(queue_depth, MAX_IO_BYTES).map_err(to_py)?;
        Ok(Drive {
            ssd,
            spec,
            queue_depth,
            free: (0..queue_depth).rev().collect(),
            done: Vec::new(),
        })
    }

    /// Submit an IO now; returns when it completes (ns on the drive's clock). With every
    /// slot taken, time first passes until one IO completes.
    #[pyo3(signature = (op, offset_bytes, len_bytes, at_ns=None))]
    fn submit(
        &mut self,
        op: &str,
        offset_bytes: u64,
        len_bytes: u32,
        at_ns: Option<u64>,
    ) -> PyResult<u64> {
        let op = parse_op(op)?;
        self.submit_at(op, offset_bytes, len_bytes, at_ns)
    }

    /// Submit many IOs in order, IO `i` at `at_ns[i]` (or as soon as a slot is free), with
    /// the GIL released; returns their completion times, a numpy array of uint64.
    #[pyo3(signature = (ops, offsets_bytes, lens_bytes, at_ns=None))]
    fn submit_many<'py>(
        &mut self,
        py: Python<'py>,
        ops: Vec<String>,
        offsets_bytes: Vec<u64>,
        lens_bytes: Vec<u32>,
        at_ns: Option<Vec<u64>>,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let n = ops.len();
        if offsets_bytes.len() != n
            || lens_bytes.len() != n
            || at_ns.as_ref().is_some_and(|a| a.len() != n)
        {
            return Err(msg(format!(
                "ops, offsets_bytes, lens_bytes and at_ns must be as long as each other ({n} ops)"
            )));
        }
        let ops = ops
            .iter()
            .map(|o| parse_op(o))
            .collect::<PyResult<Vec<_>>>()?;
        let done: Vec<u64> = py.detach(|| {
            (0..n)
                .map(|i| {
                    let at = at_ns.as_ref().map(|a| a[i]);
                    self.submit_at(ops[i], offsets_bytes[i], lens_bytes[i], at)
                })
                .collect::<PyResult<_>>()
        })?;
        // The vector becomes the array's memory, not copied.
        Ok(PyArray1::from_vec(py, done))
    }

    /// Let time pass: until `until_ns` on the drive's clock (the drive works in the
    /// background when idle), or with `None` until every IO in flight has completed.
    #[pyo3(signature = (until_ns=None))]
    fn wait(&mut self, py: Python<'_>, until_ns: Option<u64>) -> PyResult<()> {
        py.detach(|| match until_ns {
            Some(t) => self.advance(t),
            None => {
                let n = self.ssd.in_flight() as u32;
                self.reap(n, None)
            }
        })
        .map_err(to_py)
    }

    /// The drive's clock, ns since it was made.
    #[getter]
    fn now_ns(&self) -> u64 {
        self.ssd.now_ns()
    }

    #[getter]
    fn capacity_bytes(&self) -> u64 {
        self.ssd.geometry().capacity_bytes
    }

    #[getter]
    fn in_flight(&self) -> usize {
        self.ssd.in_flight()
    }

    #[getter]
    fn queue_depth(&self) -> u32 {
        self.queue_depth
    }

    /// The spec the drive was made from, as `sim:` takes it.
    #[getter]
    fn spec(&self) -> &str {
        &self.spec
    }

    /// Energy used since the drive was made, joules (its energy model).
    #[getter]
    fn energy_j(&self) -> f64 {
        self.ssd.energy().total_j()
    }

    /// What the FTL counted so far.
    #[getter]
    fn counters(&self) -> PyResult<Counters> {
        let snapshot = engine::Device::counters(&self.ssd)
            .and_then(|c| c.sim().cloned())
            .ok_or_else(|| msg("the simulated drive reported no counters"))?;
        Ok(Counters(snapshot))
    }

    /// Run a test of the methodology on this drive, in the state the script left it, as
    /// `ssdlab run TEST --target sim:SPEC` would; keyword arguments as `ssdlab.run`'s.
    #[pyo3(signature = (test, **flags))]
    fn run(
        &mut self,
        py: Python<'_>,
        test: &str,
        flags: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Vec<crate::run::Result>> {
        // The test reaps what it submits: the script's IOs must have completed first.
        self.wait(py, None)?;
        let target = format!("{}{}", sim::TARGET_PREFIX, self.spec);
        let request = crate::run::request(test, &target, flags)?;
        let results = crate::run::execute(py, &request, Some(&mut self.ssd))?;
        // The test's slots replaced the script's: prepare them again.
        self.ssd
            .prepare(self.queue_depth, MAX_IO_BYTES)
            .map_err(to_py)?;
        self.free = (0..self.queue_depth).rev().collect();
        Ok(results)
    }

    fn __repr__(&self) -> String {
        format!("Drive({:?}, now_ns={})", self.spec, self.ssd.now_ns())
    }
}

/// A simulated drive's counters: the snapshot a result's `device_counters` holds, every
/// field of it an attribute by the same name (pages are 4 KiB units).
#[pyclass(module = "ssdlab.sim", frozen, skip_from_py_object)]
#[derive(Clone, Debug)]
pub struct Counters(engine::counters::SimCounters);

#[pymethods]
impl Counters {
    /// The counters as the dict a result's JSON holds.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let json = serde_json::to_string(&self.0).map_err(to_py)?;
        py.import("json")?.call_method1("loads", (json,))
    }

    fn __getattr__<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        let all = self.to_dict(py)?;
        match all.get_item(name) {
            Ok(v) => Ok(v),
            Err(_) => Err(pyo3::exceptions::PyAttributeError::new_err(format!(
                "Counters has no {name:?}: it has the keys of a result's device_counters"
            ))),
        }
    }

    fn __dir__(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        self.to_dict(py)?
            .call_method0("keys")?
            .try_iter()?
            .map(|k| k?.extract())
            .collect()
    }

    fn __repr__(&self) -> String {
        format!("{:?}", self.0)
    }
}

/// The names of the built-in drive presets (`ssdlab sim list`).
#[pyfunction]
fn presets() -> Vec<String> {
    sim::presets()
        .into_iter()
        .map(|(name, _)| name.to_string())
        .collect()
}
