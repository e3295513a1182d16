//! Whole-chart tests: every SVG parses as XML, text is escaped, data lands where the
//! layout says, clipping holds, log axes skip what they cannot show.

use bench::chart::{Axis, BarChart, NumberFormat, Series, Style, XYChart, PALETTE};

/// Parses the SVG (failing the test when it is not well-formed XML) and hands it over.
fn parse(svg: &str) -> roxmltree::Document<'_> {
    match roxmltree::Document::parse(svg) {
        Ok(doc) => doc,
        Err(e) => panic!("not well-formed XML: {e}\n{svg}"),
    }
}

fn texts(doc: &roxmltree::Document) -> Vec<String> {
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap_or("").to_string())
        .collect()
}

/// The `d` attribute of the path of series `i`.
fn series_path<'a>(doc: &'a roxmltree::Document, i: usize) -> Option<&'a str> {
    let class = format!("series series-{i}");
    let g = doc
        .descendants()
        .find(|n| n.attribute("class") == Some(class.as_str()))?;
    g.descendants()
        .find(|n| n.has_tag_name("path"))
        .and_then(|p| p.attribute("d"))
}

/// All (x, y) pairs in path data made of `M x y`, `L x y` and `h0`.
fn path_points(d: &str) -> Vec<(f64, f64)> {
    let cleaned = d.replace("h0", " ").replace(['M', 'L'], " ");
    let nums: Vec<f64> = cleaned
        .split_whitespace()
        .map(|s| s.parse().unwrap())
        .collect();
    nums.chunks(2).map(|c| (c[0], c[1])).collect()
}

fn consistency(points: Vec<(f64, f64)>) -> XYChart {
    XYChart::new(
        "Drive - 4KB Random Write (QD32) Performance",
        Axis::linear("Time (s)").range(0.0, 2000.0),
        Axis::log10("IOPS").range(1.0, 1e6),
    )
    .series(Series::dots("Default", points))
}

fn steady(i: usize) -> f64 {
    // Deterministic scatter between about 2K and 12K IOPS.
    let h = (i as u64).wrapping_mul(2654435761) % 10_000;
    2_000.0 + h as f64
}

#[test]
fn every_chart_kind_is_well_formed_xml_with_svg_root_and_viewbox() {
    let charts = [
        consistency((0..2000).map(|t| (t as f64, steady(t))).collect()).to_svg(),
        XYChart::new("empty", Axis::linear("x"), Axis::linear("y")).to_svg(),
        XYChart::new("empty log", Axis::log2("size"), Axis::log10("y")).to_svg(),
        XYChart::new("one point", Axis::linear("x"), Axis::linear("y"))
            .series(Series::line("a", [(1.0, 2.0)]))
            .series(Series::dots("b", [(1.0, 2.0)]))
            .to_svg(),
        XYChart::new("nothing valid", Axis::log2("x"), Axis::log10("y"))
            .series(Series::line(
                "a",
                [(0.0, 0.0), (f64::NAN, f64::INFINITY), (-1.0, 5.0)],
            ))
            .to_svg(),
        BarChart::new("bars", "MB/s").row("a", &[1.0]).to_svg(),
        BarChart::new("no rows", "MB/s").to_svg(),
        BarChart::new("missing", "MB/s")
            .groups(&["x", "y"])
            .row("a", &[f64::NAN, 3.0])
            .to_svg(),
    ];
    for svg in &charts {
        let doc = parse(svg);
        let root = doc.root_element();
        assert!(root.has_tag_name(("http://www.w3.org/2000/svg", "svg")));
        assert!(root.attribute("viewBox").is_some());
        assert!(!svg.contains("NaN") && !svg.contains("inf"), "{svg}");
    }
}

#[test]
fn user_text_is_escaped_everywhere() {
    let evil = "<script>alert(1)</script> & \"quotes\"";
    let xy = XYChart::new(evil, Axis::linear(evil), Axis::log10(evil))
        .subtitle(evil)
        .series(Series::dots(evil, [(1.0, 10.0)]))
        .series(Series::line(evil, [(1.0, 10.0), (2.0, 20.0)]).color("\"><script>"))
        .to_svg();
    let bar = BarChart::new(evil, evil)
        .groups(&[evil, "b"])
        .row(evil, &[1.0, 2.0])
        .highlight(0);
    for svg in [xy, bar.to_svg()] {
        assert!(!svg.contains("<script>"), "{svg}");
        let doc = parse(&svg);
        assert!(doc.descendants().all(|n| !n.has_tag_name("script")));
        // The text survives as text.
        assert!(texts(&doc).iter().any(|t| t == evil), "{svg}");
    }
}

