//! Scales, "nice" ticks and the mapping from data to pixels; tick labels are written in a
//! [`NumberFormat`].

use super::format::NumberFormat;

/// How values are spread along an axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// Evenly spaced values.
    Linear,
    /// Decades (1, 10, 100, ...) evenly spaced, with minor ticks at 2..9 of each decade.
    /// Non-positive values cannot be shown and are skipped.
    Log10,
    /// Powers of two evenly spaced (transfer sizes: 512 B, 1 KiB, ... 64 MiB).
    /// Non-positive values cannot be shown and are skipped.
    Log2,
}

impl Scale {
    /// The value in the scale's own units (itself, log10 or log2), or `None` when the
    /// value cannot be placed on this scale (not finite, or not positive on a log scale).
    pub fn transform(self, v: f64) -> Option<f64> {
        if !v.is_finite() {
            return None;
        }
        match self {
            Scale::Linear => Some(v),
            Scale::Log10 if v > 0.0 => Some(v.log10()),
            Scale::Log2 if v > 0.0 => Some(v.log2()),
            _ => None,
        }
    }

    /// Inverse of [`Scale::transform`].
    pub fn inverse(self, t: f64) -> f64 {
        match self {
            Scale::Linear => t,
            Scale::Log10 => 10f64.powf(t),
            Scale::Log2 => t.exp2(),
        }
    }

    fn is_log(self) -> bool {
        self != Scale::Linear
    }
}

/// One tick on an axis.
#[derive(Clone, Debug, PartialEq)]
pub struct Tick {
    /// Position in data units.
    pub value: f64,
    /// Text under (or beside) the tick; `None` for an unlabelled (minor or thinned) tick.
    pub label: Option<String>,
    /// Major ticks get a stronger gridline than minor ones.
    pub major: bool,
}

/// An axis of an [`XYChart`](super::XYChart): label with units, scale, optional fixed
/// range and tick label format.
#[derive(Clone, Debug)]
pub struct Axis {
    pub label: String,
    pub scale: Scale,
    /// Fixed `(min, max)` in data units; `None` fits the data with nice round ends.
    pub range: Option<(f64, f64)>,
    pub format: NumberFormat,
    /// Linear axes fitted to the data start at zero unless this is false.
    pub include_zero: bool,
}

impl Axis {
    fn new(label: &str, scale: Scale, format: NumberFormat) -> Axis {
        Axis {
            label: label.to_string(),
            scale,
            range: None,
            format,
            include_zero: true,
        }
    }

    /// A linear axis fitted to the data (from zero) with `Auto` labels.
    pub fn linear(label: &str) -> Axis {
        Axis::new(label, Scale::Linear, NumberFormat::Auto)
    }

    /// A log10 axis fitted to whole decades of the data, SI labels (1, 10, 100, 1K, ...).
    pub fn log10(label: &str) -> Axis {
        Axis::new(label, Scale::Log10, NumberFormat::Si)
    }

    /// A log2 axis fitted to powers of two of the data, byte labels (512 B, 1 KiB, ...).
    pub fn log2(label: &str) -> Axis {
        Axis::new(label, Scale::Log2, NumberFormat::Bytes)
    }

    /// Fixes the range. Data beyond it is clipped to the frame.
    pub fn range(mut self, min: f64, max: f64) -> Axis {
        self.range = Some((min, max));
        self
    }

    /// Sets the tick label format.
    pub fn format(mut self, format: NumberFormat) -> Axis {
        self.format = format;
        self
    }

    /// Whether a linear axis fitted to the data must include zero (default true).
    pub fn include_zero(mut self, yes: bool) -> Axis {
        self.include_zero = yes;
        self
    }

