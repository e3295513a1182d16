//! The Bench: what ssdlab does with results. Charts ([`chart`]) and the review report
//! ([`report`]) today; the results database, comparisons across drives and the web page
//! build on them.

pub mod chart;
pub mod report;