#[test]
fn a_mean_line_spans_the_plot_at_its_value_over_every_dot() {
    // (This replaces a test that compared a chart's output with itself.)
    let c = consistency((0..500).map(|t| (t as f64, steady(t))).collect())
        .series(Series::line("mean", [(0.0, 5e3), (2000.0, 5e3)]));
    let svg = c.to_svg();
    let doc = parse(&svg);
    let lay = c.layout();
    // Every dot is drawn, each where the layout maps it.
    let dots = path_points(series_path(&doc, 0).unwrap());
    assert_eq!(dots.len(), 500);
    for (t, &(x, y)) in dots.iter().enumerate() {
        let (mx, my) = lay.map(t as f64, steady(t)).unwrap();
        assert!(
            (x - mx).abs() <= 0.051 && (y - my).abs() <= 0.051,
            "dot {t}"
        );
    }
    // The mean is one horizontal segment from the left edge to the right edge at 5000 IOPS.
    let line = path_points(series_path(&doc, 1).unwrap());
    assert_eq!(line.len(), 2, "{line:?}");
    let (_, y_mean) = lay.map(0.0, 5e3).unwrap();
    assert!((line[0].0 - lay.plot.x).abs() <= 0.051, "{line:?}");
    assert!((line[1].0 - lay.plot.right()).abs() <= 0.051, "{line:?}");
    assert!(line.iter().all(|&(_, y)| (y - y_mean).abs() <= 0.051));
    // Dots in the first colour, the line in the second; the legend names both in order.
    assert!(svg.contains(&format!("fill=\"{}\"", PALETTE[0])), "{svg}");
    assert!(svg.contains(&format!("stroke=\"{}\"", PALETTE[1])), "{svg}");
    let legend: Vec<_> = doc
        .descendants()
        .find(|n| n.attribute("class") == Some("legend"))
        .unwrap()
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap())
        .collect();
    assert_eq!(legend, ["Default", "mean"]);
}

#[test]
fn grouped_bars_are_as_long_as_their_values_in_their_group_colours() {
    // (This replaces a test that compared a chart's output with its clone's.)
    let svg = BarChart::new("b", "MB/s")
        .groups(&["i", "c"])
        .row("x", &[1.5, 2.5])
        .row("y", &[0.5, 2.0])
        .highlight(0)
        .to_svg();
    let doc = parse(&svg);
    let rows: Vec<_> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("row"))
        .collect();
    assert_eq!(rows.len(), 2);
    let bars = |r: &roxmltree::Node| -> Vec<(f64, String)> {
        r.descendants()
            .filter(|n| n.has_tag_name("rect"))
            .map(|n| {
                (
                    n.attribute("width").unwrap().parse().unwrap(),
                    n.attribute("fill").unwrap().to_string(),
                )
            })
            .collect()
    };
    let (x, y) = (bars(&rows[0]), bars(&rows[1]));
    assert_eq!(x.len(), 2);
    assert_eq!(y.len(), 2);
    // Lengths are proportional to the values (the axis starts at zero).
    let unit = x[1].0 / 2.5;
    for (bar, value) in x.iter().chain(&y).zip([1.5, 2.5, 0.5, 2.0]) {
        assert!((bar.0 - value * unit).abs() < 0.05, "{bar:?} for {value}");
    }
    // One colour per group, the same in every row.
    assert_eq!(x[0].1, PALETTE[0]);
    assert_eq!(x[1].1, PALETTE[1]);
    assert_eq!((&y[0].1, &y[1].1), (&x[0].1, &x[1].1));
    // The highlighted row, and only it, is bold; values are printed.
    assert!(rows[0]
        .descendants()
        .any(|n| n.attribute("font-weight") == Some("bold")));
    assert!(rows[1]
        .descendants()
        .all(|n| n.attribute("font-weight").is_none()));
    let t = texts(&doc);
    for want in ["1.5", "2.5", "0.5", "2.0", "i", "c"] {
        assert!(t.iter().any(|s| s == want), "missing {want}: {t:?}");
    }
}

