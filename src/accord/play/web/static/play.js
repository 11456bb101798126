// accord play: small progressive enhancements (the pages work without them).
(function () {
  "use strict";
  var body = document.body;

  // New negotiation: show the scenario chooser of the selected domain only.
  var radios = document.querySelectorAll('input[name="domain"]');
  function showDomain() {
    var chosen = document.querySelector('input[name="domain"]:checked');
    document.querySelectorAll("fieldset.scenario").forEach(function (fs) {
      fs.hidden = chosen !== null && fs.dataset.domain !== chosen.value;
    });
  }
  radios.forEach(function (r) { r.addEventListener("change", showDomain); });
  // the free opponent spec wins over the list: clear it when a kind is picked
  document.querySelectorAll("select.opponent-kind").forEach(function (sel) {
    sel.addEventListener("change", function () {
      var free = document.getElementById("opponent");
      if (free) { free.value = ""; }
    });
  });
  if (radios.length) { showDomain(); }

  // Task exchange: the partner's composite follows as the complement of the person's own
  // (the person can still choose another one afterwards).
  document.querySelectorAll("select[data-complement]").forEach(function (mine) {
    var theirs = document.getElementById(mine.dataset.complement);
    if (!theirs) { return; }
    mine.addEventListener("change", function () {
      var rest = mine.value.split("").map(function (b) { return b === "1" ? "0" : "1"; }).join("");
      if (theirs.querySelector('option[value="' + rest + '"]')) { theirs.value = rest; }
    });
  });

  // Game page: live utility of the package being built.
  var live = document.getElementById("live-utility");
  var utilityUrl = body.dataset.utilityUrl;
  function refreshUtility() {
    var params = new URLSearchParams();
    document.querySelectorAll(".pkg").forEach(function (el) { params.append(el.name, el.value); });
    fetch(utilityUrl + "?" + params.toString(), { credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(function (d) {
        var digits = live.dataset.digits;
        live.textContent = d.utility === null ? "-" :
          (digits ? Number(d.utility).toFixed(Number(digits)) : String(d.utility));
      })
      .catch(function () { live.textContent = "?"; });
  }
  if (live && utilityUrl) {
    document.querySelectorAll(".pkg").forEach(function (el) {
      el.addEventListener("change", refreshUtility);
      el.addEventListener("input", refreshUtility);
    });
  }

  // Game page: while the other side thinks, poll and reload when something changed.
  if (body.dataset.poll && body.dataset.stateUrl) {
    var version = body.dataset.version;
    var poll = function () {
      fetch(body.dataset.stateUrl, { credentials: "same-origin" })
        .then(function (r) {
          // the game is gone (the server restarted): show the page that says so
          if (r.status === 404) { window.location.reload(); throw new Error("gone"); }
          return r.json();
        })
        .then(function (s) {
          if (s.status !== "waiting" || String(s.version) !== version) {
            window.location.reload();
          } else {
            window.setTimeout(poll, 250);
          }
        })
        .catch(function (e) { if (e.message !== "gone") { window.setTimeout(poll, 1000); } });
    };
    window.setTimeout(poll, 150);
  }
  body.dataset.ready = "1";  // handlers attached (tests wait for this)
})();
