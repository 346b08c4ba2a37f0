"""``badugi explore``: one self-contained HTML page to walk a solved strategy's game tree.

The page holds its data and script inline (no network): for every exported
decision point, the deciding seat's action or draw frequencies, reach and EV
by hand group (as ``badugi show`` prints them), the opponent's range by hand
group, and each value class's probabilities (16-bit, so any hand typed in
shows its own policy). Hand groups are drawn as a grid like a hold'em solver's
range grid: rows by card count, columns by top card, each cell's colours
split by the actions' frequencies, faded where the group is rarely there and grey where it
never is; each point names whose turn it is, its street, the pot and the bet to call.

Small games export whole; a big one exports the subtree of ``prefix`` and
rounds up to ``max_round``, and a selection over ``max_bytes`` is refused with
the figure, so a file stays near 20 MB at most. Games whose tree is never
built (cap-4 triple draw) are read through streamed walks: a subtree below
the first draw takes seconds, the first round two whole-tree walks.
"""

from __future__ import annotations

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable, NamedTuple
from urllib.parse import parse_qs, urlsplit

import numpy as np

from abstractions.cards import RANK_CHARS, SUIT_CHARS, rank_name
from abstractions.files import atomic_write

from ..game.rounds import RoundTemplates, locate, stakes
from ..game.tree import DRAW, FOLD, SEAT_NAMES, SHOWDOWN, action_name, street_name
from .reports import class_groups, group_figures
from .strategy import Strategy

MAX_BYTES = 20_000_000
BYTES_PER_PROBABILITY = 2.7  # 16-bit, base64
BYTES_PER_NODE = 300         # in JSON: history, labels, children
BYTES_PER_GROUP = 35         # reach, EV, opponent's share
BYTES_PER_GROUP_ACTION = 8   # a frequency


def _short(x: float, digits: int) -> float:
    """``x`` to ``digits`` significant digits (the page prints at most four)."""
    return float(f"{float(x):.{digits}g}")


class _Point(NamedTuple):
    """A decision point of the page: its id there, history, seat, kind, and for each action its
    label and the id of the point it leads to (-1 if not exported) or how the hand ends."""

    key: int
    history: str
    seat: int
    kind: int
    labels: list
    children: list


class _Selection(NamedTuple):
    points: dict          # key -> _Point, in tree order
    n_actions: int
    figures: Callable     # () -> iterator of (key, NodeStats batch, index in it, probabilities, locked)


def _ends(kind: int) -> str:
    return "fold" if kind == FOLD else "showdown" if kind == SHOWDOWN else ""


def _built_selection(strategy: Strategy, prefix: str | None, max_round: int | None) -> _Selection:
    tree = strategy.tree
    wanted = tree.kind <= DRAW
    if prefix:
        inside = np.zeros(tree.n_nodes, bool)
        tree.mark_subtree(inside, tree.node_at(prefix))  # ValueError names a bad prefix
        wanted &= inside
    if max_round is not None:
        wanted &= tree.round <= max_round
    nodes = np.nonzero(wanted)[0]
    points = {}
    for node in nodes.tolist():
        children = [(chr(tree.action[c]), int(c) if wanted[c] else -1, _ends(int(tree.kind[c])))
                    for c in tree.children(node)]
        points[node] = _Point(node, tree.history(node), int(tree.seat[node]), int(tree.kind[node]),
                              [c[0] for c in children], children)

    def figures():
        for batch in strategy.stats(nodes):
            for i, node in enumerate(batch.nodes.tolist()):
                locked = strategy.locked_classes(node) if strategy.locks is not None else None
                yield node, batch, i, strategy.strategy_at(node), locked

    return _Selection(points, int(tree.n_children[nodes].astype(np.int64).sum()), figures)