#[test]
fn top_of_range_maps_to_top_of_plot_and_log_is_symmetric() {
    let c = XYChart::new(
        "t",
        Axis::linear("Time (s)").range(1400.0, 2000.0),
        Axis::linear("IOPS").range(0.0, 40000.0),
    );
    let lay = c.layout();
    let (x, y) = lay.map(2000.0, 40000.0).unwrap();
    assert!((y - lay.plot.y).abs() < 1e-9);
    assert!((x - lay.plot.right()).abs() < 1e-9);
    let (x, y) = lay.map(1400.0, 0.0).unwrap();
    assert!((y - lay.plot.bottom()).abs() < 1e-9 && (x - lay.plot.x).abs() < 1e-9);

    let lay = consistency(vec![]).layout();
    let y = |v| lay.map(1.0, v).unwrap().1;
    assert!((y(10.0) - y(100.0) - (y(100.0) - y(1000.0))).abs() < 1e-9);
    assert!(y(10.0) > y(100.0), "larger values are higher up");
}

#[test]
fn drawn_dots_sit_where_the_layout_maps_them() {
    let c = consistency(vec![(500.0, 100.0), (1500.0, 10_000.0)]);
    let svg = c.to_svg();
    let doc = parse(&svg);
    let pts = path_points(series_path(&doc, 0).unwrap());
    let lay = c.layout();
    assert_eq!(pts.len(), 2);
    for (drawn, data) in pts.iter().zip([(500.0, 100.0), (1500.0, 10_000.0)]) {
        let (x, y) = lay.map(data.0, data.1).unwrap();
        assert!((drawn.0 - x).abs() <= 0.051 && (drawn.1 - y).abs() <= 0.051);
    }
}

#[test]
fn values_beyond_a_fixed_range_stay_inside_the_frame() {
    let pts: Vec<(f64, f64)> = (0..100)
        .map(|i| {
            (
                1400.0 + i as f64 * 6.0,
                if i % 3 == 0 { 250_000.0 } else { 9_000.0 },
            )
        })
        .collect();
    // Points outside the x range too, and a line crossing the top and the sides.
    let mut all = pts.clone();
    all.push((100.0, 5000.0));
    all.push((2500.0, 5000.0));
    let c = XYChart::new(
        "clip",
        Axis::linear("Time (s)").range(1400.0, 2000.0),
        Axis::linear("IOPS").range(0.0, 40000.0),
    )
    .series(Series::dots("dots", all.clone()))
    .series(Series::line(
        "line",
        [
            (1000.0, 20_000.0),
            (1700.0, 90_000.0),
            (1900.0, -5.0),
            (2600.0, 30_000.0),
        ],
    ))
    .series(Series::line("wild", all));
    let svg = c.to_svg();
    let doc = parse(&svg);
    let lay = c.layout();
    let p = lay.plot;
    for i in 0..3 {
        let pts = path_points(series_path(&doc, i).unwrap_or_else(|| panic!("series {i}: {svg}")));
        assert!(!pts.is_empty());
        for (x, y) in pts {
            assert!(
                x >= p.x - 0.05
                    && x <= p.right() + 0.05
                    && y >= p.y - 0.05
                    && y <= p.bottom() + 0.05,
                "series {i}: ({x}, {y}) outside {p:?}"
            );
        }
    }
    // Dots above the top are pinned to the top edge; those beyond the x range dropped.
    let dots = path_points(series_path(&doc, 0).unwrap());
    assert!(dots.iter().any(|&(_, y)| (y - p.y).abs() < 0.05));
    assert_eq!(dots.len(), 100);
}

