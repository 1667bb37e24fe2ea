// The sqsfake console. Plain script, no build step, no dependency: it reads the fake through
// the console's JSON endpoints (api/…), acts through the SQS API (POST / with X-Amz-Target)
// and the control endpoints, and builds every node with textContent, never from markup, so
// nothing a message carries is ever read as HTML.
"use strict";

const CONTROL = { "X-Sqsfake-Control": "1" };
// In signed mode (-credentials) the server's control endpoints and the console's own need its
// -control-token as the value of that header: the page asks for it once, when the server says
// so, and keeps it for the tab only.
const TOKEN_KEY = "sqsfake-control-token";
let tokenAsked = false;

function controlHeaders() {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? { "X-Sqsfake-Control": token } : CONTROL;
}

// guarded fetches a console or control endpoint and returns its JSON, asking for the token
// when a signed server refuses the request for want of it, and retrying once with it.
async function guarded(label, url, init) {
  for (;;) {
    const r = await fetch(url, Object.assign({ cache: "no-store" }, init, { headers: controlHeaders() }));
    const body = await r.json().catch(() => ({}));
    if (r.ok) return body;
    if (r.status === 403 && /-control-token/.test(body.error || "") && !tokenAsked) {
      tokenAsked = true;
      const token = window.prompt("This server runs in signed mode: enter its -control-token");
      if (token) {
        sessionStorage.setItem(TOKEN_KEY, token);
        continue;
      }
    }
    throw new ShownError(label + ": HTTP " + r.status + ": " + (body.error || r.statusText));
  }
}
const REFRESH_MS = 3000;
const QUEUE_PAGE = 200;
const MESSAGE_PAGE = 50;
const TOPIC_PAGE = 200;
const PUBLICATION_PAGE = 20;

const st = {
  overview: null,
  queueAfter: 0,
  space: "",          // "account/region" filter, "" for all
  queue: "",          // the selected queue's ARN
  cursors: [0],       // the message pages' cursors: cursors[cursors.length-1] is the shown page's
  page: null,         // the shown page of messages
  msg: "",            // the selected message's id
  busy: false,
  topics: null,       // a page of the server's SNS topics, when it serves SNS
  topicAfter: 0,      // the topics page's cursor
  topic: "",          // the selected topic's ARN
  pubs: null,         // a page of its publications, newest first
  pubAfter: 0,        // that page's cursor
};

const $ = (id) => document.getElementById(id);

// el builds an element: el("td", {class: "x"}, "text", child…). Strings become text nodes.
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  return e;
}

const SVG = "http://www.w3.org/2000/svg";
function sv(tag, attrs, ...children) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, String(v));
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  return e;
}

// onEnter opens a focused row with the keyboard as a click does.
function onEnter(ev) {
  if (ev.key === "Enter") ev.currentTarget.click();
}

function fmtTime(iso) {
  const d = new Date(iso);
  return iso && !isNaN(d) ? d.toISOString().replace("T", " ") : "";
}
function fmtNum(n) { return Number(n || 0).toLocaleString("en-US"); }
function fmtDur(ms) {
  if (ms === 0) return "+0s";
  const sign = ms < 0 ? "-" : "+";
  ms = Math.abs(ms);
  if (ms < 1000) return sign + ms + "ms";
  const s = ms / 1000;
  if (s < 120) return sign + (Number.isInteger(s) ? s : s.toFixed(1)) + "s";
  const m = s / 60;
  if (m < 120) return sign + (Number.isInteger(m) ? m : m.toFixed(1)) + "m";
  const h = m / 60;
  if (h < 48) return sign + (Number.isInteger(h) ? h : h.toFixed(1)) + "h";
  return sign + (h / 24).toFixed(1) + "d";
}

// ---- talking to the fake ----

class ShownError extends Error {}

async function api(path, params) {
  const q = new URLSearchParams(params || {}).toString();
  return guarded(path, "api/" + path + (q ? "?" + q : ""), {});
}

// control posts to a control endpoint of the server (or the console's own under Handler).
async function control(path, params) {
  const q = new URLSearchParams(params || {}).toString();
  return guarded(path, path + (q ? "?" + q : ""), { method: "POST" });
}

