// The page editor's browser side (SPEC.md §5): autosave with optimistic concurrency, the conflict
// choice, preview, the chat / revisions panels and their resizing, the page chat's history list,
// and the proposal panels' row selection. The server renders everything else.
(function () {
  "use strict";

  var SAVE_DELAY_MS = 800;

  function $(id) { return document.getElementById(id); }

  var state = null; // the open editor: {url, version, saved:{title, content}, timer, inflight, queued, conflict}

  function editor() {
    var root = $("page-editor");
    if (!root) { state = null; return null; }
    if (!state || state.root !== root) {
      state = {
        root: root,
        url: root.getAttribute("data-save-url"),
        version: parseInt(root.getAttribute("data-version"), 10),
        saved: { title: $("page-title").value, content: $("page-content").value },
        timer: null, inflight: null, queued: false, conflict: false
      };
    }
    return state;
  }

  function current() { return { title: $("page-title").value, content: $("page-content").value }; }

  function dirty(s) {
    var c = current();
    return c.title.trim() !== s.saved.title.trim() || c.content !== s.saved.content;
  }

  function setStatus(text) {
    var el = $("save-status");
    if (el) el.textContent = text;
  }

  function csrfToken() {
    try { return JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRF-Token"]; } catch (e) { return ""; }
  }

  function schedule() {
    var s = editor();
    if (!s) return;
    clearTimeout(s.timer);
    setStatus(s.conflict ? "Not saved: resolve the conflict" : "Unsaved changes");
    if (!s.conflict) s.timer = setTimeout(save, SAVE_DELAY_MS);
  }

  // save sends the editor's text, based on the version it was loaded or last saved at. It resolves
  // when the server holds the text (or refused it).
  function save() {
    var s = editor();
    if (!s) return Promise.resolve();
    clearTimeout(s.timer);
    if (s.inflight) { s.queued = true; return s.inflight; }
    if (s.conflict || !dirty(s)) return Promise.resolve();
    var sent = current();
    var body = new FormData(); // multipart: no URL-encoding growth, so a page near the size limit fits
    body.append("title", sent.title);
    body.append("content", sent.content);
    body.append("version", String(s.version));
    setStatus("Saving…");
    s.inflight = fetch(s.url, {
      method: "POST", body: body, credentials: "same-origin",
      headers: { "X-CSRF-Token": csrfToken(), "Accept": "application/json" }
    }).then(function (r) {
      if (r.ok) {
        return r.json().then(function (j) {
          s.version = j.version;
          s.saved = sent;
          setStatus(dirty(s) ? "Unsaved changes" : "Saved");
          htmx.trigger(document.body, "parley:page-saved");
        });
      }
      if (r.status === 409) {
        return r.text().then(function (html) { showConflict(s, html); });
      }
      return r.json().then(function (j) {
        setStatus("Not saved: " + ((j.error && j.error.message) || r.statusText));
      }, function () { setStatus("Not saved (" + r.status + ")"); });
    }, function () {
      setStatus("Offline: not saved yet. Your text is kept here.");
    }).then(function () {
      s.inflight = null;
      if (s.queued) { s.queued = false; if (dirty(s)) schedule(); }
    });
    return s.inflight;
  }

  function showConflict(s, html) {
    s.conflict = true;
    var box = $("page-conflict");
    box.innerHTML = html; // server-rendered, escaped text only
    box.classList.remove("hidden");
    setStatus("Not saved: changed elsewhere");
  }

  function resolveConflict(action) {
    var s = editor();
    var box = $("page-conflict");
    var panel = box.querySelector("[data-server-version]");
    if (!s || !panel) return;
    s.version = parseInt(panel.getAttribute("data-server-version"), 10);
    if (action === "use-saved") {
      var content = panel.querySelector("[data-conflict-content]").value;
      var title = panel.querySelector("[data-conflict-title]").value;
      $("page-content").value = content;
      $("page-title").value = title;
      s.saved = { title: title, content: content };
    }
    s.conflict = false;
    box.innerHTML = "";
    box.classList.add("hidden");
    if (action === "keep-mine") save(); else setStatus("Saved");
    htmx.trigger(document.body, "parley:page-saved");
  }

  // A change made on the server (accepted proposal, undo, restore) arrives as #page-sync.
  function applySync(el) {
    if (!el || el.id !== "page-sync" || el.getAttribute("data-fresh") !== "true") return;
    el.removeAttribute("data-fresh");
    var s = editor();
    if (!s) return;
    var content = el.querySelector("[data-sync-content]").value;
    var title = el.querySelector("[data-sync-title]").value;
    s.version = parseInt(el.getAttribute("data-version"), 10);
    $("page-content").value = content;
    $("page-title").value = title;
    s.saved = { title: title, content: content };
    setStatus("Saved");
    if (!$("page-preview").classList.contains("hidden")) preview(true);
    htmx.trigger(document.body, "parley:page-saved");
  }

  document.addEventListener("input", function (event) {
    if (event.target.id === "page-content" || event.target.id === "page-title") schedule();
  });

  // Actions that change the page on the server first get the editor's text saved. A proposal's
  // form then carries the version that save made, when the form showed the version the save was
  // based on (the page then changed only by this editor's typing, which the server re-checks: a
  // patch the typing touched answers 409 with the new diff). While the decision is in flight the
  // form does not refresh itself, so the answer lands in the form on screen.
  document.addEventListener("htmx:confirm", function (event) {
    var elt = event.detail.elt;
    if (elt.matches && elt.matches("form[data-proposal][data-deciding]") && event.detail.verb === "get") {
      event.preventDefault();
      return;
    }
    var s = editor();
    if (!s || !elt.closest("[data-needs-save]")) return;
    if (!s.inflight && !dirty(s)) return;
    event.preventDefault();
    var form = elt.closest("form[data-proposal]");
    var field = form && form.querySelector("input[name=version]");
    if (form) form.setAttribute("data-deciding", "");
    var before = s.version;
    (s.inflight || Promise.resolve()).then(save).then(function () {
      if (field && parseInt(field.value, 10) === before) field.value = String(s.version);
      if (s.conflict) { if (form) form.removeAttribute("data-deciding"); return; }
      event.detail.issueRequest(true);
    });
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    var form = event.detail.elt.closest && event.detail.elt.closest("form[data-proposal][data-deciding]");
    if (form) form.removeAttribute("data-deciding");
  });

  document.addEventListener("htmx:oobAfterSwap", function (event) { applySync(event.detail.target || event.target); });
  document.addEventListener("htmx:load", function (event) {
    var el = event.target;
    if (el.id === "page-sync") applySync(el);
    else if (el.querySelector) applySync(el.querySelector("#page-sync[data-fresh=true]"));
  });

  window.addEventListener("beforeunload", function (event) {
    var s = editor();
    if (s && (dirty(s) || s.inflight)) {
      save();
      event.preventDefault();
      event.returnValue = "";
    }
  });

  function preview(on) {
    var box = $("page-preview");
    var text = $("page-content");
    var btn = $("preview-toggle");
    btn.setAttribute("aria-pressed", String(on));
    box.classList.toggle("hidden", !on);
    text.classList.toggle("hidden", on);
    if (!on) return;
    var body = new FormData();
    body.append("content", text.value);
    fetch($("page-editor").getAttribute("data-preview-url"), {
      method: "POST", body: body, credentials: "same-origin", headers: { "X-CSRF-Token": csrfToken() }
    }).then(function (r) { return r.text(); }).then(function (html) { box.innerHTML = html; }); // sanitised on the server
  }

  // phone is true below the md breakpoint, where the side panel covers the editor (input.css).
  function phone() { return window.matchMedia("(max-width: 767px)").matches; }

  // panelOpen reports whether the side panel shows which ("chat" or "revisions") on screen.
  function panelOpen(which) {
    var side = $("side-panel");
    if (phone() && !side.hasAttribute("data-mobile-open")) return false;
    return $(which + "-toggle").getAttribute("aria-pressed") === "true";
  }

  // The side panel shows the chat or the revisions (opening one closes the other), or nothing. On
  // a phone it opens over the editor.
  function showPanel(which) {
    var side = $("side-panel");
    side.toggleAttribute("data-mobile-open", which !== "none");
    side.setAttribute("data-panel", which);
    side.classList.toggle("hidden", which === "none");
    side.classList.toggle("flex", which !== "none");
    $("split-handle").classList.toggle("md:block", which !== "none");
    $("page-chat-panel").classList.toggle("hidden", which !== "chat");
    $("page-chat-panel").classList.toggle("flex", which === "chat");
    var rev = $("revisions-panel");
    rev.classList.toggle("hidden", which !== "revisions");
    rev.classList.toggle("flex", which === "revisions");
    $("chat-toggle").setAttribute("aria-pressed", String(which === "chat"));
    var rt = $("revisions-toggle");
    rt.setAttribute("aria-pressed", String(which === "revisions"));
    if (which === "revisions") htmx.ajax("GET", rt.getAttribute("data-url"), { target: "#revisions-panel", swap: "innerHTML" });
  }

  function updateApplyCount(form) {
    var n = form.querySelectorAll("input[name=row]:checked").length;
    var count = form.querySelector("[data-selected-count]");
    if (count) count.textContent = String(n);
    var apply = form.querySelector("[data-apply]");
    if (apply) {
      apply.textContent = "Apply (" + n + ")";
      apply.disabled = n === 0;
    }
  }

  document.addEventListener("change", function (event) {
    var form = event.target.closest("form[data-proposal]");
    if (form && event.target.name === "row") updateApplyCount(form);
  });

  document.addEventListener("click", function (event) {
    var t = event.target;
    if (t.closest("#preview-toggle")) {
      preview($("preview-toggle").getAttribute("aria-pressed") !== "true");
    } else if (t.closest("#chat-toggle")) {
      showPanel(panelOpen("chat") ? "none" : "chat");
    } else if (t.closest("#revisions-toggle")) {
      showPanel(panelOpen("revisions") ? "none" : "revisions");
    } else if (t.closest("[data-close-panel]")) {
      showPanel("none");
    } else if (t.closest("#page-history-toggle")) {
      var list = $("page-chat-history");
      var open = list.classList.contains("hidden");
      list.classList.toggle("hidden", !open);
      list.classList.toggle("flex", open);
      t.closest("#page-history-toggle").setAttribute("aria-pressed", String(open));
    } else if (t.closest("[data-close-history]")) {
      var l = $("page-chat-history");
      l.classList.add("hidden");
      l.classList.remove("flex");
    }
    var conflict = t.closest("[data-conflict]");
    if (conflict) resolveConflict(conflict.getAttribute("data-conflict"));
    var rows = t.closest("[data-rows]");
    if (rows) {
      var form = rows.closest("form[data-proposal]");
      var all = rows.getAttribute("data-rows") === "all";
      form.querySelectorAll("input[name=row]").forEach(function (cb) { cb.checked = all; });
      updateApplyCount(form);
    }
    var confirmBtn = t.closest("button[data-confirm]");
    if (confirmBtn && !window.confirm(confirmBtn.getAttribute("data-confirm"))) {
      event.preventDefault();
      event.stopPropagation();
    }
  }, true);

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form.hasAttribute("data-confirm") && !window.confirm(form.getAttribute("data-confirm"))) {
      event.preventDefault();
      event.stopPropagation(); // before htmx's boosted submit sees it
    }
  }, true);

  // After deleting page chats: if the open conversation went, start a new one.
  document.body.addEventListener("parley:page-chats-deleted", function () {
    var pane = $("chat-pane");
    var page = $("page-editor");
    if (!pane || !page) return;
    var id = pane.getAttribute("data-exchange-id");
    if (id !== "0" && !document.querySelector("[data-page-chat='" + id + "']")) {
      htmx.ajax("GET", "/pages/" + page.getAttribute("data-page-id") + "/chats/new", { target: "#chat-pane", swap: "outerHTML" });
    }
  });

  // Drag the handle to resize the side panel (between 18rem and 75% of the width).
  var drag = null;
  document.addEventListener("pointerdown", function (event) {
    if (event.target.id !== "split-handle") return;
    drag = { root: $("page-editor").getBoundingClientRect() };
    event.target.setPointerCapture(event.pointerId);
    event.preventDefault();
  });
  document.addEventListener("pointermove", function (event) {
    if (!drag) return;
    var width = drag.root.right - event.clientX;
    width = Math.max(288, Math.min(width, drag.root.width * 0.75));
    $("side-panel").style.width = width + "px";
    event.target.setAttribute("aria-valuenow", String(Math.round(100 * width / drag.root.width))); // the panel's share, %
  });
  document.addEventListener("pointerup", function () { drag = null; });
})();