def _streamed_selection(strategy: Strategy, prefix: str | None, max_round: int | None,
                        max_bytes: int) -> _Selection:
    """A game whose tree is never built: the trunk's decision points (first round) and the
    shape's below each cut, with ids ``trunk node`` and ``trunk size + cut x shape size + shape
    node``. Refused before any walk when too big."""
    # (a compact strategy's store walked a subtree at a time, a strategy file's streamed walks)
    walker = strategy.walks if strategy.store is not None else strategy.streamed
    trunk, shape, cut_nodes = (walker.trunk, walker.shape, walker.cut_nodes) if strategy.store is not None else \
        (walker.game.trunk, walker.game.shape, walker.game.cut_nodes)
    if prefix:
        strategy.decision(prefix)  # ValueError names a bad prefix
    cut, node = walker.locate(prefix or "")
    cut_index = walker.cut_index if strategy.store is not None else walker.cuts.index
    n_trunk = trunk.n_nodes
    n_shape = shape.n_nodes if shape is not None else 0
    in_shape = np.zeros(max(n_shape, 1), bool)
    if cut >= 0:
        trunk_nodes, cuts = np.zeros(0, np.int64), [cut]
        shape.mark_subtree(in_shape, node)
    else:
        inside = np.zeros(n_trunk, bool)
        trunk.mark_subtree(inside, node)
        trunk_nodes = np.nonzero(inside & (trunk.kind <= DRAW) & (cut_index < 0))[0]
        cuts = cut_index[inside & (cut_index >= 0)].tolist()
        if max_round is not None:
            trunk_nodes = trunk_nodes[trunk.round[trunk_nodes] <= max_round]
        if shape is not None:
            in_shape[:] = True
    shape_wanted = in_shape & (shape.kind <= DRAW) if shape is not None else in_shape & False
    if shape is not None and max_round is not None:
        shape_wanted &= shape.round <= max_round
    shape_nodes = np.nonzero(shape_wanted)[0]
    if not len(shape_nodes):
        cuts = []
    n_points = len(trunk_nodes) + len(cuts) * len(shape_nodes)
    n_actions = int(trunk.n_children[trunk_nodes].astype(np.int64).sum())
    if cuts:
        n_actions += len(cuts) * int(shape.n_children[shape_nodes].astype(np.int64).sum())
    _check_size(strategy, n_points, n_actions, max_bytes,
                "export fewer rounds with --max-round or a deeper --prefix" if cut >= 0 else
                "for a game this big, export the first round with --max-round 0 or a subtree below "
                "the first draw with --prefix (e.g. --prefix ck/00/ --max-round 1)")
    selected_cuts = set(cuts)

    def shape_key(c: int, s: int) -> int:
        return n_trunk + c * n_shape + s if c in selected_cuts and shape_wanted[s] else -1

    points = {}
    trunk_set = set(trunk_nodes.tolist())
    for t in trunk_nodes.tolist():
        children = []
        for c in trunk.children(t):
            c = int(c)
            key = c if c in trunk_set else shape_key(int(cut_index[c]), 0) if cut_index[c] >= 0 else -1
            children.append((chr(trunk.action[c]), key, _ends(int(trunk.kind[c]))))
        points[t] = _Point(t, trunk.history(t), int(trunk.seat[t]), int(trunk.kind[t]),
                           [c[0] for c in children], children)
    if cuts:
        shape_history = {s: shape.history(s) for s in shape_nodes.tolist()}
        shape_children = {s: [(chr(shape.action[c]), int(c), _ends(int(shape.kind[c]))) for c in shape.children(s)]
                          for s in shape_nodes.tolist()}
        for c in cuts:
            above = trunk.history(int(cut_nodes[c]))
            for s in shape_nodes.tolist():
                children = [(label, shape_key(c, child), end) for label, child, end in shape_children[s]]
                key = n_trunk + c * n_shape + s
                points[key] = _Point(key, above + shape_history[s], int(shape.seat[s]), int(shape.kind[s]),
                                     [x[0] for x in children], children)

    def figures():
        wanted = {c: shape_nodes for c in cuts}
        batches = walker.node_stats(trunk_nodes, wanted) if strategy.store is not None else \
            walker.node_stats(strategy.probabilities, trunk_nodes, wanted)
        for c, batch in batches:
            for i, node in enumerate(batch.nodes.tolist()):
                key = node if c < 0 else n_trunk + c * n_shape + node
                decision = strategy.decision(points[key].history)
                yield key, batch, i, strategy.decision_strategy(decision), None

    return _Selection(points, n_actions, figures)


def _check_size(strategy: Strategy, n_points: int, n_actions: int, max_bytes: int, hint: str) -> None:
    n_groups = len(class_groups(strategy)[1])
    size = n_actions * (strategy.n_states * BYTES_PER_PROBABILITY + n_groups * BYTES_PER_GROUP_ACTION) \
        + n_points * (BYTES_PER_NODE + n_groups * BYTES_PER_GROUP)
    if size > max_bytes:
        raise ValueError(f"that selection ({n_points:,} decision points) would make a file of about "
                         f"{size / 1e6:.0f} MB; {hint} (limit {max_bytes / 1e6:.0f} MB, --max-mb)")


