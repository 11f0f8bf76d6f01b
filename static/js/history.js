// The history sidebar's browser side: select mode, Escape to cancel a rename, the Undo toast's
// timeout, hiding the list while search results show, loading older messages without losing the
// reading position, and copying a whole conversation. The server renders everything else.
(function () {
  "use strict";

  function $(id) { return document.getElementById(id); }

  document.addEventListener("click", function (event) {
    var select = event.target.closest("[data-history-select]");
    if (select) {
      var history = $("history");
      var on = history.getAttribute("data-select") !== "true";
      history.setAttribute("data-select", String(on));
      if (!on) history.querySelectorAll(".history-check").forEach(function (c) { c.checked = false; });
    }
    var copy = event.target.closest("[data-copy-conversation]");
    if (copy) copyConversation(copy);
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    var form = event.target.closest && event.target.closest("[data-rename-form]");
    if (form) form.querySelector("[data-rename-cancel]").click();
  });

  // The Undo toast stays for ten seconds after it (re)appears.
  var undoTimer = null;
  function armUndo() {
    var toast = $("undo-toast");
    if (!toast || toast.classList.contains("hidden")) return;
    clearTimeout(undoTimer);
    undoTimer = setTimeout(function () {
      toast.classList.add("hidden");
      toast.classList.remove("flex");
    }, 10000);
  }

  // Search results replace the list while the box holds a query.
  function syncSearch() {
    var box = $("history-search");
    var browse = $("history-browse");
    if (!box || !browse) return;
    var searching = box.value.trim() !== "";
    browse.classList.toggle("hidden", searching);
    var results = $("history-results");
    if (!searching && results) results.innerHTML = "";
  }
  document.addEventListener("input", function (event) {
    if (event.target.id === "history-search") syncSearch();
  });

  // Older messages are inserted above the ones being read: keep the reading position.
  var keep = null;
  document.addEventListener("htmx:beforeSwap", function (event) {
    if (event.detail.target && event.detail.target.hasAttribute("data-older-messages")) {
      var list = $("messages");
      keep = list ? list.scrollHeight - list.scrollTop : null;
    }
  });
  document.addEventListener("htmx:afterSettle", function () {
    if (keep === null) return;
    var list = $("messages");
    if (list) list.scrollTop = list.scrollHeight - keep;
    keep = null;
  });

  // Opening a conversation from the sidebar is a boosted navigation that swaps the whole body: the
  // new sidebar keeps the old one's scroll, and the open conversation's item is scrolled into view
  // (only as far as needed). A full page load shows that item too.
  var sidebarTop = null;
  document.addEventListener("htmx:beforeSwap", function (event) {
    var list = $("history-list");
    sidebarTop = list && event.detail.target === document.body ? list.scrollTop : null;
  });
  function showCurrent() {
    var list = $("history-list");
    if (!list) return;
    if (sidebarTop !== null) list.scrollTop = sidebarTop;
    sidebarTop = null;
    var current = list.querySelector("[aria-current=page]");
    if (!current) return;
    var item = current.getBoundingClientRect();
    var box = list.getBoundingClientRect();
    if (item.top < box.top) list.scrollTop -= box.top - item.top;
    else if (item.bottom > box.bottom) list.scrollTop += item.bottom - box.bottom;
  }
  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.detail.target === document.body) showCurrent();
  });

  // Copy the whole conversation (its Markdown export) to the clipboard: with ClipboardItem (the
  // write starts within the click, as Safari needs), else navigator.clipboard.writeText, else a
  // selected textarea and execCommand("copy"). The label says how it went, then reads Copy all.
  function copyConversation(button) {
    var text = fetch(button.getAttribute("data-copy-conversation"), { credentials: "same-origin" })
      .then(function (r) {
        if (!r.ok) throw new Error("export failed");
        return r.text();
      });
    var copied;
    if (navigator.clipboard && window.ClipboardItem) {
      var blob = text.then(function (t) { return new Blob([t], { type: "text/plain" }); });
      copied = navigator.clipboard.write([new ClipboardItem({ "text/plain": blob })])
        .then(function () { return true; }, function () { return text.then(writeText); });
    } else {
      copied = text.then(writeText);
    }
    copied.then(function (ok) { copyDone(button, ok); }, function () { copyDone(button, false); });
  }

  function writeText(t) {
    if (navigator.clipboard && navigator.clipboard.writeText) {
      return navigator.clipboard.writeText(t).then(function () { return true; }, function () { return execCopy(t); });
    }
    return execCopy(t);
  }

  function execCopy(t) {
    var area = document.createElement("textarea");
    area.value = t;
    area.setAttribute("readonly", "");
    area.className = "fixed left-0 top-0 h-px w-px opacity-0";
    document.body.appendChild(area);
    area.focus();
    area.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    area.remove();
    return ok;
  }

  function copyDone(button, ok) {
    button.textContent = ok ? "Copied" : "Copy failed";
    setTimeout(function () { button.textContent = "Copy all"; }, ok ? 1500 : 3000);
  }

  document.addEventListener("htmx:load", function () { armUndo(); });
  document.addEventListener("htmx:oobAfterSwap", function (event) {
    if (event.target.id === "undo-toast") armUndo();
  });
  document.addEventListener("DOMContentLoaded", function () { armUndo(); syncSearch(); showCurrent(); });
})();
