// The run viewer: data loading, hash routes, the attempt list with its text search, and the keys.
// Routes: #/ (the list), #/attempt/<run-index>/<instance_id>/<sample>, #/instance/<instance_id>.
"use strict";

const state = {
  index: null,
  filters: {run: "", config: "", origin: "", category: "", stop: "", outcome: ""},
  sort: {col: null, dir: 1},
  query: "", // the text search: every word must occur in the attempt's text
  search: null, // key -> lower-cased text of the attempt (search.js), loaded on the first search
  waiting: new Map(), // token -> {resolve, reject} of a data script being loaded
  cache: new Map(), // token -> data (static bundles only: live data is read afresh)
};

// Data scripts call these (see view/assets.py).
window.bfView = {
  receive(token, data) {
    if (token === "index") return gotIndex(data);
    const wait = state.waiting.get(token);
    if (wait) {
      state.waiting.delete(token);
      wait.resolve(data);
    }
  },
  fail(token, message) {
    const wait = state.waiting.get(token);
    if (wait) {
      state.waiting.delete(token);
      wait.reject(new Error(message));
    }
  },
};

function loadData(src, token) {
  if (state.cache.has(token)) return Promise.resolve(state.cache.get(token));
  if (state.index.live) src += (src.includes("?") ? "&" : "?") + `t=${Date.now()}`; // never a stale copy
  return new Promise((resolve, reject) => {
    state.waiting.set(token, {resolve, reject});
    const script = bf.el("script", {src, charset: "utf-8"});
    const done = () => {
      script.remove();
      if (state.waiting.get(token)) {
        state.waiting.delete(token);
        reject(new Error(`${src} could not be loaded`));
      }
    };
    script.addEventListener("load", done);
    script.addEventListener("error", done);
    document.head.append(script);
  }).then((data) => {
    if (!state.index.live) state.cache.set(token, data);
    return data;
  });
}

function gotIndex(data) {
  const first = state.index === null;
  const before = state.index ? JSON.stringify(state.index.attempts) : null;
  state.index = data;
  renderHeader();
  if (first) {
    window.addEventListener("hashchange", route);
    document.addEventListener("keydown", onKey);
    route();
    if (data.live) setInterval(refresh, 4000);
  } else if (JSON.stringify(data.attempts) !== before) {
    state.search = null; // new attempts: their texts are read again on the next search
    if (currentRoute().page === "list") renderList();
  }
}

function refresh() {
  // A new data.js (the server reads the runs again); the script tag is removed once it ran.
  const script = bf.el("script", {src: `data.js?t=${Date.now()}`, charset: "utf-8"});
  script.addEventListener("load", () => script.remove());
  script.addEventListener("error", () => script.remove());
  document.head.append(script);
}

function notice(message) {
  const box = document.getElementById("notice");
  box.replaceChildren();
  if (message) box.append(bf.el("p", {class: "error", text: message}));
}

function renderHeader() {
  const runs = document.getElementById("runs");
  const data = state.index;
  runs.replaceChildren();
  for (const run of data.runs || []) {
    runs.append(bf.el("span", {class: "run", title: run.path},
      `${run.index}: ${run.label} (${run.attempts} attempts)`));
  }
  document.getElementById("live").hidden = !data.live;
  const warnings = (data.runs || []).flatMap((run) => run.warnings.map((w) => `${run.label}: ${w}`));
  notice(data.error ? data.error : warnings.join(" · "));
}

function currentRoute() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").map((p) => {
    try { return decodeURIComponent(p); } catch { return p; }
  });
  if (parts[0] === "attempt" && parts.length >= 4) {
    return {page: "attempt", run: Number(parts[1]), id: parts.slice(2, -1).join("/"), sample: parts[parts.length - 1]};
  }
  if (parts[0] === "instance" && parts.length >= 2) return {page: "instance", id: parts.slice(1).join("/")};
  return {page: "list"};
}

function route() {
  const where = currentRoute();
  const main = document.getElementById("main");
  window.scrollTo(0, 0);
  if (where.page === "attempt") {
    const row = state.index.attempts.find(
      (a) => a.run === where.run && a.instance_id === where.id && a.sample === where.sample);
    if (!row) return missing(`No attempt ${where.id} sample ${where.sample} in run ${where.run}.`);
    main.replaceChildren(bf.el("p", {class: "muted", text: "Loading the attempt…"}));
    loadData(row.detail, `attempt/${row.key}`)
      .then((data) => main.replaceChildren(bfPages.attempt(data, neighbours(row))))
      .catch((err) => missing(err.message));
  } else if (where.page === "instance") {
    const inst = state.index.instances[where.id];
    if (!inst) return missing(`No attempt on instance ${where.id} in these runs.`);
    main.replaceChildren(bf.el("p", {class: "muted", text: "Loading the instance…"}));
    loadData(inst.detail, `instance/${where.id}`)
      .then((data) => main.replaceChildren(bfPages.instance(data)))
      .catch((err) => missing(err.message));
  } else {
    renderList();
  }
}

