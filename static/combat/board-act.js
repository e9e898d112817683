/* Acting on the board, target first: the viewer who acts now taps (clicks, or presses Enter on) an
   enemy, an ally or an empty square, and a menu by it lists what can reach it this turn, each with its
   plan drawn on the board (the squares walked, the area covered). One Confirm plays the chosen plan:
   each step is an ordinary action posted to the battle, with the seq the menu was worked out at, so a
   plan made stale by another change is refused. The server works the plans out (the engine's
   combat/engine/plans.py); nothing here decides a rule. While the GM plays a monster or NPC, the GM's
   menu of a token (battle.js) begins with the same plans, and a tap on an empty square opens the menu
   of a move there. The option list below the board stays the keyboard and screen-reader path, and
   works without this. */
(function () {
  "use strict";
  var root = document.getElementById("battle-root");
  var scroller = root && root.querySelector("[data-board-view]");
  if (!scroller || !window.htmx) { return; }

  var isGm = root.dataset.role === "gm";
  var plansUrl = scroller.dataset.plansUrl || "";
  var box = null; // the menu's container, outside every pushed region
  var open = null; // the menu acting now: {el, target, square, seq, chosen, chosenKey, keyboard, embedded}
  var playing = null; // a plan being played: {steps left, actor, act (its URL), seq of the next step}
  var ask = 0; // the newest fetch: an older answer that arrives later is dropped
  var WAIT_PUSH_MS = 4000;

  function board() { return document.getElementById("board"); }
  function isGrid() { var b = board(); return !!b && b.classList.contains("board-grid"); }
  function seqNow() {
    var el = document.getElementById("battle-seq");
    return el ? parseInt(el.dataset.seq, 10) || 0 : 0;
  }
  function randomToken() {
    var bytes = new Uint8Array(12);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }
  function squareName(sq) {
    var letters = "", n = sq[0] + 1, r;
    while (n) { r = (n - 1) % 26; letters = String.fromCharCode(65 + r) + letters; n = Math.floor((n - 1) / 26); }
    return letters + (sq[1] + 1);
  }

  // ------------------------------------------------------------ who may act from the board now
  function actingToken() { var b = board(); return b && b.querySelector(".token.acting"); }
  function viewerActs() {
    var b = board();
    var prompt = document.getElementById("prompt");
    return !!b && b.dataset.phase === "active" && !!root.querySelector("#actions .opts") && !(prompt && !prompt.hidden);
  }
  // The GM plays a monster or NPC from the board; a player's character is its player's.
  function gmPlaysFromBoard() {
    var t = actingToken();
    return !!t && !t.dataset.controller;
  }
  function pickingElsewhere() {
    return root.classList.contains("board-picking") || !!root.querySelector("form.picking") ||
      scroller.classList.contains("tool-on");
  }

  // Where the finger lifted: a phone moves a tap's click toward the nearest button ("touch
  // adjustment", meant for links), which on a zoomed-out board is the token on the next square.
  var lifted = null;
  scroller.addEventListener("pointerup", function (e) {
    lifted = e.pointerType === "touch" ? { clientX: e.clientX, clientY: e.clientY, time: e.timeStamp } : null;
  }, true);
  function tapPoint(e) {
    return lifted && e.detail > 0 && e.timeStamp - lifted.time < 1000 ? lifted : e;
  }
  window.vttTapPoint = tapPoint; // battle.js's picks take the same point

  // The square under a pointer, from the board as laid out now (after any pan or zoom).
  function cellAt(e) {
    var b = board();
    var r = b.getBoundingClientRect();
    var cols = parseInt(b.dataset.width, 10), rows = parseInt(b.dataset.height, 10);
    var size = r.width / cols;
    var x = Math.floor((e.clientX - r.left) / size), y = Math.floor((e.clientY - r.top) / size);
    return x < 0 || y < 0 || x >= cols || y >= rows ? null : [x, y];
  }
  function tokenAt(sq) {
    var b = board();
    return b && b.querySelector('.token[data-x="' + sq[0] + '"][data-y="' + sq[1] + '"]');
  }

  // ------------------------------------------------------------ a tap on the board
  // On the board's view (below the board-view.js and table-tools.js listeners that swallow the click
  // ending a pan, a pinch or a tool's drag, above battle.js's on the page): a tap taken here goes no
  // further.
  scroller.addEventListener("click", function (e) {
    var b = board();
    if (!b || !b.contains(e.target) || !viewerActs() || pickingElsewhere() || playing) { return; }
    // On a grid the square is the one under the pointer, and the token the one standing there: a
    // token drawn over its neighbour's edge (a ring, a badge, a small zoom) never takes a tap meant
    // for the next square.
    var sq = isGrid() ? cellAt(tapPoint(e)) : null;
    var tok = sq ? tokenAt(sq) : e.target.closest(".token");
    if (!tok && !sq) { return; }
    if (isGm && (tok || !gmPlaysFromBoard())) { return; } // a token: its menu, with the plans on it (battle.js)
    e.stopPropagation();
    e.preventDefault();
    show({ target: tok ? tok.dataset.cid : "", square: sq, keyboard: e.detail === 0 });
  });

  function show(where) {
    open = { target: where.target, square: where.square, keyboard: where.keyboard, chosen: 0, seq: 0, el: null };
    drawTapped();
    load();
  }

  function load() {
    if (!open || !plansUrl) { return; }
    var mine = ++ask;
    var query = open.target ? "target=" + encodeURIComponent(open.target) : "at=" + open.square[0] + "," + open.square[1];
    fetch(plansUrl + "?" + query, { credentials: "same-origin", headers: { "HX-Request": "true" } })
      .then(function (r) { return r.text(); }, function () { return null; })
      .then(function (html) {
        if (mine !== ask || !open) { return; }
        if (html === null) { html = '<div id="plan-menu" class="plan-menu"><p class="pm-note">Offline: try again.</p></div>'; }
        render(html);
      });
  }

  function container() {
    if (!box) {
      box = document.createElement("div");
      box.id = "plan-box";
      box.className = "plan-box";
      root.appendChild(box);
    }
    return box;
  }

  function render(html) {
    var el = container();
    var wasChosen = open.chosenKey;
    el.innerHTML = html;
    var menu = document.getElementById("plan-menu");
    if (!menu) { close(); return; }
    open.el = menu;
    take(menu, wasChosen);
    place(menu);
    showPlan();
    if (open.keyboard) {
      var first = menu.querySelector(".pm-opt[aria-checked=true]") || menu.querySelector("button");
      if (first) { first.focus(); }
    }
  }

  // The menu's seq and square, and its plan chosen before (by its data), else its first.
  function take(menu, wasChosen) {
    open.seq = parseInt(menu.dataset.seq, 10) || 0;
    var sq = menu.dataset.square;
    if (sq) { open.square = sq.split(",").map(Number); }
    var index = 0;
    plans().forEach(function (o, i) { if (wasChosen && o.dataset.plan === wasChosen) { index = i; } });
    choose(index, false);
  }

  function plans() {
    var menu = open && open.el;
    return menu ? Array.prototype.slice.call(menu.querySelectorAll(".pm-opt")) : [];
  }

  function chosenPlan() {
    var opt = plans()[open ? open.chosen : 0];
    if (!opt) { return null; }
    try { return JSON.parse(opt.dataset.plan); } catch (err) { return null; }
  }

  function choose(index, focus) {
    var opts = plans();
    if (!open) { return; }
    open.chosen = Math.max(0, Math.min(index, opts.length - 1));
    opts.forEach(function (o, i) { o.setAttribute("aria-checked", i === open.chosen ? "true" : "false"); });
    if (opts[open.chosen]) {
      open.chosenKey = opts[open.chosen].dataset.plan;
      if (focus) { opts[open.chosen].focus(); }
    }
    var confirm = open.el && open.el.querySelector("[data-plan-confirm]");
    var plan = chosenPlan();
    if (confirm && plan) { confirm.textContent = "Confirm: " + plan.label; }
    drawPlan();
  }

  // On a phone a sheet at the bottom of the screen, over the action sheet, so the whole board above it
  // shows the plan; on a wider screen by the tapped token or square, on the side with room.
  function place(menu) {
    if (window.innerWidth < 640) {
      menu.classList.add("sheet");
      menu.style.left = "";
      menu.style.top = "";
      return;
    }
    menu.classList.remove("sheet");
    var at = open && open.square && isGrid() ? markOf("tapped") : null;
    var tok = open && open.target ? board().querySelector('.token[data-cid="' + open.target + '"]') : null;
    var anchor = (tok || at || scroller).getBoundingClientRect();
    var w = menu.offsetWidth, h = menu.offsetHeight, gap = 8;
    var left = anchor.right + gap;
    if (left + w > window.innerWidth - gap) { left = Math.max(gap, anchor.left - w - gap); }
    var top = Math.min(Math.max(gap, anchor.top), Math.max(gap, window.innerHeight - h - gap));
    menu.style.left = left + "px";
    menu.style.top = top + "px";
  }

  // What the plan aims at, where it ends and the actor, in sight (above the menu on a phone): the board
  // moves only when some of it is out of sight, and never takes the tapped square out of it.
  function showPlan() {
    var b = board();
    if (!b || !window.vttBoardView) { return; }
    var plan = chosenPlan();
    var target = open && open.target ? b.querySelector('.token[data-cid="' + open.target + '"]') : markOf("tapped");
    window.vttBoardView.show([target, markOf("end"), plan && plan.area && plan.area.length ? markOf("area") : null, b.querySelector(".token.acting")]);
  }

  function close() {
    var embedded = open && open.embedded;
    open = null;
    ask += 1;
    if (box) { box.innerHTML = ""; }
    clearMarks();
    if (embedded) { // the GM's menu of the token it sits in closes with it (battle.js)
      var shut = document.querySelector(".token-menu:not([hidden]) [data-menu-close]");
      if (shut) { shut.click(); }
    }
  }

  // ------------------------------------------------------------ the plans in the GM's menu of a token
  // battle.js fetches the menu when it opens and again after each change: whenever it shows one with
  // plans, that one is the menu acting on the board; when it closes, its plan goes off the board.
  var menus = document.getElementById("token-menus");
  if (menus && window.MutationObserver) {
    new MutationObserver(function () {
      if (playing) { return; }
      var el = document.querySelector(".token-menu:not([hidden]) .plan-menu.embedded");
      if (el && (!open || open.el !== el)) {
        if (open && !open.embedded) { close(); }
        var was = open && open.embedded && open.target === el.dataset.target ? open.chosenKey : null;
        open = { target: el.dataset.target, square: null, keyboard: false, chosen: 0, seq: 0, el: el, embedded: true };
        take(el, was);
      } else if (!el && open && open.embedded) {
        open = null;
        clearMarks();
      }
    }).observe(menus, { childList: true, subtree: true, attributes: true, attributeFilter: ["hidden"] });
  }

  // ------------------------------------------------------------ drawing the plan
  function clearMarks() {
    var b = board();
    if (!b) { return; }
    b.querySelectorAll(".plan-sq").forEach(function (el) { el.remove(); });
    b.querySelectorAll(".token.plan-target").forEach(function (el) { el.classList.remove("plan-target"); });
  }

  function mark(sq, cls, label) {
    var el = document.createElement("div");
    el.className = "plan-sq " + cls;
    el.style.gridColumn = String(sq[0] + 1);
    el.style.gridRow = String(sq[1] + 1);
    el.setAttribute("aria-hidden", "true");
    if (label) { el.dataset.label = label; }
    board().appendChild(el);
    return el;
  }
  function markOf(cls) { var b = board(); return b && b.querySelector(".plan-sq." + cls); }

  function drawTapped() {
    clearMarks();
    if (open && open.square && isGrid()) { mark(open.square, "tapped", squareName(open.square)); }
  }

  function drawPlan() {
    drawTapped();
    var b = board();
    if (!b || !open) { return; }
    var plan = chosenPlan();
    if (!plan) { return; }
    if (isGrid()) {
      (plan.area || []).forEach(function (sq) { mark(sq, "area"); });
      var path = plan.path || [];
      path.forEach(function (sq, i) {
        if (i === 0) { return; }
        var end = i === path.length - 1;
        mark(sq, end ? "path end" : "path", end ? String(i) : "");
      });
    }
    if (plan.target) {
      var t = b.querySelector('.token[data-cid="' + plan.target + '"]');
      if (t) { t.classList.add("plan-target"); }
    }
  }

  // ------------------------------------------------------------ the menu's buttons
  root.addEventListener("click", function (e) {
    if (!open || !open.el || !open.el.contains(e.target)) {
      // A tap anywhere but on the menu closes it (a tap on the board that opens another never gets
      // here); the GM's menu of a token closes as battle.js says.
      if (open && !open.embedded && !playing) { close(); }
      return;
    }
    var opt = e.target.closest(".pm-opt");
    if (opt) { choose(plans().indexOf(opt), false); return; }
    if (e.target.closest("[data-plan-close]")) { var kb = open.keyboard; close(); if (kb && board()) { board().focus(); } return; }
    if (e.target.closest("[data-plan-confirm]")) { play(); }
  });

  root.addEventListener("keydown", function (e) {
    if (!open || !open.el || !open.el.contains(e.target)) { return; }
    var opts = plans();
    var at = opts.indexOf(e.target);
    if (at >= 0 && (e.key === "ArrowDown" || e.key === "ArrowUp")) {
      e.preventDefault();
      choose((at + (e.key === "ArrowDown" ? 1 : opts.length - 1)) % opts.length, true);
    }
  });
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && open && !open.embedded && !playing) {
      var kb = open.keyboard;
      close();
      if (kb && board()) { board().focus(); }
    }
  });

  // ------------------------------------------------------------ playing a plan, step by step
  function postForm() {
    var form = document.getElementById("plan-post");
    if (!form) {
      form = document.createElement("form");
      form.id = "plan-post";
      form.hidden = true;
      ["kind", "actor", "params", "expected_seq", "client_token"].forEach(function (name) {
        var input = document.createElement("input");
        input.type = "hidden";
        input.name = name;
        form.appendChild(input);
      });
      form.setAttribute("hx-target", "#battle-messages");
      form.setAttribute("hx-swap", "innerHTML");
      form.setAttribute("hx-sync", "this:drop");
      root.appendChild(form);
    }
    return form;
  }

  // One step: an ordinary action, sent as an option form would send it. Resolves with the seq of the
  // change it made, or null when it was refused (the reason is in the messages, as for any action).
  function post(step) {
    return new Promise(function (resolve) {
      var form = postForm();
      form.setAttribute("hx-post", playing.act);
      form.elements.kind.value = step.kind;
      form.elements.actor.value = playing.actor;
      form.elements.params.value = JSON.stringify(step.params || {});
      form.elements.expected_seq.value = String(playing.seq);
      form.elements.client_token.value = randomToken();
      var done = function (e) {
        if (e.detail.elt !== form) { return; }
        document.body.removeEventListener("htmx:afterRequest", done);
        var xhr = e.detail.xhr;
        var found = xhr && xhr.status >= 200 && xhr.status < 300 ? /data-seq="(\d+)"/.exec(xhr.responseText || "") : null;
        resolve(found ? parseInt(found[1], 10) : null);
      };
      document.body.addEventListener("htmx:afterRequest", done);
      htmx.process(form);
      form.requestSubmit();
    });
  }

  // Until the page shows the change ``seq`` (its push, or the reply's regions), or a few seconds.
  function caughtUp(seq) {
    return new Promise(function (resolve) {
      if (seqNow() >= seq) { resolve(); return; }
      var timer = window.setTimeout(finish, WAIT_PUSH_MS);
      function check() { if (seqNow() >= seq) { finish(); } }
      function finish() {
        window.clearTimeout(timer);
        root.removeEventListener("htmx:wsAfterMessage", check);
        document.body.removeEventListener("htmx:afterSettle", check);
        resolve();
      }
      root.addEventListener("htmx:wsAfterMessage", check);
      document.body.addEventListener("htmx:afterSettle", check);
    });
  }

  function play() {
    var menu = open && open.el;
    var plan = chosenPlan();
    if (!open || !menu || !plan || playing) { return; }
    playing = { steps: plan.steps.slice(), actor: menu.dataset.actor, act: menu.dataset.actUrl, seq: open.seq };
    var confirm = menu.querySelector("[data-plan-confirm]");
    if (confirm) { confirm.disabled = true; confirm.textContent = "Playing…"; }
    step();
  }

  function step() {
    var next = playing.steps.shift();
    post(next).then(function (seq) {
      if (seq === null || !playing.steps.length) { finish(); return; }
      caughtUp(seq).then(function () {
        // A reaction window opened by the move, or a turn that ended: the rest waits for a new tap.
        var still = board() && board().querySelector('.token.acting[data-cid="' + playing.actor + '"]');
        if (!still || !viewerActs()) { finish(); return; }
        playing.seq = seq;
        step();
      });
    });
  }

  function finish() {
    playing = null;
    close();
  }

  // ------------------------------------------------------------ after every change
  function refresh() {
    if (!open || playing) { return; }
    if (open.embedded) { drawPlan(); return; } // battle.js fetches the GM's menu again
    if (!viewerActs()) { close(); return; }
    if (seqNow() !== open.seq && open.seq) { load(); return; } // worked out again for the battle as it is
    drawPlan();
  }
  root.addEventListener("htmx:wsAfterMessage", refresh);
  document.body.addEventListener("htmx:afterSettle", refresh);
  document.body.addEventListener("htmx:oobAfterSwap", function (e) {
    if (open && e.detail && e.detail.target && e.detail.target.id === "board") { drawPlan(); }
  });
  window.addEventListener("resize", function () {
    var menu = document.getElementById("plan-menu");
    if (open && menu) { place(menu); }
  });
})();
