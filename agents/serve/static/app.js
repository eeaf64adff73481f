// The play page of `python -m agents.serve`: no library, nothing fetched but this server's API.
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var SVG = "http://www.w3.org/2000/svg";
  var games = [];
  var view = null;        // the last state the server sent
  var candidates = [];    // the human's moves still matching the clicks so far
  var delay = 900;        // ms between computer moves
  var stepping = false;

  function message(text, isError) {
    var m = $("message");
    m.textContent = text || "";
    m.className = isError ? "error" : "";
  }

  function api(method, path, body) {
    var init = { method: method, credentials: "same-origin", headers: {} };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return fetch(path, init).then(function (r) {
      return r.json().then(function (data) {
        if (!r.ok) {
          var err = new Error(data.message || r.statusText);
          err.code = data.error;
          throw err;
        }
        return data;
      });
    });
  }

  function fail(err) {
    message((err.code ? err.code + ": " : "") + err.message, true);
  }

  // ------------------------------------------------------------------------- setup

  function currentGame() {
    var name = $("game-select").value;
    for (var i = 0; i < games.length; i++) if (games[i].name === name) return games[i];
    return games[0];
  }

  function modeText() {
    var picked = [];
    var boxes = $("modes").querySelectorAll("input");
    for (var i = 0; i < boxes.length; i++) if (boxes[i].checked) picked.push(boxes[i].value);
    return picked.length ? picked.join("+") : "base";
  }

  function fillGame() {
    var g = currentGame();
    var players = $("players-select");
    players.innerHTML = "";
    g.players.forEach(function (n) {
      var o = document.createElement("option");
      o.value = n; o.textContent = n;
      players.appendChild(o);
    });
    var modes = $("modes");
    modes.innerHTML = "<legend>Mode (none ticked: the base game)</legend>";
    g.modes.slice(1).forEach(function (m) {
      var label = document.createElement("label");
      var box = document.createElement("input");
      box.type = "checkbox"; box.value = m; box.name = "mode";
      box.addEventListener("change", fillSeats);
      label.appendChild(box);
      label.appendChild(document.createTextNode(" " + m.replace(/_/g, " ")));
      modes.appendChild(label);
    });
    var settings = $("settings");
    settings.innerHTML = "";
    (g.settings || []).forEach(function (name) {
      var label = document.createElement("label");
      label.textContent = name.charAt(0).toUpperCase() + name.slice(1) + " ";
      var input = document.createElement("input");
      input.type = "text"; input.className = "setting"; input.dataset.setting = name;
      input.placeholder = "empty: drawn or the default";
      label.appendChild(input);
      settings.appendChild(label);
    });
    var list = $("agent-specs");
    list.innerHTML = "";
    ["human"].concat(g.agents).forEach(function (a) {
      var o = document.createElement("option"); o.value = a; list.appendChild(o);
    });
    fillSeats();
  }

  function fillSeats() {
    var g = currentGame();
    var n = parseInt($("players-select").value, 10);
    var seats = $("seats");
    seats.innerHTML = "<legend>Seats (<code>human</code> or an agent spec)</legend>";
    var inputs = [];
    for (var s = 0; s < n; s++) {
      var label = document.createElement("label");
      label.textContent = "Seat " + s;
      var input = document.createElement("input");
      input.type = "text"; input.className = "seat-spec"; input.setAttribute("list", "agent-specs");
      input.value = s === 0 ? "human" : "";
      input.dataset.seat = s;
      label.appendChild(input);
      seats.appendChild(label);
      inputs.push(input);
    }
    var query = "?game=" + encodeURIComponent(g.name) + "&players=" + n +
      "&mode=" + encodeURIComponent(modeText());
    var note = $("seat-note");
    note.textContent = "";
    api("GET", "/api/default-agent" + query).then(function (d) {
      inputs.forEach(function (input) { if (!input.value) input.value = d.agent; });
      note.textContent = d.note || "";
      message("");
    }).catch(function (err) {
      // left empty, a seat gets the table's default agent; a table the game refuses is said
      inputs.forEach(function (input) { input.placeholder = "the default agent"; });
      fail(err);
    });
  }

  function showSetup() {
    $("setup").hidden = false;
    $("play").hidden = true;
    document.body.dataset.turn = "none";
  }

  function start(event) {
    event.preventDefault();
    var seats = [];
    var inputs = document.querySelectorAll(".seat-spec");
    for (var i = 0; i < inputs.length; i++) seats.push(inputs[i].value.trim());
    var body = {
      game: currentGame().name, mode: modeText(), seats: seats,
      candidates: $("candidates").checked
    };
    var seed = $("seed").value.trim();
    if (seed !== "") body.seed = parseInt(seed, 10);
    var settings = document.querySelectorAll("#settings .setting");
    for (var j = 0; j < settings.length; j++) {
      var value = settings[j].value.trim();
      if (value) body[settings[j].dataset.setting] = value;
    }
    delay = parseInt($("delay").value, 10);
    message("Dealing...");
    api("POST", "/api/new", body).then(function (state) {
      message("");
      $("log").innerHTML = "";
      show(state);
    }).catch(fail);
  }

  // ------------------------------------------------------------------------- the game

  function escapeText(t) {
    var d = document.createElement("span"); d.textContent = t; return d.innerHTML;
  }

  function show(state) {
    view = state;
    $("setup").hidden = true;
    $("play").hidden = false;
    $("title").textContent = state.title;
    $("subtitle").textContent = state.setup;
    $("defs").innerHTML = state.defs || "";
    $("legend").innerHTML = state.legend || "";
    var board = $("board");
    board.innerHTML = "";
    (state.pieces || []).forEach(function (markup, k) {
      var slot = document.createElement("div");
      slot.className = "slot" + (k === state.seats.length ? " table" : "");
      slot.dataset.piece = k;
      slot.innerHTML = markup;
      board.appendChild(slot);
    });
    scores(state);
    logMoves(state);
    $("undo").disabled = !state.can_undo;
    $("save").disabled = false;
    document.body.dataset.decisions = state.decisions;
    var turn = $("turn");
    $("result").hidden = !state.finished;
    if (state.finished) {
      document.body.dataset.turn = "over";
      var names = (state.winners || []).map(function (w) { return state.seats[w]; });
      turn.textContent = "Game over";
      $("winner").textContent = (names.length === 1 ? "Winner: " : "Shared win: ") +
        names.join(", ") + (state.saved_to ? " (saved as " + state.saved_to + ")" : "");
      $("replay-link").hidden = !state.replay;
      if (state.save_error) message(state.save_error, true);
      picker([]);
      return;
    }
    var who = state.seats[state.to_play];
    if (state.human_turn) {
      document.body.dataset.turn = "human";
      turn.textContent = who + ": your move";
      resetPicker();
    } else {
      document.body.dataset.turn = "agent";
      turn.textContent = who + " is thinking...";
      picker([]);
      schedule();
    }
  }

  function scores(state) {
    var head = "<tr><th>seat</th>";
    (state.categories || []).forEach(function (c) { head += "<th>" + escapeText(c) + "</th>"; });
    $("scores").querySelector("thead").innerHTML = head + "<th>total</th></tr>";
    var rows = "";
    var winners = state.winners || [];
    (state.scores || []).forEach(function (row, s) {
      var cls = [];
      if (winners.indexOf(s) >= 0) cls.push("winner");
      if (s === state.to_play) cls.push("to-play");
      rows += "<tr data-seat='" + s + "' class='" + cls.join(" ") + "'><td><span class='chip' style='background:" +
        (state.colours ? state.colours[s] : "#888") + "'></span>" + escapeText(state.seats[s]) +
        (winners.indexOf(s) >= 0 ? " &#9733;" : "") + "</td>";
      for (var c = 0; c < row.length - 1; c++) rows += "<td>" + row[c] + "</td>";
      rows += "<td class='total'>" + row[row.length - 1] + "</td></tr>";
    });
    $("scores").querySelector("tbody").innerHTML = rows;
  }

  function logMoves(state) {
    var log = $("log");
    log.innerHTML = "";
    var last = null;
    state.log.forEach(function (m) {
      var li = document.createElement("li");
      li.textContent = state.seats[m.seat] + ": " + m.words;
      li.dataset.seat = m.seat;
      li.dataset.words = m.words;
      if (m.think_ms !== undefined) {
        var t = document.createElement("span");
        t.className = "think";
        t.textContent = " (" + (m.think_ms / 1000).toFixed(2) + " s)";
        li.appendChild(t);
        last = m;
      }
      log.appendChild(li);
    });
    log.scrollTop = log.scrollHeight;
    var weighed = $("weighed");
    var list = $("candidate-list");
    list.innerHTML = "";
    if (last && last.candidates) {
      weighed.hidden = false;
      last.candidates.forEach(function (c) {
        var li = document.createElement("li");
        li.textContent = c.words + ": " + (100 * c.share).toFixed(1) + "% of the search, value " +
          c.value.toFixed(3);
        list.appendChild(li);
      });
    } else {
      weighed.hidden = true;
    }
  }

  function schedule() {
    if (stepping) return;
    stepping = true;
    delay = parseInt($("delay").value, 10) || 0;
    setTimeout(function () {
      api("POST", "/api/step", {}).then(function (d) {
        stepping = false;
        show(d.state);
      }).catch(function (err) { stepping = false; fail(err); });
    }, delay);
  }

  // ------------------------------------------------------------------------- clicking a move
  //
  // Each legal move comes with its click paths (the game's board view): sequences of places on
  // the pictures. The page keeps the moves still possible and the places clicked so far; it
  // highlights the places that can come next, and plays a move once the clicks (or the buttons,
  // the same moves in words) leave only it.

  var clicked = [];       // the places clicked so far: {key, target}
  var history = [];       // the picker's earlier steps (for taking a click back)

  function keyOf(t) { return t.piece + ":" + t.box.join(","); }

  function matching(move) {
    // the move's paths that start with the clicks so far
    return (move.paths || []).filter(function (p) {
      if (p.length < clicked.length) return false;
      for (var i = 0; i < clicked.length; i++) if (keyOf(p[i]) !== clicked[i].key) return false;
      return true;
    });
  }

  function differing(moves) {
    // the word positions where the moves still differ, in order
    var out = [], longest = 0;
    moves.forEach(function (m) { longest = Math.max(longest, m.words.length); });
    for (var k = 0; k < longest; k++) {
      var first = moves[0].words[k];
      for (var i = 1; i < moves.length; i++) {
        if (moves[i].words[k] !== first) { out.push(k); break; }
      }
    }
    return out;
  }

  function clearTargets() {
    var old = document.querySelectorAll("#board .target, #board .chip-art");
    for (var i = 0; i < old.length; i++) old[i].parentNode.removeChild(old[i]);
  }

  function target(t, label, cls, onClick) {
    var slot = document.querySelector("#board .slot[data-piece='" + t.piece + "'] svg");
    if (!slot) return;
    if (t.chip) {
      var art = document.createElementNS(SVG, "g");
      art.setAttribute("class", "chip-art");
      art.innerHTML = t.chip;
      slot.appendChild(art);
    }
    var rect = document.createElementNS(SVG, "rect");
    rect.setAttribute("class", "target" + (cls ? " " + cls : "") + (t.chip ? " chip" : ""));
    rect.setAttribute("x", t.box[0]); rect.setAttribute("y", t.box[1]);
    rect.setAttribute("width", t.box[2]); rect.setAttribute("height", t.box[3]);
    rect.setAttribute("data-words", label);
    rect.setAttribute("data-key", keyOf(t));
    var title = document.createElementNS(SVG, "title");
    title.textContent = label;
    rect.appendChild(title);
    rect.addEventListener("click", function (e) { e.stopPropagation(); onClick(); });
    slot.appendChild(rect);
  }

  function common(moves) {
    var words = [];
    var first = moves[0].words;
    for (var k = 0; k < first.length; k++) {
      if (moves.every(function (m) { return m.words[k] === first[k]; })) words.push(first[k]);
      else break;
    }
    return words;
  }

  function resetPicker() {
    clicked = [];
    history = [];
    candidates = view && view.moves ? view.moves.slice() : [];
    picker(candidates);
  }

  function narrow(moves, click) {
    // a button or a click leaves ``moves``: play the one left, or show what can come next
    history.push({ moves: candidates, clicked: clicked.slice() });
    if (click) clicked.push(click);
    candidates = moves;
    if (moves.length === 1) { play(moves[0]); return; }
    picker(moves);
  }

  function back() {
    var last = history.pop();
    if (!last) return;
    clicked = last.clicked;
    candidates = last.moves;
    picker(candidates);
  }

  function picker(moves) {
    clearTargets();
    var options = $("options");
    options.innerHTML = "";
    $("chosen").textContent = "";
    $("cancel").hidden = !history.length;
    document.body.dataset.targets = "0";
    if (!moves.length) return;
    // the places clicked so far; the last one clicked again takes it back
    clicked.forEach(function (c, i) {
      target(c.target, "chosen", "chosen", i === clicked.length - 1 ? back : function () {});
    });
    if (moves.length === 1) {
      var only = moves[0];
      $("chosen").textContent = "Your only choice here:";
      button(only.words.join(" "), function () { play(only); });
    } else {
      var sofar = common(moves);
      $("chosen").textContent = sofar.length ? sofar.join(" ") + " ..." : "Pick a move:";
      // buttons: the words at the first position where the moves differ
      var k0 = differing(moves)[0];
      var byWord = {}, order = [];
      moves.forEach(function (m) {
        var w = m.words[k0] === undefined ? "(end)" : m.words[k0];
        if (!byWord[w]) { byWord[w] = []; order.push(w); }
        byWord[w].push(m);
      });
      order.forEach(function (w) {
        button(w, function () { narrow(byWord[w], null); });
      });
    }
    // highlighted places: those that can come next, each standing for the moves through it
    var groups = {}, keys = [];
    moves.forEach(function (m) {
      matching(m).forEach(function (p) {
        if (p.length <= clicked.length) return;
        var t = p[clicked.length], key = keyOf(t);
        if (!groups[key]) { groups[key] = { target: t, moves: [] }; keys.push(key); }
        if (groups[key].moves.indexOf(m) < 0) groups[key].moves.push(m);
      });
    });
    keys.forEach(function (key) {
      var g = groups[key];
      var label = common(g.moves).join(" ") || g.moves[0].words.join(" ");
      target(g.target, label, "", function () {
        narrow(g.moves, { key: key, target: g.target });
      });
    });
    document.body.dataset.targets = String(keys.length);
  }

  function button(label, onClick) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "word";
    b.textContent = label;
    b.dataset.words = label;
    b.addEventListener("click", onClick);
    $("options").appendChild(b);
  }

  function play(move) {
    clearTargets();
    $("options").innerHTML = "";
    clicked = [];
    history = [];
    document.body.dataset.turn = "sending";
    api("POST", "/api/move", { action: move.id }).then(function (d) {
      message("");
      show(d.state);
    }).catch(function (err) { fail(err); if (view) show(view); });
  }

  // a click on the board off the highlighted places is refused
  $("board").addEventListener("click", function () {
    if (view && view.human_turn && !view.finished) {
      message("Not a legal move there: click a highlighted place or a move below.", true);
    }
  });
  $("cancel").addEventListener("click", resetPicker);

  // ------------------------------------------------------------------------- buttons

  $("new").addEventListener("click", showSetup);
  $("undo").addEventListener("click", function () {
    api("POST", "/api/undo", {}).then(function (state) {
      message("Your last move was taken back.");
      show(state);
    }).catch(fail);
  });
  $("save").addEventListener("click", function () {
    var name = $("save-name").value.trim();
    if (!name) { message("Give the file a name first.", true); return; }
    api("POST", "/api/save", { name: name }).then(function (d) {
      message("Saved as " + d.saved + ".");
      listSaves();
    }).catch(function (err) {
      if (err.code === "file_exists" && window.confirm(name + " exists: replace it?")) {
        api("POST", "/api/save", { name: name, replace: true }).then(function (d) {
          message("Saved as " + d.saved + "."); listSaves();
        }).catch(fail);
      } else {
        fail(err);
      }
    });
  });
  $("load").addEventListener("click", function () {
    var name = $("saves").value;
    if (!name) { message("No saved game to load.", true); return; }
    api("POST", "/api/load", { name: name }).then(function (state) {
      message("Resumed " + name + ".");
      show(state);
    }).catch(fail);
  });

  function listSaves() {
    return api("GET", "/api/saves").then(function (d) {
      var select = $("saves");
      select.innerHTML = "";
      d.saves.forEach(function (name) {
        var o = document.createElement("option"); o.value = name; o.textContent = name;
        select.appendChild(o);
      });
    }).catch(function () {});
  }

  $("game-select").addEventListener("change", fillGame);
  $("players-select").addEventListener("change", fillSeats);
  $("setup-form").addEventListener("submit", start);

  api("GET", "/api/games").then(function (d) {
    games = d.games;
    var select = $("game-select");
    games.forEach(function (g) {
      var o = document.createElement("option"); o.value = g.name; o.textContent = g.title;
      select.appendChild(o);
    });
    fillGame();
    listSaves();
    return api("GET", "/api/state");
  }).then(function (state) {
    if (state && state.game) show(state); else showSetup();
    document.body.dataset.ready = "1";
  }).catch(function (err) { fail(err); document.body.dataset.ready = "1"; });
})();
