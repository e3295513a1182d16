//! `ssdlab identify`: who a target is, in words (or `--json`), without writing it: its
//! identity and geometry, what the drive says through its own commands, and its health.

use std::process::ExitCode;

use engine::units::format_size;

pub fn identify(target: &str, json: bool) -> anyhow::Result<ExitCode> {
    let dev = suite::target::open(target, &Default::default())?;
    let id = dev.identity();
    let geometry = dev.geometry();
    // Health through the drive's own commands, when the target is one that speaks them.
    let health = if id.kind.is_device_node() {
        drive::open(target)
            .and_then(|d| d.map(|d| d.health()).transpose())
            .map_err(|e| e.to_string())
    } else {
        Ok(None)
    };
    // A simulated drive served as this device: its counters, from its server.
    let served = id
        .details
        .get("served_by")
        .and_then(|_| {
            id.details
                .get("partition_of")
                .or(id.details.get("kernel_name"))
        })
        .and_then(|name| engine::served::ServedDrive::of(name));
    if json {
        let out = serde_json::json!({
            "identity": id,
            "geometry": geometry,
            "clock": dev.clock(),
            "health": health.as_ref().ok().and_then(|h| h.as_ref()),
            "served": served,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    let mut rows: Vec<(String, String)> =
        vec![("Target".into(), format!("{} ({})", id.path, id.kind))];
    match &id.drive {
        Some(d) => rows.extend(d.summary().into_iter().map(|(k, v)| (k.to_string(), v))),
        None => {
            let text = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
            rows.push(("Model".into(), text(&id.model)));
            rows.push(("Serial".into(), text(&id.serial)));
            rows.push(("Firmware".into(), text(&id.firmware)));
        }
    }
    rows.push((
        "Host view".into(),
        format!(
            "{} ({} bytes), {} B logical / {} B physical blocks",
            format_size(geometry.capacity_bytes),
            geometry.capacity_bytes,
            geometry.logical_block_bytes,
            geometry.physical_block_bytes
        ),
    ));
    for (k, v) in &id.details {
        rows.push((k.replace('_', " "), v.clone()));
    }
    match &health {
        Ok(Some(h)) => rows.extend(health_rows(h)),
        Ok(None) => {}
        Err(e) => rows.push(("Health".into(), format!("unavailable: {e}"))),
    }
    if let Some(s) = &served {
        rows.extend(served_rows(s));
    }
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    for (k, v) in rows {
        println!("{k:<width$}  {v}");
    }
    Ok(ExitCode::SUCCESS)
}

/// A served simulated drive's counters, as its server last published them (each second).
fn served_rows(s: &engine::served::ServedDrive) -> Vec<(String, String)> {
    let bytes = |b: u64| format!("{} ({b} bytes)", format_size(b));
    vec![
        ("Requests served".into(), s.ios.to_string()),
        ("Host data written".into(), bytes(s.host_bytes_written)),
        ("Host data read".into(), bytes(s.host_bytes_read)),
        ("NAND data written".into(), bytes(s.nand_bytes_written)),
        (
            "Write amplification".into(),
            s.write_amplification()
                .map_or("- (nothing written)".into(), |wa| format!("{wa:.2}")),
        ),
        ("GC invocations".into(), s.gc_invocations.to_string()),
        (
            "Queues".into(),
            format!("{} of {} requests", s.queues, s.depth),
        ),
    ]
}

fn health_rows(h: &drive::Health) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    let mut add = |k: &str, v: Option<String>| {
        if let Some(v) = v {
            rows.push((k.to_string(), v));
        }
    };
    add("Temperature", h.temperature_c.map(|t| format!("{t} °C")));
    add(
        "Host data written",
        h.host_bytes_written
            .map(|b| format!("{} ({b} bytes)", format_size(b))),
    );
    add(
        "Host data read",
        h.host_bytes_read
            .map(|b| format!("{} ({b} bytes)", format_size(b))),
    );
    add(
        "NAND data written",
        h.nand_bytes_written
            .map(|b| format!("{} ({b} bytes)", format_size(b))),
    );
    add(
        "Percentage used",
        h.percentage_used.map(|p| format!("{p}%")),
    );
    add("Power-on hours", h.power_on_hours.map(|v| v.to_string()));
    add(
        "Unsafe shutdowns",
        h.unsafe_shutdowns.map(|v| v.to_string()),
    );
    add("Media errors", h.media_errors.map(|v| v.to_string()));
    add(
        "Thermal throttling",
        h.thermal_throttle_events.map(|n| {
            let secs = h
                .thermal_throttle_seconds
                .map_or(String::new(), |s| format!(", {s} s"));
            format!("{n} events{secs}")
        }),
    );
    rows
}
