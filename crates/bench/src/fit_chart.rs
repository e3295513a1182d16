//! The loss chart of a twin's fit report (`ssdlab sim fit`, `ssdlab.sim.fit`).

use crate::chart::{Axis, Series, XYChart};

/// The best loss by evaluations (`history`), as a line; with screening, the losses confirmed
/// at full length (`confirmed`) as dots.
pub fn loss_chart(
    drive: &str,
    history: &[(usize, f64)],
    confirmed: Option<&[(usize, f64)]>,
) -> String {
    let points = |h: &[(usize, f64)]| {
        h.iter()
            .map(|&(n, loss)| (n as f64, loss))
            .collect::<Vec<_>>()
    };
    let mut chart = XYChart::new(
        &format!("Fitting a twin of {drive}"),
        Axis::linear("simulated drives evaluated"),
        Axis::linear("best loss (weighted mean relative error)"),
    )
    .series(Series::line(
        if confirmed.is_some() {
            "best screened loss (corrected)"
        } else {
            "best loss"
        },
        points(history),
    ));
    if let Some(confirmed) = confirmed {
        chart.push(Series::dots(
            "best confirmed at full length",
            points(confirmed),
        ));
    }
    chart.to_svg()
}
