use std::sync::atomic::AtomicBool;
use std::sync::OnceLock;

use suite::context::{Context, Silent};
use suite::result::TestResult;

use super::*;
use crate::db::tests::{on_both, Db};
use crate::db::{RunRecord, Specs};

const XSS: &str = "<script>alert(1)</script>";

/// A quick suite on a simulated drive, run once per test process.
fn suite_results(spec: &str, only: &[&str]) -> Vec<TestResult> {
    let dir = tempfile::tempdir().unwrap();
    let mut dev = suite::target::open(spec, &Default::default()).unwrap();
    let stop = AtomicBool::new(false);
    let mut silent = Silent;
    let mut ctx = Context::new(&stop, &mut silent);
    let only: Vec<String> = only.iter().map(|s| s.to_string()).collect();
    let steps = suite::runner::select(suite::runner::plan(true), &only, &[]).unwrap();
    let plan = suite::runner::Plan {
        steps,
        ..suite::runner::Plan::of(suite::methodologies::Methodology::Review2013, true)
    };
    suite::runner::run(
        dev.as_mut(),
        &mut ctx,
        &suite::runner::Start {
            target_spec: spec,
            plan: &plan,
            dir: dir.path(),
            previous: None,
            run_id: &suite::results_dir::new_run_id(),
        },
    )
    .unwrap();
    suite::results_dir::read_results(dir.path()).unwrap()
}

fn runs() -> &'static [(String, Vec<TestResult>)] {
    static RUNS: OnceLock<Vec<(String, Vec<TestResult>)>> = OnceLock::new();
    RUNS.get_or_init(|| {
        let full = [
            "consistency",
            "transfer-sweep",
            "seq-incompressible",
            "corners",
            "trim",
            "storage-bench",
        ];
        vec![
            ("sim:default".into(), suite_results("sim:default", &full)),
            (
                "sim:default,capacity=4GiB".into(),
                suite_results(
                    "sim:default,capacity=4GiB",
                    &["consistency", "transfer-sweep", "seq-incompressible"],
                ),
            ),
        ]
    })
}

/// A Bench holding both drives' runs (drive ids 1 and 2).
fn bench(db: &Db) -> Bench {
    let mut bench = Bench::open(&db.path()).unwrap();
    for (spec, results) in runs() {
        bench
            .store(&RunRecord {
                run_id: results[0].run_id.clone().unwrap(),
                kind: "suite".into(),
                target_spec: spec.clone(),
                started_at: results[0].started_at.clone(),
                quick: true,
                complete: true,
                source: None,
                results: results.clone(),
            })
            .unwrap();
    }
    bench
}

fn get(bench: &Bench, url: &str) -> Page {
    respond(bench, "GET", url)
}

fn svgs(html: &str) -> Vec<&str> {
    html.match_indices("<svg")
        .map(|(at, _)| {
            let end = html[at..].find("</svg>").unwrap() + at + 6;
            &html[at..end]
        })
        .collect()
}

fn unknown_paths_are_404_and_never_files(db: &Db) {
    let b = Bench::open(&db.path()).unwrap();
    for url in [
        "/../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
        "/run/../../etc/passwd",
        "/run/%2e%2e",
        "/result/1/../../etc/passwd",
        "/etc/passwd",
        "//etc/passwd",
        "/index.html",
        "/run/",
        "/run/1x",
        "/run/-1",
        "/compare/",
        "",
    ] {
        let p = get(&b, url);
        assert_eq!(p.status, 404, "{url}");
        assert_eq!(p.content_type, "text/html; charset=utf-8");
        assert!(!p.body.contains("root:"), "{url}");
    }
    assert_eq!(get(&b, "/run/1").status, 404);
    assert_eq!(get(&b, "/result/99").status, 404);
    assert_eq!(get(&b, "/compare?d=7").status, 404);
    assert_eq!(get(&b, "/").status, 200);
}

fn only_get_and_head(db: &Db) {
    let b = Bench::open(&db.path()).unwrap();
    for m in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"] {
        assert_eq!(respond(&b, m, "/").status, 405, "{m}");
    }
    assert_eq!(respond(&b, "HEAD", "/").status, 200);
    assert_eq!(respond(&b, "GET", "/"), respond(&b, "HEAD", "/"));
}

