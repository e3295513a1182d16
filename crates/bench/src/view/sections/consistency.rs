//! IO consistency as the reviews showed it: for one drive and one spare-area setting at a
//! time (selectors), the whole run on a log scale and the steady state from 1400 s on a log
//! and on a linear scale, each drive on its own linear scale; then every drive's
//! steady-state figures side by side. Where the run has power, it is drawn under the whole
//! run, second by second; its latency percentiles over time follow.

use maud::{html, Markup};

use suite::methodology::consistency::ConsistencyAnalysis;
use suite::result::TestResult;
use suite::TestId;

use crate::chart::{format_si, Axis, NumberFormat, Series, XYChart};
use crate::compare::Better;
use crate::view::review::{Fragment, Review};
use crate::view::{
    capitalized, drive_cell, figure, fixed, grouped, Cell, Drive, Entry, SaidOnce, Table,
};

use super::bars::{bar_figure, BarRowSrc};
use super::{drive_dim, parameters_link, sources, switcher, Dim};

/// "default" for the drive's own spare area, else the percentage ("25").
fn spare_key(r: &TestResult, a: Option<&ConsistencyAnalysis>) -> String {
    match a.map(|a| a.spare_pct) {
        Some(p) if p > 0.0 => format!("{p}"),
        _ => match r.variant.as_deref().and_then(|v| v.strip_prefix("spare-")) {
            Some(p) => p.to_string(),
            None => "default".into(),
        },
    }
}

fn spare_name(key: &str) -> String {
    if key == "default" {
        "default spare area".into()
    } else {
        format!("{key}% spare area")
    }
}

/// The top of a drive's linear chart: its steady-state band, up to ten times its median
/// (so rare spikes, pinned to the top edge, do not flatten the band), rounded up to 1, 2,
/// 2.5 or 5 times a power of ten. The reviews fixed 40K or 50K for every drive, which
/// draws a 3.7K drive as a flat line.
fn linear_top(a: Option<&ConsistencyAnalysis>, points: &[(f64, f64)]) -> f64 {
    let band = match a.and_then(|a| a.steady_state.as_ref()) {
        Some(s) => s.p99.min(10.0 * s.median),
        None => points.iter().map(|p| p.1).fold(0.0, f64::max),
    };
    if band.is_nan() || band <= 0.0 {
        return 1.0;
    }
    let mag = 10f64.powf(band.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|&t| t >= band)
        .unwrap_or(10.0 * mag)
}

/// A result's IOPS in every second it measured.
fn points(r: &TestResult) -> Vec<(f64, f64)> {
    (r.per_second.iter())
        .filter(|p| p.covered_s.is_none())
        .map(|p| (p.t as f64, p.iops))
        .collect()
}

/// The log axis of every result the selector switches between (each drive, each spare
/// area): whole decades around all their seconds, so that a switch compares like with like.
fn log_axis(rv: &Review) -> Axis {
    let all = rv.drives.iter().flat_map(|d| d.of(TestId::Consistency));
    let seconds: Vec<f64> = (all.flat_map(|e| points(&e.result)))
        .map(|p| p.1)
        .filter(|v| *v > 0.0)
        .collect();
    let (lo, hi) = (seconds.iter()).fold((f64::INFINITY, 0.0f64), |(lo, hi), &v| {
        (lo.min(v), hi.max(v))
    });
    let axis = Axis::log10("IOPS");
    if hi > 0.0 {
        let lo = 10f64.powf(lo.log10().floor()).max(1.0);
        axis.range(lo, 10f64.powf(hi.log10().ceil()).max(lo * 10.0))
    } else {
        axis
    }
}

/// The top of a drive's linear chart: the highest of its results' (each spare area's), so
/// that switching the spare area keeps the scale.
fn drive_linear_top(d: &Drive) -> f64 {
    (d.of(TestId::Consistency))
        .map(|e| linear_top(e.result.consistency(), &points(&e.result)))
        .fold(1.0, f64::max)
}

/// The three charts of one result.
pub fn charts(rv: &Review, d: &Drive, e: &Entry) -> Markup {
    let r = &e.result;
    let a = r.consistency();
    let name = format!("{}, {}", d.label, spare_name(&spare_key(r, a)));
    let points = points(r);
    let duration = (r.per_second.len() as f64).max(1.0);
    let from = a
        .as_ref()
        .map_or(0.0, |a| a.steady_from_s)
        .clamp(0.0, duration - 1.0);
    let log = || log_axis(rv);
    let subtitle = match a
        .as_ref()
        .map(|a| (a.drop_s, a.drop_from_iops, a.drop_to_iops))
    {
        Some((Some(t), Some(from), Some(to))) => format!(
            "{name}; the burst ends at {t} s ({} to {} IOPS)",
            format_si(from),
            format_si(to)
        ),
        Some((Some(t), _, _)) => format!("{name}; the burst ends at {t} s"),
        _ => name.clone(),
    };
    let caveat = SaidOnce::of(r);
    let marker = caveat.as_ref().map(SaidOnce::mark);
    // "Steady state from 1400 s", or what the window is when the rule did not hold.
    let window = match a {
        Some(a) if !a.reached => capitalized(&a.window_name()),
        _ => format!("Steady state from {from:.0} s"),
    };
    let chart = |title: String, lo: f64, y: Axis| {
        let c = XYChart::new(
            &title,
            Axis::linear("Time (s)").range(lo, duration.max(lo + 1.0)),
            y,
        )
        .size(560.0, 360.0)
        .subtitle(&subtitle)
        .warning(marker)
        .series(Series::dots(&name, points.iter().copied().filter(|p| p.0 >= lo)).color(d.color()));
        c
    };
    let whole = chart("4 KiB random write, QD32: the whole run".into(), 0.0, log());
    // The drive's power in every second, under the whole run on the same time axis.
    let power = super::power::beneath(&whole, d, r, &[]);
    let latency = super::latency::over_time("4 KiB random write, QD32: latency", d, r)
        .map(|l| l.warning(marker));
    html! {
        @if let Some(c) = &caveat { (c.head()) }
        div.charts {
            div { (figure(whole.to_svg())) @if let Some(p) = power { (p) } }
            (figure(chart(format!("{window} (log scale)"), from, log()).to_svg()))
            (figure(chart(
                format!("{window} (linear scale)"),
                from,
                Axis::linear("IOPS").range(0.0, drive_linear_top(d)).format(NumberFormat::Si),
            ).to_svg()))
            @if let Some(l) = latency { (figure(l.to_svg())) }
        }
        (sources(rv, &[(name.clone(), e)]))
    }
}

