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

function paneLabel(v) {
  let s = v.target;
  if (v.socket) s += " (-L " + v.socket + ")";
  else if (v.socket_path) s += " (-S " + v.socket_path + ")";
  return s;
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
    el("td", { class: "mono", text: paneLabel(v) }),
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
          el("td", { class: "mono", text: p.pane }),
          el("td", { class: "mono", text: p.target }),
          el("td", { text: p.command }),
          el("td", { text: p.provider }),
          el("td", {}, el("span", { class: "status status-" + p.status, text: p.status }), ...marks),
          el("td", { class: "num", title: p.since, text: duration((now - Date.parse(p.since)) / 1000) }),
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
  loadDispatches();
  loadPanes();
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

function evidenceCell(ev) {
  const td = el("td", { class: "evidence" });
  if (!ev) { td.textContent = "(not kept)"; return td; }
  const parts = [];
  if (ev.reason) parts.push(el("div", { class: "reason-text", text: "screen: " + ev.reason }));
  if (ev.detail) parts.push(el("div", { text: "said: " + ev.detail }));
  if (ev.file) parts.push(el("div", { text: "file: " + ev.file + (ev.archived ? " → " + ev.archived : "") + (ev.problem ? " (" + ev.problem + ")" : "") }));
  if (ev.deadline) parts.push(el("div", { text: "deadline: " + ev.deadline }));
  if (ev.signals) parts.push(el("div", { class: "signals mono", text: "signals: " + JSON.stringify(ev.signals) }));
  td.append(...parts);
  return td;
}

async function loadDispatch(id) {
  let v;
  try { v = await getJSON("/v1/dispatches/" + encodeURIComponent(id)); } catch (e) {
    $("#d-facts").replaceChildren(el("dt", { text: "error" }), el("dd", { text: e.message }));
    return;
  }
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
    el("td", { class: "by", text: t.evidence ? t.evidence.by : "" }),
    evidenceCell(t.evidence),
  )));
  const r = await fetch("/board/dispatches/" + encodeURIComponent(id) + "/diagram.svg", { credentials: "same-origin" });
  // The service's own drawing of its own table (no user text in it).
  if (r.ok) $("#d-diagram").innerHTML = await r.text();
}

function startDispatch(id) {
  $("#dispatch").hidden = false;
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

const m = location.pathname.match(/^\/d\/([^/]+)$/);
if (m) startDispatch(decodeURIComponent(m[1])); else startBoard();
