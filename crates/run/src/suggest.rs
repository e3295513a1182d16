//! "Did you mean ...?" for a mistyped name.

/// The candidates closest to `given` (case-insensitively), when within a third of its length
/// in edits (at least 2).
pub fn closest<'a>(given: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let given = given.to_lowercase();
    let most = (given.chars().count() / 3).max(2);
    let scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .map(|c| (strsim::levenshtein(&given, &c.to_lowercase()), c))
        .collect();
    let Some(best) = scored.iter().map(|&(d, _)| d).min().filter(|&d| d <= most) else {
        return Vec::new();
    };
    let mut near: Vec<&str> = scored
        .into_iter()
        .filter(|&(d, _)| d == best)
        .map(|(_, c)| c)
        .collect();
    near.dedup();
    near
}

/// " (did you mean X?)", or nothing when no candidate is close.
pub fn did_you_mean<'a>(given: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    match closest(given, candidates).as_slice() {
        [] => String::new(),
        [one] => format!(" (did you mean {one}?)"),
        many => format!(" (did you mean one of {}?)", many.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_only_close_names() {
        let tests = ["consistency", "corners", "trim", "seq-write"];
        assert_eq!(closest("consistensy", tests), ["consistency"]);
        assert_eq!(closest("TRIM", tests), ["trim"]);
        assert!(closest("fluffy", tests).is_empty());
        assert_eq!(did_you_mean("trmi", tests), " (did you mean trim?)");
        assert_eq!(did_you_mean("zzzzzzzz", tests), "");
    }
}
