// The board of handoff-fsm serve: plain JavaScript, no build step, no
// library. Everything user-made (prompts, answers, screens' reasons) goes
// into the page as text, never as markup; the one piece of markup taken
// from the service is the state diagram it draws from its own table.
"use strict";

const $ = (sel, root = document) => root.querySelector(sel);

function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k);
  return e;
}

async function getJSON(url, opts = {}) {
  const r = await fetch(url, Object.assign({ credentials: "same-origin" }, opts));
  if (r.status === 401) { location.href = "/login"; throw new Error("signed out"); }
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(body.error || ("HTTP " + r.status));
  return body;
}

function duration(sec) {
  sec = Math.max(0, Math.floor(sec));
  const h = Math.floor(sec / 3600), m = Math.floor(sec % 3600 / 60), s = sec % 60;
  if (h) return h + "h " + m + "m";
  if (m) return m + "m " + s + "s";
  return s + "s";
}

function stateBadge(state) {
  return el("span", { class: "state state-" + state, text: state });
}

// The event stream: one EventSource, which the browser reconnects by itself.
function stream(query, onEvent) {
  const conn = $("#conn");
  const es = new EventSource("/v1/events?format=sse" + query);
  es.onopen = () => { conn.textContent = "live"; conn.className = "conn live"; };
  es.onerror = () => { conn.textContent = "reconnecting…"; conn.className = "conn down"; };
  for (const type of ["accepted", "transition", "attention", "finished", "notice"]) {
    es.addEventListener(type, (m) => onEvent(JSON.parse(m.data)));
  }
  return es;
}

// ---- the board ----

const views = new Map(); // dispatch id → its view as the API gave it

// The panes last read, by server and pane id: a dispatch names its pane
// by what it was given (often %N); the board shows the pane's target.
const paneTargets = new Map();
function serverOf(v) { return v.socket ? "-L " + v.socket : v.socket_path ? "-S " + v.socket_path : "the default server"; }
function paneLabel(v) {
  return paneTargets.get(serverOf(v) + " " + v.target) || v.target;
}
function paneTitle(v) { return v.target + " on " + serverOf(v); }
function paneURL(p, s) {
  const q = new URLSearchParams({ pane: p });
  if (s.socket) q.set("socket", s.socket);
  if (s.socket_path) q.set("socket_path", s.socket_path);
  return "/pane?" + q;
}

function elapsed(v) {
  const start = Date.parse(v.created);
  const end = v.ended ? Date.parse(v.ended) : Date.now();
  return (end - start) / 1000;
}

function dispatchRow(v) {
  const tr = el("tr", { "data-id": v.id, "data-state": v.state });
  tr.append(
    el("td", {}, el("a", { href: "/d/" + encodeURIComponent(v.id), class: "mono", text: v.id })),
    el("td", { text: v.role }),
    el("td", { class: "mono pane-cell", title: paneTitle(v), text: paneLabel(v) }),
    el("td", { class: "state-cell" }, stateBadge(v.state),
      v.attention && !v.final ? el("span", { class: "mark", title: v.attention, text: "waits for the user" }) : ""),
    el("td", { class: "num elapsed", text: duration(elapsed(v)) }),
    el("td", { class: "outcome", text: v.final ? (v.outcome + (v.exit !== undefined ? " (exit " + v.exit + ")" : "") + (v.error ? ": " + v.error : "")) : "" }),
  );
  if (v.state === "Done" && !tr.dataset.doneAt) tr.dataset.doneAt = String(Date.now());
  return tr;
}

function matchesFilters(v) {
  const f = new FormData($("#filters"));
  const role = f.get("role").trim(), state = f.get("state");
  if (role && v.role !== role) return false;
  if (state === "running" && v.final) return false;
  if (state === "final" && !v.final) return false;
  if (state && state !== "running" && state !== "final" && v.state !== state) return false;
  return true;
}

