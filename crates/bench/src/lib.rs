//! The Bench: what ssdlab does with results. The results database ([`db`]), comparisons
//! across drives ([`compare`]), charts ([`chart`]), the review report ([`report`]) and the
//! web page ([`web`]).

pub mod chart;
pub mod compare;
pub mod db;
pub mod report;
pub mod web;