fn malformed_query_values_are_400(db: &Db) {
    let b = Bench::open(&db.path()).unwrap();
    for url in [
        "/compare?d=abc",
        "/compare?d=1;DROP",
        "/compare?d=%zz",
        "/compare?d=%ff",
        "/compare?d=-3",
        "/compare?d=",
        "/compare?d=99999999999999999999999",
    ] {
        let p = get(&b, url);
        assert_eq!(p.status, 400, "{url}");
        assert!(p.body.contains("400"), "{url}");
    }
    assert_eq!(get(&b, "/compare?other=x").status, 200);
    // A NUL, which PostgreSQL refuses in text, anywhere in a query: refused before the
    // database is asked, and the connection is as good as before.
    for url in [
        "/?q=%00",
        "/?vendor=a%00b",
        "/?host=%00&page=1",
        "/compare?d=1&other=%00",
        "/view/consistency/1?spare=%00",
        "/?%00=1",
    ] {
        let p = get(&b, url);
        assert_eq!(p.status, 400, "{url}");
        assert!(p.body.contains("NUL"), "{url}");
        assert!(
            matches!(route("GET", url), Err(p) if p.status == 400),
            "{url}"
        );
    }
    assert_eq!(get(&b, "/?q=a").status, 200);
}

#[test]
fn query_decoding() {
    assert_eq!(
        parse_query("d=1&d=%32&x=a+b&&y").unwrap(),
        vec![
            ("d".to_string(), "1".to_string()),
            ("d".into(), "2".into()),
            ("x".into(), "a b".into()),
            ("y".into(), "".into())
        ]
    );
    assert!(parse_query("d=%2").is_err());
}

fn drive_names_are_escaped_everywhere(db: &Db) {
    let mut b = bench(db);
    b.annotate(
        1,
        &Specs {
            name: Some(XSS.into()),
            controller: Some("\"><img src=x onerror=alert(2)>".into()),
            notes: Some("<b>bold</b> & 'quoted'".into()),
            price_usd: Some(99.0),
            ..Default::default()
        },
    )
    .unwrap();
    let escaped = "&lt;script&gt;alert(1)&lt;/script&gt;";
    let result_id = b.latest_results(1).unwrap()[0].id;
    for url in [
        "/".to_string(),
        "/compare".into(),
        "/compare?d=1".into(),
        "/compare?d=2&d=1".into(),
        "/run/1".into(),
        format!("/result/{result_id}"),
    ] {
        let p = get(&b, &url);
        assert_eq!(p.status, 200, "{url}");
        assert!(!p.body.contains(XSS), "{url} has the raw name");
        assert!(!p.body.contains("<img"), "{url} has the raw controller");
        assert!(!p.body.contains("<b>bold"), "{url} has raw notes");
        if url != "/run/1" {
            assert!(p.body.contains(escaped), "{url} lacks the escaped name");
        }
        for svg in svgs(&p.body) {
            roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("{url}: {e}\n{svg}"));
        }
    }
    let index = get(&b, "/").body;
    assert!(index.contains("$99.00"), "price");
    assert!(index.contains("&lt;b&gt;bold&lt;/b&gt; &amp; 'quoted'"));
}

fn index_lists_drives_and_runs(db: &Db) {
    let b = bench(db);
    let p = get(&b, "/");
    assert_eq!(p.status, 200);
    let body = &p.body;
    for needle in [
        "id=\"drive-query\"",
        "name=\"vendor\"",
        "name=\"interface\"",
        "<td>SATA</td>",
        "name=\"host\"",
        "name=\"min_gb\"",
        "name=\"from\"",
        "action=\"/compare\"",
        "name=\"d\" value=\"1\"",
        "name=\"d\" value=\"2\"",
        "href=\"/run/1\"",
        "href=\"/run/2\"",
        // A preset with overrides is another drive, and says so.
        "ssdlab simulated SSD (default) with capacity=4GiB",
    ] {
        assert!(body.contains(needle), "no {needle}");
    }
    assert!(!body.contains("http://") && !body.contains("https://"));
}

