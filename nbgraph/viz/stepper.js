// The stepper widget (anywidget ESM): steps through a recording entirely in the
// browser. The recording (nbgraph.trace.Recording.to_json) is the `recording` trait;
// `step` is the step shown and `watch` the variable followed.

const KINDS = ["line", "return", "skipped", "error"];
const SVG = "http://www.w3.org/2000/svg";

// ---------------------------------------------------------------- the recording

/** Indexes over a recording for fast lookups by step, frame and variable. */
function prepare(data) {
  const steps = data.steps || [];
  const frames = data.frames || [];
  const frameSteps = frames.map(() => []);
  steps.forEach(([frame], i) => frameSteps[frame].push(i));
  const history = new Map(); // "frame:name" -> {steps: [], values: []}
  const atStep = new Map(); // step -> [[frame, name, value]]
  for (const [step, frame, name, value] of data.changes || []) {
    const key = `${frame}:${name}`;
    if (!history.has(key)) history.set(key, { steps: [], values: [] });
    history.get(key).steps.push(step);
    history.get(key).values.push(value);
    if (!atStep.has(step)) atStep.set(step, []);
    atStep.get(step).push([frame, name, value]);
  }
  const byStep = (pairs) => new Map((pairs || []).map(([s, v]) => [s, v]));
  return {
    data, steps, frames, frameSteps, history, atStep,
    names: data.names || [],
    values: data.values || [],
    output: (data.output || []).slice().sort((a, b) => a[0] - b[0]),
    raised: byStep(data.raised),
    skipped: byStep(data.skipped),
  };
}

/** Index of the last element of a sorted array that is <= x, or -1. */
function lastAtMost(sorted, x) {
  let lo = 0, hi = sorted.length - 1, found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] <= x) { found = mid; lo = mid + 1; } else { hi = mid - 1; }
  }
  return found;
}

function depth(rec, s) { return rec.frames[rec.steps[s][0]].depth; }
function frameOf(rec, s) { return rec.frames[rec.steps[s][0]]; }

/** The variables of a frame at step s: [[name, value index, changed here]]. */
function variables(rec, frame, s) {
  const first = rec.frameSteps[frame][0];
  const found = [];
  rec.history.forEach((h, key) => {
    const colon = key.indexOf(":");
    if (Number(key.slice(0, colon)) !== frame) return;
    const at = lastAtMost(h.steps, s);
    if (at < 0 || h.values[at] < 0) return;
    found.push([rec.names[Number(key.slice(colon + 1))], h.values[at],
                h.steps[at] === s && s !== first]);
  });
  return found;
}

/** [frame index, line] from the outermost frame to step s's. */
function stack(rec, s) {
  const chain = [];
  for (let f = rec.steps[s][0]; f !== null && f !== undefined; f = rec.frames[f].parent) {
    chain.unshift(f);
  }
  return chain.map((f) => {
    const at = lastAtMost(rec.frameSteps[f], s);
    return [f, at < 0 ? 0 : rec.steps[rec.frameSteps[f][at]][1]];
  });
}

/** What was printed before step s (everything, at the last step), with the part the
 *  line just before s printed apart. */
function printed(rec, s) {
  const end = s === rec.steps.length - 1 ? s : s - 1;
  let before = "", latest = "";
  for (const [step, text] of rec.output) {
    if (step > end) break;
    if (step === end) latest = text;
    else before += text;
  }
  return { before, latest };
}

/** The steps of frames running the same function (and source) as `frame`. */
function sameFunction(rec, frame, other) {
  const a = rec.frames[frame], b = rec.frames[other];
  return a.function === b.function && a.source === b.source;
}

/** Steps where the variable `name` of the function of `frame` changed, in order. */
function changeSteps(rec, frame, name) {
  const index = rec.names.indexOf(name);
  const found = [];
  rec.history.forEach((h, key) => {
    const colon = key.indexOf(":");
    const f = Number(key.slice(0, colon));
    if (Number(key.slice(colon + 1)) === index && sameFunction(rec, frame, f)) {
      found.push(...h.steps);
    }
  });
  return found.sort((x, y) => x - y);
}

