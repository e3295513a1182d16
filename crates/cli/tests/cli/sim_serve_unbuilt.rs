//! `ssdlab sim serve` in a build without the `ublk` feature (the default: libublk needs
//! libclang to build) says how to get one. `sim_serve.rs` tests the feature itself
//! (`cargo test -p ssdlab --features ublk --test cli sim_serve`, as `.ci/run` does).

use crate::common::{run, text};

#[test]
fn serving_says_how_to_build_it() {
    let o = run(&["sim", "serve", "sim:default", "--ublk"]);
    assert!(!o.status.success());
    let msg = text(&o);
    assert!(
        msg.contains("built without ublk") && msg.contains("--features ublk"),
        "{msg}"
    );
    assert!(msg.contains("libclang-dev"), "{msg}");
}