// sqs calls an SQS operation over awsJson1_0 and throws the API's error as SQS words it. A
// queue of another account or region than the fake's own is addressed as that account and
// region: the credential scope of an unsigned request names them (a server in signed mode
// refuses it, and the page shows the refusal).
async function sqs(op, input, queue) {
  const headers = Object.assign({ "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "AmazonSQS." + op }, CONTROL);
  const ov = st.overview;
  if (queue && ov && (queue.account !== ov.account || queue.region !== ov.region)) {
    const day = (ov.now || "").slice(0, 10).replaceAll("-", "");
    headers["Authorization"] = "AWS4-HMAC-SHA256 Credential=" + queue.account + "/" + day + "/" + queue.region +
      "/sqs/aws4_request, SignedHeaders=content-type;host;x-amz-target, Signature=console";
  }
  const r = await fetch("/", { method: "POST", headers, body: JSON.stringify(input), cache: "no-store" });
  const text = await r.text();
  let body = {};
  try { body = JSON.parse(text); } catch (e) { /* not JSON: shown as text */ }
  if (!r.ok) {
    const shape = String(body.__type || "").split("#").pop();
    const code = (r.headers.get("x-amzn-query-error") || "").split(";")[0] || shape || "HTTP " + r.status;
    throw new ShownError(op + " failed: " + code + ": " + (body.message || text));
  }
  return body;
}

function show(kind, text) {
  const s = $("status");
  s.replaceChildren();
  if (text) s.append(el("div", { class: kind, id: kind === "err" ? "error" : "notice" }, text));
}

// act runs an action, shows its result or error, and refreshes.
let actions = 0; // actions begun: a refresh that began before one reads a state it changed
async function act(what, fn) {
  actions++;
  try {
    const note = await fn();
    show("ok", note || what + ": done");
  } catch (e) {
    show("err", e instanceof ShownError ? e.message : what + ": " + e);
  }
  await refresh();
}

// ---- the hash: which queue, message or topic is shown, so a view can be reached by its URL
// (docs/console.md, "Links"): #queue=<ARN>, #queue=<ARN>&message=<MessageId>, #topic=<ARN> ----

function readHash() {
  const h = new URLSearchParams(location.hash.slice(1));
  st.queue = h.get("queue") || "";
  st.msg = h.get("message") || "";
  st.topic = h.get("topic") || "";
}
function writeHash() {
  const h = new URLSearchParams();
  if (st.topic) h.set("topic", st.topic);
  if (st.queue) h.set("queue", st.queue);
  if (st.msg) h.set("message", st.msg);
  const s = h.toString();
  history.replaceState(null, "", s ? "#" + s : location.pathname);
}

// copyLink copies the address of the view on screen, and shows it: the clipboard may refuse
// (a browser asks for permission, or has none), and then the link is there to copy by hand.
async function copyLink() {
  writeHash();
  const url = location.href;
  try {
    await navigator.clipboard.writeText(url);
    show("ok", "link copied: " + url);
  } catch (e) {
    show("ok", "link to this view (copy it): " + url);
  }
}

// ---- rendering ----

function selectedQueue() {
  return st.overview && st.overview.queues.find((q) => q.arn === st.queue);
}

function queueByArn(arn) {
  return st.overview && st.overview.queues.find((q) => q.arn === arn);
}
function nameOfArn(arn) { return String(arn).split(":").pop(); }

function renderOverview() {
  const ov = st.overview;
  $("clock").textContent = fmtTime(ov.now);
  $("clock").setAttribute("datetime", ov.now);
  $("clock-kind").textContent = ov.clock === "virtual" ? "virtual: moves only when advanced" : ov.clock + " clock: time passes";
  $("advance").disabled = !ov.advance;
  $("advance-by").disabled = !ov.advance;
  $("advance").title = ov.advance ? "POST " + ov.advance : "the clock is real: it cannot be moved";

  const spaces = $("spaces");
  spaces.replaceChildren(el("li", { class: st.space === "" ? "sel" : null, onclick: () => { st.space = ""; renderOverview(); } },
    "all ", el("span", { class: "count" }, "(" + fmtNum(ov.total) + " queues)")));
  for (const sp of ov.spaces) {
    const key = sp.account + "/" + sp.region;
    const own = sp.account === ov.account && sp.region === ov.region;
    spaces.append(el("li", { class: st.space === key ? "sel" : null, onclick: () => { st.space = key; renderOverview(); } },
      el("span", { class: "mono" }, sp.account), " ", sp.region, own ? " (own)" : "",
      " ", el("span", { class: "count" }, "· " + fmtNum(sp.queues))));
  }

  $("queue-total").textContent = "(" + fmtNum(ov.total) + ")";
  const body = $("queues").tBodies[0];
  body.replaceChildren();
  for (const q of ov.queues) {
    if (st.space && st.space !== q.account + "/" + q.region) continue;
    const name = el("td", {}, q.name, " ", el("span", { class: "tag" }, q.fifo ? "FIFO" : "std"));
    if (q.account !== ov.account || q.region !== ov.region) name.append(el("span", { class: "wire dim" }, q.account + " " + q.region));
    if (q.deadLetterTarget) name.append(el("span", { class: "wire" }, "→ DLQ " + nameOfArn(q.deadLetterTarget) + " after " + q.maxReceiveCount));
    if (q.deadLetterSources) name.append(el("span", { class: "wire" }, "← DLQ of " + q.deadLetterSources.map(nameOfArn).join(", ")));
    body.append(el("tr", { class: q.arn === st.queue ? "sel" : null, "data-arn": q.arn, tabindex: 0, onclick: () => openQueue(q.arn), onkeydown: onEnter },
      name, el("td", {}, fmtNum(q.visible)), el("td", {}, fmtNum(q.inFlight)), el("td", {}, fmtNum(q.delayed))));
  }
  $("queues-range").textContent = ov.total ? (st.queueAfter + 1) + "–" + (st.queueAfter + ov.queues.length) + " of " + fmtNum(ov.total) : "no queues";
  $("queues-prev").disabled = st.queueAfter === 0;
  $("queues-next").disabled = !ov.truncated;
}

function renderQueue() {
  const p = st.page;
  const q = selectedQueue();
  $("queue-view").hidden = !p;
  $("empty-view").hidden = !!p || !!st.pubs;
  if (!p) return;
  const fifo = p.attributes.FifoQueue === "true";
  $("q-name").textContent = p.queue;
  $("q-kind").textContent = fifo ? "FIFO" : "standard";
  $("q-arn").textContent = p.arn;
  $("q-counts").replaceChildren(
    el("span", {}, el("b", { id: "count-visible" }, fmtNum(p.visible)), " visible"),
    el("span", {}, el("b", { id: "count-inflight" }, fmtNum(p.inFlight)), " in flight"),
    el("span", {}, el("b", { id: "count-delayed" }, fmtNum(p.delayed)), " delayed"),
    el("span", { class: "dim" }, "sent " + fmtNum(p.stats.numberOfMessagesSent) + " · received " + fmtNum(p.stats.numberOfMessagesReceived) +
      " · deleted " + fmtNum(p.stats.numberOfMessagesDeleted)));
  const wire = $("q-redrive");
  wire.replaceChildren();
  const link = (arn) => el("a", { onclick: () => openQueue(arn) }, nameOfArn(arn));
  if (q && q.deadLetterTarget) wire.append(el("div", {}, "dead-letters into ", link(q.deadLetterTarget), " after " + q.maxReceiveCount + " receives"));
  if (q && q.deadLetterSources) {
    const d = el("div", {}, "dead-letter queue of ");
    q.deadLetterSources.forEach((a, i) => { if (i) d.append(", "); d.append(link(a)); });
    wire.append(d);
  }
  const attrs = $("q-attrs");
  attrs.replaceChildren();
  for (const k of Object.keys(p.attributes).sort()) attrs.append(el("tr", {}, el("td", {}, k), el("td", {}, p.attributes[k])));
  for (const k of Object.keys(p.tags || {}).sort()) attrs.append(el("tr", {}, el("td", {}, "tag " + k), el("td", {}, p.tags[k])));
  for (const e of document.querySelectorAll(".fifo-only")) e.hidden = !fifo;

  const isDLQ = !!(q && q.deadLetterSources);
  $("move-box").hidden = !isDLQ;
  if (isDLQ) {
    const sel = $("move-dest");
    const keep = sel.value;
    sel.replaceChildren(el("option", { value: "" }, "each message's source queue"));
    for (const a of q.deadLetterSources) sel.append(el("option", { value: a }, nameOfArn(a)));
    sel.value = keep;
  }

  const tb = $("messages").tBodies[0];
  tb.replaceChildren();
  let n = 0;
  for (const m of p.messages) {
    n++;
    const body = el("td", { class: "body", title: m.bodyTruncated ? "first " + fmtNum(m.body.length) + " characters of " + fmtNum(m.bodyBytes) + " bytes" : null }, m.body);
    if (m.bodyTruncated) body.append(el("span", { class: "more" }, " … (" + fmtNum(m.bodyBytes) + " bytes)"));
    const attrs = (m.attributes || []).map((a) => a.name + "=" + a.value + (a.truncated ? "…" : "")).join(", ");
    tb.append(el("tr", { class: m.messageId === st.msg ? "sel" : null, "data-id": m.messageId, tabindex: 0, onclick: () => openMessage(m.messageId), onkeydown: onEnter },
      el("td", { class: "dim" }, String((st.cursors.length - 1) * MESSAGE_PAGE + n)),
      el("td", { class: "id" }, m.messageId),
      el("td", {}, el("span", { class: "state state-" + m.state.replace(" ", "-"), title: m.visibleAt ? "visible at " + fmtTime(m.visibleAt) : null }, m.state)),
      el("td", {}, String(m.receiveCount)),
      el("td", { class: "mono" }, fmtTime(m.sentAt).slice(11)),
      body, el("td", { class: "attrs", title: attrs }, attrs)));
  }
  if (!p.messages.length) tb.append(el("tr", {}, el("td", { colspan: 7, class: "dim" }, "no messages")));
  const first = (st.cursors.length - 1) * MESSAGE_PAGE;
  $("m-range").textContent = p.messages.length ? "(" + (first + 1) + "–" + (first + p.messages.length) + " of " + fmtNum(p.visible + p.inFlight + p.delayed) + ")" : "";
  $("messages-first").disabled = st.cursors.length === 1;
  $("messages-prev").disabled = st.cursors.length === 1;
  $("messages-next").disabled = !p.truncated;
}

async function renderMoveTasks() {
  const q = selectedQueue();
  if (!q || !q.deadLetterSources) return;
  const ul = $("move-tasks");
  try {
    const out = await sqs("ListMessageMoveTasks", { SourceArn: q.arn, MaxResults: 5 }, q);
    ul.replaceChildren();
    for (const t of out.Results || []) {
      ul.append(el("li", { class: "task" }, (t.Status || "") + " · moved " + fmtNum(t.ApproximateNumberOfMessagesMoved) +
        (t.ApproximateNumberOfMessagesToMove !== undefined ? " of " + fmtNum(t.ApproximateNumberOfMessagesToMove) : "") +
        " · started " + fmtTime(new Date(t.StartedTimestamp).toISOString()) + (t.FailureReason ? " · " + t.FailureReason : "")));
    }
    if (!ul.children.length) ul.append(el("li", {}, "no move tasks"));
  } catch (e) {
    ul.replaceChildren(el("li", {}, e.message));
  }
}

// ---- the timeline on the clock ----

const ENDS = new Set(["deleted", "movedToDLQ", "redriven", "purged", "expired", "queueDeleted"]);

function drawTimeline(m) {
  const box = $("timeline");
  box.replaceChildren();
  const evs = m.events;
  if (!evs.length) {
    box.append(el("p", { class: "dim" }, m.forgotten ? "The fake has forgotten this message's events (WithHistoryLimit)." : "No events."));
    return;
  }
  const t = (iso) => Date.parse(iso);
  const now = t(m.now);
  // The drawing runs to now while a queue holds the message; once it is gone, to its last event.
  let t0 = t(evs[0].at), t1 = t(evs[evs.length - 1].at);
  if (m.message) t1 = Math.max(t1, now);
  for (const e of evs) if (e.visibleAt) t1 = Math.max(t1, t(e.visibleAt));
  if (t1 - t0 < 1000) t1 = t0 + 1000;
  const lanes = [];
  const laneOf = (q) => { let i = lanes.indexOf(q); if (i < 0) { lanes.push(q); i = lanes.length - 1; } return i; };
  for (const e of evs) { laneOf(e.queue); if (e.toQueue && e.kind === "movedToDLQ") laneOf(e.toQueue); }
  for (const e of evs) if (e.toQueue) laneOf(e.toQueue);
  const L = 150, R = 30, W = Math.max(720, box.clientWidth || 900), TOP = 34, LANE = 56;
  const H = TOP + lanes.length * LANE + 10;
  const x = (ms) => L + (ms - t0) / (t1 - t0) * (W - L - R);
  const y = (q) => TOP + laneOf(q) * LANE + LANE / 2;
  // a label beside a mark: on its right, or on its left near the right edge
  const labelAt = (X, Y) => X > W - 160 ? { x: X - 6, y: Y, "text-anchor": "end" } : { x: X + 6, y: Y };
  const svg = sv("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": "timeline of message " + m.id });
  svg.append(sv("defs", {}, sv("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
    sv("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#8250df" }))));

  // axis: about six ticks at a round step
  const axis = sv("g", { class: "axis" });
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400, 172800, 604800].map((s) => s * 1000);
  const step = steps.find((s) => (t1 - t0) / s <= 8) || Math.ceil((t1 - t0) / 8 / 86400000) * 86400000;
  for (let v = 0; t0 + v <= t1; v += step) {
    axis.append(sv("line", { x1: x(t0 + v), x2: x(t0 + v), y1: TOP - 6, y2: H - 6 }), sv("text", { x: x(t0 + v), y: TOP - 10, "text-anchor": "middle" }, fmtDur(v)));
  }
  axis.append(sv("text", { x: 4, y: TOP - 10 }, fmtTime(evs[0].at).slice(11)));
  svg.append(axis);
  for (const q of lanes) {
    svg.append(sv("line", { class: "lane", x1: L, x2: W - R, y1: y(q), y2: y(q) }),
      sv("text", { class: "lane-label", x: 4, y: y(q) + 4 }, q.length > 22 ? q.slice(0, 21) + "…" : q));
  }

  // residence: a line from when the message entered a queue to when it left it
  const entered = {};
  const resident = sv("g", {});
  const leave = (q, at) => { if (entered[q] !== undefined) { resident.append(sv("line", { class: "resident", x1: x(entered[q]), x2: x(at), y1: y(q), y2: y(q) })); delete entered[q]; } };
  // receive spans: from a receive to when the message became visible again or left
  const spans = sv("g", {});
  const marks = sv("g", {});
  let open = null;
  const close = (at, cut) => {
    if (!open) return;
    const end = cut ? Math.min(open.end, at) : at;
    const future = end > now;
    const xe = x(Math.min(end, t1));
    spans.append(sv("rect", { class: "span-receive" + (open.n % 2 ? "" : " even") + (future ? " open" : ""), "data-receive": open.n, x: x(open.start), y: y(open.q) - 11,
      width: Math.max(2, xe - x(open.start) - 1), height: 22, rx: 3 },
      sv("title", {}, "receive " + open.n + ": invisible " + fmtTime(new Date(open.start).toISOString()) + " → " + fmtTime(new Date(end).toISOString()))));
    spans.append(sv("text", { x: x(open.start) + 3, y: y(open.q) - 14 }, "#" + open.n + (open.n > 1 ? " redelivery" : "")));
    open = null;
  };
  for (const e of evs) {
    const at = t(e.at), X = x(at), Y = y(e.queue);
    const g = sv("g", { class: "ev ev-" + e.kind, "data-kind": e.kind }, sv("title", {}, e.text));
    switch (e.kind) {
      case "sent":
        entered[e.queue] = at;
        g.append(sv("circle", { cx: X, cy: Y, r: 6 }));
        break;
      case "received":
        close(at, true);
        open = { start: at, end: t(e.visibleAt), n: e.receiveCount, q: e.queue };
        break;
      case "visibilityChanged":
        if (open) open.end = t(e.visibleAt);
        g.append(sv("line", { x1: X, x2: X, y1: Y - 14, y2: Y + 14 }));
        break;
      case "visibleAgain":
        close(at, false);
        g.append(sv("line", { x1: X, x2: X, y1: Y - 12, y2: Y + 12 }));
        break;
      case "movedToDLQ": {
        close(at, true);
        leave(e.queue, at);
        entered[e.toQueue] = at;
        g.append(sv("line", { x1: X, x2: X, y1: Y + (y(e.toQueue) > Y ? 8 : -8), y2: y(e.toQueue) + (y(e.toQueue) > Y ? -8 : 8) }),
          sv("text", labelAt(X, (Y + y(e.toQueue)) / 2 + 4), "to DLQ"));
        break;
      }
      case "redriven": {
        close(at, true);
        leave(e.queue, at);
        const Y2 = y(e.toQueue);
        g.append(sv("line", { x1: X, x2: X, y1: Y + (Y2 > Y ? 8 : -8), y2: Y2 + (Y2 > Y ? -8 : 8) }),
          sv("text", Object.assign(labelAt(X, (Y + Y2) / 2 + 4), { onclick: () => openMessage(e.newMessageId) }), "redriven as " + e.newMessageId.slice(0, 8) + "…"));
        break;
      }
      case "deleted": case "purged": case "expired": case "queueDeleted":
        close(at, true);
        leave(e.queue, at);
        g.setAttribute("class", "ev ev-" + e.kind + (e.kind === "deleted" ? "" : " ev-end"));
        g.append(sv("path", { d: `M ${X - 6} ${Y - 6} L ${X + 6} ${Y + 6} M ${X + 6} ${Y - 6} L ${X - 6} ${Y + 6}` }),
          sv("text", { x: X + 8, y: Y + 18 }, e.kind === "deleted" ? "deleted" : e.kind === "queueDeleted" ? "queue deleted" : e.kind));
        break;
      default: // a call that failed or changed nothing, a missed delete
        g.setAttribute("class", "ev ev-call ev-" + e.kind);
        g.append(sv("circle", { cx: X, cy: Y + 16, r: 4 }));
    }
    marks.append(g);
  }
  if (open) close(open.end, false);
  for (const q of Object.keys(entered)) leave(q, t1);
  svg.append(resident, spans, marks);
  if (now >= t0 && now <= t1) {
    svg.append(sv("g", { class: "now" }, sv("line", { x1: x(now), x2: x(now), y1: TOP - 4, y2: H }), sv("text", { x: x(now) - 3, y: H - 2, "text-anchor": "end" }, "now")));
  }
  box.append(svg);
}

