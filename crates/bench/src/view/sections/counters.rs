//! A real drive's own counters over each measured phase: its count of host writes against
//! ssdlab's, NAND writes and write amplification where it reports them, temperature; and
//! every warning a result carries.

use maud::{html, Markup};

use engine::drive::Health;

use crate::view::review::Review;
use crate::view::{fixed, Cell, Table};

use super::drive_name;

pub fn section(rv: &Review) -> Option<Markup> {
    let mut table = Table::new(&[
        "drive",
        "test",
        "drive counted",
        "ssdlab wrote",
        "agree",
        "NAND written",
        "WA",
        "temperature",
    ]);
    let mut warnings = Vec::new();
    for d in rv.drives {
        for e in &d.entries {
            let r = &e.result;
            warnings.extend(r.warnings.iter().map(|w| (d, r.label.clone(), w.clone())));
            let Some(c) = r.device_counters.as_ref() else {
                continue;
            };
            let (Some(start), Some(end)) =
                (c.start.health(), c.end.as_ref().and_then(|e| e.health()))
            else {
                continue;
            };
            let mb = |b: Option<u64>| {
                Cell::Num(b.map_or("–".into(), |b| format!("{:.1} MB", b as f64 / 1e6)))
            };
            let temp = |h: &Health| h.temperature_c.map_or("–".into(), |t| format!("{t} °C"));
            let hw = r.host_writes;
            table.row(vec![
                drive_name(d).into(),
                r.label.clone().into(),
                mb(hw.map(|h| h.drive_bytes)),
                mb(hw.map(|h| h.ssdlab_bytes)),
                match hw {
                    Some(h) if h.agrees => "yes".into(),
                    Some(_) => html! { span.bad { "no" } }.into(),
                    None => "–".into(),
                },
                mb(Health::delta(start, end).nand_bytes_written),
                Cell::Num(fixed(r.write_amplification.map(|w| w.cumulative), 2)),
                format!("{} → {}", temp(start), temp(end)).into(),
            ]);
        }
    }
    if table.is_empty() && warnings.is_empty() {
        return None;
    }
    Some(html! {
        @if !table.is_empty() {
            p {
                "Over each measured phase, from the drive's SMART / Health log: what it counted the \
                 host writing against what ssdlab wrote (they agree to within the counter's unit), \
                 NAND writes and write amplification where the drive reports them, and its \
                 temperature before and after."
            }
            (table)
        }
        @for (d, label, w) in &warnings {
            p.bad { @if rv.multi() { (d.label) ", " } (label) ": " (w) }
        }
    })
}
