mod common;
use common::*;
use engine::{Device, Op};

#[test]
#[ignore]
fn probe() {
    for spec in [
        "default",
        "extreme-ii-480,capacity=16GiB",
        "ultra-plus-256,capacity=16GiB",
        "840-evo-1tb,capacity=32GiB",
        "840-pro-256,capacity=16GiB",
        "dc-s3700-200,capacity=16GiB",
    ] {
        let mut d = sim::open(spec).unwrap();
        let span = 8u64 << 30;
        let span = span.min(d.geometry().capacity_bytes);
        let cap0 = d.geometry().capacity_bytes;
        let f = fill(&mut d, cap0, 128 << 10);
        let rr = random_4k(&mut d, Op::Read, span, 3, None, Some(5_000_000_000), 1);
        let rr32 = random_4k(&mut d, Op::Read, span, 32, None, Some(5_000_000_000), 1);
        let mut at = 0u64;
        let cap = d.geometry().capacity_bytes;
        let sr = closed_loop(&mut d, 1, Some(5_000_000_000), || {
            let o = at % cap;
            at += 128 << 10;
            Some((Op::Read, o, 128 << 10))
        });
        let mut d2 = sim::open(spec).unwrap();
        let rw = random_4k(&mut d2, Op::Write, span, 3, None, Some(5_000_000_000), 2);
        let rw32 = random_4k(&mut d2, Op::Write, span, 32, None, Some(5_000_000_000), 3);
        let mut d3 = sim::open(spec).unwrap();
        let mut at = 0u64;
        let sw = closed_loop(&mut d3, 1, Some(5_000_000_000), || {
            let o = at % cap;
            at += 128 << 10;
            Some((Op::Write, o, 128 << 10))
        });
        println!("{spec}: fill {:.0} MB/s | RR QD3 {:.0} IOPS QD32 {:.0} | RW QD3 {:.0} QD32 {:.0} | SR {:.0} MB/s SW {:.0} MB/s",
            f.mbps(), rr.iops(), rr32.iops(), rw.iops(), rw32.iops(), sr.mbps(), sw.mbps());
    }
}