#[test]
fn log_axes_skip_non_positive_and_non_finite_values() {
    let c = XYChart::new("skip", Axis::log2("Transfer size"), Axis::log10("IOPS"))
        .series(Series::dots(
            "d",
            [
                (512.0, 0.0),
                (512.0, -5.0),
                (f64::NAN, 10.0),
                (1024.0, f64::INFINITY),
                (0.0, 100.0),
                (-1024.0, 100.0),
                (2048.0, 100.0),
                (4096.0, 1000.0),
            ],
        ))
        .series(Series::line(
            "l",
            [(512.0, 10.0), (1024.0, 0.0), (2048.0, 30.0), (4096.0, 40.0)],
        ));
    let svg = c.to_svg();
    let doc = parse(&svg);
    assert_eq!(path_points(series_path(&doc, 0).unwrap()).len(), 2);
    // The zero breaks the line: a lone dot, then a segment.
    let d = series_path(&doc, 1).unwrap();
    assert_eq!(d.matches('M').count(), 2, "{d}");
    assert_eq!(d.matches('L').count(), 1, "{d}");
    // The fitted axes cover only the positive data.
    let lay = c.layout();
    assert!(lay.x.contains(2048.0) && lay.x.contains(4096.0));
    assert!(lay.y.contains(10.0) && lay.y.contains(1000.0));
}

#[test]
fn two_thousand_dots_stay_small() {
    // Full-range random-looking values, so that no two dots share a pixel.
    let pts: Vec<(f64, f64)> = (0..2000)
        .map(|t| {
            (
                t as f64,
                10f64.powf(1.0 + 4.0 * (steady(t) - 2000.0) / 10_000.0),
            )
        })
        .collect();
    let svg = consistency(pts).to_svg();
    assert!(svg.len() < 100_000, "{} bytes", svg.len());
    parse(&svg);
}

#[test]
fn legend_only_with_several_series_and_palette_colours_in_order() {
    let one = XYChart::new("1", Axis::linear("x"), Axis::linear("y"))
        .series(Series::line("only", [(0.0, 1.0), (1.0, 2.0)]))
        .to_svg();
    assert!(!one.contains("class=\"legend\""));
    let two = XYChart::new("2", Axis::log2("size"), Axis::linear("MB/s"))
        .series(Series::line("Read", [(512.0, 10.0), (1024.0, 20.0)]))
        .series(Series::line("Write", [(512.0, 5.0), (1024.0, 8.0)]))
        .to_svg();
    let doc = parse(&two);
    let legend = doc
        .descendants()
        .find(|n| n.attribute("class") == Some("legend"))
        .unwrap();
    let names: Vec<_> = legend
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap())
        .collect();
    assert_eq!(names, ["Read", "Write"]);
    assert!(two.contains(&format!("stroke=\"{}\"", PALETTE[0])));
    assert!(two.contains(&format!("stroke=\"{}\"", PALETTE[1])));
}

#[test]
fn transfer_size_axis_labels_bytes_without_collisions() {
    let sizes: Vec<f64> = (9..=26).map(|e| 2f64.powi(e)).collect();
    let c = XYChart::new("ATTO", Axis::log2("Transfer size"), Axis::linear("MB/s")).series(
        Series::line("Read", sizes.iter().map(|&s| (s, s.log2() * 20.0))),
    );
    let lay = c.layout();
    let labels: Vec<(f64, String)> = lay
        .x_ticks
        .iter()
        .filter_map(|t| t.label.clone().map(|l| (lay.x.map(t.value).unwrap(), l)))
        .collect();
    let names: Vec<&str> = labels.iter().map(|(_, l)| l.as_str()).collect();
    for want in ["4 KiB", "1 MiB", "64 MiB"] {
        assert!(names.contains(&want), "{names:?}");
    }
    for w in labels.windows(2) {
        let need = (bench::chart::text_width(&w[0].1, 11.0)
            + bench::chart::text_width(&w[1].1, 11.0))
            / 2.0;
        assert!(w[1].0 - w[0].0 >= need, "{w:?} overlap");
    }
    let doc_svg = c.to_svg();
    let doc = parse(&doc_svg);
    assert!(texts(&doc).iter().any(|t| t == "64 MiB"));
}