fn compare_has_selectors_and_one_view_per_drive_and_spare(db: &Db) {
    let b = bench(db);
    // The quick suite's results deviate from the methodology: included, as asked.
    let p = get(&b, "/compare?d=1&d=2&deviating=include");
    assert_eq!(p.status, 200);
    let body = &p.body;
    assert!(body.contains("data-switch=\"consistency\" data-dim=\"drive\""));
    assert!(body.contains("data-switch=\"consistency\" data-dim=\"spare\""));
    // Drives by their position on the page: 0 is drive 1, 1 is drive 2.
    for drive in ["0", "1"] {
        assert!(body.contains(&format!("<option value=\"{drive}\"")));
        for spare in ["default", "25"] {
            let tag = format!("data-key=\"drive={drive};spare={spare}\"");
            assert_eq!(body.matches(&tag).count(), 1, "{tag}");
        }
    }
    // The first view (drive 1, default spare area) is on the page; the others are fetched
    // when selected, from an address that serves them.
    // The quick run's deviation said once above its charts.
    assert!(body.contains(
        "data-key=\"drive=0;spare=default\"><p class=\"bad\">deviates: duration 60 s instead of 2000 s"
    ));
    let srcs: Vec<&str> = body
        .match_indices("data-src=\"")
        .map(|(at, m)| {
            let rest = &body[at + m.len()..];
            &rest[..rest.find('"').unwrap()]
        })
        .collect();
    assert!(srcs.len() >= 3, "{srcs:?}");
    for src in srcs {
        let f = get(&b, src);
        assert_eq!(f.status, 200, "{src}");
        assert!(
            f.body.starts_with("<div class=\"charts\">")
                || f.body.starts_with("<p")
                || f.body.starts_with("<figure"),
            "{src}: {}",
            &f.body[..80.min(f.body.len())]
        );
        for svg in svgs(&f.body) {
            roxmltree::Document::parse(svg).unwrap();
        }
    }
    assert_eq!(get(&b, "/view/nosuch/1").status, 404);
    assert_eq!(get(&b, "/view/consistency/99999").status, 404);
    assert_eq!(get(&b, "/view/consistency/1?c=x").status, 400);
    for text in [
        "Disk busy time",
        "Average service time",
        "Average data rate",
        "TRIM functional",
    ] {
        assert!(body.contains(text), "no {text}");
    }
    // Every result is shown in its test's section, and a chart or table it made is linked.
    for r in b.latest_results(1).unwrap() {
        let anchor = crate::view::Section::of(r.result.test).anchor();
        assert!(
            body.contains(&format!("<section id=\"{anchor}\">")),
            "no {anchor}"
        );
        assert!(
            body.contains(&format!("href=\"/result/{}\"", r.id)),
            "{}",
            r.result.file_stem()
        );
    }
    for svg in svgs(body) {
        roxmltree::Document::parse(svg).unwrap();
    }
    // No selection compares every drive.
    assert_eq!(
        get(&b, "/compare?deviating=include").body,
        get(&b, "/compare?d=1&d=2&deviating=include").body
    );
    // Nothing loads from elsewhere.
    assert!(!body.contains("src=\"http") && !body.contains("href=\"http"));
}

fn run_and_result_pages(db: &Db) {
    let b = bench(db);
    let run = get(&b, "/run/2");
    assert_eq!(run.status, 200);
    assert!(run.body.contains("id=\"consistency\""));
    assert!(run.body.contains("href=\"/\""));
    let r = &b.results_of_run(2).unwrap()[0];
    let page = get(&b, &format!("/result/{}", r.id));
    assert_eq!(page.status, 200);
    assert!(page.body.contains(&r.result.label));
    assert!(page.body.contains("id=\"parameters\""));
    assert!(page.body.contains("href=\"/run/2\""));
    // Parameters as a readable table, not JSON.
    assert!(
        page.body.contains("<td>queue depth</td>"),
        "readable parameters"
    );
}

