// groundsql web UI: a conversation thread over the /v1 API. No framework, no network beyond this server.
"use strict";

const PAGE_SIZE = 25;
const state = { database: null, conversation: null, profiled: true, token: sessionStorage.getItem("groundsql-token") || "" };
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

function headers() {
  const h = { "Content-Type": "application/json" };
  if (state.token) h["Authorization"] = "Bearer " + state.token;
  return h;
}

async function api(path, body) {
  const response = await fetch(path, body === undefined ? { headers: headers() }
    : { method: "POST", headers: headers(), body: JSON.stringify(body) });
  if (response.status === 401) $("token-box").hidden = false;
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const message = (data.error && data.error.message) || (data.detail && JSON.stringify(data.detail)) || response.statusText;
    throw new Error(message);
  }
  return data;
}

// Server-sent events over a POST: read the stream, call onEvent(kind, data) for each event.
async function stream(path, body, onEvent) {
  const response = await fetch(path, { method: "POST", headers: headers(), body: JSON.stringify(body) });
  if (!response.ok) {
    if (response.status === 401) $("token-box").hidden = false;
    const data = await response.json().catch(() => ({}));
    const retry = response.headers.get("Retry-After");
    throw new Error(((data.error && data.error.message) || response.statusText) + (retry ? ` (retry in ${retry} s)` : ""));
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const chunk = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let kind = "message", data = "";
      for (const line of chunk.split("\n")) {
        if (line.startsWith("event: ")) kind = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      onEvent(kind, data ? JSON.parse(data) : null);
    }
  }
}

// -- databases, schema, history ------------------------------------------------------------------------

async function loadDatabases() {
  const data = await api("/v1/databases");
  const select = $("database");
  select.innerHTML = "";
  for (const db of data.databases) {
    select.append(el("option", { value: db.name, selected: db.default, text: `${db.name} (${db.dialect})` }));
  }
  state.database = select.value;
  await loadSchema();
}

async function loadSchema() {
  const panel = $("schema");
  panel.innerHTML = "";
  panel.append(el("div", { class: "running", text: "loading schema…" }));
  try {
    const data = await api(`/v1/databases/${encodeURIComponent(state.database)}/schema`);
    panel.innerHTML = "";
    state.profiled = data.profiled;
    if (!data.profiled) panel.append(el("div", { class: "col-type", "data-testid": "not-profiled", text: "Not profiled yet: run `groundsql profile` for semantic types and inferred keys." }));
    for (const table of data.tables) {
      const fks = new Map();
      for (const fk of table.foreign_keys) fk.columns.forEach((c, i) => fks.set(c, `→ ${fk.ref_table}.${fk.ref_columns[i] || ""}${fk.inferred ? " (inferred)" : ""}`));
      const items = table.columns.map((c) => el("li", { title: c.description || "" }, c.name, " ",
        el("span", { class: "col-type", text: c.type || "" }),
        c.semantic_type ? el("span", { class: "sem", text: c.semantic_type }) : null,
        c.primary_key ? el("span", { class: "key", text: "PK" }) : null,
        fks.has(c.name) ? el("span", { class: "key", text: fks.get(c.name) }) : null));
      const rows = table.row_count !== null && table.row_count !== undefined ? ` · ${table.row_count} rows` : "";
      panel.append(el("details", { "data-table": table.name }, el("summary", { text: table.name + (table.is_view ? " (view)" : "") },
        el("span", { class: "col-type", text: rows })), el("ul", {}, items)));
    }
  } catch (err) {
    panel.innerHTML = "";
    panel.append(el("div", { class: "error", text: err.message }));
  }
}

async function loadHistory() {
  const panel = $("history");
  panel.innerHTML = "";
  try {
    const [conversations, runs] = await Promise.all([api("/v1/conversations?limit=30"), api("/v1/runs?limit=30")]);
    panel.append(el("h4", { text: "Conversations" }));
    for (const c of conversations.conversations) {
      panel.append(el("div", { class: "history-item", "data-testid": "conversation-item", onclick: () => resumeConversation(c.id) },
        c.title || "(empty)", el("div", { class: "meta", text: `${c.database} · ${c.turns} turn(s) · ${new Date(c.created_at * 1000).toLocaleString()}` })));
    }
    panel.append(el("h4", { text: "Runs" }));
    for (const r of runs.runs) {
      panel.append(el("div", { class: "history-item", "data-testid": "run-item", title: r.sql || r.error || "" },
        `#${r.id} ${r.ok ? "" : "✗ "}${r.question}${r.mark ? ` (marked ${r.mark})` : ""}`,
        el("div", { class: "meta", text: `${r.preset || ""} · ${(r.elapsed_s || 0).toFixed(1)} s · ${r.row_count ?? "–"} row(s)` })));
    }
  } catch (err) {
    panel.append(el("div", { class: "error", text: err.message }));
  }
}

