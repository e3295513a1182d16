//! `ssdlab sim serve`: a simulated drive as a Linux block device over ublk, in the small
//! guest (see `test_support::guest`) booted on Debian's backports kernel, whose `ublk_drv`
//! the host's kernel may lack.

use std::time::Duration;

use test_support::guest::{Guest, GuestKernel};

use crate::common::{run, text};

const SSDLAB: &str = env!("CARGO_BIN_EXE_ssdlab");

/// A small drive (its spare area large enough for GC at this size): its data fits in the
/// guest's memory.
const DRIVE: &str = "sim:default,capacity=512MiB,op=50%";

/// Two queues: requests of both go through the one drive.
const TWO_QUEUES: &str = "--queues 2 --depth 32";

/// For fio at QD32 in the benchmark: one queue (the guest has one CPU) deeper than fio's
/// queue depth (at equal depth the guest measured a third of the IOPS).
const BENCH_QUEUES: &str = "--queues 1 --depth 64";

fn ublk_guest() -> Guest {
    Guest::new()
        .kernel(GuestKernel::Backports)
        .module("ublk_drv")
}

/// Start a served drive in the background; its log in `log`, its pid in `log.pid`; print
/// its device once the device exists.
fn serve_in_background(target: &str, queues: &str, log: &str) -> String {
    format!(
        "ssdlab sim serve {target} --ublk {queues} > {log} 2>&1 & echo $! > {log}.pid\n\
         for i in $(seq 600); do grep -q '^/dev/ublkb' {log} && break; sleep 0.1; done\n\
         dev=$(sed -n 's|^\\(/dev/ublkb[0-9]*\\):.*|\\1|p' {log})\n\
         for i in $(seq 100); do [ -b \"$dev\" ] && break; sleep 0.1; done\n\
         cat {log}; [ -b \"$dev\" ] && echo \"$dev\" > {log}.dev"
    )
}

/// Stop the drive `serve_in_background` served (Ctrl-C), wait until its server has exited,
/// print its log and whether its device is gone.
fn stop_served(log: &str) -> String {
    // Started by an earlier step, the server is not this shell's child: once it exits it is
    // a zombie until init reaps it.
    format!(
        "pid=$(cat {log}.pid); kill -INT $pid\n\
         alive() {{ [ -e /proc/$1 ] && ! grep -qs '^State:.*Z' /proc/$1/status; }}\n\
         for i in $(seq 300); do alive $pid || break; sleep 0.1; done\n\
         alive $pid && echo STILL RUNNING\n\
         [ ! -e $(cat {log}.dev) ] && echo removed; cat {log}"
    )
}

#[test]
fn the_backports_guest_has_ublk() {
    let Some(guest) = ublk_guest()
        .step("control", "ls -l /dev/ublk-control && uname -r")
        .run()
    else {
        return;
    };
    let out = &guest.step("control").ok().output;
    assert!(out.contains("/dev/ublk-control"), "{out}");
}

#[test]
fn what_cannot_be_served_is_refused_with_the_fix() {
    let not_sim = run(&["sim", "serve", "default", "--ublk"]);
    assert!(!not_sim.status.success());
    assert!(
        text(&not_sim).contains("give sim:PRESET"),
        "{}",
        text(&not_sim)
    );
    let own_data = run(&["sim", "serve", "sim:default,data=on", "--ublk"]);
    assert!(!own_data.status.success());
    assert!(
        text(&own_data).contains("drop data="),
        "{}",
        text(&own_data)
    );
    // 256 GiB of data cannot be kept in memory here: a smaller capacity is named.
    let too_big = run(&["sim", "serve", "sim:default,capacity=256GiB", "--ublk"]);
    assert!(!too_big.status.success());
    let msg = text(&too_big);
    assert!(
        msg.contains("keeps its data in memory")
            && msg.contains("sim:default,capacity=256GiB,capacity="),
        "{msg}"
    );
}

