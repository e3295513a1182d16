//! The Bench: what ssdlab does with results. The results database ([`db`]), runs stored
//! in it as they are measured ([`live`]), comparisons across drives ([`compare`]), charts
//! ([`chart`]), the review report ([`report`]), the web page ([`web`]) and exports for other
//! tools ([`export`]); [`power`] reads the power tests' figures; [`term`] makes imported
//! text safe to print; [`fit_chart`] draws a twin fit's loss.

pub mod chart;
pub mod compare;
pub mod db;
pub mod export;
pub mod fit_chart;
pub mod live;
mod power;
pub mod report;
pub mod term;
mod view;
pub mod web;