async function resumeConversation(id) {
  const conversation = await api(`/v1/conversations/${id}`);
  state.conversation = id;
  if ([...$("database").options].some((o) => o.value === conversation.database)) {
    $("database").value = conversation.database;
    state.database = conversation.database;
  }
  clearThread();
  for (const turn of conversation.turns) {
    const card = newTurn(turn.question);
    if (turn.standalone && turn.standalone !== turn.question) card.standalone.textContent = "Understood as: " + turn.standalone;
    card.status.remove();
    if (turn.sql) {
      renderSql(card, turn.sql, turn.database);
      try { renderTable(card, await api("/v1/sql", { sql: turn.sql, database: state.database })); }
      catch (err) { card.body.append(el("div", { class: "error", text: err.message })); }
    }
  }
}

// -- the thread ----------------------------------------------------------------------------------------

function clearThread() {
  const thread = $("thread");
  thread.innerHTML = "";
}

function newTurn(question) {
  $("empty")?.remove();
  const card = { root: el("article", { class: "turn", "data-testid": "turn" }) };
  card.root.append(el("div", { class: "question", "data-testid": "turn-question", text: question }));
  card.standalone = el("div", { class: "standalone", "data-testid": "standalone" });
  card.status = el("div", { class: "running", "data-testid": "status", text: "thinking…" });
  card.steps = el("ol");
  card.trace = el("details", { class: "trace", "data-testid": "trace" }, el("summary", { text: "Trace: 0 steps" }), card.steps);
  card.body = el("div");
  card.root.append(card.standalone, card.status, card.body, card.trace);
  card.running = null;
  $("thread").append(card.root);
  card.root.scrollIntoView({ behavior: "smooth", block: "end" });
  return card;
}

function addStep(card, step) {
  let text;
  if (step.kind === "model") text = `${step.step}: model ${step.model}, ${step.prompt_tokens}+${step.completion_tokens} tokens, ${step.seconds} s${step.error ? " — " + step.error : ""}`;
  else if (step.kind === "query") text = `${step.step}: query ${step.ok ? "ok" : "failed"} (${step.row_count} rows, ${step.seconds} s)${step.error ? " — " + step.error : ""}`;
  else text = `${step.step}: ${JSON.stringify(step.data).slice(0, 300)}`;
  const item = el("li", {}, text);
  if (step.kind === "query") item.append(el("div", {}, el("code", { text: step.sql })));
  card.steps.append(item);
  card.trace.querySelector("summary").textContent = `Trace: ${card.steps.children.length} steps`;
  if (card.running && card.running.step === step.step && card.running.kind === step.kind) {
    stopRunning(card);
    card.status.textContent = `working… (${step.step} finished)`;
  }
}

// A model call or query has started: the progress line names it and counts its seconds until it finishes.
function startRunning(card, now) {
  stopRunning(card);
  const what = now.kind === "model" ? `model call ${now.model || ""}`.trim() : "query";
  const started = Date.now();
  const show = () => { card.status.textContent = `running ${now.step}: ${what} · ${Math.round((Date.now() - started) / 1000)} s`; };
  card.running = { step: now.step, kind: now.kind, timer: setInterval(show, 1000) };
  show();
}

function stopRunning(card) {
  if (card.running) clearInterval(card.running.timer);
  card.running = null;
}

// A first answer shown while the preset still checks it; the checked answer replaces it.
function renderProvisional(card, first) {
  if (card.provisional) card.provisional.remove();
  const box = el("div", { class: "provisional", "data-testid": "provisional" },
    el("div", { class: "badge mid", text: first.error ? "first attempt failed — still working…" : `first answer · ${first.row_count} row(s) — still checking…` }),
    el("pre", { class: "provisional-sql", text: first.sql || "" }));
  const columns = first.columns || [];
  if (columns.length) {
    const table = el("table", { class: "result" });
    table.append(el("tr", {}, ...columns.map((c) => el("th", { text: c }))));
    for (const row of (first.rows || []).slice(0, 10)) table.append(el("tr", {}, ...row.map((v) => el("td", { text: v === null ? "NULL" : String(v) }))));
    box.append(table);
  }
  card.provisional = box;
  card.status.before(box);
}

