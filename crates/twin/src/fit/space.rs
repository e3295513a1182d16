//! The search space: which keys of a simulated drive a fit may change, and how far.
//!
//! The optimiser moves every coordinate in [-1, 1], and 0 is the starting drive's value. A
//! numeric key moves by a factor, its start times `reach`^x (each page type of `t_prog`
//! alike, as many as the drive's cell has), so the search is scale-free; a key whose real
//! values span more than that whatever the start's (the spare area: 7% to over 40%) spans
//! its range on a log scale; the pseudo-SLC cache, which may start at none, is a share of the
//! capacity on a log scale; another key that starts at 0 (a share of trimmed units kept, a
//! GC threshold off) rises linearly to the top of its range; a choice key takes the value x
//! falls on.

use std::collections::BTreeMap;

use super::arg::{Arg, Naming};

/// How far a key may move from its start.
#[derive(Clone, Copy, Debug)]
pub enum Reach {
    /// Its start times `reach`^x, x in [-1, 1].
    Factor(f64),
    /// From `lo` to `hi` (the key's units) on a log scale, the start where its value falls:
    /// for a key whose real values span more than a factor of the start's.
    Span(f64, f64),
    /// None below x = -0.8, else a log share of the capacity from 0.1% to 25%.
    CacheShare,
    /// A key starting at 0, which no factor moves: 0 up to x = 0, then x times this, the top
    /// of the key's range.
    FromZero(f64),
    /// One of these values.
    Choice(&'static [&'static str]),
    /// One of these values, each a start of the search that the search then holds
    /// ([`Space::starts`]): a choice that changes what every other key means. The NAND page
    /// sets a program's bytes, so the timings and dies that reach a drive's speed with one
    /// page are not those that reach it with another; as a coordinate beside them it made
    /// twins fit better and predict worse (BENCHMARKS #27).
    Outer(&'static [&'static str]),
    /// One of these values, held by the search where its start put it like an outer choice,
    /// but no start of its own: after each round the best drive is tried with each other
    /// value ([`Space::across`]), and those that lose start the next round beside it. The
    /// NAND cell, whose page types set the program times searched beside it: a start each
    /// would halve every start's share of the first round's budget.
    Across(&'static [&'static str]),
    /// TRIM, by the share of trimmed units the drive keeps: none up to x = 0 (`trim=on`), x
    /// times 100% between (`trim=partial`, `trim_keep`), all at x = 1 (`trim=off`). One
    /// coordinate, so partial TRIM lies between its neighbours: as a choice beside a share,
    /// it is reached only where both coordinates move together, and a search from `on`
    /// stops at `off`, the choice next to it.
    TrimKept,
}

/// A key the search may change.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    pub key: &'static str,
    pub reach: Reach,
    /// The measurement whose figures tell this key apart (its prefix, `power`); searched only
    /// when the loss has one. `None`: any test's figures depend on it.
    pub shows_in: Option<&'static str>,
}

const fn factor(key: &'static str, reach: f64) -> Param {
    Param {
        key,
        reach: Reach::Factor(reach),
        shows_in: None,
    }
}

const fn span(key: &'static str, lo: f64, hi: f64) -> Param {
    Param {
        key,
        reach: Reach::Span(lo, hi),
        shows_in: None,
    }
}

const fn choice(key: &'static str, values: &'static [&'static str]) -> Param {
    Param {
        key,
        reach: Reach::Choice(values),
        shows_in: None,
    }
}

const fn power(key: &'static str, reach: Reach) -> Param {
    Param {
        key,
        reach,
        shows_in: Some("power"),
    }
}

/// What `sim fit` searches unless told otherwise: the parallelism, NAND timings, controller
/// costs, spare area, buffers, GC style, policy and burstiness, pseudo-SLC cache, NAND page
/// (a start each, [`Reach::Outer`]) and cell (tried across, [`Reach::Across`]), TRIM style
/// and energy terms, the parameters the review suite's figures depend on.
pub const DEFAULT_PARAMS: &[Param] = &[
    factor("channels", 4.0),
    factor("dies", 4.0),
    factor("t_read", 4.0),
    factor("t_prog", 4.0),
    factor("t_erase", 4.0),
    factor("slc_t_prog", 4.0),
    factor("channel_mbps", 4.0),
    // A command's controller time: from today's NVMe controllers' microsecond to a light
    // SATA controller's 60 us a write (the Ultra Plus's 88SS9175).
    span("cmd_read", 1e3, 200e3),
    span("cmd_write", 1e3, 200e3),
    // 2% (a drive whose cache blocks come out of its spare) to 100% (an enterprise drive
    // over-provisioned by its user).
    span("op", 2.0, 100.0),
    factor("write_buffer", 8.0),
    Param {
        key: "slc_cache",
        reach: Reach::CacheShare,
        shows_in: None,
    },
    choice("gc_style", sim::GcStyle::NAMES),
    choice("gc", sim::GcPolicy::NAMES),
    // Firmware time per relocated unit (SanDisk's 16-22 us): what sets a steady state
    // whose GC the controller, not the NAND, paces.
    Param {
        key: "gc_unit",
        reach: Reach::FromZero(100e3),
        shows_in: None,
    },
    // How bursty GC is: what scatters a steady state's seconds (its p1, p99 and deciles).
    // A burst's blocks span more than a factor of any start's: two a die on a small drive,
    // over a hundred on the 840 Pro 256GB (0.6% of its free space).
    span("gc_burst", 2.0, 2048.0),
    span("gc_jitter", 1.0, 100.0),
    span("gc_burst_rate", 1.1, 10.0),
    // The NAND page: 8 KiB (2x nm MLC: the 840 Pro's, the S3700's) or 16 KiB (1x nm, 3D).
    Param {
        key: "page_size",
        reach: Reach::Outer(&["8KiB", "16KiB"]),
        shows_in: None,
    },
    // MLC or TLC NAND: TLC's three page types (LSB, CSB, MSB) program at three speeds, and a
    // pseudo-SLC block holds a third of its pages, not half. Tried across after each round,
    // its program times moved to keep their mean ([`Space::across`]).
    Param {
        key: "cell",
        reach: Reach::Across(CELLS),
        shows_in: None,
    },
    // Whole, partial (the 840 EVO's) or no TRIM: only the TRIM test tells it.
    Param {
        key: "trim",
        reach: Reach::TrimKept,
        shows_in: Some("trim"),
    },
    // The energy model's prices, fitted after the rest (`prices`): the idle floors from a
    // low-power client controller's to an enterprise one's, each told by its own figure;
    // the load terms by a factor, as today's drives draw several times 2013's.
    power("p_idle", Reach::Span(0.05, 5.0)),
    power("p_slumber", Reach::Span(0.002, 1.0)),
    power("p_active", Reach::Factor(8.0)),
    power("p_ctrl", Reach::Factor(8.0)),
    power("e_prog", Reach::Factor(8.0)),
    power("e_read", Reach::Factor(8.0)),
];

/// Keys `--params` may add that the default search leaves out, with the reach each needs.
/// The mechanisms (planes to the cache's write limit): with them the Ultra Plus's hidden
/// drive predicts every held-out figure, but the search, at the same budget in four more
/// coordinates, finds worse twins of drives without them (the S3700's held-out median 2.2%
/// to 29.1% at seed 1: BENCHMARKS #27). Then the keys of named choices (`trim`, `page_size`
/// and `cell` are in [`DEFAULT_PARAMS`], with `trim_keep`).
const MORE_PARAMS: &[Param] = &[
    // Planes a die programs at once (the Ultra Plus's light controller: one) and pages a
    // block: with the dies, the program stripe and the erase unit GC cleans, which the
    // transfer-size sweep and the consistency run's bursts show.
    choice("planes", &["1", "2", "4"]),
    choice("pages_per_block", &["64", "128", "192", "256", "384"]),
    // The mapping table's journal, programmed beside the host's data: a few percent of
    // extra writes (SanDisk keeps it in nCache).
    Param {
        key: "meta",
        reach: Reach::FromZero(5.0),
        shows_in: None,
    },
    // The cache's policy: which host writes it takes. SanDisk's nCache takes small writes
    // only (the sequential ones go straight to MLC); most caches take all (0, the end of
    // the list as the largest). The transfer-size sweep and the sequential tests tell it.
    choice("slc_max_write", &["16KiB", "32KiB", "64KiB", "128KiB", "0"]),
    choice("slc_region", sim::SlcRegion::NAMES),
    choice("slc_full", sim::SlcWhenFull::NAMES),
    choice("slc_drain", sim::SlcDrain::NAMES),
];

/// Why the keys a fit was asked to search, or told are known, are refused; Display names the
/// command line's flags, [`ParamError::named`] a face's own.
#[derive(Debug)]
pub enum ParamError {
    NotAKey(String),
    /// A key that is not a number, with the other keys a fit searches.
    NotNumeric(&'static str, String),
    /// A known key that is not KEY=VALUE.
    NotKeyValue(String),
    KnownAndSearched(String),
    /// The start the simulator refused.
    From(String, sim::SimError),
    /// A known key's value the simulator refused.
    Known(String, sim::SimError),
    Params(Box<ParamError>),
}

impl ParamError {
    /// The message, with the arguments it names said as `n` says them.
    pub fn named(&self, n: Naming) -> String {
        let (known, params) = (n.of(Arg::Known), n.of(Arg::Params));
        match self {
            ParamError::NotAKey(key) => format!(
                "'{key}' is not a key of the simulated drive (`ssdlab sim show default` lists them)"
            ),
            ParamError::NotNumeric(key, others) => format!(
                "{key} is not a numeric key: sim fit searches numbers and gc, gc_style, trim, \
                 page_size, {others}"
            ),
            ParamError::NotKeyValue(kv) => format!(
                "{}: give KEY=VALUE, as {}",
                n.with(Arg::Known, kv),
                n.with(Arg::Known, "page_size=8KiB,channels=8")
            ),
            ParamError::KnownAndSearched(key) => format!(
                "{key} is both {known} and in {params}: a key is known or searched, leave it out \
                 of one"
            ),
            ParamError::From(start, e) => format!("{}: {e}", n.with(Arg::From, start)),
            ParamError::Known(kv, e) => format!("{}: {e}", n.with(Arg::Known, kv)),
            ParamError::Params(e) => format!("{params}: {}", e.named(n)),
        }
    }
}

impl std::fmt::Display for ParamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.named(Naming::Flags))
    }
}

