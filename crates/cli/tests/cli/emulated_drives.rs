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
        .tool("nvme")
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
    // --destroy-data names the namespace by either of its devices, for either (issue #22).
    let run = |target: &str, destroy: &str, extra: &str, json: &str| {
        format!(
            "ssdlab run custom --no-store -q --access random --qd 8 --read-pct 50 --duration 2 \
             --destroy-data={destroy} --target {target} {extra} --json {json} && cat {json}"
        )
    };
    let Some(guest) = Guest::new()
        .disk(Disk::nvme("SSDLAB0002", 128 << 20))
        .program(SSDLAB)
        .step(
            "generic",
            &run("/dev/ng0n1", "/dev/ng0n1", "--bs 4K", "generic.json"),
        )
        .step(
            "namespace",
            &run(
                "/dev/nvme0n1",
                "/dev/ng0n1",
                "--backend io_uring-cmd --bs 4K",
                "ns.json",
            ),
        )
        .step(
            "polled",
            &run("/dev/ng0n1", "/dev/ng0n1", "--poll --bs 4K", "polled.json"),
        )
        .step(
            "block-polled",
            &run(
                "/dev/nvme0n1",
                "/dev/nvme0n1",
                "--poll --sqpoll --threads 2 --bs 4K",
                "block-polled.json",
            ),
        )
        .step("limit", "cat /sys/block/nvme0n1/queue/max_hw_sectors_kb")
        .step(
            "too-large",
            &run("/dev/ng0n1", "/dev/nvme0n1", "--bs 4M", "large.json"),
        )
        .run()
    else {
        return;
    };
    // Polled completions (the guest's NVMe has a poll queue), polled submissions and
    // threads, on passthrough and on the block device.
    for step in ["generic", "namespace", "polled", "block-polled"] {
        let out = &guest.step(step).ok().output;
        let result: serde_json::Value =
            serde_json::from_str(out).unwrap_or_else(|e| panic!("{step}: {e}:\n{out}"));
        assert_eq!(result["complete"], true, "{out}");
        let backend = match step {
            "block-polled" => "io_uring",
            _ => "io_uring-cmd",
        };
        assert_eq!(result["target"]["details"]["backend"], backend, "{out}");
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

#[test]
fn smart_counts_what_ssdlab_wrote_and_purge_erases() {
    let nvme = "--target /dev/nvme0n1 --destroy-data=/dev/nvme0n1";
    let marker = "dd if=/dev/urandom of=/dev/nvme0n1 bs=1M count=1 2>/dev/null";
    let first_mib = "dd if=/dev/nvme0n1 bs=1M count=1 2>/dev/null | md5sum; \
                     dd if=/dev/zero bs=1M count=1 2>/dev/null | md5sum";
    let Some(guest) = Guest::new()
        .disk(Disk::nvme("SSDLAB0003", 256 << 20))
        .disk(Disk::sata("SATA0003", "SSDLAB-SATA", 128 << 20))
        .program(SSDLAB)
        .step(
            "write",
            &format!(
                "ssdlab run custom {nvme} --no-store -q --access sequential --bs 128K --qd 4 \
                 --read-pct 0 --bytes 64M --json w.json && cat w.json"
            ),
        )
        .step(
            "verify",
            &format!("ssdlab run verify {nvme} --no-store -q --span 32M --json v.json; cat v.json"),
        )
        .step("marker", marker)
        .step("refused", "ssdlab purge --target /dev/nvme0n1")
        .step("purge", &format!("ssdlab purge {nvme}"))
        .step("after", first_mib)
        .step(
            "sata",
            "ssdlab purge --target /dev/sda --destroy-data=/dev/sda",
        )
        .step(
            "sata-format",
            "ssdlab purge --target /dev/sda --destroy-data=/dev/sda --purge format",
        )
        .run()
    else {
        return;
    };
    // QEMU counts data units of 1000 x 512 bytes, rounded up: the delta over the measured
    // phase must equal ssdlab's bytes written to within one unit.
    let out = &guest.step("write").ok().output;
    let result: serde_json::Value = serde_json::from_str(out).unwrap();
    let host = &result["host_writes"];
    assert_eq!(host["ssdlab_bytes"], 64u64 << 20, "{host}");
    assert_eq!(host["granularity_bytes"], 512_000, "{host}");
    assert_eq!(host["agrees"], true, "{host}");
    let drive = host["drive_bytes"].as_u64().unwrap();
    assert!(drive.abs_diff(64 << 20) <= 512_000, "{host}");
    assert!(result.get("warnings").is_none(), "{out}");
    // The drive's temperature, sampled into the per-second series.
    let celsius = result["per_second"][0]["temperature_c"].as_f64();
    assert!(celsius.is_some_and(|c| c > 0.0 && c < 100.0), "{out}");

    // Verification finds nothing wrong on a healthy drive.
    let verify = guest.step("verify");
    let report: serde_json::Value =
        serde_json::from_str(&verify.output).unwrap_or_else(|e| panic!("{e}: {}", verify.output));
    assert_eq!(verify.status, 0, "{}", verify.output);
    let v = &report["verify"];
    assert_eq!(v["mismatches"], 0, "{v}");
    assert_eq!(v["complete"], true, "{v}");
    assert!(
        v["units_checked"].as_u64().unwrap() >= (32 << 20) / 4096,
        "{v}"
    );

    // A drive holding data is not purged without naming it.
    let refused = guest.step("refused");
    assert_ne!(refused.status, 0);
    assert!(refused.output.contains("holds data"), "{}", refused.output);
    // QEMU's controller has Format NVM but no Sanitize: auto formats, and the old data is gone.
    let purge = &guest.step("purge").ok().output;
    assert!(
        purge.contains("NVMe Format NVM (user data erase)"),
        "{purge}"
    );
    let sums: Vec<&str> = guest.step("after").ok().output.lines().collect();
    assert_eq!(sums.len(), 2);
    assert_eq!(
        sums[0], sums[1],
        "the first MiB reads back as zeroes after the format"
    );
    // QEMU's SATA disk has neither SANITIZE nor the security feature set: auto discards, and
    // asking for a format is refused by name.
    let sata = &guest.step("sata").ok().output;
    assert!(sata.contains("BLKDISCARD"), "{sata}");
    let format = guest.step("sata-format");
    assert_ne!(format.status, 0, "{}", format.output);
    assert!(format.output.contains("format"), "{}", format.output);
    eprintln!("{purge}\n{sata}\n{}", format.output);
}

/// A benchmark, not a test (`benches/guest-passthrough.sh` runs it): ssdlab's passthrough and
/// block backends against fio's `io_uring_cmd` and `io_uring` engines on the same emulated
/// NVMe drive, 4 KiB random reads at QD32, rounds alternating. Under TCG the emulator bounds
/// the figures; the ratios are what it measures.
#[test]
#[ignore = "a benchmark: benches/guest-passthrough.sh"]
fn bench_passthrough_against_fio() {
    let secs = std::env::var("BENCH_SECONDS").unwrap_or_else(|_| "5".into());
    let rounds: u32 = std::env::var("BENCH_ROUNDS").map_or(3, |r| r.parse().unwrap());
    let fio = |engine: &str, file: &str| {
        // A generic char device takes no O_DIRECT: passthrough bypasses the page cache anyway.
        let mode = if engine == "io_uring_cmd" {
            " --cmd_type=nvme"
        } else {
            " --direct=1"
        };
        format!(
            "fio --name=b --filename={file} --ioengine={engine}{mode} --rw=randread --bs=4k \
             --iodepth=32 --time_based --runtime={secs} --output-format=terse \
             --terse-version=3 | cut -d';' -f8"
        )
    };
    let ssdlab = |target: &str, backend: &str| {
        format!(
            "ssdlab run custom --target {target} --backend {backend} --access random --bs 4K \
             --qd 32 --read-pct 100 --duration {secs} --no-prefill --no-store -q --json o.json \
             >/dev/null && grep -m1 '\"iops\"' o.json | tr -dc '0-9.\\n'"
        )
    };
    let mut guest = Guest::new()
        .disk(Disk::nvme("BENCH0001", 1 << 30))
        .program(SSDLAB)
        .tool("fio")
        .memory_mib(2048)
        .timeout(std::time::Duration::from_secs(1800))
        .step(
            "fill",
            "dd if=/dev/urandom of=/dev/nvme0n1 bs=1M count=1024 2>/dev/null",
        );
    for r in 0..rounds {
        guest = guest
            .step(&format!("fio-cmd-{r}"), &fio("io_uring_cmd", "/dev/ng0n1"))
            .step(
                &format!("ssdlab-cmd-{r}"),
                &ssdlab("/dev/ng0n1", "io_uring-cmd"),
            )
            .step(&format!("fio-block-{r}"), &fio("io_uring", "/dev/nvme0n1"))
            .step(
                &format!("ssdlab-block-{r}"),
                &ssdlab("/dev/nvme0n1", "io_uring"),
            );
    }
    let Some(run) = guest.run() else {
        return;
    };
    let iops = |name: &str| -> f64 {
        let out = &run.step(name).ok().output;
        out.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}: {out}"))
    };
    println!("4 KiB random read, QD32, {secs} s per run, on QEMU's emulated NVMe (TCG)");
    println!(
        "round  fio io_uring_cmd  ssdlab io_uring-cmd  ratio  fio io_uring  ssdlab io_uring  ratio"
    );
    let (mut cmd, mut block) = (Vec::new(), Vec::new());
    for r in 0..rounds {
        let (fc, sc) = (
            iops(&format!("fio-cmd-{r}")),
            iops(&format!("ssdlab-cmd-{r}")),
        );
        let (fb, sb) = (
            iops(&format!("fio-block-{r}")),
            iops(&format!("ssdlab-block-{r}")),
        );
        println!(
            "{r:>5}  {fc:>16.0}  {sc:>19.0}  {:>5.3}  {fb:>12.0}  {sb:>15.0}  {:>5.3}",
            sc / fc,
            sb / fb
        );
        cmd.push(sc / fc);
        block.push(sb / fb);
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    println!(
        "mean ratio ssdlab/fio: passthrough {:.3}, block {:.3}",
        mean(&cmd),
        mean(&block)
    );
}

/// A short PTS-E test on a drive in the guest, its result printed.
fn pts_e(dev: &str) -> String {
    format!(
        "ssdlab run pts-latency --pts enterprise --pts-scale 0.002 --target {dev} \
         --destroy-data={dev} --no-store -q --json p.json; cat p.json"
    )
}

/// The host settings the power tests and the PTS change are put back after them.
#[test]
fn power_tests_set_link_power_and_put_it_back_and_read_the_nvme_power_states() {
    // The policy of the AHCI port the disk is on (its SCSI host).
    let policy = "cat /sys/block/sda/device/../../scsi_host/*/link_power_management_policy";
    // A meter command as a USB meter's tool would be: a reading every 100 ms.
    let meter = "--power-meter 'cmd:while true; do echo 1.25; sleep 0.1; done'";
    let Some(guest) = Guest::new()
        .disk(Disk::nvme("SSDLAB0005", 64 << 20))
        .disk(Disk::sata("SATA0005", "SSDLAB-SATA", 64 << 20))
        .program(SSDLAB)
        .step("policy-before", policy)
        .step(
            "slumber",
            &format!(
                "ssdlab run power-slumber --no-store -q --target /dev/sda --rest 0 --duration 2 \
                 {meter} --json s.json; cat s.json"
            ),
        )
        .step("policy-after", policy)
        .step(
            "estimate",
            "ssdlab run power-idle --no-store -q --target /dev/nvme0n1 --rest 0 --duration 3 \
             --power-meter nvme-states --json n.json; cat n.json",
        )
        .step("pts-nvme", &pts_e("/dev/nvme0n1"))
        .step("pts-nvme-again", &pts_e("/dev/nvme0n1"))
        .step("pts-sata", &pts_e("/dev/sda"))
        .step("pts-sata-again", &pts_e("/dev/sda"))
        .run()
    else {
        return;
    };
    // PTS-E switches each drive's write cache off for the test and back on after it: the
    // second run finds it on again.
    for drive in ["nvme", "sata"] {
        for step in [format!("pts-{drive}"), format!("pts-{drive}-again")] {
            let out = &guest.step(&step).ok().output;
            let r: serde_json::Value =
                serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"));
            let cache = &r["write_cache"];
            eprintln!("{step}: write cache {cache}");
            assert_eq!(cache["found"], true, "{step}: {cache}");
            assert_eq!(cache["set"], false, "{step}: {cache}");
            assert_eq!(cache["restored"], true, "{step}: {cache}");
            assert!(
                !r["deviations"].to_string().contains("write cache"),
                "{r:#}"
            );
        }
    }
    let slumber: serde_json::Value = serde_json::from_str(&guest.step("slumber").output)
        .unwrap_or_else(|e| {
            panic!("{e}: {}", guest.step("slumber").output);
        });
    let link = &slumber["analysis"]["link_power"];
    eprintln!("SATA link power in the guest: {link}");
    let before = guest.step("policy-before").ok().output.trim().to_string();
    assert!(
        link["control"]
            .as_str()
            .unwrap()
            .ends_with("link_power_management_policy"),
        "{slumber:#}"
    );
    assert_eq!(link["found"].as_str(), Some(before.as_str()), "{slumber:#}");
    match link["set"].as_str() {
        // The host let ssdlab enable HIPM+DIPM, and the setting was put back after.
        Some(set) => {
            assert_eq!(set, "min_power");
            assert_eq!(link["restored"], true, "{slumber:#}");
        }
        // Or it refused, and the result says so and does not call it slumber.
        None => {
            let note = link["note"].as_str().unwrap_or_default();
            assert!(note.contains("cannot set"), "{slumber:#}");
            let deviations = slumber["deviations"].to_string();
            assert!(deviations.contains("not slumber"), "{slumber:#}");
        }
    }
    assert_eq!(guest.step("policy-after").ok().output.trim(), before);
    assert_eq!(slumber["power"]["summary"]["mean_w"], 1.25, "{slumber:#}");

    // The NVMe drive's own power-state table: an estimate, labelled as one.
    let estimate: serde_json::Value = serde_json::from_str(&guest.step("estimate").output)
        .unwrap_or_else(|e| panic!("{e}: {}", guest.step("estimate").output));
    assert_eq!(estimate["power"]["basis"], "estimate", "{estimate:#}");
    let watts = estimate["power"]["summary"]["mean_w"].as_f64().unwrap();
    assert!(watts > 0.0 && watts <= 100.0, "{estimate:#}");
    // QEMU's controller has no APST, and Linux shows its latency tolerance only where there
    // is: the result says so.
    let nvme_link = &estimate["analysis"]["link_power"];
    assert!(
        nvme_link["note"]
            .as_str()
            .unwrap_or_default()
            .contains("does not support APST"),
        "{estimate:#}"
    );
}

/// `trace record` on a live drive: blktrace in the guest records while ssdlab runs a known
/// workload, and the recorded trace holds exactly the IOs ssdlab counted, by direction and
/// bytes. The workload keeps to a region of its own: ssdlab's safety check reads the drive's
/// head before writing, which the recording rightly holds too.
#[test]
fn trace_record_captures_every_io_ssdlab_issues() {
    const REGION: (u64, u64) = (64 << 20, 32 << 20);
    let workload = format!(
        "ssdlab run custom --target /dev/nvme0n1 --destroy-data=/dev/nvme0n1 --no-store -q \
         --access random --bs 4K --qd 4 --read-pct 50 --ios 1000 --offset {} --span {} \
         --no-prefill --json w.json",
        REGION.0, REGION.1
    );
    // Wait for the line that says tracing runs, run the workload, end the recording as
    // Ctrl-C does.
    let record = format!(
        "mount -t debugfs debugfs /sys/kernel/debug || exit 1
         ssdlab trace record /dev/nvme0n1 --duration 600 -o rec.ssdt 2> rec.log &
         pid=$!
         until grep -q '^recording' rec.log; do
           kill -0 $pid 2>/dev/null || {{ cat rec.log; exit 1; }}
           sleep 0.1
         done
         {workload} || exit 1
         kill -INT $pid
         wait $pid; rc=$?
         cat rec.log
         exit $rc"
    );
    let Some(guest) = Guest::new()
        .disk(Disk::nvme("SSDLAB0006", 128 << 20))
        .program(SSDLAB)
        .tool("blktrace")
        .step("record", &record)
        .step("issued", "cat w.json")
        .step("stats", "ssdlab trace stats rec.ssdt --json")
        .step(
            "recorded",
            "ssdlab trace convert rec.ssdt rec.iolog --to fio-iolog 2>/dev/null && cat rec.iolog",
        )
        .run()
    else {
        return;
    };
    let log = &guest.step("record").ok().output;
    eprintln!("{log}");
    let issued: serde_json::Value = serde_json::from_str(&guest.step("issued").ok().output)
        .unwrap_or_else(|e| panic!("{e}: {}", guest.step("issued").output));
    let summary = &issued["summary"];
    assert_eq!(issued["complete"], true, "{issued:#}");

    let recorded = trace::reader_from(
        std::io::Cursor::new(guest.step("recorded").ok().output.clone().into_bytes()),
        "rec.iolog",
        trace::ReadOptions {
            format: Some(trace::Format::FioIolog),
            skip_bad: false,
        },
    )
    .unwrap();
    let (mut region, mut elsewhere) = (trace::StatsBuilder::new(), Vec::new());
    for r in recorded {
        let r = r.unwrap();
        if (REGION.0..REGION.0 + REGION.1).contains(&r.offset_bytes) {
            region.add(&r);
        } else if matches!(r.op, trace::Op::Read | trace::Op::Write) {
            elsewhere.push(r);
        }
    }
    let region = region.finish();
    for (op, ios, bytes) in [
        ("read", region.reads, region.bytes_read),
        ("write", region.writes, region.bytes_written),
    ] {
        assert_eq!(summary[op]["ios"], ios, "{op}s: {summary:#}");
        assert_eq!(summary[op]["bytes"], bytes, "{op} bytes: {summary:#}");
    }
    assert_eq!(summary["ios"], region.ios, "{summary:#}");
    // Outside its region ssdlab only read (the safety check); it never wrote there.
    assert!(
        elsewhere.iter().all(|r| r.op == trace::Op::Read),
        "writes outside the workload's region: {elsewhere:?}"
    );
    // The workload's requests were paired from issue to completion: the recording has their
    // service times.
    let stats: serde_json::Value = serde_json::from_str(&guest.step("stats").ok().output).unwrap();
    let timed = stats["requests_timed"].as_u64().unwrap_or(0);
    assert!(timed >= region.ios, "{stats:#}");
    assert!(
        log.contains(&format!("{} IOs recorded", stats["ios"])),
        "{log}"
    );
}