function renderAnswer(card, answer) {
  stopRunning(card);
  card.status.remove();
  if (card.provisional) { card.provisional.remove(); card.provisional = null; }
  if (answer.turn && answer.turn.standalone && answer.turn.standalone !== answer.turn.question) {
    card.standalone.textContent = "Understood as: " + answer.turn.standalone;
  }
  const badges = el("div", { class: "badges" });
  if (answer.confidence !== null && answer.confidence !== undefined) {
    const level = answer.confidence >= 0.75 ? "good" : answer.confidence >= 0.5 ? "mid" : "low";
    badges.append(el("span", { class: "badge " + level, "data-testid": "confidence", text: `confidence ${answer.confidence.toFixed(2)}` }));
  }
  const usage = answer.usage || {};
  badges.append(el("span", { class: "badge", text: `${answer.preset} · ${answer.model}` }),
    el("span", { class: "badge", text: `${answer.elapsed_s} s · ${usage.llm_calls || 0} model call(s) · ${(usage.prompt_tokens || 0) + (usage.completion_tokens || 0)} tokens` }));
  if (answer.run_id) badges.append(el("span", { class: "badge", "data-testid": "run-badge", text: `run #${answer.run_id}` }));
  // what describes the model's answer (badges, warnings, its error) is replaced when edited SQL is run
  card.meta = el("div", { "data-testid": "answer-meta" }, badges);
  card.body.append(card.meta);
  if (answer.clarification) card.body.append(el("div", { class: "clarify", "data-testid": "clarification" }, el("b", { text: "A question back: " }), answer.clarification));
  if (answer.partial) badges.append(el("span", { class: "badge low", "data-testid": "partial-badge", text: "best answer so far" }));
  for (const note of answer.notes || []) card.meta.append(el("div", { class: "note", "data-testid": "note", text: note }));
  for (const warning of answer.warnings || []) card.meta.append(el("div", { class: "warning", "data-testid": "warning", text: warning }));
  if (answer.error) card.meta.append(el("div", { class: "error", "data-testid": "answer-error", text: "The query failed: " + answer.error }));
  renderSql(card, answer.sql);
  renderTable(card, answer);
  if (answer.run_id && (answer.columns || []).length) card.results.append(renderDownload(answer));
  if (!state.profiled) loadSchema();  // the ask profiled the database: semantic types and row counts now exist
  if (answer.run_id) renderMark(card, answer);
}

// Right or wrong (with the corrected SQL): stored with the run; marked runs make up the evaluation suite.
function renderMark(card, answer) {
  const bar = el("div", { class: "mark", "data-testid": "mark" });
  const status = el("span", { class: "mark-status", "data-testid": "mark-status" });
  const learn = el("input", { type: "checkbox", "data-testid": "mark-learn" });
  const corrected = el("textarea", { rows: 3, "data-testid": "corrected-sql", spellcheck: "false",
    placeholder: "The corrected SQL (optional): it runs through the guard before the mark is saved" });
  const save = el("button", { "data-testid": "save-wrong", text: "Save as wrong" });
  const correction = el("div", { class: "correction", hidden: true }, corrected, save);
  async function send(verdict, sql) {
    status.replaceChildren("saving…");
    try {
      const body = { verdict, learn: learn.checked };
      if (sql && sql.trim()) body.sql = sql;
      const mark = await api(`/v1/runs/${answer.run_id}/mark`, body);
      let text = `marked ${mark.verdict}`;
      if (mark.corrected_sql) text += ` with the corrected SQL (it runs: ${mark.check.row_count}${mark.check.truncated ? "+" : ""} row(s))`;
      if (mark.learned) text += mark.learned.added ? " · added as a verified example" : ` · not added: ${mark.learned.reason}`;
      status.replaceChildren(text);
      bar.dataset.verdict = mark.verdict;
      correction.hidden = true;
    } catch (err) {
      status.replaceChildren(el("span", { class: "error", "data-testid": "mark-error", text: err.message }));
    }
  }
  save.addEventListener("click", () => send("wrong", corrected.value));
  const right = el("button", { "data-testid": "mark-right", text: "✓ Right", onclick: () => send("right") });
  const wrong = el("button", { "data-testid": "mark-wrong", text: "✗ Wrong", onclick: () => {
    corrected.value = card.editor ? card.editor.value : answer.sql || "";
    correction.hidden = false;
    corrected.focus();
  } });
  bar.append("Is this answer right?", right, wrong, el("label", {}, learn, " also add as a verified example"), status);
  card.body.append(bar, correction);
}

