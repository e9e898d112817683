/* Light or dark: the system's choice unless the header's switch picked one (kept in this browser).
   Loaded in <head> without defer so the page never flashes the other theme. */
(function () {
  "use strict";
  var KEY = "vtt-theme";
  var html = document.documentElement;
  // Scripts run: the page's script-only layout (the battle's chat drawer, off screen on a phone)
  // applies from the first paint, not when the deferred scripts run (the drawer slid away then).
  html.classList.add("js");
  var names = { auto: "Theme: system", light: "Theme: light", dark: "Theme: dark" };
  function saved() {
    try { return window.localStorage.getItem(KEY) || "auto"; } catch (err) { return "auto"; }
  }
  function apply(choice) {
    if (choice === "light" || choice === "dark") { html.setAttribute("data-theme", choice); } else { html.removeAttribute("data-theme"); }
    var button = document.querySelector("[data-theme-toggle]");
    if (button) { button.querySelector("[data-theme-name]").textContent = names[choice] || names.auto; }
  }
  apply(saved());
  document.addEventListener("DOMContentLoaded", function () {
    apply(saved());
    var button = document.querySelector("[data-theme-toggle]");
    if (!button) { return; }
    button.hidden = false;
    button.addEventListener("click", function () {
      var order = ["auto", "light", "dark"];
      var next = order[(order.indexOf(saved()) + 1) % order.length];
      try { window.localStorage.setItem(KEY, next); } catch (err) { /* private mode: this page only */ }
      apply(next);
    });
  });
})();