#[test]
fn bar_chart_rows_values_highlight_and_groups() {
    let c = BarChart::new("Desktop Iometer - 4KB Random Write", "MB/s")
        .groups(&["Incompressible", "Compressible"])
        .row("Samsung SSD 840 EVO 250GB", &[245.8, 250.1])
        .row("OCZ Vertex 450 256GB", &[120.27, 310.0])
        .row("Crucial M500 240GB", &[f64::NAN, 180.0])
        .highlight_label("OCZ Vertex 450 256GB");
    assert_eq!(c.highlight, Some(1));
    let svg = c.to_svg();
    let doc = parse(&svg);
    let t = texts(&doc);
    for want in [
        "245.8",
        "250.1",
        "120.3",
        "310.0",
        "n/a",
        "Incompressible",
        "Compressible",
        "MB/s",
    ] {
        assert!(t.iter().any(|s| s == want), "missing {want}: {t:?}");
    }
    let rows: Vec<_> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("row"))
        .collect();
    assert_eq!(rows.len(), 3);
    let bold: Vec<_> = rows[1]
        .descendants()
        .filter(|n| n.attribute("font-weight") == Some("bold"))
        .collect();
    assert!(!bold.is_empty(), "highlighted row is bold");
    assert!(rows[0]
        .descendants()
        .all(|n| n.attribute("font-weight").is_none()));
    // One bar per finite value; the longest bar ends at the right end of the axis.
    let bars: Vec<f64> = rows
        .iter()
        .flat_map(|r| r.descendants().filter(|n| n.has_tag_name("rect")))
        .map(|n| n.attribute("width").unwrap().parse().unwrap())
        .collect();
    assert_eq!(bars.len(), 5);
    let longest = bars.iter().cloned().fold(0.0, f64::max);
    assert!((bars[3] - longest).abs() < 1e-9);
}

#[test]
fn single_bar_rows_highlight_in_the_second_colour_and_long_names_are_shortened() {
    let long = "A drive with an extraordinarily long marketing name that goes on and on and on";
    let svg = BarChart::new("Sequential write", "MB/s")
        .row("a", &[100.0])
        .row(long, &[200.0])
        .highlight(0)
        .value_format(NumberFormat::Fixed(0))
        .to_svg();
    let doc = parse(&svg);
    let rows: Vec<_> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("row"))
        .collect();
    let fill = |r: &roxmltree::Node| {
        r.descendants()
            .find(|n| n.has_tag_name("rect"))
            .unwrap()
            .attribute("fill")
            .unwrap()
            .to_string()
    };
    assert_eq!(fill(&rows[0]), PALETTE[1]);
    assert_eq!(fill(&rows[1]), PALETTE[0]);
    // The full name stays available as a tooltip; the drawn one is shortened in its middle,
    // keeping both of its ends.
    let t = texts(&doc);
    assert!(t.iter().any(|s| s.contains('…') && !s.ends_with('…')));
    assert!(rows[1]
        .descendants()
        .any(|n| n.has_tag_name("title") && n.text() == Some(long)));
    assert!(t.iter().any(|s| s == "200"));
}

#[test]
fn style_constructors() {
    assert_eq!(Series::dots("a", [(1.0, 1.0)]).style, Style::Dots);
    assert_eq!(Series::line("a", [(1.0, 1.0)]).style, Style::Line);
}

#[test]
fn negative_bars_keep_their_value_clear_of_the_row_label() {
    let svg = BarChart::new("Change", "%")
        .row("Improved", &[42.0])
        .row("Got worse", &[-12.5])
        .to_svg();
    let doc = parse(&svg);
    let row = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("row"))
        .nth(1)
        .unwrap();
    let x_of = |text: &str| -> f64 {
        row.descendants()
            .find(|n| n.has_tag_name("text") && n.text() == Some(text))
            .and_then(|n| n.attribute("x"))
            .unwrap()
            .parse()
            .unwrap()
    };
    // Both are end-anchored: the value's left edge must clear the label's right edge.
    let value_left = x_of("-12.5") - bench::chart::text_width("-12.5", 11.0);
    assert!(value_left > x_of("Got worse") + 4.0, "{svg}");
}

#[test]
fn a_lone_point_of_a_line_series_is_drawn_as_a_dot() {
    let svg = XYChart::new("one", Axis::linear("x"), Axis::linear("y"))
        .series(Series::line("only", [(3.0, 7.0)]))
        .to_svg();
    let doc = parse(&svg);
    assert_eq!(path_points(series_path(&doc, 0).unwrap()).len(), 1);
}

/// A mark's fill and opacity.
type Paint = (String, String);