// The badges of an edited statement's run: no model, no confidence, no run record — what ran and what it took.
function renderEditedRun(card, result) {
  const badges = el("div", { class: "badges" },
    el("span", { class: "badge edited-badge", "data-testid": "edited-badge", text: "your edited SQL" }),
    el("span", { class: "badge", text: `${result.elapsed_s} s · 0 model calls · ${result.row_count} row(s)` }));
  const meta = el("div", { "data-testid": "answer-meta" }, badges);
  if (result.truncated) meta.append(el("div", { class: "warning", "data-testid": "warning", text: "the result was cut at the row limit" }));
  if (card.meta) card.meta.replaceWith(meta);
  else card.body.prepend(meta);
  card.meta = meta;
}

function renderSql(card, sql) {
  const box = el("div", { class: "sql-box" });
  const editor = el("textarea", { rows: Math.min(12, Math.max(3, (sql || "").split("\n").length + 1)), "data-testid": "sql", spellcheck: "false" });
  editor.value = sql || "";
  card.editor = editor;
  const edited = el("span", { class: "edited" });
  const run = el("button", { "data-testid": "run-sql", text: "Run SQL" });
  // a refused or failing edit is shown here; the table, chart and badges of the last good run stay as they were
  const refusal = el("div", { class: "error", "data-testid": "sql-error", hidden: true });
  run.addEventListener("click", async () => {
    run.disabled = true;
    edited.textContent = "running…";
    try {
      const result = await api("/v1/sql", { sql: editor.value, database: state.database });
      refusal.hidden = true;
      renderEditedRun(card, result);
      renderTable(card, result);
      edited.textContent = "edited SQL, re-run through the guard";
    } catch (err) {
      edited.textContent = "";
      refusal.textContent = err.message + (card.results.childElementCount ? " — the result below is still the last one that ran." : "");
      refusal.hidden = false;
    } finally {
      run.disabled = false;
    }
  });
  box.append(editor, el("div", { class: "sql-actions" }, run, edited), refusal);
  card.body.append(box);
  card.results = el("div", { "data-testid": "results" });
  card.body.append(card.results);
}

function renderTable(card, data) {
  const results = card.results;
  results.innerHTML = "";
  if (data.explanation && data.explanation.sentences && data.explanation.sentences.length) {
    const lineage = Object.entries(data.explanation.lineage || {}).filter(([, s]) => s.length)
      .map(([c, s]) => `${c} ← ${s.join(", ")}`).join(" · ");
    results.append(el("div", { class: "explain", "data-testid": "explanation" }, data.explanation.sentences.join(" "),
      lineage ? el("div", { class: "lineage", text: "Lineage: " + lineage }) : null));
  }
  if (data.chart) {
    const holder = el("div", { class: "chart", "data-testid": "chart" });
    results.append(holder);
    vegaEmbed(holder, data.chart, { actions: false, renderer: "svg" }).catch((err) => {
      holder.replaceChildren(el("div", { class: "error", text: "chart: " + err.message }));
    });
  }
  const columns = data.columns || [];
  if (!columns.length) return;
  const rows = (data.rows || []).slice();
  const view = { page: 0, sort: null, desc: false };
  const table = el("table", { class: "result", "data-testid": "result-table" });
  const pager = el("div", { class: "pager" });
  const csv = el("button", { "data-testid": "csv", text: "Download CSV", onclick: () => downloadCsv(columns, rows) });
  function draw() {
    const ordered = rows.slice();
    if (view.sort !== null) {
      const i = view.sort;
      ordered.sort((a, b) => compare(a[i], b[i]) * (view.desc ? -1 : 1));
    }
    const pages = Math.max(1, Math.ceil(ordered.length / PAGE_SIZE));
    view.page = Math.min(view.page, pages - 1);
    const shown = ordered.slice(view.page * PAGE_SIZE, (view.page + 1) * PAGE_SIZE);
    const head = el("tr", {}, columns.map((name, i) => el("th", {
      title: "sort", onclick: () => { view.desc = view.sort === i ? !view.desc : false; view.sort = i; draw(); },
    }, name + (view.sort === i ? (view.desc ? " ▼" : " ▲") : ""))));
    const body = shown.map((row) => el("tr", {}, row.map((v) => el("td", { class: typeof v === "number" ? "num" : "" }, v === null ? "NULL" : String(v)))));
    table.replaceChildren(el("thead", {}, head), el("tbody", {}, body));
    pager.replaceChildren(
      el("button", { text: "‹", disabled: view.page === 0, onclick: () => { view.page--; draw(); } }),
      `page ${view.page + 1} of ${pages} · ${rows.length} row(s)${data.truncated ? " (cut at the row limit)" : ""}`,
      el("button", { text: "›", "data-testid": "next-page", disabled: view.page >= pages - 1, onclick: () => { view.page++; draw(); } }),
      csv);
  }
  draw();
  results.append(table, pager);
}