function putRow(v) {
  views.set(v.id, v);
  const body = $("#dispatches tbody");
  const old = body.querySelector(`tr[data-id="${CSS.escape(v.id)}"]`);
  if (!matchesFilters(v)) { if (old) old.remove(); return; }
  const row = dispatchRow(v);
  // The states the row showed, in order (its title, and what the browser
  // test checks the dispatch moved through).
  const states = old ? old.dataset.states.split(" ") : [];
  if (states[states.length - 1] !== v.state) states.push(v.state);
  row.dataset.states = states.join(" ");
  row.title = states.join(" → ");
  if (old) {
    if (old.dataset.doneAt) row.dataset.doneAt = old.dataset.doneAt;
    old.replaceWith(row);
  } else {
    body.prepend(row); // newest first
  }
  $("#no-dispatches").hidden = body.children.length > 0;
}

async function loadDispatches() {
  const f = new FormData($("#filters"));
  const q = new URLSearchParams({ limit: "200" });
  for (const k of ["role", "state", "since"]) if (f.get(k)) q.set(k, f.get(k).trim());
  const { dispatches } = await getJSON("/v1/dispatches?" + q);
  const body = $("#dispatches tbody");
  body.replaceChildren();
  dispatches.sort((a, b) => Date.parse(a.created) - Date.parse(b.created));
  for (const v of dispatches) putRow(v);
  $("#no-dispatches").hidden = dispatches.length > 0;
}

async function fetchView(id) {
  try {
    const v = await getJSON("/v1/dispatches/" + encodeURIComponent(id));
    if (views.has(id)) v.attention = views.get(id).attention;
    putRow(v);
  } catch (e) { /* pruned or gone */ }
}

function onBoardEvent(e) {
  if (!e.id) return;
  if (e.type === "attention" && views.has(e.id)) {
    putRow(Object.assign({}, views.get(e.id), { attention: e.message }));
  } else if (e.type === "transition" && views.has(e.id)) {
    // Straight from the event: no request, so the row moves at once.
    const v = Object.assign({}, views.get(e.id), { state: e.state });
    putRow(v);
  } else if (e.type === "accepted" || e.type === "finished") {
    if (e.type === "finished") setTimeout(loadPanes, 1500); // the agent's screen settles
    if (e.type === "finished" && views.has(e.id)) {
      putRow(Object.assign({}, views.get(e.id), { state: e.state, final: true, outcome: e.outcome, exit: e.exit, error: e.message }));
    }
    fetchView(e.id);
  }
  panesSoon();
}

let panesTimer = null;
function panesSoon() {
  clearTimeout(panesTimer);
  panesTimer = setTimeout(loadPanes, 300);
}

async function loadPanes() {
  if (document.visibilityState !== "visible") return;
  let data;
  try { data = await getJSON("/board/panes"); } catch (e) { return; }
  const now = Date.parse(data.now);
  paneOptions(data.servers);
  for (const s of data.servers) for (const p of s.panes) {
    paneTargets.set(serverOf(s) + " " + p.pane, p.target);
    paneTargets.set(serverOf(s) + " " + p.target, p.target);
  }
  for (const td of document.querySelectorAll("#dispatches .pane-cell")) {
    const v = views.get(td.closest("tr").dataset.id);
    if (v) td.textContent = paneLabel(v);
  }
  const root = $("#servers");
  root.replaceChildren();
  for (const s of data.servers) {
    const name = s.socket ? "tmux -L " + s.socket : s.socket_path ? "tmux -S " + s.socket_path : "the default tmux server";
    const box = el("div", { class: "server", "data-socket": s.socket || s.socket_path || "" }, el("h3", { text: name }));
    if (s.error) {
      box.append(el("p", { class: "error", text: s.error }));
    } else if (!s.panes.length) {
      box.append(el("p", { class: "empty", text: "no panes" }));
    } else {
      const t = el("table", {}, el("thead", {}, el("tr", {},
        ...["pane", "target", "command", "provider", "status", "since", "dispatch", "why"].map((h) => el("th", { text: h })))));
      const tb = el("tbody");
      for (const p of s.panes) {
        const marks = [];
        if (p.gone) marks.push(el("span", { class: "mark gone", text: "agent gone" }));
        if (p.timed_out) marks.push(el("span", { class: "mark", title: p.timed_out, text: "timed out" }));
        const disp = p.dispatch ? el("a", { href: "/d/" + encodeURIComponent(p.dispatch), class: "mono", text: p.dispatch }) : "";
        tb.append(el("tr", { "data-pane": p.pane, "data-status": p.status, class: p.gone ? "gone" : "" },
          el("td", { class: "mono" }, el("a", { href: paneURL(p.pane, s), title: "its screen, live", text: p.pane })),
          el("td", { class: "mono", text: p.target }),
          el("td", { text: p.command }),
          el("td", { text: p.provider }),
          el("td", {}, el("span", { class: "status status-" + p.status, text: p.status }), ...marks),
          el("td", { class: "num", title: p.since_first_look ? "at least: so since the board's first look at it, " + p.since : "since " + p.since,
            text: (p.since_first_look ? "≥ " : "") + duration((now - Date.parse(p.since)) / 1000) }),
          el("td", {}, disp),
          el("td", { class: "reason", text: p.timed_out ? p.reason + " — " + p.timed_out : p.reason }),
        ));
      }
      t.append(tb);
      box.append(t);
    }
    root.append(box);
  }
}

