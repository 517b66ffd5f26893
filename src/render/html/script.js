"use strict";
(function () {
  var $ = function (id) { return document.getElementById(id); };
  var log = $("log"), q = $("q"), errs = $("errs"), kind = $("kind"), count = $("count");
  var evs = Array.prototype.slice.call(log.querySelectorAll(".ev"));
  var texts = null;
  function own(el) {
    if (el.tagName !== "DETAILS") return el.textContent.toLowerCase();
    var s = el.querySelector(":scope > summary"), t = s ? s.textContent : "";
    el.querySelectorAll(":scope > .in > pre").forEach(function (p) { t += "\n" + p.textContent; });
    return t.toLowerCase();
  }
  // The filter lives in the address's fragment (#q=text&errors&kind=shell):
  // a link to the page can say what to look at.
  function fromHash() {
    location.hash.slice(1).split("&").forEach(function (p) {
      var i = p.indexOf("="), k = i < 0 ? p : p.slice(0, i), v = "";
      try { v = decodeURIComponent(i < 0 ? "" : p.slice(i + 1)); } catch (err) { return; }
      if (k === "q") q.value = v;
      else if (k === "errors") errs.checked = true;
      else if (k === "kind") kind.value = v;
    });
  }
  function toHash() {
    var p = [];
    if (q.value.trim()) p.push("q=" + encodeURIComponent(q.value.trim()));
    if (errs.checked) p.push("errors");
    if (kind.value) p.push("kind=" + encodeURIComponent(kind.value));
    try { history.replaceState(null, "", p.length ? "#" + p.join("&") : location.pathname + location.search); } catch (err) { /* a page without history */ }
  }
  function apply() {
    var s = q.value.trim().toLowerCase(), e = errs.checked, k = kind.value;
    var all = !s && !e && !k;
    evs.forEach(function (el) { el.classList.toggle("hide", !all); });
    if (all) { count.textContent = ""; return; }
    if (!texts) texts = evs.map(own);
    var shown = 0;
    evs.forEach(function (el, i) {
      if (s && texts[i].indexOf(s) < 0) return;
      if (e && !el.classList.contains("bad")) return;
      if (k && el.getAttribute("data-kind") !== k) return;
      shown++;
      for (var p = el; p && p !== log; p = p.parentElement) {
        if (p.classList.contains("ev")) p.classList.remove("hide");
        if (p !== el && p.tagName === "DETAILS") p.open = true;
      }
    });
    count.textContent = shown + " of " + evs.length + " shown";
  }
  function changed() { apply(); toHash(); }
  var timer = 0;
  q.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(changed, 150); });
  errs.addEventListener("change", changed);
  kind.addEventListener("change", changed);
  function openAll(on) {
    log.querySelectorAll("details").forEach(function (d) { d.open = on; });
  }
  $("expand").addEventListener("click", function () { openAll(true); });
  $("collapse").addEventListener("click", function () { openAll(false); });
  var closed = [];
  window.addEventListener("beforeprint", function () {
    closed = Array.prototype.filter.call(log.querySelectorAll("details"), function (d) { return !d.open; });
    closed.forEach(function (d) { d.open = true; });
  });
  window.addEventListener("afterprint", function () { closed.forEach(function (d) { d.open = false; }); });
  $("bar").hidden = false;
  if (location.hash.length > 1) { fromHash(); apply(); }
  document.body.setAttribute("data-ready", "1");
})();
