//! Writes a sample of every chart kind to a directory, to look at them in a browser:
//!
//! ```text
//! cargo run -p bench --example charts -- /tmp/charts
//! ```
//!
//! The data is synthetic (a deterministic pseudo-random generator), shaped like the
//! reviews' results.

use std::path::{Path, PathBuf};

use bench::chart::{Axis, BarChart, NumberFormat, Series, XYChart};

/// xorshift64*: deterministic noise in [0, 1).
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// IOPS per second of a 2000 s 4 KiB random-write run: fresh blocks, then a cliff, then
/// a garbage-collected steady state with occasional dips and bursts.
fn consistency_run(seed: u64, burst_s: usize, steady: f64, spread: f64) -> Vec<(f64, f64)> {
    let mut n = Noise(seed);
    (0..2000)
        .map(|t| {
            let v = if t < burst_s {
                88_000.0 + 8_000.0 * n.next()
            } else {
                let r = n.next();
                if r < 0.03 {
                    50.0 + 800.0 * n.next() // GC stall
                } else if r < 0.06 {
                    45_000.0 + 20_000.0 * n.next() // burst past a 40K top
                } else {
                    steady * (1.0 - spread + 2.0 * spread * n.next())
                }
            };
            (t as f64, v)
        })
        .collect()
}

fn write(dir: &Path, name: &str, svg: String) -> std::io::Result<()> {
    let path = dir.join(name);
    std::fs::write(&path, svg)?;
    println!("{}", path.display());

    Ok(())
}

fn main() -> std::io::Result<()> {
    let dir: PathBuf = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            eprintln!("usage: charts OUTPUT_DIR");
            std::process::exit(2);
        });
    std::fs::create_dir_all(&dir)?;

    let drive = "Samsung SSD 840 EVO 250GB";
    let default_op = consistency_run(7, 260, 7_500.0, 0.45);
    let spare_25 = consistency_run(11, 420, 24_000.0, 0.2);
    let steady_of = |run: &[(f64, f64)]| -> Vec<(f64, f64)> {
        run.iter().copied().filter(|p| p.0 >= 1400.0).collect()
    };

    // 1. The whole run, log scale.
    write(
        &dir,
        "consistency_full_log.svg",
        XYChart::new(
            &format!("{drive} - 4KB Random Write (QD32) Performance"),
            Axis::linear("Time (s)").range(0.0, 2000.0),
            Axis::log10("IOPS").range(1.0, 1e6),
        )
        .subtitle("Default OP, 100% of the LBA span, incompressible data")
        .series(Series::dots("Default", default_op.clone()))
        .to_svg(),
    )?;
    // 1b. Same with both spare areas (legend).
    write(
        &dir,
        "consistency_full_log_two.svg",
        XYChart::new(
            &format!("{drive} - 4KB Random Write (QD32) Performance"),
            Axis::linear("Time (s)").range(0.0, 2000.0),
            Axis::log10("IOPS").range(1.0, 1e6),
        )
        .series(Series::dots("Default", default_op.clone()))
        .series(Series::dots("25% Spare Area", spare_25.clone()))
        .to_svg(),
    )?;
    // 2. Steady state, log scale.
    write(
        &dir,
        "consistency_steady_log.svg",
        XYChart::new(
            &format!("{drive} - Steady State 4KB Random Write (QD32)"),
            Axis::linear("Time (s)").range(1400.0, 2000.0),
            Axis::log10("IOPS").range(1.0, 1e6),
        )
        .series(Series::dots("Default", steady_of(&default_op)))
        .to_svg(),
    )?;
    // 3. Steady state, linear scale topped at 40K.
    write(
        &dir,
        "consistency_steady_linear.svg",
        XYChart::new(
            &format!("{drive} - Steady State 4KB Random Write (QD32)"),
            Axis::linear("Time (s)").range(1400.0, 2000.0),
            Axis::linear("IOPS").range(0.0, 40_000.0),
        )
        .series(Series::dots("Default", steady_of(&default_op)))
        .series(Series::dots("25% Spare Area", steady_of(&spare_25)))
        .to_svg(),
    )?;

    // 4. Transfer size (ATTO style).
    let sizes: Vec<f64> = (9..=26).map(|e| 2f64.powi(e)).collect();
    let curve = |peak: f64, half: f64| -> Vec<(f64, f64)> {
        sizes.iter().map(|&s| (s, peak * s / (s + half))).collect()
    };
    write(
        &dir,
        "transfer_size.svg",
        XYChart::new(
            &format!("{drive} - Performance vs. Transfer Size"),
            Axis::log2("Transfer size"),
            Axis::linear("MB/s"),
        )
        .subtitle("Sequential, QD4, 256 MiB region, compressible data")
        .series(Series::line("Read", curve(545.0, 12_000.0)))
        .series(Series::line("Write", curve(520.0, 9_000.0)))
        .to_svg(),
    )?;

    // 5. MB/s against LBA position (HD Tach style).
    let mut n = Noise(3);
    let lba = |base: f64, dip: f64, n: &mut Noise| -> Vec<(f64, f64)> {
        (0..=500)
            .map(|i| {
                let gb = i as f64 * 0.5;
                let v = if gb < 120.0 { dip } else { base };
                (gb, v * (0.96 + 0.08 * n.next()))
            })
            .collect()
    };
    write(
        &dir,
        "lba_sweep.svg",
        XYChart::new(
            &format!("{drive} - Sequential Write vs. LBA (TRIM validation)"),
            Axis::linear("LBA position (GB)").range(0.0, 250.0),
            Axis::linear("MB/s"),
        )
        .series(Series::line("Clean", lba(510.0, 510.0, &mut n)))
        .series(Series::line("Dirty", lba(330.0, 160.0, &mut n)))
        .series(Series::line("After TRIM", lba(500.0, 495.0, &mut n)))
        .to_svg(),
    )?;

    // 6. Bars, one value per drive, the reviewed drive highlighted.
    let drives = [
        ("Samsung SSD 840 Pro 256GB", 402.5),
        (drive, 385.1),
        ("Crucial M500 240GB", 250.3),
        ("OCZ Vector 150 240GB", 376.8),
        ("Intel SSD 530 240GB", 245.0),
        ("SanDisk Extreme II 240GB", 321.9),
        ("Seagate 600 240GB", 286.4),
        ("Corsair Neutron GTX 240GB", 299.7),
    ];
    let mut bars = BarChart::new("Desktop Iometer - 4KB Random Read", "MB/s")
        .subtitle("4 KiB random reads, QD3, 8 GiB span, 3 minutes");
    for (name, v) in drives {
        bars.push_row(name, &[v]);
    }
    write(
        &dir,
        "bars_single.svg",
        bars.highlight_label(drive).to_svg(),
    )?;

    // 7. Grouped bars.
    let mut grouped = BarChart::new("Desktop Iometer - 4KB Random Write (QD3)", "MB/s")
        .groups(&["Incompressible", "Compressible"]);
    for (i, (name, v)) in drives.iter().enumerate() {
        let comp = if name.starts_with("Intel") {
            v * 1.6
        } else {
            v * (0.97 + 0.01 * i as f64)
        };
        grouped.push_row(name, &[v * 0.8, comp]);
    }
    write(&dir, "bars_grouped.svg", grouped.highlight(1).to_svg())?;

    // 8. IOPS bars with SI ticks and whole-number labels.
    let mut iops = BarChart::new("Steady-state 4KB Random Write", "IOPS")
        .value_format(NumberFormat::Grouped(0));
    for (name, v) in drives {
        iops.push_row(name, &[v * 80.0]);
    }
    write(&dir, "bars_iops.svg", iops.highlight(1).to_svg())?;

    // 9. Hostile names render as text.
    write(
        &dir,
        "escaped.svg",
        BarChart::new("<script>alert(1)</script> & friends", "MB/s")
            .row("<script>alert(1)</script>", &[100.0])
            .row("Drive \"quoted\" & 'single'", &[50.0])
            .to_svg(),
    )?;

    edge_cases(&dir)
}

