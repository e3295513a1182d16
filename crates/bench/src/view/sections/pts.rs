//! A SNIA PTS test as the spec reports it: the header (variant, active range, load, write
//! cache, preconditioning, where steady state was reached and the measurement window), the
//! window's table of every stimulus, the tracking variable's convergence round by round, and
//! for the IOPS test its 2D and 3D plots (IOPS by block size and read/write mix), for
//! a demand-intensity sweep (DIRTH, the composite workload) response time against IOPS.

use maud::{html, Markup};
use suite::methodology::steady_state::Rule;
use suite::pts::{size_label, Figure, PtsAnalysis, Sequence};
use suite::TestId;

use crate::chart::{palette, Axis, Bars3D, NumberFormat, Series, XYChart};
use crate::view::review::Review;
use crate::view::{figure, SaidOnce};
use crate::view::{fixed, grouped, marked, Cell, Table};
use crate::view::{Drive, Entry};

use super::{drive_name, parameters_link, with_figures};

/// The results of `test`, when there are any.
pub fn section(rv: &Review, test: TestId) -> Option<Markup> {
    let runs = with_figures(rv, test, |r| r.pts());
    if runs.is_empty() {
        return None;
    }
    // The report header the spec asks for, a row per sequence of rounds.
    let mut header = Table::new(&[
        "drive",
        "test",
        "device",
        "variant",
        "write cache",
        "purge and preconditioning",
        "steady state",
        "software",
        "",
    ]);
    for (d, e, a) in &runs {
        let r = &e.result;
        let device = format!(
            "{}, {:.0} GB{}",
            r.target.model.as_deref().unwrap_or(&r.target.path),
            r.target.capacity_bytes as f64 / 1e9,
            r.target
                .firmware
                .as_deref()
                .map(|f| format!(", firmware {f}"))
                .unwrap_or_default()
        );
        let purge = r
            .preconditioning
            .iter()
            .find(|p| p.name == "purge")
            .and_then(|p| p.method.clone())
            .unwrap_or_else(|| "none".into());
        for s in &a.sequences {
            header.row(vec![
                drive_name(d).into(),
                marked(&r.label, r).into(),
                device.clone().into(),
                format!(
                    "PTS-{}, active range {:.0}%",
                    a.variant.letter(),
                    a.variant.active_range_pct()
                )
                .into(),
                format!(
                    "{} by the spec; {}",
                    a.variant.write_cache(),
                    r.write_cache
                        .as_ref()
                        .map_or("not recorded".into(), |c| c.describe())
                )
                .into(),
                format!(
                    "purge ({purge}), {:.1} GB of SEQ 128KiB writes; rounds of {} s per stimulus",
                    a.wipc_bytes as f64 / 1e9,
                    a.round_s
                )
                .into(),
                steady_text(a, s).into(),
                format!("{} {}", r.tool.name, r.tool.version).into(),
                parameters_link(rv, e).into(),
            ]);
        }
    }
    let caveat = SaidOnce::of_all(runs.iter().map(|&(d, e, _)| (d, &e.result)));
    let warning = caveat.as_ref().map(SaidOnce::mark);
    let convergence = (!runs.is_empty()).then(|| convergence(&runs, warning));
    let sweeps: Vec<(&Drive, &PtsAnalysis)> = runs
        .iter()
        .filter(|(_, _, a)| a.sequences.len() == 1 && is_sweep(&a.sequences[0]))
        .map(|&(d, _, a)| (d, a))
        .collect();
    let demand = (!sweeps.is_empty()).then(|| demand_intensity(&sweeps, warning));
    let variation = sweeps
        .iter()
        .map(|(d, a)| demand_variation(d, &a.sequences[0], warning));
    let histograms = sweeps
        .iter()
        .map(|(d, a)| response_histograms(d, &a.sequences[0], warning));
    let plots = runs
        .iter()
        .filter(|(_, _, a)| {
            let s = &a.sequences[0];
            a.sequences.len() == 1 && s.figure == Figure::Iops && !is_sweep(s)
        })
        .flat_map(|(d, _, a)| {
            let s = &a.sequences[0];
            [iops_plot(d, s, warning), iops_bars(d, s, warning)]
        });
    Some(html! {
        (header)
        @for (d, e, a) in &runs {
            @for s in &a.sequences {
                h4 { (drive_name(d)) " " (marked(&e.result.label, &e.result)) }
                (window_table(s))
            }
        }
        @if let Some(c) = &caveat { (c.head()) }
        div.charts {
            @if let Some(c) = convergence { (c) }
            @if let Some(c) = demand { (c) }
            @for v in variation { (v) }
            @for h in histograms { (h) }
            @for p in plots { (p) }
        }
    })
}