function startBoard() {
  $("#board").hidden = false;
  $("#filters").addEventListener("input", () => loadDispatches());
  $("#filters").addEventListener("submit", (e) => e.preventDefault());
  stream("", onBoardEvent);
  startSend();
  loadDispatches();
  loadTeams().then(loadPanes);
  loadRuns();
  setInterval(() => { if (document.visibilityState === "visible") loadRuns(); }, 5000);
  // Only the browser ticks: the elapsed times, and the panes while shown.
  setInterval(() => {
    if (document.visibilityState !== "visible") return;
    for (const tr of document.querySelectorAll("#dispatches tbody tr")) {
      const v = views.get(tr.dataset.id);
      if (v && !v.final) tr.querySelector(".elapsed").textContent = duration(elapsed(v));
    }
  }, 1000);
  setInterval(loadPanes, 5000);
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") loadPanes(); });
}

// ---- a dispatch's page ----

const byWords = {
  screen: "the agent's screen", file: "the response file", hook: "the CLI's turn-end hook",
  deadline: "a deadline", look: "a look at the pane",
};

// signalsTable shows what a classifier found as a small table: each
// signal it saw, with its value (those it did not see left out).
function signalsTable(sig) {
  const t = el("table", { class: "signals-table" });
  for (const [k, v] of Object.entries(sig || {})) {
    // Line numbers and counts are for the raw view; the words stay.
    if (k.endsWith("_line") || k === "lines_scanned") continue;
    if (v === "" || v === 0 || v === false || v === null || (typeof v === "object" && !Object.keys(v).length)) continue;
    t.append(el("tr", {}, el("td", { class: "muted", text: k.replace(/_/g, " ") }),
      el("td", { class: "mono", text: typeof v === "object" ? JSON.stringify(v) : String(v) })));
  }
  return t.children.length ? t : null;
}

function evidenceCell(ev) {
  const td = el("td", { class: "evidence" });
  if (!ev) { td.textContent = "(not kept)"; return td; }
  const parts = [];
  if (ev.reason) parts.push(el("div", { class: "reason-text", text: "screen: " + ev.reason }));
  if (ev.detail) parts.push(el("div", { text: "said: " + ev.detail }));
  if (ev.file) parts.push(el("div", { text: "file: " + ev.file + (ev.archived ? " → " + ev.archived : "") + (ev.problem ? " (" + ev.problem + ")" : "") }));
  if (ev.deadline) parts.push(el("div", { text: "deadline: " + ev.deadline }));
  const st = signalsTable(ev.signals);
  if (st) parts.push(st);
  if (ev.signals) parts.push(el("div", { class: "raw signals mono", text: JSON.stringify(ev.signals) }));
  td.append(...parts);
  return td;
}

// Loads overlap (the first, and one per event): on a slow machine an older
// one's answers can arrive after a newer one's, so only the newest draws.
let dispatchLoads = 0;

