//! What the drive says it is, whatever its interface, with a printable summary.

use serde::{Deserialize, Serialize};

use crate::ata::IdentifyDevice;
use crate::nvme::identify::DeallocatedRead;
use crate::nvme::{IdentifyController, IdentifyNamespace};
use crate::Interface;

/// The interface-specific identify data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Detail {
    Nvme {
        /// The namespace the device node stands for (None on a controller node).
        nsid: Option<u32>,
        controller: IdentifyController,
        namespace: Option<IdentifyNamespace>,
    },
    Ata(IdentifyDevice),
}

/// A drive's identity and capabilities.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Identify {
    pub interface: Interface,
    pub model: String,
    pub serial: String,
    pub firmware: String,
    /// Capacity of the namespace (NVMe) or device (ATA), when known.
    pub capacity_bytes: Option<u64>,
    pub logical_block_size: Option<u32>,
    pub physical_block_size: Option<u32>,
    pub detail: Detail,
}

impl Identify {
    pub fn from_nvme(
        nsid: Option<u32>,
        controller: IdentifyController,
        namespace: Option<IdentifyNamespace>,
    ) -> Self {
        Identify {
            interface: Interface::Nvme,
            model: controller.model.clone(),
            serial: controller.serial.clone(),
            firmware: controller.firmware.clone(),
            capacity_bytes: namespace.as_ref().and_then(IdentifyNamespace::size_bytes),
            logical_block_size: namespace.as_ref().and_then(IdentifyNamespace::block_size),
            // NVMe has no physical block size field (NPWG hints at it since 1.4; not read).
            physical_block_size: None,
            detail: Detail::Nvme {
                nsid,
                controller,
                namespace,
            },
        }
    }

    pub fn from_ata(d: IdentifyDevice) -> Self {
        Identify {
            interface: Interface::Ata,
            model: d.model.clone(),
            serial: d.serial.clone(),
            firmware: d.firmware.clone(),
            capacity_bytes: Some(d.capacity_bytes()),
            logical_block_size: Some(d.logical_sector_size),
            physical_block_size: Some(d.physical_sector_size),
            detail: Detail::Ata(d),
        }
    }

    /// Ordered (label, value) pairs for a terminal.
    pub fn summary(&self) -> Vec<(&'static str, String)> {
        let mut out: Vec<(&'static str, String)> = vec![
            ("Interface", self.interface.to_string()),
            ("Model", self.model.clone()),
            ("Serial", self.serial.clone()),
            ("Firmware", self.firmware.clone()),
        ];
        if let Some(c) = self.capacity_bytes {
            out.push((
                "Capacity",
                format!("{} ({c} bytes)", decimal_size(c as u128)),
            ));
        }
        match (self.logical_block_size, self.physical_block_size) {
            (Some(l), Some(p)) => {
                out.push(("Block size", format!("{l} B logical, {p} B physical")))
            }
            (Some(l), None) => out.push(("Block size", format!("{l} B"))),
            _ => {}
        }
        match &self.detail {
            Detail::Nvme {
                nsid,
                controller,
                namespace,
            } => nvme_summary(&mut out, *nsid, controller, namespace.as_ref()),
            Detail::Ata(d) => ata_summary(&mut out, d),
        }
        out
    }
}

fn yes_no(b: bool) -> String {
    if b { "yes" } else { "no" }.to_string()
}

fn list(items: &[(bool, &str)]) -> String {
    let on: Vec<&str> = items.iter().filter(|(b, _)| *b).map(|(_, s)| *s).collect();
    if on.is_empty() {
        "none".into()
    } else {
        on.join(", ")
    }
}

/// Bytes in decimal units, as drives are sold.
pub fn decimal_size(n: u128) -> String {
    const UNITS: [&str; 6] = ["B", "kB", "MB", "GB", "TB", "PB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1000.0 && u + 1 < UNITS.len() {
        v /= 1000.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.2} {}", UNITS[u])
    }
}

