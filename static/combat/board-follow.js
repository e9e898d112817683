/* The board follows the turn. At the start of the viewer's turn (the GM's: a monster's or an NPC's)
   and after each of its actions, the board's view holds the acting token and the nearest foe, inside
   the part of the board in sight: never under the phone's action sheet. A combatant out of sight
   shows a marker at the edge of the view with its name; a tap on it brings it to the middle. Only the
   view moves: nothing here changes the battle. */
(function () {
  "use strict";
  var root = document.getElementById("battle-root");
  var scroller = root && root.querySelector("[data-board-view]");
  if (!scroller) { return; }

  var isGm = root.dataset.role === "gm";
  var followed = null; // the seq and actor the view last followed
  var marks = null; // the markers' layer
  var drawing = false;

  function board() { return document.getElementById("board"); }
  function isGrid() { var b = board(); return !!b && b.classList.contains("board-grid"); }
  function seqNow() {
    var el = document.getElementById("battle-seq");
    return el ? el.dataset.seq || "" : "";
  }

  // The part of the board's view in sight: inside the window, above what covers the bottom of a
  // phone's screen (the action sheet, which sticks to the bottom of the screen over the page, its and the plan menu when it is a sheet at the bottom of a phone).
  function visible() {
    var r = scroller.getBoundingClientRect();
    var out = { left: Math.max(0, r.left), top: Math.max(0, r.top), right: Math.min(window.innerWidth, r.right), bottom: Math.min(window.innerHeight, r.bottom) };
    var dock = document.getElementById("dock");
    var sheets = [dock && window.getComputedStyle(dock).position === "sticky" ? dock : null, document.querySelector(".plan-menu.sheet")];
    sheets.forEach(function (el) {
      if (!el) { return; }
      var d = el.getBoundingClientRect();
      if (d.height && d.top < out.bottom && d.bottom > out.top) { out.bottom = Math.max(out.top, d.top); }
    });
    return out;
  }

  function centre(r) { return { x: (r.left + r.right) / 2, y: (r.top + r.bottom) / 2 }; }

  // Scroll the board so the box ``want`` (client coordinates) sits in the middle of what is in sight;
  // when it is larger, keep ``keep`` (the acting token) in sight and lean toward the rest.
  function bring(want, keep) {
    var v = visible();
    var c = centre(want), m = centre(v);
    var dx = c.x - m.x, dy = c.y - m.y;
    if (want.right - want.left > v.right - v.left) { dx = keep.left - v.left - 8 + (want.left < keep.left ? keep.right - keep.left - (v.right - v.left) + 16 : 0); }
    if (want.bottom - want.top > v.bottom - v.top) { dy = keep.top - v.top - 8 + (want.top < keep.top ? keep.bottom - keep.top - (v.bottom - v.top) + 16 : 0); }
    scroller.scrollLeft += dx;
    scroller.scrollTop += dy;
  }

  function inside(r, v, margin) {
    return r.left >= v.left + margin && r.right <= v.right - margin && r.top >= v.top + margin && r.bottom <= v.bottom - margin;
  }

  function nearestFoe(t) {
    var b = board();
    var x = parseInt(t.dataset.x, 10), y = parseInt(t.dataset.y, 10);
    var side = t.classList.contains("side-enemy") ? "side-enemy" : "side-party";
    var best = null, bestD = Infinity;
    b.querySelectorAll(".token[data-x]").forEach(function (o) {
      if (o.classList.contains(side) || o.classList.contains("ko") || o.classList.contains("hp-down")) { return; }
      var d = Math.max(Math.abs(parseInt(o.dataset.x, 10) - x), Math.abs(parseInt(o.dataset.y, 10) - y));
      if (d < bestD) { best = o; bestD = d; }
    });
    return best;
  }

  // The view holds the acting token and its nearest foe, when the turn is the viewer's.
  function follow() {
    var b = board();
    var t = b && isGrid() ? b.querySelector(".token.acting") : null;
    if (!t) { followed = null; return; }
    var ours = t.classList.contains("mine") || (isGm && !t.dataset.controller);
    var key = seqNow() + ":" + t.dataset.cid;
    if (!ours || key === followed) { return; }
    followed = key;
    var v = visible();
    if (v.bottom - v.top < 60) { // the board is scrolled out of the window: bring it back first
      window.scrollBy(0, scroller.getBoundingClientRect().top - 8);
    }
    var r = t.getBoundingClientRect();
    var foe = nearestFoe(t);
    var want = { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
    if (foe) {
      var f = foe.getBoundingClientRect();
      want = { left: Math.min(r.left, f.left), top: Math.min(r.top, f.top), right: Math.max(r.right, f.right), bottom: Math.max(r.bottom, f.bottom) };
    }
    if (!inside(want, visible(), 4)) { bring(want, r); }
    edges();
  }

  // ------------------------------------------------------------ edge markers
  function layer() {
    if (!marks) {
      marks = document.createElement("div");
      marks.className = "edge-marks";
      marks.setAttribute("role", "group");
      marks.setAttribute("aria-label", "Combatants out of sight");
      root.appendChild(marks);
    }
    return marks;
  }

  function arrow(dx, dy) {
    if (Math.abs(dx) >= Math.abs(dy)) { return dx < 0 ? "◀" : "▶"; }
    return dy < 0 ? "▲" : "▼";
  }
  function where(dx, dy) {
    if (Math.abs(dx) >= Math.abs(dy)) { return dx < 0 ? "to the left" : "to the right"; }
    return dy < 0 ? "above" : "below";
  }

  function marker(t, v) {
    var r = t.getBoundingClientRect();
    var c = centre(r), m = centre(v);
    var el = document.createElement("button");
    el.type = "button";
    el.className = "edge-mark " + (t.classList.contains("side-enemy") ? "side-enemy" : "side-party") + (t.classList.contains("acting") ? " acting" : "");
    el.dataset.edgeFor = t.dataset.cid;
    var name = t.getAttribute("title") || "Someone";
    el.setAttribute("aria-label", name + ", out of sight " + where(c.x - m.x, c.y - m.y) + ": show");
    var a = document.createElement("span");
    a.className = "em-arrow";
    a.setAttribute("aria-hidden", "true");
    a.textContent = arrow(c.x - m.x, c.y - m.y);
    var n = document.createElement("span");
    n.className = "em-name";
    n.textContent = name;
    el.appendChild(a);
    el.appendChild(n);
    layer().appendChild(el);
    // On the edge of what is in sight, where the line from its middle to the token leaves it.
    var w = el.offsetWidth, h = el.offsetHeight;
    var x = Math.max(v.left + 2, Math.min(v.right - w - 2, c.x - w / 2));
    var y = Math.max(v.top + 2, Math.min(v.bottom - h - 2, c.y - h / 2));
    return { el: el, x: x, y: y, w: w, h: h };
  }

  // Markers on one edge never cover each other: each moves along the edge past the one before it.
  function spread(items, v) {
    items.sort(function (a, b) { return a.y - b.y || a.x - b.x; });
    for (var i = 1; i < items.length; i++) {
      for (var j = 0; j < i; j++) {
        var a = items[j], b = items[i];
        if (b.x < a.x + a.w && a.x < b.x + b.w && b.y < a.y + a.h + 2 && a.y < b.y + b.h + 2) {
          if (b.y + a.h + 2 <= v.bottom - b.h) { b.y = a.y + a.h + 2; } else { b.x = a.x + a.w + 2; }
        }
      }
    }
    items.forEach(function (m) { m.el.style.left = m.x + "px"; m.el.style.top = m.y + "px"; });
  }

  function edges() {
    drawing = false;
    var l = layer();
    l.innerHTML = "";
    var b = board();
    if (!b || !isGrid()) { return; }
    var v = visible();
    if (v.bottom - v.top < 40 || v.right - v.left < 40) { return; }
    var items = [];
    b.querySelectorAll(".token[data-x]").forEach(function (t) {
      var c = centre(t.getBoundingClientRect());
      if (c.x < v.left || c.x > v.right || c.y < v.top || c.y > v.bottom) { items.push(marker(t, v)); }
    });
    spread(items, v);
  }

  function later() {
    if (drawing) { return; }
    drawing = true;
    window.requestAnimationFrame(edges);
  }

  root.addEventListener("click", function (e) {
    var m = e.target.closest("[data-edge-for]");
    if (m) {
      var t = board() && board().querySelector('.token[data-cid="' + m.dataset.edgeFor + '"]');
      if (t) {
        var r = t.getBoundingClientRect();
        bring({ left: r.left, top: r.top, right: r.right, bottom: r.bottom }, r);
        later();
      }
      return;
    }
    window.setTimeout(later, 0); // a zoom button, Fit board, Centre on acting
  });

  function afterRender() { follow(); later(); }
  root.addEventListener("htmx:wsAfterMessage", afterRender);
  document.body.addEventListener("htmx:afterSettle", afterRender);
  document.body.addEventListener("htmx:oobAfterSwap", function (e) {
    if (e.detail && e.detail.target && e.detail.target.id === "board") { later(); }
  });
  scroller.addEventListener("scroll", later, { passive: true });
  scroller.addEventListener("wheel", later, { passive: true });
  scroller.addEventListener("pointerup", later);
  window.addEventListener("scroll", later, { passive: true });
  window.addEventListener("resize", later);
  // Bring ``elements`` (on the board) into sight, keeping the first of them in sight when all cannot be.
  function show(elements) {
    var rects = elements.filter(Boolean).map(function (el) { return el.getBoundingClientRect(); });
    if (!rects.length) { return; }
    var want = rects.reduce(function (a, r) {
      return { left: Math.min(a.left, r.left), top: Math.min(a.top, r.top), right: Math.max(a.right, r.right), bottom: Math.max(a.bottom, r.bottom) };
    }, { left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity });
    if (!inside(want, visible(), 4)) { bring(want, rects[0]); later(); }
  }
  window.vttBoardView = { visible: visible, show: show };
  window.setTimeout(afterRender, 0); // after board-view.js's first fit
})();
