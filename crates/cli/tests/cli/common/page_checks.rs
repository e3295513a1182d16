//! What every page ssdlab writes must pass in a real browser: no text under 11 px, hover
//! text on every bar and on chart points, switchers that switch. Used by the report's and
//! the Bench's browser tests.

use serde_json::{json, Value};

use super::cdp::{Browser, Page};

/// Rendered text smaller than 11 CSS pixels, HTML and SVG (an SVG's font size times the
/// scale it is drawn at): a description of each, up to 20.
pub fn small_text(browser: &mut Browser, page: &Page) -> Vec<String> {
    let js = r#"(() => {
      const bad = [];
      const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      while (walk.nextNode()) {
        const n = walk.currentNode;
        const el = n.parentElement;
        if (!n.textContent.trim() || !el || el.closest('script,style,title,[hidden],details:not([open])')) continue;
        const r = el.getBoundingClientRect();
        if (r.width === 0 && r.height === 0) continue;
        let px = parseFloat(getComputedStyle(el).fontSize);
        if (el instanceof SVGElement) {
          const m = el.getScreenCTM();
          if (!m) continue;
          px *= Math.hypot(m.a, m.b);
        }
        if (px < 10.99) bad.push(el.tagName + ' at ' + px.toFixed(1) + ' px: ' + n.textContent.trim().slice(0, 40));
      }
      return bad.slice(0, 20);
    })()"#;
    serde_json::from_value(browser.eval(page, js)).unwrap()
}

/// Checks that every bar carries its value on hover (at least `min_bars` bars), and that no
/// text is under 11 px at a desktop and a phone width; leaves the page at the desktop width.
pub fn assert_reads_well(browser: &mut Browser, page: &Page, min_bars: u64) {
    let (bars, untitled) = bars_and_untitled(browser, page);
    assert!(bars >= min_bars, "{bars} bars");
    assert!(untitled.is_empty(), "bars without hover text: {untitled:?}");
    for (w, h) in [(390, 844), (1280, 1000)] {
        browser.set_viewport(page, w, h);
        let small = small_text(browser, page);
        assert!(
            small.is_empty(),
            "text under 11 px at {w} px wide: {small:?}"
        );
    }
}

/// Bars (`g.bar`, and a 3D chart's `g.box`) on the page, and those whose hover title does
/// not carry the value the bar shows (a box: any value).
pub fn bars_and_untitled(browser: &mut Browser, page: &Page) -> (u64, Vec<String>) {
    let js = r#"(() => {
      // A bar writes its value and says it on hover; a 3D chart's box only says it.
      const bars = [...document.querySelectorAll('g.bar, g.box')];
      const bad = bars.filter(g => {
        const t = g.querySelector(':scope > title'), v = g.querySelector(':scope > text');
        if (g.classList.contains('box')) return !t || !/[0-9]/.test(t.textContent);
        return !t || !v || !t.textContent.includes(v.textContent);
      }).map(g => g.outerHTML.slice(0, 120));
      return [bars.length, bad.slice(0, 5)];
    })()"#;
    let v = browser.eval(page, js);
    (
        v[0].as_u64().unwrap(),
        serde_json::from_value(v[1].clone()).unwrap(),
    )
}