/// The legend's paint of each group, and the first row's bars'.
fn group_swatches(svg: &str) -> (Vec<Paint>, Vec<Paint>) {
    let doc = parse(svg);
    let paint = |n: roxmltree::Node| {
        let a = |k: &str| n.attribute(k).unwrap_or("1").to_string();
        (a("fill"), a("fill-opacity"))
    };
    let rects = |class: &str| -> Vec<Paint> {
        let g = doc
            .descendants()
            .find(|n| n.attribute("class") == Some(class))
            .unwrap();
        g.descendants()
            .filter(|n| n.has_tag_name("rect"))
            .map(paint)
            .collect()
    };
    (rects("legend"), rects("row"))
}

#[test]
fn a_legend_of_rows_in_their_own_colours_shows_each_group_as_its_bars() {
    let svg = BarChart::new("steady state", "IOPS")
        .groups(&["default spare area", "25% spare area"])
        .row("blue drive", &[3000.0, 9000.0])
        .row("teal drive", &[2000.0, 8000.0])
        .row_color(0, "#0072B2")
        .row_color(1, "#009E73")
        .to_svg();
    let (legend, first_row) = group_swatches(&svg);
    assert_eq!(legend.len(), 2, "{svg}");
    assert_eq!(legend, first_row[..2], "{svg}");
}

#[test]
fn a_dashed_series_is_drawn_and_named_dashed_so_the_one_under_it_shows() {
    let same = [(0.0, 100.0), (50.0, 100.0), (100.0, 100.0)];
    let svg = XYChart::new("trim", Axis::linear("LBA"), Axis::linear("MB/s"))
        .series(Series::line("Clean", same))
        .series(Series::line("After TRIM", same).dashed("6 4"))
        .to_svg();
    let doc = parse(&svg);
    let dash = |n: roxmltree::Node| n.attribute("stroke-dasharray").is_some();
    let series = |i: usize| {
        let class = format!("series series-{i}");
        (doc.descendants())
            .find(|n| n.attribute("class") == Some(class.as_str()))
            .and_then(|g| g.descendants().find(|n| n.has_tag_name("path")))
            .unwrap()
    };
    assert!(!dash(series(0)) && dash(series(1)), "{svg}");
    let legend = doc
        .descendants()
        .find(|n| n.attribute("class") == Some("legend"))
        .unwrap();
    let swatches: Vec<bool> = (legend.descendants())
        .filter(|n| n.has_tag_name("line"))
        .map(dash)
        .collect();
    assert_eq!(swatches, [false, true], "{svg}");
}

/// The y tick labels of every chart in `html` whose title has `title`.
fn y_ticks_of(html: &str, title: &str) -> Vec<Vec<String>> {
    let mut charts = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find("<svg") {
        let end = start + rest[start..].find("</svg>").unwrap() + "</svg>".len();
        let svg = &rest[start..end];
        rest = &rest[end..];
        if !svg.contains(title) {
            continue;
        }
        let doc = parse(svg);
        let ticks = doc
            .descendants()
            .find(|n| n.attribute("class") == Some("ticks"))
            .unwrap();
        let labels = (ticks.descendants())
            .filter(|n| n.attribute("text-anchor") == Some("end"))
            .map(|n| n.text().unwrap_or("").to_string())
            .collect();
        charts.push(labels);
    }
    charts
}

#[test]
fn the_consistency_charts_a_selector_switches_between_share_their_scales() {
    use crate::common::result;
    let mut low = result("consistency", None, "m", "2026-01-01T00:00:00Z", 1.0);
    let mut high = result(
        "consistency",
        Some("spare-25"),
        "m",
        "2026-01-01T01:00:00Z",
        100.0,
    );
    for (r, iops) in [(&mut low, 40.0), (&mut high, 40_000.0)] {
        for p in &mut r.per_second {
            p.iops = iops;
        }
    }
    let html = bench::report::render(&[low, high], None);
    for title in ["the whole run", "(log scale)", "(linear scale)"] {
        let ticks = y_ticks_of(&html, title);
        assert_eq!(ticks.len(), 2, "{title}");
        assert!(!ticks[0].is_empty(), "{title}");
        assert_eq!(ticks[0], ticks[1], "{title}");
    }
}