function renderMessage(m) {
  $("message-view").hidden = !m;
  if (!m) return;
  $("msg-id").textContent = m.id;
  $("msg-where").textContent = m.message ? "in " + m.queue + " · " + m.message.state + " · received " + m.message.receiveCount + " times" +
    (m.message.deadLetterSourceArn ? " · dead-lettered from " + nameOfArn(m.message.deadLetterSourceArn) : "")
    : "no longer in a queue";
  drawTimeline(m);
  const ol = $("events");
  ol.replaceChildren();
  const t0 = m.events.length ? Date.parse(m.events[0].at) : 0;
  for (const e of m.events) {
    const li = el("li", { class: "k-" + e.kind, "data-kind": e.kind }, fmtDur(Date.parse(e.at) - t0).padStart(7, " ") + "  " + e.text);
    if (e.newMessageId) li.append(" ", el("a", { onclick: () => openMessage(e.newMessageId) }, "open"));
    if (e.fromMessageId) li.append(" ", el("a", { onclick: () => openMessage(e.fromMessageId) }, "open"));
    ol.append(li);
  }
  const d = $("msg-details");
  d.replaceChildren();
  if (m.message) {
    const mm = m.message;
    d.append(el("h3", {}, "Body ", el("span", { class: "count" }, fmtNum(mm.bodyBytes) + " bytes" + (mm.bodyTruncated ? ", first " + fmtNum(mm.body.length) + " characters shown" : ""))),
      el("pre", { id: "msg-body" }, mm.body));
    const kv = el("table", { class: "kv" });
    for (const a of mm.attributes || []) kv.append(el("tr", {}, el("td", {}, a.name + " (" + a.dataType + ")"), el("td", {}, a.value + (a.truncated ? "…" : ""))));
    for (const [k, v] of [["group", mm.groupId], ["deduplication id", mm.deduplicationId], ["sequence number", mm.sequenceNumber],
      ["sent", fmtTime(mm.sentAt)], ["visible at", mm.visibleAt ? fmtTime(mm.visibleAt) : ""]]) {
      if (v) kv.append(el("tr", {}, el("td", {}, k), el("td", {}, v)));
    }
    d.append(el("h3", {}, "Attributes"), kv);
  }
}

