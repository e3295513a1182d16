//! The Bench side of ssdlab: everything that turns results into something to read.
//!
//! Today it holds [`chart`], the SVG charts of the reviews (IO consistency scatter plots,
//! transfer-size curves, MB/s against LBA position, bar charts). It will also hold the
//! results database, comparisons between drives, the HTML report and the web UI.

pub mod chart;
