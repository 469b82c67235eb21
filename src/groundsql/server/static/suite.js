// groundsql evaluation suite page: each suite's runs, the latest run question by question, and the diff with the
// run before. Suites are built here (or with `groundsql eval suite build`) and run here with the Run button (or
// with `groundsql eval run`).
"use strict";

const state = { token: sessionStorage.getItem("groundsql-token") || "", presets: [], defaultPreset: "", jobs: [] };
const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

async function api(path, body) {
  const headers = { "Content-Type": "application/json" };
  if (state.token) headers["Authorization"] = "Bearer " + state.token;
  const response = await fetch(path, body === undefined ? { headers } : { method: "POST", headers, body: JSON.stringify(body) });
  if (response.status === 401) $("token-box").hidden = false;
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error((data.error && data.error.message) || response.statusText);
  return data;
}

const fmt = (value, digits = 1) => (value === null || value === undefined ? "–" : Number(value).toFixed(digits));

function table(header, rows, testid) {
  return el("table", { class: "result", "data-testid": testid },
    el("thead", {}, el("tr", {}, header.map((h) => el("th", { text: h })))),
    el("tbody", {}, rows.map((cells) => el("tr", {}, cells.map((c) => (c instanceof Node ? el("td", {}, c) : el("td", { text: c })))))));
}

function verdict(answer) {
  if (answer.excluded) return el("span", { class: "verdict-excluded", title: answer.error || "", text: answer.excluded });
  return answer.correct ? el("span", { class: "verdict-right", text: "right" }) : el("span", { class: "verdict-wrong", text: "wrong" });
}

function renderSuite(suite) {
  const box = el("section", { class: "suite", "data-testid": "suite", "data-suite": suite.name });
  box.append(el("h2", { text: `${suite.name} · ${suite.database_name}` }),
    el("div", { class: "meta", text: `${suite.questions} question(s) · built ${suite.built_at} · ${suite.database} (${suite.dialect})${suite.skipped ? ` · ${suite.skipped} item(s) left out` : ""}` }));
  box.append(runControls(suite));
  if (!suite.runs.length) {
    box.append(el("p", { "data-testid": "no-runs", text: "No run yet: choose a preset and press Run (or, in a terminal: " +
      `groundsql eval run ${suite.path} --preset PRESET).` }));
    return box;
  }
  box.append(el("h3", { text: "Runs" }), table(["run", "preset", "model", "EX %", "right", "excluded", "latency mean s", "tokens / question"],
    suite.runs.map((r) => [r.name, r.preset || "–", r.model || "–", fmt(r.ex), `${r.correct}/${r.n}`, `${r.excluded}${r.database_changed ? " (database changed)" : ""}`, fmt(r.latency_mean_s, 2), fmt(r.tokens_per_question, 0)]), "runs"));
  const latest = suite.latest;
  if (latest) {
    const notes = [];
    const changes = (latest.suite && latest.suite.database_changes) || [];
    if (changes.length) notes.push(el("div", { class: "warning", "data-testid": "database-changed", text: "The database changed since the suite was built: " + changes.join("; ") + ". Questions whose gold result changed are excluded, not scored." }));
    const loo = latest.leave_one_out;
    if (loo) notes.push(el("div", { class: "meta", "data-testid": "leave-one-out", text: loo.knowledge === false ? "Knowledge off: no verified example reached a prompt." : `Leave-one-out: each question was asked without its own verified example (${loo.questions} had one).` }));
    box.append(el("h3", { text: `Latest run: ${latest.name} (${latest.preset} · ${latest.model})` }), ...notes,
      table(["question", "result", "s", "tokens", "SQL"], latest.answers.map((a) => [a.question, verdict(a), fmt(a.elapsed_s, 2), String(a.tokens), el("code", { text: a.sql || a.error || "" })]), "latest"));
  }
  const diff = suite.regression;
  if (diff) {
    const section = el("div", { "data-testid": "diff" });
    section.append(el("h3", { text: `Against the run before: ${diff.previous.name} (${diff.previous.label})` }),
      el("p", { "data-testid": "diff-counts" }, el("b", { class: "diff-fixed", text: `${diff.fixed.length} fixed` }), ", ",
        el("b", { class: "diff-broken", text: `${diff.broken.length} broken` }), `, ${diff.still_right} still right, ${diff.still_wrong} still wrong (on ${diff.common} questions both scored)`));
    for (const kind of ["fixed", "broken"]) {
      if (diff[kind].length) section.append(el("ul", { "data-testid": `diff-${kind}` }, diff[kind].map((e) => el("li", { class: `diff-${kind}`, text: e.question }))));
    }
    const labels = { ex: "EX %", tokens_per_question: "tokens / question", llm_calls_per_question: "model calls / question", latency_mean_s: "latency mean s", latency_p90_s: "latency p90 s" };
    section.append(table(["on the common questions", "before", "now"], Object.entries(labels).map(([k, label]) => [label, String(diff.cost[k].before), String(diff.cost[k].now)]), "diff-cost"));
    box.append(section);
  }
  return box;
}

