/* Battle page behaviour: live socket bookkeeping, targeting on the board, path preview,
   confirmation, log filter (zoom, pan and the keyboard on the board: board-view.js). The server decides everything; this only helps to point. */
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  var root = document.getElementById("battle-root");
  if (!root || !window.htmx) { return; }

  // Refusals (4xx) carry a reason: show it in the message area, never swap it over a region.
  htmx.config.responseHandling = [
    { code: "204", swap: false },
    { code: "[23]..", swap: true },
    { code: "4..", swap: true, error: false, target: "#battle-messages", swapOverride: "innerHTML" },
    { code: "...", swap: false, error: true }
  ];

  var me = root.dataset.user || "";
  var opened = 0;
  var socketOpen = false;
  var presence = {};
  var mode = null; // {type: "pick", form, option, label} | {type: "place", cid, kind, name}
  var conn = document.getElementById("conn");
  var hint = document.getElementById("board-hint");
  var cancelButton = root.querySelector("[data-cancel]");
  var dialog = document.getElementById("confirm");
  var pendingSubmit = null;

  function seqNow() {
    var el = document.getElementById("battle-seq");
    return el ? parseInt(el.dataset.seq, 10) || 0 : 0;
  }

  // The battle's version goes up with every change, undo included (the seq goes down on an undo).
  function versionNow() {
    var el = document.getElementById("battle-seq");
    return el ? parseInt(el.dataset.version, 10) || 0 : 0;
  }

  function setConn(text, cls) {
    if (!conn) { return; }
    conn.textContent = text;
    conn.className = "conn " + cls;
  }

  function randomToken() {
    var bytes = new Uint8Array(12);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  // ---------------------------------------------------------------- socket
  root.addEventListener("htmx:wsOpen", function (e) {
    socketOpen = true;
    setConn("Live", "live");
    e.detail.socketWrapper.send(JSON.stringify({ type: "sync", seq: seqNow(), version: versionNow(), reconnect: opened > 0 }));
    opened += 1;
  });
  root.addEventListener("htmx:wsClose", function (e) {
    socketOpen = false;
    presence = {};
    applyMarks();
    var code = e.detail && e.detail.event ? e.detail.event.code : 0;
    if (code === 4403) {
      setConn("You no longer have access to this table. Reload the page.", "down");
    } else if (code === 4409) {
      setConn("This table is open in too many tabs. Reload to use this one.", "down");
    } else if (code === 4429) {
      // Dropped for falling behind: come back and catch up with one full render.
      setConn("Offline: reconnecting…", "down");
      setTimeout(function () { e.detail.socketWrapper.reconnect(); }, 1000 + Math.random() * 2000);
    } else {
      setConn("Offline: reconnecting…", "down");
    }
  });
  root.addEventListener("htmx:wsBeforeMessage", function (e) {
    var text = e.detail.message;
    // A change sent as the elements it touched applies to one version of the table: a page at another
    // (it missed a change) asks for the whole table instead; one that shows it already skips it.
    var delta = typeof text === "string" ? /^<!--delta (\d+) (\d+)-->/.exec(text) : null;
    if (delta) {
      var now = versionNow();
      if (parseInt(delta[2], 10) <= now) { e.preventDefault(); return; }
      if (parseInt(delta[1], 10) !== now) {
        e.preventDefault();
        e.detail.socketWrapper.send(JSON.stringify({ type: "sync", seq: seqNow(), version: now, reconnect: true }));
      }
      return;
    }
    if (typeof text === "string" && text.charAt(0) === "{") {
      e.preventDefault();
      try {
        var data = JSON.parse(text);
        if (data.presence) {
          Object.keys(data.presence).forEach(function (uid) { presence[uid] = !!data.presence[uid]; });
          applyMarks();
        }
      } catch (err) { /* not ours */ }
    }
  });
  root.addEventListener("htmx:wsAfterMessage", refresh);
  document.body.addEventListener("htmx:afterSettle", refresh);

  // Forms rendered once for many turns (the GM's overrides) take the page's seq and a fresh token
  // when sent, so a stale page is still refused and a double tap still counts once.
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!form.matches || !form.matches("form[data-page-seq]")) { return; }
    var seqInput = form.querySelector("input[name=expected_seq]");
    if (seqInput) { seqInput.value = String(seqNow()); }
    var token = form.querySelector("input[name=client_token]");
    if (token && !token.value) { token.value = randomToken(); }
  }, true);

  document.body.addEventListener("htmx:configRequest", function (e) {
    if (socketOpen) { e.detail.headers["X-VTT-Live"] = "1"; }
    // A pushed option or quick action holds no client token (it renders the same from one change to
    // the next): the form keeps one of its own until its request is answered.
    var elt = e.detail.elt;
    if (elt && elt.tagName === "FORM" && elt.closest(".opts, .gm-quick") && e.detail.formData &&
        !e.detail.formData.has("client_token")) {
      if (!elt.dataset.clientToken) { elt.dataset.clientToken = randomToken(); }
      e.detail.formData.set("client_token", elt.dataset.clientToken);
    }
  });
  document.body.addEventListener("htmx:afterRequest", function (e) {
    // A finished request (accepted or refused) frees its form for a new attempt with a new token.
    var xhr = e.detail.xhr;
    var elt = e.detail.elt;
    if (xhr && xhr.status > 0 && elt && elt.querySelector) {
      var input = elt.querySelector("input[name=client_token]");
      if (input) { input.value = randomToken(); }
      delete elt.dataset.clientToken;
    }
  });

  function applyMarks() {
    root.querySelectorAll("[data-presence-user]").forEach(function (el) {
      el.classList.toggle("online", !!presence[el.dataset.presenceUser]);
    });
    if (me) {
      root.querySelectorAll(".token").forEach(function (el) {
        el.classList.toggle("mine", el.dataset.controller === me);
      });
    }
  }

  function refresh() {
    applyMarks();
    closeMenuOnTurnChange();
    reopenMenu();
    if (mode && mode.type === "pick") {
      // The action panel may have been re-rendered: find the same option again, or stop targeting.
      var again = null;
      root.querySelectorAll("#actions form.act-form").forEach(function (f) {
        if (f.dataset.label === mode.label) { again = f; }
      });
      if (again && !again.querySelector("button[disabled]")) { startPick(again); } else { cancel(); }
    } else if (mode) {
      highlight();
    }
  }

  // ---------------------------------------------------------------- targeting
  function board() { return document.getElementById("board"); }

  function clearMarks() {
    var b = board();
    if (!b) { return; }
    b.querySelectorAll(".sq").forEach(function (el) { el.remove(); });
    b.querySelectorAll(".token.target").forEach(function (el) { el.classList.remove("target"); });
  }

  function square(x, y, cls) {
    var el = document.createElement("div");
    el.className = "sq " + (cls || "");
    el.style.gridColumn = String(x + 1);
    el.style.gridRow = String(y + 1);
    el.setAttribute("aria-hidden", "true");
    board().appendChild(el);
  }

  function highlight() {
    clearMarks();
    var b = board();
    if (!b || !mode) { return; }
    if (mode.type === "pick") {
      var opt = mode.option;
      (opt.targets || []).forEach(function (cid) {
        var t = b.querySelector('.token[data-cid="' + cid + '"]');
        if (t) { t.classList.add("target"); }
      });
      (opt.squares || []).forEach(function (sq) { square(sq[0], sq[1], ""); });
    }
  }

  function setHint(text) {
    if (hint) { hint.textContent = text; }
    if (cancelButton) { cancelButton.hidden = !mode; }
    root.classList.toggle("board-picking", !!mode); // board-act.js leaves the board's taps to this mode
  }

  function startPick(form) {
    root.querySelectorAll("form.picking").forEach(function (f) { if (f !== form) { f.classList.remove("picking"); } });
    var option;
    try { option = readSteps(JSON.parse(form.dataset.option || "{}")); } catch (err) { option = {}; }
    mode = { type: "pick", form: form, option: option, label: form.dataset.label };
    form.classList.add("picking");
    highlight();
    setHint(option.targets && option.targets.length ? "Tap a highlighted token for " + mode.label + "."
      : "Tap a highlighted square for " + mode.label + ".");
  }

  function startPlace(cid, kind, name) {
    cancel();
    mode = { type: "place", cid: cid, kind: kind, name: name };
    setHint("Tap a square for " + name + ".");
  }

  function cancel() {
    root.querySelectorAll("form.picking").forEach(function (f) { f.classList.remove("picking"); });
    mode = null;
    clearMarks();
    setHint("");
  }

  function cellAt(e) {
    var b = board();
    var rect = b.getBoundingClientRect();
    var cols = parseInt(b.dataset.width, 10);
    var rows = parseInt(b.dataset.height, 10);
    var size = rect.width / cols;
    var x = Math.floor((e.clientX - rect.left) / size);
    var y = Math.floor((e.clientY - rect.top) / size);
    if (x < 0 || y < 0 || x >= cols || y >= rows) { return null; }
    return [x, y];
  }

  function inList(list, sq) {
    return (list || []).some(function (s) { return s[0] === sq[0] && s[1] === sq[1]; });
  }

  // The engine's options carry the geometry: for a move, the square before each square it passes
  // ("via": x, y, then the square before it, four numbers a square), read back from a square to the
  // mover to show the path; for an area, the squares it covers around each square it may be centred
  // on ("x,y" keys).
  function drawArea(at) {
    highlight();
    ((mode && mode.option.areas || {})[at[0] + "," + at[1]] || []).forEach(function (sq) { square(sq[0], sq[1], "area"); });
  }

  function cameFrom(option) {
    if (!option.cameFrom) {
      var via = option.via || [], back = {};
      for (var i = 0; i + 3 < via.length; i += 4) { back[via[i] + "," + via[i + 1]] = [via[i + 2], via[i + 3]]; }
      option.cameFrom = back;
      option.stepCount = via.length / 4;
    }
    return option.cameFrom;
  }

  // A move may come as one character per square of the board (option.steps, row by row, option.w
  // wide): "." where it does not go, else the letter of the square before it on its path, as the
  // server wrote it ("abc" above, "d" and "f" beside, "ghi" below; upper case: passed, not an end).
  function readSteps(option) {
    if (!option.steps || option.cameFrom) { return option; }
    var back = {}, ends = [], width = option.w, count = 0;
    for (var i = 0; i < option.steps.length; i++) {
      var ch = option.steps.charAt(i);
      if (ch === ".") { continue; }
      var k = "abcdefghi".indexOf(ch.toLowerCase());
      var x = i % width, y = (i - x) / width;
      back[x + "," + y] = [x + (k % 3) - 1, y + (k - (k % 3)) / 3 - 1];
      count += 1;
      if (ch !== ch.toUpperCase()) { ends.push([x, y]); }
    }
    option.squares = ends;
    option.cameFrom = back;
    option.stepCount = count;
    return option;
  }

  function drawPath(to) {
    highlight();
    if (!mode || mode.type !== "pick") { return 0; }
    var back = cameFrom(mode.option), limit = mode.option.stepCount || 0, steps = 0, at = to;
    while (back[at[0] + "," + at[1]] && steps < limit) {
      square(at[0], at[1], "path");
      at = back[at[0] + "," + at[1]];
      steps += 1;
    }
    return steps;
  }

  function hasKeys(obj) { return !!obj && Object.keys(obj).length > 0; }

  function confirmThen(text, form) {
    pendingSubmit = form;
    if (dialog && typeof dialog.showModal === "function") {
      document.getElementById("confirm-text").textContent = text;
      dialog.showModal();
    } else if (window.confirm(text)) {
      submit(form);
    }
  }

  function submit(form) {
    pendingSubmit = null;
    if (!document.contains(form)) {
      // Re-rendered by a push meanwhile: send the same choice through the current form.
      var fresh = null;
      var asks = form.dataset.confirmText;
      root.querySelectorAll(asks ? "form[data-confirm-text]" : "form.act-form").forEach(function (f) {
        if (asks ? f.dataset.confirmText === asks : f.dataset.label === form.dataset.label) { fresh = f; }
      });
      if (!fresh) { cancel(); return; }
      ["target", "square"].forEach(function (name) {
        var from = form.querySelector("[name=" + name + "]");
        var to = fresh.querySelector("[name=" + name + "]");
        if (from && to) { to.value = from.value; }
      });
      form = fresh;
    }
    htmx.process(form); // a no-op when htmx already bound it; never let the browser post natively
    if (form.dataset.confirmText) { form.dataset.confirmed = "1"; }
    var seqInput = form.querySelector("input[name=expected_seq]");
    if (seqInput && !seqInput.value) { seqInput.value = String(seqNow()); }
    if (typeof form.requestSubmit === "function") { form.requestSubmit(); } else { htmx.trigger(form, "submit"); }
    cancel();
  }

  function tapBoard(e) {
    // The square under the pointer, and the token standing on it (a token drawn over its square's
    // edge does not take a tap on the next one); on a rows board, the token tapped.
    var sq = board().classList.contains("board-grid") ? cellAt(window.vttTapPoint ? window.vttTapPoint(e) : e) : null;
    var tok = sq ? board().querySelector('.token[data-x="' + sq[0] + '"][data-y="' + sq[1] + '"]') : e.target.closest(".token");
    if (mode.type === "place") {
      if (!sq) { return; }
      var pf = document.getElementById("place-form");
      if (!pf) { return; }
      pf.querySelector("input[name=kind]").value = mode.kind;
      pf.querySelector("input[name=combatant]").value = mode.cid;
      pf.querySelector("input[name=square]").value = sq[0] + "," + sq[1];
      if (mode.kind === "setup.place") { submit(pf); } else {
        confirmThen("Move " + mode.name + " to " + squareName(sq) + "?", pf);
      }
      return;
    }
    var opt = mode.option;
    var form = mode.form;
    if (opt.targets && opt.targets.length) {
      if (!tok || opt.targets.indexOf(tok.dataset.cid) < 0) { setHint("Not a valid target: tap a highlighted token."); return; }
      form.querySelector("select[name=target]").value = tok.dataset.cid;
      confirmThen(mode.label + " on " + (tok.getAttribute("title") || "that target") + "?", form);
      return;
    }
    if (!sq || !inList(opt.squares, sq)) { setHint("Out of reach: tap a highlighted square."); return; }
    form.querySelector("[name=square]").value = sq[0] + "," + sq[1];
    var area = hasKeys(opt.areas);
    if (area) { drawArea(sq); }
    var steps = area ? 0 : drawPath(sq);
    confirmThen(mode.label + " to " + squareName(sq) + (steps ? " (" + window.vttView.count(steps, "square") + ")" : "") + "?", form);
  }

  // A square as the board labels it: column letters, row number ("C1"), like the engine's words.square.
  function squareName(sq) {
    var letters = "", n = sq[0] + 1, r;
    while (n) { r = (n - 1) % 26; letters = String.fromCharCode(65 + r) + letters; n = Math.floor((n - 1) / 26); }
    return letters + (sq[1] + 1);
  }

  // ---------------------------------------------------------------- the GM's token menu
  // A token's menu (combat/token_menu.html) is fetched from the server when it opens, into
  // #token-menus (outside every pushed region). A click, a long press or Enter on a token opens it
  // beside the token; Escape, a click elsewhere or the close button shuts it and gives the focus back
  // to the token. After each change the open menu is fetched again; when what it shows changed, it
  // opens again with the focus where it was.
  var isGm = root.dataset.role === "gm";
  var menuBox = document.getElementById("token-menus");
  var menu = null; // {cid, key, html}: the open menu, its focused entry, the HTML it shows
  var menuAsk = 0; // the newest fetch: an older answer that arrives later is dropped
  var LONG_PRESS_MS = 450;

  // The menu of ``cid`` as the server renders it now: its HTML, or null when the battle no longer has
  // that combatant (or the fetch failed); undefined when a newer fetch went out meanwhile.
  function loadMenu(cid) {
    var ask = ++menuAsk;
    return fetch(menuBox.dataset.menuUrl + encodeURIComponent(cid), {
      credentials: "same-origin", headers: { "HX-Request": "true" }
    }).then(function (r) { return r.ok ? r.text() : null; }, function () { return null; })
      .then(function (html) { return ask === menuAsk ? html : undefined; });
  }

  function showMenu(html) {
    menuBox.innerHTML = html;
    htmx.process(menuBox); // its forms post through htmx like the page's
    menu.html = html;
  }

  function menuEl(cid) { return document.getElementById("tm-" + cid); }
  function tokenEl(cid) { var b = board(); return b && b.querySelector('.token[data-cid="' + cid + '"]'); }
  function menuItems(el) {
    return Array.prototype.filter.call(el.querySelectorAll("[role=menuitem]"), function (i) { return !i.disabled; });
  }

  function placeMenu(el, cid) {
    var t = tokenEl(cid);
    el.hidden = false;
    el.classList.add("open");
    el.style.bottom = ""; el.style.maxHeight = "";
    if (window.matchMedia("(max-width: 40rem)").matches || !t) {
      el.classList.add("sheet"); el.style.left = ""; el.style.top = "";
      keepOffPanel(el);
      return;
    }
    el.classList.remove("sheet");
    var r = t.getBoundingClientRect();
    var w = el.offsetWidth, h = el.offsetHeight;
    var left = r.right + 8;
    if (left + w > window.innerWidth - 8) { left = Math.max(8, r.left - w - 8); }
    var top = Math.min(Math.max(8, r.top), Math.max(8, window.innerHeight - h - 8));
    el.style.left = left + "px";
    el.style.top = top + "px";
    keepOffPanel(el);
  }

  // The menu never covers the acting panel (the dock): left of it where it is a column on the right (a
  // laptop), above it where it is the sheet at the bottom of the window (a phone, a tablet).
  function keepOffPanel(el) {
    var dock = document.getElementById("dock");
    if (!dock) { return; }
    var d = dock.getBoundingClientRect(), m = el.getBoundingClientRect();
    if (m.right <= d.left || m.left >= d.right || m.bottom <= d.top || m.top >= d.bottom) { return; }
    var sheet = el.classList.contains("sheet");
    if (!sheet && d.left > window.innerWidth / 2) {
      el.style.left = Math.max(8, d.left - m.width - 8) + "px";
      return;
    }
    var room = Math.max(120, d.top - 16);
    el.style.maxHeight = room + "px";
    if (sheet) {
      el.style.bottom = Math.max(8, window.innerHeight - d.top + 8) + "px";
    } else {
      el.style.top = Math.max(8, d.top - 8 - Math.min(m.height, room)) + "px";
    }
  }

  function openMenu(cid, focusFirst) {
    if (!isGm || !menuBox) { return false; }
    closeMenu(false);
    menu = { cid: cid, key: null, html: null, turn: turnKey() };
    var t = tokenEl(cid);
    if (t) { t.setAttribute("aria-expanded", "true"); }
    loadMenu(cid).then(function (html) {
      if (html === undefined || !menu || menu.cid !== cid) { return; }
      if (html === null) { closeMenu(false); return; }
      showMenu(html);
      var el = menuEl(cid);
      if (!el) { return; }
      placeMenu(el, cid);
      if (focusFirst) {
        var first = menuItems(el)[0] || el.querySelector("input, select, button");
        if (first) { first.focus(); }
      }
    });
    return true;
  }

  // Whose turn it is and what the table waits for, as the tracker's head says it, and the phase.
  function turnKey() {
    var head = document.getElementById("tracker-head"), b = board();
    return (head ? head.textContent.replace(/\s+/g, " ").trim() : "") + "|" + (b ? b.dataset.phase : "");
  }

  // A menu belongs to the turn it was opened in (its entries act on that turn): a new turn, a question
  // to answer or a battle that ends closes it.
  function closeMenuOnTurnChange() {
    if (menu && menu.turn !== turnKey()) { closeMenu(false); }
  }

  // After a change: the open menu again, swapped in only when what it shows changed.
  function refreshMenu() {
    closeMenuOnTurnChange();
    if (!menu || !menuBox) { return; }
    var cid = menu.cid;
    loadMenu(cid).then(function (html) {
      if (html === undefined || !menu || menu.cid !== cid || html === menu.html) { return; }
      if (html === null) { closeMenu(false); return; }
      showMenu(html);
      reopenMenu();
    });
  }
  root.addEventListener("htmx:wsAfterMessage", refreshMenu);

  function closeMenu(returnFocus) {
    if (!menu) { return; }
    var cid = menu.cid;
    var el = menuEl(cid);
    if (el) { el.hidden = true; el.classList.remove("open"); }
    var t = tokenEl(cid);
    if (t) { t.setAttribute("aria-expanded", "false"); }
    menu = null;
    if (returnFocus) {
      if (t) { t.focus(); } else if (board()) { board().focus(); }
    }
  }

  function reopenMenu() {
    if (!menu || menu.html === null) { return; } // not shown yet: its fetch is under way
    var el = menuEl(menu.cid);
    if (!el) { menu = null; return; }
    var key = menu.key;
    placeMenu(el, menu.cid);
    var t = tokenEl(menu.cid);
    if (t) { t.setAttribute("aria-expanded", "true"); }
    if (key) {
      var again = el.querySelector('[data-menu-key="' + key + '"]') || el.querySelector("#" + key) || menuItems(el)[0];
      if (again && !el.contains(document.activeElement)) { again.focus(); }
    }
  }

  root.addEventListener("focusin", function (e) {
    if (!menu) { return; }
    var el = menuEl(menu.cid);
    if (el && el.contains(e.target)) { menu.key = e.target.dataset.menuKey || e.target.id || null; }
  });

  root.addEventListener("keydown", function (e) {
    if (!menu) { return; }
    var el = menuEl(menu.cid);
    if (!el || !el.contains(e.target)) { return; }
    if (e.key === "Escape") { e.preventDefault(); e.stopPropagation(); closeMenu(true); return; }
    var items = menuItems(el);
    var at = items.indexOf(e.target);
    if (at < 0) { return; }
    var next = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: items.length - 1 }[e.key];
    if (next === undefined) { return; }
    e.preventDefault();
    items[(next + items.length) % items.length].focus();
  });

  // A long press on a token opens its menu on a touch screen (a tap does too).
  var press = null;
  root.addEventListener("pointerdown", function (e) {
    if (!isGm || e.pointerType !== "touch" || mode) { return; }
    var t = e.target.closest("#board .token");
    if (!t) { return; }
    press = { id: e.pointerId, x: e.clientX, y: e.clientY };
    var pointer = e.pointerId, x0 = e.clientX, y0 = e.clientY;
    press.timer = window.setTimeout(function () {
      press = null;
      if (openMenu(t.dataset.cid, false)) {
        if (navigator.vibrate) { navigator.vibrate(30); }
        // The click that ends this press must not close the menu it opened, however long the finger
        // stays down: until the finger lifts and briefly after, a click at the pressed spot is
        // swallowed (a tap elsewhere, on the menu, goes through).
        var lift = null; // the lift's event time: the click it makes follows within a few ms
        var done = function () { root.removeEventListener("click", swallow, { capture: true }); };
        var swallow = function (ev) {
          var near = Math.hypot(ev.clientX - x0, ev.clientY - y0) <= 16;
          if (near && (lift === null || ev.timeStamp - lift < 150)) {
            ev.stopPropagation();
            ev.preventDefault();
            done();
          }
        };
        var lifted = function (ev) {
          if (ev.pointerId !== pointer) { return; }
          lift = ev.timeStamp;
          root.removeEventListener("pointerup", lifted, true);
          root.removeEventListener("pointercancel", lifted, true);
          window.setTimeout(done, 1000);
        };
        root.addEventListener("click", swallow, { capture: true });
        window.setTimeout(done, 10000);
        root.addEventListener("pointerup", lifted, true);
        root.addEventListener("pointercancel", lifted, true);
      }
    }, LONG_PRESS_MS);
  }, true);
  function endPress(e) {
    if (press && (e.type !== "pointermove" || Math.hypot(e.clientX - press.x, e.clientY - press.y) > 8)) {
      window.clearTimeout(press.timer);
      press = null;
    }
  }
  root.addEventListener("pointermove", endPress, true);
  root.addEventListener("pointerup", endPress, true);
  root.addEventListener("pointercancel", endPress, true);

  // A menu entry that asks first (remove a token, end the battle): the confirm dialog, then the post.
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!form.matches || !form.matches("form[data-confirm-text]")) { return; }
    if (form.dataset.confirmed === "1") { delete form.dataset.confirmed; return; }
    e.preventDefault();
    e.stopPropagation();
    closeMenu(false);
    pendingSubmit = form;
    confirmAsk(form.dataset.confirmText);
  }, true);

  function confirmAsk(text) {
    if (dialog && typeof dialog.showModal === "function") {
      document.getElementById("confirm-text").textContent = text;
      dialog.showModal();
    } else if (window.confirm(text) && pendingSubmit) {
      submit(pendingSubmit);
    }
  }

  root.addEventListener("click", function (e) {
    if (menu) {
      var open = menuEl(menu.cid);
      if (e.target.closest("[data-menu-close]")) { closeMenu(true); return; }
      var actFor = e.target.closest("[data-act-for]");
      if (actFor) {
        closeMenu(false);
        var first = root.querySelector("#actions form.act-form button.opt:not([disabled])");
        var dock = document.getElementById("dock");
        if (dock && dock.scrollIntoView) { dock.scrollIntoView({ block: "nearest" }); }
        if (first) { first.focus(); }
        return;
      }
      if (open && open.contains(e.target)) {
        if (e.target.closest("[data-place]")) { closeMenu(false); }
        else { return; }
      } else if (!e.target.closest("#board .token")) {
        closeMenu(false);
      }
    }
    if (isGm && !mode && !root.querySelector("form.picking")) {
      var tok = e.target.closest("#board .token");
      if (tok) {
        if (menu && menu.cid === tok.dataset.cid) { closeMenu(false); return; }
        openMenu(tok.dataset.cid, e.detail === 0);
        return;
      }
    }
  });

  root.addEventListener("click", function (e) {
    var el = e.target.closest("[data-pick]");
    if (el) { startPick(el.closest("form")); return; }
    el = e.target.closest("[data-place]");
    if (el) { startPlace(el.dataset.place, el.dataset.kind, el.dataset.name); return; }
    if (e.target.closest("[data-cancel]")) { cancel(); return; }
    el = e.target.closest("[data-confirm]");
    if (el) {
      dialog.close();
      if (el.dataset.confirm === "yes" && pendingSubmit) { submit(pendingSubmit); } else { highlight(); }
      return;
    }
    if (mode && e.target.closest("#board")) { tapBoard(e); }
  });

  root.addEventListener("pointermove", function (e) {
    if (!mode || mode.type !== "pick" || e.pointerType === "touch" || !e.target.closest("#board")) { return; }
    var area = hasKeys(mode.option.areas);
    if (!area && !(mode.option.via || []).length && !mode.option.steps) { return; }
    var sq = cellAt(e);
    if (sq && inList(mode.option.squares, sq)) {
      if (area) { drawArea(sq); } else { drawPath(sq); }
    }
  });

  root.addEventListener("change", function (e) {
    if (e.target.matches("[data-log-filter]")) {
      document.getElementById("log-wrap").classList.toggle("only-rolls", e.target.checked);
    }
  });

  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && mode) { cancel(); }
    else if (e.key === "Escape" && menu) { closeMenu(true); }
  });

  applyMarks();
})();
