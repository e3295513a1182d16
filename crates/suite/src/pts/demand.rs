//! The demand-intensity sweep of the PTS's DIRTH and composite-workload tests: one stimulus at
//! every thread count x queue depth of {32, 16, 8, 6, 4, 2, 1}^2, from the most outstanding
//! IOs down; the most (T32Q32) is the tracking variable.

use super::Stimulus;

/// Thread counts and queue depths, in the spec's order.
pub const LOADS: [u32; 7] = [32, 16, 8, 6, 4, 2, 1];

/// `template` at every load: thread count outer, queue depth inner. The first is T32Q32.
pub fn sweep(template: &Stimulus) -> Vec<Stimulus> {
    LOADS
        .iter()
        .flat_map(|&threads| {
            LOADS.iter().map(move |&qd| Stimulus {
                threads,
                qd,
                ..template.clone()
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::shape::Shape;
    use engine::workload::Access;

    #[test]
    fn forty_nine_points_from_the_most_outstanding_down() {
        let t = Stimulus {
            access: Access::Random,
            block_bytes: 4096,
            read_pct: 0,
            threads: 1,
            qd: 1,
            shape: Shape::default(),
        };
        let s = sweep(&t);
        assert_eq!(s.len(), 49);
        assert_eq!((s[0].threads, s[0].qd), (32, 32));
        assert_eq!((s[1].threads, s[1].qd), (32, 16));
        assert_eq!((s[48].threads, s[48].qd), (1, 1));
    }
}
