//! Power meters end to end: a real command replaying a recorded power trace, commands that
//! die, stall or print nonsense, and hwmon / powercap on a fake sysfs tree.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use engine::driver::{self, Hooks};
use engine::pattern::DataKind;
use engine::power::command::parse_reading;
use engine::power::{Meter, MeterError, MeterOptions, MeterSpec, PowerLog};
use engine::shape::Shape;
use engine::target::{Backend, OpenRequest, Registry};
use engine::workload::{Access, Limit, Workload};

/// Only keeps a broken meter from hanging the test run; nothing is timed against it.
const HANG_GUARD: Duration = Duration::from_secs(60);

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/power-trace.txt")
}

/// The fixture's readings, through the same grammar the meter uses.
fn fixture_watts() -> Vec<f64> {
    std::fs::read_to_string(fixture())
        .unwrap()
        .lines()
        .filter_map(|l| parse_reading(l).unwrap())
        .collect()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// A shell loop printing the fixture's lines 10 ms apart, as a USB meter's tool would.
fn replay(lines: &str) -> String {
    format!(
        "{lines} '{}' | while IFS= read -r line; do printf '%s\\n' \"$line\"; sleep 0.01; done",
        fixture().display()
    )
}

/// Options for a test that does not check the silence timeout: a meter that falls silent
/// for a minute is stuck, not slow.
fn patient() -> MeterOptions {
    MeterOptions {
        silence_timeout: HANG_GUARD,
        ..MeterOptions::default()
    }
}

/// What `attempt` gives with a silence timeout of `first`, or of twice that, and so on while
/// it gives None: a test of the timeout itself needs one short enough to wait out, but a
/// loaded machine may not have done what the test needs (print a line, read the error
/// output) within it. Only a hang guard bounds the retries; each checks the whole outcome.
fn growing_silence<T>(first: Duration, attempt: impl Fn(MeterOptions) -> Option<T>) -> T {
    let mut silence = first;
    loop {
        let options = MeterOptions {
            silence_timeout: silence,
            ..MeterOptions::default()
        };
        if let Some(outcome) = attempt(options) {
            return outcome;
        }
        assert!(
            silence < HANG_GUARD,
            "still too slow with {silence:?} of silence"
        );
        silence *= 2;
    }
}

fn start(spec: &str, options: &MeterOptions) -> Meter {
    let spec: MeterSpec = spec.parse().unwrap();
    Meter::start(&spec, options).unwrap().expect("a meter")
}

/// Wait until `done` holds for the meter's log so far.
fn wait_for(meter: &Meter, done: impl Fn(&PowerLog) -> bool) -> PowerLog {
    let deadline = Instant::now() + HANG_GUARD;
    loop {
        let log = meter.snapshot();
        if done(&log) {
            return log;
        }
        assert!(Instant::now() < deadline, "meter stuck: {log:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_replayed_trace_gives_its_mean_with_timestamps_on_the_elapsed_clock() {
    let expected = fixture_watts();
    assert!(expected.len() >= 300);
    let meter = start(&format!("cmd:{}", replay("cat")), &patient());
    // The command ends after the last line: power is missing from then on.
    wait_for(&meter, |l| l.missing.is_some());
    let stopped_s = meter.now_s();
    let log = meter.stop();

    let watts: Vec<f64> = log.samples.iter().map(|s| s.watts).collect();
    assert_eq!(watts, expected, "every reading, in order");
    let summary = log.summary(0.0, log.end_s).expect("power");
    let fixture_mean = mean(&expected);
    assert!((summary.mean_w - fixture_mean).abs() <= 0.01 * fixture_mean);
    assert!(summary.min_w >= 1.5 && summary.max_w <= 4.5);

    // Stamped on arrival: in order, never before the replay could have printed them (10 ms
    // apart from the meter's start), never after the meter was stopped.
    for (i, pair) in log.samples.windows(2).enumerate() {
        assert!(pair[1].t_s >= pair[0].t_s, "sample {} runs back", i + 1);
    }
    for (i, s) in log.samples.iter().enumerate() {
        assert!(
            s.t_s >= i as f64 * 0.01,
            "sample {i} at {} s is too early",
            s.t_s
        );
        assert!(s.t_s <= stopped_s);
    }
    let missing = log.missing.expect("missing after the end");
    assert!(
        missing.reason.contains("exited with status 0 after"),
        "{}",
        missing.reason
    );
    assert!(missing.from_s >= log.samples.last().unwrap().t_s);
}

#[test]
fn power_lines_up_with_the_io_series_of_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let spec = format!(
        "file:{}:{}",
        dir.path().join("target.img").display(),
        64 << 20
    );
    let request = OpenRequest {
        write: true,
        backend: Backend::Sync,
        destroy_data: None,
        ..OpenRequest::default()
    };
    let mut dev = Registry::real().open(&spec, &request).unwrap();
    let workload = Workload {
        access: Access::Random,
        block_bytes: 4096,
        offset_bytes: 0,
        span_bytes: 32 << 20,
        read_pct: 0,
        op: None,
        data: DataKind::Incompressible,
        qd: 4,
        limit: Limit {
            duration_ns: Some(2_000_000_000),
            ..Limit::default()
        },
        seed: 7,
        shape: Shape::default(),
        threads: 1,
    };
    // The trace over and over, until the meter is stopped.
    let endless = format!("while true; do {}; done", replay("cat"));
    let meter = start(&format!("cmd:{endless}"), &patient());
    wait_for(&meter, |l| !l.samples.is_empty());

    let run_start_s = meter.now_s();
    let outcome = driver::run(dev.as_mut(), &workload, Hooks::default()).unwrap();
    let run_end_s = meter.now_s();
    let log = meter.stop();
    assert_eq!(log.missing, None, "the meter ran throughout");

    let watts = log.per_second(run_start_s, run_end_s);
    let seconds = &outcome.measurements.per_second;
    assert!(seconds.len() >= 2);
    for point in seconds {
        let w = watts[point.t as usize].unwrap_or_else(|| panic!("no power in second {}", point.t));
        assert!((1.5..=4.5).contains(&w));
        // The same second of the meter's timeline, read directly: its readings, or in a
        // sliver of a last second without one, the reading standing then.
        let from = run_start_s + point.t as f64;
        let direct: Vec<f64> = log
            .samples
            .iter()
            .filter(|s| s.t_s >= from && s.t_s < (from + 1.0).min(run_end_s))
            .map(|s| s.watts)
            .collect();
        let standing = || {
            log.samples
                .iter()
                .rev()
                .find(|s| s.t_s <= from)
                .unwrap()
                .watts
        };
        let expected = if direct.is_empty() {
            standing()
        } else {
            mean(&direct)
        };
        assert_eq!(w, expected, "second {}", point.t);
    }
    let whole = log.summary(run_start_s, run_end_s).unwrap();
    assert!(whole.coverage() > 0.99, "{whole:?}");
}

#[test]
fn a_meter_that_dies_mid_run_leaves_power_missing_from_then() {
    let command = format!(
        "{}; echo 'meter: USB device went away' >&2; exit 3",
        replay("head -n 52")
    );
    let meter = start(&format!("cmd:{command}"), &patient());
    let log = wait_for(&meter, |l| l.missing.is_some());
    drop(meter); // Dropping a meter stops it too.

    // head -n 52: the two comment lines and 50 readings.
    let kept: Vec<f64> = log.samples.iter().map(|s| s.watts).collect();
    assert_eq!(kept, fixture_watts()[..50]);
    let missing = log.missing.clone().unwrap();
    assert!(
        missing
            .reason
            .contains("exited with status 3 after 50 readings")
            && missing.reason.contains("USB device went away"),
        "{}",
        missing.reason
    );
    let last = log.samples.last().unwrap().t_s;
    assert!(missing.from_s >= last);

    // Before: measured. After: missing, not zero.
    assert!(log.summary(0.0, last).is_some());
    assert_eq!(
        log.summary(missing.from_s + 0.01, missing.from_s + 5.0),
        None
    );
    let seconds = log.per_second(0.0, missing.from_s + 3.0);
    assert!(seconds[0].is_some());
    assert_eq!(seconds.last().unwrap(), &None);
    assert!(seconds.iter().flatten().all(|&w| w > 0.0));
    let whole = log.summary(0.0, missing.from_s + 3.0).unwrap();
    assert!(whole.coverage() < 1.0);
}

#[test]
fn a_silent_meter_is_missing_from_its_last_reading() {
    let (log, log_at_stop, options) = growing_silence(Duration::from_millis(500), |options| {
        let meter = start("cmd:echo 2.5; sleep 30", &options);
        let log = wait_for(&meter, |l| l.missing.is_some());
        let log_at_stop = meter.stop(); // Stops the sleeping command (its process group).
                                        // No reading: the command did not get to print its line within the timeout.
        (!log.samples.is_empty()).then_some((log, log_at_stop, options))
    });
    assert_eq!(log.samples.len(), 1);
    let missing = log.missing.unwrap();
    let quiet = format!(
        "no reading for {:.1} s",
        options.silence_timeout.as_secs_f64()
    );
    assert!(missing.reason.contains(&quiet), "{}", missing.reason);
    assert_eq!(missing.from_s, log.samples[0].t_s);
    assert_eq!(log_at_stop.samples, log.samples);

    // One that never prints is missing from the start, however slow the machine.
    let meter = start("cmd:sleep 30", &options);
    let log = wait_for(&meter, |l| l.missing.is_some());
    assert!(log.samples.is_empty());
    assert_eq!(log.missing.unwrap().from_s, 0.0);
}

#[test]
fn malformed_and_nonsense_lines_are_reported_with_their_line_number() {
    let run = |command: &str| {
        let meter = start(&format!("cmd:{command}"), &patient());
        wait_for(&meter, |l| l.missing.is_some());
        meter.stop()
    };
    let log = run("printf '3.1\\n3.2 W\\n# note\\n\\nVoltage,Current\\n3.3\\n'; sleep 30");
    assert_eq!(log.samples.len(), 2);
    let reason = log.missing.unwrap().reason;
    assert!(reason.contains("line 5 of the meter's output"), "{reason}");
    assert!(
        reason.contains("'Voltage,Current' is not a reading"),
        "{reason}"
    );

    let log = run("printf '3.1\\n3100\\n'; sleep 30");
    let reason = log.missing.unwrap().reason;
    assert!(
        reason.contains("line 2") && reason.contains("milliwatts"),
        "{reason}"
    );

    let log = run("printf 'nan\\n'; sleep 30");
    let reason = log.missing.unwrap().reason;
    assert!(
        reason.contains("line 1") && reason.contains("not a finite number"),
        "{reason}"
    );
}

#[test]
fn volts_and_amps_lines_become_watts() {
    let meter = start(
        "cmd:printf '5.0 V 0.5 A\\n5.0,0.6\\n0.7 A 5 V\\n5000 mV 800 mA\\n'",
        &patient(),
    );
    let log = wait_for(&meter, |l| l.missing.is_some());
    let watts: Vec<f64> = log.samples.iter().map(|s| s.watts).collect();
    let expected = [2.5, 3.0, 3.5, 4.0];
    assert_eq!(watts.len(), expected.len());
    for (w, e) in watts.iter().zip(expected) {
        assert!((w - e).abs() < 1e-9, "{watts:?}");
    }
}

#[test]
fn a_command_that_cannot_run_says_why() {
    let meter = start("cmd:no-such-meter-tool --watts", &patient());
    let log = wait_for(&meter, |l| l.missing.is_some());
    let reason = log.missing.unwrap().reason;
    assert!(
        reason.contains("exited with status 127 after 0 readings"),
        "{reason}"
    );
    assert!(reason.contains("no-such-meter-tool"), "{reason}");
}

#[test]
fn none_starts_no_meter() {
    let spec: MeterSpec = "none".parse().unwrap();
    assert!(Meter::start(&spec, &MeterOptions::default())
        .unwrap()
        .is_none());
}

// A fake sysfs: the kernel's files, written the way the kernel presents them.

/// Replace a sysfs attribute at once (a reader never sees it half written).
fn set(path: &Path, value: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, format!("{value}\n")).unwrap();
    std::fs::rename(tmp, path).unwrap();
}

fn fake_sysfs() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let hwmon = root.path().join("class/hwmon");
    set(&hwmon.join("hwmon0/name"), "nvme");
    set(&hwmon.join("hwmon0/temp1_input"), "38850");
    set(&hwmon.join("hwmon1/name"), "ina226");
    set(&hwmon.join("hwmon1/in0_input"), "2");
    set(&hwmon.join("hwmon1/in1_input"), "12000");
    set(&hwmon.join("hwmon1/curr1_input"), "250");
    set(&hwmon.join("hwmon1/power1_input"), "3250000");
    root
}

