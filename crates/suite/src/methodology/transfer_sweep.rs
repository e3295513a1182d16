//! Performance against transfer size (docs/methodology.md section 5, ATTO style): sequential writes
//! then reads of a 256 MiB region at every transfer size from 512 B doubling to 64 MiB,
//! QD4, direct IO, highly compressible data. Two curves: read and write MB/s.

use serde::{Deserialize, Serialize};

use engine::pattern::DataKind;
use engine::shape::Shape;
use engine::size::Span;
use engine::units::format_size;
use engine::workload::{Access, Limit, Workload};
use engine::Device;

use super::{Defaults, Kind, Options, ReviewSection, Test, TestId};
use crate::analysis::Analysis;
use crate::context::Context;
use crate::params::{Overrides, DEFAULT_SEED};
use crate::result::{CurvePoint, Parameters, Report, SweepParameters, TestResult};
use crate::Result;

pub const REGION_BYTES: u64 = 256 << 20;
pub const SMALLEST: u32 = 512;
pub const LARGEST: u32 = 64 << 20;
/// ATTO's pattern compresses almost entirely.
pub const DATA: DataKind = DataKind::Compressible { compress_pct: 90 };

/// Every transfer size from [`SMALLEST`] to [`LARGEST`], each bounded by the region's bytes.
pub const DEFAULTS: Defaults = Defaults {
    qd: 4,
    block_bytes: 0,
    span: Span::Bytes(REGION_BYTES),
    duration_s: 0.0,
};

pub const TEST: Test = Test::writing(
    TestId::TransferSweep,
    Kind::TransferSweep,
    Some(ReviewSection::TransferSweep),
    "ATTO style: 512 B to 64 MiB transfers, sequential write and read of 256 MiB, QD4, compressible",
    DEFAULTS,
    Options::WORKLOAD,
    run,
);

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepAnalysis {
    pub peak_mbps: f64,
    pub peak_at_bytes: u64,
    /// The smallest transfer size reaching 90% of the peak.
    pub reaches_90pct_at_bytes: Option<u64>,
    /// Transfer sizes the target could not take (below its logical block size), or whose
    /// transfers in flight the region could not hold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_bytes: Vec<u64>,
}

/// Peak and the size reaching 90% of it, from (size, MB/s) pairs in size order.
pub fn analyse(points: &[(u64, f64)]) -> Option<(f64, u64, Option<u64>)> {
    let &(peak_at, peak) = points.iter().max_by(|a, b| a.1.total_cmp(&b.1))?;
    let at90 = points.iter().find(|p| p.1 >= 0.9 * peak).map(|p| p.0);
    Some((peak, peak_at, at90))
}

