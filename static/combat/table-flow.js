/* Table flow: count steppers on the new-battle page; on the battle page the "Your turn" banner,
   notices when one of your combatants is hit, fresh outcome lines, and the GM's placement by drag
   (mouse or pen) before the start. The server decides everything. */
(function () {
  "use strict";

  // ------------------------------------------------ new battle: + / − next to each count
  document.addEventListener("click", function (e) {
    var step = e.target.closest("[data-step]");
    if (!step) { return; }
    var input = document.getElementById(step.dataset.for);
    if (!input) { return; }
    var value = (parseInt(input.value, 10) || 0) + parseInt(step.dataset.step, 10);
    var max = parseInt(input.max, 10);
    input.value = String(Math.max(0, isNaN(max) ? value : Math.min(max, value)));
  });

  var root = document.getElementById("battle-root");
  if (!root) { return; }
  var isGm = root.dataset.role === "gm";
  var baseTitle = document.title;
  var seenTurn = null;
  var seenNotices = {};
  var first = true;

  function toast(text) {
    var el = document.getElementById("flow-toast");
    if (!el) {
      el = document.createElement("p");
      el.id = "flow-toast";
      el.className = "flow-toast";
      el.setAttribute("role", "alert");
      document.body.appendChild(el);
    }
    el.textContent = text;
    window.vttView.placeToast(el); // below the battle's header, never over its title
    el.classList.remove("show");
    void el.offsetWidth; // restart the entrance
    el.classList.add("show");
    window.clearTimeout(el._hide);
    el._hide = window.setTimeout(function () { el.classList.remove("show"); }, 6000);
  }

  // An outcome line tells of one change (data-seq): once the battle has moved past it, it gives way.
  function clearStale() {
    var mark = document.getElementById("battle-seq");
    var now = mark ? parseInt(mark.dataset.seq, 10) || 0 : 0;
    root.querySelectorAll("#battle-messages .msg[data-seq]").forEach(function (el) {
      if (now > (parseInt(el.dataset.seq, 10) || 0)) { el.remove(); }
    });
  }

  function check() {
    clearStale();
    var banner = root.querySelector("[data-your-turn]");
    var turn = banner ? banner.dataset.yourTurn : null;
    if (banner && turn === seenTurn && !first) {
      banner.classList.add("seen"); // the same turn re-rendered by a push: no entrance again
    }
    if (turn && turn !== seenTurn) {
      document.title = "Your turn · " + baseTitle;
      if (!first) {
        toast("Your turn!");
        if (navigator.vibrate) { navigator.vibrate(120); }
      }
      var dock = document.getElementById("dock");
      if (dock && dock.scrollIntoView && !first) { dock.scrollIntoView({ block: "nearest" }); }
    } else if (!turn) {
      document.title = baseTitle;
    }
    seenTurn = turn;
    // Every new notice of the change in one toast (a second one would replace the first at once).
    var fresh = [];
    root.querySelectorAll("[data-notice]").forEach(function (el) {
      var key = el.dataset.notice + ":" + el.textContent;
      if (!seenNotices[key]) {
        seenNotices[key] = true;
        fresh.push(el.textContent);
      }
    });
    if (fresh.length && !first) { toast(fresh.join(" ")); }
    first = false;
  }

  // ------------------------------------------------ the phone's action sheet folds to a bar
  var dock = document.getElementById("dock");
  var fold = dock && dock.querySelector("[data-dock-fold]");
  if (fold) {
    fold.addEventListener("click", function () {
      var folded = !dock.classList.contains("folded");
      dock.classList.toggle("folded", folded);
      fold.setAttribute("aria-expanded", folded ? "false" : "true");
      fold.textContent = folded ? "Show actions" : "Hide actions";
    });
  }

  root.addEventListener("htmx:wsAfterMessage", check);
  document.body.addEventListener("htmx:afterSettle", check);

  // A new action clears the previous outcome line: what is shown is always what just happened.
  document.body.addEventListener("htmx:beforeRequest", function (e) {
    var elt = e.detail.elt;
    if (!elt || !elt.closest || !elt.closest("#battle-root")) { return; }
    var box = document.getElementById("battle-messages");
    if (box) { box.innerHTML = ""; }
  });

  // ------------------------------------------------ GM placement before the start
  function board() { return document.getElementById("board"); }
  function settingUp() { var b = board(); return isGm && b && b.dataset.phase === "setup" && !b.classList.contains("board-rows"); }

  function cellAt(x, y) {
    var b = board();
    var rect = b.getBoundingClientRect();
    var cols = parseInt(b.dataset.width, 10);
    var rows = parseInt(b.dataset.height, 10);
    var size = rect.width / cols;
    var cx = Math.floor((x - rect.left) / size);
    var cy = Math.floor((y - rect.top) / size);
    if (cx < 0 || cy < 0 || cx >= cols || cy >= rows) { return null; }
    return [cx, cy];
  }

  function place(cid, sq) {
    var pf = document.getElementById("place-form");
    if (!pf || !sq) { return; }
    pf.querySelector("input[name=kind]").value = "setup.place";
    pf.querySelector("input[name=combatant]").value = cid;
    pf.querySelector("input[name=square]").value = sq[0] + "," + sq[1];
    var seq = pf.querySelector("input[name=expected_seq]");
    var mark = document.getElementById("battle-seq");
    if (seq && mark) { seq.value = mark.dataset.seq; }
    htmx.process(pf);
    if (typeof pf.requestSubmit === "function") { pf.requestSubmit(); } else { htmx.trigger(pf, "submit"); }
  }

  // A tap (or Enter) on a token opens its menu, whose “Move…” then takes a square (battle.js).

  // Drag with a mouse or pen.
  var drag = null;
  root.addEventListener("pointerdown", function (e) {
    if (!settingUp() || e.pointerType === "touch") { return; }
    var tok = e.target.closest("#board .token");
    if (!tok) { return; }
    drag = { cid: tok.dataset.cid, el: tok, x: e.clientX, y: e.clientY, moved: false };
  });
  document.addEventListener("pointermove", function (e) {
    if (!drag) { return; }
    var dx = e.clientX - drag.x;
    var dy = e.clientY - drag.y;
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 6) { return; }
    drag.moved = true;
    drag.el.classList.add("dragging");
    drag.el.style.transform = "translate(" + dx + "px," + dy + "px)";
  });
  document.addEventListener("pointerup", function (e) {
    if (!drag) { return; }
    var d = drag;
    drag = null;
    d.el.style.transform = "";
    d.el.classList.remove("dragging");
    if (!d.moved) { return; }
    // A drag is not a tap: keep the click that follows from lifting the token.
    var swallow = function (ev) { ev.stopPropagation(); ev.preventDefault(); };
    root.addEventListener("click", swallow, { capture: true, once: true });
    window.setTimeout(function () { root.removeEventListener("click", swallow, { capture: true }); }, 50);
    place(d.cid, cellAt(e.clientX, e.clientY));
  });

  check();
})();
