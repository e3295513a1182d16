//! Write amplification against the analytic model of Desnoyers (SYSTOR 2012): under uniform
//! random writes, FIFO (LRW) cleaning gives WA = a / (a + W0(-a e^-a)) with a the ratio of
//! physical to logical space. Computed here, not pasted.

use crate::common::*;
use engine::{Device, Op};

/// Lambert W, principal branch, for x in [-1/e, 0), by Halley's iteration.
fn lambert_w0(x: f64) -> f64 {
    assert!((-1.0 / std::f64::consts::E..0.0).contains(&x));
    // Start near the branch point's series: w ~ -1 + p - p^2/3, p = sqrt(2(ex+1)).
    let p = (2.0 * (std::f64::consts::E * x + 1.0)).sqrt();
    let mut w = -1.0 + p - p * p / 3.0;
    for _ in 0..100 {
        let e = w.exp();
        let f = w * e - x;
        let step = f / (e * (w + 1.0) - (w + 2.0) * f / (2.0 * w + 2.0));
        w -= step;
        if step.abs() < 1e-15 {
            break;
        }
    }
    w
}

fn desnoyers_fifo_wa(a: f64) -> f64 {
    a / (a + lambert_w0(-a * (-a).exp()))
}

#[test]
fn lambert_w0_is_right() {
    // W0(-1/e) = -1, W0(-ln2/2) = -ln 2, and w e^w = x in general.
    assert!((lambert_w0(-1.0 / std::f64::consts::E + 1e-15) + 1.0).abs() < 1e-6);
    let x = -std::f64::consts::LN_2 / 2.0;
    assert!((lambert_w0(x) + std::f64::consts::LN_2).abs() < 1e-12);
    for x in [-0.3, -0.2, -0.05, -0.001] {
        let w = lambert_w0(x);
        assert!((w * w.exp() - x).abs() < 1e-12 && w > -1.0);
    }
}

/// Fill, then `passes` drive-writes of uniform random 4 KiB writes at QD32; returns the WA over
/// the second half of the random writes and a = physical / logical from the drive's counters.
fn steady_wa(spec: &str, passes: f64) -> (f64, f64) {
    let mut dev = sim::open(spec).unwrap();
    let cap = dev.geometry().capacity_bytes;
    fill(&mut dev, cap, 128 << 10);
    let units = cap / 4096;
    let half = (units as f64 * passes / 2.0) as u64;
    random_4k(&mut dev, Op::Write, cap, 32, Some(half), None, 7);
    let (h0, n0) = (
        (counters(&dev).host_write_pages as f64),
        (counters(&dev).nand_write_pages as f64),
    );
    random_4k(&mut dev, Op::Write, cap, 32, Some(half), None, 8);
    let (h1, n1) = (
        (counters(&dev).host_write_pages as f64),
        (counters(&dev).nand_write_pages as f64),
    );
    let a = (counters(&dev).physical_pages as f64) / (counters(&dev).logical_pages as f64);
    ((n1 - n0) / (h1 - h0), a)
}

fn spec(gc: &str, op: u32, pages_per_block: u32, capacity: &str) -> String {
    format!(
        "default,channels=1,dies=1,planes=1,page_size=4KiB,pages_per_block={pages_per_block},\
         gc={gc},gc_style=paced,gc_threshold=1,bg_gc_threshold=1,op={op}%,capacity={capacity}"
    )
}

#[test]
fn fifo_matches_desnoyers_within_3_percent() {
    for op in [7, 12, 25, 50] {
        let (wa, a) = steady_wa(&spec("fifo", op, 256, "2GiB"), 4.0);
        let model = desnoyers_fifo_wa(a);
        let err = (wa - model).abs() / model;
        println!(
            "FIFO op={op}%: a={a:.4} measured WA {wa:.3}, model {model:.3}, error {:.2}%",
            err * 100.0
        );
        assert!(err < 0.03, "op={op}%: WA {wa:.3} vs model {model:.3}");
    }
}

#[test]
fn greedy_is_at_or_below_fifo_and_approaches_it_with_bigger_blocks() {
    let mut gaps = Vec::new();
    for ppb in [16, 256] {
        let (fifo, _) = steady_wa(&spec("fifo", 12, ppb, "512MiB"), 4.0);
        let (greedy, _) = steady_wa(&spec("greedy", 12, ppb, "512MiB"), 4.0);
        let gap = (fifo - greedy) / fifo;
        println!(
            "op=12% pages/block {ppb}: FIFO {fifo:.3}, greedy {greedy:.3}, gap {:.1}%",
            gap * 100.0
        );
        assert!(greedy <= fifo * 1.005, "greedy {greedy} above FIFO {fifo}");
        gaps.push(gap);
    }
    assert!(
        gaps[1] < gaps[0] * 0.7,
        "greedy should approach FIFO as blocks grow: gaps {gaps:?}"
    );
}