// ---- loading ----

async function loadOverview() {
  let ov = await api("overview", { after: st.queueAfter, limit: QUEUE_PAGE });
  if (st.queueAfter > 0 && ov.queues.length === 0) { st.queueAfter = 0; ov = await api("overview", { limit: QUEUE_PAGE }); }
  st.overview = ov;
  st.topics = null;
  if (ov.topics) {
    const page = (after) => guarded("topics", ov.topics + "?" + new URLSearchParams({ after, limit: TOPIC_PAGE }), {});
    st.topics = await page(st.topicAfter);
    if (st.topicAfter > 0 && st.topics.topics.length === 0) { st.topicAfter = 0; st.topics = await page(0); }
  }
}

// loadTopic reads a page of the selected topic's publications, newest first.
async function loadTopic() {
  const ov = st.overview;
  if (!st.topic || !ov || !ov.publications) { st.pubs = null; return; }
  try {
    st.pubs = await guarded("publications", ov.publications + "?" + new URLSearchParams({ topic: st.topic, after: st.pubAfter, limit: PUBLICATION_PAGE }), {});
  } catch (e) {
    st.pubs = null; st.topic = ""; st.pubAfter = 0; writeHash();
    throw e;
  }
}

// renderTopics lists a page of the server's SNS topics, when it serves SNS, each with its
// subscriptions — where each delivers, raw or enveloped, its filter, or that it is pending —
// and how many publications the record keeps; a topic opens its publications.
function renderTopics() {
  const box = $("topics-box");
  const tp = st.topics;
  box.hidden = !tp;
  if (!tp) return;
  $("topic-total").textContent = "(" + fmtNum(tp.total) + ")";
  const list = $("topics");
  list.replaceChildren();
  for (const t of tp.topics) {
    const li = el("li", { class: "topic" + (t.arn === st.topic ? " sel" : ""), "data-arn": t.arn, tabindex: 0, onclick: () => openTopic(t.arn), onkeydown: onEnter },
      t.name, " ", el("span", { class: "tag" }, t.fifo ? "FIFO" : "std"), " ", el("span", { class: "count" }, "· " + fmtNum(t.published) + " published"));
    if (t.account !== st.overview.account || t.region !== st.overview.region) li.append(el("span", { class: "wire dim" }, t.account + " " + t.region));
    for (const s of t.subscriptions) {
      let text = "→ " + s.protocol + " " + (s.protocol === "sqs" ? nameOfArn(s.endpoint) : s.endpoint);
      if (s.raw) text += " (raw)";
      if (s.pending) text += " (pending confirmation)";
      li.append(el("span", { class: "wire" }, text));
      if (s.filterPolicy) li.append(el("span", { class: "wire dim mono" }, "filter " + s.filterPolicy));
    }
    if (t.subscriptionCount > t.subscriptions.length) li.append(el("span", { class: "wire dim" }, "… and " + fmtNum(t.subscriptionCount - t.subscriptions.length) + " more"));
    list.append(li);
  }
  $("topics-range").textContent = tp.total ? (st.topicAfter + 1) + "–" + (st.topicAfter + tp.topics.length) + " of " + fmtNum(tp.total) : "no topics";
  $("topics-prev").disabled = st.topicAfter === 0;
  $("topics-next").disabled = !tp.truncated;
}

