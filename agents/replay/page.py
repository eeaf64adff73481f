"""The replay page: one self-contained HTML file (inline CSS, JavaScript and SVG; nothing
fetched, no server) showing a :class:`~moonriver_env.family.replay.Replay`.

The page holds every position's SVG pieces (each distinct piece once) and the moves as JSON;
a slider, the buttons and the arrow keys (Left/Right one move, Home/End, Space to play) step
through them. Beside the board: the move that led to the position in words, the score table
of the position, the list of all moves (click one to go there) and a chart of each seat's
score by category over the game, with a cursor at the position shown. Under it: the final
scores. Element ids the tests read: ``board``, ``step``, ``move``, ``final-scores``.

The URL names the position: ``game.html#move=N`` opens the page after move ``N`` (``0``: the
start; a number past either end is clamped to the game, anything else is ignored and the page
opens at the start), stepping rewrites the fragment (without adding to the history), and
editing it jumps there.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
from typing import Any

from moonriver_env.family.replay import Replay

_CHART_W = 300
_CHART_H = 70
_CHART_PAD = 4


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _polyline(values: list[int], top: int, colour: str, scale: float, step: float) -> str:
    points = " ".join(
        f"{_CHART_PAD + i * step:.1f},{top + _CHART_H - v * scale:.1f}"
        for i, v in enumerate(values)
    )
    return f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="1.6"/>'


def score_chart(replay: Replay) -> str:
    """An SVG of each seat's score over the moves: the total, then one small chart per
    category, lines in the seat colours; ``.cursor`` lines mark the position shown."""
    names = ("total", *replay.categories)
    n = len(replay.frames)
    step = (_CHART_W - 2 * _CHART_PAD) / max(1, n - 1)
    band = _CHART_H + 22
    out = []
    for k, name in enumerate(names):
        col = len(replay.categories) if k == 0 else k - 1  # the total is the last column
        series = [[f.scores[s][col] for f in replay.frames] for s in range(len(replay.seats))]
        top = 16 + k * band
        high = max(1, *(max(v) for v in series))
        scale = _CHART_H / high
        out.append(
            f'<text x="{_CHART_PAD}" y="{top - 4}" font-size="11" fill="#333">{_esc(name)} '
            f"(0-{high})</text>"
            f'<rect x="{_CHART_PAD}" y="{top}" width="{_CHART_W - 2 * _CHART_PAD}" '
            f'height="{_CHART_H}" fill="#fff" stroke="#ccc"/>'
        )
        for s, values in enumerate(series):
            out.append(_polyline(values, top, replay.seat_colours[s], scale, step))
        out.append(
            f'<line class="cursor" x1="{_CHART_PAD}" x2="{_CHART_PAD}" y1="{top}" '
            f'y2="{top + _CHART_H}" stroke="#e600c8" stroke-width="1.5"/>'
        )
    height = 16 + len(names) * band
    return (
        f'<svg id="chart" xmlns="http://www.w3.org/2000/svg" width="{_CHART_W}" '
        f'height="{height}" viewBox="0 0 {_CHART_W} {height}" data-step="{step:.4f}" '
        f'data-pad="{_CHART_PAD}" style="font-family:sans-serif">{"".join(out)}</svg>'
    )


def _final_table(replay: Replay) -> str:
    head = "".join(f"<th>{_esc(c)}</th>" for c in replay.categories)
    rows = []
    for f in replay.final:
        cells = "".join(f"<td>{v}</td>" for v in f.categories)
        mark = " &#9733; winner" if f.winner else ""
        rows.append(
            f'<tr data-seat="{f.seat}" data-total="{f.total}"'
            f'{" class=winner" if f.winner else ""}><td><span class="chip" '
            f'style="background:{replay.seat_colours[f.seat]}"></span>{_esc(f.label)}{mark}</td>'
            f'{cells}<td class="total">{f.total}</td></tr>'
        )
    caption = "Final scores" if replay.finished else "Scores when the game was saved (unfinished)"
    return (
        f'<table id="final-scores"><caption>{caption}</caption><thead><tr><th>seat</th>{head}'
        f"<th>total</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _data(replay: Replay) -> str:
    """The page's JSON, gzipped and base64-encoded (the pieces repeat a lot: a 2-player game
    shrinks from about 3 MB to about 150 kB); the page inflates it with the browser's own
    ``DecompressionStream``. Same replay, same text (no time stamp in the gzip header)."""
    data: dict[str, Any] = {
        "pieces": replay.pieces,
        "frames": [
            {"p": f.pieces, "m": f.move, "a": f.actor, "s": f.scores} for f in replay.frames
        ],
        "seats": replay.seats,
        "colours": replay.seat_colours,
        "categories": replay.categories,
    }
    text = json.dumps(data, separators=(",", ":"))
    packed = gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)
    return base64.b64encode(packed).decode("ascii")


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;background:#f4f2ec;
color:#222}
header{padding:10px 16px;background:#2b3a4a;color:#fff}
header h1{font-size:18px;margin:0}header p{margin:4px 0 0;font-size:13px;color:#cfd8e0}
main{display:flex;flex-wrap:wrap;gap:16px;padding:12px 16px;align-items:flex-start}
#board{display:flex;flex-wrap:wrap;gap:10px;align-items:flex-start;align-content:flex-start;
max-width:1000px}
#board .table-slot{flex-basis:100%}
#side{width:320px;display:flex;flex-direction:column;gap:10px}
.controls{display:flex;align-items:center;gap:6px;padding:8px 16px;background:#e6e2d8;
position:sticky;top:0;z-index:2}
.controls input[type=range]{flex:1}
.controls button{font-size:14px;min-width:34px}
#move{font-size:14px;font-weight:600;min-height:1.4em}
#counter{font-variant-numeric:tabular-nums;min-width:9em;text-align:right;font-size:13px}
table{border-collapse:collapse;font-size:13px;background:#fff}
th,td{border:1px solid #ccc;padding:2px 6px;text-align:right}
td:first-child,th:first-child{text-align:left}
caption{text-align:left;font-weight:600;padding:4px 0}
tr.winner td{background:#fff6d0}
.chip{display:inline-block;width:10px;height:10px;margin-right:5px;border:1px solid #000}
#moves{max-height:220px;overflow:auto;font-size:12px;background:#fff;border:1px solid #ccc;
margin:0;padding:4px 4px 4px 36px}
#moves li{cursor:pointer}#moves li.current{background:#ffe9a8;font-weight:600}
footer{padding:8px 16px 20px;font-size:12px;color:#555}
"""