/// Moves the mouse (a real CDP input event) onto the middle point of the first visible XY
/// chart inside `scope` and returns (the point as data, the hover text shown).
pub fn hover_a_point(browser: &mut Browser, page: &Page, scope: &str) -> (Value, String) {
    // The axis maps are read back independently of the page's script.
    let js = format!(
        r#"(() => {{
      const svg = [...document.querySelectorAll({scope} + ' svg.xy')]
        .find(s => s.getBoundingClientRect().height > 0 && !s.closest('[hidden]'));
      if (!svg) return null;
      svg.scrollIntoView({{block: 'center'}});
      const series = svg.querySelector('[data-points]');
      if (!series) return {{error: 'a chart without points: ' + svg.outerHTML.slice(0, 600)}};
      const pts = series.dataset.points.split(' ');
      const p = pts[Math.floor(pts.length / 2)].split(',').map(Number);
      const axis = spec => {{
        const a = spec.split(' ');
        return v => {{
          const t = a[0] === 'lin' ? v : Math.log(v) / Math.log(a[0] === 'log2' ? 2 : 10);
          return +a[3] + (t - +a[1]) / (+a[2] - +a[1]) * (+a[4] - +a[3]);
        }};
      }};
      const screen = () => new DOMPoint(axis(svg.dataset.x)(p[0]), axis(svg.dataset.y)(p[1])).matrixTransform(svg.getScreenCTM());
      // A chart taller than the window (a wrapped heading, a long legend) may hold the point
      // out of sight after centring the chart: bring the point itself to the middle.
      window.scrollBy(0, screen().y - innerHeight / 2);
      const at = screen();
      return {{x: at.x, y: at.y, point: p}};
    }})()"#,
        scope = json!(scope)
    );
    let at = browser.eval(page, &js);
    assert!(at.is_object(), "no visible XY chart in {scope}");
    assert!(at.get("error").is_none(), "{scope}: {}", at["error"]);
    browser.call(
        Some(&page.session_id),
        "Input.dispatchMouseEvent",
        json!({"type": "mouseMoved", "x": at["x"], "y": at["y"]}),
    );
    let tip = browser.eval(
        page,
        "(() => { const t = document.getElementById('hover'); return t && !t.hidden ? t.textContent : ''; })()",
    );
    (at["point"].clone(), tip.as_str().unwrap_or("").to_string())
}

/// Every combination of a switcher's selects in `scope` (e.g. "#consistency"): after each
/// change exactly one view is visible, its key is the selection and it holds `charts`
/// charts besides the power charts under them (fetched first where the page fetches them),
/// or the page says there is no such result. Returns how many combinations showed charts.
pub fn switch_every_view(browser: &mut Browser, page: &Page, scope: &str, charts: u64) -> usize {
    let dims: Vec<(String, Vec<String>)> = serde_json::from_value(browser.eval(
        page,
        &format!(
            "[...document.querySelectorAll({} + ' select[data-switch]')].map(s => [s.dataset.dim, [...s.options].map(o => o.value)])",
            json!(scope)
        ),
    ))
    .unwrap();
    assert!(!dims.is_empty(), "{scope} has no selectors");
    let mut combos: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for (dim, values) in &dims {
        combos = combos
            .into_iter()
            .flat_map(|c| {
                values.iter().map(move |v| {
                    let mut c = c.clone();
                    c.push((dim.clone(), v.clone()));
                    c
                })
            })
            .collect();
    }
    let mut shown = 0;
    for combo in combos {
        for (dim, value) in &combo {
            let js = format!(
                "(() => {{ const s = document.querySelector({} + ' select[data-dim=' + {} + ']'); s.value = {}; \
                 s.dispatchEvent(new Event('change', {{bubbles: true}})); return s.value; }})()",
                json!(scope),
                json!(dim),
                json!(value)
            );
            assert_eq!(browser.eval(page, &js), json!(value));
        }
        let key: Vec<String> = combo.iter().map(|(d, v)| format!("{d}={v}")).collect();
        let key = key.join(";");
        let js = format!(
            r#"new Promise(done => {{
          const t0 = Date.now();
          (function poll() {{
            const views = [...document.querySelectorAll({scope} + ' .view')].filter(v => !v.hidden);
            const none = document.querySelector({scope} + ' .none');
            const svgs = views.length === 1 ? views[0].querySelectorAll('svg').length - views[0].querySelectorAll('figure.power svg').length : -1;
            const state = {{visible: views.length, key: views[0] ? views[0].dataset.key : null, svgs,
                           none: !!none && !none.hidden, text: views[0] ? views[0].textContent.slice(0, 80) : ''}};
            if (svgs === {charts} || (views.length === 0 && state.none) || Date.now() - t0 > 15000) done(state);
            else setTimeout(poll, 25);
          }})();
        }})"#,
            scope = json!(scope)
        );
        let state = browser.eval(page, &js);
        if state["visible"] == 0 {
            assert_eq!(
                state["none"], true,
                "{key}: nothing shown and no 'no result' note"
            );
            continue;
        }
        assert_eq!(state["visible"], 1, "{key}: {state}");
        assert_eq!(state["key"], json!(key), "{key}: {state}");
        assert_eq!(state["svgs"], charts, "{key}: {state}");
        shown += 1;
    }
    shown
}
