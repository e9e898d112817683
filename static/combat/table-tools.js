/* The table's tools on the board: pings (Alt-click, a long press, or P on the focused square), the
   ruler (drag from a token or a square; the count uses the battle's own metric, the engine's
   grid_metric that the board carries as data-metric), and the GM's fog of war (drag a rectangle or
   paint with the brush to reveal or hide squares, on a map with fog or a bare one; with a finger too). Pings and shared rulers go over the battle socket
   (combat/marks.py) and every page draws them for a few seconds; a fog change is a GM action posted
   like any other, and the server pushes the board as each viewer may see it. Nothing is decided here. */
(function () {
  "use strict";
  var root = document.getElementById("battle-root");
  var scroller = root && root.querySelector("[data-board-view]");
  if (!scroller) { return; }

  var PING_MS = 3000, RULER_MS = 3000, LONG_PRESS_MS = 550, SEND_EVERY_MS = 80;
  var socket = null;
  var tool = null; // "ruler" | "reveal" | "hide"
  var drag = null; // {id, from, to, squares, sentAt}
  var press = null; // a touch that may become a long press: {id, x, y, timer, square}
  var swallow = false; // the click after a ping or a tool's drag is not a tap on the board
  var marks = {}; // what is drawn now, by key: {kind, at | from/to, by, mine, until}
  var pings = 0;
  var rulerButton = root.querySelector("[data-ruler]");
  var shareBox = root.querySelector("[data-ruler-share]");
  var hint = document.getElementById("board-hint");

  function board() { return document.getElementById("board"); }
  function isGrid() { var b = board(); return !!b && b.classList.contains("board-grid"); }

  root.addEventListener("htmx:wsOpen", function (e) { socket = e.detail.socketWrapper; });
  root.addEventListener("htmx:wsClose", function () { socket = null; });
  function send(message) { if (socket) { socket.send(JSON.stringify(message)); } }

  // ------------------------------------------------------------ squares and distances
  function cellAt(e) {
    var b = board();
    if (!b) { return null; }
    var r = b.getBoundingClientRect();
    var cols = parseInt(b.dataset.width, 10), rows = parseInt(b.dataset.height, 10);
    var size = r.width / cols;
    var x = Math.floor((e.clientX - r.left) / size), y = Math.floor((e.clientY - r.top) / size);
    return x < 0 || y < 0 || x >= cols || y >= rows ? null : [x, y];
  }

  // The engine's metrics (combat/engine/board.py): a diagonal step counts 1 (chebyshev), or 2 (manhattan).
  function distance(a, b) {
    var dx = Math.abs(a[0] - b[0]), dy = Math.abs(a[1] - b[1]);
    return board().dataset.metric === "manhattan" ? dx + dy : Math.max(dx, dy);
  }
  function squares(n) { return window.vttView.count(n, "square"); }

  // ------------------------------------------------------------ drawing the marks (again after each render)
  function place(el, x, y) {
    el.style.left = "calc(" + x + " * var(--cell))";
    el.style.top = "calc(" + y + " * var(--cell))";
  }

  function drawRuler(m) {
    var b = board();
    var x0 = m.from[0] + 0.5, y0 = m.from[1] + 0.5, x1 = m.to[0] + 0.5, y1 = m.to[1] + 0.5;
    var line = document.createElement("div");
    line.className = "mark ruler-line" + (m.mine ? " mine" : "");
    place(line, x0, y0);
    line.style.width = "calc(" + Math.hypot(x1 - x0, y1 - y0) + " * var(--cell))";
    line.style.transform = "rotate(" + Math.atan2(y1 - y0, x1 - x0) + "rad)";
    b.appendChild(line);
    [m.from, m.to].forEach(function (sq) {
      var end = document.createElement("div");
      end.className = "mark ruler-end" + (m.mine ? " mine" : "");
      end.style.gridColumn = String(sq[0] + 1);
      end.style.gridRow = String(sq[1] + 1);
      b.appendChild(end);
    });
    var label = document.createElement("div");
    label.className = "mark ruler-label" + (m.mine ? " mine" : "");
    label.setAttribute("data-distance", String(distance(m.from, m.to)));
    label.textContent = (m.mine ? "" : m.by + ": ") + squares(distance(m.from, m.to));
    place(label, x1, y1);
    b.appendChild(label);
  }

  // A mark in its maker's colour (the server's palette: combat/marks.py), the page's own from its root.
  function paint(el, m) {
    var colour = m.mine ? root.dataset.colour : m.colour;
    if (colour && /^#[0-9a-f]{6}$/i.test(colour)) { el.style.setProperty("--mark", colour); }
  }

  function drawPing(m) {
    var b = board();
    var ring = document.createElement("div");
    ring.className = "mark ping" + (m.mine ? " mine" : "");
    paint(ring, m);
    ring.style.gridColumn = String(m.at[0] + 1);
    ring.style.gridRow = String(m.at[1] + 1);
    ring.setAttribute("data-square", m.at[0] + "," + m.at[1]);
    var name = document.createElement("span");
    name.className = "ping-name";
    name.textContent = m.by;
    ring.appendChild(name);
    b.appendChild(ring);
  }

  function draw() {
    var b = board();
    if (!b || !isGrid()) { return; }
    b.querySelectorAll(".mark").forEach(function (el) { el.remove(); });
    var now = Date.now();
    Object.keys(marks).forEach(function (key) {
      var m = marks[key];
      if (m.until && m.until < now) { delete marks[key]; return; }
      if (m.kind === "ping") { drawPing(m); } else if (m.kind === "ruler") { drawRuler(m); } else if (m.kind === "pick") { drawPick(m); }
    });
  }

  function keep(key, mark, ms) {
    mark.until = ms ? Date.now() + ms : 0;
    marks[key] = mark;
    draw();
    if (ms) { window.setTimeout(draw, ms + 50); }
  }

  function say(text) {
    var region = document.getElementById("announce");
    if (region) { region.textContent = text; }
  }

  // ------------------------------------------------------------ pings
  function ping(sq) {
    pings += 1;
    keep("ping:me:" + pings, { kind: "ping", at: sq, by: "You", mine: true }, PING_MS);
    send({ type: "ping", at: sq });
  }

  // ------------------------------------------------------------ marks from the others
  root.addEventListener("htmx:wsBeforeMessage", function (e) {
    var text = e.detail.message;
    if (typeof text !== "string" || text.charAt(0) !== "{") { return; }
    var data;
    try { data = JSON.parse(text); } catch (err) { return; }
    if (data.notice) {
      if (hint) { hint.textContent = data.notice; }
      return;
    }
    var m = data.mark;
    if (!m) { return; }
    if (m.kind === "ping") {
      pings += 1;
      keep("ping:" + m.user + ":" + pings, { kind: "ping", at: m.at, by: m.by, colour: m.colour }, PING_MS);
      say(m.by + " pings a square.");
    } else if (m.kind === "ruler") {
      var key = "ruler:" + m.user;
      if (m.done) {
        if (marks[key]) { keep(key, marks[key], RULER_MS); }
      } else {
        keep(key, { kind: "ruler", from: m.from, to: m.to, by: m.by }, 15000);
      }
    }
  });
  root.addEventListener("htmx:wsAfterMessage", draw);
  document.body.addEventListener("htmx:afterSettle", draw);

  // ------------------------------------------------------------ the fog brush and rectangle (GM)
  function drawPick(m) {
    var b = board();
    rectsOf(m).forEach(function (r) {
      var el = document.createElement("div");
      el.className = "mark fog-pick fog-pick-" + m.mode;
      el.style.gridColumn = (r[0] + 1) + " / " + (r[2] + 2);
      el.style.gridRow = (r[1] + 1) + " / " + (r[3] + 2);
      b.appendChild(el);
    });
  }

  // A rectangle between the two corners, or the brush's squares as runs along each row.
  function rectsOf(m) {
    if (!m.brush) {
      return [[Math.min(m.from[0], m.to[0]), Math.min(m.from[1], m.to[1]), Math.max(m.from[0], m.to[0]), Math.max(m.from[1], m.to[1])]];
    }
    var rows = {};
    Object.keys(m.squares).forEach(function (k) {
      var p = k.split(",").map(Number);
      (rows[p[1]] = rows[p[1]] || []).push(p[0]);
    });
    var out = [];
    Object.keys(rows).forEach(function (y) {
      var xs = rows[y].sort(function (a, b) { return a - b; });
      var start = xs[0], prev = xs[0];
      for (var i = 1; i <= xs.length; i += 1) {
        if (i === xs.length || xs[i] !== prev + 1) { out.push([start, +y, prev, +y]); start = xs[i]; }
        prev = xs[i];
      }
    });
    return out;
  }

  function brushTo(sq) {
    // Every square between the last one and this (a quick stroke skips none).
    var last = drag.to, steps = Math.max(Math.abs(sq[0] - last[0]), Math.abs(sq[1] - last[1]));
    for (var i = 1; i <= steps; i += 1) {
      var x = Math.round(last[0] + (sq[0] - last[0]) * i / steps), y = Math.round(last[1] + (sq[1] - last[1]) * i / steps);
      drag.squares[x + "," + y] = true;
    }
  }

  function postFog(mode, rects) {
    var form = document.getElementById("fog-form");
    if (!form) { return; }
    form.querySelector("[name=mode]").value = mode;
    form.querySelector("[name=rects]").value = rects ? JSON.stringify(rects) : "";
    form.querySelector("[name=client_token]").value = "";
    htmx.process(form);
    form.requestSubmit();
  }

  // ------------------------------------------------------------ choosing a tool
  function setTool(next) {
    tool = tool === next ? null : next;
    if (rulerButton) { rulerButton.setAttribute("aria-pressed", tool === "ruler" ? "true" : "false"); }
    var share = root.querySelector(".ruler-share");
    if (share) { share.hidden = tool !== "ruler"; }
    root.querySelectorAll("[data-fog-tool]").forEach(function (btn) {
      btn.setAttribute("aria-pressed", btn.dataset.fogTool === tool ? "true" : "false");
    });
    var menu = root.querySelector("[data-fog-menu]");
    if (menu) { menu.classList.toggle("active", tool === "reveal" || tool === "hide"); if (tool) { menu.open = false; } }
    scroller.classList.toggle("tool-on", !!tool);
    var brush = !!(root.querySelector("[data-fog-brush]") || {}).checked;
    var how = brush ? "paint over" : "drag a rectangle over";
    var words = {
      ruler: "Ruler: drag from a token or a square. Esc stops.",
      reveal: "Reveal: " + how + " the squares players may see. Esc or the same tool again stops.",
      hide: "Hide: " + how + " the squares to cover, map bare or not. Esc or the same tool again stops."
    };
    if (hint) { hint.textContent = tool ? words[tool] : ""; }
  }

  root.addEventListener("click", function (e) {
    if (e.target.closest("[data-ruler]")) { setTool("ruler"); return; }
    var el = e.target.closest("[data-fog-tool]");
    if (el) { setTool(el.dataset.fogTool); return; }
    el = e.target.closest("[data-fog-mode]");
    if (el) {
      var menu = root.querySelector("[data-fog-menu]");
      if (menu) { menu.open = false; }
      postFog(el.dataset.fogMode, null);
    }
  });

  // ------------------------------------------------------------ the pointer on the board
  scroller.addEventListener("pointerdown", function (e) {
    // A new press: the click a ping or a tool's drag left to swallow never came (a touch drag and a
    // long press send none), and this press's own click is a tap.
    swallow = false;
    if (!isGrid() || (e.pointerType === "mouse" && e.button !== 0)) { return; }
    var sq = cellAt(e);
    if (!sq) { return; }
    if (e.altKey) {
      e.stopPropagation();
      e.preventDefault();
      swallow = true;
      ping(sq);
      return;
    }
    if (tool) {
      e.stopPropagation();
      e.preventDefault();
      drag = { id: e.pointerId, from: sq, to: sq, squares: {}, sentAt: 0 };
      drag.squares[sq[0] + "," + sq[1]] = true;
      try { scroller.setPointerCapture(e.pointerId); } catch (err) { /* gone */ }
      track();
      return;
    }
    if (e.pointerType === "touch" && !(root.dataset.role === "gm" && e.target.closest(".token"))) { // the GM's long press on a token opens its menu
      if (press) { window.clearTimeout(press.timer); press = null; return; } // a second finger: a pinch
      press = { id: e.pointerId, x: e.clientX, y: e.clientY, square: sq };
      press.timer = window.setTimeout(function () {
        if (!press) { return; }
        swallow = true;
        ping(press.square);
        if (navigator.vibrate) { navigator.vibrate(30); }
        press = null;
      }, LONG_PRESS_MS);
    }
  }, true);

  function track() {
    if (!drag) { return; }
    if (tool === "ruler") {
      keep("ruler:me", { kind: "ruler", from: drag.from, to: drag.to, by: "You", mine: true }, 0);
      var now = Date.now();
      if (shareBox && shareBox.checked && now - drag.sentAt >= SEND_EVERY_MS) {
        drag.sentAt = now;
        send({ type: "ruler", from: drag.from, to: drag.to });
      }
    } else {
      keep("pick", { kind: "pick", mode: tool, brush: !!(root.querySelector("[data-fog-brush]") || {}).checked, from: drag.from, to: drag.to, squares: drag.squares }, 0);
    }
  }

  scroller.addEventListener("pointermove", function (e) {
    if (press && e.pointerId === press.id && Math.hypot(e.clientX - press.x, e.clientY - press.y) > 8) {
      window.clearTimeout(press.timer);
      press = null;
    }
    if (!drag || e.pointerId !== drag.id) { return; }
    e.stopPropagation();
    var sq = cellAt(e);
    if (!sq || (sq[0] === drag.to[0] && sq[1] === drag.to[1])) { return; }
    brushTo(sq);
    drag.to = sq;
    track();
  }, true);

  function finish(e) {
    if (press && e.pointerId === press.id) { window.clearTimeout(press.timer); press = null; }
    if (!drag || e.pointerId !== drag.id) { return; }
    e.stopPropagation();
    swallow = true;
    var done = drag;
    drag = null;
    if (tool === "ruler") {
      keep("ruler:me", { kind: "ruler", from: done.from, to: done.to, by: "You", mine: true }, RULER_MS);
      say("Distance: " + squares(distance(done.from, done.to)) + ".");
      if (shareBox && shareBox.checked) {
        send({ type: "ruler", from: done.from, to: done.to });
        send({ type: "ruler", done: true });
      }
    } else if (tool === "reveal" || tool === "hide") {
      var pick = marks.pick;
      delete marks.pick;
      postFog(tool, rectsOf(pick));
      draw();
    }
  }
  scroller.addEventListener("pointerup", finish, true);
  scroller.addEventListener("pointercancel", finish, true);
  scroller.addEventListener("click", function (e) {
    if (swallow) { e.stopPropagation(); e.preventDefault(); swallow = false; }
  }, true);
  scroller.addEventListener("contextmenu", function (e) { if (e.pointerType === "touch" || press) { e.preventDefault(); } });

  // ------------------------------------------------------------ the keyboard: P pings the focus square, R the ruler
  document.addEventListener("keydown", function (e) {
    var b = board();
    if (e.key === "Escape" && tool) { setTool(null); return; }
    if (!b || e.target !== b || e.altKey || e.ctrlKey || e.metaKey || !isGrid()) { return; }
    if (e.key === "p" || e.key === "P") {
      var focus = b.querySelector(".focus-sq");
      var x = focus ? parseInt(focus.style.gridColumn, 10) - 1 : NaN, y = focus ? parseInt(focus.style.gridRow, 10) - 1 : NaN;
      if (!isNaN(x) && !isNaN(y)) { e.preventDefault(); ping([x, y]); say("You ping a square."); }
    } else if (e.key === "r" || e.key === "R") {
      e.preventDefault();
      setTool("ruler");
    }
  });
})();