async function loadDispatch(id) {
  const mine = ++dispatchLoads;
  let v;
  try { v = await getJSON("/v1/dispatches/" + encodeURIComponent(id)); } catch (e) {
    if (mine !== dispatchLoads) return;
    $("#d-facts").replaceChildren(el("dt", { text: "error" }), el("dd", { text: e.message }));
    return;
  }
  if (mine !== dispatchLoads) return;
  document.title = "handoff-fsm: " + v.role + " " + v.state;
  $("#d-id").textContent = v.id;
  $("#d-state").replaceWith(Object.assign(stateBadge(v.state), { id: "d-state" }));
  $("#dispatch").dataset.state = v.state;
  const facts = [
    ["role", v.role], ["pane", paneLabel(v)], ["provider", v.provider], ["work folder", v.workdir],
    ["created", new Date(v.created).toLocaleString()], ["elapsed", duration(elapsed(v))],
    ["looks", String(v.polls)],
  ];
  if (v.final) facts.push(["outcome", v.outcome + (v.source ? " (" + v.source + ")" : "") + (v.exit !== undefined ? ", exit " + v.exit : "")]);
  if (v.error) facts.push(["error", v.error + (v.error_kind ? " (" + v.error_kind + ")" : "")]);
  if (v.archived_path) facts.push(["archived at", v.archived_path]);
  $("#d-facts").replaceChildren(...facts.flatMap(([k, val]) => [el("dt", { text: k }), el("dd", { class: k === "archived at" ? "mono archived" : "", text: val })]));
  $("#d-prompt").textContent = v.prompt;
  const ans = $("#d-answer");
  if (v.content !== undefined && v.final) { ans.textContent = v.content; ans.className = ""; }
  $("#cancel").hidden = v.final;
  const tb = $("#d-transitions tbody");
  tb.replaceChildren(...(v.transitions || []).map((t, i) => el("tr", { "data-event": t.event },
    el("td", { class: "num", text: String(i + 1) }),
    el("td", { class: "num", text: t.at.toFixed(2) + " s" }),
    el("td", { text: t.from + " → " + t.to }),
    el("td", { class: "mono", text: t.event }),
    el("td", {}, el("span", { class: "status status-" + t.status, text: t.status })),
    el("td", { class: "by", title: t.evidence ? t.evidence.by : "", text: t.evidence ? (byWords[t.evidence.by] || t.evidence.by) : "" }),
    evidenceCell(t.evidence),
  )));
  // The path in words, above its drawing: each state and the event that left it.
  const path = [stateBadge("AwaitingStart")];
  (v.transitions || []).forEach((t, i) => path.push(el("span", { class: "step-arrow", text: " " + (i + 1) + ". " + t.event + " → " }), stateBadge(t.to)));
  $("#d-path").replaceChildren(...path);
  const r = await fetch("/board/dispatches/" + encodeURIComponent(id) + "/diagram.svg", { credentials: "same-origin" });
  // The service's own drawing of its own table (no user text in it).
  const svg = r.ok ? await r.text() : "";
  if (svg && mine === dispatchLoads) $("#d-diagram").innerHTML = svg;
}

function startDispatch(id) {
  $("#dispatch").hidden = false;
  $("#raw-toggle").addEventListener("change", (e) => document.body.classList.toggle("raw", e.target.checked));
  $("#cancel").addEventListener("click", async () => {
    const msg = $("#cancel-msg");
    msg.textContent = "cancelling…";
    try {
      await getJSON("/v1/dispatches/" + encodeURIComponent(id), { method: "DELETE" });
      msg.textContent = "cancelled";
    } catch (e) { msg.textContent = "not cancelled: " + e.message; }
    loadDispatch(id);
  });
  let soon = null;
  stream("&id=" + encodeURIComponent(id), () => { clearTimeout(soon); soon = setTimeout(() => loadDispatch(id), 100); });
  loadDispatch(id);
}


// ---- sending a prompt from the page ----