class _Groups(NamedTuple):
    """The hand groups of a game's page: each class's group, the labels, each group's cards and top."""

    of: np.ndarray
    labels: list
    count: list
    top: list


def _groups(strategy: Strategy) -> _Groups:
    group_of, labels = class_groups(strategy)
    ev = strategy.evaluator
    counts = ev.value_card_count.astype(int)
    tops = np.array([ev.value_ranks(v)[0] for v in range(strategy.n_states)])
    return _Groups(group_of, labels, [int(counts[group_of == g][0]) for g in range(len(labels))],
                   [int(tops[group_of == g][0]) for g in range(len(labels))])


def point_json(strategy: Strategy, groups: _Groups, history: str, seat: int, kind: int, labels: list, children: list,
               stats, i: int, probs: np.ndarray, locked, action_values: np.ndarray | None = None) -> dict:
    """One decision point as the page shows it (``stats``: a NodeStats batch, ``i`` its row;
    ``children``: per action its label, the point it leads to and how the hand ends there;
    ``action_values``: the acting seat's value of each action by class, weighted by the
    opponent's reach, where known)."""
    group_of, n_groups = groups.of, len(groups.labels)
    reach = stats.reach_of(i, seat)
    value = stats.ev_mbb(i, seat)
    opponent = stats.reach[i, 1 - seat]
    is_draw = kind == DRAW
    rows = [[_short(mass, 9), [round(f, 8) for f in freq], round(ev, 1) if mass > 0 else None]
            for mass, freq, ev in group_figures(group_of, n_groups, reach, probs, value)]
    opp_mass = np.bincount(group_of, weights=opponent, minlength=n_groups)
    opp_total = opp_mass.sum()
    templates = strategy.templates
    at = locate(templates, history)
    pot, to_call = stakes(templates, at)
    legal = strategy.rows_layout.class_legal
    quantised = np.round(np.nan_to_num(probs) * 65535).astype("<u2")
    if is_draw:
        quantised = quantised * legal.T[:probs.shape[0]].astype("<u2")
    out = {
        "history": history, "seat": seat, "draw": bool(is_draw),
        "street": f"draw {at.round + 1}" if is_draw else street_name(at.round),
        "pot": round(pot / strategy.config.big_blind, 4), "to_call": round(to_call / strategy.config.big_blind, 4),
        "labels": labels,
        "names": [action_name(label, kind) for label in labels],
        "children": [list(c) for c in children],
        "reached": float(reach.sum()),
        "groups": rows,
        "opponent": [_short(m / opp_total, 4) if opp_total > 0 else 0.0 for m in opp_mass],
        "probs": base64.b64encode(quantised.tobytes()).decode("ascii"),
        "locked": None if locked is None else [
            ("all" if locked[group_of == g].all() else "some" if locked[group_of == g].any() else "")
            for g in range(n_groups)],
    }
    if action_values is not None:
        # Each class's EV of each action (mbb/hand, whole numbers; the int32 minimum where it is not
        # known: the opponent never gets here, or a draw the class may not make).
        opp_total_reach = opponent.sum()
        ev = action_values / opp_total_reach * 1000.0 if opp_total_reach > 0 else np.full_like(action_values, np.nan)
        whole = np.where(np.isfinite(ev), np.round(ev), np.iinfo(np.int32).min).astype("<i4")
        out["action_ev"] = base64.b64encode(whole.tobytes()).decode("ascii")
    return out


def page_header(strategy: Strategy, root, prefix: str | None, served: bool = False) -> dict:
    """What every page of a strategy shows besides its points: the game, the deck, the groups."""
    ev = strategy.evaluator
    groups = _groups(strategy)
    return {
        "game": strategy.config.describe(),
        "directory": str(strategy.directory),
        "exploitability_mbb": strategy.exploitability_mbb,
        "game_value_mbb": strategy.game_value_mbb,
        "seats": [SEAT_NAMES[0], SEAT_NAMES[1]],
        "hand_size": strategy.config.hand_size,
        "ranks": RANK_CHARS[:strategy.config.ranks],
        "suits": SUIT_CHARS[:strategy.config.suits],
        "n_states": strategy.n_states,
        "value_codes": [int(c) for c in ev.value_codes],
        "class_names": [ev.describe(v) for v in range(strategy.n_states)],
        "group_labels": groups.labels,
        "group_count": groups.count,
        "group_top": [rank_name(t) for t in groups.top],
        "root": root,
        "prefix": prefix or "",
        "served": served,
        "nodes": {},
    }