impl std::error::Error for ParamError {}

/// The parameter of `key` in [`DEFAULT_PARAMS`] or [`MORE_PARAMS`], or a factor-of-4 search
/// for another numeric key (a price only with power figures to fit).
pub fn param(key: &str) -> Result<Param, ParamError> {
    if let Some(p) = DEFAULT_PARAMS
        .iter()
        .chain(MORE_PARAMS)
        .find(|p| p.key == key)
    {
        return Ok(*p);
    }
    let key: &'static str = sim::KEYS
        .iter()
        .map(|k| k.name)
        .find(|k| *k == key)
        .ok_or_else(|| ParamError::NotAKey(key.to_string()))?;
    if !sim::preset::ranges().any(|r| r.key == key) {
        return Err(ParamError::NotNumeric(
            key,
            MORE_PARAMS
                .iter()
                .filter(|p| !sim::preset::ranges().any(|r| r.key == p.key))
                .map(|p| p.key)
                .collect::<Vec<_>>()
                .join(", "),
        ));
    }
    Ok(if super::prices::is_price(key) {
        power(key, Reach::Factor(4.0))
    } else {
        factor(key, 4.0)
    })
}

/// The keys a fit that was `asked` to search some and `searched` these left where its start
/// put them: those asked for that no fitted figure reads, and the mechanisms `--params` may
/// add; not the energy model's prices (they change no figure but watts, and the prices' fit
/// reports their range), nor default keys the fit was not asked to search (a narrow fit's
/// choice).
pub fn unsearched(asked: &[Param], searched: &[&str]) -> Vec<Param> {
    let mut keys: Vec<Param> = Vec::new();
    for p in asked.iter().chain(MORE_PARAMS) {
        let open = !searched.contains(&p.key) && !super::prices::is_price(p.key);
        if open && !keys.iter().any(|q| q.key == p.key) {
            keys.push(*p);
        }
    }
    keys
}

/// The parameters of `keys` ([`param`] each, `default` for [`DEFAULT_PARAMS`], each key once),
/// or [`DEFAULT_PARAMS`] when none are named.
pub fn params(keys: &[String]) -> Result<Vec<Param>, ParamError> {
    if keys.is_empty() {
        return Ok(DEFAULT_PARAMS.to_vec());
    }
    let mut params: Vec<Param> = Vec::new();
    for key in keys.iter().map(|k| k.trim()) {
        let more = match key {
            "default" => DEFAULT_PARAMS.to_vec(),
            _ => vec![param(key)?],
        };
        for p in more {
            if !params.iter().any(|q| q.key == p.key) {
                params.push(p);
            }
        }
    }
    Ok(params)
}

/// The start and the keys to search when `known` (KEY=VALUE each) states some of the drive's
/// hardware: each is set in the start `from` and left out of the search, the default one or
/// the keys `search` names (a key named in both is refused: it is either known or searched).
pub fn known(
    from: &str,
    search: &[String],
    known: &[String],
) -> Result<(String, Vec<Param>), ParamError> {
    let mut start = from.to_string();
    let mut keys = vec![];
    // The cell first: it resets the NAND timings, so a timing known beside it comes after.
    let mut known: Vec<&str> = known
        .iter()
        .map(|kv| kv.trim())
        .filter(|kv| !kv.is_empty())
        .collect();
    known.sort_by_key(|kv| !kv.starts_with("cell="));
    let program_known = known.iter().any(|kv| kv.starts_with("t_prog="));
    for kv in known {
        let (key, value) = kv
            .split_once('=')
            .ok_or_else(|| ParamError::NotKeyValue(kv.to_string()))?;
        let key = key.trim();
        if search.iter().any(|k| k.trim() == key) {
            return Err(ParamError::KnownAndSearched(key.to_string()));
        }
        let value = value.trim();
        let now = sim::resolve(&start).map_err(|e| ParamError::From(from.to_string(), e))?;
        let stated = sim::resolve(&format!("{start},{key}={value}"))
            .map_err(|e| ParamError::Known(kv.to_string(), e))?;
        // A value the start has already is not restated: `cell` would reset the NAND
        // timings (default's MLC LSB/MSB pages to one uniform time).
        let value_of = |cfg: &sim::Config| super::reference::values_of(cfg).get(key).cloned();
        if value_of(&now) != value_of(&stated) {
            start.push_str(&format!(",{key}={value}"));
            if key == "cell" && !program_known {
                start.push_str(&format!(",t_prog={}", page_types_kept(&now, &stated)));
            }
        }
        keys.push(key.to_string());
    }
    let params = params(search).map_err(|e| ParamError::Params(Box::new(e)))?;
    Ok((
        start,
        params
            .into_iter()
            .filter(|p| !keys.iter().any(|k| k == p.key))
            .collect(),
    ))
}

