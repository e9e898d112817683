/* The board as a table top: it fills its panel and fits on load; zoom with the buttons, the wheel
   or a pinch; pan by dragging; "Fit board" and "Centre on acting". The keyboard works it too:
   arrow keys move a focus square, Enter picks what is there (the same as a tap), + and - zoom.
   Prompts and "your turn" are read out through live regions. No rule lives here: picking a square
   is a click that battle.js (or board-act.js) handles like a tap; following the turn is board-follow.js's. */
(function () {
  "use strict";
  var root = document.getElementById("battle-root");
  var scroller = root && root.querySelector("[data-board-view]");
  if (!scroller) { return; }

  var MIN = 12;
  var TOUCH = 48;
  var MAX = 140;
  var cell = 0; // px; 0 until the first fit
  var fitted = false;
  var focus = null; // [x, y] of the keyboard's focus square
  var pointers = {};
  var drag = null; // {x, y, left, top, moved}
  var pinch = null; // {dist, cell}
  var swallowClick = false;
  var announced = { turn: null, prompt: "" };
  var wide = window.matchMedia("(min-width: 60rem)");
  var coarse = window.matchMedia("(pointer: coarse)");
  // A touch screen stays one: Chromium answers "(pointer: coarse)" with false for a moment while it
  // takes a full-page screenshot, and a fit in that moment would shrink the tokens below a tap.
  var touch = coarse.matches || (navigator.maxTouchPoints || 0) > 0;

  function board() { return document.getElementById("board"); }
  function dims() {
    var b = board();
    return b ? { cols: parseInt(b.dataset.width, 10) || 1, rows: parseInt(b.dataset.height, 10) || 1 } : null;
  }
  function isGrid() { var b = board(); return !!b && b.classList.contains("board-grid"); }

  // ------------------------------------------------------------ layout from data attributes
  // Geometry travels as data attributes and is set here through element.style (allowed by a strict
  // content security policy), so the board never depends on inline style attributes.
  function applyGeometry() {
    var b = board();
    if (!b) { return; }
    b.style.setProperty("--cols", b.dataset.width);
    b.style.setProperty("--rows", b.dataset.height);
    ["w", "h", "x", "y"].forEach(function (k) {
      var v = b.dataset["map" + k.toUpperCase()];
      if (v !== undefined) { b.style.setProperty("--map-" + k, v); }
    });
    b.querySelectorAll(".token[data-x]").forEach(function (t) {
      t.style.gridColumn = String(parseInt(t.dataset.x, 10) + 1);
      t.style.gridRow = String(parseInt(t.dataset.y, 10) + 1);
    });
    b.querySelectorAll(".hpbar i[data-pct]").forEach(function (i) { i.style.width = i.dataset.pct + "%"; });
  }

  function setCell(px) {
    cell = Math.max(MIN, Math.min(MAX, Math.round(px * 10) / 10));
    scroller.style.setProperty("--cell", cell + "px");
  }

  // ------------------------------------------------------------ zoom and pan
  // On load (auto) a touch screen keeps squares of at least TOUCH px, so every token stays a
  // 44 px tap target: a board too big for that shows around the acting token and pans; the
  // "Fit board" button always shows the whole board.
  function fit(auto) {
    var d = dims();
    if (!d) { return; }
    if (!isGrid()) { setCell(44); fitted = true; return; }
    scroller.style.removeProperty("max-height");
    var w = scroller.clientWidth - 8;
    // What of the box is in the window: a box running below the fold would hide the last rows.
    var top = Math.max(0, scroller.getBoundingClientRect().top);
    var h = Math.min(scroller.clientHeight, window.innerHeight - top) - 8;
    var least = auto === true && (touch || coarse.matches) ? TOUCH : MIN;
    setCell(Math.max(least, Math.floor(Math.min(w / d.cols, h / d.rows))));
    scroller.scrollLeft = 0;
    scroller.scrollTop = 0;
    if (cell * d.cols > w || cell * d.rows > h) {
      var b = board();
      // The acting token, else the middle of everyone (before the start: both sides facing each other).
      centreOn(b.querySelector(".token.acting")) || centreOnAll(b.querySelectorAll(".token"));
    }
    // On a phone a wide board leaves the box half empty: shrink the box to the board, so the
    // tracker and the action sheet below come up into sight.
    if (!wide.matches && cell * d.rows + 12 < h) { scroller.style.maxHeight = (cell * d.rows + 12) + "px"; }
    // A box running below the fold centres the board partly out of sight: end the box at the fold.
    else if (scroller.clientHeight > h + 8) { scroller.style.maxHeight = (h + 8) + "px"; }
    fitted = true;
  }

  // Zoom keeping the board point under (cx, cy) (client coordinates) where it was.
  function zoomAt(next, cx, cy) {
    var b = board();
    if (!b) { return; }
    var before = b.getBoundingClientRect();
    if (cx === undefined) {
      var view = scroller.getBoundingClientRect();
      cx = view.left + view.width / 2;
      cy = view.top + view.height / 2;
    }
    var fx = before.width ? (cx - before.left) / before.width : 0.5;
    var fy = before.height ? (cy - before.top) / before.height : 0.5;
    setCell(next);
    var after = b.getBoundingClientRect();
    scroller.scrollLeft += after.left + fx * after.width - cx;
    scroller.scrollTop += after.top + fy * after.height - cy;
  }

  function zoomBy(factor, cx, cy) {
    if (factor > 1) { scroller.style.removeProperty("max-height"); }
    zoomAt(cell * factor, cx, cy);
  }

  function centreOn(el) {
    if (!el) { return false; }
    var view = scroller.getBoundingClientRect();
    var r = el.getBoundingClientRect();
    scroller.scrollLeft += r.left + r.width / 2 - (view.left + view.width / 2);
    scroller.scrollTop += r.top + r.height / 2 - (view.top + view.height / 2);
    return true;
  }

  function centreOnAll(tokens) {
    if (!tokens.length) { return false; }
    var box = null;
    tokens.forEach(function (t) {
      var r = t.getBoundingClientRect();
      box = box ? { l: Math.min(box.l, r.left), t: Math.min(box.t, r.top), r: Math.max(box.r, r.right), b: Math.max(box.b, r.bottom) }
        : { l: r.left, t: r.top, r: r.right, b: r.bottom };
    });
    var view = scroller.getBoundingClientRect();
    scroller.scrollLeft += (box.l + box.r) / 2 - (view.left + view.width / 2);
    scroller.scrollTop += (box.t + box.b) / 2 - (view.top + view.height / 2);
    return true;
  }

  function centreOnActing() {
    var b = board();
    var t = b && (b.querySelector(".token.acting") || b.querySelector(".token.reacting"));
    if (!t) { say("Nobody is acting now."); return; }
    if (cell < 36) { setCell(44); }
    centreOn(t);
  }

  root.addEventListener("click", function (e) {
    var el = e.target.closest("[data-zoom]");
    if (el) { zoomBy(parseInt(el.dataset.zoom, 10) > 0 ? 1.25 : 0.8); return; }
    if (e.target.closest("[data-fit]")) { fit(); return; }
    if (e.target.closest("[data-centre]")) { centreOnActing(); return; }
    // An action that needs a target, chosen from the keyboard: go to the board to pick it.
    el = e.target.closest("[data-pick]");
    if (el && e.detail === 0) {
      window.setTimeout(function () {
        var b = board();
        var first = b && (b.querySelector(".token.target") || b.querySelector(".sq"));
        if (first) { focus = squareOf(first); }
        if (b) { b.focus(); }
      }, 0);
    }
  });

  scroller.addEventListener("wheel", function (e) {
    if (!isGrid()) { return; }
    e.preventDefault();
    var delta = e.deltaMode === 1 ? e.deltaY * 16 : e.deltaY;
    zoomBy(Math.exp(-delta * 0.0015), e.clientX, e.clientY);
  }, { passive: false });

  function distance() {
    var p = Object.keys(pointers).map(function (k) { return pointers[k]; });
    return Math.hypot(p[0].x - p[1].x, p[0].y - p[1].y);
  }
  function middle() {
    var p = Object.keys(pointers).map(function (k) { return pointers[k]; });
    return { x: (p[0].x + p[1].x) / 2, y: (p[0].y + p[1].y) / 2 };
  }

  // A new press is never the end of an earlier drag: whatever that drag left to swallow goes with it
  // (a touch drag sends no click at its end, so the flag would otherwise eat the next tap).
  var pressedAt = null; // where the last press came down: a focus it brings is no keyboard's
  scroller.addEventListener("pointerdown", function (e) {
    swallowClick = false;
    pressedAt = { x: e.clientX, y: e.clientY, time: e.timeStamp };
  }, true);

  scroller.addEventListener("pointerdown", function (e) {
    if (e.pointerType === "mouse" && e.button !== 0) { return; }
    // Before the start a mouse drags tokens to their squares (table-flow.js): that is not a pan.
    var b = board();
    if (e.pointerType !== "touch" && b && b.classList.contains("phase-setup") && e.target.closest(".token")) { return; }
    pointers[e.pointerId] = { x: e.clientX, y: e.clientY };
    var n = Object.keys(pointers).length;
    if (n === 1) {
      drag = { x: e.clientX, y: e.clientY, left: scroller.scrollLeft, top: scroller.scrollTop, moved: false, id: e.pointerId };
    } else if (n === 2 && isGrid()) {
      pinch = { dist: distance(), cell: cell };
      drag = null;
    }
  });

  scroller.addEventListener("pointermove", function (e) {
    if (!pointers[e.pointerId]) { return; }
    pointers[e.pointerId] = { x: e.clientX, y: e.clientY };
    if (pinch && Object.keys(pointers).length === 2) {
      var m = middle();
      scroller.style.removeProperty("max-height");
      zoomAt(pinch.cell * distance() / (pinch.dist || 1), m.x, m.y);
      swallowClick = true;
      return;
    }
    if (!drag || drag.id !== e.pointerId) { return; }
    var dx = e.clientX - drag.x;
    var dy = e.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < 6) { return; }
    if (!drag.moved) {
      drag.moved = true;
      scroller.classList.add("dragging");
      try { scroller.setPointerCapture(e.pointerId); } catch (err) { /* already released */ }
    }
    scroller.scrollLeft = drag.left - dx;
    scroller.scrollTop = drag.top - dy;
  });

  function release(e) {
    if (!pointers[e.pointerId]) { return; }
    delete pointers[e.pointerId];
    if (drag && drag.moved) { swallowClick = true; }
    if (Object.keys(pointers).length < 2) { pinch = null; }
    if (Object.keys(pointers).length === 0) {
      drag = null;
      scroller.classList.remove("dragging");
      window.setTimeout(function () { swallowClick = false; }, 0);
    }
  }
  scroller.addEventListener("pointerup", release);
  scroller.addEventListener("pointercancel", release);

  // A drag or a pinch is not a tap: keep it from picking a square.
  scroller.addEventListener("click", function (e) {
    if (swallowClick) { e.stopPropagation(); e.preventDefault(); swallowClick = false; }
  }, true);

  // ------------------------------------------------------------ keyboard
  function squareOf(el) {
    if (el.dataset && el.dataset.x !== undefined) { return [parseInt(el.dataset.x, 10), parseInt(el.dataset.y, 10)]; }
    var col = parseInt(el.style.gridColumn, 10);
    var row = parseInt(el.style.gridRow, 10);
    return isNaN(col) ? null : [col - 1, row - 1];
  }

  function name(x, y) {
    var letters = "";
    var n = x + 1;
    while (n > 0) {
      var r = (n - 1) % 26;
      letters = String.fromCharCode(65 + r) + letters;
      n = Math.floor((n - 1) / 26);
    }
    return letters + (y + 1);
  }

  function tokenAt(x, y) {
    var b = board();
    return b && b.querySelector('.token[data-x="' + x + '"][data-y="' + y + '"]');
  }

  function describe(x, y) {
    var b = board();
    var t = tokenAt(x, y);
    var text = t ? t.getAttribute("aria-label") : name(x, y) + ", empty";
    var marked = false;
    b.querySelectorAll(".sq").forEach(function (s) {
      var at = squareOf(s);
      if (at && at[0] === x && at[1] === y) { marked = true; }
    });
    if (t && t.classList.contains("target")) { text += ", can be picked"; } else if (marked) { text += ", in reach"; }
    b.querySelectorAll(".blocked").forEach(function (s) {
      var at = squareOf(s);
      if (at && at[0] === x && at[1] === y) { text += ", blocked"; }
    });
    return text;
  }

  function drawFocus(scroll) {
    var b = board();
    if (!b || !focus || !isGrid()) { return; }
    var el = b.querySelector(".focus-sq");
    if (!el) {
      el = document.createElement("div");
      el.className = "focus-sq";
      el.setAttribute("aria-hidden", "true");
      b.appendChild(el);
    }
    el.style.gridColumn = String(focus[0] + 1);
    el.style.gridRow = String(focus[1] + 1);
    b.classList.toggle("keyboard", document.activeElement === b && b.matches(":focus-visible"));
    if (scroll) { el.scrollIntoView({ block: "nearest", inline: "nearest" }); }
  }

  function startFocus() {
    var b = board();
    var d = dims();
    if (focus && d && focus[0] < d.cols && focus[1] < d.rows) { return; }
    var t = b.querySelector(".token.target") || b.querySelector(".token.acting") || b.querySelector(".token[data-x]");
    focus = t ? squareOf(t) : [0, 0];
  }

  function pick() {
    var b = board();
    var d = dims();
    var r = b.getBoundingClientRect();
    var size = r.width / d.cols;
    var cx = r.left + (focus[0] + 0.5) * size;
    var cy = r.top + (focus[1] + 0.5) * size;
    var target = tokenAt(focus[0], focus[1]) || b;
    target.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true, clientX: cx, clientY: cy, view: window }));
  }

  document.addEventListener("focusin", function (e) {
    if (e.target !== board() || !isGrid()) { return; }
    if (pressedAt && performance.now() - pressedAt.time < 1000) {
      // Focused by a tap or a click: the focus square goes where it landed, and nothing scrolls
      // (scrolling to the acting token here moved the board under the finger before its click).
      var b = board(), d = dims(), r = b.getBoundingClientRect(), size = r.width / d.cols;
      focus = [Math.max(0, Math.min(d.cols - 1, Math.floor((pressedAt.x - r.left) / size))),
        Math.max(0, Math.min(d.rows - 1, Math.floor((pressedAt.y - r.top) / size)))];
      pressedAt = null;
      return;
    }
    startFocus();
    drawFocus(true);
    say(describe(focus[0], focus[1]));
  });
  document.addEventListener("focusout", function (e) {
    if (e.target === board()) { e.target.classList.remove("keyboard"); }
  });

  document.addEventListener("keydown", function (e) {
    var b = board();
    if (!b || e.target !== b || e.altKey || e.ctrlKey || e.metaKey) { return; }
    if (e.key === "+" || e.key === "=") { zoomBy(1.25); e.preventDefault(); return; }
    if (e.key === "-" || e.key === "_") { zoomBy(0.8); e.preventDefault(); return; }
    if (!isGrid()) { return; }
    var d = dims();
    var steps = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    startFocus();
    if (steps[e.key]) {
      e.preventDefault();
      focus = [Math.max(0, Math.min(d.cols - 1, focus[0] + steps[e.key][0])),
        Math.max(0, Math.min(d.rows - 1, focus[1] + steps[e.key][1]))];
      drawFocus(true);
      say(describe(focus[0], focus[1]));
    } else if (e.key === "Home") {
      e.preventDefault();
      var acting = b.querySelector(".token.acting");
      if (acting) { focus = squareOf(acting); drawFocus(true); say(describe(focus[0], focus[1])); }
    } else if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      pick();
    }
  });

  // ------------------------------------------------------------ announcements
  var timer = null;
  function say(text, urgent) {
    var region = document.getElementById(urgent ? "alert" : "announce");
    if (!region) { return; }
    // Empty first, then the words: a screen reader reads a repeated sentence again.
    region.textContent = "";
    window.clearTimeout(timer);
    timer = window.setTimeout(function () { region.textContent = text; }, 30);
  }

  function announce() {
    var prompt = document.getElementById("prompt");
    var promptText = prompt && !prompt.hidden ? prompt.textContent.replace(/\s+/g, " ").trim() : "";
    if (promptText && promptText !== announced.prompt) {
      var title = prompt.querySelector("h2");
      var question = prompt.querySelector("p:not(.trigger)");
      say((title ? title.textContent : "A reaction") + ". " + (question ? question.textContent : ""), true);
    }
    announced.prompt = promptText;
    // "Your turn" on opening the page; later turns are announced by table-flow.js's alert ("Your turn!").
    if (announced.turn === null) {
      var heading = document.getElementById("actions-title");
      var turn = heading ? heading.textContent.replace(/\s+/g, " ").trim() : "";
      if (/^Your turn/.test(turn)) { say(turn + ".", !promptText); }
      announced.turn = turn;
    }
  }

  // ------------------------------------------------------------ after every render
  function after() {
    applyGeometry();
    if (!fitted && scroller.clientWidth > 0) { fit(true); }
    if (document.activeElement === board() || board() && board().classList.contains("keyboard")) { drawFocus(false); }
    else if (focus) { drawFocus(false); }
    announce();
  }

  root.addEventListener("htmx:wsAfterMessage", after);
  document.body.addEventListener("htmx:afterSettle", after);
  document.body.addEventListener("htmx:oobAfterSwap", function (e) {
    if (e.detail && e.detail.target && e.detail.target.id === "board") { after(); }
  });
  var lastWidth = window.innerWidth;
  var resized = null;
  window.addEventListener("resize", function () {
    // Turning a phone or resizing a window re-fits the board once the size has settled.
    window.clearTimeout(resized);
    resized = window.setTimeout(function () {
      if (Math.abs(window.innerWidth - lastWidth) > 40) { lastWidth = window.innerWidth; fit(true); }
    }, 150);
  });
  applyGeometry();
  fit(true);
  announce();
})();