def explorer_data(strategy: Strategy, prefix: str | None = None, max_round: int | None = None,
                  max_bytes: int = MAX_BYTES) -> dict:
    """Everything the page shows, as JSON-ready data; ValueError if the selection is too big.
    A game whose tree is never built (cap-4 triple draw) is read through streamed walks: a
    subtree below the first draw in seconds, first-round points with two whole-tree walks."""
    if strategy.tree is None:
        selection = _streamed_selection(strategy, prefix, max_round, max_bytes)
    else:
        selection = _built_selection(strategy, prefix, max_round)
        _check_size(strategy, len(selection.points), selection.n_actions, max_bytes,
                    "export a subtree with --prefix (e.g. --prefix ck/00/) or fewer rounds with --max-round")
    if not selection.points:
        raise ValueError("no decision point in that selection")
    groups = _groups(strategy)
    out_nodes = {}
    for key, batch, i, probs, locked in selection.figures():
        point = selection.points[key]
        out_nodes[key] = point_json(strategy, groups, point.history, point.seat, point.kind, point.labels,
                                    point.children, batch, i, probs, locked)
    data = page_header(strategy, next(iter(selection.points)), prefix)
    data["nodes"] = {key: out_nodes[key] for key in selection.points}  # tree order
    return data


def write_explorer(strategy: Strategy, path: str | Path, prefix: str | None = None, max_round: int | None = None,
                   max_bytes: int = MAX_BYTES) -> Path:
    """The self-contained page of a selection of the strategy's decision points, written to ``path``."""
    data = explorer_data(strategy, prefix, max_round, max_bytes)
    path = Path(path)
    text = PAGE.replace("/*DATA*/null", json.dumps(data, separators=(",", ":")).replace("</", "<\\/"))
    with atomic_write(path, "w") as f:
        f.write(text)
    return path


# -- served: a page on localhost that asks for each spot as it is opened ---------------------

def child_points(templates: RoundTemplates, history: str) -> list:
    """Per action of the decision at ``history``: its label, the history of the decision it leads
    to (None where the hand ends) and how the hand ends there ("fold", "showdown" or "")."""
    at = locate(templates, history)
    out = []
    for label in at.labels:
        following = history + label
        for candidate in (following + "/", following):   # (a round's end: its separator)
            try:
                locate(templates, candidate)
                out.append((label, candidate, ""))
                break
            except ValueError as err:
                if "ends the hand" in str(err):
                    out.append((label, None, "fold" if label == "f" else "showdown"))
                    break
        else:
            raise AssertionError(f"{history!r}: action {label!r} leads nowhere")
    return out


def spot_json(strategy: Strategy, history: str) -> dict:
    """The page's point at ``history`` from one spot of the strategy (:meth:`Strategy.spot`),
    with each class's EV of each action."""
    spot = strategy.spot(history)
    locked = None
    if strategy.tree is not None and strategy.locks is not None:
        locked = strategy.locked_classes(int(spot.stats.nodes[0]))
    return point_json(strategy, _groups(strategy), history, spot.seat, spot.kind, spot.labels,
                      child_points(strategy.templates, history), spot.stats, 0, spot.strategy, locked,
                      spot.action_values)


class ExplorerServer(ThreadingHTTPServer):
    """``badugi explore --serve``: the page, and each spot as JSON when the page opens it
    (``/spot?history=H``), one at a time, the last ones kept."""

    daemon_threads = True

    def __init__(self, strategy: Strategy, host: str = "127.0.0.1", port: int = 0, say=lambda line: None):
        super().__init__((host, port), _ExplorerHandler)
        self.strategy = strategy
        self.say = say
        data = page_header(strategy, "", None, served=True)
        self.page = PAGE.replace("/*DATA*/null", json.dumps(data, separators=(",", ":")).replace("</", "<\\/"))
        self.spots: dict = {}
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/"

    def spot(self, history: str) -> bytes:
        with self.lock:   # (the spots share the store's walks: one at a time)
            found = self.spots.get(history)
            if found is None:
                found = json.dumps(spot_json(self.strategy, history), separators=(",", ":")).encode()
                self.spots[history] = found
                while len(self.spots) > SERVED_SPOTS:
                    self.spots.pop(next(iter(self.spots)))
            return found


