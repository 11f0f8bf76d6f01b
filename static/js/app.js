// Parley's own browser code. No inline scripts: the Content-Security-Policy forbids them.
(function () {
  "use strict";

  // Close an open <details data-menu> when the person clicks elsewhere or presses Escape.
  document.addEventListener("click", function (event) {
    document.querySelectorAll("details[data-menu][open]").forEach(function (menu) {
      if (!menu.contains(event.target)) menu.removeAttribute("open");
    });
  });
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    document.querySelectorAll("details[data-menu][open]").forEach(function (menu) {
      menu.removeAttribute("open");
    });
  });
})();
