// Trajectory viewer: the episode list filters and the episode view (one or two side by side).
// Data comes from window.PE_DATA, embedded in the page by personal_envs.trajectories.viewer.
"use strict";

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function pretty(value) {
  return typeof value === "string" ? value : JSON.stringify(value, null, 1);
}

// ------------------------------------------------------------------------------------------- episode list
function setupList() {
  const table = document.getElementById("episodes");
  if (!table) return;
  const inputs = Array.from(document.querySelectorAll(".filters [data-filter]"));
  const apply = () => {
    const wanted = Object.fromEntries(inputs.map((i) => [i.dataset.filter, i.value.trim().toLowerCase()]));
    let shown = 0;
    for (const row of table.tBodies[0].rows) {
      let visible = true;
      for (const [key, value] of Object.entries(wanted)) {
        if (!value) continue;
        const cell = (row.dataset[key] || "").toLowerCase();
        visible = visible && (key === "task" ? cell.includes(value) : cell === value);
      }
      row.classList.toggle("hidden", !visible);
      if (visible) shown += 1;
    }
    document.getElementById("shown").textContent = String(shown);
  };
  inputs.forEach((i) => i.addEventListener("input", apply));
  apply();
}

// ------------------------------------------------------------------------------------------- episode view
// Observation fields at each position: position 0 = the initial observation, k = after step k.
function observations(traj) {
  const states = [Object.assign({}, traj.initial_observation || {})];
  for (const step of traj.steps || []) {
    states.push(Object.assign({}, states[states.length - 1], step.observation || {}));
  }
  return states;
}

function imageField(obs) {
  for (const [key, value] of Object.entries(obs)) {
    if (value && typeof value === "object" && value.image) return [key, value];
  }
  return [null, null];
}

// A screenshot's source: a file of the episode's images folder or an inlined data: image, nothing else.
function imageSource(base, name) {
  if (typeof name !== "string") return null;
  if (/^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+$/.test(name)) return name;
  if (/^images\/[\w.-]+$/.test(name) && !name.includes("..")) return base + name;
  return null;
}

function argsOf(action) {
  if (!action || typeof action !== "object") return {};
  if (action.arguments && typeof action.arguments === "object") return action.arguments;
  return action;
}

// Marks to draw for an action, in the action's coordinate space: points, drags, element boxes, scroll arrows.
function actionMarks(step) {
  const marks = [];
  const actions = [];
  const parsed = step.parsed_action || step.action;
  if (parsed && Array.isArray(parsed.action)) {
    for (const item of parsed.action) {
      for (const [name, args] of Object.entries(item || {})) actions.push([name, args || {}]);
    }
  } else if (parsed && typeof parsed === "object") {
    actions.push([parsed.action_type || parsed.name || "", argsOf(parsed)]);
  }
  for (const [name, args] of actions) {
    const sx = args.start_x ?? args.x1, sy = args.start_y ?? args.y1;
    const ex = args.end_x ?? args.x2, ey = args.end_y ?? args.y2;
    if ([sx, sy, ex, ey].every((v) => typeof v === "number")) {
      marks.push({kind: "drag", name, x1: sx, y1: sy, x2: ex, y2: ey});
    } else if (typeof args.x === "number" && typeof args.y === "number") {
      marks.push({kind: "point", name, x: args.x, y: args.y});
    }
    for (const key of name.includes("tab") ? [] : ["bid", "index", "element_index"]) {
      const id = args[key];
      const box = id !== undefined && step.boxes ? step.boxes[String(id)] : undefined;
      if (box) marks.push({kind: "box", name, id: String(id), box});
    }
    if (name === "scroll" || name === "scroll_down" || name === "scroll_up") {
      marks.push({kind: "scroll", name, direction: args.direction || (name === "scroll_up" ? "up" : "down")});
    }
  }
  return marks;
}

const SVG_NS = "http://www.w3.org/2000/svg";
function svgEl(tag, attrs) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
}