// drawAttempts draws an HTTP/S delivery's POSTs on the clock, from the publish instant: a
// dot for each attempt — green delivered, red failed (SNS retries it), purple refused (a 4xx
// it does not retry) — and a hollow one for the next while it is retrying, each with its
// instant, phase and status or error in its tooltip and in the list beneath.
function drawAttempts(pub, d) {
  const box = el("div", { class: "attempts" });
  const t = (iso) => Date.parse(iso);
  const t0 = t(pub.time);
  let t1 = t0;
  for (const a of d.attempts) t1 = Math.max(t1, t(a.time));
  if (d.nextAttempt) t1 = Math.max(t1, t(d.nextAttempt));
  if (t1 - t0 < 1000) t1 = t0 + 1000;
  const L = 8, R = 60, W = 560, H = 40, Y = 14;
  const x = (ms) => L + (ms - t0) / (t1 - t0) * (W - L - R);
  const svg = sv("svg", { class: "attempt-strip", width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img",
    "aria-label": d.attempts.length + " attempt(s) to deliver to " + d.endpoint });
  svg.append(sv("line", { class: "lane", x1: L, x2: W - R, y1: Y, y2: Y }));
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600].map((s) => s * 1000);
  const step = steps.find((s) => (t1 - t0) / s <= 6) || 3600000;
  for (let v = 0; t0 + v <= t1; v += step) {
    svg.append(sv("line", { class: "tick", x1: x(t0 + v), x2: x(t0 + v), y1: Y - 4, y2: Y + 4 }),
      sv("text", { x: x(t0 + v), y: H - 4, "text-anchor": "middle" }, fmtDur(v)));
  }
  const what = (a) => "#" + a.n + " " + fmtTime(a.time).slice(11) + " " + a.phase + ": " + (a.status ? a.status + " " : "") + a.result + (a.error ? " (" + a.error + ")" : "");
  let prev = null;
  for (const a of d.attempts) {
    // Attempts at one instant (the immediate phase) stack to the right, so each is seen.
    const X = x(t(a.time)) + (prev !== null && t(a.time) === prev.at ? (prev.k += 1) * 5 : 0);
    if (prev === null || t(a.time) !== prev.at) prev = { at: t(a.time), k: 0 };
    svg.append(sv("circle", { class: "attempt attempt-" + a.result, "data-n": a.n, cx: X, cy: Y, r: 4.5 }, sv("title", {}, what(a))));
  }
  if (d.nextAttempt) {
    svg.append(sv("circle", { class: "attempt attempt-next", cx: x(t(d.nextAttempt)), cy: Y, r: 4.5 },
      sv("title", {}, "next attempt at " + fmtTime(d.nextAttempt))));
  }
  box.append(svg);
  const list = el("ul", { class: "attempt-list mono" });
  for (const a of d.attempts) list.append(el("li", { class: "attempt-" + a.result }, what(a)));
  if (d.nextAttempt) list.append(el("li", { class: "dim" }, "next attempt at " + fmtTime(d.nextAttempt).slice(11)));
  box.append(list);
  return box;
}