_JS = """
function inflate(b64) {
  var raw = atob(b64.trim()), bytes = new Uint8Array(raw.length);
  for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Response(stream).text().then(JSON.parse);
}
inflate(document.getElementById("replay-data").textContent).then(function(data){
  "use strict";
  var frames = data.frames, pieces = data.pieces;
  var board = document.getElementById("board");
  var slots = board.querySelectorAll(".slot");
  var shown = [];
  var slider = document.getElementById("step");
  var moveText = document.getElementById("move");
  var counter = document.getElementById("counter");
  var now = document.getElementById("now-scores");
  var chart = document.getElementById("chart");
  var cursors = chart.querySelectorAll(".cursor");
  var step = parseFloat(chart.getAttribute("data-step"));
  var pad = parseFloat(chart.getAttribute("data-pad"));
  var list = document.getElementById("moves");
  var items = [];
  var timer = null;
  for (var i = 1; i < frames.length; i++) {
    var li = document.createElement("li");
    li.textContent = frames[i].m;
    li.value = i;
    li.addEventListener("click", (function(k){ return function(){ show(k); }; })(i));
    list.appendChild(li);
    items.push(li);
  }
  function scoreRows(f) {
    var rows = "";
    for (var s = 0; s < data.seats.length; s++) {
      var sc = f.s[s];
      rows += "<tr><td><span class='chip' style='background:" + data.colours[s] + "'></span>" +
        escapeText(data.seats[s]) + "</td>";
      for (var c = 0; c < sc.length; c++) rows += "<td>" + sc[c] + "</td>";
      rows += "</tr>";
    }
    return rows;
  }
  function escapeText(t) {
    var d = document.createElement("span"); d.textContent = t; return d.innerHTML;
  }
  function moveFromHash() {
    // '#move=N': the position after move N, clamped to the game; anything else: null
    var m = /^#move=(-?[0-9]+)$/.exec(window.location.hash);
    if (!m) return null;
    return Math.max(0, Math.min(frames.length - 1, parseInt(m[1], 10)));
  }
  function writeHash(i) {
    var hash = "#move=" + i;
    if (window.location.hash === hash) return;
    try { history.replaceState(null, "", hash); } catch (e) { window.location.replace(hash); }
  }
  function show(i, keepHash) {
    i = Math.max(0, Math.min(frames.length - 1, i));
    if (!keepHash) writeHash(i);
    var f = frames[i];
    for (var k = 0; k < slots.length; k++) {
      if (shown[k] !== f.p[k]) { slots[k].innerHTML = pieces[f.p[k]]; shown[k] = f.p[k]; }
    }
    slider.value = i;
    document.body.setAttribute("data-frame", i);
    moveText.textContent = i === 0 ? "Start of the game" : "Move " + i + ". " + f.m;
    counter.textContent = "move " + i + " / " + (frames.length - 1);
    now.querySelector("tbody").innerHTML = scoreRows(f);
    var x = pad + i * step;
    for (var c = 0; c < cursors.length; c++) {
      cursors[c].setAttribute("x1", x); cursors[c].setAttribute("x2", x);
    }
    for (var m = 0; m < items.length; m++) items[m].className = (m + 1 === i) ? "current" : "";
    if (i > 0) {
      var it = items[i - 1], top = it.offsetTop - list.offsetTop;
      if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - 20)
        list.scrollTop = top - list.clientHeight / 2;
    }
  }
  function current() { return parseInt(slider.value, 10); }
  function play() {
    if (timer) { clearInterval(timer); timer = null; playButton.textContent = "\\u25B6"; return; }
    if (current() >= frames.length - 1) show(0);
    playButton.textContent = "\\u275A\\u275A";
    timer = setInterval(function(){
      if (current() >= frames.length - 1) { play(); return; }
      show(current() + 1);
    }, 400);
  }
  var playButton = document.getElementById("play");
  slider.addEventListener("input", function(){ show(current()); });
  document.getElementById("first").addEventListener("click", function(){ show(0); });
  document.getElementById("prev").addEventListener("click", function(){ show(current() - 1); });
  document.getElementById("next").addEventListener("click", function(){ show(current() + 1); });
  document.getElementById("last").addEventListener("click", function(){
    show(frames.length - 1);
  });
  playButton.addEventListener("click", play);
  document.addEventListener("keydown", function(e){
    if (e.target && e.target.tagName === "INPUT" && e.target.type !== "range") return;
    if (e.key === "ArrowRight") { show(current() + 1); e.preventDefault(); }
    else if (e.key === "ArrowLeft") { show(current() - 1); e.preventDefault(); }
    else if (e.key === "Home") { show(0); e.preventDefault(); }
    else if (e.key === "End") { show(frames.length - 1); e.preventDefault(); }
    else if (e.key === " ") { play(); e.preventDefault(); }
  });
  window.addEventListener("hashchange", function(){
    var n = moveFromHash();
    if (n !== null && n !== current()) show(n);
  });
  var start = moveFromHash();
  show(start === null ? 0 : start, start === null);  // junk in the URL is left as it is
  document.body.setAttribute("data-ready", "1");
});
"""