/// The program times of `now`'s page types, in those of `stated`'s cell ([`page_types`]) at
/// the mean `stated` resets them to: a known cell gives the start its speed, not one uniform
/// time, which the search (it scales every page type alike) could never part (the 840 EVO's
/// 900 us/1.7 ms/3 ms from `default,cell=tlc`'s 2 ms).
fn page_types_kept(now: &sim::Config, stated: &sim::Config) -> String {
    let times: Vec<f64> = now
        .native
        .program
        .times()
        .iter()
        .map(|&t| t as f64)
        .collect();
    let shape = page_types(&times, stated.cell.bits() as usize);
    let scale = stated.native.program.mean() as f64 / mean(&shape);
    let kept: Vec<f64> = shape.iter().map(|t| t * scale).collect();
    sim::preset::spec_text("t_prog", &kept)
}

/// One searched key with its start.
#[derive(Clone, Debug)]
struct Dimension {
    param: Param,
    /// The start's numbers (one per page type of `t_prog`), or its choice.
    start: Start,
}

#[derive(Clone, Debug)]
enum Start {
    Numbers(Vec<f64>),
    /// The program times as each cell of [`CELLS`] has them ([`page_types`]), where the cell
    /// is searched: which the drive takes is its cell's.
    PerCell(Vec<Vec<f64>>),
    Choice(usize),
}

/// The keys searched, each with its start: a point of [-1, 1]^n names a drive.
#[derive(Clone, Debug)]
pub struct Space {
    dims: Vec<Dimension>,
    /// The coordinate of the NAND cell, where it is searched ([`Reach::Across`]).
    cell: Option<usize>,
    capacity_bytes: f64,
    /// Keys asked for but not searched, and why.
    pub left_out: Vec<String>,
}

impl Space {
    /// The space of `params` around `start`'s resolved values (`key -> value` as a spec
    /// writes it); `prefixes` are the measurements the loss reads.
    pub fn new(
        params: &[Param],
        start: &BTreeMap<String, String>,
        capacity_bytes: u64,
        prefixes: &[&str],
    ) -> Space {
        let mut dims = Vec::new();
        let mut left_out = Vec::new();
        for &param in params {
            if let Some(p) = param.shows_in.filter(|p| !prefixes.contains(p)) {
                left_out.push(format!("{}: no {p} figure to fit", param.key));
                continue;
            }
            let Some(text) = start.get(param.key) else {
                left_out.push(format!("{}: the start drive does not set it", param.key));
                continue;
            };
            let start = match param.reach {
                Reach::TrimKept => match trim_kept(text, start.get("trim_keep")) {
                    Ok(kept) => Start::Numbers(vec![kept]),
                    Err(why) => {
                        left_out.push(format!("{}: {why}", param.key));
                        continue;
                    }
                },
                Reach::Choice(values) | Reach::Outer(values) | Reach::Across(values) => {
                    match values.iter().position(|v| v == text) {
                        Some(i) => Start::Choice(i),
                        None => {
                            left_out.push(format!("{}: starts at {text}, not a choice", param.key));
                            continue;
                        }
                    }
                }
                _ => match sim::preset::quantities(param.key, text) {
                    Ok(n)
                        if matches!(param.reach, Reach::CacheShare | Reach::Span(..))
                            || n.iter().all(|&x| x > 0.0) =>
                    {
                        Start::Numbers(n)
                    }
                    Ok(n) => match own_top(param.reach).or_else(|| zero_range_top(param.key)) {
                        Some(top) if n.iter().all(|&x| x == 0.0) => {
                            dims.push(Dimension {
                                param: Param {
                                    reach: Reach::FromZero(top),
                                    ..param
                                },
                                start: Start::Numbers(n),
                            });
                            continue;
                        }
                        _ => {
                            left_out
                                .push(format!("{}: starts at 0, which no factor moves", param.key));
                            continue;
                        }
                    },
                    Err(e) => {
                        left_out.push(format!("{}: {e}", param.key));
                        continue;
                    }
                },
            };
            dims.push(Dimension { param, start });
        }
        let cell = dims.iter().position(|d| d.param.key == "cell");
        if cell.is_some() {
            for d in dims.iter_mut().filter(|d| d.param.key == "t_prog") {
                if let Start::Numbers(times) = &d.start {
                    d.start = Start::PerCell(
                        CELLS
                            .iter()
                            .map(|c| page_types(times, cell_bits(c)))
                            .collect(),
                    );
                }
            }
        }
        Space {
            dims,
            cell,
            capacity_bytes: capacity_bytes as f64,
            left_out,
        }
    }

    pub fn len(&self) -> usize {
        self.dims.len()
    }

    pub fn is_empty(&self) -> bool {
        self.dims.is_empty()
    }