function drawMarks(svg, marks, width, height, space) {
  const [cw, ch] = space || [width, height];
  const fx = width / cw, fy = height / ch;
  const r = Math.max(6, width / 40);
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const defs = svgEl("defs", {});
  const marker = svgEl("marker", {id: "arrow", markerWidth: 6, markerHeight: 6, refX: 5, refY: 3, orient: "auto"});
  marker.append(svgEl("path", {d: "M0,0 L6,3 L0,6 z", fill: "#e8175d"}));
  defs.append(marker);
  svg.append(defs);
  for (const mark of marks) {
    const group = svgEl("g", {class: `action-mark action-${mark.kind}`, "data-action": mark.name});
    const style = {fill: "none", stroke: "#e8175d", "stroke-width": Math.max(2, width / 250)};
    if (mark.kind === "point") {
      group.append(svgEl("circle", {cx: mark.x * fx, cy: mark.y * fy, r, ...style}));
      group.append(svgEl("circle", {cx: mark.x * fx, cy: mark.y * fy, r: r / 4, fill: "#e8175d"}));
    } else if (mark.kind === "drag") {
      group.append(svgEl("circle", {cx: mark.x1 * fx, cy: mark.y1 * fy, r: r / 2, ...style}));
      group.append(svgEl("line", {x1: mark.x1 * fx, y1: mark.y1 * fy, x2: mark.x2 * fx, y2: mark.y2 * fy,
                                  "marker-end": "url(#arrow)", ...style}));
    } else if (mark.kind === "box") {
      const [x, y, w, h] = mark.box;
      group.append(svgEl("rect", {x: x * fx, y: y * fy, width: Math.max(w * fx, 4), height: Math.max(h * fy, 4),
                                  ...style}));
    } else if (mark.kind === "scroll") {
      const cx = width / 2, cy = height / 2, d = height / 5;
      const delta = {down: [0, -d], up: [0, d], left: [d, 0], right: [-d, 0]}[mark.direction] || [0, -d];
      group.append(svgEl("line", {x1: cx, y1: cy, x2: cx + delta[0], y2: cy + delta[1],
                                  "marker-end": "url(#arrow)", ...style}));
    }
    svg.append(group);
  }
}

// Lines of a UI hierarchy (uiautomator XML), indented, with the node under the tapped point marked.
function hierarchyLines(xml, point) {
  let doc;
  try { doc = new DOMParser().parseFromString(xml, "application/xml"); } catch (e) { return null; }
  if (!doc || doc.getElementsByTagName("parsererror").length) return null;
  const lines = [];
  let best = null, bestArea = Infinity;
  const walk = (node, depth) => {
    if (node.nodeType !== 1) return;
    const attrs = ["text", "content-desc", "resource-id", "class", "bounds"]
      .map((a) => node.getAttribute(a) ? `${a}="${node.getAttribute(a)}"` : "").filter(Boolean).join(" ");
    const line = {text: "  ".repeat(depth) + `<${node.tagName} ${attrs}>`, target: false};
    lines.push(line);
    const m = /\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]/.exec(node.getAttribute("bounds") || "");
    if (m && point) {
      const [x1, y1, x2, y2] = m.slice(1).map(Number);
      const area = (x2 - x1) * (y2 - y1);
      if (point.x >= x1 && point.x <= x2 && point.y >= y1 && point.y <= y2 && area > 0 && area <= bestArea) {
        best = line; bestArea = area;
      }
    }
    for (const child of node.childNodes) walk(child, depth + 1);
  };
  walk(doc.documentElement, 0);
  if (best) best.target = true;
  return lines;
}

function treeView(name, text, marks) {
  const point = marks.find((m) => m.kind === "point") || (marks.find((m) => m.kind === "drag") &&
    {x: marks.find((m) => m.kind === "drag").x1, y: marks.find((m) => m.kind === "drag").y1});
  const ids = marks.filter((m) => m.id !== undefined).map((m) => m.id);
  let lines = null;
  if (text.trimStart().startsWith("<")) lines = hierarchyLines(text, point);
  if (!lines) {
    lines = text.split("\n").map((line) => ({
      text: line, target: ids.some((id) => line.includes(`[${id}]`)),
    }));
  }
  const box = el("div", {class: "tree", "data-field": name});
  for (const line of lines) box.append(el("div", {class: "line" + (line.target ? " target" : "")}, line.text));
  return box;
}

const TREE_FIELDS = ["axtree", "ui_xml", "elements", "ui_hierarchy", "dom"];