/// The tracking variable round by round, with what the spec's steady-state plot shows over
/// the measurement window: its mean, 90-110% and 80-120% of the mean (the rule allows a
/// range of 20% of the mean: a round beyond 80-120% breaks it, rounds within 90-110% keep
/// it) and the least-squares line whose rise across the window must stay within 10%.
fn convergence(runs: &[(&Drive, &Entry, &PtsAnalysis)], warning: Option<&str>) -> Markup {
    let first = &runs[0].2.sequences[0];
    let sequences: Vec<(&Drive, &Sequence)> = (runs.iter())
        .flat_map(|&(d, _, a)| a.sequences.iter().map(move |s| (d, s)))
        .collect();
    let mut c = XYChart::new(
        &format!(
            "Steady-state convergence: {} ({})",
            first.tracking_cell().stimulus.label(),
            first.figure.unit()
        ),
        Axis::linear("Round"),
        Axis::linear(first.figure.unit()).format(NumberFormat::Si),
    )
    .size(560.0, 340.0)
    .warning(warning);
    if let [(_, s)] = sequences[..] {
        c = c.subtitle(&s.verdict());
    }
    for (i, &(d, s)) in sequences.iter().enumerate() {
        let (name, color) = match (sequences.len(), runs.len()) {
            (1, _) => (d.label.clone(), d.color().to_string()),
            (_, 1) => (s.tracking_cell().stimulus.label(), palette(i).to_string()),
            _ => (
                format!("{} {}", d.label, s.tracking_cell().stimulus.label()),
                d.color().to_string(),
            ),
        };
        let points = s.tracking_cell().rounds.iter().enumerate();
        let points = points.map(|(i, &v)| ((i + 1) as f64, v));
        c = c.series(Series::line(&name, points).color(&color));
        // One sequence's lines each in a colour of their own; several's in theirs.
        let prefix = match sequences.len() {
            1 => String::new(),
            _ => format!("{name}: "),
        };
        for (line, own) in window_lines(s, &prefix).into_iter().zip(REFERENCE_COLORS) {
            let color = if sequences.len() == 1 { own } else { &color };
            c = c.series(line.color(color));
        }
    }
    figure(c.to_svg())
}

/// The window mean's, the two bounds' and the slope line's colours on a chart of one sequence.
const REFERENCE_COLORS: [&str; 4] = ["#444444", "#E69F00", "#D55E00", "#009E73"];

/// A sequence's measurement-window lines for its convergence chart: mean, bounds, slope,
/// each named after `prefix`.
fn window_lines(s: &Sequence, prefix: &str) -> Vec<Series> {
    let (first, last) = s.window;
    if s.rounds == 0 {
        return Vec::new();
    }
    let rounds = &s.tracking_cell().rounds[first - 1..last];
    let mean = s.tracked();
    let (x0, x1) = (first as f64, last as f64);
    let level = |share: f64| [(x0, mean * share), (x1, mean * share)];
    // Two bounds as one series: a point that is not finite breaks the line.
    let band = |pct: f64| {
        let gap = (f64::NAN, f64::NAN);
        let (above, below) = (level(1.0 + pct / 100.0), level(1.0 - pct / 100.0));
        above
            .into_iter()
            .chain([gap])
            .chain(below)
            .collect::<Vec<_>>()
    };
    let half = Rule::slope(rounds) * (x1 - x0) / 2.0;
    vec![
        Series::line(
            &format!("{prefix}window mean (rounds {first}-{last})"),
            level(1.0),
        )
        .dashed("8 4"),
        Series::line(&format!("{prefix}90-110% of the mean"), band(10.0)).dashed("4 3"),
        Series::line(&format!("{prefix}80-120% of the mean"), band(20.0)).dashed("1 3"),
        Series::line(
            &format!("{prefix}least-squares slope"),
            [(x0, mean - half), (x1, mean + half)],
        )
        .dashed("12 3 2 3"),
    ]
}

fn steady_text(a: &PtsAnalysis, s: &Sequence) -> String {
    let window = format!("window: rounds {}-{}", s.window.0, s.window.1);
    match s.reached {
        true => format!("reached at round {} ({window})", s.window.1),
        false => format!(
            "not reached in {} rounds ({window})",
            a.rule.max_rounds.min(s.rounds)
        ),
    }
}

