//! Whether results are of one drive: a twin fitted to the figures of two drives (a 2 GiB and
//! a 4 GiB one, say) is the twin of neither, so a fit refuses them and says how they differ.

use engine::{Identity, TargetKind};

/// How `b` is another drive than `a`, in words; none when it is the same drive: model and
/// serial for a drive that tells both, the path (a file's, a simulated drive's spec) and the
/// capacity otherwise.
pub fn differs(a: &Identity, b: &Identity) -> Option<String> {
    let told =
        |t: &Identity| t.kind == TargetKind::Block && t.model.is_some() && t.serial.is_some();
    let same = if told(a) && told(b) {
        a.model == b.model && a.serial == b.serial
    } else {
        a.kind == b.kind && a.path == b.path && a.capacity_bytes == b.capacity_bytes
    };
    if same {
        return None;
    }
    let text = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".into());
    let size = engine::units::format_size;
    let mut how = Vec::new();
    if a.path != b.path {
        how.push(format!("target {} vs {}", a.path, b.path));
    }
    if a.model != b.model {
        how.push(format!("model {} vs {}", text(&a.model), text(&b.model)));
    }
    if a.serial != b.serial {
        how.push(format!("serial {} vs {}", text(&a.serial), text(&b.serial)));
    }
    if a.capacity_bytes != b.capacity_bytes {
        how.push(format!(
            "capacity {} vs {}",
            size(a.capacity_bytes),
            size(b.capacity_bytes)
        ));
    }
    if a.kind != b.kind {
        how.push(format!("kind {} vs {}", a.kind, b.kind));
    }
    Some(how.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sim(spec: &str, capacity: u64) -> Identity {
        let mut t = Identity::new(TargetKind::Sim, format!("sim:{spec}"));
        t.capacity_bytes = capacity;
        t
    }

    #[test]
    fn two_simulated_drives_differ_by_their_spec_and_size() {
        let a = sim("default,capacity=2G", 2 << 30);
        let b = sim("default,capacity=4G,channels=2", 4 << 30);
        assert_eq!(differs(&a, &a.clone()), None);
        let how = differs(&a, &b).unwrap();
        assert!(
            how.contains("target sim:default,capacity=2G vs sim:default,capacity=4G,channels=2"),
            "{how}"
        );
        assert!(how.contains("capacity 2 GiB vs 4 GiB"), "{how}");
    }

    #[test]
    fn a_drive_that_tells_its_serial_is_the_same_at_another_path() {
        let drive = |path: &str, serial: &str| {
            let mut t = Identity::new(TargetKind::Block, path);
            t.model = Some("Samsung SSD 840 EVO 250GB".into());
            t.serial = Some(serial.into());
            t
        };
        assert_eq!(
            differs(&drive("/dev/sda", "S1"), &drive("/dev/sdb", "S1")),
            None
        );
        let how = differs(&drive("/dev/sda", "S1"), &drive("/dev/sda", "S2")).unwrap();
        assert!(how.contains("serial S1 vs S2"), "{how}");
    }
}
