//! `cargo run --release -p trace --example trace_stats -- FILE [FORMAT]`: print `trace stats`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: trace_stats FILE [FORMAT]")?;
    let format = args.next().map(|f| f.parse()).transpose()?;
    let opts = trace::ReadOptions {
        format,
        skip_bad: false,
    };
    let t = std::time::Instant::now();
    let (stats, _) = trace::stats::stats_of_path(path.as_ref(), opts)?;
    print!("{}", stats.to_table());
    eprintln!("{:.3} s", t.elapsed().as_secs_f64());
    Ok(())
}
