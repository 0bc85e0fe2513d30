// The nbgraph graph view in the browser (an anywidget module).
//
// The kernel sends the laid-out SVG (or, without Graphviz in the kernel, the DOT
// source, laid out here by Graphviz compiled to WebAssembly). This module draws it,
// folds and unfolds clusters (loops, branches, helper calls; the kernel lays out the
// new view, refitted to the width), searches nodes by name, op or line, and shows the
// clicked node's details; the selection is the model's `selected` (the node's listing
// name, "%7"), shared with Python.

const WASM_TIMEOUT_MS = 30000;
// "Unfold all" lays every node out: past this many, unfold cluster by cluster instead.
const UNFOLD_ALL_LIMIT = 3000;
// A foldable cluster's id: a cond/while (n7), a helper call (g7_1: its first node, how
// many calls deep), a gradient's backward half (b7_1), a loop unrolled while tracing
// (u7_0: its first node, how deep it is), a range of its iterations (r7_1), one
// iteration (i7_2).
const CLUSTER = /^cluster_(n\d+|[gburi]\d+_\d+)$/;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function button(text, title) {
  const node = el("button", "", text);
  node.type = "button";
  node.title = title;
  return node;
}

function checkbox(text, title) {
  const label = el("label");
  const box = el("input");
  box.type = "checkbox";
  label.title = title;
  label.append(box, text);
  return { label, box };
}

// The browser's Graphviz, loaded once per page from the kernel (only when needed).
function loadGraphviz(model) {
  if (!globalThis.__nbgraphGraphviz) {
    const loading = new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error("the kernel did not send the browser's Graphviz")),
        WASM_TIMEOUT_MS,
      );
      const onMessage = (msg) => {
        if (!msg || msg.type !== "graphviz-module") return;
        model.off("msg:custom", onMessage);
        clearTimeout(timer);
        const url = URL.createObjectURL(new Blob([msg.source], { type: "text/javascript" }));
        import(/* webpackIgnore: true */ url)
          .then((module) => module.Graphviz.load())
          .then(resolve, reject)
          .finally(() => URL.revokeObjectURL(url));
      };
      model.on("msg:custom", onMessage);
      model.send({ type: "graphviz-module" });
    });
    loading.catch(() => {
      globalThis.__nbgraphGraphviz = undefined; // let a later view try again
    });
    globalThis.__nbgraphGraphviz = loading;
  }
  return globalThis.__nbgraphGraphviz;
}

// Which nodes a search finds: "%7" or "7" (name, or line 7), "line 7" / "L7", a piece
// of the op's name ("sum", "getitem", "while"), "nan" / "inf": the nodes whose
// inspected value holds one, or "fused": the operations the backend fused. What
// conversion added is found only while it is drawn (`everything`).
function search(nodes, text, everything) {
  const query = text.trim().toLowerCase();
  if (!query) return [];
  const line = /^(?:line\s*|l)(\d+)$/.exec(query);
  const number = /^%?(\d+)$/.exec(query);
  const found = [];
  for (const [id, info] of Object.entries(nodes)) {
    if (!visible(info, everything)) continue;
    const at = info.line === undefined ? -1 : info.line;
    const hit = line
      ? at === Number(line[1])
      : number
        ? info.name === `%${number[1]}` || at === Number(number[1])
        : info.op.toLowerCase().includes(query) || info.kind === query || holds(info, query);
    if (hit) found.push(id);
  }
  return found;
}

// Whether a node has a box: not what conversion added, unless that is drawn too.
function visible(info, everything) {
  return info.drawn && (everything || !info.scaffolding);
}

function holds(info, query) {
  if (query === "fused") return Boolean(info.fused);
  return (query === "nan" && info.nan > 0) || (query === "inf" && info.inf > 0);
}

