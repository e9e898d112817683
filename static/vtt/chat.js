/* The chat panel (templates/vtt/chat.html), on the campaign page and beside a battle. The server
   rolls, decides who reads what and renders every line; this only helps to type and to read:
   Enter sends (Shift+Enter starts a new line), a refused line stays in the box with its reason,
   a line that came both as the answer and over the socket is kept once, the view follows the newest
   line unless scrolled back, edit buttons go when their time is up, a page that reconnects fetches
   what it missed, and on a phone the chat opens as a drawer over the page. */
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

  if (box) {
    box.addEventListener("input", grow);
    box.addEventListener("keydown", function (e) {
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