fn sysfs_options(root: &Path) -> MeterOptions {
    MeterOptions {
        sysfs_root: root.to_path_buf(),
        poll_interval: Duration::from_millis(5),
        // Short, yet no race: the fake files read without fail, so the timeout runs only
        // once a test removes one, and how soon it fires is not checked.
        silence_timeout: Duration::from_millis(500),
        ..MeterOptions::default()
    }
}

#[test]
fn hwmon_power_input_in_microwatts() {
    let root = fake_sysfs();
    let options = sysfs_options(root.path());
    let meter = start("hwmon:ina226", &options);
    wait_for(&meter, |l| l.samples.len() >= 3);
    set(
        &root.path().join("class/hwmon/hwmon1/power1_input"),
        "4100000",
    );
    wait_for(&meter, |l| l.samples.last().is_some_and(|s| s.watts == 4.1));
    let log = meter.stop();
    assert!(log
        .samples
        .iter()
        .all(|s| s.watts == 3.25 || s.watts == 4.1));
    assert_eq!(log.missing, None);
    assert!(log.description.contains("ina226") && log.description.contains("power1_input"));

    // The same sensor by its sysfs path.
    let path = root.path().join("class/hwmon/hwmon1/power1_input");
    let meter = start(&format!("hwmon:{}", path.display()), &options);
    let log = wait_for(&meter, |l| !l.samples.is_empty());
    assert_eq!(log.samples[0].watts, 4.1);
}

