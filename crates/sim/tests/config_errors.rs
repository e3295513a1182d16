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
    assert!(e.contains("multiple of 4 KiB"), "{e}");
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
    assert_eq!(cfg.gc, sim::GcPolicy::Fifo);
    assert_eq!(cfg.capacity_bytes, 8 << 30);
    let cfg = sim::resolve("default,t_prog=900us,cell=tlc").unwrap();
    assert_eq!(cfg.cell, sim::CellType::Tlc);
    assert_eq!(cfg.native.program_ns, 900_000, "t_prog applies after cell");
    let cfg = sim::resolve("default,cell=tlc").unwrap();
    assert_eq!(cfg.native.program_ns, 2_000_000);
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
    assert!(cfg.data);
    assert_eq!(
        cfg.gc,
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
        let l = sim::resolve(name).unwrap().layout().unwrap();
        let per = 4.0 * (l.logical_units + l.physical_slots()) as f64 / l.logical_units as f64;
        println!("{name}: {per:.2} bytes of mapping table per 4 KiB");
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
