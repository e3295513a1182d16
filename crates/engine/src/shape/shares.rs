//! A weighted choice among a few options by their shares in percent: the sizes of a
//! block-size mix, the zones of a zoned distribution.

use crate::pattern::Rng;

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Shares {
    /// Each share added to those before it: a draw is one uniform number and a short scan.
    cumulative: Vec<f64>,
}

impl Shares {
    pub(crate) fn new(pcts: impl IntoIterator<Item = f64>) -> Shares {
        let mut upto = 0.0;
        let cumulative = pcts
            .into_iter()
            .map(|p| {
                upto += p;
                upto
            })
            .collect();
        Shares { cumulative }
    }

    /// The index of the option drawn.
    #[inline]
    pub(crate) fn draw(&self, rng: &mut Rng) -> usize {
        let total = self.cumulative.last().copied().unwrap_or(0.0);
        let pick = rng.unit() * total;
        self.cumulative
            .iter()
            .position(|&c| pick < c)
            .unwrap_or(self.cumulative.len().saturating_sub(1))
    }
}