// The send form's choices: every pane the board read, and each team's
// roles (a role picks its agent's pane and work folder).
let teamsSeen = [];
function paneOptions(servers) {
  const sel = $("#send-to");
  if (!sel) return;
  const keep = sel.value;
  const opts = [el("option", { value: "", text: "pick a pane or a role…" })];
  for (const t of teamsSeen) {
    const g = el("optgroup", { label: "team " + t.file });
    for (const a of t.agents) {
      if (!a.pane) continue;
      g.append(el("option", { value: JSON.stringify({ target: a.pane, socket: t.socket, role: a.role, workdir: a.workdir }), text: a.role + " (" + a.pane + ", " + a.provider + ")" }));
    }
    if (g.children.length) opts.push(g);
  }
  for (const s of servers) {
    const g = el("optgroup", { label: s.socket ? "tmux -L " + s.socket : s.socket_path ? "tmux -S " + s.socket_path : "the default tmux server" });
    for (const p of s.panes) {
      if (p.gone) continue;
      g.append(el("option", { value: JSON.stringify({ target: p.pane, socket: s.socket || "", socket_path: s.socket_path || "" }), text: p.target + " " + p.pane + " (" + p.provider + ", " + p.status + ")" }));
    }
    if (g.children.length) opts.push(g);
  }
  sel.replaceChildren(...opts);
  if ([...sel.options].some((o) => o.value === keep)) sel.value = keep;
}