pub fn run(dev: &mut dyn Device, ctx: &mut Context, o: &Overrides) -> Result<Vec<TestResult>> {
    let geo = dev.geometry();
    let region = o
        .span
        .map_or(REGION_BYTES, |s| s.resolve(geo.capacity_bytes, 4096))
        .min(geo.capacity_bytes);
    let sizes: Vec<u32> =
        std::iter::successors(Some(SMALLEST), |&s| (s < LARGEST).then_some(s * 2)).collect();
    let qd = o.qd.unwrap_or(DEFAULTS.qd);
    // A size whose transfers in flight do not each have bytes of their own in the region
    // measures nothing (the engine refuses it): skipped, as one larger than the region.
    let (usable, skipped): (Vec<u32>, Vec<u32>) = sizes.into_iter().partition(|&s| {
        s % geo.logical_block_bytes == 0 && qd as u64 * s as u64 <= region
    });
    let data = o.data.unwrap_or(DATA);
    let workload = |size: u32, read_pct: u8| {
        let span = region / size as u64 * size as u64;
        Workload {
            access: Access::Sequential,
            block_bytes: size,
            offset_bytes: 0,
            span_bytes: span,
            read_pct,
            op: None,
            data,
            qd,
            limit: Limit {
                bytes: Some(span),
                ..Limit::default()
            },
            seed: o.seed.unwrap_or(DEFAULT_SEED),
            shape: Shape::default(),
            threads: 1,
        }
    };
    let mut curves: [Vec<(u32, engine::driver::Outcome)>; 2] = [Vec::new(), Vec::new()];
    'sizes: for &size in &usable {
        for (i, read_pct) in [(0usize, 0u8), (1, 100)] {
            let w = workload(size, read_pct);
            let dir = if read_pct == 0 { "write" } else { "read" };
            let label = format!(
                "transfer size {}: sequential {dir}, QD{qd}",
                format_size(size as u64)
            );
            let outcome = ctx.drive(dev, &w, &label, false)?;
            let stop = outcome.stopped.is_some();
            curves[i].push((size, outcome));
            if stop {
                break 'sizes;
            }
        }
    }
    let mut results = Vec::new();
    for (i, variant) in ["write", "read"].into_iter().enumerate() {
        let curve = std::mem::take(&mut curves[i]);
        let pairs: Vec<(u64, f64)> = curve
            .iter()
            .map(|(s, out)| (*s as u64, out.measurements.summary.mbps))
            .collect();
        let Some((peak, peak_at, at90)) = analyse(&pairs) else {
            continue;
        };
        let mut report = Report::new(
            TestId::TransferSweep,
            format!(
                "{variant} MB/s against transfer size ({} to {}), QD{qd}, {} region, {}",
                format_size(*usable.first().unwrap_or(&SMALLEST) as u64),
                format_size(*usable.last().unwrap_or(&LARGEST) as u64),
                format_size(region),
                data.label()
            ),
        );
        report.variant = Some(variant.into());
        (report.deviations).extend(deviations(region, !skipped.is_empty(), qd, geo.logical_block_bytes));
        report.points = curve
            .iter()
            .map(|(s, out)| CurvePoint {
                x: *s as f64,
                summary: out.measurements.summary.clone(),
            })
            .collect();
        report.analysis = Analysis::TransferSweep(SweepAnalysis {
            peak_mbps: peak,
            peak_at_bytes: peak_at,
            reaches_90pct_at_bytes: at90,
            skipped_bytes: skipped.iter().map(|&s| s as u64).collect(),
        });
        // The headline measurement is the peak point.
        let (size, outcome) = curve
            .into_iter()
            .find(|(s, _)| *s as u64 == peak_at)
            .expect("the peak is a point of the curve");
        let w = workload(size, if variant == "read" { 100 } else { 0 });
        let mut result = report.finish(dev, &w, outcome);
        result.complete = result.complete && result.points.len() == usable.len();
        result.parameters = Parameters::TransferSweep(SweepParameters {
            access: Access::Sequential,
            region_bytes: region,
            transfer_bytes: usable.clone(),
            qd,
            data,
            read_pct: w.read_pct,
            headline_point: w,
        });
        results.push(result);
    }
    Ok(results)
}

/// How a sweep of `region` at `qd` deviates from the methodology's, with sizes `skipped` or
/// not for the target's `logical_block`.
fn deviations(region: u64, skipped: bool, qd: u32, logical_block: u32) -> Vec<String> {
    let mut deviations = Vec::new();
    if region < REGION_BYTES {
        deviations.push(format!(
            "region {} instead of {}",
            format_size(region),
            format_size(REGION_BYTES)
        ));
    }
    if skipped {
        deviations.push(format!(
            "skipped transfer sizes below the target's {logical_block}-byte logical block or \
             whose QD{qd} transfers in flight are more than the region"
        ));
    }
    deviations
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peak_and_ninety_percent() {
        let pts = [
            (512, 20.0),
            (1024, 40.0),
            (4096, 300.0),
            (65536, 520.0),
            (1 << 20, 540.0),
            (1 << 26, 530.0),
        ];
        let (peak, at, at90) = analyse(&pts).unwrap();
        assert_eq!(peak, 540.0);
        assert_eq!(at, 1 << 20);
        assert_eq!(at90, Some(65536));
        assert!(analyse(&[]).is_none());
    }
}