fn nvme_summary(
    out: &mut Vec<(&'static str, String)>,
    nsid: Option<u32>,
    c: &IdentifyController,
    ns: Option<&IdentifyNamespace>,
) {
    let (maj, min, ter) = c.version;
    if maj != 0 {
        out.push(("NVMe version", format!("{maj}.{min}.{ter}")));
    }
    out.push(("PCI vendor", format!("{:#06x}", c.vendor_id)));
    out.push((
        "Namespace",
        match nsid {
            Some(n) => format!("{n} (controller supports {})", c.namespaces),
            None => format!(
                "none: a controller node (supports {} namespaces)",
                c.namespaces
            ),
        },
    ));
    if c.total_capacity_bytes != 0 {
        out.push((
            "NVM capacity",
            format!(
                "{} total, {} unallocated",
                decimal_size(c.total_capacity_bytes),
                decimal_size(c.unallocated_capacity_bytes)
            ),
        ));
    }
    if let Some(ns) = ns {
        nvme_namespace(out, ns);
    }
    out.push(("Volatile write cache", yes_no(c.volatile_write_cache)));
    nvme_commands(out, c);
    nvme_power(out, c);
}

/// The namespace's use, LBA formats and what its deallocated blocks read as.
fn nvme_namespace(out: &mut Vec<(&'static str, String)>, ns: &IdentifyNamespace) {
    out.push((
        "Namespace use",
        format!(
            "{} of {} blocks allocated",
            ns.utilization_blocks, ns.size_blocks
        ),
    ));
    let formats: Vec<String> = ns
        .lba_formats
        .iter()
        .enumerate()
        .filter_map(|(i, f)| {
            let size = f.data_size()?;
            let mark = if i == usize::from(ns.format_index) {
                "*"
            } else {
                ""
            };
            Some(
                format!(
                    "{mark}{i}: {size}+{} ({:?})",
                    f.metadata_size, f.relative_performance
                )
                .to_lowercase(),
            )
        })
        .collect();
    out.push(("LBA formats (* in use)", formats.join(", ")));
    out.push((
        "Deallocated reads",
        match ns.dlfeat.read_value {
            DeallocatedRead::Zeroes => "zeroes",
            DeallocatedRead::Ones => "ones (FFh)",
            DeallocatedRead::NotReported | DeallocatedRead::Reserved => "not reported",
        }
        .into(),
    ));
}

/// The commands the controller supports, its firmware slots and transfer size.
fn nvme_commands(out: &mut Vec<(&'static str, String)>, c: &IdentifyController) {
    out.push((
        "NVM commands",
        list(&[
            (c.oncs.dataset_management, "deallocate (DSM)"),
            (c.oncs.write_zeroes, "write zeroes"),
            (c.oncs.compare, "compare"),
            (c.oncs.verify, "verify"),
            (c.oncs.copy, "copy"),
            (c.oncs.timestamp, "timestamp"),
        ]),
    ));
    out.push((
        "Admin commands",
        list(&[
            (c.oacs.format_nvm, "format NVM"),
            (c.oacs.security_send_receive, "security send/receive"),
            (c.oacs.namespace_management, "namespace management"),
            (c.oacs.firmware_download, "firmware download"),
            (c.oacs.device_self_test, "self-test"),
        ]),
    ));
    if c.oacs.format_nvm {
        out.push((
            "Format NVM",
            list(&[
                (true, "user data erase"),
                (c.fna.crypto_erase_supported, "crypto erase"),
                (
                    c.fna.format_applies_to_all_namespaces,
                    "applies to all namespaces",
                ),
            ]),
        ));
    }
    out.push((
        "Sanitize",
        list(&[
            (c.sanicap.block_erase, "block erase"),
            (c.sanicap.crypto_erase, "crypto erase"),
            (c.sanicap.overwrite, "overwrite"),
        ]),
    ));
    out.push((
        "Firmware slots",
        format!(
            "{}{}{}",
            c.frmw.slots,
            if c.frmw.slot1_read_only {
                ", slot 1 read-only"
            } else {
                ""
            },
            if c.frmw.activation_without_reset {
                ", activation without reset"
            } else {
                ""
            }
        ),
    ));
    if c.mdts != 0 {
        out.push((
            "Max data transfer",
            format!("2^{} x minimum page size", c.mdts),
        ));
    }
}

/// The controller's temperature thresholds and power states.
fn nvme_power(out: &mut Vec<(&'static str, String)>, c: &IdentifyController) {
    let temp = |t: Option<i32>| t.map_or("not reported".to_string(), |t| format!("{t} °C"));
    out.push((
        "Temperature thresholds",
        format!(
            "warning {}, critical {}",
            temp(c.warning_temp_c),
            temp(c.critical_temp_c)
        ),
    ));
    out.push((
        "APST",
        if c.apst_supported {
            "supported"
        } else {
            "not supported"
        }
        .into(),
    ));
    for (i, ps) in c.power_states.iter().enumerate() {
        let mut s = format!(
            "{i}: {:.4} W max{}, entry {} us, exit {} us",
            ps.max_power_w,
            if ps.non_operational {
                ", non-operational"
            } else {
                ""
            },
            ps.entry_latency_us,
            ps.exit_latency_us
        );
        if let Some(w) = ps.idle_power_w {
            s.push_str(&format!(", idle {w:.4} W"));
        }
        if let Some(w) = ps.active_power_w {
            s.push_str(&format!(", active {w:.4} W"));
        }
        out.push(("Power state", s));
    }
}

fn ata_summary(out: &mut Vec<(&'static str, String)>, d: &IdentifyDevice) {
    out.push((
        "Rotation",
        match d.rotation_rpm {
            Some(0) => "solid state".into(),
            Some(r) => format!("{r} rpm"),
            None => "not reported".into(),
        },
    ));
    let gen = |g: Option<u8>| {
        g.and_then(|g| crate::ata::identify::Sata::gbps(g).map(|s| format!("{s} Gb/s")))
            .unwrap_or_else(|| "not reported".into())
    };
    out.push((
        "SATA link",
        format!(
            "{} current, {} max",
            gen(d.sata.current_gen),
            gen(d.sata.max_gen)
        ),
    ));
    out.push((
        "NCQ",
        if d.sata.ncq {
            format!("depth {}", d.sata.queue_depth)
        } else {
            "no".into()
        },
    ));
    out.push((
        "Write cache",
        match (d.write_cache_supported, d.write_cache_enabled) {
            (_, true) => "enabled".into(),
            (true, false) => "disabled".into(),
            (false, false) => "not supported".into(),
        },
    ));
    out.push((
        "TRIM",
        if d.trim {
            list(&[
                (true, "supported"),
                (
                    d.deterministic_read_after_trim,
                    "deterministic reads after TRIM",
                ),
                (d.zeroes_after_trim, "reads zeroes after TRIM"),
            ])
        } else {
            "no".into()
        },
    ));
    let s = &d.security;
    out.push((
        "Security",
        if s.supported {
            let mins = |m: Option<u32>| m.map_or(String::new(), |m| format!(" ~{m} min"));
            list(&[
                (true, "supported"),
                (s.enabled, "enabled (password set)"),
                (s.locked, "locked"),
                (s.frozen, "frozen"),
                (!s.frozen, "not frozen"),
            ]) + &format!(
                "; erase{}{}",
                mins(s.erase_minutes),
                if s.enhanced_erase_supported {
                    format!(", enhanced erase{}", mins(s.enhanced_erase_minutes))
                } else {
                    String::new()
                }
            )
        } else {
            "not supported".into()
        },
    ));
    out.push((
        "Sanitize",
        if d.sanitize.supported {
            list(&[
                (d.sanitize.block_erase, "block erase"),
                (d.sanitize.crypto_scramble, "crypto scramble"),
                (d.sanitize.overwrite, "overwrite"),
            ])
        } else {
            "not supported".into()
        },
    ));
    out.push((
        "SMART",
        match (d.smart_supported, d.smart_enabled) {
            (_, true) => "enabled".into(),
            (true, false) => "disabled".into(),
            (false, false) => "not supported".into(),
        },
    ));
    out.push((
        "Link power management",
        list(&[
            (d.sata.hipm_supported, "HIPM"),
            (d.sata.dipm_supported, "DIPM"),
            (d.sata.dipm_enabled, "DIPM enabled"),
            (d.sata.devsleep_supported, "DevSleep"),
        ]),
    ));
    if d.checksum_bad {
        out.push((
            "Warning",
            "IDENTIFY data checksum is wrong: the values may be corrupt".into(),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ata::identify::fixtures::ssd;
    use crate::nvme::identify::fixtures::{controller, namespace};

    fn get<'a>(s: &'a [(&'static str, String)], k: &str) -> &'a str {
        &s.iter()
            .find(|(l, _)| *l == k)
            .unwrap_or_else(|| panic!("no {k} in {s:?}"))
            .1
    }

    #[test]
    fn nvme_summary_reads_well() {
        let id = Identify::from_nvme(
            Some(1),
            IdentifyController::parse(&controller()).unwrap(),
            Some(IdentifyNamespace::parse(&namespace()).unwrap()),
        );
        assert_eq!(id.capacity_bytes, Some(488_378_646 * 4096));
        let s = id.summary();
        assert_eq!(s[0], ("Interface", "NVMe".to_string()));
        assert_eq!(get(&s, "Capacity"), "2.00 TB (2000398934016 bytes)");
        assert_eq!(
            get(&s, "LBA formats (* in use)"),
            "0: 512+0 (good), *1: 4096+0 (best)"
        );
        assert_eq!(get(&s, "Sanitize"), "block erase, crypto erase");
        assert_eq!(get(&s, "Deallocated reads"), "zeroes");
        assert_eq!(
            get(&s, "Temperature thresholds"),
            "warning 82 °C, critical 85 °C"
        );
        let states: Vec<&str> = s
            .iter()
            .filter(|(l, _)| *l == "Power state")
            .map(|(_, v)| v.as_str())
            .collect();
        assert_eq!(states.len(), 3);
        assert_eq!(
            states[2],
            "2: 0.0050 W max, non-operational, entry 2000 us, exit 1200 us"
        );
        assert_eq!(get(&s, "NVMe version"), "1.4.0");
        let json = serde_json::to_string(&id).unwrap();
        let back: Identify = serde_json::from_str(&json).unwrap();
        assert_eq!(back, id);
    }

    #[test]
    fn ata_summary_reads_well() {
        let id = Identify::from_ata(IdentifyDevice::parse(&ssd().bytes()).unwrap());
        let s = id.summary();
        assert_eq!(get(&s, "Interface"), "ATA");
        assert_eq!(get(&s, "Block size"), "512 B logical, 4096 B physical");
        assert_eq!(get(&s, "SATA link"), "6 Gb/s current, 6 Gb/s max");
        assert_eq!(
            get(&s, "TRIM"),
            "supported, deterministic reads after TRIM, reads zeroes after TRIM"
        );
        assert_eq!(
            get(&s, "Security"),
            "supported, not frozen; erase ~2 min, enhanced erase ~8 min"
        );
        assert_eq!(get(&s, "Sanitize"), "block erase, crypto scramble");
        let back: Identify = serde_json::from_str(&serde_json::to_string(&id).unwrap()).unwrap();
        assert_eq!(back, id);
    }

    #[test]
    fn sizes() {
        assert_eq!(decimal_size(999), "999 B");
        assert_eq!(decimal_size(1_000_204_886_016), "1.00 TB");
        assert!(decimal_size(u128::MAX).ends_with(" PB"));
    }
}
