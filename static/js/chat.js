// The chat page's browser side: sending with Enter, the composer's busy state, the connection
// state of the conversation's SSE stream with reconnects (1, 2, 4, 8, 16 s, then a button), the
// Tools toggle, copy buttons and local times. The server renders everything else.
(function () {
  "use strict";

  // The stream's own "error" events (a failed answer: Gnosari's event name) reach EventSource's
  // onerror too, and htmx-ext-sse would log each as a console error and count it as a lost
  // connection. This EventSource hands onerror only real connection errors; sse-swap still renders
  // the "error" messages.
  htmx.createEventSource = function (url) {
    var source = new EventSource(url, { withCredentials: true });
    var onerror = null;
    source.addEventListener("error", function (event) {
      if (!(event instanceof MessageEvent) && onerror) onerror.call(source, event);
    });
    Object.defineProperty(source, "onerror", {
      get: function () { return onerror; },
      set: function (fn) { onerror = fn; }
    });
    return source;
  };

  var BACKOFF_SECONDS = [1, 2, 4, 8, 16];
  var attempt = 0;
  var retryTimer = null;
  var streamTemplate = null; // a clean copy of #chat-stream, to connect again after a failure

  function $(id) { return document.getElementById(id); }

  function setState(state, text) {
    var dot = $("conn-dot");
    if (dot) dot.setAttribute("data-state", state);
    var banner = $("conn-banner");
    if (!banner) return;
    var lost = state === "reconnecting" || state === "disconnected";
    banner.classList.toggle("hidden", !lost);
    banner.classList.toggle("flex", lost);
    if (text) $("conn-banner-text").textContent = text;
    $("conn-reconnect").classList.toggle("hidden", state !== "disconnected");
  }

  function connect() {
    var pane = $("chat-pane");
    if (!pane || !streamTemplate || $("chat-stream")) return;
    var fresh = streamTemplate.cloneNode(false);
    pane.insertBefore(fresh, $("chat-status"));
    setState(attempt > 0 ? "reconnecting" : "connecting");
    htmx.process(fresh);
  }

  function scheduleReconnect() {
    if (retryTimer) return;
    if (attempt >= BACKOFF_SECONDS.length) {
      setState("disconnected", "Connection lost. Nothing you type is lost; reconnect when you are back online.");
      return;
    }
    var delay = BACKOFF_SECONDS[attempt];
    attempt++;
    setState("reconnecting", "Connection lost. Reconnecting in " + delay + " s…");
    retryTimer = setTimeout(function () { retryTimer = null; connect(); }, delay * 1000);
  }

  document.addEventListener("htmx:sseOpen", function () {
    attempt = 0;
    setState("connected");
  });

  // On an error, take the stream element out of the page: the SSE extension then closes its
  // EventSource instead of retrying on its own schedule, and we reconnect with ours.
  document.addEventListener("htmx:sseError", function (event) {
    var elt = event.target;
    if (!elt || elt.id !== "chat-stream") return;
    elt.remove();
    scheduleReconnect();
  });

  document.addEventListener("click", function (event) {
    if (event.target.closest("#conn-reconnect")) {
      attempt = 0;
      clearTimeout(retryTimer);
      retryTimer = null;
      connect();
    }
    var history = $("history");
    if (history && event.target.closest("#history-toggle")) {
      history.setAttribute("data-state", getComputedStyle(history).display === "none" ? "open" : "closed");
    } else if (history && getComputedStyle(history).position === "fixed" && !history.contains(event.target)) {
      history.setAttribute("data-state", "closed"); // a tap beside the phone overlay closes it
    }
    var toggle = event.target.closest("#tools-toggle");
    if (toggle) toggleTools(toggle);
    var copy = event.target.closest("[data-copy-message]");
    if (copy) copyMessage(copy);
    var more = event.target.closest("[data-continue]");
    if (more) continueAnswer();
    var copyCode = event.target.closest("[data-copy-code]");
    if (copyCode) Parley.copyText(copyCode, codeText(copyCode.closest(".code-block")));
  });

  // continueAnswer asks for the rest of an answer cut off at the token limit, through the composer.
  function continueAnswer() {
    var form = $("composer");
    var query = form && form.querySelector("[name=query]");
    if (!query) return;
    query.value = "Continue exactly where you stopped.";
    form.requestSubmit();
  }

  function toggleTools(button) {
    var pane = $("chat-pane");
    var show = pane.getAttribute("data-show-tools") !== "true";
    pane.setAttribute("data-show-tools", String(show));
    button.setAttribute("aria-pressed", String(show));
    htmx.ajax("POST", "/preferences/tools", { values: { show: String(show) }, swap: "none", source: button });
  }

  function copyMessage(button) {
    var msg = $(button.getAttribute("data-copy-message"));
    var answer = msg && msg.querySelector("[data-testid=answer]");
    if (!answer) return;
    var clean = answer.cloneNode(true); // without the code blocks' own Copy buttons
    clean.querySelectorAll(".code-bar").forEach(function (b) { b.remove(); });
    document.body.appendChild(clean); // innerText needs a rendered node
    clean.style.position = "absolute";
    clean.style.left = "-99999px";
    var text = clean.innerText;
    clean.remove();
    Parley.copyText(button, text);
  }

  // The composer grows with its text; browsers without CSS field-sizing get its height from here.
  if (!(window.CSS && CSS.supports("field-sizing", "content"))) {
    document.addEventListener("input", function (event) {
      if (event.target.id !== "query") return;
      event.target.style.height = "auto";
      event.target.style.height = event.target.scrollHeight + 2 + "px";
    });
  }

  // Enter sends, Shift+Enter adds a new line (and nothing sends while an IME composes).
  document.addEventListener("keydown", function (event) {
    if (event.target.id !== "query" || event.key !== "Enter" || event.shiftKey || event.isComposing) return;
    event.preventDefault();
    var send = $("send");
    if (send && !send.disabled && event.target.value.trim() !== "") event.target.form.requestSubmit();
  });

  // The composer can't send while an answer is written; #chat-status (replaced by streamed events)
  // says whether one is.
  function syncComposer() {
    var status = $("chat-status");
    var send = $("send");
    if (!status || !send) return;
    var busy = status.getAttribute("data-busy") === "true";
    var limited = send.hasAttribute("data-limited") || send.hasAttribute("data-locked");
    send.disabled = busy || limited;
    var stop = $("stop");
    if (!stop) return;
    var focused = document.activeElement === send || document.activeElement === stop;
    stop.classList.toggle("hidden", !busy); // Stop stands where Send was
    send.classList.toggle("hidden", busy);
    if (focused) (busy ? stop : send).focus({ preventScroll: true }); // the focus moves with it
  }

  // The list follows the answer while the reader is at its end (within FOLLOW_SLACK px). Once they
  // scroll up, new text leaves their place alone and "↓ New text" offers the way back; scrolling
  // back to the end, pressing the button or sending follows again. A page opened at a message (a
  // search result, data-focus-message on the pane) stays there until the person sends.
  var FOLLOW_SLACK = 48;
  var follow = true;
  function atEnd(list) { return list.scrollHeight - list.scrollTop - list.clientHeight <= FOLLOW_SLACK; }
  function showNewText(on) {
    var button = $("new-text");
    if (button) button.classList.toggle("hidden", !on);
  }
  var autoTop = 0; // where scrollToEnd last put the list; above it, the reader has moved up
  document.addEventListener("scroll", function (event) {
    if (event.target.id !== "messages") return;
    follow = atEnd(event.target);
    if (follow) showNewText(false);
  }, true);
  // A wheel turned up stops following at once (its scroll event comes a frame later, when a
  // streamed update may already have moved the list).
  document.addEventListener("wheel", function (event) {
    if (event.deltaY < 0 && event.target.closest && event.target.closest("#messages")) follow = false;
  }, { passive: true });

  // scrollToEnd moves the list to its end when it follows (force: it follows from now on).
  function scrollToEnd(force) {
    var list = $("messages");
    if (!list) return;
    var pane = $("chat-pane");
    var focus = pane && pane.getAttribute("data-focus-message");
    var target = focus && document.getElementById(focus);
    if (target) {
      if (force || !target.classList.contains("msg-found")) { // opened, or rendered anew (a snapshot)
        target.classList.add("msg-found");
        target.scrollIntoView({ block: "center" });
      }
      return;
    }
    if (force) follow = true;
    else if (list.scrollTop < autoTop - 2) follow = false; // moved up, scroll event still to come
    if (follow) {
      list.scrollTop = list.scrollHeight;
      autoTop = list.scrollTop;
      showNewText(false);
    } else if (!atEnd(list)) {
      showNewText(true);
    }
  }

  // Details the reader opened (reasoning, tool arguments and results) stay open when their message
  // is rendered again by the stream: remembered as "<message id>/<index of the details>".
  var openDetails = {};
  function detailsKey(details) {
    var msg = details.closest(".msg");
    if (!msg || !msg.id) return null;
    return msg.id + "/" + Array.prototype.indexOf.call(msg.querySelectorAll("details"), details);
  }
  function remember(details, open) {
    var key = detailsKey(details);
    if (key === null) return;
    if (open) openDetails[key] = true; else delete openDetails[key];
  }
  document.addEventListener("toggle", function (event) {
    if (event.target.tagName === "DETAILS") remember(event.target, event.target.open);
  }, true);
  function reopenDetails() {
    Object.keys(openDetails).forEach(function (key) {
      var cut = key.lastIndexOf("/");
      var msg = document.getElementById(key.slice(0, cut));
      var details = msg && msg.querySelectorAll("details")[+key.slice(cut + 1)];
      if (details && !details.open) details.open = true;
    });
  }

  // A finished answer is announced once through the polite live region #chat-announcer (the list
  // itself is not live: it changes on every streamed word). Answers already finished when the page
  // (or a snapshot) arrives are not announced.
  var announced = {};
  function announce(root, quiet) {
    var region = $("chat-announcer");
    root.querySelectorAll(".msg-assistant[data-status]").forEach(function (msg) {
      var status = msg.getAttribute("data-status");
      if (status !== "complete" && status !== "failed") {
        announced[msg.id] = false;
        return;
      }
      if (announced[msg.id] === true) return;
      var speak = announced[msg.id] === false && !quiet;
      announced[msg.id] = true;
      if (!speak || !region) return;
      var answer = msg.querySelector("[data-testid=answer]");
      var name = msg.querySelector("[data-testid=answer-agent]");
      var text = (answer ? answer.innerText : "").trim();
      if (status === "failed") text = "The answer failed. " + text;
      region.textContent = (name ? name.textContent + ": " : "") + text.slice(0, 2000);
    });
  }

  // Every code block in an answer gets a bar above the code with its language and a Copy button
  // (the server renders the block as <div class="code-block language-x">; the bar is added here so
  // the sanitised HTML stays button-free, and it sits above the code so it never covers any).
  function codeBars(root) {
    root.querySelectorAll("[data-testid=answer] .code-block").forEach(function (block) {
      if (block.querySelector(".code-bar")) return;
      var bar = document.createElement("div");
      bar.className = "code-bar";
      var lang = document.createElement("span");
      lang.className = "code-lang";
      var m = /(?:^|\s)language-(\S+)/.exec(block.className);
      lang.textContent = m ? m[1] : "text";
      var button = document.createElement("button");
      button.type = "button";
      button.className = "code-copy";
      button.setAttribute("data-copy-code", "");
      button.setAttribute("aria-label", "Copy code");
      var label = document.createElement("span");
      label.setAttribute("data-copy-label", "");
      label.textContent = "Copy";
      button.appendChild(Parley.icon("copy", "h-3.5 w-3.5"));
      button.appendChild(label);
      bar.appendChild(lang);
      bar.appendChild(button);
      block.insertBefore(bar, block.firstChild);
    });
  }

  // codeText is a block's code exactly as shown: its characters, without the newline that ends the
  // last line.
  function codeText(block) {
    var pre = block.querySelector("pre");
    return pre ? pre.textContent.replace(/\n$/, "") : "";
  }

  function localTimes(root) {
    root.querySelectorAll("time[data-local-time], time[data-local-datetime], time[data-relative]").forEach(function (el) {
      var d = new Date(el.getAttribute("datetime"));
      if (isNaN(d)) return;
      el.title = d.toLocaleString();
      if (el.hasAttribute("data-local-datetime")) {
        el.textContent = d.toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
      } else if (el.hasAttribute("data-relative")) {
        el.textContent = relative(d);
      } else {
        el.textContent = d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
      }
    });
  }

  function relative(d) {
    var s = Math.round((Date.now() - d.getTime()) / 1000);
    if (s < 60) return "just now";
    if (s < 3600) return Math.floor(s / 60) + " min ago";
    if (s < 86400) return Math.floor(s / 3600) + " h ago";
    if (s < 7 * 86400) return Math.floor(s / 86400) + " d ago";
    return d.toLocaleDateString();
  }

  // The rate-limit banner counts the seconds down; at zero the composer (which kept the message)
  // can send again, and the banner says so for a few seconds before it goes.
  function rateLimit() {
    var banner = $("limit-banner");
    var send = $("send");
    if (!banner || !send || banner.hasAttribute("data-counting")) return;
    banner.setAttribute("data-counting", "");
    var left = parseInt(banner.getAttribute("data-retry-after"), 10) || 1;
    var count = banner.querySelector("[data-countdown]");
    send.setAttribute("data-limited", "");
    var tick = setInterval(function () {
      left--;
      if (count) count.textContent = String(Math.max(left, 0));
      if (left > 0) return;
      clearInterval(tick);
      send.removeAttribute("data-limited");
      syncComposer();
      var problem = $("query-error");
      if (problem) problem.remove();
      var q = $("query");
      if (q) q.removeAttribute("aria-invalid");
      banner.textContent = "You can send again.";
      setTimeout(function () { banner.remove(); }, 4000);
    }, 1000);
  }

  function setup(root) {
    var stream = $("chat-stream");
    if (stream && root !== stream && root.contains(stream)) {
      streamTemplate = stream.cloneNode(false);
      attempt = 0;
      setState("connecting");
    }
    localTimes(root);
    codeBars(root);
    rateLimit();
    syncComposer();
    reopenDetails();
    var fresh = root.querySelector && root.querySelector("#messages");
    announce(root, !!fresh || root === document.body);
    // Sidebar pages and older messages loading above do not move the conversation.
    if (!(root.closest && root.closest("#history, [data-older-messages]"))) scrollToEnd(!!fresh);
  }

  // Text typed while a send is in flight survives the pane that the send answers with.
  var submitted = null;
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (event.target.id === "composer") {
      submitted = $("query").value;
      var pane = $("chat-pane");
      if (pane) pane.removeAttribute("data-focus-message"); // follow the new answer from now on
      follow = true;
    }
  });
  var typed = null;
  document.addEventListener("htmx:beforeSwap", function (event) {
    var q = $("query");
    typed = q && submitted !== null && q.value.trim() !== submitted.trim() && q.value.trim() !== "" ? q.value : null;
  });
  document.addEventListener("htmx:afterSwap", function () {
    var q = $("query");
    if (typed !== null && q && q.value === "") q.value = typed;
    typed = null;
    submitted = null;
  });

  // A snapshot (a branch changed, maybe by this very pane) that arrives while a Regenerate, Edit or
  // version switch of this pane is in flight is not shown: the action's answer replaces the whole
  // pane, whose new stream sends the branch on screen. Swapping the list under the request would
  // take away the element that sent it, and htmx could not place the answer. (A load of older
  // messages, a GET, does not hold a snapshot back.)
  document.addEventListener("htmx:sseBeforeMessage", function (event) {
    if (!event.detail || event.detail.type !== "snapshot") return;
    var list = $("messages");
    if (list && list.querySelector("[hx-post].htmx-request")) event.preventDefault();
  });

  // A message can arrive twice: in the answer to a send and on the stream (or on two streams after
  // a reconnect). An out-of-band insert of a message already on the page replaces it instead.
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    var incoming = event.detail.fragment && event.detail.fragment.firstElementChild;
    if (!incoming || !/^message-\d+$/.test(incoming.id)) return;
    var existing = document.getElementById(incoming.id);
    if (!existing || existing === event.detail.target) return; // a normal replacement
    event.detail.shouldSwap = false;
    existing.replaceWith(incoming);
    htmx.process(incoming);
    reopenDetails();
  });

  // Before an out-of-band swap, note whether the reader is at the end; a snapshot (the whole list
  // again) keeps their place when they are not.
  var keepTop = null;
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    var list = $("messages");
    keepTop = list && !follow ? list.scrollTop : null;
  });
  document.addEventListener("htmx:load", function (event) { setup(event.target); });
  document.addEventListener("htmx:oobAfterSwap", function (event) {
    localTimes(event.target.parentNode || document);
    codeBars(document);
    syncComposer();
    reopenDetails();
    announce(event.target.parentNode || document, false);
    var list = $("messages");
    if (keepTop !== null && list && event.target.id === "messages") list.scrollTop = keepTop;
    keepTop = null;
    scrollToEnd(false);
  });
  document.addEventListener("click", function (event) {
    if (event.target.closest("#new-text")) {
      scrollToEnd(true); // the button hides; the focus it took goes back to the composer
      var q = $("query");
      if (q && !q.disabled) q.focus({ preventScroll: true });
    }
    var summary = event.target.closest(".msg details > summary");
    if (summary) remember(summary.parentNode, !summary.parentNode.open); // before a re-render can drop the toggle
  });
})();