#[test]
fn hwmon_volts_times_amps() {
    let root = fake_sysfs();
    let meter = start(
        "hwmon:ina226/in1_input+curr1_input",
        &sysfs_options(root.path()),
    );
    let log = wait_for(&meter, |l| !l.samples.is_empty());
    assert!((log.samples[0].watts - 3.0).abs() < 1e-9, "12 V x 0.25 A");
}

#[test]
fn hwmon_that_vanishes_or_reports_nonsense() {
    let root = fake_sysfs();
    let options = sysfs_options(root.path());
    let power = root.path().join("class/hwmon/hwmon1/power1_input");

    let meter = start("hwmon:ina226", &options);
    wait_for(&meter, |l| !l.samples.is_empty());
    std::fs::remove_file(&power).unwrap();
    let log = wait_for(&meter, |l| l.missing.is_some());
    let missing = log.missing.unwrap();
    assert!(
        missing.reason.contains("no reading for 0.5 s"),
        "{}",
        missing.reason
    );
    assert_eq!(missing.from_s, log.samples.last().unwrap().t_s);

    set(&power, "250000000");
    let meter = start("hwmon:ina226", &options);
    let log = wait_for(&meter, |l| l.missing.is_some());
    assert!(log.samples.is_empty());
    let reason = log.missing.unwrap().reason;
    assert!(
        reason.contains("250 W") && reason.contains("more than 100 W"),
        "{reason}"
    );
}

