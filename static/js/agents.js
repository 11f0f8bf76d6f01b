// The agents area's browser side. The team member sidebar's phone toggle, copy buttons for the embed snippet ([data-copy-target] names
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

  // The team's member sidebar on a phone: #team-toggle opens it as an overlay; picking a member or a
  // tap beside it closes it.
  function toggleTeam(event) {
    var side = document.getElementById("team-members");
    if (!side) return;
    var open = side.getAttribute("data-state") === "open";
    if (event.target.closest("#team-toggle")) open = !open;
    else if (open && (!side.contains(event.target) || event.target.matches("input[name=select_agent]"))) open = false;
    else return;
    side.setAttribute("data-state", open ? "open" : "closed");
    var button = document.getElementById("team-toggle");
    if (button) button.setAttribute("aria-expanded", String(open));
  }

  document.addEventListener("click", function (event) {
    toggleTeam(event);
    if (event.target.closest("#chat-widget-button")) setOpen(panel().classList.contains("hidden"));
    var copy = event.target.closest("[data-copy-target]");
    if (copy) {
      var source = document.getElementById(copy.getAttribute("data-copy-target"));
      Parley.copyText(copy, source.value || source.textContent);
    }
  });

  function restore() {
    var open = false;
    try { open = sessionStorage.getItem(KEY) === "1"; } catch (e) { /* ignore */ }
    if (open) setOpen(true);
  }
  document.addEventListener("DOMContentLoaded", restore);
})();