    /// The `(min, max)` the axis shows for data spanning `extent` (in data units, `None`
    /// when there is no data), and its ticks. `target` is the wished number of intervals
    /// between labelled ticks on a linear axis.
    pub fn resolve(&self, extent: Option<(f64, f64)>, target: usize) -> (f64, f64, Vec<Tick>) {
        let (lo, hi) = self.domain(extent, target);
        let mut ticks = match self.scale {
            Scale::Linear => {
                let unit = self.unit(hi - lo);
                let values: Vec<f64> = linear_ticks(lo / unit, hi / unit, target)
                    .into_iter()
                    .map(|v| v * unit)
                    .collect();
                let labels = self.format.format_all(&values);
                values
                    .into_iter()
                    .zip(labels)
                    .map(|(value, l)| Tick {
                        value,
                        label: Some(l),
                        major: true,
                    })
                    .collect()
            }
            Scale::Log10 => log10_ticks(lo, hi),
            Scale::Log2 => log2_ticks(lo, hi),
        };
        if self.scale.is_log() {
            let values: Vec<f64> = ticks.iter().map(|t| t.value).collect();
            let labels = self.format.format_all(&values);
            for (t, l) in ticks.iter_mut().zip(labels) {
                if t.label.is_some() {
                    t.label = Some(l);
                }
            }
        }
        (lo, hi, ticks)
    }

    /// The unit in which a linear axis picks round steps: a power of 1024 for byte
    /// labels (so ticks fall on 0, 2 TiB, 4 TiB rather than 1.82 TiB), else 1.
    fn unit(&self, span: f64) -> f64 {
        match self.format {
            NumberFormat::Bytes if span.is_finite() && span > 0.0 => {
                let k = (span.log2() / 10.0).floor().clamp(0.0, 5.0);
                1024f64.powf(k)
            }
            _ => 1.0,
        }
    }

    /// The shown range for data spanning `extent`.
    fn domain(&self, extent: Option<(f64, f64)>, target: usize) -> (f64, f64) {
        if let Some((a, b)) = self.range {
            return sane_fixed_range(self.scale, a, b);
        }
        match self.scale {
            Scale::Linear => {
                let (mut lo, mut hi) = extent.unwrap_or((0.0, 1.0));
                if self.include_zero {
                    lo = lo.min(0.0);
                    hi = hi.max(0.0);
                }
                if hi - lo <= 0.0 {
                    let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.5 };
                    lo -= if self.include_zero && lo >= 0.0 {
                        0.0
                    } else {
                        pad
                    };
                    hi += pad;
                }
                let unit = self.unit(hi - lo);
                let step = nice_step((hi - lo) / unit / target.max(1) as f64) * unit;
                ((lo / step).floor() * step, (hi / step).ceil() * step)
            }
            Scale::Log10 | Scale::Log2 => {
                let (lo, hi) = extent.unwrap_or((1.0, 10.0));
                let base = if self.scale == Scale::Log10 {
                    10f64
                } else {
                    2f64
                };
                let t = |v: f64| self.scale.transform(v).unwrap_or(0.0);
                let (a, mut b) = (t(lo).floor(), t(hi).ceil());
                if b <= a {
                    b = a + 1.0;
                }
                (base.powf(a), base.powf(b))
            }
        }
    }
}

/// Makes a user-given range usable: ordered, non-empty, positive on a log scale.
fn sane_fixed_range(scale: Scale, a: f64, b: f64) -> (f64, f64) {
    let (mut lo, mut hi) = if a <= b { (a, b) } else { (b, a) };
    if !lo.is_finite() || !hi.is_finite() {
        return if scale.is_log() {
            (1.0, 10.0)
        } else {
            (0.0, 1.0)
        };
    }
    if scale.is_log() {
        if hi <= 0.0 {
            hi = 10.0;
        }
        if lo <= 0.0 {
            lo = hi / 1000.0;
        }
        if lo == hi {
            lo /= 10.0;
            hi *= 10.0;
        }
    } else if lo == hi {
        lo -= 1.0;
        hi += 1.0;
    }
    (lo, hi)
}

