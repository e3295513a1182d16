//! Which results a comparison shows: by default only those measured as the methodology says,
//! so a quick suite's 60 s of writes never stands beside full runs as if it were their peer.
//! Asked for (`bench compare --include-deviating`, the page's `deviating=include`), the
//! others are shown too, each marked with how it deviates.

use suite::result::TestResult;

use crate::db::{Bench, Result, StoredResult};

/// Whether a comparison shows results that deviate from the methodology.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Deviating {
    #[default]
    LeftOut,
    Included,
}

/// Whether `r` was measured other than the methodology says: a quick suite, a scaled PTS, a
/// shortened or narrowed test (each says how in its deviations).
pub fn deviates(r: &TestResult) -> bool {
    !r.deviations.is_empty()
}

/// A drive's results a comparison shows: its newest of each test that `deviating` lets
/// through; and its newest results that were left out for deviating.
pub fn comparable(
    bench: &Bench,
    drive_id: i64,
    deviating: Deviating,
) -> Result<(Vec<StoredResult>, Vec<StoredResult>)> {
    let newest = bench.latest_results(drive_id)?;
    if deviating == Deviating::Included {
        return Ok((newest, Vec::new()));
    }
    let left_out = newest.into_iter().filter(|s| deviates(&s.result)).collect();
    let shown = bench.latest_results_where(drive_id, |r| !deviates(r))?;
    Ok((shown, left_out))
}

/// What a reader of a comparison is told about the `n` results it left out, and how to
/// include them (`how`: the flag or the link's words).
pub fn left_out_note(n: usize, how: &str) -> Option<String> {
    (n > 0).then(|| {
        format!(
            "{n} result{} that deviate{} from the methodology (a quick suite, a scaled or \
             shortened test) left out: {how} shows {}, marked",
            if n == 1 { "" } else { "s" },
            if n == 1 { "s" } else { "" },
            if n == 1 { "it" } else { "them" },
        )
    })
}