    /// The keys searched, in coordinate order.
    pub fn keys(&self) -> Vec<&'static str> {
        self.dims.iter().map(|d| d.param.key).collect()
    }

    /// The start's coordinates.
    pub fn origin(&self) -> Vec<f64> {
        self.dims
            .iter()
            .map(|d| match (&d.start, d.param.reach) {
                (
                    Start::Choice(i),
                    Reach::Choice(values) | Reach::Outer(values) | Reach::Across(values),
                ) => choice_coordinate(*i, values.len()),
                (Start::Numbers(n), Reach::CacheShare) => self.cache_coordinate(n[0]),
                (Start::Numbers(n), Reach::Span(lo, hi)) => span_coordinate(n[0], lo, hi),
                (Start::Numbers(n), Reach::FromZero(top)) => (n[0] / top).clamp(0.0, 1.0),
                (Start::Numbers(n), Reach::TrimKept) => n[0] / 100.0,
                _ => 0.0,
            })
            .collect()
    }

    /// Which coordinates the search holds where its start put them ([`Reach::Outer`]).
    pub fn held(&self) -> Vec<bool> {
        self.dims
            .iter()
            .map(|d| matches!(d.param.reach, Reach::Outer(_) | Reach::Across(_)))
            .collect()
    }

    /// Which coordinates move their key smoothly, so a derivative reads them ([`super::polish`]):
    /// not a choice, nor a count (channels, dies, GC burst blocks), which moves in steps.
    pub fn smooth(&self) -> Vec<bool> {
        self.dims
            .iter()
            .map(|d| {
                let counted = sim::preset::ranges()
                    .any(|r| r.key == d.param.key && r.quantity == sim::Quantity::Count);
                !counted
                    && !matches!(
                        d.param.reach,
                        Reach::Choice(_) | Reach::Outer(_) | Reach::Across(_)
                    )
            })
            .collect()
    }

    /// The starts around `x`: `x` itself, then `x` with each other combination of the outer
    /// choices' values, in their order, and, where `x` has no pseudo-SLC cache, each of those
    /// with a cache of [`CACHE_START`]. The loss is flat where the cache is none, so a search
    /// that starts there never finds one: the 840 EVO mSATA's twin, without its 3 GiB cache,
    /// made up for it with faster NAND and predicted its held-out figures 67.8% off
    /// (BENCHMARKS #27).
    pub fn starts(&self, x: &[f64]) -> Vec<Vec<f64>> {
        let mut starts = vec![x.to_vec()];
        for (i, d) in self.dims.iter().enumerate() {
            let others: Vec<f64> = match d.param.reach {
                Reach::Outer(values) => (0..values.len())
                    .map(|v| choice_coordinate(v, values.len()))
                    .filter(|&c| c != x[i])
                    .collect(),
                Reach::CacheShare if x[i] < CACHE_NONE => {
                    vec![share_coordinate(CACHE_START)]
                }
                _ => continue,
            };
            let with_others: Vec<Vec<f64>> = starts
                .iter()
                .flat_map(|s| {
                    others.iter().map(move |&c| {
                        let mut s = s.clone();
                        s[i] = c;
                        s
                    })
                })
                .collect();
            starts.extend(with_others);
        }
        starts
    }

    /// The drives a fit tries after each round beside its best, `x`, where the search cannot
    /// walk: its cache the other way ([`Space::other_cache`]) and its other cells, each with
    /// program times of the same mean (what a long sequential write runs at) in that cell's
    /// page types.
    pub fn across(&self, x: &[f64]) -> Vec<Vec<f64>> {
        let mut across: Vec<Vec<f64>> = self.other_cache(x).into_iter().collect();
        let Some(c) = self.cell else {
            return across;
        };
        let now = self.cell_at(x);
        let program =
            self.dims
                .iter()
                .enumerate()
                .find_map(|(i, d)| match (&d.start, d.param.reach) {
                    (Start::PerCell(starts), Reach::Factor(reach)) => Some((i, starts, reach)),
                    _ => None,
                });
        for other in (0..CELLS.len()).filter(|&o| o != now) {
            let mut y = x.to_vec();
            y[c] = choice_coordinate(other, CELLS.len());
            if let Some((i, starts, reach)) = program {
                let shift = (mean(&starts[now]) / mean(&starts[other])).ln() / reach.ln();
                y[i] = (x[i] + shift).clamp(-1.0, 1.0);
            }
            across.push(y);
        }
        across
    }

    /// Which of [`CELLS`] the drive at `x` has (the start's where the cell is not searched,
    /// only read when it is).
    fn cell_at(&self, x: &[f64]) -> usize {
        self.cell
            .map_or(0, |c| choice_index(x[c].clamp(-1.0, 1.0), CELLS.len()))
    }

    /// `x` with its cache the other way: none where it has one, [`CACHE_START`] where it has
    /// none; nothing where the cache is not searched. A search cannot walk from a cache to
    /// none (the loss is flat there, and a cached twin's other keys are fitted around its
    /// cache), so a fit tries the other way at full length: the S3700's twin, with a 1.9 GiB
    /// cache the drive lacks, fitted 0.114; the same drive without it, 0.083 (BENCHMARKS #27).
    fn other_cache(&self, x: &[f64]) -> Option<Vec<f64>> {
        let i = self
            .dims
            .iter()
            .position(|d| matches!(d.param.reach, Reach::CacheShare))?;
        let mut other = x.to_vec();
        other[i] = if x[i] < CACHE_NONE {
            share_coordinate(CACHE_START)
        } else {
            self.cache_coordinate(0.0)
        };
        Some(other)
    }

    /// What tells the start `x` from the others ([`Space::starts`]): its outer choices' values
    /// ([`Reach::Outer`]) and, where the start has no cache, its cache.
    pub fn start_keys(&self, x: &[f64]) -> Vec<(String, String)> {
        let origin = self.origin();
        let overrides = self.overrides(x);
        self.dims
            .iter()
            .enumerate()
            .filter(|(i, d)| match d.param.reach {
                Reach::Outer(_) => true,
                Reach::CacheShare => origin[*i] < CACHE_NONE,
                _ => false,
            })
            .filter_map(|(_, d)| overrides.iter().find(|(k, _)| k == d.param.key).cloned())
            .collect()
    }

    /// What tells the drives across one another apart ([`Space::across`]): its cell and
    /// its cache.
    pub fn across_keys(&self, x: &[f64]) -> Vec<(String, String)> {
        let values = self.values(x);
        self.dims
            .iter()
            .filter(|d| matches!(d.param.reach, Reach::Across(_) | Reach::CacheShare))
            .filter_map(|d| values.iter().find(|(k, _)| k == d.param.key).cloned())
            .collect()
    }

    /// The drive at `x` as `key=value` overrides of the start: its [`Space::values`] but a
    /// cell that is the start's, which restated would reset the NAND keys it implies that are
    /// not searched to the cell's defaults.
    pub fn overrides(&self, x: &[f64]) -> Vec<(String, String)> {
        let mut values = self.values(x);
        if let Some(c) = self.cell {
            if let Start::Choice(start) = self.dims[c].start {
                values.retain(|(k, v)| k != "cell" || v != CELLS[start]);
            }
        }
        values
    }

    /// Each searched key's value at `x`, one per key but TRIM's two (coordinates beyond
    /// [-1, 1] are held at the edge).
    pub fn values(&self, x: &[f64]) -> Vec<(String, String)> {
        let cell = self.cell_at(x);
        self.dims
            .iter()
            .zip(x)
            .flat_map(|(d, &x)| {
                let x = x.clamp(-1.0, 1.0);
                let key = d.param.key;
                let value = match (&d.start, d.param.reach) {
                    (_, Reach::Choice(values) | Reach::Outer(values) | Reach::Across(values)) => {
                        values[choice_index(x, values.len())].to_string()
                    }
                    (_, Reach::CacheShare) => {
                        let share = if x < CACHE_NONE {
                            0.0
                        } else {
                            CACHE_MIN
                                * (CACHE_MAX / CACHE_MIN)
                                    .powf((x - CACHE_NONE) / (1.0 - CACHE_NONE))
                        };
                        // Whole mebibytes: a cache is never a few odd bytes.
                        let bytes = (share * self.capacity_bytes / MIB).round() * MIB;
                        sim::preset::spec_text(key, &[bytes])
                    }
                    (Start::Numbers(n), Reach::Factor(reach)) => {
                        let scaled: Vec<f64> = n.iter().map(|v| v * reach.powf(x)).collect();
                        sim::preset::spec_text(key, &scaled)
                    }
                    (Start::PerCell(starts), Reach::Factor(reach)) => {
                        let scaled: Vec<f64> =
                            starts[cell].iter().map(|v| v * reach.powf(x)).collect();
                        sim::preset::spec_text(key, &scaled)
                    }
                    (_, Reach::Span(lo, hi)) => {
                        sim::preset::spec_text(key, &[lo * (hi / lo).powf((x + 1.0) / 2.0)])
                    }
                    (_, Reach::FromZero(top)) => sim::preset::spec_text(key, &[x.max(0.0) * top]),
                    (_, Reach::TrimKept) => return trim_overrides(x),
                    (Start::Choice(_), Reach::Factor(_)) => {
                        unreachable!("a factor starts at numbers")
                    }
                };
                vec![(key.to_string(), value)]
            })
            .collect()
    }

    /// Each key's other values within its reach, as overrides of the start: every other
    /// choice, a number's ends (none and the most for a cache or a key starting at 0), and
    /// TRIM whole, half kept and ignored.
    pub fn others(&self) -> Vec<Vec<(String, String)>> {
        let origin = self.origin();
        let mut all = Vec::new();
        for (i, d) in self.dims.iter().enumerate() {
            let coordinates: Vec<f64> = match d.param.reach {
                Reach::Choice(values) | Reach::Outer(values) | Reach::Across(values) => (0..values
                    .len())
                    .map(|v| choice_coordinate(v, values.len()))
                    .collect(),
                Reach::TrimKept => vec![0.0, 0.5, 1.0],
                Reach::FromZero(_) => vec![0.0, 1.0],
                Reach::Factor(_) | Reach::Span(..) | Reach::CacheShare => vec![-1.0, 1.0],
            };
            let at = |c: f64| {
                let mut x = origin.clone();
                x[i] = c;
                self.overrides(&x)
            };
            let start = at(origin[i]);
            for c in coordinates {
                let moved: Vec<(String, String)> =
                    at(c).into_iter().filter(|kv| !start.contains(kv)).collect();
                if !moved.is_empty() && !all.contains(&moved) {
                    all.push(moved);
                }
            }
        }
        all
    }

    /// Why no point of the space sets `key` to `value` (as a spec writes it), or `None` when
    /// one does or the key is not searched. A reference beyond the space is no drive the
    /// search could have found: the 840 Pro's GC bursts as a share of its free space, where
    /// the space counts blocks.
    pub fn beyond(&self, key: &str, value: &str) -> Option<String> {
        let d = self.dims.iter().find(|d| d.param.key == key)?;
        let numbers = match (&d.start, d.param.reach) {
            (_, Reach::Choice(values) | Reach::Outer(values) | Reach::Across(values)) => {
                return (!values.contains(&value))
                    .then(|| format!("the space chooses from {}", values.join(", ")));
            }
            (_, Reach::TrimKept) => return trim_kept(value, None).err().map(|e| e.to_string()),
            (Start::Choice(_), _) => return None,
            (Start::Numbers(start), _) => (start, sim::preset::quantities(key, value)),
            // The start of the cell with as many page types as the value has.
            (Start::PerCell(starts), _) => {
                let n = sim::preset::quantities(key, value);
                let len = n.as_ref().map_or(0, Vec::len);
                let own = &starts[self.cell_at(&self.origin())];
                (starts.iter().find(|s| s.len() == len).unwrap_or(own), n)
            }
        };
        let text = |x: f64| sim::preset::spec_text(key, &[x]);
        let (start, n) = match numbers {
            (start, Ok(n)) if !n.is_empty() => (start, n),
            _ => {
                return Some(match d.param.reach {
                    Reach::Span(lo, hi) => format!(
                        "not a value the space moves: it searches {key} from {} to {}",
                        text(lo),
                        text(hi)
                    ),
                    _ => format!("not a value the space moves: it searches {key} as a number"),
                })
            }
        };
        // Ends a rounded value may sit on (spec texts keep four digits).
        let within = |x: f64, lo: f64, hi: f64| x >= lo * (1.0 - 1e-3) && x <= hi * (1.0 + 1e-3);
        match d.param.reach {
            Reach::Factor(reach) => {
                let ratios: Vec<f64> = n.iter().zip(start).map(|(v, s)| v / s).collect();
                let (lo, hi) = ratios
                    .iter()
                    .fold((f64::MAX, 0.0f64), |(lo, hi), &r| (lo.min(r), hi.max(r)));
                if n.len() != start.len() || hi > lo * (1.0 + 1e-2) {
                    Some(format!(
                        "not in the start's proportions ({}), which the space scales alike",
                        sim::preset::spec_text(key, start)
                    ))
                } else if !within(lo, 1.0 / reach, reach) {
                    Some(format!(
                        "{lo:.2} times the start's ({}), beyond the factor of {reach} searched",
                        sim::preset::spec_text(key, start)
                    ))
                } else {
                    None
                }
            }
            Reach::Span(lo, hi) => (!within(n[0], lo, hi))
                .then(|| format!("the space searches {key} from {} to {}", text(lo), text(hi))),
            Reach::FromZero(top) => (!within(n[0], 0.0, top))
                .then(|| format!("the space searches {key} from 0 to {}", text(top))),
            Reach::CacheShare => {
                let share = n[0] / self.capacity_bytes.max(1.0);
                (share > 0.0 && !within(share, CACHE_MIN, CACHE_MAX)).then(|| {
                    format!(
                        "{:.2}% of the capacity: the space searches none or {}% to {}%",
                        share * 100.0,
                        CACHE_MIN * 100.0,
                        CACHE_MAX * 100.0
                    )
                })
            }
            Reach::Choice(_) | Reach::Outer(_) | Reach::Across(_) | Reach::TrimKept => None,
        }
    }

    /// Where a cache of `bytes` sits on the cache coordinate.
    fn cache_coordinate(&self, bytes: f64) -> f64 {
        let share = bytes / self.capacity_bytes.max(1.0);
        if share <= 0.0 {
            return (CACHE_NONE - 1.0) / 2.0;
        }
        share_coordinate(share)
    }
}

