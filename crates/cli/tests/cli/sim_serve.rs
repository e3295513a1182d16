//! `ssdlab sim serve`: a simulated drive as a Linux block device over ublk, in the small
//! guest (see `test_support::guest`) booted on Debian's backports kernel, whose `ublk_drv`
//! the host's kernel may lack.

use test_support::guest::{Guest, GuestKernel};

fn ublk_guest() -> Guest {
    Guest::new()
        .kernel(GuestKernel::Backports)
        .module("ublk_drv")
}

#[test]
fn the_backports_guest_has_ublk() {
    let Some(guest) = ublk_guest()
        .step("control", "ls -l /dev/ublk-control && uname -r")
        .run()
    else {
        return;
    };
    let out = &guest.step("control").ok().output;
    assert!(out.contains("/dev/ublk-control"), "{out}");
}
