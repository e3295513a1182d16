//! The drives and the test system: one row of facts per drive (from `bench annotate`, else
//! from what the drive or the simulator's preset says), and on a one-drive page everything
//! the target said about itself, the test system and the suite's steps.

use maud::{html, Markup};

use engine::units::capacity;
use suite::result::TestResult;

use crate::view::review::Review;
use crate::view::{Cell, Table};

use super::drive_name;

/// Readable names for the identity details targets record.
fn detail_name(key: &str) -> String {
    let known = [
        (
            "op_physical_over_logical_minus_one",
            "Over-provisioning (physical / logical - 1)",
        ),
        ("spare_factor", "Spare factor (spare / physical)"),
        ("slc_cache", "Pseudo-SLC cache"),
        ("map_unit", "Mapping unit"),
        ("gc", "Garbage collection"),
        ("link", "Interface"),
        ("dram", "DRAM"),
        ("nand", "NAND"),
        ("trim", "TRIM"),
        ("data", "Data kept (simulator)"),
        ("write_buffer", "Write buffer"),
        ("preset", "Preset"),
        ("geometry", "Geometry"),
        ("controller", "Controller"),
        ("dies", "NAND dies (as modelled)"),
        ("modelled_dram", "DRAM (as modelled)"),
    ];
    match known.iter().find(|(k, _)| *k == key) {
        Some((_, name)) => name.to_string(),
        None => {
            let words = key.replace(['_', '-'], " ");
            let mut c = words.chars();
            c.next()
                .map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
        }
    }
}

fn detail_value(key: &str, value: &str) -> String {
    match (key, value.parse::<f64>()) {
        ("op_physical_over_logical_minus_one" | "spare_factor", Ok(v)) => {
            format!("{:.1}%", v * 100.0)
        }
        _ => value.to_string(),
    }
}

fn identity(r: &TestResult) -> Table {
    let t = &r.target;
    let dash = |v: &Option<String>| v.clone().unwrap_or_else(|| "–".into());
    let mut table = Table::new(&["", ""]);
    let mut row = |k: &str, v: String| table.row(vec![k.into(), v.into()]);
    row("Model", dash(&t.model));
    row("Serial", dash(&t.serial));
    row("Firmware", dash(&t.firmware));
    row("Vendor", dash(&t.vendor));
    row("Target", format!("{} ({})", t.path, t.kind));
    row(
        "Capacity",
        format!(
            "{} ({} bytes)",
            capacity(t.capacity_bytes),
            t.capacity_bytes
        ),
    );
    row(
        "Block size",
        format!(
            "{} B logical, {} B physical",
            t.logical_block_bytes, t.physical_block_bytes
        ),
    );
    row("Clock", format!("{:?}", r.clock).to_lowercase());
    for (k, v) in t.details.iter().filter(|(k, _)| k.as_str() != "clock") {
        row(&detail_name(k), detail_value(k, v));
    }
    // What the drive said through its own commands, past what the rows above show.
    if let Some(d) = &t.drive {
        for (k, v) in d.summary().into_iter().skip(4) {
            row(k, v);
        }
    }
    table
}

fn system(r: &TestResult) -> Table {
    let s = &r.system;
    let mut table = Table::new(&["", ""]);
    table.row(vec![
        "CPU".into(),
        format!("{} ({} cores)", s.cpu, s.cores).into(),
    ]);
    table.row(vec![
        "Memory".into(),
        format!("{:.1} GiB", s.memory_bytes as f64 / (1u64 << 30) as f64).into(),
    ]);
    table.row(vec!["OS".into(), s.os.clone().into()]);
    table.row(vec!["Kernel".into(), s.kernel.clone().into()]);
    table.row(vec!["Host".into(), s.hostname.clone().into()]);
    table
}

pub fn section(rv: &Review) -> Option<Markup> {
    let mut facts = Table::new(&[
        "drive",
        "model",
        "firmware",
        "capacity",
        "controller",
        "NAND",
        "DRAM",
        "$/GB",
        "notes",
    ]);
    for d in rv.drives {
        let f = &d.facts;
        let dash = |v: &Option<String>| Cell::Text(v.clone().unwrap_or_else(|| "–".into()));
        facts.row(vec![
            drive_name(d).into(),
            dash(&f.model),
            dash(&f.firmware),
            Cell::Num(capacity(f.capacity_bytes)),
            dash(&f.controller),
            dash(&f.nand),
            dash(&f.dram),
            Cell::Num(f.price_per_gb().map_or("–".into(), |p| format!("${p:.3}"))),
            f.notes.clone().unwrap_or_default().into(),
        ]);
    }
    let first = (!rv.multi())
        .then(|| rv.drives.first().and_then(|d| d.entries.first()))
        .flatten();
    let steps = rv.suite.map(|s| {
        let mut t = Table::new(&["step", "status", "note"]);
        for st in &s.steps {
            let status = format!("{:?}", st.status).to_lowercase();
            t.row(vec![
                st.id.clone().into(),
                html! { span class=(if status == "complete" { "ok" } else { "bad" }) { (status) } }
                    .into(),
                st.message.clone().unwrap_or_default().into(),
            ]);
        }
        t
    });
    Some(html! {
        (facts)
        @if let Some(e) = first {
            div.charts {
                div { h3 { "Drive" } (identity(&e.result)) }
                div { h3 { "Test system" } (system(&e.result)) }
            }
        }
        @if let Some(steps) = steps { h3 { "Suite steps" } (steps) }
    })
}