#[test]
fn hwmon_errors_name_the_fix() {
    let root = fake_sysfs();
    let options = sysfs_options(root.path());
    let error = |spec: &str| -> MeterError {
        let spec: MeterSpec = spec.parse().unwrap();
        match Meter::start(&spec, &options) {
            Err(e) => e,
            Ok(_) => panic!("{spec} started"),
        }
    };
    let e = error("hwmon:ina219").to_string();
    assert!(
        e.contains("no hwmon sensor named 'ina219'") && e.contains("nvme, ina226"),
        "{e}"
    );
    let e = error("hwmon:nvme").to_string();
    assert!(
        e.contains("has no power*_input") && e.contains("in1_input+curr1_input"),
        "{e}"
    );
    let e = error("hwmon:ina226/power2_input").to_string();
    assert!(
        e.contains("cannot read") && e.contains("power2_input"),
        "{e}"
    );

    set(&root.path().join("class/hwmon/hwmon2/name"), "ina226");
    let e = error("hwmon:ina226").to_string();
    assert!(e.contains("2 hwmon sensors are named 'ina226'"), "{e}");
}

#[test]
fn powercap_energy_counter_across_wraps() {
    let root = tempfile::tempdir().unwrap();
    let zone = root.path().join("class/powercap/drive-rail:0");
    let max_range: u64 = 1_000_000;
    set(&zone.join("name"), "drive-rail");
    set(&zone.join("max_energy_range_uj"), &max_range.to_string());
    set(&zone.join("energy_uj"), "990000");

    let meter = start("powercap:drive-rail:0", &sysfs_options(root.path()));
    // About 5 W: 50 mJ every 10 ms, so the counter wraps every 200 ms.
    let mut energy = 990_000u64;
    let stop_at = Instant::now() + HANG_GUARD;
    let mut wraps = 0;
    while wraps < 3 || meter.snapshot().samples.len() < 20 {
        assert!(Instant::now() < stop_at, "powercap meter stuck");
        std::thread::sleep(Duration::from_millis(10));
        let next = (energy + 50_000) % (max_range + 1);
        wraps += usize::from(next < energy);
        energy = next;
        set(&zone.join("energy_uj"), &energy.to_string());
    }
    let log = meter.stop();
    assert_eq!(log.missing, None, "wraps are not failures");
    assert!(log.samples.iter().all(|s| (0.0..100.0).contains(&s.watts)));
    assert!(log.description.contains("drive-rail"));

    let spec: MeterSpec = "powercap:intel-rapl:0".parse().unwrap();
    let e = Meter::start(&spec, &sysfs_options(root.path()))
        .err()
        .expect("no such zone")
        .to_string();
    assert!(
        e.contains("no powercap zone 'intel-rapl:0'") && e.contains("drive-rail:0"),
        "{e}"
    );
}

