//! Drive facts: what a preset's review states about the real drive's controller, NAND and
//! DRAM reaches the simulated target's identity under "controller", "nand" and "dram", and
//! nothing fills those keys that the review does not state.

use engine::Device;

fn details(spec: &str) -> std::collections::BTreeMap<String, String> {
    sim::open(spec).unwrap().identity().details
}

#[test]
fn the_reviewed_hardware_reaches_the_identity() {
    let evo = details("840-evo-1tb,capacity=32GiB");
    assert_eq!(evo["controller"], "Samsung MEX");
    assert_eq!(evo["nand"], "19nm Samsung TLC");
    assert_eq!(evo["dram"], "1GB");
    // The mSATA is the same hardware; the DRAM follows the capacity.
    let msata = details("840-evo-msata-120,capacity=32GiB");
    assert_eq!(msata["controller"], "Samsung MEX");
    assert_eq!(msata["dram"], "256MB");
    let xii = details("extreme-ii-480,capacity=32GiB");
    assert_eq!(xii["controller"], "Marvell 88SS9187");
    assert_eq!(xii["nand"], "SanDisk 19nm eX2 ABL MLC");
    assert_eq!(xii["dram"], "512MB DDR3-1600");
    assert_eq!(
        details("ultra-plus-256,capacity=32GiB")["dram"],
        "128MB Samsung DDR2-800"
    );
}

#[test]
fn nothing_is_stated_that_the_review_does_not_say() {
    // The Ultra Plus review saw only the 256GB's DRAM; the 840 Pro's and the S3700's
    // hardware is not in the seeds; the default preset is no real drive.
    let up64 = details("ultra-plus-64,capacity=32GiB");
    assert_eq!(up64["controller"], "Marvell 88SS9175");
    assert!(!up64.contains_key("dram"));
    for spec in ["840-pro-256", "dc-s3700-200", "x300s-512", "default"] {
        let d = details(&format!("{spec},capacity=32GiB"));
        for key in ["controller", "nand", "dram"] {
            assert!(!d.contains_key(key), "{spec}: {key} = {:?}", d.get(key));
        }
    }
}

#[test]
fn an_override_of_what_a_fact_describes_drops_it() {
    let d = details("840-evo-1tb,capacity=32GiB,cell=mlc,dram=2GiB");
    assert_eq!(d["controller"], "Samsung MEX");
    assert!(!d.contains_key("nand"));
    assert!(!d.contains_key("dram"));
}

#[test]
fn every_fact_is_a_known_key_from_a_cited_seed() {
    for (name, _) in sim::presets() {
        let cfg = sim::resolve(name).unwrap();
        for (key, value, seed) in &cfg.facts {
            assert!(
                sim::drives::FACT_KEYS.contains(&key.as_str()),
                "{name}: {key}"
            );
            assert!(!value.is_empty(), "{name}: {key}");
            assert!(
                sim::drives::SEEDS.iter().any(|(s, _)| s == seed),
                "{name}: {key} cites seed {seed}"
            );
        }
        if !cfg.facts.is_empty() {
            assert!(cfg.describe().unwrap().contains("reviewed hardware"));
        }
    }
}
