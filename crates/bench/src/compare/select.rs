//! Which drives a command names: by id, or by a part of the name only one drive has.

use crate::db::DriveRow;

/// The drives `selectors` name, in order, each once: a selector is a drive's id or a part of
/// its name, model or serial (any case) that only one drive has; a whole name picks its drive
/// even when longer names contain it.
pub fn select_drives(all: &[DriveRow], selectors: &[String]) -> Result<Vec<DriveRow>, SelectError> {
    let listing = |drives: &[&DriveRow]| {
        drives
            .iter()
            .map(|d| format!("{} = {}", d.id, crate::term::printable(&d.name)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    // "840-evo" finds "Samsung SSD 840 EVO": case, '-' and '_' do not matter.
    let fold = |s: &str| s.to_lowercase().replace(['-', '_'], " ");
    let mut chosen: Vec<DriveRow> = Vec::new();
    for selector in selectors {
        let needle = fold(selector.trim());
        let by_id = selector
            .trim()
            .parse::<i64>()
            .ok()
            .and_then(|id| all.iter().find(|d| d.id == id));
        let whole: Vec<&DriveRow> = all.iter().filter(|d| fold(&d.name) == needle).collect();
        let partial: Vec<&DriveRow> = all
            .iter()
            .filter(|d| {
                [Some(&d.name), d.model.as_ref(), d.serial.as_ref()]
                    .into_iter()
                    .flatten()
                    .any(|s| fold(s).contains(&needle))
            })
            .collect();
        let drive = match (by_id, whole.as_slice(), partial.as_slice()) {
            (Some(d), _, _) => d,
            (None, [d], _) => d,
            (None, _, [d]) => d,
            (None, _, []) => {
                return Err(SelectError::NoMatch {
                    selector: selector.clone(),
                    drives: match all.len() {
                        0 => "the Bench has no drives yet".to_string(),
                        _ => listing(&all.iter().collect::<Vec<_>>()),
                    },
                })
            }
            (None, _, many) => {
                return Err(SelectError::Ambiguous {
                    selector: selector.clone(),
                    count: many.len(),
                    drives: listing(many),
                })
            }
        };
        if !chosen.iter().any(|c| c.id == drive.id) {
            chosen.push(drive.clone());
        }
    }
    Ok(chosen)
}

/// A selector that names no drive, or several.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectError {
    #[error(
        "no drive matches {selector:?}: give a drive's id or part of its name ({drives}; \
         `ssdlab bench list` shows them)"
    )]
    NoMatch { selector: String, drives: String },
    #[error("{selector:?} matches {count} drives ({drives}): give more of the name, or the id")]
    Ambiguous {
        selector: String,
        count: usize,
        drives: String,
    },
}
