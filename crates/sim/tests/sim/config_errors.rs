//! Specs, presets, TOML files, and impossible configurations that must be refused with a
//! message naming the problem and the fix.

use engine::system::MemoryBudget;
use engine::Device;

fn err(spec: &str) -> String {
    match sim::open(spec) {
        Ok(_) => panic!("{spec} was accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn zero_blocks_are_refused() {
    for spec in [
        "default,channels=0",
        "default,dies=0",
        "default,planes=0",
        "default,pages_per_block=0",
        "default,capacity=0",
    ] {
        let e = err(spec);
        assert!(e.contains("zero blocks"), "{spec}: {e}");
    }
    // Said of 0 alone: a value too large gives blocks enough.
    for spec in [
        "default,channels=100",
        "default,capacity=512K",
        "default,dies=65",
    ] {
        let e = err(spec);
        assert!(
            e.contains("is outside") && !e.contains("zero"),
            "{spec}: {e}"
        );
    }
}

#[test]
fn op_too_small_for_gc_is_refused_with_the_minimum() {
    let e = err("default,op=0.5%");
    assert!(
        e.contains("GC needs at least") && e.contains("raise op to at least"),
        "{e}"
    );
    // The suggested minimum works.
    let min: f64 = e
        .split("raise op to at least ")
        .nth(1)
        .unwrap()
        .split('%')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(sim::open(&format!("default,op={min}%")).is_ok());
    assert!(sim::open(&format!("default,op={}%", min / 2.0)).is_err());
}

/// A drive too small for its blocks is told so, with a capacity that works, never a spare
/// area past any drive's (a 64 MiB default was told to raise op to 168.8%).
#[test]
fn a_drive_too_small_for_its_blocks_is_given_a_capacity_that_works() {
    let e = err("default,capacity=64MiB");
    assert!(e.contains("is too small for its NAND"), "{e}");
    assert!(!e.contains("raise op"), "{e}");
    let mib: u64 = e
        .split("give capacity=")
        .nth(1)
        .and_then(|r| r.split("MiB").next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no capacity given: {e}"));
    assert!(
        sim::open(&format!("default,capacity={mib}MiB")).is_ok(),
        "{mib} MiB: {e}"
    );
}

#[test]
fn page_size_must_be_a_multiple_of_4k() {
    let e = err("default,page_size=6KiB");
    assert!(
        e.contains("not a multiple of 4 KiB") && e.contains("page_size=4KiB"),
        "{e}"
    );
    assert!(err("default,page_size=2KiB").contains("multiple of 4 KiB"));
    assert!(sim::open("default,page_size=8KiB").is_ok());
}

#[test]
fn unknown_presets_and_keys_name_the_alternatives() {
    let e = err("no-such-drive");
    assert!(
        e.contains("unknown preset 'no-such-drive'") && e.contains("ultra-plus-256"),
        "{e}"
    );
    let e = err("default,colour=blue");
    assert!(
        e.contains("unknown key 'colour'") && e.contains("op") && e.contains("gc"),
        "{e}"
    );
    let e = err("default,gc=lru");
    assert!(e.contains("gc=greedy"), "{e}");
    let e = err("default,op");
    assert!(e.contains("key=value"), "{e}");
    let e = err("default,t_prog=fast");
    assert!(e.contains("t_prog"), "{e}");
    let e = err("default,capacity=10000001");
    assert!(e.contains("multiple of the 4 KiB mapping unit"), "{e}");
    let e = err("default,capacity=1");
    assert!(e.contains("capacity=1 is outside"), "{e}");
    let e = err("default,gc_style=lazy");
    assert!(
        e.contains("gc_style=paced") && e.contains("gc_style=latency-first"),
        "{e}"
    );
    let e = err("default,trim=sometimes");
    assert!(
        e.contains("trim=partial") && e.contains("trim=deferred"),
        "{e}"
    );
    let e = err("default,map_unit=6KiB");
    assert!(e.contains("mapping unit must be"), "{e}");
    let e = err("default,t_prog=1ms/2ms/3ms/4ms");
    assert!(e.contains("at most 3"), "{e}");
    let e = err("default,cell=slc,slc_cache=1GiB");
    assert!(e.contains("slc_cache"), "{e}");
    let e = err("default,gc_threshold=2");
    assert!(e.contains("gc_threshold"), "{e}");
}

#[test]
fn every_preset_opens_and_describes_itself_honestly() {
    for (name, summary) in sim::presets() {
        assert!(!summary.is_empty());
        let cfg = sim::resolve(name).unwrap();
        let text = cfg.describe().unwrap();
        assert!(
            text.contains("physical/logical - 1") && text.contains("spare factor"),
            "{text}"
        );
        // Smaller capacity, same timing: every preset must open quickly for tests.
        let dev = sim::open(&format!("{name},capacity=32GiB")).unwrap();
        let id = dev.identity();
        assert_eq!(id.kind, engine::TargetKind::Sim);
        assert_eq!(id.details["preset"], name);
        if name != "default" {
            assert!(
                id.model.as_deref().unwrap().starts_with("ssdlab model of "),
                "{:?}",
                id.model
            );
            // Every parameter a preset sets says where its value comes from.
            let preset_keys: Vec<&(String, String, String)> = cfg
                .sources
                .iter()
                .filter(|(_, _, s)| !s.starts_with("ssdlab's default"))
                .collect();
            assert!(preset_keys.len() >= 10, "{name}: {preset_keys:?}");
            for (k, _, s) in preset_keys {
                assert!(
                    [
                        "published [",
                        "derived [",
                        "fitted to ",
                        "fitted outside the seeds to ",
                        "assumed: "
                    ]
                    .iter()
                    .any(|p| s.starts_with(p)),
                    "{name}: {k} has no source: {s}"
                );
                assert!(!s.contains("as recalled"), "{name}: {k}: {s}");
            }
            assert!(text.contains("parameters (value, and where it comes from)"));
        }
    }
    let dev = sim::open("extreme-ii-480").unwrap();
    assert_eq!(dev.geometry().capacity_bytes, 480_103_981_056);
    assert_eq!(
        dev.identity().model.unwrap(),
        "ssdlab model of SanDisk Extreme II 480GB"
    );
}

#[test]
fn overrides_apply_and_cell_resets_latencies() {
    let cfg = sim::resolve("ultra-plus-256,op=25%,gc=fifo,capacity=8GiB").unwrap();
    assert_eq!(cfg.op_pct, 25.0);
    assert_eq!(cfg.gc.policy, sim::GcPolicy::Fifo);
    assert_eq!(cfg.capacity_bytes, 8 << 30);
    let cfg = sim::resolve("default,t_prog=900us,cell=tlc").unwrap();
    assert_eq!(cfg.cell, sim::CellType::Tlc);
    assert_eq!(
        cfg.native.program.mean(),
        900_000,
        "t_prog applies after cell"
    );
    let cfg = sim::resolve("default,cell=tlc").unwrap();
    assert_eq!(cfg.native.program.mean(), 2_000_000);
    let cfg = sim::resolve("op=25%").unwrap();
    assert_eq!((cfg.preset.as_str(), cfg.op_pct), ("default", 25.0));
}

#[test]
fn toml_files_load_with_a_base_preset_and_overrides() {
    let dir = std::env::temp_dir().join(format!("ssdlab-sim-toml-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("drive.toml");
    std::fs::write(
        &path,
        "preset = \"840-pro-256\"\ncapacity = \"16GiB\"\nop = \"12%\"\ngc = \"cost-benefit\"\nplanes = 4\ndata = true\n",
    )
    .unwrap();
    let spec = format!("{},gc=greedy", path.display());
    let cfg = sim::resolve(&spec).unwrap();
    assert_eq!(cfg.preset, "840-pro-256");
    assert_eq!(cfg.capacity_bytes, 16 << 30);
    assert_eq!(cfg.op_pct, 12.0);
    assert_eq!(cfg.planes, 4);
    assert_eq!(cfg.data, sim::DataMode::On);
    assert_eq!(
        cfg.gc.policy,
        sim::GcPolicy::Greedy,
        "spec overrides come after the file"
    );
    std::fs::write(&path, "colour = \"blue\"\n").unwrap();
    assert!(err(&path.display().to_string()).contains("unknown key 'colour'"));
    std::fs::write(&path, "op = [1,2\n").unwrap();
    assert!(err(&path.display().to_string()).contains("not valid TOML"));
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(err("/nonexistent/x.toml").contains("/nonexistent/x.toml"));
}

#[test]
fn memory_is_at_most_12_bytes_per_4k_of_capacity() {
    // At each preset's full capacity, from its layout (without allocating the tables)...
    for (name, _) in sim::presets() {
        let cfg = sim::resolve(name).unwrap();
        let l = cfg.layout().unwrap();
        let per = cfg.ram_estimate(&l) as f64 / (cfg.capacity_bytes / 4096) as f64;
        println!("{name}: {per:.2} bytes per 4 KiB");
        assert!(per <= 12.0, "{name}: {per} bytes per 4 KiB");
    }
    // ...and the tables really are that size.
    let dev = sim::open("default").unwrap();
    let l = sim::resolve("default").unwrap().layout().unwrap();
    assert_eq!(
        dev.mapping_ram_bytes(),
        4 * (l.logical_units + l.physical_slots())
    );
}

#[test]
fn a_drive_too_large_for_memory_is_refused_before_allocating() {
    // 14 TiB needs ~31 GB of tables: refused with the figure, the limit and a size that fits.
    let cfg = sim::resolve("default,capacity=14T").unwrap();
    let e = sim::check_memory(&cfg, MemoryBudget::machine(24 << 30))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("needs about") && e.contains("only 24 GiB is available"),
        "{e}"
    );
    let fits: String = e
        .split("capacity=")
        .nth(1)
        .unwrap()
        .chars()
        .take_while(|c| !c.is_whitespace() && *c != ')')
        .collect();
    let smaller = sim::resolve(&format!("default,capacity={fits}")).unwrap();
    assert!(
        sim::check_memory(&smaller, MemoryBudget::machine(24 << 30)).is_ok(),
        "{fits}"
    );
    // The map unit shrinks the tables.
    let coarse = sim::resolve("default,capacity=14T,map_unit=16KiB").unwrap();
    assert!(sim::check_memory(&coarse, MemoryBudget::machine(24 << 30)).is_ok());
}

#[test]
fn a_toml_spec_must_be_a_regular_file_of_reasonable_size() {
    let dir = tempfile::tempdir().unwrap();
    let zero = dir.path().join("zero.toml");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let fifo = dir.path().join("fifo.toml");
    let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo(3) with a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    for path in [&zero, &fifo] {
        let e = err(&path.display().to_string());
        assert!(
            e.contains(&path.display().to_string()) && e.contains("not a regular file"),
            "{e}"
        );
    }
    // Valid TOML (comments), but far more than a drive's few dozen keys.
    let huge = dir.path().join("huge.toml");
    std::fs::write(&huge, "# a comment\n".repeat(200_000)).unwrap();
    let e = err(&huge.display().to_string());
    assert!(e.contains("longer than"), "{e}");
}

/// `value` (in the unit a key's range is in) written the way the key takes it.
fn written(quantity: sim::Quantity, value: f64) -> String {
    use sim::Quantity::*;
    match quantity {
        Count | Bytes | Nanos => format!("{}", value as u64),
        MBps | Factor => format!("{value}"),
        Joules => format!("{value}J"),
        Watts => format!("{value}W"),
        Percent => format!("{value}%"),
    }
}

#[test]
fn every_physical_key_is_held_to_its_range_with_the_reason() {
    for range in sim::preset::ranges() {
        let mut outside = vec![range.max * 2.0];
        if range.min > 0.0 {
            outside.push(range.min / 2.0);
        }
        for value in outside {
            let text = written(range.quantity, value);
            let mut cfg = sim::resolve("default").unwrap();
            let e = sim::preset::apply(&mut cfg, range.key, &text)
                .unwrap_err()
                .to_string();
            assert!(
                e.starts_with(&format!("{}={text} is outside ", range.key))
                    && e.contains(range.why),
                "{e}"
            );
        }
    }
}

#[test]
fn absurd_rates_energies_powers_and_times_are_refused_naming_the_range() {
    // What the probe gave: rates near zero or past a float, energies and powers near the
    // largest float, times below a nanosecond, NaN and infinity.
    for spec in [
        "channel_mbps=1e-9",
        "channel_mbps=1e-300",
        "link_mbps=1e-300",
        "slc_drain_rate=1e-9",
        "trim_rate=1e-300",
        "e_read=1e308",
        "slc_e_prog=1e300uJ",
        "p_active=1e300",
        "e_channel=1e300pJ",
        "t_read=0.001ns",
        "gc_burst_rate=1e300",
        "op=nan",
        "meta=inf%",
        "p_idle=NaN",
    ] {
        let e = err(&format!("default,{spec}"));
        let key = spec.split('=').next().unwrap();
        assert!(e.contains(&format!("{spec} is outside")), "{e}");
        assert!(e.contains(key), "{e}");
    }
}

#[test]
fn every_numeric_key_has_a_range() {
    // The keys that take a name, a switch, a fault list or a seed, not a quantity.
    const NOT_QUANTITIES: &[&str] = &[
        "cell",
        "link",
        "gc",
        "gc_style",
        "copyback",
        "gc_dest",
        "slc_region",
        "slc_full",
        "slc_drain",
        "trim",
        "read_ahead",
        "read_priority",
        "data",
        "faults",
        "trim_reads",
        "seed",
        "link_pm",
    ];
    for key in sim::KEYS {
        assert_ne!(
            key.quantity().is_some(),
            NOT_QUANTITIES.contains(&key.name),
            "{}",
            key.name
        );
    }
}

/// `sim show`'s parameters: (key, value) per line.
fn shown_parameters(description: &str) -> Vec<(String, String)> {
    let (_, parameters) = description
        .split_once("parameters (value, and where it comes from):\n")
        .expect("sim show lists the parameters");
    parameters
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            Some((words.next()?.to_string(), words.next()?.to_string()))
        })
        .collect()
}

/// The drive as `sim show` describes it, without the account of its parameters or the
/// reviewed hardware (which an override of `dram` or `cell` no longer claims).
fn drive_part(description: &str) -> Vec<&str> {
    let drive = description.split("parameters (value").next().unwrap();
    drive
        .lines()
        .filter(|line| !line.starts_with("reviewed hardware"))
        .collect()
}

/// Every value `sim show` gives a key reads back: set as an override, it builds the drive
/// described (but `cell` and `link`, which reset other keys), and a numeric one reads as
/// quantities that its spec text (what `sim fit` writes) gives again.
#[test]
fn every_value_shown_reads_back_as_the_same_drive() {
    for (name, _) in sim::presets() {
        let shown = sim::describe(name).unwrap();
        for (key, value) in shown_parameters(&shown) {
            if key == "cell" || key == "link" {
                continue;
            }
            let again = sim::describe(&format!("{name},{key}={value}"))
                .unwrap_or_else(|e| panic!("{name}: {key}={value}: {e}"));
            assert_eq!(
                drive_part(&again),
                drive_part(&shown),
                "{name}: {key}={value}"
            );
            // `quantities` reads a key's first quantity alone (gc_burst's blocks, not its
            // share), what a parameter search scales.
            if sim::preset::key(&key).unwrap().ranges().count() != 1 {
                continue;
            }
            let read = sim::preset::quantities(&key, &value).unwrap();
            let text = sim::preset::spec_text(&key, &read);
            let reread = sim::preset::quantities(&key, &text).unwrap();
            for (a, b) in read.iter().zip(&reread) {
                assert!(
                    (a - b).abs() <= 1e-3 * a.abs(),
                    "{name}: {key}={value} as {text}"
                );
            }
        }
    }
}

#[test]
fn a_cache_or_buffer_the_size_of_the_drive_is_refused_with_a_size_that_fits() {
    for (key, value) in [
        ("slc_cache", "1T"),
        ("slc_cache", "4T"),
        ("slc_cache", "2GiB"),
        ("write_buffer", "3GiB"),
    ] {
        let e = err(&format!("default,capacity=2GiB,{key}={value}"));
        assert!(
            e.contains(&format!("{key}=")) && e.contains("capacity") && e.contains("2 GiB"),
            "{e}"
        );
        let fits = e
            .split(&format!("e.g. {key}="))
            .nth(1)
            .unwrap_or_else(|| panic!("{e}"));
        let fits = fits.split_whitespace().next().unwrap();
        sim::open(&format!("default,capacity=2GiB,{key}={fits}"))
            .unwrap_or_else(|e| panic!("{key}={fits}: {e}"));
    }
    let e = err("default,capacity=2GiB,slc_cache=1T");
    assert!(e.contains("1022 GiB more than the capacity"), "{e}");
}

#[test]
fn capacity_suggestions_are_capacities_that_work() {
    // The largest size there is: refused by its range, never suggesting capacity=0.
    let e = err("default,capacity=18446744073709551615");
    assert!(e.contains("is outside") && !e.contains("capacity=0"), "{e}");
    let e = err("default,capacity=8388608T");
    assert!(e.contains("1 PiB"), "{e}");
    // Not a multiple of the mapping unit: rounded to one that opens.
    let e = err("default,capacity=4000000001");
    let fits = e
        .split("e.g. capacity=")
        .nth(1)
        .unwrap_or_else(|| panic!("{e}"));
    sim::open(&format!("default,capacity={fits}")).unwrap_or_else(|e| panic!("{fits}: {e}"));
}

#[test]
fn long_lines_and_values_are_quoted_in_part() {
    let dir = tempfile::tempdir().unwrap();
    let long = "x".repeat(400_000);
    let path = dir.path().join("drive.toml");
    for (text, says) in [
        (format!("op = \"{long}\n"), "not valid TOML: line 1"),
        (
            format!("capacity = \"{long}\"\n"),
            "longer than any key takes",
        ),
        (format!("{long} = 1\n"), "unknown key"),
    ] {
        std::fs::write(&path, text).unwrap();
        let e = err(&path.display().to_string());
        assert!(e.contains(says), "{}", &e[..e.len().min(300)]);
        assert!(e.len() < long.len() / 100, "{} bytes", e.len());
    }
}
