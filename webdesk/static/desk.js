// The desk's one script, for what a server-rendered page cannot do alone.
//
// Countdowns: each <time class="countdown" datetime="…"> counts down once a
// second. The server already wrote the first text, so without this script
// the page still says how long is left.
//
// Refresh: a page with <body data-refresh="N"> reads itself again every N
// seconds while it is open and shown, asking with If-None-Match, and puts
// the new <main> in place when the page has changed. It leaves a page
// alone while a form field is being used or has been typed in. "updated N s
// ago" says how fresh the page is, and says so when the desk stops answering.
(function () {
  "use strict";
  function left(ms) {
    if (ms <= 0) return "passed";
    var s = Math.floor(ms / 1000), d = Math.floor(s / 86400);
    s -= d * 86400;
    var h = Math.floor(s / 3600); s -= h * 3600;
    var m = Math.floor(s / 60); s -= m * 60;
    if (d > 0) return "in " + d + "d " + h + "h " + m + "m";
    if (h > 0) return "in " + h + "h " + m + "m " + s + "s";
    if (m > 0) return "in " + m + "m " + s + "s";
    return "in " + s + "s";
  }
  function ago(ms) {
    var s = Math.max(0, Math.round(ms / 1000));
    if (s < 90) return s + " s ago";
    var m = Math.round(s / 60);
    if (m < 90) return m + " min ago";
    return Math.round(m / 60) + " h ago";
  }

  var every = 0, fresh = Date.now(), tag = null, failing = 0, stopped = "", inFlight = false;

  function tick() {
    var els = document.querySelectorAll("time.countdown");
    for (var i = 0; i < els.length; i++) {
      var t = Date.parse(els[i].getAttribute("datetime"));
      if (!isNaN(t)) els[i].textContent = left(t - Date.now());
    }
    var u = document.getElementById("updated");
    if (u && every) {
      var text = "updated " + ago(Date.now() - fresh);
      if (stopped) text = stopped;
      else if (failing) text += " · the desk does not answer, trying again";
      if (u.textContent !== text) u.textContent = text;
      u.parentNode.classList.toggle("stale", !!stopped || failing > 0);
    }
  }

  // busy: the GM is using a form, or has changed one without sending it;
  // a new page would take that away.
  function busy() {
    var a = document.activeElement;
    if (a && a.form && a.matches("input, select, textarea")) return true;
    var fs = document.querySelectorAll("main input, main select, main textarea");
    for (var i = 0; i < fs.length; i++) {
      var f = fs[i];
      if (f.type === "hidden") continue;
      if (f.tagName === "SELECT") {
        for (var j = 0; j < f.options.length; j++) if (f.options[j].selected !== f.options[j].defaultSelected) return true;
      } else if (f.type === "checkbox" || f.type === "radio") {
        if (f.checked !== f.defaultChecked) return true;
      } else if (f.value !== f.defaultValue) return true;
    }
    return false;
  }

  function swap(html) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var next = doc.querySelector("main"), main = document.querySelector("main");
    if (!next || !main) return;
    // What the reader opened stays open; a flash message stays shown.
    var open = {};
    main.querySelectorAll("details").forEach(function (d, i) { if (d.open) open[d.id || i] = true; });
    var flash = main.querySelector(".flash");
    var y = window.scrollY;
    // The keyboard's place stays where it was: the same element, or the
    // one at the same place among the page's focusable ones.
    var focusable = "a[href], button, input, select, textarea, summary, [tabindex]";
    var a = document.activeElement, at = -1, atID = "";
    if (a && main.contains(a) && a !== main) {
      atID = a.id;
      at = Array.prototype.indexOf.call(main.querySelectorAll(focusable), a);
    }
    main.replaceChildren.apply(main, Array.prototype.slice.call(document.adoptNode(next).childNodes));
    main.querySelectorAll("details").forEach(function (d, i) { if (open[d.id || i]) d.open = true; });
    if (flash && !main.querySelector(".flash")) main.insertBefore(flash, main.firstChild);
    if (doc.title) document.title = doc.title;
    window.scrollTo(0, y);
    scrollables();
    if (at >= 0 || atID) {
      var back = (atID && document.getElementById(atID)) || main.querySelectorAll(focusable)[at];
      if (back) back.focus({ preventScroll: true });
    }
    var live = document.getElementById("refreshed");
    if (live) live.textContent = "The page has been brought up to date.";
  }

  function poll() {
    if (inFlight || stopped || document.hidden || busy()) return;
    inFlight = true;
    var headers = { "X-Forumgm-Refresh": "1" };
    if (tag) headers["If-None-Match"] = tag;
    fetch(location.href, { headers: headers, credentials: "same-origin", cache: "no-store", redirect: "manual" })
      .then(function (r) {
        if (r.type === "opaqueredirect" || r.status === 401 || r.status === 403) {
          stopped = "not updated: your session has ended, reload the page to log in again";
          return;
        }
        if (r.status === 404) {
          stopped = "not updated: this page is no longer served";
          return;
        }
        if (r.status === 304) { fresh = Date.now(); failing = 0; return; }
        if (!r.ok) throw new Error(r.status);
        tag = r.headers.get("ETag");
        return r.text().then(function (html) { swap(html); fresh = Date.now(); failing = 0; });
      })
      .catch(function () { failing++; })
      .then(function () { inFlight = false; tick(); });
  }

  // A table wider than the screen scrolls in its box; the box takes the
  // keyboard's focus only then, so it can be scrolled without a mouse.
  function scrollables() {
    document.querySelectorAll(".tablewrap").forEach(function (w) {
      if (w.scrollWidth > w.clientWidth + 1) {
        w.tabIndex = 0;
        var c = w.querySelector("caption");
        if (c) w.setAttribute("aria-label", c.textContent + " (scrolls sideways)");
      } else {
        w.removeAttribute("tabindex");
      }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    every = parseInt(document.body.getAttribute("data-refresh") || "0", 10) * 1000;
    tag = document.body.getAttribute("data-etag") || null;
    scrollables();
    window.addEventListener("resize", scrollables);
    tick();
    setInterval(tick, 1000);
    if (every > 0) {
      setInterval(poll, every);
      document.addEventListener("visibilitychange", function () { if (!document.hidden && Date.now() - fresh > every) poll(); });
    }
  });
})();