// The run's result as a file from the server (typed columns; Parquet and Excel carry the question and the SQL).
function renderDownload(answer) {
  const format = el("select", { "data-testid": "download-format", title: "file format" },
    ["csv", "parquet", "xlsx", "json"].map((f) => el("option", { value: f, text: f === "xlsx" ? "Excel" : f.toUpperCase() })));
  const status = el("span", { class: "mark-status", "data-testid": "download-status" });
  const button = el("button", { "data-testid": "download", text: "Download", title: "The result as a file: its SQL runs again under the row cap" });
  button.addEventListener("click", async () => {
    button.disabled = true;
    status.textContent = "";
    try {
      const response = await fetch(`/v1/runs/${answer.run_id}/result?format=${format.value}`, { headers: headers() });
      if (!response.ok) {
        const data = await response.json().catch(() => ({}));
        throw new Error((data.error && data.error.message) || response.statusText);
      }
      const url = URL.createObjectURL(await response.blob());
      const link = el("a", { href: url, download: `groundsql-run-${answer.run_id}.${format.value}` });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
      const cap = response.headers.get("X-Groundsql-Row-Cap");
      status.textContent = `${response.headers.get("X-Groundsql-Row-Count")} row(s)` + (cap ? `, row cap ${cap}` : "")
        + (response.headers.get("X-Groundsql-Truncated") === "true" ? " (cut at the cap)" : "");
    } catch (err) {
      status.textContent = "download failed: " + err.message;
    } finally {
      button.disabled = false;
    }
  });
  return el("div", { class: "download", "data-testid": "download-bar" }, "Result as a file: ", format, " ", button, " ", status);
}

function compare(a, b) {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b));
}

function downloadCsv(columns, rows) {
  const cell = (v) => {
    if (v === null || v === undefined) return "";
    const text = String(v);
    return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  const text = [columns, ...rows].map((r) => r.map(cell).join(",")).join("\r\n") + "\r\n";
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv" }));
  const link = el("a", { href: url, download: "result.csv" });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

async function ask(question) {
  const button = $("ask");
  button.disabled = true;
  const card = newTurn(question);
  try {
    if (!state.conversation) {
      const conversation = await api("/v1/conversations", { database: state.database });
      state.conversation = conversation.id;
    }
    let answered = false;
    await stream(`/v1/conversations/${state.conversation}/ask/stream`, { question }, (kind, data) => {
      if (kind === "running") startRunning(card, data);
      else if (kind === "step") addStep(card, data);
      else if (kind === "provisional") renderProvisional(card, data);
      else if (kind === "answer") { answered = true; renderAnswer(card, data); }
      else if (kind === "error") { answered = true; stopRunning(card); card.status.remove(); card.body.append(el("div", { class: "error", "data-testid": "answer-error", text: data.message })); }
    });
    if (!answered) throw new Error("the answer stream ended early");
  } catch (err) {
    stopRunning(card);
    card.status.remove();
    card.body.append(el("div", { class: "error", "data-testid": "answer-error", text: err.message }));
  } finally {
    button.disabled = false;
  }
}

// -- wiring --------------------------------------------------------------------------------------------

$("ask-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const question = $("question").value.trim();
  const hint = $("ask-hint");
  if (!question) {  // nothing to send: say so, change nothing else
    hint.textContent = "Type a question first.";
    hint.hidden = false;
    $("question").focus();
    return;
  }
  hint.hidden = true;
  $("question").value = "";
  ask(question);
});
$("question").addEventListener("input", () => { $("ask-hint").hidden = true; });
$("question").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); $("ask-form").requestSubmit(); }
});
$("new-conversation").addEventListener("click", () => {
  state.conversation = null;
  clearThread();
  $("thread").append(el("div", { class: "empty", id: "empty", text: "New conversation: ask a question." }));
});
$("database").addEventListener("change", () => {
  state.database = $("database").value;
  state.conversation = null;
  loadSchema();
});
for (const tab of document.querySelectorAll(".tab")) {
  tab.addEventListener("click", () => {
    document.querySelectorAll(".tab").forEach((t) => t.classList.toggle("active", t === tab));
    $("schema").hidden = tab.dataset.tab !== "schema";
    $("history").hidden = tab.dataset.tab !== "history";
    if (tab.dataset.tab === "history") loadHistory();
  });
}
$("save-token").addEventListener("click", () => {
  state.token = $("token").value;
  sessionStorage.setItem("groundsql-token", state.token);
  $("token-box").hidden = true;
  loadDatabases();
});
loadDatabases().catch((err) => $("schema").append(el("div", { class: "error", text: err.message })));
