// The page editor's browser side (SPEC.md §5): autosave with optimistic concurrency, the conflict
// choice, preview, the chat / revisions panels and their resizing, the page chat's history list,
// and the proposal panels' row selection. The server renders everything else.
(function () {
  "use strict";

  var SAVE_DELAY_MS = 800;

  function $(id) { return document.getElementById(id); }

  var RETRY_MAX_MS = 30000;

  // the open editor: {url, version, saved:{title, content}, timer, inflight, queued, conflict, retryMs}
  var state = null;

  // editor returns the open editor's state. Its "saved" baseline is the text the server sent
  // (the fields' default values), never what the fields hold by the time this first runs, so the
  // very first change is a change.
  function editor() {
    var root = $("page-editor");
    if (!root) { state = null; return null; }
    if (!state || state.root !== root) {
      state = {
        root: root,
        url: root.getAttribute("data-save-url"),
        version: parseInt(root.getAttribute("data-version"), 10),
        saved: { title: $("page-title").defaultValue, content: $("page-content").defaultValue },
        timer: null, inflight: null, queued: false, conflict: false, retryMs: 0
      };
    }
    return state;
  }

  // retryLater keeps the text and tries the save again, waiting twice as long each time (1 s up
  // to 30 s) until one goes through.
  function retryLater(s, why) {
    s.retryMs = Math.min(s.retryMs ? s.retryMs * 2 : 1000, RETRY_MAX_MS);
    setStatus(why + " Your text is kept here; retrying in " + Math.round(s.retryMs / 1000) + " s.");
    clearTimeout(s.timer);
    s.timer = setTimeout(save, s.retryMs);
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

  // editorSession names this open editor to the server, which folds autosaves into one revision
  // only when the same session wrote it (another tab's text always keeps its own revision).
  var editorSession = (function () {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    var b = new Uint8Array(16);
    crypto.getRandomValues(b);
    return Array.prototype.map.call(b, function (x) { return (x + 256).toString(16).slice(1); }).join("");
  })();

  // postSave posts one save: the text, the version it is based on and, when given, the text that
  // version had (base), which lets the server merge with changes made elsewhere.
  function postSave(s, sent, base) {
    var body = new FormData(); // multipart: no URL-encoding growth, so a page near the size limit fits
    body.append("title", sent.title);
    body.append("content", sent.content);
    body.append("version", String(s.version));
    body.append("editor", editorSession);
    if (base) {
      body.append("base_title", base.title);
      body.append("base", base.content);
    }
    return fetch(s.url, {
      method: "POST", body: body, credentials: "same-origin",
      headers: { "X-CSRF-Token": csrfToken(), "Accept": "application/json" }
    });
  }

  // applyMerged puts the server's merge of this editor's text with the newer saved one into the
  // editor, keeping the cursor's place, unless the writer typed on meanwhile: then the next save
  // merges again from the text this one sent.
  function applyMerged(s, sent, j) {
    var ta = $("page-content");
    if (ta.value !== sent.content || $("page-title").value !== sent.title) return false;
    var start = ta.selectionStart, end = ta.selectionEnd;
    ta.value = j.content;
    $("page-title").value = j.title;
    ta.setSelectionRange(Math.min(start, j.content.length), Math.min(end, j.content.length));
    s.saved = { title: j.title, content: j.content };
    s.version = j.version;
    return true;
  }

  // save sends the editor's text, based on the version it was loaded or last saved at. When that
  // version is no longer the newest, it sends again with its base text, and the server merges the
  // two when they changed different lines; only overlapping changes show the conflict view. It
  // resolves when the server holds the text (or refused it).
  function save() {
    var s = editor();
    if (!s) return Promise.resolve();
    clearTimeout(s.timer);
    if (s.inflight) { s.queued = true; return s.inflight; }
    if (s.conflict || !dirty(s)) return Promise.resolve();
    var sent = current();
    var base = s.saved;
    var conflictHTML = null;
    setStatus("Saving…");
    function answer(r) {
      if (r.ok) {
        return r.json().then(function (j) {
          s.retryMs = 0;
          if (j.merged && !applyMerged(s, sent, j)) {
            s.saved = sent; // typed on: the next save merges again, based on what was sent
          } else if (!j.merged) {
            s.version = j.version;
            s.saved = sent;
          }
          setStatus(dirty(s) ? "Unsaved changes" : j.merged ? "Saved: merged with changes made elsewhere" : "Saved");
          htmx.trigger(document.body, "parley:page-saved");
        });
      }
      if (r.status === 409) {
        return r.text().then(function (html) {
          if (conflictHTML === null) {
            conflictHTML = html;
            return postSave(s, sent, base).then(answer, function () { showConflict(s, conflictHTML); });
          }
          showConflict(s, html);
        });
      }
      if (conflictHTML !== null) { showConflict(s, conflictHTML); return; } // e.g. too large to merge
      var transient = r.status >= 500 || r.status === 429 || r.status === 408;
      return r.json().then(function (j) {
        return "Not saved: " + ((j.error && j.error.message) || r.statusText) + ".";
      }, function () { return "Not saved (" + r.status + ")."; }).then(function (why) {
        if (transient) { s.retry = true; return why; }
        setStatus(why + " Your text is kept here.");
      });
    }
    s.inflight = postSave(s, sent, null).then(answer, function () {
      s.retry = true;
      return "Offline: not saved yet.";
    }).then(function (why) {
      s.inflight = null;
      if (s.retry) { s.retry = false; s.queued = false; retryLater(s, why); return; }
      if (s.queued) { s.queued = false; if (dirty(s)) schedule(); }
      syncFromServer();
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
      keepDiscardedCopy(current());
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

  // keepDiscardedCopy offers the text "Use the saved version" replaced as a download beside the
  // save status, so that choosing the saved version never loses typing.
  function keepDiscardedCopy(text) {
    var link = $("discarded-copy");
    if (!link) {
      link = document.createElement("a");
      link.id = "discarded-copy";
      link.setAttribute("data-testid", "discarded-copy");
      link.className = "ml-2 underline";
      $("save-status").insertAdjacentElement("afterend", link);
    }
    link.href = "data:text/markdown;charset=utf-8," + encodeURIComponent(text.content);
    link.download = (text.title || "page") + " (discarded typing).md";
    link.textContent = "Download your discarded typing";
  }

  // changedSpan is where texts a and b differ: a[start:oldEnd] became b[start:newEnd] (they share
  // what is before start and after the ends).
  function changedSpan(a, b) {
    var start = 0, n = Math.min(a.length, b.length);
    while (start < n && a.charCodeAt(start) === b.charCodeAt(start)) start++;
    var tail = 0;
    while (tail < n - start && a.charCodeAt(a.length - 1 - tail) === b.charCodeAt(b.length - 1 - tail)) tail++;
    return { start: start, oldEnd: a.length - tail, newEnd: b.length - tail };
  }

  // mapOffset maps a position in the old text to the new one: before the change it stays, after
  // it moves by the change's growth, inside it goes to the end of the new text.
  function mapOffset(pos, c) {
    if (pos <= c.start) return pos;
    if (pos >= c.oldEnd) return pos + (c.newEnd - c.oldEnd);
    return c.newEnd;
  }

  // replaceText puts content in the textarea with the cursor and selection mapped through the
  // change (so they stay on the same text) and the scroll kept; with mark, it then scrolls the
  // change into view and marks it briefly.
  function replaceText(ta, content, mark) {
    var old = ta.value;
    if (old === content) return;
    var c = changedSpan(old, content);
    var start = mapOffset(ta.selectionStart, c), end = mapOffset(ta.selectionEnd, c), dir = ta.selectionDirection;
    var scroll = ta.scrollTop;
    ta.value = content;
    ta.setSelectionRange(start, end, dir);
    ta.scrollTop = scroll;
    if (mark && ta.offsetParent !== null) markChange(ta, c.start, c.newEnd);
  }

  // textBox returns the top and bottom (px, from the top of the textarea's content) of the text
  // from..to as the textarea lays it out, measured in a hidden copy with the same box and font.
  function textBox(ta, from, to) {
    var cs = getComputedStyle(ta);
    var mirror = document.createElement("div");
    ["fontFamily", "fontSize", "fontWeight", "lineHeight", "letterSpacing", "tabSize", "paddingTop", "paddingRight",
      "paddingBottom", "paddingLeft", "wordBreak", "overflowWrap"].forEach(function (k) { mirror.style[k] = cs[k]; });
    mirror.style.cssText += ";position:absolute;visibility:hidden;top:0;left:-10000px;box-sizing:border-box;white-space:pre-wrap;border:0";
    mirror.style.width = ta.clientWidth + "px";
    mirror.appendChild(document.createTextNode(ta.value.slice(0, from)));
    var span = document.createElement("span");
    span.textContent = ta.value.slice(from, to) || "\u200b";
    mirror.appendChild(span);
    document.body.appendChild(mirror);
    // An inline box is as high as the font, centred in its line: widen it by the half-leading so
    // the box covers whole lines.
    var line = parseFloat(cs.lineHeight) || 20;
    var rects = span.getClientRects();
    var half = rects.length ? Math.max((line - rects[0].height) / 2, 0) : 0;
    var box = { top: span.offsetTop - half, bottom: span.offsetTop + span.offsetHeight + half };
    mirror.remove();
    return box;
  }

  // markChange scrolls the textarea so the text from..to is in view (a third of the way down when
  // it was not) and lays a fading tint over its lines (#change-mark), gone after 2.5 s or when
  // the writer scrolls.
  function markChange(ta, from, to) {
    var box = textBox(ta, from, to);
    var view = ta.clientHeight;
    if (box.top < ta.scrollTop || box.bottom > ta.scrollTop + view) ta.scrollTop = Math.max(0, box.top - view / 3);
    var old = $("change-mark");
    if (old) old.remove();
    var el = document.createElement("div");
    el.id = "change-mark";
    el.className = "change-mark";
    el.setAttribute("data-testid", "change-mark");
    el.setAttribute("aria-hidden", "true");
    var top = Math.max(box.top - ta.scrollTop, 0), bottom = Math.min(box.bottom - ta.scrollTop, view);
    el.style.top = (ta.offsetTop + top) + "px";
    el.style.left = ta.offsetLeft + "px";
    el.style.width = ta.clientWidth + "px";
    el.style.height = Math.max(bottom - top, 4) + "px";
    ta.parentElement.appendChild(el);
    var at = ta.scrollTop;
    var gone = function () { el.remove(); ta.removeEventListener("scroll", moved); };
    var moved = function () { if (Math.abs(ta.scrollTop - at) > 2) gone(); }; // not our own scroll
    ta.addEventListener("scroll", moved);
    setTimeout(gone, 2500);
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
    replaceText($("page-content"), content, true);
    $("page-title").value = title;
    s.saved = { title: title, content: content };
    setStatus("Saved");
    if (!$("page-preview").classList.contains("hidden")) preview(true);
    htmx.trigger(document.body, "parley:page-saved");
  }

  // Other tabs and devices: the page's event stream says when the page was stored at a newer
  // version (on connect too, so a reconnect catches up); the editor then reads it from /sync.
  // With no unsaved text the editor takes the new text in place (cursor and scroll kept); with
  // unsaved text it saves now, which merges the two or shows the conflict view. A version
  // announced while a save, a sync or this editor's own decision (Accept, Undo, Restore) is in
  // flight is read once that ends: the decision's answer brings the text itself (#page-sync),
  // and applySync scrolls to and marks the change, which it cannot do once the text is in.
  function syncFromServer() {
    var s = editor();
    if (!s || s.inflight || s.conflict || s.syncing || deciding.size || !(s.announced > s.version)) return;
    s.syncing = true;
    var asked = s.version;
    fetch(s.root.getAttribute("data-sync-url") + "?version=" + asked, {
      credentials: "same-origin", headers: { "Accept": "application/json" }
    }).then(function (r) {
      if (r.status !== 200) return;
      return r.json().then(function (j) {
        if (s !== state || s.inflight || s.conflict || deciding.size || s.version !== asked || j.version <= s.version) return;
        if (dirty(s)) { save(); return; }
        replaceText($("page-content"), j.content, false);
        $("page-title").value = j.title;
        s.saved = { title: j.title, content: j.content };
        s.version = j.version;
        setStatus("Updated: changed elsewhere");
        if (!$("page-preview").classList.contains("hidden")) preview(true);
        htmx.trigger(document.body, "parley:page-saved");
      });
    }).catch(function () { /* offline: the stream's reconnect announces the version again */ }).then(function () {
      s.syncing = false;
      syncFromServer();
    });
  }

  // deciding holds the requests of this editor's decisions ([data-needs-save]: Accept, Undo,
  // Restore) still in flight; once one ends (its answer swapped in, or failed) a version the
  // stream announced meanwhile is read, if the answer did not bring it.
  var deciding = new Set();
  document.addEventListener("htmx:beforeSend", function (event) { // only a request really sent ends
    var elt = event.detail.elt, xhr = event.detail.xhr;
    if (!xhr || !elt.closest || !elt.closest("[data-needs-save]") || !$("page-editor")) return;
    deciding.add(xhr);
    xhr.addEventListener("loadend", function () { // after htmx's onload has swapped the answer
      deciding.delete(xhr);
      syncFromServer();
    });
  });

  // listenForChanges keeps the open editor's event stream; a stream the server refused (or that
  // the browser gave up on) is opened again after a while.
  var events = null;
  function listenForChanges() {
    var root = $("page-editor");
    var url = root && root.getAttribute("data-events-url");
    if (events && (!url || events.url !== new URL(url, location.href).href)) { events.close(); events = null; }
    if (!url || events) return;
    var es = new EventSource(url);
    events = es;
    es.addEventListener("page-changed", function (event) {
      var s = editor();
      if (!s || events !== es) return;
      s.announced = Math.max(s.announced || 0, parseInt(event.data, 10) || 0);
      syncFromServer();
    });
    es.onerror = function () {
      if (es.readyState !== EventSource.CLOSED || events !== es) return;
      events = null;
      setTimeout(listenForChanges, 5000);
    };
  }
  document.addEventListener("DOMContentLoaded", listenForChanges);
  document.addEventListener("htmx:load", listenForChanges);

  // The address names the page chat on screen (?chat=id), so a reload reopens the one being read
  // rather than the most recently active one.
  function rememberChat() {
    var pane = $("chat-pane");
    if (!$("page-editor") || !pane) return;
    var id = pane.getAttribute("data-exchange-id");
    var url = new URL(location.href);
    if (id && id !== "0") url.searchParams.set("chat", id); else url.searchParams.delete("chat");
    if (url.href !== location.href) history.replaceState(history.state, "", url.href);
  }
  document.addEventListener("DOMContentLoaded", rememberChat);
  document.addEventListener("htmx:load", rememberChat);

  // Take the baseline as soon as an editor is on screen.
  document.addEventListener("DOMContentLoaded", editor);
  document.addEventListener("htmx:load", function () { editor(); });

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

  // The new #page-sync is applied as soon as it is swapped in (htmx fires oobAfterSwap on the new
  // element; detail.target is the old one, already gone), within the decision's answer, so before
  // the decision counts as ended; htmx:load (at settle, ~20 ms on) catches any other arrival.
  document.addEventListener("htmx:oobAfterSwap", function (event) { applySync(event.target); });
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
    if (event.target.name === "compare" && event.target.closest("#revision-list")) updateCompare();
  });

  // The revisions panel: Compare works with exactly two rows ticked.
  function updateCompare() {
    var btn = document.querySelector("[data-compare-revisions]");
    if (btn) btn.disabled = document.querySelectorAll("#revision-list input[name=compare]:checked").length !== 2;
  }

  // selectRevision marks the row whose diff opens under it (one at a time) and closes the others;
  // it reports false when the row was open, which then closes instead.
  function selectRevision(button) {
    var li = button.closest("li[data-revision]");
    var open = li.getAttribute("aria-current") === "true";
    document.querySelectorAll("#revision-list li[data-revision]").forEach(function (other) {
      other.removeAttribute("aria-current");
      other.querySelector("[data-revision-detail]").innerHTML = "";
      other.querySelector("[data-revision-row]").setAttribute("aria-expanded", "false");
    });
    if (open) return false;
    li.setAttribute("aria-current", "true");
    button.setAttribute("aria-expanded", "true");
    return true;
  }

  // ↑ / ↓ (Home / End) move between the revision rows; Enter or Space opens one (a button).
  document.addEventListener("keydown", function (event) {
    var row = event.target.closest && event.target.closest("[data-revision-row]");
    if (!row) return;
    var rows = Array.prototype.slice.call(document.querySelectorAll("#revision-list [data-revision-row]"));
    var i = rows.indexOf(row);
    switch (event.key) {
      case "ArrowDown": i = Math.min(i + 1, rows.length - 1); break;
      case "ArrowUp": i = Math.max(i - 1, 0); break;
      case "Home": i = 0; break;
      case "End": i = rows.length - 1; break;
      default: return;
    }
    event.preventDefault();
    rows[i].focus();
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    var t = event.detail.target;
    if (t && t.matches && t.matches("[data-revision-detail], #revision-compare")) t.scrollIntoView({ block: "nearest" });
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
    var revision = t.closest("[data-revision-row]");
    if (revision && !selectRevision(revision)) {
      event.preventDefault();
      event.stopPropagation(); // an open row closes: no request
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

  // Drag the handle to resize the side panel (between 18rem and 75% of the width), or focus it
  // and use the arrow keys (Home / End for the narrowest / widest). The width is stored with the
  // person's account (POST /preferences/page-side-width), so every browser of theirs opens the
  // editor with it; the handle's aria-valuenow says it in pixels.
  var keepTimer = null;
  function setSideWidth(width, keep) {
    var root = $("page-editor").getBoundingClientRect();
    var max = Math.max(288, root.width * 0.75);
    width = Math.round(Math.max(288, Math.min(width, max)));
    $("side-panel").style.width = width + "px";
    var handle = $("split-handle");
    handle.setAttribute("aria-valuemin", "288");
    handle.setAttribute("aria-valuemax", String(Math.round(max)));
    handle.setAttribute("aria-valuenow", String(width));
    if (!keep) return;
    $("side-panel").setAttribute("data-side-width", String(width));
    clearTimeout(keepTimer); // a run of key presses or a drag stores its last width once
    keepTimer = setTimeout(function () {
      htmx.ajax("POST", "/preferences/page-side-width", { values: { width: String(width) }, swap: "none", source: handle });
    }, 300);
  }
  function restoreSideWidth() {
    var side = $("side-panel");
    if (!$("page-editor") || !side || phone()) return; // on a phone the panel covers the editor
    var kept = parseInt(side.getAttribute("data-side-width") || "", 10);
    setSideWidth(kept > 0 ? kept : side.getBoundingClientRect().width, false);
  }
  restoreSideWidth();
  document.addEventListener("htmx:load", function (event) {
    if (event.target.querySelector && event.target.querySelector("#side-panel")) restoreSideWidth();
  });
  document.addEventListener("keydown", function (event) {
    if (event.target.id !== "split-handle") return;
    var width = $("side-panel").getBoundingClientRect().width;
    var step = event.shiftKey ? 96 : 32;
    switch (event.key) {
      case "ArrowLeft": width += step; break; // the panel is on the right: the handle moves left
      case "ArrowRight": width -= step; break;
      case "Home": width = 0; break;
      case "End": width = Infinity; break;
      default: return;
    }
    event.preventDefault();
    setSideWidth(width, true);
  });
  var drag = null;
  document.addEventListener("pointerdown", function (event) {
    if (event.target.id !== "split-handle") return;
    drag = { root: $("page-editor").getBoundingClientRect() };
    event.target.setPointerCapture(event.pointerId);
    event.preventDefault();
  });
  document.addEventListener("pointermove", function (event) {
    if (!drag) return;
    setSideWidth(drag.root.right - event.clientX, false);
  });
  document.addEventListener("pointerup", function () {
    if (drag) setSideWidth($("side-panel").getBoundingClientRect().width, true);
    drag = null;
  });
})();