function render({ model, el: host }) {
  const root = el("div", "nbgraph-graph-root");
  const bar = el("div", "nbgraph-graph-toolbar");
  const title = el("span", "nbgraph-graph-title", model.get("title"));
  const find = el("input");
  find.type = "search";
  find.placeholder = "Search name, op or line";
  const found = el("span", "nbgraph-graph-found");
  const types = checkbox("types", "Label edges with dtype[shape]");
  const values = checkbox("values", "Show the values of the inspected run");
  const fusion = checkbox("fusion", "Outline the operations the backend computes in one pass");
  const everything = checkbox("scaffolding",
    "Also draw what conversion added: the flags of break, continue and return, and the " +
    "effect token that orders prints");
  const foldAll = button("Fold all", "Fold every cluster (loops, branches, helper calls)");
  const unfoldAll = button("Unfold all", "Unfold every cluster");
  const zoomOut = button("−", "Zoom out");
  const zoomFit = button("Fit", "Fit the width");
  const zoomIn = button("+", "Zoom in");
  const explainButton = button("Explain",
    "Why this graph was traced, loops unrolled, what runs in Python, copies in loops, " +
    "fused passes");
  explainButton.classList.add("nbgraph-graph-explain");
  bar.append(title, find, found, types.label, values.label, fusion.label, everything.label,
    foldAll, unfoldAll,
    zoomOut, zoomFit, zoomIn, explainButton);
  const main = el("div", "nbgraph-graph-main");
  const canvas = el("div", "nbgraph-graph-canvas");
  canvas.tabIndex = 0;
  const panel = el("div", "nbgraph-graph-panel");
  main.append(canvas, panel);
  const legend = el("div", "nbgraph-graph-legend");
  const status = el("div", "nbgraph-graph-status");
  root.append(bar, main, legend, status);
  host.append(root);

  let scale = 1;
  let matches = [];
  let matchIndex = -1;
  let drawing = 0; // the newest draw; older (slower) browser layouts are dropped
  let scrollTo = null; // a node to bring into view once the next layout arrives
  let drawnFolds = null; // the open clusters of the drawing shown: refit when they change
  let explaining = false; // the panel shows the explanation, not a node's details
  let zoomed = false; // zoomed by hand since the last fit

  const nodes = () => model.get("nodes");
  const groups = () => model.get("groups");
  const idOf = (name) => (name ? `n${name.slice(1)}` : "");
  const selectedId = () => idOf(model.get("selected"));
  const unfolded = () => new Set(model.get("unfolded"));
  const records = new Map(); // id -> the node's full record, from the kernel
  const waiting = new Map(); // id -> what waits for its record

  // The clusters around a node, outermost first (from the index's `in`).
  function clustersOf(id) {
    const out = [];
    let cluster = nodes()[id] ? nodes()[id].in : undefined;
    while (cluster) {
      out.unshift(cluster);
      const around = groups()[cluster] || nodes()[cluster];
      cluster = around ? around.in : undefined;
    }
    return out;
  }

  // The full record of a node, asked of the kernel once (a graph can be large).
  function record(id) {
    if (records.has(id)) return Promise.resolve(records.get(id));
    return new Promise((resolve) => {
      if (!waiting.has(id)) {
        waiting.set(id, []);
        model.send({ type: "details", ids: [id] });
      }
      waiting.get(id).push(resolve);
    });
  }

  function onMessage(msg) {
    if (!msg || msg.type !== "details") return;
    for (const [id, info] of Object.entries(msg.nodes)) {
      records.set(id, info);
      for (const resolve of waiting.get(id) || []) resolve(info);
      waiting.delete(id);
    }
  }

  function setUnfolded(ids) {
    model.set("unfolded", [...ids]);
    model.save_changes();
  }

  // The id of the box showing a node: itself, the projected node, or the outermost
  // folded cluster around it.
  function shownId(id) {
    const info = nodes()[id];
    if (!info) return null;
    const open = unfolded();
    const folded = clustersOf(id).find((c) => !open.has(c));
    if (folded) return folded;
    if (info.via) return shownId(info.via);
    return visible(info, model.get("show_scaffolding")) ? id : null;
  }

  function box(id) {
    const shown = id && shownId(id);
    return shown ? canvas.querySelector(`g.node[id="${shown}"]`) : null;
  }

  function applyScale() {
    const svg = canvas.querySelector("svg");
    if (!svg) return;
    const [, , width, height] = svg.getAttribute("viewBox").split(/\s+/).map(Number);
    svg.setAttribute("width", `${width * scale}px`);
    svg.setAttribute("height", `${height * scale}px`);
  }

  // Fit the width: up to 1.5x when asked, never above 1x after a fold or unfold.
  function fit(largest = 1.5) {
    const svg = canvas.querySelector("svg");
    if (!svg) return;
    const width = Number(svg.getAttribute("viewBox").split(/\s+/)[2]);
    scale = Math.min(largest, Math.max(0.1, (canvas.clientWidth - 16) / width));
    applyScale();
  }

  function decorate() {
    const selected = shownId(selectedId());
    const matched = new Set(matches.map(shownId));
    for (const g of canvas.querySelectorAll("g.node")) {
      g.classList.toggle("nbgraph-graph-selected", g.id === selected);
      g.classList.toggle("nbgraph-graph-match", matched.has(g.id));
    }
    for (const text of canvas.querySelectorAll("g.cluster > text")) {
      if (CLUSTER.test(text.parentNode.id)) {
        text.classList.add("nbgraph-graph-fold");
      }
    }
  }

  function bringIntoView(id) {
    const target = box(id);
    if (target) target.scrollIntoView({ block: "nearest", inline: "nearest" });
  }

  async function draw() {
    const ticket = ++drawing;
    let text = model.get("svg");
    if (model.get("engine") === "browser") {
      status.textContent = "Laying the graph out in the browser…";
      try {
        const graphviz = await loadGraphviz(model);
        text = graphviz.dot(model.get("dot"));
      } catch (error) {
        if (ticket !== drawing) return;
        const help = model.get("layout_help");
        status.textContent = help
          ? `${help}\n(The browser's Graphviz failed too: ${error.message || error}.)`
          : `The browser could not lay the graph out: ${error.message || error}`;
        status.className = "nbgraph-graph-status nbgraph-graph-error";
        return;
      }
      if (ticket !== drawing) return;
      status.textContent = "";
    }
    const start = text.indexOf("<svg");
    canvas.innerHTML = start >= 0 ? text.slice(start) : "";
    const folds = [...unfolded()].sort().join(" ");
    if (folds !== drawnFolds) {
      drawnFolds = folds;
      zoomed = false;
      fit(1);
    }
    applyScale();
    decorate();
    if (scrollTo) {
      bringIntoView(scrollTo);
      scrollTo = null;
    }
  }

  function toggleFold(id) {
    const open = unfolded();
    if (open.has(id)) open.delete(id);
    else open.add(id);
    setUnfolded(open);
  }

  // Select a node (or none, for ""), unfolding the clusters around it.
  function select(id) {
    const info = nodes()[id];
    const name = info ? info.name : "";
    if (model.get("selected") !== name) {
      model.set("selected", name);
      model.save_changes();
    }
    showSelection();
  }

  function showSelection() {
    const id = selectedId();
    const info = nodes()[id];
    showDetails(id, info);
    if (info) {
      const open = unfolded();
      const closed = clustersOf(id).filter((c) => !open.has(c));
      if (closed.length) {
        scrollTo = id;
        setUnfolded([...open, ...closed]);
        return;
      }
      bringIntoView(id);
    }
    decorate();
  }

  function link(ref) {
    const item = el("span", "nbgraph-graph-link", `${ref.name} ${ref.op}`);
    item.title = "Select";
    item.addEventListener("click", () => select(ref.id));
    return item;
  }

  function row(key, ...content) {
    const line = el("div", "nbgraph-graph-row");
    line.append(el("span", "nbgraph-graph-key", key), ...content);
    panel.append(line);
    return line;
  }

  function refList(key, refs) {
    if (!refs.length) return;
    const list = el("ul");
    for (const ref of refs) {
      const item = el("li");
      item.append(link(ref), ` : ${ref.type}`);
      list.append(item);
    }
    row(key, list);
  }

  function snippet(location) {
    const lines = model.get("sources")[location.file] || {};
    const pre = el("pre", "nbgraph-graph-snippet");
    for (let n = location.line - 2; n <= location.line + 2; n++) {
      if (!(String(n) in lines)) continue;
      const line = el("div", n === location.line ? "nbgraph-graph-current" : "",
        `${String(n).padStart(4)}  ${lines[String(n)]}`);
      pre.append(line);
    }
    return pre.childNodes.length ? pre : null;
  }

  // The panel: the node's record (asked of the kernel the first time), or a hint.
  function showDetails(id, info) {
    setExplaining(false);
    if (!info) {
      panel.replaceChildren(el("div", "nbgraph-graph-hint",
        "Click a node to see its details; click a cluster's title (or double-click " +
        "a folded node) to fold or unfold it."));
      return;
    }
    if (records.has(id)) {
      fillDetails(id, records.get(id));
      return;
    }
    panel.replaceChildren(el("div", "nbgraph-graph-hint", `${info.name}  ${info.op}…`));
    record(id).then((full) => {
      if (!explaining && selectedId() === id) fillDetails(id, full);
    });
  }

  function fillDetails(id, info) {
    panel.replaceChildren();
    const family = model.get("families")[info.family];
    const head = el("h4", "", `${info.name}  ${info.op} `);
    const chip = el("span", "nbgraph-graph-chip", family ? family[1] : info.family);
    if (family) chip.style.background = family[0];
    head.append(chip);
    panel.append(head, el("code", "nbgraph-graph-listing", info.listing));
    row("type", info.type);
    if (info.value) {
      const v = info.value;
      const num = (x) => (typeof x === "number" ? Number(x.toPrecision(6)) : x);
      const stats = v.min === null ? ""
        : `  min ${num(v.min)}  max ${num(v.max)}  mean ${num(v.mean)}`;
      const runs = v.runs > 1 ? `  (last of ${v.runs} runs)` : "";
      const odd = (v.nan ? `  ${v.nan} NaN` : "") + (v.inf ? `  ${v.inf} Inf` : "");
      row("value", `${v.text}${stats}${odd}${runs}`);
    } else if (model.get("has_values")) {
      row("value", "did not run");
    }
    refList("inputs", info.inputs);
    refList("used by", info.users);
    if (info.constants.length) row("constants", el("code", "", info.constants.join(", ")));
    if (info.regions.length) {
      const open = unfolded().has(id);
      const toggle = button(open ? "Fold" : "Unfold", "Fold or unfold this cluster");
      toggle.addEventListener("click", () => toggleFold(id));
      row(`${info.regions.join(" / ")}: ${info.size} nodes`, toggle);
    }
    if (info.python) row("runs in Python", el("span", "nbgraph-graph-warning", info.python));
    if (info.copy) row("copies in a loop", el("span", "nbgraph-graph-warning", info.copy));
    if (info.fused) {
      const others = el("span", "", `one pass over the elements (${info.fused.pass}) with `);
      info.fused.with.forEach((ref, k) => others.append(k ? ", " : "", link(ref)));
      row("fused", others);
    }
    if (info.failed) row("", el("span", "nbgraph-graph-error", "The last run failed here."));
    if (info.location) {
      row("source", info.location.text);
      const code = snippet(info.location);
      if (code) panel.append(code);
      for (const caller of info.location.callers) row("called from", caller);
    }
  }

  function setExplaining(on) {
    explaining = on;
    explainButton.classList.toggle("nbgraph-graph-on", on);
  }

  // Highlight nodes (an explanation's fact), unfolding the clusters around them.
  function highlight(ids) {
    matches = ids;
    matchIndex = -1;
    found.textContent = `${ids.length} highlighted`;
    const open = unfolded();
    const closed = new Set();
    for (const id of ids) {
      for (const c of clustersOf(id)) if (!open.has(c)) closed.add(c);
    }
    if (closed.size) {
      scrollTo = ids[0];
      setUnfolded([...open, ...closed]);
      return;
    }
    decorate();
    bringIntoView(ids[0]);
  }

  // What graph mode made of the graph (nbgraph.explain): its trace, then one line per
  // fact; a fact about nodes highlights them when clicked.
  function showExplanation() {
    setExplaining(true);
    const { trace, facts } = model.get("explanation");
    panel.replaceChildren(el("h4", "", "What graph mode made of this graph"));
    for (const line of trace) panel.append(el("div", "nbgraph-graph-row", line));
    const list = el("ul", "nbgraph-graph-facts");
    for (const fact of facts) {
      const known = fact.nodes.filter((id) => nodes()[id]);
      const item = el("li", known.length ? "nbgraph-graph-link" : "", fact.text);
      if (known.length) {
        item.title = "Highlight these nodes";
        item.addEventListener("click", () => highlight(known));
      }
      list.append(item);
    }
    panel.append(list);
  }

  // A folded helper call: what it is, and a button to unfold it.
  function showGroup(id) {
    setExplaining(false);
    const group = groups()[id];
    panel.replaceChildren(el("h4", "", group.label));
    const toggle = button("Unfold", "Unfold this cluster");
    toggle.addEventListener("click", () => toggleFold(id));
    row(`${group.size} nodes`, toggle);
  }

  function showLegend() {
    legend.replaceChildren();
    for (const [, [color, text]] of Object.entries(model.get("families"))) {
      const chip = el("span", "nbgraph-graph-chip", text);
      chip.style.background = color;
      legend.append(chip);
    }
    const python = el("span", "nbgraph-graph-chip", "runs in Python / copies in a loop");
    python.style.border = "2px dashed #d97706";
    const failed = el("span", "nbgraph-graph-chip", "last error");
    failed.style.border = "2px solid #dc2626";
    legend.append(python, failed);
  }

  function runSearch() {
    matches = search(nodes(), find.value, model.get("show_scaffolding"));
    matchIndex = -1;
    found.textContent = find.value.trim() ? `${matches.length} found` : "";
    decorate();
  }

  function syncToggles() {
    types.box.checked = model.get("show_types");
    values.box.checked = model.get("show_values");
    fusion.box.checked = model.get("show_fusion");
    everything.box.checked = model.get("show_scaffolding");
    fusion.box.disabled = !model.get("has_fusion");
    fusion.label.title = model.get("has_fusion")
      ? "Outline the operations the backend computes in one pass"
      : "The backend fused no operations of this graph";
    values.box.disabled = !model.get("has_values");
    values.label.title = model.get("has_values")
      ? "Show the values of the inspected run"
      : "Values show for f.graph(args, inspect=True)";
  }

  canvas.addEventListener("click", (event) => {
    const text = event.target.closest("g.cluster > text");
    const cluster = text && CLUSTER.exec(text.parentNode.id);
    if (cluster) {
      toggleFold(cluster[1]);
      return;
    }
    const g = event.target.closest("g.node");
    if (g && groups()[g.id]) {
      showGroup(g.id);
      return;
    }
    if (g && nodes()[g.id.replace(/_end$/, "")]) select(g.id.replace(/_end$/, ""));
  });
  canvas.addEventListener("dblclick", (event) => {
    const g = event.target.closest("g.node");
    const id = g && g.id.replace(/_end$/, "");
    if (id && ((nodes()[id] && nodes()[id].regions) || groups()[id])) toggleFold(id);
  });
  canvas.addEventListener("keydown", (event) => {
    if (event.key === "Escape") select("");
  });
  find.addEventListener("input", runSearch);
  find.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || !matches.length) return;
    matchIndex = (matchIndex + 1) % matches.length;
    found.textContent = `${matchIndex + 1} of ${matches.length}`;
    select(matches[matchIndex]);
  });
  types.box.addEventListener("change", () => {
    model.set("show_types", types.box.checked);
    model.save_changes();
  });
  values.box.addEventListener("change", () => {
    model.set("show_values", values.box.checked);
    model.save_changes();
  });
  fusion.box.addEventListener("change", () => {
    model.set("show_fusion", fusion.box.checked);
    model.save_changes();
  });
  everything.box.addEventListener("change", () => {
    model.set("show_scaffolding", everything.box.checked);
    model.save_changes();
  });
  foldAll.addEventListener("click", () => setUnfolded([]));
  unfoldAll.addEventListener("click", () => setUnfolded([
    ...Object.keys(nodes()).filter((id) => nodes()[id].regions),
    ...Object.keys(groups())]));
  if (Object.keys(nodes()).length > UNFOLD_ALL_LIMIT) {
    unfoldAll.disabled = true;
    unfoldAll.title = `${Object.keys(nodes()).length} nodes are too many to lay out at once: ` +
      "unfold the clusters you want to see";
  }
  zoomIn.addEventListener("click", () => { zoomed = true; scale *= 1.25; applyScale(); });
  zoomOut.addEventListener("click", () => { zoomed = true; scale /= 1.25; applyScale(); });
  zoomFit.addEventListener("click", () => { zoomed = false; fit(); });
  // A view drawn while its cell was out of sight (no width yet) or resized since is
  // fitted again, unless the user zoomed.
  let width = canvas.clientWidth;
  const resized = new ResizeObserver(() => {
    if (canvas.clientWidth === width) return;
    width = canvas.clientWidth;
    if (!zoomed) fit(1);
  });
  resized.observe(canvas);
  explainButton.addEventListener("click", () => {
    if (explaining) showDetails(selectedId(), nodes()[selectedId()]);
    else showExplanation();
  });

  const onSelected = () => showSelection();
  const onUnfolded = () => {
    if (!explaining) showDetails(selectedId(), nodes()[selectedId()]);
  };
  const listeners = [
    ["change:svg", draw], ["change:dot", draw], ["change:selected", onSelected],
    ["change:unfolded", onUnfolded], ["change:show_types", syncToggles],
    ["change:show_values", syncToggles], ["change:show_fusion", syncToggles],
    ["change:show_scaffolding", syncToggles], ["msg:custom", onMessage],
  ];
  for (const [event, listener] of listeners) model.on(event, listener);
  syncToggles();
  showLegend();
  showDetails(selectedId(), nodes()[selectedId()]);
  draw();
  return () => {
    resized.disconnect();
    for (const [event, listener] of listeners) model.off(event, listener);
  };
}

export default { render };