pub fn section(rv: &Review) -> Option<Markup> {
    let sets: Vec<(&Drive, &Entry, String)> = rv
        .drives
        .iter()
        .flat_map(|d| {
            d.of(TestId::Consistency).map(move |e| {
                let key = spare_key(&e.result, e.result.consistency());
                (d, e, key)
            })
        })
        .collect();
    if sets.is_empty() {
        return None;
    }
    let mut spares: Vec<String> = sets.iter().map(|s| s.2.clone()).collect();
    spares.sort_by(|a, b| {
        let n = |k: &str| k.parse::<f64>().unwrap_or(-1.0);
        n(a).total_cmp(&n(b))
    });
    spares.dedup();
    let dims = [
        drive_dim(sets.iter().map(|s| s.0)),
        Dim {
            dim: "spare",
            label: "Spare area",
            options: spares.iter().map(|k| (k.clone(), spare_name(k))).collect(),
        },
    ];
    // The first view is the first drive's lowest spare setting: the default, with its burst.
    let rank = |k: &String| spares.iter().position(|s| s == k);
    let mut ordered: Vec<&(&Drive, &Entry, String)> = sets.iter().collect();
    ordered.sort_by_key(|(d, _, k)| (d.index, rank(k)));
    let views: Vec<(String, &Drive, &Entry)> = ordered
        .iter()
        .map(|(d, e, k)| (format!("drive={};spare={k}", d.index), *d, *e))
        .collect();

    let rows = rv
        .drives
        .iter()
        .map(|d| {
            let found: Vec<Option<&Entry>> = spares
                .iter()
                .map(|k| {
                    sets.iter()
                        .find(|s| s.0.index == d.index && s.2 == *k)
                        .map(|s| s.1)
                })
                .collect();
            // A window that is not the methodology's steady state has no bar: its row says
            // what it is instead.
            let analyses = found.iter().map(|e| e.and_then(|e| e.result.consistency()));
            let not_steady = (analyses.clone().flatten())
                .find(|a| !a.reached)
                .map(|a| a.window_name());
            BarRowSrc {
                drive: d,
                label: d.label.clone(),
                values: analyses
                    .map(|a| {
                        a.filter(|a| a.reached)
                            .and_then(|a| a.steady_state.as_ref())
                            .map_or(f64::NAN, |s| s.mean)
                    })
                    .collect(),
                entries: found,
                note: not_steady,
            }
        })
        .collect();
    let groups: Vec<String> = spares.iter().map(|k| spare_name(k)).collect();
    let groups: Vec<&str> = groups.iter().map(String::as_str).collect();

    let table = steady_table(rv, &sets);
    Some(html! {
        p.note {
            "4 KiB random writes at QD32 over the whole tested span after a sequential fill; IOPS \
             in every second. The burst ends where the spare area runs out: the first second more \
             than 25% below the opening plateau after which the next 30 s stay below that level, \
             clear of the scatter (the rule is " code { "suite::stats::find_drop" } "). The steady \
             state depends on garbage collection and spare area. Choose a drive and a spare-area \
             setting. The log charts share one scale; each drive's linear chart is scaled to its own \
             steady-state band (up to ten times its median, the highest of its spare-area \
             settings; higher points sit on the top edge)."
        }
        (switcher(rv, Fragment::Consistency, &dims, &views))
        h3 { "Steady state" }
        (bar_figure(rv, "4 KiB random write, QD32: steady-state mean", "IOPS", Better::Higher, &groups, NumberFormat::Grouped(0), rows))
        (table)
    })
}

/// The steady state of each drive and spare-area setting, with its spread and burst.
fn steady_table(rv: &Review, sets: &[(&Drive, &Entry, String)]) -> Table {
    let mut table = Table::new(&[
        "drive",
        "spare area",
        "window",
        "mean IOPS",
        "median",
        "min",
        "std dev",
        "p1",
        "p99",
        "burst ends at",
        "WA (steady)",
        "",
    ]);
    for (d, e, k) in sets {
        let a = e.result.consistency();
        let ss = a.and_then(|a| a.steady_state.as_ref());
        let g = |f: fn(&suite::SeriesStats) -> f64| Cell::Num(grouped(ss.map(f), 0));
        table.row(vec![
            Cell::Markup(drive_cell(d, &e.result)),
            spare_name(k).into(),
            a.map_or(String::new(), |a| a.window_name()).into(),
            g(|s| s.mean),
            g(|s| s.median),
            g(|s| s.min),
            g(|s| s.stddev),
            g(|s| s.p1),
            g(|s| s.p99),
            Cell::Num(
                a.and_then(|a| a.drop_s)
                    .map_or("no drop".into(), |t| format!("{t} s")),
            ),
            Cell::Num(fixed(
                e.result.write_amplification.and_then(|w| w.steady_state),
                2,
            )),
            parameters_link(rv, e).into(),
        ]);
    }
    table
}