/// The smallest "nice" step (1, 2, 2.5 or 5 times a power of ten) at least `raw`.
pub fn nice_step(raw: f64) -> f64 {
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let mag = 10f64.powf(raw.log10().floor());
    let norm = raw / mag;
    let nice = [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .find(|&n| norm <= n * (1.0 + 1e-9))
        .unwrap_or(10.0);
    nice * mag
}

/// Nice tick values covering `[lo, hi]` with about `target` intervals: for 0..40000 and
/// 4 intervals, `0, 10000, 20000, 30000, 40000`. Values are exact multiples of the step.
pub fn linear_ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return Vec::new();
    }
    let step = nice_step((hi - lo) / target.max(1) as f64);
    let first = (lo / step - 1e-9).ceil() as i64;
    let last = (hi / step + 1e-9).floor() as i64;
    // Steps below 1 are written as an integer over a power of ten, so that 3 x 0.2 is
    // exactly the double nearest 0.6 rather than 0.6000000000000001.
    let decimals = (0..=15)
        .find(|&d| {
            let scaled = step * 10f64.powi(d);
            (scaled - scaled.round()).abs() < 1e-6
        })
        .unwrap_or(0);
    let scale = 10f64.powi(decimals);
    let int_step = (step * scale).round();
    (first..=last)
        .map(|k| {
            let v = if decimals == 0 {
                k as f64 * step
            } else {
                k as f64 * int_step / scale
            };
            if v == 0.0 {
                0.0
            } else {
                v
            }
        })
        .collect()
}

/// Decade ticks for a log10 axis over `[lo, hi]`: major (labelled) ticks at powers of ten,
/// minor ticks at 2..9 times them. When the range holds fewer than two decades the minor
/// ticks are labelled too, so the axis is never left without numbers. When it holds more
/// than ten, every other decade is labelled.
pub fn log10_ticks(lo: f64, hi: f64) -> Vec<Tick> {
    if !(lo > 0.0 && hi > lo && hi.is_finite()) {
        return Vec::new();
    }
    let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let inside = |v: f64| v >= lo * (1.0 - 1e-9) && v <= hi * (1.0 + 1e-9);
    let mut ticks = Vec::new();
    for e in a..=b {
        let decade = 10f64.powi(e);
        for m in 1..=9 {
            let v = m as f64 * decade;
            if inside(v) {
                ticks.push(Tick {
                    value: v,
                    label: None,
                    major: m == 1,
                });
            }
        }
    }
    let majors = ticks.iter().filter(|t| t.major).count();
    let every = if majors > 10 { 2 } else { 1 };
    let mut k = 0;
    for t in ticks.iter_mut() {
        if t.major {
            if k % every == 0 {
                t.label = Some(String::new());
            }
            k += 1;
        } else if majors < 2 {
            t.label = Some(String::new());
        }
    }
    ticks
}

/// Power-of-two ticks for a log2 axis over `[lo, hi]`, all labelled (the chart thins the
/// labels when they would collide) and all major.
pub fn log2_ticks(lo: f64, hi: f64) -> Vec<Tick> {
    if !(lo > 0.0 && hi > lo && hi.is_finite()) {
        return Vec::new();
    }
    let (a, b) = (lo.log2().ceil() as i32 - 1, hi.log2().floor() as i32 + 1);
    (a..=b)
        .map(|e| 2f64.powi(e))
        .filter(|&v| v >= lo * (1.0 - 1e-9) && v <= hi * (1.0 + 1e-9))
        .map(|value| Tick {
            value,
            label: Some(String::new()),
            major: true,
        })
        .collect()
}

/// Maps data values on one axis to pixels: `t0..t1` (in the scale's units) onto
/// `p0..p1` (pixels; for a y axis `p0` is the bottom, so `p0 > p1`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AxisMap {
    pub scale: Scale,
    pub t0: f64,
    pub t1: f64,
    pub p0: f64,
    pub p1: f64,
}

