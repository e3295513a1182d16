//! ssdlab on emulated drives: QEMU's NVMe controller and an AHCI SATA disk, in a small guest
//! (see `test_support::guest`).

use test_support::guest::{Disk, Guest};

const SSDLAB: &str = env!("CARGO_BIN_EXE_ssdlab");

#[test]
fn the_guest_sees_the_emulated_drives() {
    let Some(run) = Guest::new()
        .disk(Disk::nvme("SSDLAB0001", 256 << 20))
        .disk(Disk::sata("SATA0001", "SSDLAB-SATA", 256 << 20))
        .program(SSDLAB)
        .step("identify-nvme", "ssdlab identify --target /dev/nvme0n1")
        .step("identify-sata", "ssdlab identify --target /dev/sda")
        .run()
    else {
        return;
    };
    eprintln!("guest ran in {:?}", run.elapsed);
    let nvme = &run.step("identify-nvme").ok().output;
    assert!(nvme.contains("QEMU NVMe Ctrl"), "{nvme}");
    let sata = &run.step("identify-sata").ok().output;
    assert!(sata.contains("SSDLAB-SATA"), "{sata}");
}
