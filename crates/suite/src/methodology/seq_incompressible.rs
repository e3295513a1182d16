//! Incompressible sequential (METHODOLOGY section 4, AS-SSD style): write then read a 1 GiB
//! region once with 16 MiB transfers at QD1, incompressible data.

use engine::pattern::DataKind;
use engine::size::format_size;
use engine::workload::{Access, Limit, Workload};
use engine::Device;

use crate::context::Context;
use crate::params::{Overrides, DEFAULT_SEED};
use crate::result::{Report, TestResult};
use crate::SuiteError;

pub const REGION_BYTES: u64 = 1 << 30;
pub const TRANSFER_BYTES: u32 = 16 << 20;

pub fn run(
    dev: &mut dyn Device,
    ctx: &mut Context,
    o: &Overrides,
) -> Result<Vec<TestResult>, SuiteError> {
    let geo = dev.geometry();
    let block = o.block_bytes.unwrap_or(TRANSFER_BYTES);
    let want = o.span.map_or(REGION_BYTES, |s| {
        s.resolve(geo.capacity_bytes, block as u64)
    });
    let region = want.min(geo.capacity_bytes) / block as u64 * block as u64;
    let mut results = Vec::new();
    for (variant, read_pct) in [("write", 0u8), ("read", 100u8)] {
        let w = Workload {
            access: Access::Sequential,
            block_bytes: block,
            offset_bytes: 0,
            span_bytes: region,
            read_pct,
            op: None,
            data: o.data.unwrap_or(DataKind::Incompressible),
            qd: o.qd.unwrap_or(1),
            limit: Limit {
                bytes: Some(region),
                ..Limit::default()
            },
            seed: o.seed.unwrap_or(DEFAULT_SEED),
        };
        let mut report = Report::new(
            "seq-incompressible",
            format!(
                "{} sequential {variant}, {} transfers, QD{}, incompressible",
                format_size(region),
                format_size(block as u64),
                w.qd
            ),
        );
        report.variant = Some(variant.into());
        crate::note_overrides(&mut report.deviations, o, 1, TRANSFER_BYTES, 0.0);
        if region < REGION_BYTES && o.span.is_none() {
            report.deviations.push(format!(
                "region {} instead of 1 GiB: the target is smaller",
                format_size(region)
            ));
        }
        let outcome = ctx.drive(dev, &w, &report.label, true)?;
        let stop = outcome.stopped.is_some();
        results.push(report.finish(dev, &w, outcome));
        if stop {
            break;
        }
    }
    Ok(results)
}
