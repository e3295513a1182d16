//! The review tests on the simulated SSD show the phenomena the reviews explained: the
//! consistency cliff when spare area runs out and the gain from 25% spare area, transfer-size
//! curves rising to the link limit, and TRIM restoring a tortured drive.

use std::sync::atomic::AtomicBool;

use suite::context::{Context, Silent};
use suite::params::Overrides;
use suite::result::TestResult;

fn run(spec: &str, test: &str, o: Overrides) -> Vec<TestResult> {
    let mut dev = suite::target::open(spec, &Default::default()).expect("open simulated drive");
    let stop = AtomicBool::new(false);
    let mut silent = Silent;
    let mut ctx = Context::new(&stop, &mut silent);
    suite::tests::run(test, dev.as_mut(), &mut ctx, &o).expect("test runs")
}

fn steady_mean(r: &TestResult) -> f64 {
    r.consistency()
        .and_then(|a| a.steady_state)
        .expect("steady-state figures")
        .mean
}

#[test]
fn consistency_drops_when_spare_area_runs_out_and_25pct_spare_helps() {
    let o = Overrides {
        duration_s: Some(400.0),
        ..Overrides::default()
    };
    let default_op = &run("sim:default", "consistency", o.clone())[0];
    assert!(default_op.complete);
    let iops: Vec<f64> = default_op.per_second.iter().map(|p| p.iops).collect();
    let drop = default_op
        .consistency()
        .and_then(|a| a.drop_s)
        .expect("the burst ends");
    assert!(drop >= 1, "a burst before the drop");
    let burst = iops[..drop].iter().sum::<f64>() / drop as f64;
    let steady = steady_mean(default_op);
    assert!(steady < 0.5 * burst, "steady {steady} vs burst {burst}");
    assert!(steady > 0.0);
    // Write amplification in steady state is well above 1 at the default spare area.
    let wa = default_op.write_amplification.expect("simulator counters");
    assert!(wa.steady_state.unwrap() > 2.0, "{wa:?}");

    let spare = &run(
        "sim:default",
        "consistency",
        Overrides {
            spare_pct: Some(25.0),
            ..o
        },
    )[0];
    assert_eq!(spare.variant.as_deref(), Some("spare-25"));
    assert!(
        steady_mean(spare) > 1.5 * steady,
        "25% spare area: {} vs default {steady}",
        steady_mean(spare)
    );
    assert!(spare.write_amplification.unwrap().steady_state < wa.steady_state);
}

#[test]
fn transfer_sweep_rises_and_saturates_at_the_link() {
    let results = run("sim:default", "transfer-sweep", Overrides::default());
    assert_eq!(results.len(), 2);
    for r in &results {
        let mbps: Vec<f64> = r.points.iter().map(|p| p.summary.mbps).collect();
        assert_eq!(r.points.first().unwrap().x, 512.0);
        assert_eq!(r.points.last().unwrap().x, (64u64 << 20) as f64);
        // Rises: the large transfers are many times faster than 512 B ones.
        assert!(
            mbps[mbps.len() - 1] > 5.0 * mbps[0],
            "{:?}: {mbps:?}",
            r.variant
        );
        // Saturates below the SATA 6 Gb/s payload limit (~600 MB/s) and flattens.
        let peak = r.transfer_sweep().expect("sweep figures").peak_mbps;
        assert!(peak <= 600.0, "{:?} peak {peak}", r.variant);
        let last4 = &mbps[mbps.len() - 4..];
        let (lo, hi) = last4
            .iter()
            .fold((f64::MAX, 0.0f64), |(l, h), &v| (l.min(v), h.max(v)));
        assert!(
            hi - lo < 0.1 * hi,
            "{:?} not flat at the top: {last4:?}",
            r.variant
        );
    }
}

#[test]
fn trim_restores_a_tortured_simulated_drive() {
    let o = Overrides {
        duration_s: Some(300.0),
        ..Overrides::default()
    };
    let r = &run("sim:default", "trim", o)[0];
    let a = r.trim().expect("TRIM figures");
    assert!(a.functional, "{}", a.verdict);
    let (dirty, clean) = (a.dirty.first_60s_mbps, a.clean.first_60s_mbps);
    assert!(
        dirty < 0.8 * clean,
        "torture should hurt: dirty {dirty} clean {clean}"
    );
}

#[test]
fn trim_ignored_is_not_functional() {
    let o = Overrides {
        duration_s: Some(300.0),
        ..Overrides::default()
    };
    let r = &run("sim:default,trim=off", "trim", o)[0];
    let a = r.trim().expect("TRIM figures");
    assert!(!a.functional, "{}", a.verdict);
    assert!(a.verdict.contains("not functional"));
}
