//! Print what a drive says about itself: `cargo run -p drive --example drive_info -- /dev/nvme0n1`
//! (identify summary, health as JSON, and the auto purge plan; nothing is written).

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: drive_info DEVICE");
        std::process::exit(2);
    };
    let drive = match drive::open(&path) {
        Ok(Some(d)) => d,
        Ok(None) => {
            println!("{path}: not an NVMe or ATA drive");
            return;
        }
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let report = || -> drive::Result<()> {
        let id = drive.identify()?;
        for (label, value) in id.summary() {
            println!("{label:24} {value}");
        }
        let plan: Vec<String> = drive::plan(&id, drive::PurgeMethod::Auto)?
            .iter()
            .map(|p| p.to_string())
            .collect();
        println!("{:24} {}", "Purge (auto)", plan.join(" > "));
        let health = drive.health()?;
        println!(
            "{}",
            serde_json::to_string_pretty(&health).unwrap_or_default()
        );
        Ok(())
    };
    if let Err(e) = report() {
        eprintln!("{path}: {e}");
        std::process::exit(1);
    }
}