#[test]
fn a_served_drive_holds_a_filesystem_and_dies_cleanly() {
    let mount = "mkdir -p /mnt/d && mount -t ext4 $(cat /tmp/fs.log.dev) /mnt/d";
    let stop = stop_served("/tmp/fs.log");
    let kill_mid_write = format!(
        "{}\ndev=$(cat /tmp/k.log.dev); name=${{dev#/dev/}}\n\
         dd if=/dev/zero of=$dev bs=1M count=200 conv=fsync 2>/tmp/dd.err & dd=$!\n\
         for i in $(seq 600); do [ $(awk '{{print $7}}' /sys/block/$name/stat) -gt 0 ] && break; sleep 0.1; done\n\
         kill -9 $(cat /tmp/k.log.pid); wait $(cat /tmp/k.log.pid)\n\
         wait $dd; echo \"dd exited $?\"\n\
         for i in $(seq 300); do [ -e $dev ] || break; sleep 0.1; done\n\
         [ ! -e $dev ] && echo removed; ps -o pid,stat,comm | grep -E ' (dd|ssdlab)$' || echo 'none left'",
        serve_in_background(DRIVE, TWO_QUEUES, "/tmp/k.log")
    );
    let Some(guest) = ublk_guest()
        .module("ext4")
        .module("crc32c_generic")
        .memory_mib(2048)
        .timeout(Duration::from_secs(900))
        .program(SSDLAB)
        .tool("mkfs.ext4")
        .tool("fsck.ext4")
        .step(
            "no-ublk",
            "rmmod ublk_drv && ssdlab sim serve sim:default,capacity=512MiB,op=50% --ublk; \
             echo \"status $?\"; insmod /lib/ssdlab-modules/ublk_drv.ko",
        )
        .step("serve", &serve_in_background(DRIVE, TWO_QUEUES, "/tmp/fs.log"))
        .step("mkfs", "mkfs.ext4 -q -F $(cat /tmp/fs.log.dev)")
        .step(
            "write",
            &format!(
                "{mount} && for i in 1 2 3 4 5 6; do dd if=/dev/urandom of=/mnt/d/f$i bs=64k count=$((i * 16)) 2>/dev/null; done\n\
                 cd /mnt/d && md5sum f* > /tmp/sums && rm f2 && fstrim -v /mnt/d; cd /; umount /mnt/d"
            ),
        )
        .step(
            "read-back",
            &format!("{mount} && cd /mnt/d && grep -v ' f2$' /tmp/sums | md5sum -c; cd /; umount /mnt/d"),
        )
        .step("fsck", "fsck.ext4 -fn $(cat /tmp/fs.log.dev)")
        .step(
            "guarded",
            "ssdlab run custom --target $(cat /tmp/fs.log.dev) --ios 10 --no-store -q; \
             echo \"status $?\"",
        )
        .step(
            "identify",
            "ssdlab identify --target $(cat /tmp/fs.log.dev) && \
             ssdlab identify --target $(cat /tmp/fs.log.dev) --json | grep -q '\"nand_bytes_written\"' \
             && echo json-has-the-counters",
        )
        .step("stop", &stop)
        .step("withdrawn", "ls /run/ssdlab/served/; echo listed")
        .step("kill", &kill_mid_write)
        .run()
    else {
        return;
    };
    let no_ublk = &guest.step("no-ublk").output;
    assert!(
        no_ublk.contains("ublk_drv is not loaded: modprobe ublk_drv")
            && !no_ublk.contains("status 0"),
        "{no_ublk}"
    );
    let serve = &guest.step("serve").ok().output;
    assert!(
        serve.contains("/dev/ublkb0: ssdlab simulated SSD"),
        "{serve}"
    );
    guest.step("mkfs").ok();
    let write = &guest.step("write").ok().output;
    assert!(write.contains("trimmed"), "{write}");
    let read_back = &guest.step("read-back").ok().output;
    assert_eq!(read_back.matches(": OK").count(), 5, "{read_back}");
    guest.step("fsck").ok();
    // The safety checks of real devices apply: it holds a filesystem.
    let guarded = &guest.step("guarded").output;
    assert!(
        guarded.contains("refusing to write /dev/ublkb0")
            && guarded.contains("--destroy-data=/dev/ublkb0")
            && !guarded.contains("status 0"),
        "{guarded}"
    );
    // While served, the device says which simulated drive it is, with its counters.
    let id = &guest.step("identify").ok().output;
    for expected in [
        "ssdlab simulated SSD",
        "transport            ublk",
        DRIVE,
        "ssdlab sim serve (pid ",
        "Requests served",
        "Write amplification",
        "GC invocations",
        "json-has-the-counters",
    ] {
        assert!(id.contains(expected), "no {expected} in:\n{id}");
    }
    let requests: u64 = id
        .lines()
        .find_map(|l| l.strip_prefix("Requests served"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no count of requests in:\n{id}"));
    let written: u64 = id
        .lines()
        .find_map(|l| l.strip_prefix("Host data written"))
        .and_then(|v| v.split('(').nth(1)?.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no bytes written in:\n{id}"));
    // The files are 21 MiB; the kernel merges writes up to the ublk buffer (libublk's 512
    // KiB), so how many requests depends on writeback, but never fewer than that allows.
    assert!(written >= 16 << 20, "{id}");
    assert!(requests >= written / (512 << 10), "{id}");
    let stop = &guest.step("stop").ok().output;
    for expected in [
        "IOs: ",
        "discards",
        "write amplification: ",
        "pacing error",
        "p99",
        "removed",
    ] {
        assert!(stop.contains(expected), "no {expected} in:\n{stop}");
    }
    assert!(!stop.contains("STILL RUNNING"), "{stop}");
    let withdrawn = &guest.step("withdrawn").output;
    assert!(
        withdrawn.contains("listed") && !withdrawn.contains("ublkb0"),
        "{withdrawn}"
    );
    eprintln!("the served drive's summary:\n{stop}");
    // Killed mid-write: the writer gets errors rather than hanging, and the kernel removes
    // the block device.
    let kill = &guest.step("kill").ok().output;
    assert!(
        kill.contains("removed") && kill.contains("none left"),
        "{kill}"
    );
    assert!(!kill.contains("dd exited 0"), "{kill}");
}

/// `benches/serve-vs-run.sh`: fio against served drives (4 KiB random writes at QD32, then
/// 128 KiB sequential writes over the whole drive with fio's bandwidth log) beside `ssdlab
/// run` on the same presets, and the same fio jobs on a file in the guest's RAM (tmpfs): the
/// ceiling QEMU's emulation (TCG) leaves. Prints a table; asserts only that everything ran.
#[test]
#[ignore]
fn bench_serve_against_run() {
    let secs: u32 = std::env::var("BENCH_SECONDS").map_or(10, |s| s.parse().unwrap());
    let capacity = std::env::var("BENCH_CAPACITY").unwrap_or_else(|_| "4GiB".into());
    // The served drives run this many times slower than the models, so that the guest
    // keeps up; fio's rates times it are the drive's, its SECS of drive time take longer.
    let slowdown: u32 = std::env::var("BENCH_SLOWDOWN").map_or(1, |s| s.parse().unwrap());
    // Sequential writes, a few large requests, keep up at a smaller slowdown.
    let seq_slowdown: u32 =
        std::env::var("BENCH_SEQ_SLOWDOWN").map_or(slowdown, |s| s.parse().unwrap());
    let presets = ["840-evo-250", "dc-s3700-200"];
    let random_for = |wall_secs: u32| {
        format!(
            "--rw=randwrite --bs=4k --iodepth=32 --time_based --runtime={wall_secs} --size=100%"
        )
    };
    let random = random_for(secs);
    let sequential_for = |log_ms: u32| {
        format!(
            "--rw=write --bs=128k --iodepth=32 --size=100% --write_bw_log=bw \
             --log_avg_msec={log_ms}"
        )
    };
    let sequential = sequential_for(1000);
    let served_queues = |slowdown: u32| format!("{BENCH_QUEUES} --slowdown {slowdown}");
    let fio = |file: &str, job: &str, out: &str| {
        format!(
            "fio --name=b --filename={file} --ioengine=io_uring --direct=1 {job} \
             --output-format=json --output={out} >/dev/null && cat {out}"
        )
    };
    let stop = |log: &str| format!("{} | tail -9", stop_served(log));
    let mut guest = ublk_guest()
        .program(SSDLAB)
        .tool("fio")
        .memory_mib(10240)
        .timeout(Duration::from_secs(3600))
        .step(
            "ram-random",
            &format!(
                "truncate -s 1G /tmp/ram.img && {}",
                fio("/tmp/ram.img", &random, "/tmp/ram-r.json")
            ),
        )
        .step(
            "ram-sequential",
            &fio("/tmp/ram.img", &sequential, "/tmp/ram-s.json"),
        )
        .step("ram-free", "rm -f /tmp/ram.img bw_bw.1.log");
    for p in presets {
        let target = format!("sim:{p},capacity={capacity}");
        let run = |args: &str, out: &str| {
            format!(
                "ssdlab run custom --target {target} --read-pct 0 --qd 32 {args} --no-store -q \
                 --json {out} --out /tmp/{out}.d >/dev/null && cat {out}"
            )
        };
        guest = guest
            .step(
                &format!("{p}-serve-r"),
                &format!(
                    "cd /tmp && {}",
                    serve_in_background(
                        &target,
                        &served_queues(slowdown),
                        &format!("/tmp/{p}-r.log")
                    )
                ),
            )
            .step(
                &format!("{p}-fio-random"),
                &format!(
                    "fio_dev=$(cat /tmp/{p}-r.log.dev); {}",
                    fio("$fio_dev", &random_for(secs * slowdown), "/tmp/f.json")
                ),
            )
            .step(&format!("{p}-stop-r"), &stop(&format!("/tmp/{p}-r.log")))
            .step(
                &format!("{p}-serve-s"),
                &serve_in_background(
                    &target,
                    &served_queues(seq_slowdown),
                    &format!("/tmp/{p}-s.log"),
                ),
            )
            .step(
                &format!("{p}-fio-sequential"),
                &format!(
                    "fio_dev=$(cat /tmp/{p}-s.log.dev); {}",
                    fio(
                        "$fio_dev",
                        &sequential_for(1000 * seq_slowdown),
                        "/tmp/f.json"
                    )
                ),
            )
            .step(
                &format!("{p}-bw-log"),
                "cut -d, -f1,2 bw_bw.1.log | tr -d ' ' | tr '\\n' ' '; rm -f bw_bw.1.log",
            )
            .step(&format!("{p}-stop-s"), &stop(&format!("/tmp/{p}-s.log")))
            .step(
                &format!("{p}-run-random"),
                &run(
                    &format!("--access random --bs 4K --duration {secs}"),
                    "r.json",
                ),
            )
            .step(
                &format!("{p}-run-sequential"),
                &run(
                    &format!("--access sequential --bs 128K --bytes {capacity}"),
                    "s.json",
                ),
            );
    }
    let Some(guest) = guest.run() else {
        return;
    };
    for s in &guest.steps {
        eprintln!(
            "== {} (status {})\n{}",
            s.name,
            s.status,
            s.output.trim_end()
        );
    }
    let json = |step: &str| -> serde_json::Value {
        let out = &guest.step(step).ok().output;
        serde_json::from_str(&out[out.find('{').unwrap_or(0)..])
            .unwrap_or_else(|e| panic!("{step}: {e}:\n{out}"))
    };
    let fio_write = |step: &str| {
        let w = &json(step)["jobs"][0]["write"];
        (
            w["iops"].as_f64().unwrap(),
            w["bw"].as_f64().unwrap() * 1024.0 / 1e6,
        )
    };
    let run_write = |step: &str| {
        let s = &json(step)["summary"]["write"];
        (s["iops"].as_f64().unwrap(), s["mbps"].as_f64().unwrap())
    };
    let (ram_iops, _) = fio_write("ram-random");
    let (_, ram_mbps) = fio_write("ram-sequential");
    println!("in the guest (QEMU TCG), {secs} s of 4 KiB random writes at QD32, then 128 KiB sequential writes over {capacity}");
    println!("fio on a tmpfs file (TCG's ceiling): {ram_iops:.0} IOPS, {ram_mbps:.1} MB/s");
    println!(
        "served {slowdown} (random) and {seq_slowdown} (sequential) times slower than the \
         models: fio's figures below are that many times those fio measured, its log's times \
         that fraction"
    );
    println!("preset           fio IOPS  run IOPS  ratio   fio MB/s  run MB/s  ratio");
    let (scale, seq_scale) = (f64::from(slowdown), f64::from(seq_slowdown));
    for p in presets {
        let (fio_iops, _) = fio_write(&format!("{p}-fio-random"));
        let (_, fio_mbps) = fio_write(&format!("{p}-fio-sequential"));
        let (fio_iops, fio_mbps) = (fio_iops * scale, fio_mbps * seq_scale);
        let (run_iops, _) = run_write(&format!("{p}-run-random"));
        let (_, run_mbps) = run_write(&format!("{p}-run-sequential"));
        println!(
            "{p:15} {fio_iops:9.0} {run_iops:9.0} {:6.2} {fio_mbps:10.1} {run_mbps:9.1} {:6.2}",
            fio_iops / run_iops,
            fio_mbps / run_mbps
        );
        for step in ["stop-r", "stop-s"] {
            println!(
                "{p} {step}:\n{}",
                guest.step(&format!("{p}-{step}")).ok().output
            );
        }
        // fio's log, in the drive's time: "ms, KiB/s" pairs.
        let log: Vec<String> = guest
            .step(&format!("{p}-bw-log"))
            .ok()
            .output
            .split_whitespace()
            .filter_map(|pair| {
                let (ms, kibs) = pair.split_once(',')?;
                let (ms, kibs): (f64, f64) = (ms.parse().ok()?, kibs.parse().ok()?);
                Some(format!(
                    "{:.1}s:{:.0}",
                    ms / seq_scale / 1e3,
                    kibs * seq_scale * 1024.0 / 1e6
                ))
            })
            .collect();
        println!(
            "{p} sequential write, drive time and MB/s: {}",
            log.join(" ")
        );
    }
}
