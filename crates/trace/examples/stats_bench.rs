//! Benchmark `trace stats` and trace import, and btt on the same data where it applies.
//!
//! ```text
//! cargo run --release -p trace --example stats_bench -- [DIR] [TEXT_IOS]
//! ```
//! 1. Generates destroyer-2013 at full scale (49.8M IOs) in the native format into DIR
//!    (default /tmp/ssdlab-bench; reused when present) and times `stats` over it.
//! 2. Writes TEXT_IOS IOs (default 2,000,000) of heavy-2011 as blkparse default text (Q, G, I,
//!    D and C lines per IO) and as a blktrace binary file with the same events, times the
//!    blkparse text import (lines/s) and `stats` over both, and times `btt -i` on the binary.

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::Instant;

use trace::blktrace::{ta, tc, RawEvent};
use trace::synth::{Generator, Profile};
use trace::{Op, TraceWriter};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().unwrap_or_else(|| "/tmp/ssdlab-bench".into()));
    let text_ios: u64 = args
        .next()
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(2_000_000);
    std::fs::create_dir_all(&dir)?;

    // 1. destroyer-2013, native
    let native = dir.join("destroyer-2013.ssdt");
    if !native.exists() {
        let t = Instant::now();
        let mut w = trace::create_writer(&native, trace::Format::Native)?;
        let n = trace::synth::generate_into(Profile::destroyer_2013(), 1.0, 1, &mut w)?;
        println!(
            "generate destroyer-2013: {n} IOs in {:.2} s",
            t.elapsed().as_secs_f64()
        );
    }
    let size = std::fs::metadata(&native)?.len();
    let t = Instant::now();
    let s = trace::stats::stats_of(trace::open(&native)?)?;
    let el = t.elapsed().as_secs_f64();
    println!(
        "stats native destroyer-2013, one thread: {} IOs, {:.1} MB file, {el:.2} s ({:.1} M IOs/s)",
        s.ios,
        size as f64 / 1e6,
        s.ios as f64 / el / 1e6
    );
    let t = Instant::now();
    let (s2, _) = trace::stats::stats_of_path(&native, Default::default())?;
    let el = t.elapsed().as_secs_f64();
    assert_eq!(s, s2);
    println!(
        "stats native destroyer-2013, decode thread + stats thread (what `ssdlab trace stats` runs): {el:.2} s ({:.1} M IOs/s)",
        s.ios as f64 / el / 1e6
    );

    // 2. blkparse text and blktrace binary with the same events
    let txt = dir.join("heavy.blkparse.txt");
    let bin = dir.join("heavy.blktrace.0");
    let scale = text_ios as f64 / 3_952_340.0;
    let mut tw = BufWriter::with_capacity(1 << 20, std::fs::File::create(&txt)?);
    let mut bw = BufWriter::with_capacity(1 << 20, std::fs::File::create(&bin)?);
    let mut buf = Vec::with_capacity(64);
    let mut lines = 0u64;
    let mut seq = 0u32;
    let dev = (8 << 20) | 16;
    for r in Generator::new(Profile::heavy_2011(), scale, 1)? {
        let (q, d, c) = (
            r.queue_ns.unwrap(),
            r.issue_ns.unwrap(),
            r.complete_ns.unwrap(),
        );
        let sector = r.offset_bytes / 512;
        let nsec = r.len_bytes / 512;
        let (rw, cat) = if r.op == Op::Read {
            ("R", 0)
        } else {
            ("W", tc::WRITE)
        };
        // blkparse prints events in time order; completions of a burst come later than the
        // next issues, which is fine for both readers (they pair by sector).
        for (t, a, code, act) in [
            (q, "Q", ta::QUEUE, tc::QUEUE),
            (q, "G", ta::GETRQ, tc::QUEUE),
            (q, "I", ta::INSERT, tc::QUEUE),
            (d, "D", ta::ISSUE, tc::ISSUE),
            (c, "C", ta::COMPLETE, tc::COMPLETE),
        ] {
            seq += 1;
            lines += 1;
            writeln!(
                tw,
                "  8,16   0 {seq:>8} {:>5}.{:09} {:>5}  {a}   {rw} {sector} + {nsec} [bench]",
                t / 1_000_000_000,
                t % 1_000_000_000,
                1000
            )?;
            buf.clear();
            RawEvent {
                sequence: seq,
                time_ns: t,
                sector,
                bytes: r.len_bytes,
                action: code | ((act | cat) << 16),
                pid: 1000,
                device: dev,
                cpu: 0,
                error: 0,
            }
            .encode(false, &[], &mut buf);
            bw.write_all(&buf)?;
        }
    }
    tw.flush()?;
    bw.flush()?;
    drop((tw, bw));
    let t = Instant::now();
    let st = trace::stats::stats_of(trace::open(&txt)?)?;
    let el = t.elapsed().as_secs_f64();
    println!(
        "blkparse text import + stats: {lines} lines, {} IOs, {el:.2} s ({:.2} M lines/s)",
        st.ios,
        lines as f64 / el / 1e6
    );
    let t = Instant::now();
    let n = trace::open(&txt)?.count();
    let el = t.elapsed().as_secs_f64();
    println!(
        "blkparse text import only: {n} records, {el:.2} s ({:.2} M lines/s)",
        lines as f64 / el / 1e6
    );
    let t = Instant::now();
    let sb = trace::stats::stats_of(trace::open(&bin)?)?;
    let our_bin = t.elapsed().as_secs_f64();
    println!(
        "blktrace binary import + stats: {} IOs, {our_bin:.2} s ({:.2} M events/s)",
        sb.ios,
        lines as f64 / our_bin / 1e6
    );
    let t = Instant::now();
    match std::process::Command::new("btt")
        .arg("-i")
        .arg(&bin)
        .output()
    {
        Ok(out) => {
            let el = t.elapsed().as_secs_f64();
            let o = String::from_utf8_lossy(&out.stdout);
            let d2c = o
                .lines()
                .find(|l| l.starts_with("D2C"))
                .unwrap_or("")
                .to_string();
            println!(
                "btt -i on the same binary: {el:.2} s ({:.2} M events/s); ratio btt/ours {:.1}x",
                lines as f64 / el / 1e6,
                el / our_bin
            );
            println!("  btt {d2c}");
            println!(
                "  ours D2C mean {:.9} s, n={}",
                sb.d2c_mean_us.unwrap_or(0.0) / 1e6,
                sb.d2c.as_ref().map_or(0, |l| l.count)
            );
        }
        Err(e) => println!("btt not run: {e}"),
    }
    let mut sink = trace::native::NativeWriter::new(std::io::sink());
    sink.finish()?;
    Ok(())
}