/// Awkward inputs, to check that nothing overlaps or breaks.
fn edge_cases(dir: &Path) -> std::io::Result<()> {
    let mut many = XYChart::new(
        "Eight series with long names (the legend wraps)",
        Axis::log2("Transfer size"),
        Axis::log10("IOPS"),
    );
    for i in 0..8 {
        let name = format!("Drive number {i} with a rather long model name");
        let pts = (9..=20).map(|e| (2f64.powi(e), 1e5 / (e - 8 + i) as f64));
        many.push(Series::line(&name, pts));
    }
    write(dir, "edge_many_series.svg", many.to_svg())?;
    write(
        dir,
        "edge_small.svg",
        XYChart::new(
            "Small 400 x 250",
            Axis::linear("Time (s)"),
            Axis::linear("IOPS"),
        )
        .size(400.0, 250.0)
        .series(Series::dots(
            "a",
            (0..2000).map(|t| (t as f64, (t * 37 % 4000) as f64 * 12.0)),
        ))
        .to_svg(),
    )?;
    write(
        dir,
        "edge_empty.svg",
        XYChart::new("No data", Axis::linear("Time (s)"), Axis::log10("IOPS")).to_svg(),
    )?;
    write(
        dir,
        "edge_single_point.svg",
        XYChart::new("One point", Axis::linear("x"), Axis::linear("y"))
            .series(Series::line("only", [(3.0, 7.0)]))
            .to_svg(),
    )?;
    write(
        dir,
        "edge_narrow_log.svg",
        XYChart::new(
            "Log axis within one decade",
            Axis::linear("x"),
            Axis::log10("IOPS").range(20_000.0, 40_000.0),
        )
        .series(Series::dots(
            "d",
            (0..200).map(|t| (t as f64, 20_000.0 + (t * 97 % 200) as f64 * 100.0)),
        ))
        .to_svg(),
    )?;
    write(
        dir,
        "edge_huge.svg",
        XYChart::new(
            "Huge and tiny numbers",
            Axis::linear("Bytes").format(NumberFormat::Bytes),
            Axis::linear("ratio"),
        )
        .series(Series::line(
            "l",
            (0..50).map(|i| (i as f64 * 3e11, 0.001 * i as f64)),
        ))
        .to_svg(),
    )?;
    write(
        dir,
        "edge_bars_negative.svg",
        BarChart::new("Change after TRIM", "%")
            .row("Improved a lot", &[42.0])
            .row("Got worse", &[-12.5])
            .row("Unchanged", &[0.0])
            .row("Missing", &[f64::NAN])
            .to_svg(),
    )?;
    write(
        dir,
        "edge_bars_clipped.svg",
        BarChart::new("Fixed range 0-300 with a value of 520", "MB/s")
            .range(0.0, 300.0)
            .row("Fast drive", &[520.0])
            .row("Slow drive", &[120.0])
            .to_svg(),
    )?;
    Ok(())
}
