// The agents area's browser side. Copy buttons for the embed snippet ([data-copy-target] names
// the element whose value is copied), and the floating chat button, which opens a panel with the default agent's widget (an iframe of
// /embed/agent/{identifier}). The conversation lives on the server, so it survives navigation;
// the widget element is hx-preserve'd, so boosted navigation keeps the open panel and its iframe;
// a full reload reopens it from sessionStorage (a UI preference per tab, not the conversation).
(function () {
  "use strict";
  var KEY = "parley.widget.open";

  function panel() { return document.getElementById("chat-widget-panel"); }

  function setOpen(open) {
    var p = panel();
    var button = document.getElementById("chat-widget-button");
    if (!p || !button) return;
    if (open && !p.querySelector("iframe")) {
      var frame = document.createElement("iframe");
      frame.src = document.getElementById("chat-widget").getAttribute("data-embed-url");
      frame.title = button.getAttribute("aria-label");
      frame.className = "h-full w-full border-0";
      p.appendChild(frame);
    }
    p.classList.toggle("hidden", !open);
    button.setAttribute("aria-expanded", String(open));
    try { sessionStorage.setItem(KEY, open ? "1" : ""); } catch (e) { /* storage off: fine */ }
  }

  document.addEventListener("click", function (event) {
    if (event.target.closest("#chat-widget-button")) setOpen(panel().classList.contains("hidden"));
    var copy = event.target.closest("[data-copy-target]");
    if (copy && navigator.clipboard) {
      var source = document.getElementById(copy.getAttribute("data-copy-target"));
      navigator.clipboard.writeText(source.value || source.textContent).then(function () {
        copy.textContent = "Copied";
        setTimeout(function () { copy.textContent = "Copy"; }, 1500);
      });
    }
  });

  function restore() {
    var open = false;
    try { open = sessionStorage.getItem(KEY) === "1"; } catch (e) { /* ignore */ }
    if (open) setOpen(true);
  }
  document.addEventListener("DOMContentLoaded", restore);
})();