// queueLink is a link that opens a queue, or a message's timeline in it; the queue's name
// as text when the fake has no such queue (a lost delivery's).
function queueLink(arn, messageId, text) {
  if (!String(arn).startsWith("arn:") || String(arn).split(":")[2] !== "sqs") return el("span", { class: "mono" }, text || arn);
  return el("a", { class: "qlink", title: messageId ? "message " + messageId + " in " + arn : arn,
    onclick: () => messageId ? openQueueMessage(arn, messageId) : openQueue(arn) }, text || nameOfArn(arn));
}

// renderTopic shows the selected topic's publications, newest first, each with what became
// of it for every subscription: delivered (a link to the message's timeline), filtered,
// pending, lost and why, dead-lettered (a link to the message in the dead-letter queue).
function renderTopic() {
  const p = st.pubs;
  $("topic-view").hidden = !p;
  if (!p) return;
  $("t-name").textContent = nameOfArn(st.topic);
  $("t-arn").textContent = st.topic;
  $("t-kind").textContent = p.subscriptions ? (p.fifo ? "FIFO" : "standard") : "deleted";
  const subs = $("t-subs");
  subs.replaceChildren();
  for (const s of p.subscriptions || []) {
    const li = el("li", {}, s.protocol + " → ", s.protocol === "sqs" ? queueLink(s.endpoint, "", null) : el("span", { class: "mono" }, s.endpoint));
    if (s.raw) li.append(el("span", { class: "dim" }, " (raw)"));
    if (s.pending) li.append(el("span", { class: "dim" }, " (pending confirmation)"));
    if (s.filterPolicy) li.append(el("div", { class: "reason mono" }, "filter " + s.filterPolicy));
    subs.append(li);
  }
  if (p.subscriptionCount > (p.subscriptions || []).length) subs.append(el("li", { class: "dim" }, "… and " + fmtNum(p.subscriptionCount - p.subscriptions.length) + " more"));
  if (!subs.children.length) subs.append(el("li", { class: "dim" }, p.subscriptions ? "none" : "the topic was deleted"));
  $("p-range").textContent = p.total ? "(" + (st.pubAfter + 1) + "–" + (st.pubAfter + p.publications.length) + " of " + fmtNum(p.total) + ", newest first)" : "";
  const list = $("publications");
  list.replaceChildren();
  for (const pub of p.publications) {
    const head = el("div", { class: "pub-head" }, el("span", { class: "mono" }, fmtTime(pub.time).slice(11)), " ",
      el("span", { class: "tag" }, pub.confirmation ? "SubscriptionConfirmation" : "message"), " ", el("span", { class: "mono id" }, pub.messageId));
    if (pub.groupId) head.append(" ", el("span", { class: "dim" }, "group " + pub.groupId));
    if (pub.duplicate) head.append(" ", el("span", { class: "tag" }, "duplicate: delivered nowhere"));
    const body = el("div", { class: "pub-message mono" }, pub.subject ? pub.subject + ": " : "", pub.message);
    if (pub.messageTruncated) body.append(el("span", { class: "more" }, " … (" + fmtNum(pub.messageBytes) + " bytes)"));
    const ds = el("ul", { class: "deliveries" });
    for (const d of pub.deliveries) {
      const li = el("li", { class: "delivery", "data-outcome": d.outcome }, el("span", { class: "outcome outcome-" + d.outcome.replace(" ", "-") }, d.outcome), " → ",
        queueLink(d.endpoint, d.outcome === "delivered" ? d.sqsMessageId : "", null));
      if (d.raw) li.append(el("span", { class: "dim" }, " (raw)"));
      if (d.outcome === "delivered" && d.sqsMessageId) li.append(" as ", queueLink(d.endpoint, d.sqsMessageId, d.sqsMessageId));
      if (d.outcome === "dead-lettered") li.append(" into ", queueLink(d.deadLetterQueue, d.sqsMessageId, nameOfArn(d.deadLetterQueue)), " as ", queueLink(d.deadLetterQueue, d.sqsMessageId, d.sqsMessageId));
      if (d.reason) li.append(el("div", { class: "reason" + (d.outcome === "lost" || d.outcome === "dead-lettered" || d.outcome === "discarded" ? " bad" : "") }, d.reason));
      if (d.filterPolicy && d.outcome === "filtered") li.append(el("div", { class: "reason mono" }, "filter " + d.filterPolicy));
      if (d.attempts) li.append(drawAttempts(pub, d));
      ds.append(li);
    }
    if (!pub.deliveries.length) ds.append(el("li", { class: "dim" }, "no subscription received it"));
    list.append(el("li", { class: "pub", "data-id": pub.messageId }, head, body, ds));
  }
  if (!p.publications.length) list.append(el("li", { class: "dim" }, "nothing published to this topic" + (p.total ? " on this page" : "")));
  $("pubs-prev").disabled = st.pubAfter === 0;
  $("pubs-next").disabled = !p.truncated;
}