class EpisodeView {
  constructor(root, view) {
    this.root = root;
    this.traj = view.traj;
    this.base = view.base || "";
    this.title = view.title || "";
    this.states = observations(this.traj);
    this.steps = this.traj.steps || [];
    this.position = 0;  // index into steps; steps.length = the end
    this.render();
  }

  get count() { return this.steps.length + 1; }

  go(position) {
    this.position = Math.max(0, Math.min(this.count - 1, position));
    this.renderStep();
  }

  render() {
    const t = this.traj, ev = t.evaluation || {}, result = t.result || {};
    const score = ev.score ?? result.score ?? 0;
    const success = result.metrics && "success" in result.metrics ? !!result.metrics.success : score >= 0.999;
    this.root.replaceChildren(
      el("h2", {}, this.title || `${t.env_id} / ${t.policy} / episode ${t.episode}`),
      el("div", {}, el("b", {}, "task "), t.task_id || "", " ",
         el("span", {class: "badge " + (success ? "ok" : "bad")}, `score ${Number(score).toFixed(3)}`), " ",
         result.error ? el("span", {class: "badge bad"}, "run error") : null,
         ` ${this.steps.length} steps`),
      el("h3", {}, "Goal"), el("div", {class: "goal"}, t.goal || "(no goal field)"),
      el("div", {class: "timeline"}), el("div", {class: "kbd"},
        "keys: \u2190/\u2192 or k/j previous/next step, Home/End first/last"),
      el("div", {class: "stepgrid"}, el("div", {class: "shot"}), el("div", {class: "details"})),
      el("h3", {}, "Dialogue"), el("div", {class: "dialogue"}),
      el("h3", {}, "Score breakdown"), this.scorePanel(),
      el("h3", {}, "Observation (text fields at this step)"), el("div", {class: "fields"}),
    );
    const timeline = this.root.querySelector(".timeline");
    this.steps.forEach((step, i) => {
      const cls = (step.error ? "err " : "") + (step.user_turn ? "user" : "");
      timeline.append(el("button", {class: cls, title: (step.parsed_action || {}).action_type || "",
                                    onclick: () => this.go(i)}, String(step.step)));
    });
    timeline.append(el("button", {onclick: () => this.go(this.steps.length)}, "end"));
    this.renderDialogue();
    this.renderStep();
  }

  scorePanel() {
    const ev = this.traj.evaluation || {}, result = this.traj.result || {};
    const box = el("div", {class: "score"});
    box.append(el("div", {}, el("b", {}, "score "), String(ev.score ?? result.score ?? ""), "  ",
                  el("b", {}, "reason "), ev.reason || "(none)"));
    if (result.error) box.append(el("div", {class: "error"}, result.error));
    const checks = el("table", {class: "checks"}, el("tr", {}, el("th", {}, "check"), el("th", {}, "result"),
                                                     el("th", {}, "evidence")));
    for (const check of ev.checks || []) {
      checks.append(el("tr", {class: check.passed ? "check-passed" : "check-failed"},
        el("td", {}, check.name), el("td", {class: check.passed ? "passed" : "failed"},
                                     check.passed ? "passed" : "FAILED"), el("td", {}, check.detail || "")));
    }
    if ((ev.checks || []).length) box.append(checks);
    if (ev.judge) box.append(el("h3", {}, "Judge"), el("pre", {class: "judge"}, pretty(ev.judge)));
    for (const key of ["judge_input", "judge_output"]) {
      if (ev[key]) box.append(el("h3", {}, key.replace("_", " ")), el("pre", {}, pretty(ev[key])));
    }
    box.append(el("details", {}, el("summary", {}, "metrics"), el("pre", {}, pretty(ev.metrics || {}))));
    return box;
  }

  renderDialogue() {
    const box = this.root.querySelector(".dialogue");
    const turns = this.steps.filter((s) => s.user_turn);
    if (!turns.length) { box.append(el("div", {class: "noshot"}, "(no exchange with the user)")); return; }
    for (const step of turns) {
      const turn = step.user_turn;
      box.append(el("div", {class: "turn", "data-step": step.step},
        el("div", {class: "agent"}, el("b", {}, `agent (step ${step.step}, ${turn.action}): `), turn.message),
        el("div", {class: "user"}, el("b", {}, "user: "), turn.reply,
           turn.decision ? el("span", {class: "badge"}, ` ${turn.decision}`) : null)));
    }
  }