fn compare_shows_the_power_section_and_fetches_a_drives_power_charts(db: &Db) {
    use crate::view::sections::power::tests::power_result;
    use engine::power::Basis;
    let mut b = Bench::open(&db.path()).unwrap();
    let t = "2026-01-01T00:00:00Z";
    for (model, w, basis) in [
        ("meter", Some(3.1), Basis::Measured),
        ("sim", Some(2.2), Basis::Model),
    ] {
        let results = suite::methodology::power::TESTS
            .iter()
            .map(|test| power_result(test.name(), model, w, basis, None, &[w, None, w]))
            .collect();
        b.store(&crate::db::tests::run(model, t, results)).unwrap();
    }
    let p = get(&b, "/compare");
    assert_eq!(p.status, 200);
    assert!(p.body.contains("<section id=\"power\">"));
    for title in [
        "Drive Power Consumption - Idle",
        "SSD Slumber Power (HIPM+DIPM)",
        "Drive Power Consumption - Sequential Write",
        "Drive Power Consumption - Random Write",
    ] {
        assert!(
            p.body.contains(&format!("<title>{title}</title>")),
            "{title}"
        );
    }
    assert!(p.body.contains("(modelled)"));
    // The second drive's sequential write is fetched when selected, and has its power.
    let src = p
        .body
        .match_indices("data-src=\"/view/power/")
        .map(|(at, m)| {
            let rest = &p.body[at + "data-src=\"".len()..at + m.len() + 20];
            rest[..rest.find('"').unwrap()].replace("&amp;", "&")
        })
        .next()
        .expect("a fetched power view");
    let v = get(&b, &src);
    assert_eq!(v.status, 200, "{src}");
    assert!(v.body.contains("<title>Power</title>"), "{}", v.body);
    for svg in svgs(&v.body) {
        roxmltree::Document::parse(svg).unwrap();
    }
}

/// A Bench of `n` drives: drive `i` is model `Drive NNN` of vendor Acme (even `i`) or Zeta,
/// on NVMe (`i` % 4 == 0) or SATA, `i` GB, NAND TLC (`i` % 3 == 0) or QLC, measured on host rig-`i % 2` on day 1 + `i` % 28 of
/// January 2026.
fn many(db: &Db, n: usize) -> Bench {
    let mut b = Bench::open(&db.path()).unwrap();
    for i in 1..=n {
        let mut r = crate::db::tests::result(
            "consistency",
            None,
            &format!("Drive {i:03}"),
            &format!("2026-01-{:02}T10:00:00Z", 1 + i % 28),
            100.0,
        );
        r.target.vendor = Some(if i % 2 == 0 { "Acme" } else { "Zeta" }.into());
        r.target.capacity_bytes = i as u64 * 1_000_000_000;
        r.system.hostname = format!("rig-{}", i % 2);
        let link = if i % 4 == 0 {
            "NVMe (PCIe 3.0 x4)"
        } else {
            "SATA 6 Gb/s"
        };
        r.target.details.insert("link".into(), link.into());
        let started = r.started_at.clone();
        b.store(&crate::db::tests::run(
            &format!("Drive {i:03}"),
            &started,
            vec![r],
        ))
        .unwrap();
    }
    for d in b.drives().unwrap() {
        let i: usize = d.name[6..].parse().unwrap();
        let nand = if i.is_multiple_of(3) { "TLC" } else { "QLC" };
        b.annotate(
            d.id,
            &Specs {
                nand: Some(nand.into()),
                ..Default::default()
            },
        )
        .unwrap();
    }
    b
}

/// The drive names a drive list page shows, in order.
fn listed(body: &str) -> Vec<String> {
    let body = &body[..body.find("id=\"runs\"").unwrap_or(body.len())];
    body.match_indices("<a href=\"/compare?d=")
        .filter_map(|(at, _)| {
            let rest = &body[at..];
            let start = rest.find('>')? + 1;
            let end = rest.find("</a>")?;
            Some(rest[start..end].to_string())
        })
        .filter(|n| n.starts_with("Drive "))
        .collect()
}