def render_page(replay: Replay) -> str:
    """The whole HTML document of ``replay``."""
    n = len(replay.frames)
    slots = (
        "".join(f'<div class="slot" data-seat="{s}"></div>' for s in range(len(replay.seats)))
        + '<div class="slot table-slot"></div>'
    )
    heads = "".join(f"<th>{_esc(c[0].upper())}</th>" for c in replay.categories)
    legend = ", ".join(f"{c[0].upper()} {c}" for c in replay.categories)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{_esc(replay.title)}</title>
<style>{_CSS}</style>
</head>
<body data-frame="0">
{replay.defs}
<header><h1>{_esc(replay.title)}</h1><p>{_esc(replay.subtitle)}</p></header>
<div class="controls">
<button id="first" title="first position (Home)">|&#x25C0;</button>
<button id="prev" title="previous move (Left arrow)">&#x25C0;</button>
<button id="play" title="play / pause (Space)">&#x25B6;</button>
<button id="next" title="next move (Right arrow)">&#x25B6;&#x25B6;</button>
<button id="last" title="last position (End)">&#x25B6;|</button>
<input id="step" type="range" min="0" max="{n - 1}" value="0" aria-label="position">
<span id="counter"></span>
</div>
<main>
<div id="board">{slots}</div>
<div id="side">
<div id="move" aria-live="polite"></div>
<table id="now-scores"><caption>Score at this position</caption><thead><tr><th>seat</th>{heads}
<th>total</th></tr></thead><tbody></tbody></table>
<small>{_esc(legend)}</small>
<ol id="moves"></ol>
{score_chart(replay)}
<details><summary>Legend</summary>{replay.legend}</details>
</div>
</main>
<footer>{_final_table(replay)}<p>Keys: Left/Right arrows step one move, Home/End jump, Space
plays. Made by <code>python -m agents.replay</code>.</p></footer>
<script type="application/octet-stream" id="replay-data">{_data(replay)}</script>
<script>{_JS}</script>
</body>
</html>
"""