#[test]
fn nvme_states_needs_an_nvme_drive() {
    let spec: MeterSpec = "nvme-states".parse().unwrap();
    let e = Meter::start(&spec, &MeterOptions::default()).err().unwrap();
    assert!(e.to_string().contains("nvme-states:/dev/nvme0n1"), "{e}");

    let file = tempfile::NamedTempFile::new().unwrap();
    let spec = MeterSpec::NvmeStates(Some(file.path().to_path_buf()));
    let e = Meter::start(&spec, &MeterOptions::default()).err().unwrap();
    assert!(e.to_string().contains("is not an NVMe drive"), "{e}");
}

#[test]
fn an_overlong_output_line_fails_the_meter_naming_it() {
    // Blanks are no reading, but 5000 of them before one are not a reading's line either.
    let meter = start("cmd:printf '%5000s3.2\\n3.3\\n' ''; sleep 30", &patient());
    let log = wait_for(&meter, |l| l.missing.is_some());
    assert!(log.samples.is_empty(), "{:?}", log.samples);
    let reason = log.missing.unwrap().reason;
    assert!(
        reason.contains("line 1 of the output of the meter command")
            && reason.contains("is longer than")
            && reason.contains("one reading per line"),
        "{reason}"
    );
}

#[test]
fn a_never_ending_error_line_is_cut_not_buffered_whole() {
    // A million bytes of error output without a newline, then silence: the meter's failure
    // shows the start of that line, not all of it (nor nothing, waiting for its end).
    // The silence timeout ends the meter: retried with a longer one while the error output
    // had not been read by then, so only a line never handed on fails the test.
    let written = 1_000_000;
    let reason = growing_silence(Duration::from_millis(500), |options| {
        let meter = start(
            &format!("cmd:head -c {written} /dev/zero | tr '\\0' x >&2; exec sleep 30"),
            &options,
        );
        let log = wait_for(&meter, |l| l.missing.is_some());
        let reason = log.missing.unwrap().reason;
        assert!(reason.len() < written / 10, "{} bytes", reason.len());
        reason
            .contains("its last error output: xxxx")
            .then_some(reason)
    });
    assert!(reason.contains("no reading for"), "{reason}");
}