function startSend() {
  const f = $("#send");
  const wd = $("#send-workdir");
  wd.value = localStorage.getItem("handoff-workdir") || "";
  $("#send-to").addEventListener("change", () => {
    const v = $("#send-to").value ? JSON.parse($("#send-to").value) : {};
    if (v.role) $("#send-role").value = v.role;
    if (v.workdir) wd.value = v.workdir;
  });
  f.addEventListener("submit", async (e) => {
    e.preventDefault();
    const msg = $("#send-msg");
    const to = $("#send-to").value ? JSON.parse($("#send-to").value) : null;
    if (!to) { msg.textContent = "pick a pane or a role"; return; }
    const body = { target: to.target, role: $("#send-role").value.trim(), workdir: wd.value.trim(), prompt: $("#send-prompt").value, provider: "auto" };
    if (to.socket) body.socket = to.socket;
    if (to.socket_path) body.socket_path = to.socket_path;
    msg.textContent = "sending…";
    try {
      // The API's own checks (what a prompt may hold, the role, the pane)
      // answer here as for any client.
      const v = await getJSON("/v1/dispatches", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
      localStorage.setItem("handoff-workdir", body.workdir);
      msg.replaceChildren("sent: ", el("a", { href: "/d/" + encodeURIComponent(v.id), class: "mono", text: v.id }));
      msg.dataset.sent = v.id;
      $("#send-prompt").value = "";
    } catch (err) { msg.textContent = "not sent: " + err.message; msg.dataset.error = err.message; }
  });
  const preset = new URLSearchParams(location.search);
  if (preset.get("pane")) {
    const v = { target: preset.get("pane"), socket: preset.get("socket") || "", socket_path: preset.get("socket_path") || "" };
    const sel = $("#send-to");
    sel.append(el("option", { value: JSON.stringify(v), text: v.target }));
    sel.value = JSON.stringify(v);
  }
}

async function loadTeams() {
  try { teamsSeen = (await getJSON("/board/teams")).teams; } catch (e) { teamsSeen = []; }
  return teamsSeen;
}

let runsShown = "";
async function loadRuns() {
  let runs;
  try { runs = (await getJSON("/board/runs")).runs; } catch (e) { return; }
  const sig = JSON.stringify(runs);
  if (sig === runsShown) return; // unchanged: the rows stay as they are
  runsShown = sig;
  $("#runs-section").hidden = runs.length === 0;
  $("#runs tbody").replaceChildren(...runs.map((r) => el("tr", { "data-key": r.key },
    el("td", {}, el("a", { href: "/r/" + r.key, class: "mono", text: r.key })),
    el("td", { class: "task-cell", title: r.dir, text: r.error ? r.error : r.task.split("\n")[0] }),
    el("td", { class: "num", text: r.started ? new Date(r.started).toLocaleString() : "" }),
    el("td", { class: "num", text: String(r.steps) }),
    el("td", {}, r.finished ? stateBadge("Done") : r.next ? el("span", { class: "state state-Working", text: "step " + (r.steps + 1) + ": " + r.next }) : ""),
  )));
}

// ---- a pane's screen, live ----

function screenLine(line) {
  const div = el("span", { class: "line" + (line.marks ? " marked" : "") });
  for (const sp of line.spans || []) {
    const s = el("span", { text: sp.t });
    // Colours the service computed from the terminal's codes (#rrggbb).
    if (/^#[0-9a-f]{6}$/.test(sp.fg || "")) s.style.color = sp.fg;
    if (/^#[0-9a-f]{6}$/.test(sp.bg || "")) s.style.background = sp.bg;
    if (sp.b) s.style.fontWeight = "bold";
    if (sp.d) s.style.opacity = ".6";
    if (sp.i) s.style.fontStyle = "italic";
    if (sp.u) s.style.textDecoration = "underline";
    div.append(s);
  }
  if (line.marks) {
    div.dataset.marks = line.marks.join(" ");
    div.title = "the classifier's " + line.marks.join(", ");
  }
  div.append("\n");
  return div;
}

function quiet(conn) { const c = $("#conn"); c.textContent = conn; c.className = "conn live"; }

function startPane(q) {
  $("#pane").hidden = false;
  quiet("read every second while shown");
  const pane = q.get("pane");
  const name = pane + (q.get("socket") ? " (tmux -L " + q.get("socket") + ")" : q.get("socket_path") ? " (tmux -S " + q.get("socket_path") + ")" : "");
  $("#p-name").textContent = name;
  document.title = "handoff-fsm: " + name;
  $("#p-send").href = "/?" + q;
  let reads = 0, last = "";
  async function look() {
    if (document.visibilityState !== "visible") return;
    let v;
    try { v = await getJSON("/board/screen?" + q); } catch (e) { $("#p-reason").textContent = e.message; return; }
    reads++;
    const badge = $("#p-status");
    badge.textContent = v.status; badge.className = "status status-" + v.status;
    $("#pane").dataset.status = v.status;
    $("#pane").dataset.reads = String(reads);
    $("#p-provider").textContent = v.provider;
    $("#p-reason").textContent = v.reason;
    $("#p-detail").textContent = v.detail ? "— " + v.detail : "";
    $("#p-at").textContent = "Read at " + new Date(v.at).toLocaleTimeString() + ".";
    const key = JSON.stringify(v.lines);
    if (key !== last) {
      last = key;
      const pre = $("#p-screen");
      const atBottom = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
      pre.replaceChildren(...v.lines.map(screenLine));
      if (atBottom || reads === 1) pre.scrollTop = pre.scrollHeight;
    }
    const st = signalsTable(v.signals);
    $("#p-marks").replaceChildren(el("h3", { text: "what the rule saw" }), st || el("p", { class: "empty", text: "no signals" }));
  }
  look();
  // Only while the page is shown: a hidden tab or a closed one asks nothing.
  setInterval(look, 1000);
  document.addEventListener("visibilitychange", look);
}

// ---- a run ----

function stepItem(s, next) {
  const cls = ["step", next ? "next" : "done"];
  if (s.review) cls.push("review", s.verdict === "changes requested" ? "changes" : "approved");
  if (s.failed) cls.push("failed");
  const head = el("div", { class: "head" }, el("b", { text: s.n + ". " + s.role }));
  if (s.sent_back) head.append(el("span", { class: "mark", text: "sent back (round " + s.round + ")" }));
  if (s.review) head.append(el("span", { class: "muted", text: "review, round " + s.round }));
  if (s.verdict) head.append(el("span", { class: "verdict " + (s.verdict === "approved" ? "approved" : "changes"), text: s.verdict }));
  if (next) {
    head.append(el("span", { class: "state state-Working", text: s.state || "waiting for the answer" }));
    if (s.dispatch) head.append(el("a", { href: "/d/" + encodeURIComponent(s.dispatch), class: "mono", text: s.dispatch }));
  } else {
    head.append(el("span", { class: "muted", text: (s.source ? "answered (" + s.source + ")" : "") + (s.elapsed_ns ? " in " + duration(s.elapsed_ns / 1e9) : "") }));
  }
  if (!next && s.response) head.append(el("span", { class: "gist", text: s.response.trim().split("\n")[0].slice(0, 120) }));
  const li = el("li", { class: cls.join(" "), "data-n": String(s.n), "data-role": s.role }, head,
    el("details", {}, el("summary", { text: "prompt" }), el("pre", { class: "prompt", text: s.prompt })));
  if (!next) li.append(el("details", {}, el("summary", { text: "answer" }), el("pre", { class: "answer", text: s.response || "" })));
  return li;
}

// pipeline draws the loop's five roles in order: how often each was asked,
// its last verdict, and which one works now.
const loopRoles = ["analyst", "analyst_review", "programmer", "programmer_review", "tester"];
function pipeline(r) {
  const boxes = loopRoles.map((role) => {
    const steps = r.steps.filter((s) => s.role === role);
    const lastStep = steps[steps.length - 1];
    const now = r.next && r.next.role === role;
    const cls = ["stage", now ? "now" : steps.length ? "done" : "todo"];
    if (lastStep && lastStep.verdict) cls.push(lastStep.verdict === "approved" ? "approved" : "changes");
    return el("div", { class: cls.join(" "), "data-role": role },
      el("b", { text: role.replace("_", " ") }),
      el("span", { text: now ? "working…" : steps.length ? (steps.length > 1 ? steps.length + " times" : "done") + (lastStep.verdict ? " · " + lastStep.verdict : "") : "not yet" }));
  });
  const bar = $("#r-pipeline");
  bar.replaceChildren();
  boxes.forEach((b, i) => { if (i) bar.append(el("span", { class: "arrow", text: "→" })); bar.append(b); });
}

function startRun(key) {
  $("#run").hidden = false;
  quiet("read every second while shown");
  let last = "";
  async function look() {
    if (document.visibilityState !== "visible") return;
    let r;
    try { r = await getJSON("/board/runs/" + encodeURIComponent(key)); } catch (e) { $("#r-task").textContent = e.message; return; }
    const sig = JSON.stringify(r);
    if (sig === last) return;
    last = sig;
    document.title = "handoff-fsm: run " + key;
    $("#r-task").textContent = r.task;
    const state = r.finished ? "Done" : "Working";
    $("#r-state").replaceWith(Object.assign(el("span", { class: "state state-" + state, text: r.finished ? "finished" : "running" }), { id: "r-state" }));
    $("#run").dataset.state = r.finished ? "finished" : "running";
    $("#run").dataset.steps = String(r.steps.length);
    $("#r-facts").replaceChildren(...[["journal", r.dir], ["started", r.started ? new Date(r.started).toLocaleString() : ""],
      ["finished", r.finished ? new Date(r.finished).toLocaleString() : "not yet"], ["reviews per stage", String(r.rounds)]]
      .flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: v })]));
    pipeline(r);
    const items = r.steps.map((s) => stepItem(s, false));
    if (r.next) items.push(stepItem(r.next, true));
    $("#r-steps").replaceChildren(...items);
  }
  async function team() {
    if (document.visibilityState !== "visible") return;
    const teams = await loadTeams();
    const rows = [];
    for (const t of teams) for (const a of t.agents) rows.push(el("tr", { "data-role": a.role, class: a.running ? "" : "gone" },
      el("td", { text: a.role }), el("td", { class: "mono", text: a.pane || "-" }), el("td", { text: a.provider }),
      el("td", {}, a.process, a.running ? "" : el("span", { class: "mark gone", text: "not running" })),
      el("td", {}, a.status ? el("span", { class: "status status-" + a.status, text: a.status }) : "-")));
    $("#r-team tbody").replaceChildren(...rows);
    $("#r-team-section").hidden = rows.length === 0;
  }
  look(); team();
  setInterval(look, 1000);
  setInterval(team, 5000);
  document.addEventListener("visibilitychange", () => { look(); team(); });
}

const m = location.pathname.match(/^\/d\/([^/]+)$/);
const rm = location.pathname.match(/^\/r\/([^/]+)$/);
if (m) startDispatch(decodeURIComponent(m[1]));
else if (rm) startRun(decodeURIComponent(rm[1]));
else if (location.pathname === "/pane") startPane(new URLSearchParams(location.search));
else startBoard();