async function loadPage() {
  if (!st.queue) { st.page = null; return; }
  try {
    st.page = await api("messages", { queue: st.queue, after: st.cursors[st.cursors.length - 1], limit: MESSAGE_PAGE });
  } catch (e) {
    st.page = null; st.queue = ""; st.cursors = [0]; writeHash();
    throw e;
  }
}

let lastMessage = null;
async function loadMessage() {
  if (!st.msg) { lastMessage = null; return; }
  const params = { id: st.msg };
  if (st.queue) params.queue = st.queue;
  try {
    lastMessage = await api("message", params);
    lastMessage.id = st.msg;
  } catch (e) {
    lastMessage = null; st.msg = ""; writeHash();
    throw e;
  }
}

// refresh reloads what is shown; refreshes run one after another, so one asked for after an
// action reads the state the action left.
let chain = Promise.resolve();
let queued = 0;
function refresh() {
  queued++;
  chain = chain.then(async () => {
    const before = actions;
    try {
      await loadOverview();
      await loadTopic();
      await loadPage();
      await loadMessage();
      renderOverview();
      renderTopics();
      renderTopic();
      renderQueue();
      renderMessage(lastMessage);
      await renderMoveTasks();
      document.body.dataset.loaded = String(Number(document.body.dataset.loaded || 0) + 1);
    } catch (e) {
      // A refresh overtaken by an action (a reset while it read a queue) is not an error
      // to show: the refresh the action asks for reads the state it left.
      if (actions === before) show("err", e instanceof ShownError ? e.message : "refresh: " + e);
    } finally {
      queued--;
    }
  });
  return chain;
}