/// The window's figures: for response times a row per stimulus with mean, five nines and
/// max; for a demand-intensity sweep a matrix of thread count by queue depth; otherwise a
/// matrix of block size by read/write mix; of the test's figure (IOPS, MB/s).
fn window_table(s: &Sequence) -> Table {
    if s.figure == Figure::MeanLatency {
        let mut t = Table::new(&[
            "stimulus",
            "mean (us)",
            "five nines (us)",
            "max (us)",
            "IOPS",
        ]);
        for c in &s.cells {
            t.row(vec![
                c.stimulus.label().into(),
                Cell::Num(fixed(Some(c.latency.mean_us), 1)),
                Cell::Num(fixed(Some(c.latency.p99999_us), 1)),
                Cell::Num(fixed(Some(c.latency.max_us), 1)),
                Cell::Num(grouped(Some(c.iops), 0)),
            ]);
        }
        return t;
    }
    let value = |c: &suite::pts::Cell| match s.figure {
        Figure::Mbps => c.mbps,
        _ => c.iops,
    };
    let unit = s.figure.unit();
    if is_sweep(s) {
        let qds = distinct(s, |c| c.stimulus.qd);
        let head: Vec<String> = std::iter::once(format!("{unit}: threads by queue depth"))
            .chain(qds.iter().map(|q| format!("QD{q}")))
            .collect();
        let mut t = Table::new(&head.iter().map(String::as_str).collect::<Vec<_>>());
        for threads in distinct(s, |c| c.stimulus.threads) {
            let mut cells = vec![Cell::Text(format!("T{threads}"))];
            for &qd in &qds {
                let c = s
                    .cells
                    .iter()
                    .find(|c| (c.stimulus.threads, c.stimulus.qd) == (threads, qd));
                cells.push(Cell::Num(grouped(c.map(value), 0)));
            }
            t.row(cells);
        }
        return t;
    }
    let mixes = distinct(s, |c| c.stimulus.read_pct);
    let head: Vec<String> = std::iter::once(format!("{unit} by R/W mix"))
        .chain(mixes.iter().map(|m| format!("{m}/{}", 100 - m)))
        .collect();
    let mut t = Table::new(&head.iter().map(String::as_str).collect::<Vec<_>>());
    for (access, block) in distinct(s, |c| (c.stimulus.access, c.stimulus.block_bytes)) {
        let first = s
            .cells
            .iter()
            .find(|c| (c.stimulus.access, c.stimulus.block_bytes) == (access, block));
        let name = first.map(|c| {
            let label = c.stimulus.label();
            // The label without its mix: "RND 4KiB".
            label
                .rsplit_once(' ')
                .map_or(label.clone(), |(head, _)| head.to_string())
        });
        let mut cells = vec![Cell::Text(name.unwrap_or_default())];
        for &m in &mixes {
            let c = s.cells.iter().find(|c| {
                let st = &c.stimulus;
                (st.access, st.block_bytes, st.read_pct) == (access, block, m)
            });
            cells.push(Cell::Num(grouped(c.map(value), 0)));
        }
        t.row(cells);
    }
    t
}

/// Whether the sequence sweeps the load (DIRTH, the composite workload).
fn is_sweep(s: &Sequence) -> bool {
    distinct(s, |c| (c.stimulus.threads, c.stimulus.qd)).len() > 1
}