impl AxisMap {
    /// A map for the data range `lo..hi` onto pixels `p0..p1`.
    pub fn new(scale: Scale, lo: f64, hi: f64, p0: f64, p1: f64) -> AxisMap {
        let t0 = scale.transform(lo).unwrap_or(0.0);
        let mut t1 = scale.transform(hi).unwrap_or(t0 + 1.0);
        if t1 <= t0 {
            t1 = t0 + 1.0;
        }
        AxisMap {
            scale,
            t0,
            t1,
            p0,
            p1,
        }
    }

    /// The pixel of value `v`, unclipped; `None` when the scale cannot show it.
    pub fn map(&self, v: f64) -> Option<f64> {
        self.scale.transform(v).map(|t| self.map_t(t))
    }

    /// The pixel of a value already in the scale's units.
    pub fn map_t(&self, t: f64) -> f64 {
        self.p0 + (t - self.t0) / (self.t1 - self.t0) * (self.p1 - self.p0)
    }

    /// Whether value `v` lies within the axis range (with a hair of tolerance).
    pub fn contains(&self, v: f64) -> bool {
        match self.scale.transform(v) {
            Some(t) => {
                let eps = (self.t1 - self.t0) * 1e-9;
                t >= self.t0 - eps && t <= self.t1 + eps
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(ticks: &[Tick]) -> Vec<String> {
        ticks.iter().filter_map(|t| t.label.clone()).collect()
    }

    #[test]
    fn nice_steps() {
        assert_eq!(nice_step(7500.0), 10000.0);
        assert_eq!(nice_step(6000.0), 10000.0);
        assert_eq!(nice_step(4000.0), 5000.0);
        assert_eq!(nice_step(230.0), 250.0);
        assert_eq!(nice_step(0.13), 0.2);
        assert_eq!(nice_step(1.0), 1.0);
        assert_eq!(nice_step(0.0), 1.0);
        assert_eq!(nice_step(f64::NAN), 1.0);
    }

    #[test]
    fn linear_ticks_are_round_and_labelled_with_si_suffixes() {
        let v = linear_ticks(0.0, 40000.0, 4);
        assert_eq!(v, vec![0.0, 10000.0, 20000.0, 30000.0, 40000.0]);
        let l = NumberFormat::Auto.format_all(&v);
        assert_eq!(l, vec!["0", "10K", "20K", "30K", "40K"]);
        assert_eq!(
            linear_ticks(0.0, 1.0, 5),
            vec![0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
        );
        assert_eq!(
            NumberFormat::Auto.format_all(&linear_ticks(0.0, 0.3, 3)),
            vec!["0", "0.1", "0.2", "0.3"]
        );
        assert!(linear_ticks(5.0, 5.0, 4).is_empty());
        assert!(linear_ticks(f64::NAN, 5.0, 4).is_empty());
    }

    #[test]
    fn fitted_linear_axis_starts_at_zero_and_ends_on_a_round_number() {
        let (lo, hi, ticks) = Axis::linear("IOPS").resolve(Some((3217.0, 37120.0)), 4);
        assert_eq!((lo, hi), (0.0, 40000.0));
        assert_eq!(labels(&ticks), vec!["0", "10K", "20K", "30K", "40K"]);
        let (lo, hi, _) = Axis::linear("t")
            .include_zero(false)
            .resolve(Some((1400.0, 2000.0)), 6);
        assert_eq!((lo, hi), (1400.0, 2000.0));
        // A single value still gives a usable range.
        let (lo, hi, _) = Axis::linear("x").resolve(Some((5.0, 5.0)), 4);
        assert!(lo <= 5.0 && hi > 5.0);
        let (lo, hi, _) = Axis::linear("x").resolve(None, 4);
        assert!(hi > lo);
    }

    #[test]
    fn time_axis_labels_stay_plain_below_ten_thousand() {
        let (_, _, ticks) = Axis::linear("Time (s)").range(0.0, 2000.0).resolve(None, 8);
        assert_eq!(
            labels(&ticks),
            vec!["0", "250", "500", "750", "1000", "1250", "1500", "1750", "2000"]
        );
    }

    #[test]
    fn log10_ticks_are_decades_with_minor_ticks() {
        let t = log10_ticks(1.0, 100_000.0);
        let majors: Vec<f64> = t.iter().filter(|t| t.major).map(|t| t.value).collect();
        assert_eq!(majors, vec![1.0, 10.0, 100.0, 1e3, 1e4, 1e5]);
        assert_eq!(t.iter().filter(|t| !t.major).count(), 5 * 8);
        assert!(t.iter().all(|t| t.major == t.label.is_some()));
        let (_, _, t) = Axis::log10("IOPS").range(1.0, 1e5).resolve(None, 5);
        assert_eq!(labels(&t), vec!["1", "10", "100", "1K", "10K", "100K"]);
    }

    #[test]
    fn log10_axis_fits_whole_decades_and_labels_minors_in_a_narrow_range() {
        let (lo, hi, _) = Axis::log10("IOPS").resolve(Some((3000.0, 45000.0)), 5);
        assert_eq!((lo, hi), (1000.0, 100000.0));
        // 20K..40K holds no power of ten: minor ticks carry the labels.
        let (_, _, t) = Axis::log10("IOPS").range(20000.0, 40000.0).resolve(None, 5);
        assert_eq!(labels(&t), vec!["20K", "30K", "40K"]);
        // Twenty decades: every other one is labelled.
        let t = log10_ticks(1e-10, 1e10);
        assert_eq!(t.iter().filter(|t| t.major).count(), 21);
        assert_eq!(t.iter().filter(|t| t.label.is_some()).count(), 11);
    }

    #[test]
    fn log2_byte_ticks() {
        let (lo, hi, t) = Axis::log2("Transfer size")
            .range(512.0, 64.0 * 1048576.0)
            .resolve(None, 5);
        assert_eq!((lo, hi), (512.0, 67108864.0));
        let l = labels(&t);
        assert_eq!(l.len(), 18);
        assert_eq!(&l[..4], ["512 B", "1 KiB", "2 KiB", "4 KiB"]);
        assert_eq!(l[11], "1 MiB");
        assert_eq!(l[17], "64 MiB");
        // Fitted to the data: rounded out to powers of two.
        let (lo, hi, _) = Axis::log2("x").resolve(Some((600.0, 3000.0)), 5);
        assert_eq!((lo, hi), (512.0, 4096.0));
    }

    #[test]
    fn linear_byte_axes_step_in_binary_units() {
        let axis = Axis::linear("Position").format(NumberFormat::Bytes);
        let (lo, hi, t) = axis.resolve(Some((0.0, 250e9)), 5);
        assert_eq!(lo, 0.0);
        assert_eq!(hi, 250.0 * (1u64 << 30) as f64);
        assert_eq!(labels(&t)[..3], ["0 B", "50 GiB", "100 GiB"]);
    }

    #[test]
    fn mapping_puts_range_ends_on_plot_edges() {
        // y axis: bottom at pixel 350, top at pixel 50.
        let m = AxisMap::new(Scale::Linear, 0.0, 40000.0, 350.0, 50.0);
        assert_eq!(m.map(40000.0), Some(50.0));
        assert_eq!(m.map(0.0), Some(350.0));
        assert_eq!(m.map(20000.0), Some(200.0));
        let l = AxisMap::new(Scale::Log10, 1.0, 1e4, 350.0, 50.0);
        let (a, b, c) = (
            l.map(10.0).unwrap(),
            l.map(100.0).unwrap(),
            l.map(1000.0).unwrap(),
        );
        assert!(
            (a - b - (b - c)).abs() < 1e-9,
            "10 and 1000 symmetric around 100"
        );
        assert_eq!(l.map(0.0), None);
        assert_eq!(l.map(-3.0), None);
        assert_eq!(l.map(f64::NAN), None);
        assert!(l.contains(1e4) && !l.contains(1.1e4));
        let x = AxisMap::new(Scale::Log2, 512.0, 2048.0, 0.0, 200.0);
        assert_eq!(x.map(1024.0), Some(100.0));
    }
}
