//! Identify Controller and Identify Namespace from one input (the first 4096 bytes are the
//! controller, the rest the namespace, zero-padded): a value or an error, never a panic.
#![no_main]

use drive::nvme::{IdentifyController, IdentifyNamespace};
use drive::{plan, Identify, PurgeMethod};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let (ctrl, ns) = data.split_at(data.len().min(4096));
    let mut ns = ns.to_vec();
    if !ns.is_empty() {
        ns.resize(4096, 0);
    }
    let n = IdentifyNamespace::parse(&ns).ok();
    if let Some(n) = &n {
        assert!(!n.lba_formats.is_empty() && n.lba_formats.len() <= 64);
        let _ = (n.block_size(), n.size_bytes());
    }
    if let Ok(c) = IdentifyController::parse(ctrl) {
        assert!(c.power_states.len() <= 32);
        let id = Identify::from_nvme(Some(1), c, n);
        let _ = id.summary();
        for m in PurgeMethod::ALL {
            let _ = plan(&id, m);
        }
    }
});