// ---------------------------------------------------------------- navigation

function search(rec, from, direction, test) {
  for (let t = from + direction; t >= 0 && t < rec.steps.length; t += direction) {
    if (test(t)) return t;
  }
  return null;
}

const MOVES = {
  next: (rec, s) => Math.min(s + 1, rec.steps.length - 1),
  back: (rec, s) => Math.max(s - 1, 0),
  first: () => 0,
  last: (rec) => rec.steps.length - 1,
  over: (rec, s) => search(rec, s, 1, (t) => depth(rec, t) <= depth(rec, s)),
  overBack: (rec, s) => search(rec, s, -1, (t) => depth(rec, t) <= depth(rec, s)),
  out: (rec, s) => search(rec, s, 1, (t) => depth(rec, t) < depth(rec, s)),
  outBack: (rec, s) => search(rec, s, -1, (t) => depth(rec, t) < depth(rec, s)),
};

// ---------------------------------------------------------------- rendering

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function button(label, title, onClick) {
  const b = el("button", "nbgraph-stepper-button", label);
  b.title = title;
  b.addEventListener("click", onClick);
  return b;
}

function formatNumber(x) {
  if (x === null || x === undefined) return "–";
  const a = Math.abs(x);
  return a !== 0 && (a >= 1e6 || a < 1e-3) ? x.toExponential(3) : String(+x.toPrecision(6));
}

/** The cells of one row of the variables table. */
function describe(value) {
  if (value.kind === "array") {
    const shape = `(${value.shape.join(", ")}${value.shape.length === 1 ? "," : ""})`;
    const items = value.tail.length ? [...value.head, "…", ...value.tail] : value.head;
    const stats = value.min === null ? [] : [
      `min ${formatNumber(value.min)} max ${formatNumber(value.max)} ` +
      `mean ${formatNumber(value.mean)}`];
    if (value.nan) stats.push(`NaN ${value.nan}`);
    if (value.inf) stats.push(`Inf ${value.inf}`);
    if (value.sampled) stats.push(`statistics of a sample of ${value.sampled.toLocaleString()}`);
    return {
      type: `${value.dtype} ${shape}`,
      text: `[${items.join(", ")}]`,
      detail: [`${value.nbytes.toLocaleString()} bytes`, ...stats].join(" · "),
    };
  }
  const length = value.length === null || value.length === undefined ? "" :
    ` (${value.length})`;
  return { type: value.type + length, text: value.text, detail: "" };
}

function sparkline(points, current) {
  const width = 180, height = 36, pad = 3;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("width", width);
  svg.setAttribute("height", height);
  svg.classList.add("nbgraph-stepper-sparkline");
  if (points.length === 0) return svg;
  const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
  const x0 = Math.min(...xs), x1 = Math.max(...xs, x0 + 1);
  const y0 = Math.min(...ys), y1 = Math.max(...ys);
  const sx = (x) => pad + ((x - x0) / (x1 - x0)) * (width - 2 * pad);
  const sy = (y) => y1 === y0 ? height / 2 :
    height - pad - ((y - y0) / (y1 - y0)) * (height - 2 * pad);
  let path = "";
  points.forEach(([x, y], i) => {
    path += i === 0 ? `M${sx(x)},${sy(y)}` : `H${sx(x)}V${sy(y)}`;
  });
  path += `H${sx(x1)}`;
  const line = document.createElementNS(SVG, "path");
  line.setAttribute("d", path);
  svg.appendChild(line);
  if (current) {
    const dot = document.createElementNS(SVG, "circle");
    dot.setAttribute("cx", sx(current[0]));
    dot.setAttribute("cy", sy(current[1]));
    dot.setAttribute("r", 2.5);
    svg.appendChild(dot);
  }
  return svg;
}