/// A FIFO at `path` (a reader of it waits for a writer that never comes).
fn mkfifo(path: &Path) {
    let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo(3) with a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
}

#[test]
fn sensor_files_that_are_no_regular_files_are_refused() {
    let root = fake_sysfs();
    let options = sysfs_options(root.path());
    let error = |spec: &str| -> String {
        let spec: MeterSpec = spec.parse().unwrap();
        match Meter::start(&spec, &options) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("{spec} started"),
        }
    };
    let sensor = root.path().join("class/hwmon/hwmon1");
    std::os::unix::fs::symlink("/dev/zero", sensor.join("power2_input")).unwrap();
    mkfifo(&sensor.join("power3_input"));
    for file in ["power2_input", "power3_input"] {
        let e = error(&format!("hwmon:{}", sensor.join(file).display()));
        assert!(
            e.contains(file) && e.contains("not a regular file"),
            "{file}: {e}"
        );
    }
    // Far longer than a sysfs attribute's page.
    std::fs::write(sensor.join("power4_input"), "1".repeat(1 << 20)).unwrap();
    let e = error(&format!("hwmon:{}", sensor.join("power4_input").display()));
    assert!(e.contains("longer than"), "{e}");

    let zone = root.path().join("class/powercap/drive-rail:0");
    std::fs::create_dir_all(&zone).unwrap();
    mkfifo(&zone.join("energy_uj"));
    let e = error("powercap:drive-rail:0");
    assert!(
        e.contains("energy_uj") && e.contains("not a regular file"),
        "{e}"
    );
}

/// A command printing readings as fast as it can (`yes 5.0`, millions a second) keeps at
/// most a thousand readings in any second, the rest averaged into them, and says so: the
/// readings waiting for the meter's thread are bounded too, so stopping it is prompt.
#[test]
fn a_flooding_meter_keeps_a_thousand_readings_a_second_and_says_so() {
    let meter = start("cmd:yes 5.0", &patient());
    let log = wait_for(&meter, |l| l.averaged > 100_000);
    let log_end = meter.now_s();
    let kept = log.samples.len();
    let most = engine::power::MAX_READINGS_PER_S;
    assert!(
        kept as f64 <= (log_end + 1.0) * most as f64,
        "{kept} readings kept in {log_end} s"
    );
    assert!(log.samples.iter().all(|s| s.watts == 5.0));
    assert!(log
        .samples
        .windows(most + 1)
        .all(|w| w[most].t_s - w[0].t_s >= 1.0));
    let log = meter.stop();
    let power = engine::power::PhasePower::metered(&log, 0.0, log.end_s);
    let note = power.note.expect("the averaging said");
    assert!(note.contains("averaged"), "{note}");
    assert_eq!(power.summary.map(|s| s.mean_w), Some(5.0));
}