/// Where a cache of `share` of the capacity sits on the cache coordinate, held within the
/// shares searched.
fn share_coordinate(share: f64) -> f64 {
    let share = share.clamp(CACHE_MIN, CACHE_MAX);
    CACHE_NONE + (1.0 - CACHE_NONE) * (share / CACHE_MIN).ln() / (CACHE_MAX / CACHE_MIN).ln()
}

/// Why a drive's TRIM is no point of the line [`Reach::TrimKept`] searches.
#[derive(Debug, thiserror::Error)]
enum TrimLineError {
    #[error("{0}")]
    Keep(#[from] sim::KeyError),
    #[error("starts at {0}, which is not on the line from on through partial to off")]
    OffTheLine(String),
}

/// The share of trimmed units a drive keeps, in percent, for its `trim` and `trim_keep`.
fn trim_kept(trim: &str, keep: Option<&String>) -> Result<f64, TrimLineError> {
    match sim::TrimStyle::parse(trim) {
        Some(sim::TrimStyle::Immediate) => Ok(0.0),
        Some(sim::TrimStyle::Ignored) => Ok(100.0),
        Some(sim::TrimStyle::Partial) => {
            let keep = keep.map_or("0%", |k| k.as_str());
            let kept = sim::preset::quantities("trim_keep", keep)?;
            Ok(kept.first().copied().unwrap_or(0.0).clamp(0.0, 100.0))
        }
        _ => Err(TrimLineError::OffTheLine(trim.to_string())),
    }
}

/// `trim` and `trim_keep` at `x` of [`Reach::TrimKept`].
fn trim_overrides(x: f64) -> Vec<(String, String)> {
    let kept = x.clamp(0.0, 1.0) * 100.0;
    let style = match kept {
        k if k <= 0.0 => "on",
        k if k >= 100.0 => "off",
        _ => "partial",
    };
    let keep = if style == "partial" { kept } else { 0.0 };
    vec![
        ("trim".to_string(), style.to_string()),
        (
            "trim_keep".to_string(),
            sim::preset::spec_text("trim_keep", &[keep]),
        ),
    ]
}

/// The NAND cells searched ([`Reach::Across`]): SLC drives hold no pseudo-SLC cache and
/// are another search's.
const CELLS: &[&str] = &["mlc", "tlc"];

/// Bits a cell of `name` holds: its page types.
fn cell_bits(name: &str) -> usize {
    sim::CellType::parse(name).map_or(1, |c| c.bits() as usize)
}

/// Program times `times` as a cell with `kinds` page types has them: one uniform time stays
/// one, the fastest and slowest pages are kept, and TLC's middle page (CSB) programs at their
/// geometric mean (the 840 EVO's 900 us/1.7 ms/3 ms: 1.64 ms).
fn page_types(times: &[f64], kinds: usize) -> Vec<f64> {
    let (fast, slow) = (times[0], times[times.len() - 1]);
    match kinds {
        _ if times.len() == 1 || times.len() == kinds => times.to_vec(),
        2 => vec![fast, slow],
        3 => vec![fast, (fast * slow).sqrt(), slow],
        _ => times.to_vec(),
    }
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

/// The coordinate of the `i`th of `n` choices: the middle of its share of [-1, 1].
fn choice_coordinate(i: usize, n: usize) -> f64 {
    2.0 * (i as f64 + 0.5) / n as f64 - 1.0
}

/// Which of `n` choices the coordinate `x` falls on.
fn choice_index(x: f64, n: usize) -> usize {
    (((x.clamp(-1.0, 1.0) + 1.0) / 2.0 * n as f64) as usize).min(n - 1)
}

/// Where `value` sits on a log span from `lo` to `hi`, held at its ends.
fn span_coordinate(value: f64, lo: f64, hi: f64) -> f64 {
    2.0 * (value.clamp(lo, hi) / lo).ln() / (hi / lo).ln() - 1.0
}

/// The top a key starting at 0 rises to, where its parameter says.
fn own_top(reach: Reach) -> Option<f64> {
    match reach {
        Reach::FromZero(top) => Some(top),
        _ => None,
    }
}

/// The top of `key`'s range when the range starts at 0 (a share, a threshold that may be
/// off): how far a key starting at 0 is searched.
fn zero_range_top(key: &str) -> Option<f64> {
    sim::preset::ranges()
        .find(|r| r.key == key && r.min == 0.0 && r.max.is_finite())
        .map(|r| r.max)
}

const MIB: f64 = 1024.0 * 1024.0;
/// The smallest and largest pseudo-SLC cache searched, as shares of the capacity: real
/// drives span a few hundred MiB (a fixed nCache) to a third of a TLC drive (dynamic).
const CACHE_MIN: f64 = 0.001;
const CACHE_MAX: f64 = 0.25;
/// Below this cache coordinate the drive has no cache.
const CACHE_NONE: f64 = -0.8;
/// The cache of the search's start with one ([`Space::starts`]), as a share of the capacity:
/// between the reviews' drives' (SanDisk's 1 GiB nCache: 0.4%; the 840 EVO's 3 GiB: 1.2%),
/// and a few of the search's steps from a dynamic TLC cache's tenth or more.
const CACHE_START: f64 = 0.01;

#[cfg(test)]
mod tests {
    use super::*;

    fn start() -> BTreeMap<String, String> {
        [
            ("t_prog", "600us/2ms"),
            ("gc_style", "bursty"),
            ("slc_cache", "0"),
            ("op", "7%"),
            ("p_idle", "0.3W"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
    }

    #[test]
    fn the_origin_is_the_start() {
        let space = Space::new(DEFAULT_PARAMS, &start(), 256 << 30, &["consistency"]);
        assert_eq!(space.keys(), ["t_prog", "op", "slc_cache", "gc_style"]);
        let o = space.overrides(&space.origin());
        assert_eq!(o[0].1, "600000ns/2000000ns");
        assert_eq!(o[1].1, "7%");
        assert_eq!(o[2].1, "0");
        assert_eq!(o[3].1, "bursty");
        assert!(space
            .left_out
            .iter()
            .any(|l| l.starts_with("p_idle: no power")));
    }

    #[test]
    fn a_coordinate_moves_its_key_by_its_reach() {
        let space = Space::new(DEFAULT_PARAMS, &start(), 256 << 30, &[]);
        let o = space.overrides(&[1.0, -1.0, 1.0, -1.0]);
        assert_eq!(o[0].1, "2400000ns/8000000ns");
        assert_eq!(
            o[1].1, "2%",
            "the spare area spans real drives', not a factor of 7%"
        );
        assert_eq!(space.overrides(&[0.0, 1.0, 0.0, 0.0])[1].1, "100%");
        assert_eq!(o[2].1, (64u64 << 30).to_string());
        assert_eq!(o[3].1, "paced");
    }

    #[test]
    fn params_add_mechanisms_with_their_own_reach() {
        let at = |key: &str, value: &str| {
            let start: BTreeMap<String, String> = [(key.to_string(), value.to_string())].into();
            Space::new(&[param(key).unwrap()], &start, 256 << 30, &[])
        };
        // Not searched unless asked for.
        assert!(!DEFAULT_PARAMS.iter().any(|p| p.key == "slc_max_write"));
        let space = at("slc_max_write", "0");
        assert_eq!(space.keys(), ["slc_max_write"]);
        assert_eq!(space.overrides(&space.origin())[0].1, "0");
        // From a cache taking every write, the small writes SanDisk's nCache takes: a
        // choice, where a factor of 0 stays 0 and a rise from 0 takes almost none.
        assert_eq!(space.overrides(&[0.5])[0].1, "128KiB");
        assert_eq!(space.overrides(&[-1.0])[0].1, "16KiB");
        let space = at("slc_max_write", "64KiB");
        assert_eq!(space.overrides(&space.origin())[0].1, "64KiB");
        let space = at("meta", "0%");
        assert_eq!(space.overrides(&space.origin())[0].1, "0%");
        assert_eq!(
            space.overrides(&[0.2])[0].1,
            "1%",
            "a journal of a few percent"
        );
        let space = at("planes", "2");
        assert_eq!(space.overrides(&[-1.0])[0].1, "1");
        // `default` names the default search, which a mechanism adds to, each key once.
        let keys = |list: &[&str]| {
            let list: Vec<String> = list.iter().map(|k| k.to_string()).collect();
            params(&list)
                .unwrap()
                .iter()
                .map(|p| p.key)
                .collect::<Vec<_>>()
        };
        let more = keys(&["default", "planes", "dies"]);
        assert_eq!(more.len(), DEFAULT_PARAMS.len() + 1);
        assert_eq!(more.last(), Some(&"planes"));
        assert_eq!(keys(&["planes", "default"])[0], "planes");
    }

    #[test]
    fn every_key_searched_is_a_key_of_the_drive_and_every_value_one_it_takes() {
        for p in DEFAULT_PARAMS.iter().chain(MORE_PARAMS) {
            assert!(
                sim::KEYS.iter().any(|k| k.name == p.key),
                "{} is no sim key",
                p.key
            );
            let values = match p.reach {
                Reach::Choice(v) | Reach::Outer(v) | Reach::Across(v) => v,
                _ => continue,
            };
            for v in values {
                let spec = format!("default,{}={v}", p.key);
                assert!(sim::resolve(&spec).is_ok(), "{spec} does not resolve");
            }
        }
    }

    #[test]
    fn params_may_add_keys_of_named_choices_but_not_other_words() {
        let space = Space::new(
            &[param("slc_full").unwrap()],
            &[("slc_full".to_string(), "bypass".to_string())].into(),
            256 << 30,
            &[],
        );
        assert_eq!(space.keys(), ["slc_full"], "{:?}", space.left_out);
        let ends: Vec<String> = [-1.0, 1.0]
            .iter()
            .map(|&x| space.overrides(&[x])[0].1.clone())
            .collect();
        assert!(ends
            .iter()
            .all(|v| sim::SlcWhenFull::NAMES.contains(&v.as_str())));
        assert_ne!(ends[0], ends[1]);
        let err = param("link").unwrap_err().to_string();
        assert!(err.contains("slc_region"), "{err}");
    }

    #[test]
    fn known_hardware_is_set_in_the_start_and_never_searched() {
        let known = |search: &[&str], facts: &[&str]| {
            let s: Vec<String> = search.iter().map(|k| k.to_string()).collect();
            let f: Vec<String> = facts.iter().map(|k| k.to_string()).collect();
            super::known("default", &s, &f)
        };
        let (from, params) = known(&[], &["page_size=8KiB", " channels=8", "cell=mlc"]).unwrap();
        // The start's own cell is not restated: it would reset its MLC's two program times.
        assert_eq!(from, "default,page_size=8KiB,channels=8");
        // Another cell keeps the start's page types, in that cell's, at its mean: default's
        // MLC 650 us/1.95 ms (1:3) as TLC's three at 2 ms, the mean `cell=tlc` resets to.
        let (tlc, _) = known(&[], &["cell=tlc"]).unwrap();
        let t_prog = tlc.strip_prefix("default,cell=tlc,t_prog=").expect(&tlc);
        let times = sim::preset::quantities("t_prog", t_prog).unwrap();
        let [lsb, csb, msb] = times[..] else {
            panic!("{tlc}")
        };
        assert!((msb / lsb - 3.0).abs() < 1e-3 && (csb * csb / (lsb * msb) - 1.0).abs() < 1e-3);
        assert!(((lsb + csb + msb) / 3.0 - 2e6).abs() < 2.0, "{tlc}");
        // A program time known beside the cell is the drive's, whatever the order.
        let (given, _) = known(&[], &["t_prog=1ms", "cell=tlc"]).unwrap();
        assert_eq!(given, "default,cell=tlc,t_prog=1ms");
        let keys: Vec<&str> = params.iter().map(|p| p.key).collect();
        assert!(["page_size", "channels", "cell"]
            .iter()
            .all(|k| !keys.contains(k)));
        assert_eq!(keys.len(), DEFAULT_PARAMS.len() - 3);
        assert!(keys.contains(&"dies"));
        // Named keys less the known ones; a key both known and named is refused.
        let (_, params) = known(&["dies", "op"], &["channels=8"]).unwrap();
        assert_eq!(
            params.iter().map(|p| p.key).collect::<Vec<_>>(),
            ["dies", "op"]
        );
        let both = known(&["channels"], &["channels=8"])
            .unwrap_err()
            .to_string();
        assert!(both.contains("known or searched"), "{both}");
        let e = known(&[], &["channels"]).unwrap_err().to_string();
        assert!(e.contains("KEY=VALUE"), "{e}");
        let bad = known(&[], &["channels=many"]).unwrap_err().to_string();
        assert!(
            bad.starts_with("--known") && bad.contains("channels"),
            "{bad}"
        );
    }

    #[test]
    fn the_nand_page_is_a_start_the_search_holds() {
        let mut at = start();
        at.insert("page_size".into(), "16KiB".into());
        // With a cache, the page's are the only starts.
        at.insert("slc_cache".into(), "1GiB".into());
        let space = Space::new(DEFAULT_PARAMS, &at, 256 << 30, &["consistency"]);
        let page = space.keys().iter().position(|k| *k == "page_size").unwrap();
        let held = space.held();
        assert_eq!(held.iter().filter(|h| **h).count(), 1);
        assert!(held[page]);
        let starts = space.starts(&space.origin());
        assert_eq!(starts[0], space.origin());
        let pages: Vec<String> = starts
            .iter()
            .map(|x| space.overrides(x)[page].1.clone())
            .collect();
        assert_eq!(pages, ["16KiB", "8KiB"]);
        assert_eq!(
            space.start_keys(&starts[1]),
            [("page_size".to_string(), "8KiB".to_string())]
        );
        // Only the page differs between the starts.
        for (i, (a, b)) in starts[0].iter().zip(&starts[1]).enumerate() {
            assert_eq!(a == b, i != page);
        }
        // A page the choices do not hold is the start's own, not searched.
        at.insert("page_size".into(), "4KiB".into());
        let space = Space::new(DEFAULT_PARAMS, &at, 256 << 30, &["consistency"]);
        assert!(!space.keys().contains(&"page_size"));
        assert_eq!(space.starts(&space.origin()).len(), 1);
    }

    #[test]
    fn the_cache_is_tried_both_ways_from_a_start_and_from_a_twin() {
        let capacity = 256u64 << 30;
        let cache_of = |space: &Space, x: &[f64]| {
            let overrides = space.overrides(x);
            let (_, cache) = overrides.iter().find(|(k, _)| k == "slc_cache").unwrap();
            sim::preset::quantities("slc_cache", cache).unwrap()[0]
        };
        let space = Space::new(DEFAULT_PARAMS, &start(), capacity, &["consistency"]);
        let starts = space.starts(&space.origin());
        assert_eq!(starts.len(), 2);
        assert_eq!(cache_of(&space, &starts[0]), 0.0);
        let share = cache_of(&space, &starts[1]) / capacity as f64;
        assert!((share - CACHE_START).abs() < 1e-3, "{share}");
        assert_eq!(
            space.start_keys(&starts[0]),
            [("slc_cache".to_string(), "0".to_string())]
        );
        // The search moves the cache on from there: it is no held coordinate.
        assert!(space.held().iter().all(|h| !h));
        // A start with a cache is searched from its own alone.
        let mut cached = start();
        cached.insert("slc_cache".into(), "3GiB".into());
        let space = Space::new(DEFAULT_PARAMS, &cached, capacity, &["consistency"]);
        let starts = space.starts(&space.origin());
        assert_eq!(starts.len(), 1);
        assert_eq!(cache_of(&space, &starts[0]), 3.0 * (1u64 << 30) as f64);
        // With the page's two, four starts: each page without and with a cache.
        let mut paged = start();
        paged.insert("page_size".into(), "16KiB".into());
        let space = Space::new(DEFAULT_PARAMS, &paged, capacity, &["consistency"]);
        let caches: Vec<bool> = space
            .starts(&space.origin())
            .iter()
            .map(|x| cache_of(&space, x) > 0.0)
            .collect();
        assert_eq!(caches, [false, true, false, true]);
        // Across: a cached drive without its cache, a cacheless one with the start's, the
        // other coordinates kept; a space that does not search the cache has no across.
        let space = Space::new(DEFAULT_PARAMS, &cached, capacity, &["consistency"]);
        let x = space.origin();
        let none = space.other_cache(&x).unwrap();
        assert_eq!(cache_of(&space, &none), 0.0);
        let back = space.other_cache(&none).unwrap();
        let share = cache_of(&space, &back) / capacity as f64;
        assert!((share - CACHE_START).abs() < 1e-3, "{share}");
        let moved = |a: &[f64], b: &[f64]| a.iter().zip(b).filter(|(p, q)| p != q).count();
        assert_eq!((moved(&x, &none), moved(&none, &back)), (1, 1));
        let uncached: Vec<Param> = DEFAULT_PARAMS
            .iter()
            .filter(|p| p.key != "slc_cache")
            .copied()
            .collect();
        let space = Space::new(&uncached, &cached, capacity, &["consistency"]);
        assert_eq!(space.other_cache(&space.origin()), None);
    }

    #[test]
    fn the_cell_is_tried_across_with_its_page_types_at_the_same_mean() {
        let mut mlc = start();
        mlc.insert("cell".into(), "mlc".into());
        let space = Space::new(DEFAULT_PARAMS, &mlc, 256 << 30, &["consistency"]);
        let cell = space.keys().iter().position(|k| *k == "cell").unwrap();
        let prog = space.keys().iter().position(|k| *k == "t_prog").unwrap();
        // Held by the search, no start of its own.
        assert!(space.held()[cell] && !space.smooth()[cell]);
        assert_eq!(
            space.starts(&space.origin()).len(),
            2,
            "the cache's two only"
        );
        let value = |values: &[(String, String)], key: &str| {
            values
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
        };
        let x = space.origin();
        // The start's cell is a value of the drive, not an override that would reset its
        // NAND keys.
        assert_eq!(value(&space.values(&x), "cell").as_deref(), Some("mlc"));
        assert_eq!(value(&space.overrides(&x), "cell"), None);
        // Across: TLC, its middle page between the others, the mean program time kept; the
        // cache the other way first, the cell as it was.
        let across = space.across(&x);
        assert_eq!(across.len(), 2);
        assert_eq!(across[0][cell], x[cell]);
        let tlc = space.overrides(&across[1]);
        assert_eq!(value(&tlc, "cell").as_deref(), Some("tlc"));
        let times = sim::preset::quantities("t_prog", &value(&tlc, "t_prog").unwrap()).unwrap();
        assert_eq!(times.len(), 3);
        assert!(times[0] < times[1] && times[1] < times[2], "{times:?}");
        assert!(
            (times[2] / times[0] - 2.0 / 0.6).abs() < 1e-3,
            "the spread kept"
        );
        assert!((mean(&times) - 1.3e6).abs() < 1e3, "{times:?}");
        // And back: two page types again, at the mean it had.
        let back = space.across(&across[1]);
        assert_eq!(space.overrides(&back[1]), space.overrides(&x));
        assert!((back[1][prog] - x[prog]).abs() < 1e-9);
        // A TLC program time is within reach in three page types, not in two.
        assert_eq!(space.beyond("t_prog", "600us/1095.4us/2ms"), None);
        assert!(space.beyond("t_prog", "900us/1.7ms/3ms").is_some());
        assert_eq!(space.beyond("cell", "tlc"), None);
        assert!(space.beyond("cell", "slc").is_some());
        // Without the cell searched, the program times are the start's alone.
        let known: Vec<Param> = DEFAULT_PARAMS
            .iter()
            .filter(|p| p.key != "cell")
            .copied()
            .collect();
        let space = Space::new(&known, &mlc, 256 << 30, &["consistency"]);
        assert_eq!(space.across(&space.origin()).len(), 1);
    }

    #[test]
    fn a_value_no_point_of_the_space_sets_is_named_with_why() {
        let mut at = start();
        at.insert("gc_burst".into(), "16".into());
        at.insert("gc".into(), "greedy".into());
        let space = Space::new(DEFAULT_PARAMS, &at, 256 << 30, &["consistency"]);
        // Within reach: a factor, a span, a choice, a cache share, a key not searched.
        assert_eq!(space.beyond("t_prog", "1.2ms/4ms"), None);
        assert_eq!(space.beyond("gc_burst", "120"), None);
        assert_eq!(space.beyond("gc_style", "paced"), None);
        assert_eq!(space.beyond("slc_cache", "3GiB"), None);
        assert_eq!(space.beyond("slc_cache", "0"), None);
        assert_eq!(space.beyond("cell", "tlc"), None);
        // Beyond it, each with its reason.
        let why = |key, value| space.beyond(key, value).unwrap_or_default();
        assert!(
            why("gc_burst", "0.6%").contains("from 2 to 2048"),
            "{}",
            why("gc_burst", "0.6%")
        );
        assert!(why("gc_burst", "4096").contains("from 2 to 2048"));
        assert!(why("t_prog", "1.3ms").contains("proportions (600000ns/2000000ns)"));
        assert!(
            why("t_prog", "6ms/20ms").contains("10.00 times"),
            "{}",
            why("t_prog", "6ms/20ms")
        );
        assert!(why("gc", "lru").contains("greedy, cost-benefit, fifo"));
        assert!(why("slc_cache", "100GiB").contains("39.06% of the capacity"));
    }

    #[test]
    fn a_key_not_searched_has_its_other_values_within_its_reach() {
        // Asked for the default keys, and all searched but TRIM (no TRIM figure).
        let searched: Vec<&str> = DEFAULT_PARAMS
            .iter()
            .map(|p| p.key)
            .filter(|&k| k != "trim")
            .collect();
        let keys: Vec<&str> = unsearched(DEFAULT_PARAMS, &searched)
            .iter()
            .map(|p| p.key)
            .collect();
        assert_eq!(keys[0], "trim");
        assert!(
            keys.contains(&"planes") && keys.contains(&"meta"),
            "{keys:?}"
        );
        assert!(!keys.contains(&"channels") && !keys.contains(&"e_prog"));
        // A narrow fit's keys not asked for are its choice, not open.
        let narrow = unsearched(&[param("t_prog").unwrap()], &["t_prog"]);
        assert!(!narrow
            .iter()
            .any(|p| p.key == "channels" || p.key == "trim"));
        let mut drive = start();
        drive.insert("planes".into(), "2".into());
        drive.insert("meta".into(), "0%".into());
        drive.insert("trim".into(), "partial".into());
        drive.insert("trim_keep".into(), "50%".into());
        let params = [
            param("planes").unwrap(),
            param("meta").unwrap(),
            param("trim").unwrap(),
        ];
        let others = Space::new(&params, &drive, 256 << 30, &["trim"]).others();
        let text: Vec<String> = others
            .iter()
            .map(|o| {
                o.iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect();
        // Each other choice, a key at 0 at the top of its range, TRIM whole and ignored
        // (the drive's own half kept is no other value); each alone, each once.
        assert_eq!(
            text,
            [
                "planes=1",
                "planes=4",
                "meta=5%",
                "trim=on,trim_keep=0%",
                "trim=off,trim_keep=0%"
            ]
        );
    }

    #[test]
    fn trim_runs_from_whole_through_partial_to_none() {
        let trim = param("trim").unwrap();
        let at = |style: &str, keep: &str| -> BTreeMap<String, String> {
            [("trim", style), ("trim_keep", keep)]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let space = Space::new(&[trim], &at("on", "0%"), 256 << 30, &["trim"]);
        assert!(Space::new(&[trim], &at("on", "0%"), 256 << 30, &["corners"]).is_empty());
        let drive = |space: &Space, x: f64| {
            let o = space.overrides(&[x]);
            format!("{} {}", o[0].1, o[1].1)
        };
        assert_eq!(drive(&space, space.origin()[0]), "on 0%");
        assert_eq!(drive(&space, -0.4), "on 0%");
        assert_eq!(drive(&space, 0.3), "partial 30%");
        assert_eq!(drive(&space, 1.0), "off 0%");
        // An EVO's partial TRIM starts where its share puts it; an ignored TRIM at the top.
        let evo = Space::new(&[trim], &at("partial", "55%"), 256 << 30, &["trim"]);
        assert_eq!(drive(&evo, evo.origin()[0]), "partial 55%");
        let off = Space::new(&[trim], &at("off", "0%"), 256 << 30, &["trim"]);
        assert_eq!(drive(&off, off.origin()[0]), "off 0%");
        let deferred = Space::new(&[trim], &at("deferred", "0%"), 256 << 30, &["trim"]);
        assert!(deferred.is_empty());
        assert!(
            deferred.left_out[0].contains("deferred"),
            "{:?}",
            deferred.left_out
        );
    }

    #[test]
    fn a_key_starting_at_zero_rises_from_it() {
        let mut at = start();
        at.insert("trim_keep".into(), "0%".into());
        let space = Space::new(&[param("trim_keep").unwrap()], &at, 256 << 30, &["trim"]);
        assert_eq!(space.keys(), ["trim_keep"], "{:?}", space.left_out);
        let at = |x: f64| space.overrides(&[x])[0].1.clone();
        assert_eq!(at(space.origin()[0]), "0%");
        assert_eq!(at(-0.7), "0%");
        assert_eq!(at(0.3), "30%");
        assert_eq!(at(1.0), "100%");
        let mut evo = start();
        evo.insert("trim_keep".into(), "55%".into());
        let space = Space::new(&[param("trim_keep").unwrap()], &evo, 256 << 30, &["trim"]);
        assert_eq!(space.overrides(&space.origin())[0].1, "55%");
        // Its own top where the parameter gives one: a firmware's microseconds per unit, not
        // the range's 10 ms.
        let mut firmware = start();
        firmware.insert("gc_unit".into(), "0ns".into());
        let space = Space::new(&[param("gc_unit").unwrap()], &firmware, 256 << 30, &[]);
        assert_eq!(space.overrides(&[0.2])[0].1, "20000ns");
    }

    #[test]
    fn controller_costs_span_real_controllers() {
        let mut at = start();
        at.insert("cmd_write".into(), "12us".into());
        let space = Space::new(&[param("cmd_write").unwrap()], &at, 256 << 30, &[]);
        let ns = |x: f64| {
            space.overrides(&[x])[0]
                .1
                .trim_end_matches("ns")
                .parse::<f64>()
                .unwrap()
        };
        assert!((ns(space.origin()[0]) - 12e3).abs() < 1.0);
        assert!(
            ns(1.0) >= 60e3 && ns(-1.0) <= 2e3,
            "{} {}",
            ns(-1.0),
            ns(1.0)
        );
    }
}