  renderStep() {
    const i = this.position, step = this.steps[i], atEnd = i >= this.steps.length;
    const obs = this.states[atEnd ? this.steps.length : i];  // what the agent saw when it chose the action
    this.root.querySelectorAll(".timeline button").forEach((b, k) => b.classList.toggle("current", k === i));
    this.root.querySelectorAll(".dialogue .turn").forEach((d) =>
      d.classList.toggle("current", step !== undefined && Number(d.dataset.step) === step.step));
    const marks = step ? actionMarks(step) : [];
    const shot = this.root.querySelector(".shot");
    const [, image] = imageField(obs);
    const source = image ? imageSource(this.base, image.image) : null;
    shot.replaceChildren();
    if (image && source) {
      const img = el("img", {src: source, alt: "screenshot", width: image.width, height: image.height});
      const svg = svgEl("svg", {class: "overlay"});
      drawMarks(svg, marks, image.width, image.height, this.traj.coordinate_space);
      shot.append(img, svg);
    } else {
      shot.append(el("div", {class: "noshot"}, "(no screenshot in this observation)"));
    }
    const details = this.root.querySelector(".details");
    details.replaceChildren();
    if (atEnd) {
      details.append(el("h3", {}, "End of episode"), el("div", {}, `final observation after ${i} steps`));
    } else {
      details.append(el("h3", {}, `Step ${step.step}`),
        el("div", {class: "action"}, el("b", {}, "action "), el("pre", {}, pretty(step.action))));
      if (step.error) details.append(el("div", {class: "error step-error"}, "error: " + step.error));
      if (step.reasoning) details.append(el("h3", {}, "Reasoning"), el("pre", {class: "reasoning"}, step.reasoning));
      if (step.user_turn) {
        details.append(el("div", {class: "turn"}, el("b", {}, "user replied: "), step.user_turn.reply,
                          step.user_turn.decision ? ` (${step.user_turn.decision})` : ""));
      }
      const timing = `policy ${step.policy_s}s, env ${step.env_s}s, reward ${step.reward}`;
      details.append(el("div", {class: "kbd"}, timing));
      if (step.tokens) details.append(el("div", {class: "kbd"}, "tokens " + JSON.stringify(step.tokens)));
      if (step.signals && Object.keys(step.signals).length) {
        details.append(el("details", {}, el("summary", {}, "privileged signals after the step"),
                          el("pre", {}, pretty(step.signals))));
      }
    }
    const fields = this.root.querySelector(".fields");
    fields.replaceChildren();
    for (const [key, value] of Object.entries(obs)) {
      if (value && typeof value === "object") continue;
      const text = String(value);
      if (!text) continue;
      const body = TREE_FIELDS.includes(key) ? treeView(key, text, marks) : el("pre", {}, text);
      fields.append(el("details", {open: TREE_FIELDS.includes(key) ? "" : null},
                       el("summary", {}, `${key} (${text.length} chars)`), body));
    }
    const target = fields.querySelector(".target");
    if (target && target.scrollIntoView) target.scrollIntoView({block: "nearest"});
  }
}

function setupEpisodes() {
  const data = window.PE_DATA;
  if (!data || !data.views) return;
  const container = document.getElementById("views");
  const views = data.views.map((view) => {
    const root = el("div", {class: "view"});
    container.append(root);
    return new EpisodeView(root, view);
  });
  window.PE_VIEWS = views;
  document.addEventListener("keydown", (event) => {
    if (event.target && ["INPUT", "TEXTAREA", "SELECT"].includes(event.target.tagName)) return;
    const moves = {ArrowRight: 1, j: 1, ArrowLeft: -1, k: -1};
    for (const view of views) {
      if (event.key in moves) view.go(view.position + moves[event.key]);
      else if (event.key === "Home") view.go(0);
      else if (event.key === "End") view.go(view.count - 1);
      else continue;
      event.preventDefault();
    }
  });
}

document.addEventListener("DOMContentLoaded", () => { setupList(); setupEpisodes(); });
