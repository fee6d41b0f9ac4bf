// The deadline countdowns: each <time class="countdown" datetime="…">
// counts down once a second. The server already wrote the first text, so
// without this script the page still says how long is left.
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
  function tick() {
    var els = document.querySelectorAll("time.countdown");
    for (var i = 0; i < els.length; i++) {
      var t = Date.parse(els[i].getAttribute("datetime"));
      if (!isNaN(t)) els[i].textContent = left(t - Date.now());
    }
  }
  document.addEventListener("DOMContentLoaded", function () { tick(); setInterval(tick, 1000); });
})();