function missing(message) {
  document.getElementById("main").replaceChildren(
    bf.el("p", {class: "error", text: message}), bf.el("p", {}, bf.el("a", {href: "#/", text: "All attempts"})));
}

// The attempt list: [key, header, kind]; kind "num" sorts numerically, descending first.
const COLUMNS = [
  ["run_label", "run", "text"], ["instance_id", "instance", "text"], ["sample", "sample", "text"],
  ["config_short", "configuration", "text"], ["origin", "origin", "text"], ["category", "category", "text"],
  ["outcome", "outcome", "text"], ["stop", "stop", "text"], ["llm_calls", "LLM calls", "num"],
  ["tool_calls", "tool calls", "num"], ["tokens", "tokens", "num"], ["cost_usd", "cost", "num"],
  ["duration_s", "time", "num"],
];
const FILTERS = [["run", "run_label", "run"], ["config", "config_short", "configuration"],
  ["origin", "origin", "origin"], ["category", "category", "category"], ["stop", "stop", "stop kind"],
  ["outcome", "outcome", "outcome"]];

function compare(col, kind, dir) {
  return (a, b) => {
    const x = a[col], y = b[col];
    if (x === null || x === undefined) return y === null || y === undefined ? 0 : 1; // unknown last
    if (y === null || y === undefined) return -1;
    return (kind === "num" ? x - y : String(x).localeCompare(String(y), "en", {numeric: true})) * dir;
  };
}

function words() {
  return state.query.toLowerCase().split(/\s+/).filter(Boolean);
}

// The attempts the list shows, in its order: filters, then the text search (once its texts are here).
function visibleRows() {
  const wanted = words();
  let rows = state.index.attempts.filter((row) =>
    FILTERS.every(([name, field]) => !state.filters[name] || String(row[field]) === state.filters[name]));
  if (wanted.length && state.search) {
    rows = rows.filter((row) => {
      const text = state.search.get(row.key) || "";
      return wanted.every((word) => text.includes(word));
    });
  }
  if (state.sort.col) {
    const kind = COLUMNS.find((c) => c[0] === state.sort.col)[2];
    rows = rows.slice().sort(compare(state.sort.col, kind, state.sort.dir));
  }
  return rows;
}

function filterBar() {
  const bar = bf.el("form", {class: "filters", id: "filters", onsubmit: (e) => e.preventDefault()});
  for (const [name, field, label] of FILTERS) {
    const counts = new Map();
    for (const row of state.index.attempts) counts.set(String(row[field]), (counts.get(String(row[field])) || 0) + 1);
    if (name === "run" && counts.size < 2) continue;
    const select = bf.el("select", {id: `filter-${name}`, name, onchange: (e) => {
      state.filters[name] = e.target.value;
      renderRows();
    }}, bf.el("option", {value: "", text: `all (${state.index.attempts.length})`}));
    for (const value of [...counts.keys()].sort()) {
      select.append(bf.el("option", {value, selected: value === state.filters[name], text: `${value} (${counts.get(value)})`}));
    }
    bar.append(bf.el("label", {}, bf.el("span", {text: label}), select));
  }
  return bar;
}

// The texts of every attempt (search.js: messages, tool calls and outputs, patches), loaded once per
// set of attempts: a bundle holds them in one script, so searching works from file:// too.
function loadSearch() {
  if (state.search) return Promise.resolve();
  return loadData("search.js", "search").then((texts) => {
    state.search = new Map(Object.entries(texts).map(([key, text]) => [key, text.toLowerCase()]));
  });
}

let searchTimer = null;
function searchBox() {
  const input = bf.el("input", {type: "search", id: "search", value: state.query, autocomplete: "off",
    placeholder: "words in messages, tool output, patches", "aria-label": "search the attempts' text"});
  input.addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => {
      state.query = input.value;
      if (!words().length) return renderRows();
      document.getElementById("summary").textContent = "Searching…";
      loadSearch().then(renderRows).catch((err) => notice(`search: ${err.message}`));
    }, 200); // one search per pause in typing, not one per key
  });
  return bf.el("label", {class: "search"}, bf.el("span", {text: "search"}), input);
}

