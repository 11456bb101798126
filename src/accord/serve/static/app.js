// accord serve: load the run's aggregate table after the page (it needs every row of
// the run, the page itself does not). The fragment is HTML rendered and escaped by the
// server; nothing from the page or the URL is interpolated into markup here.
document.addEventListener("DOMContentLoaded", function () {
  var box = document.getElementById("aggregate");
  if (!box || !box.querySelector(".loading")) { return; }
  fetch(box.getAttribute("data-src"), {credentials: "same-origin"})
    .then(function (r) { if (!r.ok) { throw new Error(r.status + " " + r.statusText); } return r.text(); })
    .then(function (html) {
      var tpl = document.createElement("template");
      tpl.innerHTML = html;
      box.querySelector(".loading").replaceWith(tpl.content);
    })
    .catch(function (err) { box.querySelector(".loading").textContent = "aggregate unavailable: " + err.message; });
});
