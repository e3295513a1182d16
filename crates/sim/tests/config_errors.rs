//! Specs, presets, TOML files, and impossible configurations that must be refused with a
//! message naming the problem and the fix.

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
    // The suggestion is a capacity that works, not zero.
    let e = err("default,capacity=1");
    assert!(e.contains("capacity=4096"), "{e}");
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
        assert_eq!(id.kind, "sim");
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
                    ["published [", "derived [", "fitted to ", "assumed: "]
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
    let e = sim::ssd::check_memory(&cfg, 24 << 30)
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
    assert!(sim::ssd::check_memory(&smaller, 24 << 30).is_ok(), "{fits}");
    // The map unit shrinks the tables.
    let coarse = sim::resolve("default,capacity=14T,map_unit=16KiB").unwrap();
    assert!(sim::ssd::check_memory(&coarse, 24 << 30).is_ok());
}