// A preset choice and a Run button; while a run goes, its progress (polled), then the page shows its result.
function runControls(suite) {
  const preset = el("select", { "data-testid": "run-preset", title: "the pipeline preset to score the suite with" },
    state.presets.map((p) => el("option", { value: p, selected: p === state.defaultPreset, text: p })));
  const button = el("button", { "data-testid": "run-suite", text: "Run" });
  const status = el("div", { class: "meta", "data-testid": "run-status" });
  const bar = el("div", { class: "suite-run" }, "Score with preset ", preset, " ", button, status);
  const running = state.jobs.find((j) => j.suite === suite.name && j.state === "running");
  if (running) follow(running.id, button, status);
  button.addEventListener("click", async () => {
    button.disabled = true;
    status.replaceChildren(el("span", { class: "running", text: "starting…" }));
    try {
      const job = await api(`/v1/suites/${encodeURIComponent(suite.name)}/runs`, { preset: preset.value });
      follow(job.id, button, status);
    } catch (err) {
      status.replaceChildren(el("div", { class: "error", "data-testid": "run-error", text: err.message }));
      button.disabled = false;
    }
  });
  return bar;
}

async function follow(jobId, button, status) {
  button.disabled = true;
  for (;;) {
    let job;
    try {
      job = await api(`/v1/suites/jobs/${jobId}`);
    } catch (err) {
      status.replaceChildren(el("div", { class: "error", "data-testid": "run-error", text: err.message }));
      button.disabled = false;
      return;
    }
    if (job.state === "running") {
      status.replaceChildren(el("progress", { "data-testid": "run-progress", max: String(job.total || 1), value: String(job.done) }),
        el("span", { class: "running", text: ` ${job.done} of ${job.total || "?"} question(s) · ${job.correct} right so far (${job.preset})` }));
      await new Promise((resolve) => setTimeout(resolve, 1000));
      continue;
    }
    if (job.state === "failed") {
      status.replaceChildren(el("div", { class: "error", "data-testid": "run-error", text: "The run failed: " + job.error }));
      button.disabled = false;
      return;
    }
    await loadSuites(`Run finished: ${job.correct} of ${job.total} right (${job.preset}).`);
    return;
  }
}

async function loadSuites(finished) {
  const holder = $("suites");
  try {
    const data = await api("/v1/suites");
    state.presets = data.presets || [];
    state.defaultPreset = data.default_preset || "";
    state.jobs = data.jobs || [];
    if (finished) $("built").replaceChildren(el("div", { class: "clarify", "data-testid": "run-finished", text: finished }));
    holder.replaceChildren(...(data.suites.length ? data.suites.map(renderSuite)
      : [el("p", { class: "empty", "data-testid": "no-suites", text: "No suite yet. Mark answers right or wrong on the Ask page (or add verified examples), then build the suite." })]));
  } catch (err) {
    holder.replaceChildren(el("div", { class: "error", text: err.message }));
  }
}

async function loadDatabases() {
  const data = await api("/v1/databases");
  $("database").replaceChildren(...data.databases.map((db) => el("option", { value: db.name, selected: db.default, text: `${db.name} (${db.dialect})` })));
  await loadSuites();
}

$("build").addEventListener("click", async () => {
  const button = $("build");
  button.disabled = true;
  $("built").replaceChildren(el("div", { class: "running", text: "building…" }));
  try {
    const report = await api(`/v1/databases/${encodeURIComponent($("database").value)}/suite`, {});
    const left = report.skipped.map((s) => el("li", { text: `${s.source}: ${s.reason}` }));
    $("built").replaceChildren(el("div", { class: "clarify", "data-testid": "build-report" },
      `Built ${report.path}: ${report.questions} question(s) (${report.from_examples} from verified examples, ${report.from_runs} from marked answers).`,
      left.length ? el("ul", {}, left) : null));
    await loadSuites();
  } catch (err) {
    $("built").replaceChildren(el("div", { class: "error", "data-testid": "build-error", text: err.message }));
  } finally {
    button.disabled = false;
  }
});
$("save-token").addEventListener("click", () => {
  state.token = $("token").value;
  sessionStorage.setItem("groundsql-token", state.token);
  $("token-box").hidden = true;
  loadDatabases();
});
loadDatabases().catch((err) => $("suites").replaceChildren(el("div", { class: "error", text: err.message })));
