// Parley's own browser code. No inline scripts: the Content-Security-Policy forbids them.

// Helpers the other scripts share (app.js loads first; all scripts are deferred, in order).
window.Parley = {
  // copyText puts text on the clipboard and says "Copied" on button for a moment (no clipboard,
  // as on plain http: nothing happens).
  copyText: function (button, text) {
    if (!navigator.clipboard) return;
    navigator.clipboard.writeText(text).then(function () {
      button.textContent = "Copied";
      setTimeout(function () { button.textContent = "Copy"; }, 1500);
    });
  }
};

(function () {
  "use strict";

  // A form marked data-keep-unsent keeps what it sends in this tab's sessionStorage until the next
  // page that is not an error page: when the request is refused before the server could read it
  // (e.g. 413, too large), the error page links back to the form, and the form, still empty, gets
  // the text back.
  var UNSENT = "parley:unsent-form";
  function formFields(form) { return form.querySelectorAll("input[type=text][name], textarea[name]"); }
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (event.defaultPrevented || !form.matches("form[data-keep-unsent]")) return;
    var fields = {};
    formFields(form).forEach(function (f) { fields[f.name] = f.value; });
    try {
      sessionStorage.setItem(UNSENT, JSON.stringify({ page: location.pathname, fields: fields }));
    } catch (e) { /* more than the browser keeps: nothing to restore */ }
  });
  (function restoreUnsent() {
    var stash;
    try { stash = JSON.parse(sessionStorage.getItem(UNSENT) || "null"); } catch (e) { stash = null; }
    if (!stash) return;
    var errorPage = document.querySelector("[data-error-page]");
    if (errorPage) {
      var back = document.createElement("a");
      back.href = stash.page;
      back.textContent = "Back to the form, with your text";
      back.setAttribute("data-testid", "back-to-form");
      back.setAttribute("hx-boost", "false"); // a full load, which restores the form
      back.className = "mt-4 block text-sm text-indigo-600 hover:underline dark:text-indigo-400";
      errorPage.appendChild(back);
      return;
    }
    var form = document.querySelector("form[data-keep-unsent]");
    if (form && location.pathname === stash.page &&
        Array.prototype.every.call(formFields(form), function (f) { return f.value.trim() === ""; })) {
      Object.keys(stash.fields).forEach(function (name) {
        var f = form.querySelector("[name='" + CSS.escape(name) + "']");
        if (f) f.value = stash.fields[name];
      });
    }
    sessionStorage.removeItem(UNSENT);
  })();

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

// Errors of htmx fragment requests arrive as an HX-Trigger "parley:error" event (nothing is
// swapped, so the page and whatever was typed stay); show the message for a few seconds.
(function () {
  "use strict";
  var hideTimer = null;
  function show(message) {
    var toast = document.getElementById("toast");
    if (!toast) return;
    toast.textContent = message;
    toast.classList.remove("hidden");
    clearTimeout(hideTimer);
    hideTimer = setTimeout(function () { toast.classList.add("hidden"); }, 6000);
  }
  document.body.addEventListener("parley:error", function (event) {
    show((event.detail && event.detail.value) || "Something went wrong.");
  });
  // A request that never reached the server (offline, server down): say so; nothing is swapped.
  document.body.addEventListener("htmx:sendError", function () {
    show("Parley cannot be reached. Check your connection; what you typed is kept.");
  });
})();
