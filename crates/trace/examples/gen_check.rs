//! `cargo run --release -p trace --example gen_check -- PROFILE [SCALE] [SEED]`: generate in
//! memory-free streaming fashion and print the statistics next to the profile's targets.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut a = std::env::args().skip(1);
    let name = a.next().unwrap_or_else(|| "heavy-2011".into());
    let scale: f64 = a.next().map(|s| s.parse()).transpose()?.unwrap_or(1.0);
    let seed: u64 = a.next().map(|s| s.parse()).transpose()?.unwrap_or(1);
    let p = trace::synth::Profile::by_name(&name).ok_or("unknown profile")?;
    let t = std::time::Instant::now();
    let g = trace::synth::Generator::new(p.clone(), scale, seed)?;
    let mut b = trace::StatsBuilder::new();
    for r in g {
        b.add(&r);
    }
    let s = b.finish();
    print!("{}", s.to_table());
    eprintln!(
        "targets: reads {} writes {} GB r {} w {} seq {} qd {} qd1 {}",
        p.reads as f64 * scale,
        p.writes as f64 * scale,
        p.bytes_read as f64 * scale / 1e9,
        p.bytes_written as f64 * scale / 1e9,
        p.sequential_share,
        p.avg_queue_depth,
        p.qd1_share
    );
    eprintln!("{:.2} s", t.elapsed().as_secs_f64());
    Ok(())
}
