//! The back end's invariants, TigerBeetle's way: the state the FTL's units share is checked
//! whole, so a unit that forgets a count fails where it happened rather than as a figure off
//! by a few percent. Debug builds check after enough writes that the checks cost O(1) a
//! written unit; the tests check after every step.

use super::backend::Backend;

impl Backend {
    /// Panics naming the first invariant that does not hold: the map and its reverse agree,
    /// the free pools agree with the blocks' states, and every block's valid count is the
    /// number of its units holding a current copy.
    pub(super) fn assert_invariants(&self) {
        self.map.assert_consistent();
        self.blocks.assert_consistent(&self.layout);
        let units = self.layout.block_units;
        for b in 0..self.layout.total_blocks() {
            let owned = self.map.owned_in(b * units, units);
            let valid = self.blocks.valid(b);
            assert_eq!(
                valid, owned,
                "block {b}: valid count {valid}, current copies {owned}"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn backend() -> Backend {
        let cfg = crate::resolve("default,capacity=256MiB,pages_per_block=16").unwrap();
        Backend::new(&cfg).unwrap()
    }

    #[test]
    fn a_fresh_drive_holds_them() {
        backend().assert_invariants();
    }

    #[test]
    #[should_panic(expected = "block 0: valid count 0, current copies 1")]
    fn a_copy_the_valid_count_missed_is_caught() {
        let mut be = backend();
        be.map.map(0, 5);
        be.assert_invariants();
    }

    #[test]
    #[should_panic(expected = "maps unit 0 to 5, whose reverse entry is Some(1)")]
    fn two_units_mapped_to_one_place_are_caught() {
        let mut be = backend();
        be.map.map(0, 5);
        be.map.map(1, 5);
        be.assert_invariants();
    }

    #[test]
    #[should_panic(expected = "free block")]
    fn a_free_block_holding_data_is_caught() {
        let mut be = backend();
        let b = be.layout.total_blocks() - 1;
        be.blocks.add_valid(b, 1);
        be.blocks.assert_consistent(&be.layout);
    }
}
