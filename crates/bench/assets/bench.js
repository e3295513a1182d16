// The report's and the Bench's only script, for two things.
// 1. Switchers: selects with data-switch="NAME" and data-dim="DIM" show the one element
//    .view[data-switch=NAME] whose data-key is "DIM=value;DIM=value" (in the selects'
//    order). A view with data-src and no content yet is fetched when first shown, so a
//    compare page loads only the charts a reader selects.
// 2. Hover values: an SVG chart with data-x/data-y axis maps ("scale t0 t1 p0 p1") and
//    series with data-points ("x,y x,y") shows the nearest point's values under the pointer.
(function () {
  'use strict';
  function groups() {
    var names = {};
    document.querySelectorAll('select[data-switch]').forEach(function (s) { names[s.dataset.switch] = true; });
    return Object.keys(names);
  }
  function show(name) {
    var selects = document.querySelectorAll('select[data-switch="' + name + '"]');
    var key = Array.prototype.map.call(selects, function (s) { return s.dataset.dim + '=' + s.value; }).join(';');
    var found = false;
    document.querySelectorAll('.view[data-switch="' + name + '"]').forEach(function (v) {
      var on = v.dataset.key === key;
      v.hidden = !on;
      found = found || on;
      if (on && v.dataset.src && !v.dataset.loaded) {
        v.dataset.loaded = '1';
        v.textContent = 'Loading…';
        fetch(v.dataset.src).then(function (r) {
          if (!r.ok) { throw new Error(r.status + ' ' + r.statusText); }
          return r.text();
        }).then(function (html) { v.innerHTML = html; })
          .catch(function (e) { v.textContent = 'Could not load these charts: ' + e.message; });
      }
    });
    var none = document.querySelector('.none[data-switch="' + name + '"]');
    if (none) { none.hidden = found; }
  }
  groups().forEach(function (name) {
    document.querySelectorAll('select[data-switch="' + name + '"]').forEach(function (s) {
      s.addEventListener('change', function () { show(name); });
    });
    show(name);
  });

  // A link to a result's parameters opens its collapsed section.
  function openTarget() {
    var t = location.hash && document.getElementById(location.hash.slice(1));
    if (t && t.tagName === 'DETAILS') { t.open = true; }
  }
  window.addEventListener('hashchange', openTarget);
  document.addEventListener('click', function (e) {
    var a = e.target.closest && e.target.closest('a[href^="#"]');
    var t = a && document.getElementById(a.getAttribute('href').slice(1));
    if (t && t.tagName === 'DETAILS') { t.open = true; }
  });
  openTarget();

  var tip = document.createElement('div');
  tip.id = 'hover';
  tip.hidden = true;
  document.body.appendChild(tip);
  function axis(spec) {
    var a = spec.split(' '), kind = a[0], t0 = +a[1], t1 = +a[2], p0 = +a[3], p1 = +a[4];
    return function (v) {
      var t = kind === 'lin' ? v : (v > 0 ? Math.log(v) / Math.log(kind === 'log2' ? 2 : 10) : NaN);
      return p0 + (t - t0) / (t1 - t0) * (p1 - p0);
    };
  }
  function fmt(v, kind) {
    if (kind === 'bytes') {
      var units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'], i = 0;
      while (Math.abs(v) >= 1024 && i < units.length - 1) { v /= 1024; i++; }
      return (Math.round(v * 10) / 10) + ' ' + units[i];
    }
    return v.toLocaleString('en-US', { maximumFractionDigits: Math.abs(v) >= 100 ? 0 : 2 });
  }
  // "Time (s)" and 812 -> "812 s"; "Round" and 3 -> "Round 3"; "IOPS" and 9000 -> "9,000 IOPS".
  function describe(v, label, kind, isX) {
    var unit = /\(([^)]*)\)\s*$/.exec(label), text = fmt(v, kind);
    if (unit) { return text + ' ' + unit[1]; }
    if (kind === 'bytes') { return text; }
    return isX ? label + ' ' + text : text + ' ' + label;
  }
  function points(svg) {
    if (svg._points) { return svg._points; }
    var mx = axis(svg.dataset.x), my = axis(svg.dataset.y), out = [];
    svg.querySelectorAll('[data-points]').forEach(function (g) {
      g.dataset.points.split(' ').forEach(function (p) {
        if (!p) { return; }
        var xy = p.split(','), x = +xy[0], y = +xy[1];
        out.push({ px: mx(x), py: my(y), x: x, y: y, name: g.dataset.name });
      });
    });
    svg._points = out;
    return out;
  }
  document.addEventListener('mousemove', function (e) {
    var svg = e.target.closest && e.target.closest('svg.xy');
    if (!svg) { tip.hidden = true; return; }
    var ctm = svg.getScreenCTM();
    if (!ctm) { return; }
    var m = new DOMPoint(e.clientX, e.clientY).matrixTransform(ctm.inverse());
    var best = null, bestD = 144; // within 12 user units
    points(svg).forEach(function (p) {
      var d = (p.px - m.x) * (p.px - m.x) + (p.py - m.y) * (p.py - m.y);
      if (d < bestD) { best = p; bestD = d; }
    });
    if (!best) { tip.hidden = true; return; }
    tip.textContent = best.name + ': ' + describe(best.x, svg.dataset.xlabel, svg.dataset.xkind, true) +
      ', ' + describe(best.y, svg.dataset.ylabel, svg.dataset.ykind, false);
    tip.hidden = false;
    tip.style.left = (e.clientX + 12) + 'px';
    tip.style.top = (e.clientY + 12) + 'px';
  });
})();