function summary(rows) {
  const total = (key) => rows.reduce((sum, r) => sum + (bf.isNum(r[key]) ? r[key] : 0), 0);
  const by = (o) => rows.filter((r) => r.outcome === o).length;
  const searched = words().length ? ` matching “${state.query.trim()}”` : "";
  return bf.el("p", {class: "summary", id: "summary"},
    `${rows.length} of ${state.index.attempts.length} attempts${searched} · ${by("resolved")} resolved · ${by("failed")} failed · ` +
    `${by("hacked")} hacked · ${bf.fmtInt(total("llm_calls"))} LLM calls · ${bf.fmtCost(total("cost_usd"))} · ` +
    `${bf.fmtTime(total("duration_s"))}`);
}

function cell(row, col) {
  const value = row[col];
  if (col === "outcome") return bf.el("td", {}, bf.badge(value));
  if (col === "instance_id") {
    return bf.el("td", {}, bf.el("a", {href: bf.instanceRoute(value), class: "instance-link", title: "the instance",
      onclick: (e) => e.stopPropagation()}, value));
  }
  if (col === "sample") {
    return bf.el("td", {}, bf.el("a", {href: bf.attemptRoute(row.run, row.instance_id, row.sample), class: "attempt-link",
      onclick: (e) => e.stopPropagation()}, value));
  }
  if (col === "stop") return bf.el("td", {title: row.stop_reason}, value);
  if (col === "config_short") return bf.el("td", {title: row.config}, value);
  if (col === "cost_usd") return bf.el("td", {class: "num"}, bf.fmtCost(value));
  if (col === "duration_s") return bf.el("td", {class: "num"}, bf.fmtTime(value));
  if (COLUMNS.find((c) => c[0] === col)[2] === "num") return bf.el("td", {class: "num"}, bf.fmtInt(value));
  return bf.el("td", {}, value === null || value === undefined ? "–" : String(value));
}

// The list page: the filters and the search box stay in place while rows change (typing keeps focus).
function renderList() {
  const main = document.getElementById("main");
  if (!document.getElementById("search")) {
    main.replaceChildren(bf.el("div", {class: "toolbar"}, bf.el("form", {id: "filters"}), searchBox()),
      bf.el("p", {id: "summary"}), bf.el("div", {class: "scroll", id: "list"}));
  }
  document.getElementById("filters").replaceWith(filterBar()); // new counts when attempts arrive
  if (words().length && !state.search) {
    document.getElementById("summary").textContent = "Searching…";
    loadSearch().then(renderRows).catch((err) => notice(`search: ${err.message}`));
    return;
  }
  renderRows();
}

function renderRows() {
  const rows = visibleRows();
  const head = bf.el("tr", {});
  for (const [col, label, kind] of COLUMNS) {
    const arrow = state.sort.col === col ? (state.sort.dir > 0 ? " ▲" : " ▼") : "";
    head.append(bf.el("th", {class: kind === "num" ? "num sortable" : "sortable", data: {col}, title: "sort",
      "aria-sort": state.sort.col === col ? (state.sort.dir > 0 ? "ascending" : "descending") : null,
      onclick: () => {
        const same = state.sort.col === col;
        state.sort = {col, dir: same ? -state.sort.dir : kind === "num" ? -1 : 1};
        renderRows();
      }}, label + arrow));
  }
  const body = bf.el("tbody", {});
  for (const row of rows) {
    const route = bf.attemptRoute(row.run, row.instance_id, row.sample);
    body.append(bf.el("tr", {class: `attempt ${row.outcome}`, data: {key: row.key}, onclick: () => { location.hash = route; }},
      COLUMNS.map(([col]) => cell(row, col))));
  }
  document.getElementById("summary").replaceWith(summary(rows));
  document.getElementById("list").replaceChildren(bf.el("table", {id: "attempts"}, bf.el("thead", {}, head), body));
}

// The attempts before and after this one in the list as it is now (filters, search and sort kept).
function neighbours(row) {
  const rows = visibleRows();
  const at = rows.findIndex((r) => r.key === row.key);
  const route = (r) => (r ? bf.attemptRoute(r.run, r.instance_id, r.sample) : null);
  if (at < 0) return {prev: null, next: null, position: null, total: rows.length};
  return {prev: route(rows[at - 1]), next: route(rows[at + 1]), position: at + 1, total: rows.length};
}

// On an attempt's page: j, n or → opens the next attempt of the list, k, p or ← the previous one.
const KEYS = {j: "next", n: "next", ArrowRight: "next", k: "prev", p: "prev", ArrowLeft: "prev"};
function onKey(event) {
  const where = currentRoute();
  const typing = event.target.closest && event.target.closest("input, textarea, select, [contenteditable]");
  if (where.page !== "attempt" || typing || event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return;
  const step = KEYS[event.key];
  if (!step) return;
  const row = state.index.attempts.find((a) => a.run === where.run && a.instance_id === where.id && a.sample === where.sample);
  const target = row && neighbours(row)[step];
  if (target) {
    event.preventDefault();
    location.hash = target;
  }
}
