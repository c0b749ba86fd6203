"""The site grid's inline script: filters by arch, runtime and torch series, sorting by a column.

It only enhances :func:`~.grid.grid_html`'s table: it shows the (hidden) filter bar, hides rows
that do not match (the ``hidden`` attribute), turns each column heading into a sort button, and
keeps the view in the query string (``?arch=gfx942&runtime=ROCm+6.2&torch=2.5&sort=gpu&desc=1``),
read back on load. No network, no library; without JavaScript every row stays visible.
"""

from __future__ import annotations

GRID_SCRIPT = """
(function () {
  var table = document.getElementById("grid"), tools = document.getElementById("grid-tools");
  if (!table || !tools || !table.tHead || !window.URLSearchParams) return;
  var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
  var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
  var selects = Array.prototype.slice.call(tools.querySelectorAll("select[data-filter]"));
  var count = document.getElementById("grid-count"), sorted = -1, desc = false;
  function keyOf(row, i) {
    var cell = row.cells[i];
    return cell ? (cell.getAttribute("data-sort") || cell.textContent.replace(/^#\\s*/, "").trim()) : "";
  }
  function filter() {
    var shown = 0;
    rows.forEach(function (row) {
      var ok = selects.every(function (s) { return !s.value || row.getAttribute("data-" + s.getAttribute("data-filter")) === s.value; });
      row.hidden = !ok;
      if (ok) shown++;
    });
    count.textContent = shown + " of " + rows.length + " stacks shown";
  }
  function sortBy(i, descending) {
    sorted = i; desc = descending;
    rows.slice().sort(function (a, b) {
      var r = keyOf(a, i).localeCompare(keyOf(b, i), undefined, {numeric: true});
      return descending ? -r : r;
    }).forEach(function (row) { body.appendChild(row); });
    heads.forEach(function (h, j) {
      var arrow = h.querySelector(".arrow");
      if (j === i) h.setAttribute("aria-sort", descending ? "descending" : "ascending");
      else h.removeAttribute("aria-sort");
      if (arrow) arrow.textContent = j !== i ? "" : (descending ? " \u25bc" : " \u25b2");
    });
  }
  function save() {
    var q = new URLSearchParams();
    selects.forEach(function (s) { if (s.value) q.set(s.getAttribute("data-filter"), s.value); });
    if (sorted >= 0) { q.set("sort", heads[sorted].getAttribute("data-key")); if (desc) q.set("desc", "1"); }
    var text = q.toString();
    try { history.replaceState(null, "", (text ? "?" + text : location.pathname) + location.hash); } catch (e) {}
  }
  heads.forEach(function (h, i) {
    var button = document.createElement("button");
    button.type = "button"; button.className = "sort";
    while (h.firstChild) button.appendChild(h.firstChild);
    var arrow = document.createElement("span");
    arrow.className = "arrow"; arrow.setAttribute("aria-hidden", "true");
    button.appendChild(arrow);
    h.appendChild(button);
    button.addEventListener("click", function () {
      var first = h.getAttribute("data-kind") === "outcome";
      sortBy(i, sorted === i ? !desc : first);
      save();
    });
  });
  var query = new URLSearchParams(location.search);
  selects.forEach(function (s) {
    var want = query.get(s.getAttribute("data-filter"));
    if (want !== null) s.value = want;
    s.addEventListener("change", function () { filter(); save(); });
  });
  tools.addEventListener("reset", function () { setTimeout(function () { filter(); save(); }, 0); });
  var by = query.get("sort");
  heads.forEach(function (h, i) { if (by !== null && h.getAttribute("data-key") === by) sortBy(i, query.get("desc") === "1"); });
  tools.hidden = false;
  filter();
})();
"""