fn the_drive_list_is_paged(db: &Db) {
    let b = many(db, 120);
    let first = get(&b, "/").body;
    let names = listed(&first);
    assert_eq!(names.len(), 50);
    assert_eq!(names[0], "Drive 001");
    assert!(first.contains("120 drives"), "total");
    assert!(first.contains("page 1 of 3"));
    assert!(first.contains("href=\"/?page=2\""), "next");
    assert!(!first.contains("rel=\"prev\""));
    let last = get(&b, "/?page=3").body;
    assert_eq!(
        listed(&last),
        (101..=120)
            .map(|i| format!("Drive {i:03}"))
            .collect::<Vec<_>>()
    );
    assert!(last.contains("href=\"/?page=2\"") && !last.contains("rel=\"next\""));
    assert!(listed(&get(&b, "/?page=4").body).is_empty());
    for bad in ["/?page=0", "/?page=x", "/?min_gb=lots", "/?from=yesterday"] {
        assert_eq!(get(&b, bad).status, 400, "{bad}");
    }
}

fn the_drive_list_filters(db: &Db) {
    let b = many(db, 60);
    let names = |url: &str| {
        let p = get(&b, url);
        assert_eq!(p.status, 200, "{url}");
        listed(&p.body)
    };
    let nums =
        |url: &str| -> Vec<usize> { names(url).iter().map(|n| n[6..].parse().unwrap()).collect() };
    assert!(nums("/?vendor=acme").iter().all(|i| i % 2 == 0));
    assert_eq!(nums("/?vendor=acme").len(), 30);
    assert_eq!(nums("/?host=rig-1").len(), 30);
    assert!(nums("/?host=rig-1").iter().all(|i| i % 2 == 1));
    assert_eq!(nums("/?min_gb=10&max_gb=12.5"), vec![10, 11, 12]);
    assert!(nums("/?nand=tlc").iter().all(|i| i % 3 == 0));
    assert_eq!(nums("/?nand=tlc").len(), 20);
    assert_eq!(nums("/?from=2026-01-05&to=2026-01-05"), vec![4, 32, 60]);
    assert_eq!(nums("/?q=drive+05"), (50..=59).collect::<Vec<_>>());
    assert_eq!(nums("/?kind=file").len(), 0);
    assert_eq!(nums("/?kind=sim&vendor=Zeta&min_gb=50").len(), 5);
    assert_eq!(nums("/?interface=nvme").len(), 15);
    assert!(nums("/?interface=NVMe").iter().all(|i| i % 4 == 0));
    assert_eq!(nums("/?interface=SATA&max_gb=8").len(), 6);
    let form = get(&b, "/?interface=NVMe").body;
    assert!(form.contains("<option value=\"NVMe\" selected>NVMe</option>"));
    assert!(form.contains("<option value=\"SATA\">SATA</option>"));
    // LIKE's wildcards are text.
    assert!(nums("/?q=%25").is_empty() && nums("/?q=_").is_empty());
    // Pages keep the filters, encoded.
    let p = get(&b, "/?vendor=a+b%26c").body;
    assert!(
        p.contains("value=\"a b&amp;c\""),
        "the form shows the filter"
    );
    let p = get(&b, "/?host=rig-0&q=drive").body;
    assert!(p.contains("30 matching drives"));
    let p = get(&b, "/?nand=c").body;
    assert!(
        p.contains("href=\"/?nand=c&amp;page=2\""),
        "next keeps the filter"
    );
}

/// A quick suite's figures never stand beside full runs by default: the page leaves them
/// out and says so, with a link that includes them, marked.
fn compare_leaves_out_deviating_results_unless_asked(db: &Db) {
    let b = bench(db);
    let p = get(&b, "/compare?d=1");
    assert_eq!(p.status, 200);
    let latest = b.latest_results(1).unwrap();
    let n = (latest.iter())
        .filter(|s| !s.result.deviations.is_empty())
        .count();
    assert!(n > 1);
    assert!(
        p.body
            .contains(&format!("{n} results that deviate from the methodology")),
        "{}",
        p.body
    );
    assert!(p
        .body
        .contains("href=\"/compare?d=1&amp;deviating=include\""));
    assert!(!p.body.contains("<section id=\"consistency\">"));
    let included = get(&b, "/compare?d=1&deviating=include").body;
    assert!(included.contains("<section id=\"consistency\">"));
    assert!(included.contains("(deviates)"));
    assert!(included.contains("are included, marked (deviates)"));
    let bad = get(&b, "/compare?d=1&deviating=yes");
    assert_eq!(bad.status, 400);
    assert!(bad.body.contains("deviating=include"), "{}", bad.body);
}