function openQueue(arn) {
  if (st.queue !== arn) { st.cursors = [0]; st.msg = ""; }
  st.queue = arn;
  st.topic = ""; st.pubs = null;
  writeHash();
  refresh();
}
function openTopic(arn) {
  if (st.topic !== arn) st.pubAfter = 0;
  st.topic = arn;
  st.queue = ""; st.msg = ""; st.page = null; st.cursors = [0];
  writeHash();
  refresh();
}
// openQueueMessage opens a message's timeline in its queue: where a publication's delivery went.
function openQueueMessage(arn, id) {
  st.topic = ""; st.pubs = null;
  st.queue = arn; st.msg = id; st.cursors = [0];
  writeHash();
  refresh().then(() => $("message-view").scrollIntoView({ block: "nearest" }));
}
function openMessage(id) {
  st.msg = id;
  writeHash();
  refresh().then(() => $("message-view").scrollIntoView({ block: "nearest" }));
}

// ---- actions ----

function parseAttrs(text) {
  const out = {};
  for (const part of text.split(",")) {
    const s = part.trim();
    if (!s) continue;
    const i = s.indexOf("=");
    if (i <= 0) throw new ShownError("attributes: write name=value, separated by commas");
    out[s.slice(0, i).trim()] = { DataType: "String", StringValue: s.slice(i + 1).trim() };
  }
  return out;
}

function wire() {
  $("advance-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const d = $("advance-by").value.trim();
    act("advance", async () => {
      const out = await control(st.overview.advance, { d });
      return "clock advanced by " + d + " to " + fmtTime(out.now);
    });
  });
  $("reset").addEventListener("click", () => {
    if (!confirm("Reset the fake? Every queue and message is dropped.")) return;
    act("reset", async () => {
      await control(st.overview.reset);
      st.queue = ""; st.msg = ""; st.cursors = [0]; st.topic = ""; st.pubs = null; st.pubAfter = 0; st.topicAfter = 0; writeHash();
      return "reset";
    });
  });
  $("refresh").addEventListener("click", () => refresh());
  $("send-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const q = selectedQueue() || (st.page && { url: st.page.url });
    act("send", async () => {
      const input = { QueueUrl: st.page.url, MessageBody: $("send-body").value };
      const delay = $("send-delay").value.trim();
      if (delay) input.DelaySeconds = Number(delay);
      if (!$("send-group").closest("label").hidden) {
        if ($("send-group").value) input.MessageGroupId = $("send-group").value;
        if ($("send-dedup").value) input.MessageDeduplicationId = $("send-dedup").value;
      }
      const attrs = parseAttrs($("send-attrs").value);
      if (Object.keys(attrs).length) input.MessageAttributes = attrs;
      const out = await sqs("SendMessage", input, q);
      return "sent message " + out.MessageId;
    });
  });
  $("purge").addEventListener("click", () => {
    const q = selectedQueue();
    if (!st.page || !confirm("Purge " + st.page.queue + "? Its messages are deleted.")) return;
    act("purge", async () => { await sqs("PurgeQueue", { QueueUrl: st.page.url }, q); return "purged " + st.page.queue; });
  });
  $("move").addEventListener("click", () => {
    const q = selectedQueue();
    act("move task", async () => {
      const input = { SourceArn: q.arn };
      if ($("move-dest").value) input.DestinationArn = $("move-dest").value;
      const out = await sqs("StartMessageMoveTask", input, q);
      return "started move task " + out.TaskHandle.slice(0, 16) + "…";
    });
  });
  $("copy-link").addEventListener("click", () => copyLink());
  $("topics-prev").addEventListener("click", () => { st.topicAfter = Math.max(0, st.topicAfter - TOPIC_PAGE); refresh(); });
  $("topics-next").addEventListener("click", () => { if (st.topics && st.topics.truncated) { st.topicAfter = st.topics.next; refresh(); } });
  $("pubs-prev").addEventListener("click", () => { st.pubAfter = Math.max(0, st.pubAfter - PUBLICATION_PAGE); refresh(); });
  $("pubs-next").addEventListener("click", () => { if (st.pubs && st.pubs.truncated) { st.pubAfter = st.pubs.next; refresh(); } });
  $("queues-prev").addEventListener("click", () => { st.queueAfter = Math.max(0, st.queueAfter - QUEUE_PAGE); refresh(); });
  $("queues-next").addEventListener("click", () => { if (st.overview && st.overview.truncated) { st.queueAfter = st.overview.next; refresh(); } });
  $("messages-first").addEventListener("click", () => { st.cursors = [0]; refresh(); });
  $("messages-prev").addEventListener("click", () => { if (st.cursors.length > 1) st.cursors.pop(); refresh(); });
  $("messages-next").addEventListener("click", () => { if (st.page && st.page.truncated) { st.cursors.push(st.page.next); refresh(); } });
  window.addEventListener("hashchange", () => { readHash(); st.cursors = [0]; st.pubAfter = 0; refresh(); });
}

readHash();
wire();
refresh();
setInterval(() => { if (!document.hidden && queued === 0) refresh(); }, REFRESH_MS);