/// The distinct values of `key` over the cells, in their order.
fn distinct<T: PartialEq>(s: &Sequence, key: impl Fn(&suite::pts::Cell) -> T) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for c in &s.cells {
        let k = key(c);
        if !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

/// The spec's demand-intensity plot: mean response time against IOPS, a point per load in
/// order of outstanding IOs, a line per drive.
fn demand_intensity(runs: &[(&Drive, &PtsAnalysis)], warning: Option<&str>) -> Markup {
    let mut c = XYChart::new(
        "Demand intensity: mean response time against IOPS",
        Axis::linear("IOPS").format(NumberFormat::Si),
        Axis::log10("Mean response time (us)"),
    )
    .size(560.0, 340.0)
    .warning(warning);
    for (d, a) in runs {
        let s = &a.sequences[0];
        let mut cells: Vec<&suite::pts::Cell> = s.cells.iter().collect();
        cells.sort_by_key(|c| c.stimulus.threads * c.stimulus.qd);
        let points = cells.iter().map(|c| (c.iops, c.latency.mean_us));
        c = c.series(Series::line(&d.label, points).color(d.color()));
    }
    figure(c.to_svg())
}

/// The spec's demand-variation plot: IOPS against the queue depth per thread, a line per
/// thread count.
fn demand_variation(d: &Drive, s: &Sequence, warning: Option<&str>) -> Markup {
    let mut c = XYChart::new(
        &format!("{}: demand variation, IOPS against queue depth", d.label),
        Axis::log2("Queue depth per thread"),
        Axis::linear("IOPS").format(NumberFormat::Si),
    )
    .size(560.0, 340.0)
    .warning(warning);
    let mut threads = distinct(s, |c| c.stimulus.threads);
    threads.sort_unstable_by(|a, b| b.cmp(a));
    for t in threads {
        let mut points: Vec<(f64, f64)> = (s.cells.iter())
            .filter(|c| c.stimulus.threads == t)
            .map(|c| (f64::from(c.stimulus.qd), c.iops))
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        c = c.series(Series::line(&format!("T{t}"), points));
    }
    figure(c.to_svg())
}

/// The spec's response-time histograms of a sweep's highest, middle and lowest IOPS points:
/// the share of the window's IOs in each bin, a line per point.
fn response_histograms(d: &Drive, s: &Sequence, warning: Option<&str>) -> Markup {
    let mut c = XYChart::new(
        &format!("{}: response-time histograms", d.label),
        Axis::log10("Response time (us)"),
        Axis::linear("% of IOs"),
    )
    .size(560.0, 340.0)
    .warning(warning);
    for cell in s.cells.iter().filter(|c| c.histogram.is_some()) {
        let bins = cell.histogram.as_deref().unwrap_or_default();
        let total = bins.iter().map(|b| b.ios).sum::<u64>().max(1) as f64;
        let points = bins
            .iter()
            .map(|b| (b.upper_us, 100.0 * b.ios as f64 / total));
        let st = &cell.stimulus;
        let name = format!("T{}Q{} ({:.0} IOPS)", st.threads, st.qd, cell.iops);
        c = c.series(Series::line(&name, points));
    }
    figure(c.to_svg())
}

/// The read/write mixes of an IOPS table, in its order: each its series' colour in both plots.
fn mixes(s: &Sequence) -> Vec<u8> {
    let mut mixes: Vec<u8> = Vec::new();
    for c in &s.cells {
        if !mixes.contains(&c.stimulus.read_pct) {
            mixes.push(c.stimulus.read_pct);
        }
    }
    mixes
}

/// The spec's IOPS 2D plot: IOPS against block size, a line per read/write mix.
fn iops_plot(d: &Drive, s: &Sequence, warning: Option<&str>) -> Markup {
    // A decade above the highest IOPS when it is within 5% of one: a line on the frame's
    // top edge would be half hidden by it.
    let (lo, hi) = (s.cells.iter().map(|c| c.iops).filter(|&v| v > 0.0))
        .fold((f64::INFINITY, 0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let decade = |exponent: f64| 10f64.powf(exponent);
    let mut y = Axis::log10("IOPS").format(NumberFormat::Si);
    if hi > 0.0 {
        y = y.range(
            decade(lo.log10().floor()),
            decade((hi * 1.05).log10().ceil()),
        );
    }
    let mut c = XYChart::new(
        &format!("{}: IOPS by block size and R/W mix", d.label),
        Axis::log2("Block size"),
        y,
    )
    .size(560.0, 340.0)
    .warning(warning);
    for m in mixes(s) {
        let mut points: Vec<(f64, f64)> = s
            .cells
            .iter()
            .filter(|c| c.stimulus.read_pct == m)
            .map(|c| (c.stimulus.block_bytes as f64, c.iops))
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        c = c.series(Series::line(&format!("{m}/{}", 100 - m), points));
    }
    figure(c.to_svg())
}

/// The spec's IOPS 3D plot: a bar for each block size and read/write mix, the mixes going back
/// from the table's last (all writes) at the front to its first (all reads, the tallest bars,
/// which then hide nothing) behind, in the 2D plot's colours.
fn iops_bars(d: &Drive, s: &Sequence, warning: Option<&str>) -> Markup {
    let mut sizes: Vec<u32> = s.cells.iter().map(|c| c.stimulus.block_bytes).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let columns: Vec<String> = sizes.iter().map(|&b| size_label(b)).collect();
    let mut c = Bars3D::new(
        &format!("{}: IOPS by block size and R/W mix", d.label),
        "Block size",
        "R/W mix",
        "IOPS",
    )
    .columns(&columns)
    .warning(warning);
    for (i, m) in mixes(s).into_iter().enumerate().rev() {
        let values: Vec<f64> = sizes
            .iter()
            .map(|&b| {
                s.cells
                    .iter()
                    .find(|c| c.stimulus.block_bytes == b && c.stimulus.read_pct == m)
                    .map_or(f64::NAN, |c| c.iops)
            })
            .collect();
        c = c.row(&format!("{m}/{}", 100 - m), palette(i), &values);
    }
    figure(c.to_svg())
}
