// The attempt page and the instance page of the run viewer (data from view/attempt.py and view/runs.py).
"use strict";

window.bfPages = (function () {
  const el = bf.el;

  function crumbs(...parts) {
    const nav = el("nav", {class: "crumbs"}, el("a", {href: "#/", text: "All attempts"}));
    for (const part of parts) nav.append(" › ", part);
    return nav;
  }

  function stats(row) {
    return el("div", {class: "stats"},
      [["LLM calls", bf.fmtInt(row.llm_calls)], ["tool calls", bf.fmtInt(row.tool_calls)],
        ["tokens", bf.fmtInt(row.tokens)], ["cost", bf.fmtCost(row.cost_usd)], ["time", bf.fmtTime(row.duration_s)]]
        .map(([k, v]) => el("div", {class: "stat"}, el("span", {class: "value", text: v}), el("span", {class: "key", text: k}))));
  }

  function usageText(item) {
    const u = item.usage || {};
    const parts = [];
    if (bf.isNum(u.input_tokens)) parts.push(`${bf.fmtInt(u.input_tokens)} in / ${bf.fmtInt(u.output_tokens)} out tokens`);
    if (bf.isNum(item.model_s) && item.model_s > 0) parts.push(`${item.model_s.toFixed(1)} s`);
    return parts.join(" · ");
  }

  function message(item, position, firstUser, buildCalls) {
    const box = el("div", {class: `msg ${item.role}`, data: {role: item.role}});
    if (item.role === "system") {
      box.append(el("div", {class: "who", text: "system prompt"}), bf.textBlock(item.content, {fold: true, label: "system prompt"}));
      return box;
    }
    if (item.role === "tool") {
      const t = item.tool || {};
      const head = el("div", {class: "who"}, `tool result · ${t.name || "?"}`, el("span", {class: "muted", text: ` ${t.id || ""}`}),
        bf.isNum(t.seconds) ? ` · ${t.seconds < 1 ? Math.round(t.seconds * 1000) + " ms" : t.seconds.toFixed(1) + " s"}` : "", t.error ? el("span", {class: "badge failed", text: "error"}) : "");
      box.id = `call-${t.id}`;
      // A build's log folds to its status line: it is what makes a short attempt's page long.
      const fold = buildCalls.has(t.id);
      box.append(head, bf.textBlock(item.content, {class: "text output", fold, label: fold ? "build log" : ""}));
      return box;
    }
    const who = item.role === "assistant" ? `assistant${item.step ? " · step " + item.step : ""}` :
      position === firstUser ? "user (the task)" : item.role;
    box.append(el("div", {class: "who"}, who, el("span", {class: "muted", text: item.role === "assistant" ? "  " + usageText(item) : ""})));
    if (item.content) box.append(bf.textBlock(item.content, {open: item.role === "assistant"}));
    for (const call of item.calls || []) {
      box.append(el("div", {class: "call"}, el("span", {class: "call-name", text: `→ ${call.name}`}),
        el("span", {class: "muted", text: ` ${call.id || ""}`}),
        call.arguments && call.arguments !== "{}" ? bf.textBlock(call.arguments, {class: "text args"}) : ""));
    }
    return box;
  }

  function conversation(data) {
    const items = data.conversation || [];
    if (!items.length) return el("p", {class: "muted", text: "No conversation recorded (the agent called no model)."});
    const firstUser = items.findIndex((m) => m.role === "user");
    const buildCalls = new Set(data.builds.filter((b) => b.call_id !== undefined).map((b) => b.call_id));
    return el("div", {class: "conversation"}, items.map((item, i) => message(item, i, firstUser, buildCalls)));
  }

  function builds(data) {
    const outputs = new Map();
    for (const item of data.conversation || []) if (item.role === "tool" && item.tool) outputs.set(item.tool.id, item.content);
    if (!data.builds.length) return el("p", {class: "muted", text: "No build recorded."});
    return el("div", {class: "builds"}, data.builds.map((build) => {
      const text = build.call_id !== undefined ? outputs.get(build.call_id) || "" : build.text;
      const failed = build.root && build.status !== "success" && !String(build.status).startsWith("BUILD SUCCESSFUL");
      // Folded: one line per build (label, status, root error); the log opens on a click.
      const box = el("details", {class: "build"},
        el("summary", {}, el("span", {class: "build-label", text: build.label}), " — ",
          el("span", {class: failed ? "status bad" : "status", text: build.status || "?"}),
          build.root ? el("span", {class: "muted", text: "  " + bf.describeError(build.root).slice(0, 160)}) : ""),
        el("p", {class: "muted", text: build.source}), bf.log(text, build.mark, build.root));
      box.addEventListener("toggle", () => box.querySelector(".log").dispatchEvent(new Event("bf-shown")));
      return box;
    }));
  }

  function judge(data) {
    const j = data.judge;
    if (!j) return el("p", {class: "muted", text: "Not judged: the judge reads the patch of a repair whose build succeeded."});
    const out = el("div", {class: "judge"}, el("p", {}, j.approved ? bf.badge("approved") : bf.badge("rejected"),
      j.approved ? " the judge approved the change" : " the judge rejected the change"));
    if ((j.findings || []).length) {
      out.append(el("table", {class: "findings"}, el("thead", {}, el("tr", {}, ["rule", "file", "line", "detail"].map((h) => el("th", {text: h})))),
        el("tbody", {}, j.findings.map((f) => el("tr", {}, [f.rule, f.file, f.line, f.detail].map((v) => el("td", {text: v === null || v === undefined ? "–" : v})))))));
    } else {
      out.append(el("p", {class: "muted", text: "No findings."}));
    }
    if ((j.notes || []).length) out.append(el("ul", {class: "notes"}, j.notes.map((n) => el("li", {text: typeof n === "string" ? n : JSON.stringify(n)}))));
    return out;
  }

  function budgets(data) {
    const body = el("tbody", {});
    for (const b of data.budget) {
      const share = bf.isNum(b.used) && bf.isNum(b.limit) && b.limit > 0 ? Math.min(1, b.used / b.limit) : null;
      const used = b.name.startsWith("cost") ? bf.fmtCost(b.used) : b.name.startsWith("wall") ? bf.fmtTime(b.used) : bf.fmtInt(b.used);
      const limit = !bf.isNum(b.limit) ? "no limit" : b.name.startsWith("cost") ? bf.fmtCost(b.limit) : b.name.startsWith("wall") ? bf.fmtTime(b.limit) : bf.fmtInt(b.limit);
      const bar = share === null ? "" : el("progress", {max: "1", value: String(share), title: `${Math.round(share * 100)}%`});
      body.append(el("tr", {}, el("td", {text: b.name}), el("td", {class: "num", text: used}), el("td", {class: "num", text: limit}), el("td", {}, bar)));
    }
    return el("table", {class: "budget"}, el("thead", {}, el("tr", {}, ["budget", "used", "limit", ""].map((h) => el("th", {text: h})))), body);
  }

  // The agent's patch, and beside it the dataset's reference fix when the instance has one.
  function patches(data) {
    const agent = bf.diff(data.patch);
    if (!data.gold_patch) return el("div", {id: "agent-patch"}, agent);
    return el("div", {class: "patches"},
      el("div", {class: "patch-col", id: "agent-patch"}, el("h3", {text: "the agent's patch"}), agent),
      el("div", {class: "patch-col", id: "gold-patch"}, el("h3", {text: "gold patch (the dataset's reference fix)"}),
        bf.diff(data.gold_patch)));
  }

  // Links to the attempts before and after this one in the list (app.js: neighbours), keys in the footer.
  function pager(nav) {
    if (!nav) return "";
    const link = (route, text, rel) => (route ? el("a", {href: route, rel, class: rel, text}) : el("span", {class: "muted", text}));
    const where = nav.position ? `attempt ${nav.position} of ${nav.total} in the list` : "not in the list as filtered";
    return el("nav", {class: "pager"}, link(nav.prev, "‹ previous", "prev"), el("span", {class: "muted", text: where}),
      link(nav.next, "next ›", "next"));
  }

  function folded(title, content) {
    return el("details", {class: "fold-section"}, el("summary", {text: title}), content);
  }

  function attempt(data, nav) {
    const row = data.row;
    const page = el("article", {class: "attempt-page"});
    page.append(el("div", {class: "heading"},
      crumbs(el("a", {href: bf.instanceRoute(row.instance_id), class: "instance-link", text: row.instance_id}), `${row.run_label} · sample ${row.sample}`),
      pager(nav)));
    page.append(el("h1", {}, row.instance_id, " ", bf.badge(row.outcome)));
    page.append(bf.facts([["configuration", row.config], ["run", `${row.run}: ${row.run_label} (${data.run_path})`],
      ["stop", `${row.stop}${row.stop_reason ? " — " + row.stop_reason : ""}`], ["origin / category", `${row.origin} / ${row.category}`],
      ["build system", data.build_system], ["trajectory", data.trajectory], ["started", data.started_at]]));
    for (const w of data.warnings || []) page.append(el("p", {class: "error", text: w}));
    page.append(stats(row));
    // The conversation first: it is the attempt; builds and configuration fold to one line each.
    const order = ["conversation", "patch", "judge", "builds", "budgets", "config"];
    page.append(el("nav", {class: "toc"}, order.map((id) => el("a", {href: "#", onclick: (e) => {
      e.preventDefault();
      document.getElementById(id).scrollIntoView();
    }, text: id}))));
    if (data.error) page.append(bf.section("crash", "Crash", bf.textBlock(data.error, {class: "text output"})));
    page.append(bf.section("conversation", "Conversation", conversation(data)));
    page.append(bf.section("patch", data.gold_patch ? "Final patch, and the gold patch" : "Final patch", patches(data)));
    page.append(bf.section("judge", "Judge", judge(data)));
    page.append(bf.section("builds", "Builds", builds(data)));
    page.append(bf.section("budgets", "Budgets", budgets(data)));
    page.append(bf.section("config", "Configuration",
      folded("this attempt (trajectory meta.config)", data.config.attempt ? bf.json(data.config.attempt) : el("p", {class: "muted", text: "not recorded"})),
      folded("the run (config.json)", data.config.run ? bf.json(data.config.run) : el("p", {class: "muted", text: "not recorded"}))));
    page.append(el("footer", {class: "keys", id: "keys"},
      "Keys: j, n or → the next attempt · k, p or ← the previous one (in the list's order, its filters and search applied)"));
    return page;
  }

  function column(col) {
    return el("div", {class: "column"}, el("h3", {title: col.config, text: col.config_short}),
      col.attempts.map((a) => el("div", {class: `card ${a.outcome}`, data: {key: a.key}},
        el("p", {}, bf.badge(a.outcome), " ", el("a", {href: bf.attemptRoute(a.run, a.instance_id, a.sample), class: "attempt-link",
          text: `${a.run_label} · sample ${a.sample}`})),
        el("p", {class: "muted", text: `stop: ${a.stop}${a.stop_reason ? " — " + a.stop_reason : ""}`}),
        el("p", {class: "muted", text: `${bf.fmtInt(a.llm_calls)} LLM calls · ${bf.fmtCost(a.cost_usd)} · ${bf.fmtTime(a.duration_s)}`}),
        bf.diff(a.patch))));
  }

  function instance(data) {
    const page = el("article", {class: "instance-page"});
    page.append(crumbs(data.instance_id));
    page.append(el("h1", {text: data.instance_id}));
    page.append(bf.facts([["origin", data.origin], ["category", data.category], ["build system", data.build_system],
      ["lines changed", data.lines_changed], ["files changed", data.files_changed], ["repository", data.repo]]));
    const log = data.error_log;
    const logBox = el("details", {class: "build", open: true}, el("summary", {text: `error log (${log.source})`}), bf.log(log.text, log.mark, log.root));
    page.append(bf.section("error-log", "Error log", logBox));
    page.append(bf.section("gold", "Gold patch", bf.diff(data.gold_patch)));
    page.append(bf.section("by-config", "Attempts by configuration", el("div", {class: "columns"}, data.columns.map(column))));
    return page;
  }

  return {attempt, instance};
})();