/// A day that is not on the calendar is refused, saying how to write one; the date filters
/// say what they are.
fn the_drive_lists_days_are_calendar_days(db: &Db) {
    let b = bench(db);
    for bad in [
        "2026-13-45",
        "2026-02-29",
        "2026-04-31",
        "2026-00-10",
        "2026-1-5",
    ] {
        let p = get(&b, &format!("/?from={bad}"));
        assert_eq!(p.status, 400, "{bad}");
        assert!(p.body.contains("not a day of the calendar"), "{}", p.body);
        assert_eq!(get(&b, &format!("/?to={bad}")).status, 400, "{bad}");
    }
    for good in ["2024-02-29", "2026-12-31", "2026-01-01"] {
        assert_eq!(get(&b, &format!("/?from={good}")).status, 200, "{good}");
    }
    let form = get(&b, "/").body;
    assert!(
        form.contains("<label>runs from <input type=\"date\" name=\"from\""),
        "{form}"
    );
    assert!(form.contains("<label>to <input type=\"date\" name=\"to\""));
}

/// Unticked, Compare takes the drives the list's filters let through, when they are few
/// enough to chart; more asks for fewer, and never reads them all.
fn compare_takes_the_filtered_drives_up_to_a_limit(db: &Db) {
    let b = many(db, 60);
    let compared = |url: &str| {
        let p = get(&b, url);
        assert_eq!(p.status, 200, "{url}");
        p.body
    };
    let nvme = compared("/compare?interface=NVMe");
    let max = super::compare::MAX_COMPARE as usize;
    assert!(15 <= max);
    for i in (4..=60).step_by(4) {
        assert!(nvme.contains(&format!("Drive {i:03}")), "Drive {i:03}");
    }
    assert!(!nvme.contains("Drive 001") && !nvme.contains("Drive 002"));
    let all = compared("/compare");
    assert!(all.contains("60 drives match") && all.contains(&format!("at most {max}")));
    assert!(all.contains("href=\"/?page=1\""), "back to the list");
    let acme = compared("/compare?vendor=acme");
    assert!(acme.contains("30 drives match"));
    assert!(
        acme.contains("href=\"/?vendor=acme&amp;page=1\""),
        "keeps the filter"
    );
    // Ticked drives win over the filters, and there is a limit to them too.
    let ticked = compared("/compare?d=1&vendor=acme");
    assert!(ticked.contains("Drive 001") && !ticked.contains("drives match"));
    let many_ids: String = (1..=max as i64 + 1).map(|i| format!("d={i}&")).collect();
    assert_eq!(get(&b, &format!("/compare?{many_ids}")).status, 400);
    assert_eq!(get(&b, "/compare?min_gb=lots").status, 400);
    // The list's Compare form carries its filters, so an unticked Compare takes them.
    let list = get(&b, "/?interface=NVMe").body;
    let form = &list[list.find("id=\"drive-form\"").unwrap()..];
    assert!(form.contains("<input type=\"hidden\" name=\"interface\" value=\"NVMe\">"));
    assert!(form.contains("compares all 15 matching"));
    assert!(get(&b, "/").body.contains("tick up to"));
}

on_both!(
    unknown_paths_are_404_and_never_files,
    only_get_and_head,
    malformed_query_values_are_400,
    drive_names_are_escaped_everywhere,
    index_lists_drives_and_runs,
    compare_has_selectors_and_one_view_per_drive_and_spare,
    run_and_result_pages,
    compare_shows_the_power_section_and_fetches_a_drives_power_charts,
    the_drive_list_is_paged,
    the_drive_list_filters,
    compare_takes_the_filtered_drives_up_to_a_limit,
    compare_leaves_out_deviating_results_unless_asked,
    the_drive_lists_days_are_calendar_days,
);
