// Parley's own browser code. No inline scripts: the Content-Security-Policy forbids them.

// Helpers the other scripts share (app.js loads first; all scripts are deferred, in order).
window.Parley = {
  // icon returns an <svg> drawing one icon of the sprite (views.Icon's twin for script-made
  // controls); it is decorative, the control carries the name.
  icon: function (name, className) {
    var meta = document.querySelector("meta[name=parley-icons]");
    var ns = "http://www.w3.org/2000/svg";
    var svg = document.createElementNS(ns, "svg");
    svg.setAttribute("class", "icon " + (className || ""));
    svg.setAttribute("aria-hidden", "true");
    var use = document.createElementNS(ns, "use");
    use.setAttribute("href", (meta ? meta.content : "/static/vendor/icons.svg") + "#" + name);
    svg.appendChild(use);
    return svg;
  },

  // copyText puts text on the clipboard and says "Copied" on button (its [data-copy-label] child
  // when it has one, so an icon stays) for a moment (no clipboard, as on plain http: nothing
  // happens).
  copyText: function (button, text) {
    if (!navigator.clipboard) return;
    var label = button.querySelector("[data-copy-label]") || button;
    navigator.clipboard.writeText(text).then(function () {
      var was = label.getAttribute("data-copy-was") || label.textContent;
      label.setAttribute("data-copy-was", was);
      label.textContent = "Copied";
      setTimeout(function () { label.textContent = was; }, 1500);
    });
  }
};

// The server's out-of-band parts are "if it is there": take the welcome text or a sidebar item
// away, put a new conversation at the top of a sidebar (none on guest, team and embed pages).
// htmx logs a console error for each one whose target is not on the page; this extension (hx-ext
// on <body>, so every request and the SSE stream use it) drops those first. A target that the
// same response brings stays.
htmx.defineExtension("skip-missing-oob", {
  transformResponse: function (text) {
    // Whole pages (boosted navigations) are left alone: a <template> would drop their <html>.
    if (text.indexOf("hx-swap-oob") < 0 || /<html[\s>]/i.test(text)) return text;
    var tpl = document.createElement("template");
    tpl.innerHTML = text;
    var dropped = false;
    tpl.content.querySelectorAll("[hx-swap-oob]").forEach(function (el) {
      if (!el.parentNode || el.parentNode !== tpl.content) return; // htmx reads top-level ones
      var how = el.getAttribute("hx-swap-oob");
      var cut = how.indexOf(":");
      var selector = cut > 0 ? how.slice(cut + 1) : el.id ? "#" + CSS.escape(el.id) : "";
      var missing = false;
      try {
        // A delete concerns what is on the page now; another swap may aim at what this response
        // brings.
        missing = selector !== "" && !document.querySelector(selector) && (how === "delete" ||
          !Array.prototype.some.call(tpl.content.querySelectorAll(selector), function (t) { return !t.hasAttribute("hx-swap-oob"); }));
      } catch (e) { missing = false; } // a selector the browser cannot read: leave it to htmx
      if (missing) {
        el.remove();
        dropped = true;
      }
    });
    return dropped ? tpl.innerHTML : text;
  }
});

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
