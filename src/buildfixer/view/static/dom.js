// Building blocks of the run viewer's pages.
// Run data holds model output and build logs: it only ever enters the page as text (textContent,
// text nodes, attribute values), never as markup, so a "<script>" in a log stays a string.
"use strict";

const bf = (window.bf = {});

// An element: el("td", {class: "num", title: t}, child, "text", ...). Strings become text nodes.
bf.el = function (tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = String(value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "data") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
};

// Routes, with each part encoded: an instance id may hold "/" or "#".
bf.attemptRoute = (run, id, sample) =>
  `#/attempt/${run}/${encodeURIComponent(id)}/${encodeURIComponent(sample)}`;
bf.instanceRoute = (id) => `#/instance/${encodeURIComponent(id)}`;

bf.isNum = (v) => typeof v === "number" && Number.isFinite(v);
bf.fmtInt = (v) => (bf.isNum(v) ? Math.round(v).toLocaleString("en-US") : "–");
bf.fmtCost = (v) => (bf.isNum(v) ? "$" + v.toFixed(v >= 1 ? 2 : 4) : "–");
bf.fmtTime = function (v) {
  if (!bf.isNum(v)) return "–";
  if (v < 60) return v.toFixed(1) + " s";
  const m = Math.floor(v / 60), s = Math.round(v % 60);
  return m < 60 ? `${m}m ${String(s).padStart(2, "0")}s` : `${Math.floor(m / 60)}h ${m % 60}m`;
};

bf.badge = (outcome) => bf.el("span", {class: `badge ${outcome}`, text: outcome});

bf.section = (id, title, ...children) =>
  bf.el("section", {id}, bf.el("h2", {text: title}), ...children);

// Long text folds away behind a summary line; short text shows as it is.
bf.LONG_CHARS = 1500;
bf.LONG_LINES = 25;
bf.isLong = (text) => text.length > bf.LONG_CHARS || text.split("\n").length > bf.LONG_LINES;
bf.textBlock = function (text, opts = {}) {
  const pre = bf.el("pre", {class: opts.class || "text"}, text);
  if (!opts.fold && !bf.isLong(text)) return pre;
  const lines = text.split("\n").length;
  const first = text.split("\n", 1)[0].slice(0, 120);
  const label = opts.label ? opts.label + " — " : "";
  const summary = `${label}${first}${first.length < text.length ? "…" : ""} (${lines.toLocaleString("en-US")} lines)`;
  return bf.el("details", {class: "fold", open: !!opts.open}, bf.el("summary", {text: summary}), pre);
};

// A unified diff with added, removed, hunk and file lines coloured.
bf.diff = function (patch) {
  if (patch === null || patch === undefined) {
    return bf.el("p", {class: "muted", text: "not recorded: a trajectory file holds no patch (`buildfixer fix` printed it)"});
  }
  if (!patch.trim()) return bf.el("p", {class: "muted", text: "no change"});
  const pre = bf.el("pre", {class: "diff"});
  for (const line of patch.replace(/\n$/, "").split("\n")) {
    let cls = "ctx";
    if (line.startsWith("diff --git") || line.startsWith("+++") || line.startsWith("---")) cls = "file";
    else if (line.startsWith("@@")) cls = "hunk";
    else if (line.startsWith("+")) cls = "add";
    else if (line.startsWith("-")) cls = "del";
    else if (/^(index |new file|deleted file|similarity|rename |old mode|new mode|\\ )/.test(line)) cls = "meta";
    pre.append(bf.el("span", {class: cls}, line + "\n"));
  }
  return pre;
};

bf.describeError = function (root) {
  if (!root) return "";
  const where = root.file ? [root.file, root.line, root.column].filter((x) => x !== null && x !== undefined).join(":") : "";
  return `[${root.tool || "?"}, ${root.category || "?"}]${where ? " at " + where : ""}: ${root.message || ""}`;
};

// A build log with the root error's line marked (and scrolled to when the log is opened).
bf.log = function (text, mark, root) {
  const wrap = bf.el("div", {class: "log"});
  if (root) wrap.append(bf.el("p", {class: "root-error"}, bf.el("strong", {text: "Root error "}), bf.describeError(root)));
  if (!text) {
    wrap.append(bf.el("p", {class: "muted", text: "(no log text)"}));
    return wrap;
  }
  const pre = bf.el("pre", {class: "logtext"});
  const lines = text.split("\n");
  if (bf.isNum(mark) && mark >= 0 && mark < lines.length) {
    const marked = bf.el("mark", {class: "root-line", title: "root error"}, lines[mark]);
    pre.append(lines.slice(0, mark).join("\n") + (mark > 0 ? "\n" : ""), marked,
      mark + 1 < lines.length ? "\n" + lines.slice(mark + 1).join("\n") : "");
    const show = () => requestAnimationFrame(() => {
      pre.scrollTop = Math.max(0, marked.offsetTop - pre.offsetTop - 60);
    });
    wrap.addEventListener("bf-shown", show);
    requestAnimationFrame(show);
  } else {
    pre.append(text);
  }
  wrap.append(pre);
  return wrap;
};

// Key/value rows, e.g. the budgets and the instance's facts.
bf.facts = function (pairs) {
  const dl = bf.el("dl", {class: "facts"});
  for (const [key, value] of pairs) {
    if (value === null || value === undefined || value === "") continue;
    dl.append(bf.el("dt", {text: key}), bf.el("dd", {}, value instanceof Node ? value : String(value)));
  }
  return dl;
};

bf.json = (value) => bf.el("pre", {class: "json"}, JSON.stringify(value, null, 2));
