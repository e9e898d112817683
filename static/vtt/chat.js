/* The chat panel (templates/vtt/chat.html), on the campaign page and beside a battle. The server
   rolls, decides who reads what and renders every line; this only helps to type and to read:
   Enter sends (Shift+Enter starts a new line), a refused line stays in the box with its reason,
   a line that came both as the answer and over the socket is kept once, the view follows the newest
   line unless scrolled back, edit buttons go when their time is up, a page that reconnects fetches
   what it missed, on a phone the chat opens as a drawer over the page, and "/w " offers the names a
   whisper can reach as you type. */
(function () {
  "use strict";
  var panel = document.querySelector("[data-chat]");
  if (!panel || !window.htmx) { return; }
  document.documentElement.classList.add("js");
  var scroller = panel.querySelector("[data-chat-scroll]");
  var log = document.getElementById("chat-log");
  var form = panel.querySelector("[data-chat-form]");
  var box = form ? form.querySelector("textarea") : null;
  var drawer = document.getElementById("chat-drawer");
  var toggle = document.querySelector("[data-chat-toggle]");
  var badge = document.querySelector("[data-chat-unread]");
  var stick = true; // the view follows new lines while it is at the newest one
  var sending = null; // the text of the line on its way
  var opened = 0;
  var unread = 0;

  function toBottom() { scroller.scrollTop = scroller.scrollHeight; }
  function lines() { return log.querySelectorAll("li[id^='chat-m']"); }

  // ------------------------------------------------------------ reading
  scroller.addEventListener("scroll", function () {
    stick = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 48;
  }, { passive: true });

  function drawerShut() {
    return !!(drawer && toggle && toggle.offsetParent !== null && !drawer.classList.contains("open"));
  }

  function setUnread(n) {
    unread = n;
    if (badge) { badge.hidden = n === 0; badge.textContent = n > 9 ? "9+" : String(n); }
    if (toggle) { toggle.setAttribute("aria-label", n ? "Chat, " + n + " new" : "Chat"); }
  }

  // A line that came twice (the answer to a send and the push) is kept once; new lines keep the view
  // at the bottom and, while the drawer is shut, count as unread.
  new MutationObserver(function (changes) {
    var seen = {};
    lines().forEach(function (li) { if (seen[li.id]) { li.remove(); } else { seen[li.id] = true; } });
    var added = 0;
    changes.forEach(function (c) {
      c.addedNodes.forEach(function (n) { if (n.nodeType === 1 && n.matches("li[id^='chat-m']") && !n.dataset.counted) { n.dataset.counted = "1"; added += 1; } });
    });
    if (stick) { toBottom(); }
    if (added && drawerShut() && opened) { setUnread(unread + added); }
  }).observe(log, { childList: true });

  // The author's buttons go when the server would refuse them (a GM's delete stays).
  function expire() {
    var now = Date.now();
    log.querySelectorAll("[data-until]").forEach(function (b) {
      if (parseInt(b.dataset.until, 10) <= now) { b.remove(); }
    });
  }
  window.setInterval(expire, 5000);

  // ------------------------------------------------------------ writing
  function grow() {
    if (!box) { return; }
    box.style.height = "auto";
    box.style.height = Math.min(box.scrollHeight + 2, 160) + "px";
  }

  // ------------------------------------------------------------ whisper names as you type "/w …"
  // The server's names (the chat-names-data script): each other member's characters, display and user
  // names, with whom each reaches. The server decides again when the line is sent.
  var picker = document.getElementById("chat-names");
  var names = [];
  try { names = JSON.parse((document.getElementById("chat-names-data") || {}).textContent || "[]"); } catch (err) { names = []; }
  var offered = [], active = 0;

  function typedName() {
    var m = box && /^\/w(?:hisper)?\s+(?:"([^"]*)|([^\s"]*))$/i.exec(box.value);
    return m ? (m[1] !== undefined ? m[1] : m[2]) : null;
  }
  function showNames() {
    if (!picker) { return; }
    var typed = typedName(), key = typed === null ? "" : typed.toLowerCase().replace(/\s+/g, " ");
    offered = typed === null ? [] : names.filter(function (n) { return n[0].toLowerCase().indexOf(key) === 0; }).slice(0, 8);
    picker.textContent = "";
    offered.forEach(function (n, i) {
      var li = document.createElement("li");
      li.id = "chat-name-" + i;
      li.setAttribute("role", "option");
      li.className = "chat-name";
      li.dataset.index = String(i);
      li.textContent = n[0];
      if (n[1] && n[1].toLowerCase() !== n[0].toLowerCase()) {
        var who = document.createElement("span");
        who.className = "chat-name-who";
        who.textContent = n[1];
        li.appendChild(who);
      }
      picker.appendChild(li);
    });
    active = 0;
    markActive();
    picker.hidden = offered.length === 0;
  }
  function markActive() {
    picker.querySelectorAll("[role=option]").forEach(function (li, i) { li.setAttribute("aria-selected", i === active ? "true" : "false"); });
    if (offered.length) { box.setAttribute("aria-activedescendant", "chat-name-" + active); } else { box.removeAttribute("aria-activedescendant"); }
  }
  function pick(i) {
    var name = offered[i][0];
    box.value = "/w " + (/\s/.test(name) ? '"' + name + '"' : name) + " ";
    offered = [];
    showNames();
    box.focus();
    box.setSelectionRange(box.value.length, box.value.length);
  }
  if (picker) {
    // A press on a name picks it without taking the focus from the box (a phone keeps its keyboard).
    picker.addEventListener("mousedown", function (e) { e.preventDefault(); });
    picker.addEventListener("click", function (e) {
      var li = e.target.closest("[role=option]");
      if (li) { pick(parseInt(li.dataset.index, 10)); }
    });
  }

  if (box) {
    box.addEventListener("input", function () { grow(); showNames(); });
    box.addEventListener("blur", function () { window.setTimeout(function () { if (document.activeElement !== box) { offered = []; if (picker) { picker.hidden = true; } box.removeAttribute("aria-activedescendant"); } }, 150); });
    box.addEventListener("keydown", function (e) {
      if (offered.length && picker && !picker.hidden) {
        if (e.key === "ArrowDown" || e.key === "ArrowUp") {
          e.preventDefault();
          active = (active + (e.key === "ArrowDown" ? 1 : offered.length - 1)) % offered.length;
          markActive();
          return;
        }
        if ((e.key === "Enter" && !e.shiftKey) || e.key === "Tab") { e.preventDefault(); pick(active); return; }
        if (e.key === "Escape") { e.preventDefault(); e.stopPropagation(); offered = []; picker.hidden = true; box.removeAttribute("aria-activedescendant"); return; }
      }
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        if (box.value.trim()) { form.requestSubmit(); }
      }
    });
  }

  function error(text) {
    var slot = document.getElementById("chat-error");
    if (slot) { slot.textContent = text; slot.hidden = !text; }
  }
  // /help's list in the message slot closes with its button.
  panel.addEventListener("click", function (e) {
    if (e.target.closest("[data-chat-note-close]")) {
      var slot = document.getElementById("chat-error");
      if (slot) { slot.hidden = true; }
    }
  });

  document.body.addEventListener("htmx:beforeRequest", function (e) {
    if (e.detail.elt === form) { sending = box.value; }
  });
  // A refusal carries its reason for the form's message slot: swap it (out of band), never over a region.
  document.body.addEventListener("htmx:beforeSwap", function (e) {
    if (!panel.contains(e.detail.elt) || e.detail.xhr.status < 400) { return; }
    e.detail.shouldSwap = true;
    e.detail.isError = false;
  });
  document.body.addEventListener("htmx:afterRequest", function (e) {
    if (e.detail.elt !== form) { return; }
    if (e.detail.xhr && e.detail.xhr.status === 0) { error("Not sent: the connection dropped. Your message is still in the box."); return; }
    if (e.detail.successful && box.value === sending) { box.value = ""; grow(); }
    stick = true;
    toBottom();
    box.focus();
  });

  // ------------------------------------------------------------ catching up after a reconnect
  document.body.addEventListener("htmx:wsOpen", function () {
    opened += 1;
    if (opened === 1) { return; }
    var last = 0;
    lines().forEach(function (li) { last = Math.max(last, parseInt(li.id.slice(6), 10) || 0); });
    var url = form ? form.getAttribute("action") : panel.dataset.url;
    if (url && last) { htmx.ajax("GET", url + "?after=" + last, { target: log, swap: "beforeend" }); }
  });

  // ------------------------------------------------------------ the drawer (battle page, phone)
  function openDrawer(open) {
    if (!drawer || !toggle) { return; }
    drawer.classList.toggle("open", open);
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
    if (open) {
      setUnread(0);
      stick = true;
      toBottom();
      if (box) { box.focus(); }
    } else {
      toggle.focus();
    }
  }
  document.addEventListener("click", function (e) {
    if (e.target.closest("[data-chat-toggle]")) { openDrawer(!drawer.classList.contains("open")); return; }
    if (e.target.closest("[data-chat-close]")) { openDrawer(false); }
  });
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && drawer && drawer.classList.contains("open")) { openDrawer(false); }
  });

  grow();
  expire();
  toBottom();
})();
