//! The test-side DevTools client works: a page loads from a file:// URL, script runs and
//! reacts to events, console errors are caught, and screenshots come back as PNG.
//! Skipped where Chromium is not installed (apt-get install chromium).

use crate::common::cdp::Browser;

const PAGE: &str = r#"<!doctype html>
<meta charset="utf-8">
<select id=s><option value=a>A</option><option value=b>B</option></select>
<div id=a>first</div>
<div id=b hidden>second</div>
<button id=go onclick='console.error("boom")'>go</button>
<script>
  document.getElementById("s").addEventListener("change", e => {
    for (const id of ["a", "b"]) document.getElementById(id).hidden = e.target.value !== id;
  });
</script>
"#;

#[test]
fn cdp_drives_a_page() {
    let dir = tempfile::tempdir().unwrap();
    let Some(mut browser) = Browser::launch(&dir.path().join("profile")) else {
        return;
    };
    let html = dir.path().join("page.html");
    std::fs::write(&html, PAGE).unwrap();

    let page = browser.new_page();
    browser.set_viewport(&page, 400, 300);
    browser.navigate(&page, &format!("file://{}", html.display()));
    let visible = "[...document.querySelectorAll('div')].filter(d => !d.hidden).map(d => d.id)";
    assert_eq!(browser.eval(&page, visible), serde_json::json!(["a"]));

    let choose_b = "const s = document.getElementById('s'); s.value = 'b'; \
                    s.dispatchEvent(new Event('change')); s.value";
    assert_eq!(browser.eval(&page, choose_b), "b");
    assert_eq!(browser.eval(&page, visible), serde_json::json!(["b"]));
    assert_eq!(browser.eval(&page, "Promise.resolve(6 * 7)"), 42);
    assert!(
        browser.console_errors().is_empty(),
        "{:?}",
        browser.console_errors()
    );

    browser.eval(&page, "document.getElementById('go').click()");
    // Console events may trail the evaluate reply; a round trip later they are in.
    browser.eval(&page, "0");
    let errors = browser.console_errors();
    assert!(errors.iter().any(|e| e.contains("boom")), "{errors:?}");

    let png = dir.path().join("shot.png");
    browser.screenshot(&page, &png);
    let bytes = std::fs::read(&png).unwrap();
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    assert!(bytes.len() > 100, "PNG of {} bytes", bytes.len());
}
