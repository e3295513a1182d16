//! ssdlab on emulated drives: QEMU's NVMe controller and an AHCI SATA disk, in a small guest
//! (see `test_support::guest`).

use test_support::guest::{Disk, Guest};

const SSDLAB: &str = env!("CARGO_BIN_EXE_ssdlab");

#[test]
fn identify_asks_the_drives_themselves() {
    let Some(guest) = Guest::new()
        .disk(Disk::nvme("SSDLAB0001", 256 << 20))
        .disk(Disk::sata("SATA0001", "SSDLAB-SATA", 256 << 20))
        .program(SSDLAB)
        .program(test_support::find_tool("nvme").expect("nvme-cli"))
        .step("nvme", "ssdlab identify --target /dev/nvme0n1")
        .step("nvme-json", "ssdlab identify --target /dev/nvme0n1 --json")
        .step("nvme-cli", "nvme id-ctrl /dev/nvme0 -o json")
        .step("sata", "ssdlab identify --target /dev/sda")
        .step("sata-json", "ssdlab identify --target /dev/sda --json")
        .run()
    else {
        return;
    };
    let text = &guest.step("nvme").ok().output;
    for expected in ["QEMU NVMe Ctrl", "SSDLAB0001", "Format NVM", "Sanitize"] {
        assert!(text.contains(expected), "no {expected} in:\n{text}");
    }
    // ssdlab's parse of Identify Controller agrees with nvme-cli's.
    let ours: serde_json::Value =
        serde_json::from_str(&guest.step("nvme-json").ok().output).unwrap();
    let theirs: serde_json::Value =
        serde_json::from_str(&guest.step("nvme-cli").ok().output).unwrap();
    let controller = &ours["identity"]["drive"]["detail"]["nvme"]["controller"];
    assert_eq!(controller["serial"], theirs["sn"].as_str().unwrap().trim());
    assert_eq!(controller["model"], theirs["mn"].as_str().unwrap().trim());
    assert_eq!(
        controller["firmware"],
        theirs["fr"].as_str().unwrap().trim()
    );
    assert_eq!(controller["vendor_id"], theirs["vid"]);
    assert_eq!(controller["namespaces"], theirs["nn"]);
    assert_eq!(controller["mdts"], theirs["mdts"]);
    assert_eq!(ours["identity"]["serial"], "SSDLAB0001");
    assert!(
        ours["health"]["temperature_c"].as_i64().is_some(),
        "{ours:#}"
    );

    let sata = &guest.step("sata").ok().output;
    for expected in ["ATA", "SSDLAB-SATA", "SATA0001"] {
        assert!(sata.contains(expected), "no {expected} in:\n{sata}");
    }
    let sata: serde_json::Value =
        serde_json::from_str(&guest.step("sata-json").ok().output).unwrap();
    assert_eq!(sata["identity"]["drive"]["interface"], "ata", "{sata:#}");
    assert_eq!(sata["identity"]["model"], "SSDLAB-SATA", "{sata:#}");
}

#[test]
fn passthrough_runs_nvme_commands_through_io_uring() {
    let run = |target: &str, extra: &str, json: &str| {
        format!(
            "ssdlab run custom --no-store -q --access random --qd 8 --read-pct 50 --duration 2 \
             --destroy-data=/dev/nvme0n1 --target {target} {extra} --json {json} && cat {json}"
        )
    };
    let Some(guest) = Guest::new()
        .disk(Disk::nvme("SSDLAB0002", 128 << 20))
        .program(SSDLAB)
        .step("generic", &run("/dev/ng0n1", "--bs 4K", "generic.json"))
        .step(
            "namespace",
            &run("/dev/nvme0n1", "--backend io_uring-cmd --bs 4K", "ns.json"),
        )
        .step("limit", "cat /sys/block/nvme0n1/queue/max_hw_sectors_kb")
        .step("too-large", &run("/dev/ng0n1", "--bs 4M", "large.json"))
        .run()
    else {
        return;
    };
    for step in ["generic", "namespace"] {
        let out = &guest.step(step).ok().output;
        let result: serde_json::Value =
            serde_json::from_str(out).unwrap_or_else(|e| panic!("{step}: {e}:\n{out}"));
        assert_eq!(result["complete"], true, "{out}");
        assert_eq!(
            result["target"]["details"]["backend"], "io_uring-cmd",
            "{out}"
        );
        assert_eq!(result["target"]["model"], "QEMU NVMe Ctrl", "{out}");
        let summary = &result["summary"];
        assert!(summary.get("failed_ios").is_none(), "{out}");
        for op in ["read", "write"] {
            let ios = summary[op]["ios"].as_u64().unwrap_or(0);
            assert!(ios > 100, "{step}: only {ios} {op}s in 2 s:\n{out}");
        }
    }
    eprintln!("guest ran in {:?}", guest.elapsed);
    // A transfer larger than one command may carry is refused by name, not failed per IO.
    let limit_kb: u64 = guest.step("limit").ok().output.trim().parse().unwrap();
    assert!(
        limit_kb < 4096,
        "the emulated controller's limit is {limit_kb} KiB"
    );
    let large = guest.step("too-large");
    assert_ne!(large.status, 0);
    assert!(
        large
            .output
            .contains("exceeds the largest one NVMe command may carry"),
        "{}",
        large.output
    );
}