SERVED_SPOTS = 256


class _ExplorerHandler(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (the standard library's name)
        url = urlsplit(self.path)
        try:
            if url.path in ("/", "/index.html"):
                self._send(200, "text/html; charset=utf-8", self.server.page.encode())
            elif url.path == "/spot":
                history = parse_qs(url.query, keep_blank_values=True).get("history", [""])[0]
                self._send(200, "application/json", self.server.spot(history))
            else:
                self._send(404, "text/plain; charset=utf-8", b"not here")
        except ValueError as err:   # a history that is not a decision
            self._send(400, "text/plain; charset=utf-8", str(err).encode())

    def _send(self, status: int, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):  # noqa: A002 (quiet: the command prints its own lines)
        pass


PAGE = r"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Badugi strategy explorer</title>
<style>
body{font:14px system-ui,sans-serif;margin:16px;color:#222;max-width:1200px}
h1{font-size:18px;margin:0 0 4px} .sub{color:#666;margin-bottom:12px}
#path a{cursor:pointer;color:#1565c0;margin-right:4px} #path code{background:#eee;padding:2px 6px}
.actions button{margin:4px 6px 4px 0;padding:6px 10px;border:1px solid #888;border-radius:4px;cursor:pointer;background:#fafafa}
.actions button:disabled{cursor:default;color:#999}
.panel{display:flex;gap:28px;flex-wrap:wrap;margin-top:10px}
table.grid{border-collapse:collapse} table.grid td{width:38px;height:30px;border:1px solid #fff;padding:0;position:relative}
table.grid th{font-weight:normal;color:#555;padding:0 4px;font-size:12px}
.cell{display:flex;height:100%;width:100%} .cell span{display:block;height:100%}
.cell.never{background:repeating-linear-gradient(45deg,#e4e4e4 0 4px,#f4f4f4 4px 8px)}
.cell-label{position:absolute;left:2px;top:1px;font-size:10px;color:#000;text-shadow:0 0 2px #fff}
table.stats{border-collapse:collapse;font-size:12px} table.stats td,table.stats th{padding:2px 6px;text-align:right;border-bottom:1px solid #eee}
table.stats td:first-child,table.stats th:first-child{text-align:left}
.legend span{display:inline-block;margin-right:10px} .legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-2px}
#hand-result{margin-top:6px} #stakes{font-weight:bold;margin-bottom:2px}
</style></head><body>
<h1>Badugi strategy explorer</h1>
<div class="sub" id="sub"></div>
<div id="path"></div>
<h2 id="title" style="font-size:16px"></h2>
<div id="stakes"></div>
<div id="reached"></div>
<div id="status" style="color:#8a6d00"></div>
<div class="actions" id="actions"></div>
<div class="legend" id="legend"></div>
<div class="panel">
 <div><div><b id="deciding">Deciding player, by hand group</b> (colour: action mix; faded: rarely here; grey: never here)</div><table class="grid" id="grid"></table></div>
 <div><div><b id="opp-title">Opponent's range here</b> <span id="opp-note"></span></div><table class="grid" id="opp"></table></div>
</div>
<div style="margin-top:12px"><label>Hand: <input id="hand" size="12" placeholder="e.g. 7h5d4d3s"></label>
 <button id="lookup">show its policy</button><div id="hand-result"></div></div>
<h3 style="font-size:14px">By hand group (as <code>badugi show</code> prints it)</h3>
<table class="stats" id="stats"></table>
<script>
const DATA = /*DATA*/null;
const COLOURS = {f:"#9e9e9e",k:"#4c9be8",c:"#2e7d32",b:"#f0a030",r:"#c62828",
  "0":"#6a1b9a","1":"#1e88e5","2":"#43a047","3":"#fb8c00","4":"#e53935"};
let current = DATA.root, trail = [];
function pct(x, d){ return (100 * x).toFixed(d) + "%"; }
function num(x){ return (+x.toFixed(2)).toString(); }
const MIN_REACH = 1e-6;  // as the charts: a group here less often than this is never here
function decode(b64){ const bin = atob(b64); const out = new Uint16Array(bin.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = bin.charCodeAt(2*i) | (bin.charCodeAt(2*i+1) << 8); return out; }
function cardsOf(text){
  const t = text.replace(/[\s,]/g, ""); const cards = [];
  for (let i = 0; i < t.length; ) {
    let r; if (t.startsWith("10", i)) { r = "T"; i += 2; } else { r = t[i].toUpperCase(); i += 1; }
    const s = (t[i] || "").toLowerCase(); i += 1;
    const ri = DATA.ranks.indexOf(r), si = DATA.suits.indexOf(s);
    if (ri < 0 || si < 0) return null; cards.push([ri, si]); }
  if (cards.length !== DATA.hand_size) return null;
  const seen = new Set(cards.map(c => c[0] + "," + c[1])); if (seen.size !== cards.length) return null;
  return cards; }
function classOf(cards){
  // The best subset with distinct ranks and suits: most cards, then the lowest code (highest card first).
  const n = cards.length, ranks = DATA.ranks.length; let best = null;
  for (let m = 1; m < (1 << n); m++) {
    const sub = cards.filter((_, i) => m >> i & 1);
    if (new Set(sub.map(c => c[0])).size !== sub.length || new Set(sub.map(c => c[1])).size !== sub.length) continue;
    let mask = 0; for (const c of sub) mask += 2 ** c[0];
    const code = (DATA.hand_size - sub.length) * 2 ** ranks + mask;
    if (best === null || code < best) best = code; }
  return DATA.value_codes.indexOf(best); }
function grid(table, values, colourOf, labelOf, titleOf){
  const counts = [...new Set(DATA.group_count)].sort((a, b) => b - a);
  const tops = DATA.ranks.split("");
  let html = "<tr><th></th>" + tops.map(t => "<th>" + t + "</th>").join("") + "</tr>";
  for (const count of counts) {
    html += "<tr><th>" + (count === 4 ? "badugi" : count + "-card") + "</th>";
    for (const top of tops) {
      const g = DATA.group_labels.findIndex((_, j) => DATA.group_count[j] === count && DATA.group_top[j] === top);
      html += g < 0 ? "<td></td>" : "<td data-group='" + DATA.group_labels[g] + "' title='" + titleOf(g) + "'>" + colourOf(g) + labelOf(g) + "</td>"; }
    html += "</tr>"; }
  table.innerHTML = html; }
async function show(id){
  // A served page asks for each spot when it is first opened (badugi explore --serve).
  if (!(id in DATA.nodes)) {
    const status = document.getElementById("status");
    status.textContent = "loading '" + id + "' ...";
    const answer = await fetch("spot?history=" + encodeURIComponent(id));
    if (!answer.ok) { status.textContent = await answer.text(); return; }
    DATA.nodes[id] = await answer.json();
    status.textContent = ""; }
  current = id; const node = DATA.nodes[id];
  const other = DATA.seats[1 - node.seat];
  document.getElementById("title").textContent = DATA.seats[node.seat] + " to " + (node.draw ? "draw" : "act") +
    ", " + node.street + " (history '" + node.history + "')";
  document.getElementById("stakes").textContent = "pot " + num(node.pot) + " bb" +
    (node.draw ? "" : node.to_call > 0 ? "; " + num(node.to_call) + " bb to call" : "; nothing to call");
  document.getElementById("reached").textContent = "reached in " + pct(node.reached, 3) + " of hands";
  document.getElementById("deciding").textContent = DATA.seats[node.seat] + ", by hand group";
  document.getElementById("opp-title").textContent = "The " + other + "'s range here";
  document.getElementById("opp-note").textContent = "(share of the " + other + "'s hands)";
  let path = "<a data-step='root'>start</a> "; trail.forEach((t, i) => path += "<a data-step='" + i + "'>" + DATA.nodes[t].history + "</a> ");
  document.getElementById("path").innerHTML = "history: <code id='history'>" + node.history + "</code> &nbsp; " + path;
  document.querySelectorAll("#path a").forEach(a => a.onclick = () => {
    const s = a.dataset.step; if (s === "root") { trail = []; show(DATA.root); } else { const t = trail[+s]; trail = trail.slice(0, +s); show(t); } });
  const total = node.labels.map((_, a) => node.groups.reduce((acc, g) => acc + g[0] * g[1][a], 0) / Math.max(node.reached, 1e-300));
  const actions = document.getElementById("actions"); actions.innerHTML = "";
  node.children.forEach(([label, child, end], a) => {
    const b = document.createElement("button"); b.dataset.action = label;
    const away = child === null || child === -1;
    b.textContent = node.names[a] + " (" + pct(total[a], 1) + ")" + (end ? " \u2192 " + end : away ? " \u2192 not exported" : "");
    b.disabled = away; b.onclick = () => { trail.push(current); show(child); }; actions.appendChild(b); });
  document.getElementById("legend").innerHTML = node.labels.map((l, a) => "<span><i style='background:" + COLOURS[l] + "'></i>" + node.names[a] + "</span>").join("");
  const maxReach = Math.max(...node.groups.map(g => g[0]), 1e-300);
  grid(document.getElementById("grid"), null, g => {
      const [m, f] = node.groups[g];
      if (m < MIN_REACH) return "<div class='cell never'></div>";  // never here: no action mix to show
      const o = Math.max(0.12, Math.sqrt(m / maxReach));
      return "<div class='cell' style='opacity:" + o + "'>" + f.map((x, a) => "<span style='width:" + (100 * x) + "%;background:" + COLOURS[node.labels[a]] + "'></span>").join("") + "</div>"; },
    g => "<span class='cell-label'>" + (node.locked && node.locked[g] ? "L" : "") + "</span>",
    g => DATA.group_labels[g] + (node.groups[g][0] < MIN_REACH ? ": never here" : ": reach " + pct(node.groups[g][0], 3) + "; " + node.names.map((n, a) => n + " " + pct(node.groups[g][1][a], 1)).join(", ")));
  const maxOpp = Math.max(...node.opponent, 1e-300);
  grid(document.getElementById("opp"), null, g => "<div class='cell' style='background:#5c6bc0;opacity:" + Math.max(0.04, node.opponent[g] / maxOpp) + "'></div>",
    g => "", g => DATA.group_labels[g] + ": " + pct(node.opponent[g], 2) + " of the " + other + "'s hands");
  let rows = "<tr><th>hand</th><th>reach %</th>" + node.names.map(n => "<th>" + n + "</th>").join("") + "<th>EV mbb</th>" + (node.locked ? "<th>locked</th>" : "") + "</tr>";
  node.groups.forEach(([m, f, ev], g) => { if (m < 1e-6) return;
    rows += "<tr data-group='" + DATA.group_labels[g] + "'><td>" + DATA.group_labels[g] + "</td><td>" + (100 * m).toFixed(3) + "</td>" +
      f.map((x, a) => "<td data-action='" + node.labels[a] + "'>" + (100 * x).toFixed(1) + "%</td>").join("") +
      "<td>" + (ev === null ? "" : ev.toFixed(0)) + "</td>" + (node.locked ? "<td>" + node.locked[g] + "</td>" : "") + "</tr>"; });
  document.getElementById("stats").innerHTML = rows;
  lookup(false); }
function lookup(fromButton){
  const text = document.getElementById("hand").value, out = document.getElementById("hand-result");
  if (!text) { out.textContent = ""; return; }
  const cards = cardsOf(text); if (!cards) { out.textContent = "not a " + DATA.hand_size + "-card hand of this deck: " + text; return; }
  const v = classOf(cards), node = DATA.nodes[current], probs = decode(node.probs), n = DATA.n_states;
  const ev = node.action_ev ? new Int32Array(Uint8Array.from(atob(node.action_ev), c => c.charCodeAt(0)).buffer) : null;
  const evText = a => !ev ? "" : ev[a * n + v] === -2147483648 ? " (EV -)" :
    " (EV " + (ev[a * n + v] > 0 ? "+" : "") + ev[a * n + v] + " mbb)";
  out.innerHTML = "<span id='hand-class'>" + DATA.class_names[v] + "</span>: " + node.labels.map((l, a) =>
    "<span data-action='" + l + "'>" + node.names[a] + " " + (probs[a * n + v] / 655.35).toFixed(2) + "%</span>" +
    "<span data-ev='" + l + "'>" + evText(a) + "</span>").join(", "); }
document.getElementById("lookup").onclick = () => lookup(true);
document.getElementById("hand").onkeydown = e => { if (e.key === "Enter") lookup(true); };
document.getElementById("sub").textContent = DATA.game + " \u2014 " + DATA.directory + "; exploitability " +
  DATA.exploitability_mbb.toFixed(3) + " mbb/hand; button's value " + DATA.game_value_mbb.toFixed(2) + " mbb/hand" +
  (DATA.prefix ? "; exported below '" + DATA.prefix + "'" : "");
show(DATA.root);
</script></body></html>
"""
