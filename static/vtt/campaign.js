/* Campaign page: copy an invite link, or share it with the phone's share sheet (Web Share API). */
(function () {
  "use strict";
  function linkOf(button, attr) {
    var input = document.getElementById(button.getAttribute(attr));
    return input ? input.value : "";
  }
  function flash(button, text) {
    var before = button.dataset.label || button.textContent;
    button.dataset.label = before;
    button.textContent = text;
    window.setTimeout(function () { button.textContent = before; }, 2000);
  }
  function showShareButtons() {
    if (!navigator.share) { return; }
    document.querySelectorAll("[data-share]").forEach(function (b) { b.hidden = false; });
  }
  document.addEventListener("click", function (e) {
    var copy = e.target.closest("[data-copy]");
    if (copy) {
      var text = linkOf(copy, "data-copy");
      var input = document.getElementById(copy.getAttribute("data-copy"));
      var done = function () { flash(copy, "Copied!"); };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(done, function () { input.select(); document.execCommand("copy"); done(); });
      } else {
        input.select();
        document.execCommand("copy");
        done();
      }
      return;
    }
    var share = e.target.closest("[data-share]");
    if (share && navigator.share) {
      navigator.share({ title: share.dataset.title || document.title, url: linkOf(share, "data-share") }).catch(function () {});
    }
  });
  document.addEventListener("DOMContentLoaded", showShareButtons);
  document.body && document.body.addEventListener("htmx:afterSettle", showShareButtons);
  showShareButtons();
})();