// ---------------------------------------------------------------- the widget

function render({ model, el: host }) {
  let rec = prepare(model.get("recording"));
  const root = el("div", "nbgraph-stepper");
  root.tabIndex = 0;
  // JupyterLab's notebook shortcuts (j/k, arrows, ...) stay out of the widget.
  root.setAttribute("data-lm-suppress-shortcuts", "true");
  host.appendChild(root);

  const header = el("div", "nbgraph-stepper-header");
  const title = el("span", "nbgraph-stepper-title");
  const position = el("span", "nbgraph-stepper-position");
  header.append(title, position);

  const go = (s) => {
    if (s === null || s === undefined || rec.steps.length === 0) return;
    const clamped = Math.max(0, Math.min(rec.steps.length - 1, s));
    model.set("step", clamped);
    model.save_changes();
  };
  const move = (name) => go(MOVES[name](rec, model.get("step")));
  const toChange = (direction) => {
    const watched = model.get("watch");
    if (!watched) return;
    const s = model.get("step");
    const steps = changeSteps(rec, rec.steps[s][0], watched);
    go(direction > 0 ? steps.find((t) => t > s) : steps.reverse().find((t) => t < s));
  };
  const runToLine = (line, direction) => {
    const s = model.get("step");
    const source = frameOf(rec, s).source;
    go(search(rec, s, direction, (t) =>
      rec.steps[t][1] === line && frameOf(rec, t).source === source));
  };

  const controls = el("div", "nbgraph-stepper-controls");
  controls.append(
    button("⇤", "First step (Home)", () => move("first")),
    button("↶", "Step over, backward (Shift+←)", () => move("overBack")),
    button("◀", "Previous step (←)", () => move("back")),
    button("▶", "Next step (→)", () => move("next")),
    button("↷", "Step over (Shift+→)", () => move("over")),
    button("⤓", "Step into (↓)", () => move("next")),
    button("⤒", "Step out (↑); Shift+↑: back to the call", () => move("out")),
    button("⇥", "Last step (End)", () => move("last")),
  );
  const slider = el("input", "nbgraph-stepper-slider");
  slider.type = "range";
  slider.min = 0;
  slider.addEventListener("input", () => go(Number(slider.value)));
  const goto = el("input", "nbgraph-stepper-goto");
  goto.type = "number";
  goto.min = 1; // steps are shown counted from 1
  goto.title = "Go to step (g, then Enter)";
  const goToTyped = () => go(Number(goto.value) - 1);
  goto.addEventListener("change", goToTyped);
  goto.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    goToTyped(); // JupyterLab would take Enter for the notebook
    event.preventDefault();
    event.stopPropagation();
  });
  controls.append(slider, el("span", "nbgraph-stepper-label", "step"), goto);

  const banner = el("div", "nbgraph-stepper-banner");
  const body = el("div", "nbgraph-stepper-body");
  const sourceView = el("div", "nbgraph-stepper-source");
  const side = el("div", "nbgraph-stepper-side");
  body.append(sourceView, side);
  const notes = el("div", "nbgraph-stepper-notes");
  root.append(header, controls, banner, body, notes);

  function showSource(frame, line) {
    const source = rec.data.sources[frame.source];
    sourceView.replaceChildren();
    let current = null;
    source.lines.forEach((text, i) => {
      const row = el("div", "nbgraph-stepper-line");
      const number = el("span", "nbgraph-stepper-lineno", String(i + 1));
      number.title = "Run to this line (Shift+click: backward)";
      number.addEventListener("click", (event) => runToLine(i + 1, event.shiftKey ? -1 : 1));
      row.append(number, el("span", "nbgraph-stepper-code", text || " "));
      if (i + 1 === line) {
        row.classList.add("nbgraph-stepper-current");
        current = row;
      }
      sourceView.appendChild(row);
    });
    if (current) {
      const top = current.offsetTop - sourceView.clientHeight / 2;
      sourceView.scrollTop = Math.max(0, top);
    }
  }

  function showVariables(s) {
    const frame = rec.steps[s][0];
    const watched = model.get("watch");
    const table = el("table", "nbgraph-stepper-variables");
    const rows = variables(rec, frame, s).sort((a, b) =>
      (a[0] === rec.data.returnName) - (b[0] === rec.data.returnName));
    for (const [name, index, changed] of rows) {
      const value = describe(rec.values[index]);
      const row = el("tr", changed ? "nbgraph-stepper-changed" : "");
      if (name === watched) row.classList.add("nbgraph-stepper-watched");
      row.dataset.name = name;
      row.title = "Follow this variable: its changes ([ ]) and values";
      const valueCell = el("td", "nbgraph-stepper-value");
      valueCell.append(el("div", "", value.text));
      if (value.detail) valueCell.append(el("div", "nbgraph-stepper-detail", value.detail));
      row.append(el("td", "nbgraph-stepper-mark", changed ? "●" : ""),
                 el("td", "nbgraph-stepper-name", name),
                 el("td", "nbgraph-stepper-type", value.type), valueCell);
      row.addEventListener("click", () => {
        model.set("watch", name === watched ? "" : name);
        model.save_changes();
      });
      table.appendChild(row);
    }
    const section = el("div", "nbgraph-stepper-section");
    section.append(el("div", "nbgraph-stepper-heading",
                      `Variables · ${rec.frames[frame].function}`), table);
    if (rows.length === 0) section.append(el("div", "nbgraph-stepper-empty", "none yet"));
    return section;
  }

  function showWatch(s) {
    const watched = model.get("watch");
    const section = el("div", "nbgraph-stepper-section nbgraph-stepper-watch");
    if (!watched) return section;
    const frame = rec.steps[s][0];
    const index = rec.names.indexOf(watched);
    const points = [];
    rec.history.forEach((h, key) => {
      const colon = key.indexOf(":");
      if (Number(key.slice(colon + 1)) !== index ||
          !sameFunction(rec, frame, Number(key.slice(0, colon)))) return;
      h.steps.forEach((t, i) => {
        const value = rec.values[h.values[i]];
        if (value && value.number !== null && value.number !== undefined) {
          points.push([t, value.number]);
        }
      });
    });
    points.sort((a, b) => a[0] - b[0]);
    const at = lastAtMost(points.map((p) => p[0]), s);
    const nav = el("div", "nbgraph-stepper-watchnav");
    nav.append(button("◀ change", "Previous change ([)", () => toChange(-1)),
               el("span", "nbgraph-stepper-heading", watched),
               button("change ▶", "Next change (])", () => toChange(1)));
    section.append(nav);
    if (points.length > 1) {
      section.append(sparkline(points, at >= 0 ? [s, points[at][1]] : null));
    }
    return section;
  }

  function showStack(s) {
    const section = el("div", "nbgraph-stepper-section");
    section.append(el("div", "nbgraph-stepper-heading", "Call stack"));
    const list = el("ol", "nbgraph-stepper-stack");
    for (const [frame, line] of stack(rec, s)) {
      const source = rec.data.sources[rec.frames[frame].source];
      list.append(el("li", "", `${rec.frames[frame].function}  ${source.name}, line ${line}`));
    }
    section.append(list);
    return section;
  }

  function showOutput(s) {
    const section = el("div", "nbgraph-stepper-section");
    section.append(el("div", "nbgraph-stepper-heading", "Output"));
    const pre = el("pre", "nbgraph-stepper-output");
    const { before, latest } = printed(rec, s);
    pre.append(document.createTextNode(before), el("span", "nbgraph-stepper-latest", latest));
    section.append(pre);
    return section;
  }

  // The cell's editor highlights the step's line (nbgraph's JupyterLab extension
  // listens for this event). A view is rendered before it is attached to the page,
  // so the event waits until it can bubble up to the document.
  let pending = null;
  function highlight(frame, line) {
    const source = rec.data.sources[frame.source];
    const isCell = source.executionCount !== null || source.cellId !== null;
    const detail = isCell ?
      { cellId: source.cellId, executionCount: source.executionCount, line, kind: "step" } :
      { clear: true, kind: "step" };
    const send = (tries) => {
      if (root.isConnected) {
        pending = null;
        root.dispatchEvent(new CustomEvent("nbgraph:highlight",
                                           { bubbles: true, composed: true, detail }));
      } else if (tries > 0) {
        pending = requestAnimationFrame(() => send(tries - 1));
      }
    };
    if (pending !== null) cancelAnimationFrame(pending);
    send(600);
  }

  function update() {
    if (rec.steps.length === 0) {
      title.textContent = "nbgraph stepper";
      position.textContent = "nothing was recorded";
      return;
    }
    const s = Math.max(0, Math.min(rec.steps.length - 1, model.get("step")));
    const [, line, kindIndex] = rec.steps[s];
    const frame = frameOf(rec, s);
    const source = rec.data.sources[frame.source];
    title.textContent = `nbgraph stepper · ${source.name}`;
    position.textContent = `step ${s + 1} of ${rec.steps.length} · ${frame.function}, ` +
      `line ${line}${KINDS[kindIndex] === "line" ? "" : " · " + KINDS[kindIndex]}`;
    slider.max = rec.steps.length - 1;
    slider.value = s;
    goto.max = rec.steps.length;
    goto.value = s + 1;
    banner.replaceChildren();
    banner.className = "nbgraph-stepper-banner";
    const error = rec.data.error;
    if (error && error.step === s) {
      banner.classList.add("nbgraph-stepper-error");
      banner.textContent = `This line raised ${error.text}`;
    } else if (rec.raised.has(s)) {
      banner.classList.add("nbgraph-stepper-raised");
      banner.textContent = `This line raised ${rec.raised.get(s)}`;
    } else if (rec.skipped.has(s)) {
      banner.classList.add("nbgraph-stepper-skip");
      banner.textContent = `Skipped: ${rec.skipped.get(s)}`;
    } else if (KINDS[kindIndex] === "return") {
      banner.classList.add("nbgraph-stepper-return");
      banner.textContent = frame.depth === 0 && source.executionCount !== null ?
        "End of the cell" : `Return from ${frame.function}`;
    }
    showSource(frame, line);
    side.replaceChildren(showVariables(s), showWatch(s), showStack(s), showOutput(s));
    notes.replaceChildren(...(rec.data.notes || []).map((n) => el("div", "", n)));
    highlight(frame, line);
  }

  root.addEventListener("keydown", (event) => {
    if (event.target === goto) return;
    const keys = {
      ArrowRight: event.shiftKey ? "over" : "next",
      ArrowLeft: event.shiftKey ? "overBack" : "back",
      ArrowDown: "next",
      ArrowUp: event.shiftKey ? "outBack" : "out",
      Home: "first",
      End: "last",
    };
    let handled = true;
    if (keys[event.key]) move(keys[event.key]);
    else if (event.key === "]") toChange(1);
    else if (event.key === "[") toChange(-1);
    else if (event.key === "g") goto.focus();
    else if (event.key === "e" && rec.data.error) go(rec.data.error.step);
    else handled = false;
    if (handled) {
      event.preventDefault();
      event.stopPropagation();
    }
  });
  root.addEventListener("focus", () => {
    const s = model.get("step");
    if (s >= 0 && s < rec.steps.length) highlight(frameOf(rec, s), rec.steps[s][1]);
  });
  model.on("change:step", update);
  model.on("change:watch", update);
  model.on("change:recording", () => {
    rec = prepare(model.get("recording"));
    update();
  });
  update();
  return () => root.remove();
}

export default { render };
