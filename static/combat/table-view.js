/* What happened stays in view: the header that never scrolls away (its height for the board below it),
   the outcome line by the board (the pushed line of the latest action gives way to the actor's own
   reply while that tells of the same change), the toast's place under the header, the GM's panel in
   view when a monster's turn is left to finish, and the page's
   one way of saying "1 square" / "3 squares" (vttView.count, used by the other scripts). Loaded
   before them. The server decides every word; this only places and shows them. */
(function () {
  "use strict";

  // "1 square", "3 squares": every number said with its noun on the page (the engine's words.count).
  function count(n, noun, plural) { return n + " " + (n === 1 ? noun : plural || noun + "s"); }

  // The battle header's height as --head-h on the page: the board below it sticks under it.
  function trackHeader(root) {
    var head = root.querySelector(".battle-head");
    if (!head) { return; }
    var set = function () { root.style.setProperty("--head-h", head.offsetHeight + "px"); };
    set();
    if (window.ResizeObserver) { new ResizeObserver(set).observe(head); }
  }

  function seqOf(el) { return el ? parseInt(el.dataset.seq, 10) || 0 : 0; }

  // The pushed line of the latest action hides while the actor's own line (their reply) tells of that
  // change or a later one: the one who acted reads their own words once, with what only they may see.
  function showOutcome() {
    var line = document.getElementById("outcome");
    if (!line) { return; }
    var newest = 0;
    document.querySelectorAll("#battle-messages .msg.ok[data-seq]").forEach(function (m) {
      newest = Math.max(newest, seqOf(m));
    });
    line.classList.toggle("told", newest > 0 && newest >= seqOf(line));
  }

  // A toast goes just under the header (never over the battle's title), or at the window's top.
  function placeToast(el) {
    var head = document.querySelector(".battle-head");
    var site = document.querySelector(".site-header");
    var below = head ? head.getBoundingClientRect().bottom : site ? site.getBoundingClientRect().bottom : 0;
    el.style.top = Math.max(8, below + 8) + "px";
  }

  // When the tactics stopped and the GM has the rest of the monster's turn to play, the panel that says
  // so comes into view (the GM may have scrolled down to the quick actions that started it).
  var turnLeftShown = null;
  function revealTurnLeft() {
    var note = document.querySelector("#actions .turn-left");
    var text = note ? note.textContent : null;
    var dock = document.getElementById("dock");
    if (note && dock && text !== turnLeftShown) {
      dock.scrollIntoView({ block: "nearest" });
      dock.scrollTop = 0; // the phone's sheet scrolls on its own: its title and the note first
    }
    turnLeftShown = text;
  }

  window.vttView = { count: count, placeToast: placeToast };

  var root = document.getElementById("battle-root");
  if (!root) { return; }
  trackHeader(root);
  root.addEventListener("htmx:wsAfterMessage", showOutcome);
  document.body.addEventListener("htmx:afterSettle", showOutcome);
  root.addEventListener("htmx:wsAfterMessage", revealTurnLeft);
  document.body.addEventListener("htmx:afterSettle", revealTurnLeft);
  document.body.addEventListener("htmx:beforeRequest", function () { window.setTimeout(showOutcome, 0); });
  showOutcome();
})();
