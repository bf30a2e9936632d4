// throne's web client: lobby, play a seat, watch, replay and audit. Plain ES modules, no build step.
//
// Routes (the part after #): /            the lobby
//                            /play/G/S    play seat S of game G (needs its token on this device)
//                            /watch/G     the spectator view, live
//                            /replay/G    a slider over the versions (?seat=S: that seat's perspective)
//                            /audit/G     why each event happened (once the game is over; ?only=refused:
//                                         the refused commands alone)
// A link #/play/G/S?token=T stores T on this device and drops it from the address bar.

import { api, apiPages, ApiError, boardUrl, Feed, tokens } from "./api.js";

const main = document.getElementById("main");
let cleanup = [];
let clockTimer = null; // the running clocks' repaint (one page at a time)

// --- little DOM helpers -------------------------------------------------------------------------------------
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, v);
  }
  for (const c of children.flat()) if (c !== undefined && c !== null && c !== false) el.append(c instanceof Node ? c : String(c));
  return el;
}
function clear(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== undefined && c !== null && c !== false));
  return el;
}
function toast(text) {
  const el = document.getElementById("toast");
  el.textContent = text;
  el.classList.add("show");
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => el.classList.remove("show"), 4000);
}
function errorText(err) {
  return err instanceof ApiError ? `${err.message} (${err.code})` : String(err && err.message ? err.message : err);
}
/** A board picture in its box, with a button that shows it at full size (scrolling) on a small screen. */
function boardBox(img) {
  const zoom = h("button", { type: "button", class: "small zoom", "aria-pressed": "false" }, "Zoom");
  const box = h("section", { class: "board-box", "aria-label": "board" }, zoom, h("div", { class: "board-scroll" }, img));
  zoom.addEventListener("click", () => {
    const on = box.classList.toggle("zoomed");
    zoom.setAttribute("aria-pressed", String(on));
    zoom.textContent = on ? "Fit" : "Zoom";
  });
  return box;
}
function setBoard(img, url) {
  const old = img.dataset.url;
  img.src = url;
  img.dataset.url = url;
  if (old) URL.revokeObjectURL(old);
}
function debounce(fn, ms) {
  let t;
  return (...a) => { clearTimeout(t); t = setTimeout(() => fn(...a), ms); };
}
function short(id) { return id.length > 10 ? `${id.slice(0, 8)}…` : id; }
function jsonText(value) { return JSON.stringify(value, null, 1); }

// --- routing ----------------------------------------------------------------------------------------------
function route() {
  clearInterval(clockTimer);
  for (const fn of cleanup) fn();
  cleanup = [];
  const [path, query] = (location.hash.slice(1) || "/").split("?");
  const params = new URLSearchParams(query || "");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const [page, gameId, seat] = parts;
  document.title = "throne";
  if (page === "play" && gameId && seat !== undefined) {
    if (params.get("token")) {
      tokens.set(gameId, Number(seat), params.get("token"));
      history.replaceState(null, "", `#/play/${encodeURIComponent(gameId)}/${seat}`);
    }
    return playPage(gameId, Number(seat));
  }
  if (page === "watch" && gameId) return watchPage(gameId);
  if (page === "replay" && gameId) return replayPage(gameId, params.get("seat"), params.get("version"));
  if (page === "audit" && gameId) return auditPage(gameId, params.get("version"), params.get("only") === "refused");
  return lobbyPage();
}
window.addEventListener("hashchange", () => { route(); main.focus({ preventScroll: true }); });
// Once: a module runs when the document is parsed already (then DOMContentLoaded is still to come, and routing on
// both drew every page twice, with every request made twice).
if (document.readyState === "loading") window.addEventListener("DOMContentLoaded", route);
else route();

// --- lobby ------------------------------------------------------------------------------------------------
async function lobbyPage() {
  const kinds = await api("/lobby/games").catch(() => []);
  const createBox = h("section", { class: "card", "aria-labelledby": "create-title" });
  const listBox = h("section", { class: "card", "aria-labelledby": "games-title" });
  clear(main, h("h1", {}, "Lobby"), h("div", { class: "lobby" }, createBox, listBox));
  renderCreate(createBox, kinds);
  renderGames(listBox, kinds);
}

function settingsFields(schema) {
  const fields = [];
  for (const [name, spec] of Object.entries((schema && schema.properties) || {})) {
    const label = spec.title || name;
    const help = spec.description || "";
    let input;
    if (spec.type === "boolean") {
      input = h("input", { type: "checkbox", name, checked: spec.default === true, "data-kind": "bool" });
    } else if (spec.type === "string" && Array.isArray(spec.enum)) {
      input = h("select", { name, "data-kind": "str" }, spec.enum.map((v) => h("option", { value: v, selected: v === spec.default }, v)));
    } else if (spec.type === "integer") {
      input = h("input", { type: "number", name, value: spec.default ?? "", min: spec.minimum, max: spec.maximum, "data-kind": "int" });
    } else continue; // richer settings keep their defaults here (the API takes them)
    fields.push(h("label", { class: "setting", title: help }, input, " ", label, h("small", { class: "muted" }, help)));
  }
  return fields;
}

function renderCreate(box, kinds) {
  const gameSel = h("select", { id: "new-game", name: "game" }, kinds.map((k) => h("option", { value: k.game }, k.game)));
  const countSel = h("select", { id: "new-players", name: "players" });
  const seatsBox = h("div", { class: "seats" });
  const settingsBox = h("fieldset", { class: "settings" });
  const seed = h("input", { id: "new-seed", type: "number", min: 0, placeholder: "secret (drawn)",
    title: "Leave empty: the referee draws the seed and reveals it at the end. A chosen seed makes a practice table (no open seat)." });
  const out = h("div", { id: "created", "aria-live": "polite" });
  const kind = () => kinds.find((k) => k.game === gameSel.value) || kinds[0];
  function seats() {
    const k = kind();
    const n = Number(countSel.value);
    const defaults = ["You", "Bob", "Cid", "Dee", "Eve", "Fay"];
    clear(seatsBox, Array.from({ length: n }, (_, i) => h("div", { class: "seat-row" },
      h("label", { for: `seat-name-${i}` }, `Seat ${i}`),
      h("input", { id: `seat-name-${i}`, value: defaults[i] || `P${i}`, maxlength: 32, required: true }),
      h("select", { id: `seat-kind-${i}`, "aria-label": `who plays seat ${i}` },
        h("option", { value: "person", selected: i === 0 }, "me (this browser)"),
        h("option", { value: "open" }, "open seat (claimable)"),
        k.bots.map((b, j) => h("option", { value: `bot:${b}`, selected: i > 0 && j === 0 }, `bot: ${b}`))))));
  }
  function game() {
    const k = kind();
    clear(countSel, Array.from({ length: k.max_players - k.min_players + 1 }, (_, i) => {
      const n = k.min_players + i;
      return h("option", { value: n, selected: n === k.max_players }, `${n} players`);
    }));
    clear(settingsBox, h("legend", {}, "Settings"), settingsFields(k.settings_schema));
    seats();
  }
  gameSel.addEventListener("change", game);
  countSel.addEventListener("change", seats);
  const form = h("form", { id: "create-form", onsubmit: async (ev) => {
    ev.preventDefault();
    const n = Number(countSel.value);
    const players = [], bots = {}, open = [];
    for (let i = 0; i < n; i++) {
      players.push(document.getElementById(`seat-name-${i}`).value.trim());
      const who = document.getElementById(`seat-kind-${i}`).value;
      if (who.startsWith("bot:")) bots[String(i)] = who.slice(4);
      if (who === "open") open.push(i);
    }
    const settings = {};
    for (const el of settingsBox.querySelectorAll("[name]")) {
      if (el.dataset.kind === "bool") settings[el.name] = el.checked;
      else if (el.dataset.kind === "int" && el.value !== "") settings[el.name] = Number(el.value);
      else if (el.dataset.kind === "str") settings[el.name] = el.value;
    }
    const body = { game: gameSel.value, players, bots, open, settings };
    if (seed.value !== "") body.seed = Number(seed.value);
    try {
      const made = await api("/games", { method: "POST", body });
      for (const s of made.seats) if (s.token) tokens.set(made.game_id, s.seat, s.token);
      const mine = made.seats.filter((s) => s.token);
      clear(out, h("p", {}, `Game ${short(made.game_id)} created.`),
        h("ul", {}, mine.map((s) => h("li", {}, h("a", { href: `#/play/${made.game_id}/${s.seat}`, class: "play-link" }, `Play seat ${s.seat} (${s.player})`))),
          h("li", {}, shareLink(made.game_id))));
      if (mine.length === 1) location.hash = `#/play/${made.game_id}/${mine[0].seat}`;
    } catch (err) {
      clear(out, h("p", { class: "error" }, errorText(err)));
    }
  } },
  h("h2", { id: "create-title" }, "New game"),
  h("div", { class: "row" }, h("label", { for: "new-game" }, "Game"), gameSel, h("label", { for: "new-players" }, "Players"), countSel),
  seatsBox, settingsBox,
  h("div", { class: "row" }, h("label", { for: "new-seed" }, "Seed"), seed, h("button", { type: "submit", id: "create" }, "Create game")),
  out);
  clear(box, form);
  if (kinds.length) game();
}

function shareLink(gameId) {
  const url = `${location.origin}/#/watch/${encodeURIComponent(gameId)}`;
  return h("span", { class: "share" }, h("a", { href: url, class: "share-link", title: url }, "Spectator link"), " ",
    h("button", { type: "button", class: "small", onclick: () => navigator.clipboard && navigator.clipboard.writeText(url).then(() => toast("Link copied")) }, "Copy"));
}

function renderGames(box, kinds) {
  const status = h("select", { id: "filter-status", "aria-label": "status" },
    h("option", { value: "" }, "any status"), ["open", "running", "over"].map((s) => h("option", { value: s }, s)));
  const game = h("select", { id: "filter-game", "aria-label": "game" }, h("option", { value: "" }, "any game"), kinds.map((k) => h("option", { value: k.game }, k.game)));
  const player = h("input", { id: "filter-player", placeholder: "player", "aria-label": "player name or id", maxlength: 64 });
  const list = h("ul", { class: "games", id: "games" });
  const more = h("button", { type: "button", id: "more", hidden: true }, "More");
  let next = null;
  async function load(reset) {
    if (reset) { clear(list); next = null; }
    try {
      const page = await api("/games", { query: { status: status.value, game: game.value, player: player.value.trim(), limit: 20, cursor: next } });
      for (const g of page.games) list.append(gameItem(g));
      next = page.next;
      more.hidden = !next;
      if (!list.children.length) list.append(h("li", { class: "muted" }, "No games."));
    } catch (err) {
      list.append(h("li", { class: "error" }, errorText(err)));
    }
  }
  more.addEventListener("click", () => load(false));
  const filters = h("form", { class: "row", onsubmit: (e) => { e.preventDefault(); load(true); } },
    status, game, player, h("button", { type: "submit" }, "Filter"));
  for (const el of [status, game]) el.addEventListener("change", () => load(true));
  clear(box, h("h2", { id: "games-title" }, "Games"), filters, list, more);
  load(true);
}

function gameItem(g) {
  const mine = tokens.seats(g.game_id);
  const seats = g.seats.map((s) => {
    const tag = s.open ? "open" : s.bot ? `bot ${s.bot}` : mine.includes(s.seat) ? "you" : "";
    const chip = h("span", { class: `chip${s.open ? " open" : ""}` }, s.player, tag ? h("small", {}, ` ${tag}`) : null);
    if (s.open) {
      chip.append(" ", h("button", { type: "button", class: "small claim", "data-seat": s.seat, onclick: async () => {
        try {
          const got = await api(`/games/${encodeURIComponent(g.game_id)}/seats/${s.seat}/claim`, { method: "POST" });
          tokens.set(g.game_id, got.seat, got.token);
          location.hash = `#/play/${g.game_id}/${got.seat}`;
        } catch (err) { toast(errorText(err)); }
      } }, "Claim"));
    }
    return chip;
  });
  const links = [h("a", { href: `#/watch/${g.game_id}` }, "Watch"), h("a", { href: `#/replay/${g.game_id}` }, "Replay")];
  if (g.status === "over") links.push(h("a", { href: `#/audit/${g.game_id}` }, "Audit"));
  for (const s of mine) if (g.status !== "over") links.unshift(h("a", { href: `#/play/${g.game_id}/${s}`, class: "play-link" }, `Play seat ${s}`));
  return h("li", { class: "game", "data-game": g.game_id },
    h("div", {}, h("strong", {}, g.game), ` ${short(g.game_id)} `, h("span", { class: `status ${g.status}` }, g.status), h("small", { class: "muted" }, ` v${g.version}`)),
    h("div", { class: "chips" }, seats),
    h("div", { class: "links" }, links));
}

// --- shared pieces of the game pages ---------------------------------------------------------------------
/** The clocks ([5/7]) when the view carries them: per seat ``remaining_ms`` (as of the answer), ``running``,
 * ``deadline_ms`` and ``low``; a running clock counts down here between answers. None on a table without clocks. */
function clocksOf(seatView) {
  const clocks = seatView.clocks || (seatView.view && seatView.view.clocks);
  clearInterval(clockTimer);
  if (!clocks) return null;
  const entries = Array.isArray(clocks) ? clocks.map((c, i) => [i, c]) : Object.entries(clocks);
  const players = (seatView.view && seatView.view.players) || [];
  const got = Date.now();
  const shown = entries.map(([seat, c]) => {
    const ms = typeof c === "number" ? c : c ? c.remaining_ms ?? null : null;
    const el = h("span", { class: `clock${c && c.running ? " running" : ""}${c && c.low ? " low" : ""}`, "data-seat": seat });
    return { el, seat, ms, running: Boolean(c && c.running), name: players[seat] || `Seat ${seat}`, raw: c };
  });
  const paint = () => {
    for (const c of shown) {
      if (c.ms === null) { c.el.textContent = `${c.name} ${jsonText(c.raw)}`; continue; }
      const left = Math.max(0, c.running ? c.ms - (Date.now() - got) : c.ms);
      const secs = Math.ceil(left / 1000);
      c.el.textContent = `${c.name} ${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, "0")}`;
    }
  };
  paint();
  if (shown.some((c) => c.running)) clockTimer = setInterval(paint, 1000);
  return h("div", { class: "clocks", id: "clocks", "aria-label": "clocks" }, shown.map((c) => c.el));
}

/** A view's value in words: a per-seat list with the players' names (null: hidden), a list of names joined. */
function valueText(value, players) {
  if (value === null || value === undefined) return "hidden";
  if (Array.isArray(value) && value.length === players.length && value.every((v) => v === null || typeof v !== "object")) {
    return value.map((v, i) => `${players[i]} ${v === null ? "?" : v}`).join(" · ");
  }
  if (Array.isArray(value) && value.every((v) => typeof v !== "object")) return value.length ? value.join(", ") : "none";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** What only this seat sees: the fields of its view that differ from the spectators'. */
function privateInfo(seatView, spectatorView) {
  const mine = seatView.view || {}, public_ = spectatorView.view || {};
  const players = mine.players || [];
  const rows = [];
  for (const [k, v] of Object.entries(mine)) {
    if (k === "seat") continue;
    if (JSON.stringify(v) !== JSON.stringify(public_[k])) {
      rows.push(h("div", { class: "kv" }, h("dt", {}, k.replaceAll("_", " ")), h("dd", {}, valueText(v, players))));
    }
  }
  return rows.length ? h("dl", { class: "private" }, rows) : h("p", { class: "muted" }, "Nothing hidden from the others right now.");
}

function resultText(result, players) {
  if (!result) return "";
  const winners = (result.winners || []).map((s) => players[s] || `Seat ${s}`);
  return winners.length ? `Winner${winners.length > 1 ? "s" : ""}: ${winners.join(", ")}` : jsonText(result);
}

function narrationList() {
  return h("ol", { class: "narration", id: "narration", "aria-live": "polite", "aria-label": "what happened, newest first" });
}
function narrate(list, msg) {
  if (!msg.text || msg.quiet) return;
  list.prepend(h("li", { "data-version": msg.version }, h("small", { class: "muted" }, `${msg.version} `), msg.text));
  while (list.children.length > 200) list.lastChild.remove();
}

// --- play a seat ------------------------------------------------------------------------------------------
async function playPage(gameId, seat) {
  const token = tokens.get(gameId, seat);
  if (!token) {
    clear(main, h("h1", {}, "No seat here"), h("p", {}, `This browser holds no token for seat ${seat} of game ${short(gameId)}. `,
      h("a", { href: `#/watch/${gameId}` }, "Watch it"), " instead, or claim an open seat in the ", h("a", { href: "#/" }, "lobby"), "."));
    return;
  }
  const state = { version: 0, turn: null, sending: false, over: false, left: false, players: [] };
  const banner = h("div", { id: "turn", class: "turn", role: "status", "aria-live": "assertive" });
  const board = h("img", { id: "board", class: "board", alt: "the board as this seat sees it" });
  const commands = h("div", { id: "commands", class: "commands" });
  const secrets = h("div", { id: "private" });
  const narration = narrationList();
  const clocks = h("div");
  const live = h("span", { id: "live", class: "muted" }, "connecting…");
  const title = h("h1", {}, `Game ${short(gameId)}`);
  clear(main, title,
    h("div", { class: "bar" }, live, " · ", shareLink(gameId), " · ", h("a", { href: `#/replay/${gameId}?seat=${seat}` }, "Replay"),
      " · ", h("button", { type: "button", class: "small", id: "leave", onclick: leave }, "Leave (a bot takes over)")),
    banner, clocks,
    h("div", { class: "play" },
      boardBox(board),
      h("section", { class: "side" },
        h("h2", {}, "Your moves"), commands,
        h("h2", {}, "Only you see"), secrets,
        h("h2", {}, "What happened"), narration)));

  async function leave() {
    if (!confirm("Leave this game? A bot plays your seat to the end.")) return;
    try { await api(`/games/${gameId}/seats/${seat}/leave`, { method: "POST", token }); toast("A bot plays your seat now."); }
    catch (err) { if (err.code !== "seat_is_bot") { toast(errorText(err)); return; } }
    state.left = true;
    shown = "";
    refresh();
  }

  async function refresh() {
    try {
      const [mine, spectator] = await Promise.all([
        api(`/games/${gameId}/seats/${seat}/view`, { token }),
        api(`/games/${gameId}/view`),
      ]);
      state.version = Math.max(state.version, mine.version);
      state.players = (mine.view && mine.view.players) || state.players;
      state.over = mine.over;
      const name = state.players[seat] || `seat ${seat}`;
      title.textContent = `${name} · seat ${seat} · game ${short(gameId)}`;
      document.title = `${mine.awaiting.includes(seat) && !mine.over ? "● " : ""}throne · ${name}`;
      clear(clocks, clocksOf(mine));
      clear(secrets, privateInfo(mine, spectator));
      renderCommands(mine);
      setBoard(board, await boardUrl(gameId, { seat, token }));
      board.dataset.version = mine.version;
    } catch (err) {
      toast(errorText(err));
    }
  }
  const refreshSoon = debounce(refresh, 120);

  let shown = "";
  function renderCommands(mine) {
    // Re-render only when the moves changed: a keyboard user keeps focus while others' events come in.
    const turnNow = state.turn && state.turn.version === mine.version ? state.turn : null;
    const signature = JSON.stringify([mine.version, mine.over, mine.awaiting, Boolean(turnNow), state.left, mine.legal.map((c) => c.label)]);
    if (signature === shown) return;
    shown = signature;
    commands.dataset.version = mine.version;
    if (mine.over) {
      banner.className = "turn over";
      banner.textContent = `Game over. ${resultText(mine.result, state.players)}`;
      clear(commands, h("p", {}, h("a", { href: `#/replay/${gameId}?seat=${seat}` }, "Replay it"), " · ", h("a", { href: `#/audit/${gameId}` }, "Audit it")));
      return;
    }
    if (state.left) {
      banner.className = "turn";
      banner.textContent = "You left this game: a bot plays your seat.";
      clear(commands, h("p", {}, h("a", { href: `#/watch/${gameId}` }, "Watch it"), " · ", h("a", { href: "#/" }, "Lobby")));
      return;
    }
    const yours = mine.legal.length > 0;
    const turn = turnNow;
    banner.className = yours ? "turn yours" : "turn";
    // The game's prompt may say "Your turn:" itself: the banner says it once.
    const asked = turn
      ? turn.prompt.replace(/\s*your turn:\s*/i, " ").trim().replace(/\.\s+([a-z])/g, (_, c) => `. ${c.toUpperCase()}`)
      : "choose a move.";
    banner.textContent = yours
      ? `Your turn — ${asked}`
      : `Waiting for ${mine.awaiting.map((s) => state.players[s] || `seat ${s}`).join(", ") || "the game"}…`;
    if (!yours) { clear(commands, h("p", { class: "muted" }, "Not your turn.")); return; }
    const groups = turn && turn.groups && turn.groups.length ? turn.groups : [{ title: "Moves", indexes: mine.legal.map((c) => c.index) }];
    const legal = turn ? turn.legal : mine.legal;
    const filter = h("input", { type: "search", id: "move-filter", placeholder: "type words of a move, as in the chat (press /)", "aria-label": "filter moves; Enter plays the only match" });
    const groupEls = groups.map((g, gi) => {
      const buttons = g.indexes.map((i) => legal[i]).filter(Boolean).map((c) => h("button", {
        type: "button", class: "move", "data-index": c.index, title: c.label,
        onclick: () => send(c.command, mine.version),
      }, c.label));
      return h("details", { class: "group", open: groups.length <= 6 || gi === 0 }, h("summary", {}, `${g.title} (${buttons.length})`), h("div", { class: "moves" }, buttons));
    });
    filter.addEventListener("input", () => {
      const q = filter.value.trim().toLowerCase();
      for (const d of groupEls) {
        let shown = 0;
        for (const b of d.querySelectorAll("button.move")) { const ok = !q || b.textContent.toLowerCase().includes(q); b.hidden = !ok; shown += ok; }
        d.hidden = shown === 0;
        if (q) d.open = true;
      }
    });
    filter.addEventListener("keydown", (e) => {
      if (e.key !== "Enter") return;
      e.preventDefault();
      const left = [...commands.querySelectorAll("button.move")].filter((b) => !b.hidden);
      if (left.length === 1) left[0].click();
      else toast(left.length ? `${left.length} moves match: type a few more words` : "No move matches");
    });
    clear(commands, legal.length > 8 ? filter : null, groupEls);
  }

  async function send(command, version) {
    if (state.sending) return;
    state.sending = true;
    for (const b of commands.querySelectorAll("button")) b.disabled = true;
    try {
      await api(`/games/${gameId}/commands`, { method: "POST", token, body: { command, expected_version: version } });
    } catch (err) {
      if (err.code === "seat_left") state.left = true;
      toast(errorText(err));
    } finally {
      state.sending = false;
      shown = "";
      refresh();
    }
  }

  const feed = new Feed(gameId, {
    seat, token, after: 0,
    onState: (s) => { live.textContent = s === "live" ? "live" : s; },
    onMessage: (msg) => {
      if (msg.error) { toast(msg.error.message); return; }
      if (msg.kind === "event") { narrate(narration, msg); state.version = Math.max(state.version, msg.version); refreshSoon(); }
      if (msg.kind === "turn") { state.turn = msg; refreshSoon(); }
      if (msg.kind === "over") { state.over = true; refreshSoon(); }
      if (msg.kind === "clock_low") { toast(msg.text || "A clock is running low."); refreshSoon(); }
    },
  });
  cleanup.push(() => feed.close());
  document.addEventListener("keydown", slashFocus);
  cleanup.push(() => document.removeEventListener("keydown", slashFocus));
  await refresh();
}

function slashFocus(e) {
  if (e.key === "/" && document.activeElement && document.activeElement.tagName !== "INPUT") {
    const f = document.getElementById("move-filter");
    if (f) { e.preventDefault(); f.focus(); }
  }
}

// --- watch ------------------------------------------------------------------------------------------------
async function watchPage(gameId) {
  const board = h("img", { id: "board", class: "board", alt: "the board as spectators see it" });
  const status = h("div", { id: "turn", class: "turn", role: "status" });
  const narration = narrationList();
  const clocks = h("div");
  const live = h("span", { class: "muted" }, "connecting…");
  clear(main, h("h1", {}, `Watching game ${short(gameId)}`),
    h("div", { class: "bar" }, live, " · ", shareLink(gameId), " · ", h("a", { href: `#/replay/${gameId}` }, "Replay")),
    status, clocks,
    h("div", { class: "play" }, boardBox(board),
      h("section", { class: "side" }, h("h2", {}, "What happened"), narration)));
  async function refresh() {
    try {
      const view = await api(`/games/${gameId}/view`);
      const players = (view.view && view.view.players) || [];
      status.textContent = view.over ? `Game over. ${resultText(view.result, players)}` : `Waiting for ${view.awaiting.map((s) => players[s] || `seat ${s}`).join(", ")}`;
      clear(clocks, clocksOf(view));
      setBoard(board, await boardUrl(gameId, {}));
    } catch (err) { status.textContent = errorText(err); }
  }
  const refreshSoon = debounce(refresh, 150);
  const feed = new Feed(gameId, {
    after: 0,
    onState: (s) => { live.textContent = s; },
    onMessage: (msg) => { if (msg.kind === "event") narrate(narration, msg); if (msg.kind) refreshSoon(); },
  });
  cleanup.push(() => feed.close());
  await refresh();
}

// --- replay -----------------------------------------------------------------------------------------------
async function replayPage(gameId, seatParam, versionParam) {
  let summary;
  try { summary = await api(`/games/${gameId}`); } catch (err) { clear(main, h("p", { class: "error" }, errorText(err))); return; }
  const seat = seatParam === null || seatParam === "" ? null : Number(seatParam);
  const token = seat === null ? null : tokens.get(gameId, seat);
  // Seats this viewer may take the perspective of: every seat once the game is over, else the ones it holds.
  const seats = summary.over ? summary.players.map((_, i) => i) : tokens.seats(gameId);
  const perspective = h("select", { id: "perspective", "aria-label": "perspective" },
    h("option", { value: "" }, "Spectator"), seats.map((s) => h("option", { value: s, selected: s === seat }, `${summary.players[s]} (seat ${s})`)));
  perspective.addEventListener("change", () => { location.hash = `#/replay/${gameId}${perspective.value === "" ? "" : `?seat=${perspective.value}`}`; });
  const slider = h("input", { type: "range", id: "slider", min: 0, max: summary.version, value: versionParam ?? summary.version, "aria-label": "version" });
  const label = h("output", { id: "slider-version", for: "slider" });
  const chapters = h("select", { id: "chapters", "aria-label": "jump to a round or phase" }, h("option", { value: "" }, "Jump to…"));
  const text = h("p", { id: "event-text", class: "event-text", "aria-live": "polite" });
  const board = h("img", { id: "board", class: "board", alt: "the board at this version" });
  const prev = h("button", { type: "button", id: "prev", "aria-label": "previous event" }, "◀ Step");
  const next = h("button", { type: "button", id: "next", "aria-label": "next event" }, "Step ▶");
  const auditLink = h("a", { id: "audit-link", href: `#/audit/${gameId}` }, "Why? (audit)");
  clear(main, h("h1", {}, `Replay of game ${short(gameId)}`),
    h("div", { class: "bar" }, perspective, " ", chapters, " ", summary.over ? auditLink : h("span", { class: "muted" }, "The audit opens once the game is over.")),
    fairnessLine(summary.fairness, null),
    h("div", { class: "replay-controls" }, prev, slider, next, label),
    text,
    boardBox(board));
  // Every step's event and its text in one request (a page of up to 1,000 steps: a whole game, read once on the
  // server); stepping then only fetches the board picture of the version shown.
  let steps = null;
  const loaded = apiPages(`/games/${gameId}/replay/steps`, "steps", { token, query: seat === null ? {} : { seat } })
    .then((whole) => { steps = whole.steps; return whole; });
  let asked = 0;
  async function show(v) {
    const mine = ++asked;
    slider.value = v;
    label.textContent = `${v} / ${summary.version}`;
    prev.disabled = v <= 0;
    next.disabled = v >= summary.version;
    auditLink.href = `#/audit/${gameId}?version=${v}`;
    try {
      const [url] = await Promise.all([boardUrl(gameId, { seat, version: v, token }), loaded]);
      if (mine !== asked) { URL.revokeObjectURL(url); return; }
      const step = v === 0 ? null : steps[v - 1];
      text.textContent = `${v}: ${step ? step.event_text : "Before the first event."}`;
      setBoard(board, url);
      board.dataset.version = v;
    } catch (err) { text.textContent = errorText(err); }
  }
  const showSoon = debounce(show, 80);
  slider.addEventListener("input", () => { label.textContent = `${slider.value} / ${summary.version}`; showSoon(Number(slider.value)); });
  prev.addEventListener("click", () => show(Math.max(0, Number(slider.value) - 1)));
  next.addEventListener("click", () => show(Math.min(summary.version, Number(slider.value) + 1)));
  chapters.addEventListener("change", () => { if (chapters.value !== "") show(Number(chapters.value)); });
  const keys = (e) => {
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT" || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === "ArrowLeft" || e.key === "j") prev.click();
    if (e.key === "ArrowRight" || e.key === "k") next.click();
  };
  document.addEventListener("keydown", keys);
  cleanup.push(() => document.removeEventListener("keydown", keys));
  show(Number(slider.value));
  // Chapters: the steps that start a round or a phase (whatever the game calls them), from the same steps.
  try {
    for (const step of (await loaded).steps) {
      const type = step.event && step.event.type;
      if (type && /(Round|Phase)(Started|Began|Start)$/.test(type)) chapters.append(h("option", { value: step.version }, `${step.version}: ${step.event_text || type}`));
    }
  } catch (err) { /* no chapters: the slider still works */ }
}

// --- audit ------------------------------------------------------------------------------------------------
/** An event's deciding inputs in words: per-seat lists with the players' names (power tallies, votes), seats
 * named, the rest as recorded; the raw JSON below it. */
function inputsView(inputs, players) {
  const named = (seat) => (Number.isInteger(seat) && seat >= 0 && seat < players.length ? `${players[seat]} (seat ${seat})` : String(seat));
  const rows = Object.entries(inputs || {}).map(([key, value]) => {
    let text;
    if (value === null || value === undefined) text = "—";
    else if (Array.isArray(value) && value.length === players.length && value.every((v) => v === null || typeof v !== "object")) {
      text = value.map((v, i) => `${players[i]} ${v === null ? "—" : v}`).join(" · ");
    } else if (/(^|_)(seat|owner|winner|player|by)$/.test(key) && Number.isInteger(value)) text = named(value);
    else if (typeof value === "object") text = JSON.stringify(value);
    else text = String(value);
    return h("div", { class: "kv" }, h("dt", {}, key.replaceAll("_", " ")), h("dd", {}, text));
  });
  return h("div", {}, rows.length ? h("dl", { class: "inputs" }, rows) : h("p", { class: "muted" }, "None recorded."),
    h("details", {}, h("summary", {}, "As recorded (JSON)"), h("pre", {}, jsonText(inputs || {}))));
}

const rulingTexts = new Map();
/** A ruling's title and text: from the audit entry when it carries them, else from ``/rules/{game}/{id}``. */
async function rulingText(game, id, known) {
  const given = (known || []).find((r) => r.id === id);
  if (given) return given.title ? `${given.title}: ${given.text}` : given.text;
  const key = `${game}/${id}`;
  if (!rulingTexts.has(key)) {
    rulingTexts.set(key, api(`/rules/${encodeURIComponent(game)}/${encodeURIComponent(id)}`).then(
      (r) => (typeof r === "string" ? r : r.title ? `${r.title}: ${r.text}` : r.text || jsonText(r)),
      () => null));
  }
  return rulingTexts.get(key);
}
function isRefusal(e) { return e.kind === "refusal" || Boolean(e.rejection); }

/** The fair shuffle in one line: the audit's check of the reveal against the commitment published at the start
 * (``check``: verified / mismatch / not_revealed), or, without a check, the summary's commitment; and a practice
 * table's mark (its creator chose the seed). Null for a game without a commitment. */
function fairnessLine(fairness, check) {
  if (!fairness) return null;
  const status = check ? check.status : fairness.revealed ? "revealed" : "not_revealed";
  const text = check && check.message ? check.message
    : status === "revealed" ? `Seed ${fairness.seed} revealed; the audit checks it against the commitment.`
    : "Seed committed; not yet revealed (the reveal comes when the game ends).";
  const cls = status === "verified" ? "ok" : status === "mismatch" ? "bad" : "";
  return h("div", { id: "fairness", class: `verdict ${cls}` }, text, " ",
    h("small", { class: "muted" }, `commitment ${String(fairness.commitment || "").slice(0, 16)}…`),
    fairness.practice ? h("span", { class: "chip practice", id: "practice" }, "practice table: its creator chose the seed") : null);
}

async function auditPage(gameId, versionParam, refusedOnly) {
  clear(main, h("h1", {}, `Audit of game ${short(gameId)}`), h("p", { class: "muted" }, "Loading…"));
  let summary, audit;
  try {
    summary = await api(`/games/${gameId}`);
    // The whole game's audit in one request (a page holds up to 1,000 versions: a whole game, a few reads).
    audit = await apiPages(`/games/${gameId}/audit`, "entries", { query: { limit: 1000 } });
  } catch (err) {
    clear(main, h("h1", {}, `Audit of game ${short(gameId)}`), h("p", { class: "error" }, errorText(err)),
      h("p", {}, h("a", { href: `#/watch/${gameId}` }, "Watch it"), " · ", h("a", { href: `#/replay/${gameId}` }, "Replay it")));
    return;
  }
  const verdict = h("div", { id: "verdict", class: "verdict" }, "Checking today's rules…");
  const list = h("ol", { class: "audit-list", id: "audit-list" });
  const detail = h("section", { class: "audit-detail card", id: "audit-detail", "aria-live": "polite", tabindex: "-1" },
    h("p", { class: "muted" }, "Choose an event or a refused command to see why."));
  const refusedCount = (audit.entries || []).filter(isRefusal).length;
  const onlyRefused = h("input", { type: "checkbox", id: "refused-only", checked: refusedOnly });
  clear(main, h("h1", {}, `Audit of ${summary.game} game ${short(gameId)}`),
    h("div", { class: "bar" }, h("a", { href: `#/replay/${gameId}` }, "Replay"), " · ", resultText(summary.result, summary.players),
      " · ", h("label", { class: "toggle" }, onlyRefused, ` Refused commands only (${refusedCount})`)),
    verdict, fairnessLine(audit.fairness && audit.fairness.commitment ? audit.fairness : null, audit.fairness),
    h("div", { class: "audit" }, h("section", { class: "card" }, list), detail));
  let differing = new Set();
  api(`/games/${gameId}/verify`).then((v) => {
    differing = new Set((v.differences || []).map((d) => d.version));
    verdict.className = `verdict ${v.ok ? "ok" : "bad"}`;
    verdict.textContent = v.ok
      ? `Today's rules (${v.rules_version_now}) decide every one of the ${v.commands_replayed} commands the same: ${v.events_recomputed} events, identical.`
      : `Today's rules (${v.rules_version_now}) decide differently: ${(v.differences || []).length} events differ, ${(v.outcome_changes || []).length} outcomes changed.`;
  }, (err) => { verdict.textContent = `Verification unavailable: ${errorText(err)}`; });
  const entries = audit.entries || [];
  const buttons = entries.map((e) => {
    const refused = isRefusal(e);
    const code = e.code || (e.rejection && e.rejection.code) || "refused";
    const note = refused ? e.message || (e.rejection && e.rejection.message) || "" : e.explanation || "";
    const b = h("button", { type: "button", class: `entry${refused ? " refused" : ""}`, "data-version": e.version ?? "", "data-kind": refused ? "refusal" : "event" },
      refused ? `✗ after ${e.version}: ${code}` : `${e.version} ${e.event_type}`,
      h("small", {}, ` ${note}`.slice(0, 90)));
    b.addEventListener("click", () => open(e, b));
    return h("li", {}, b);
  });
  clear(list, buttons);
  // Refused commands only: the list filtered in place (the page holds the whole audit); the address keeps it.
  function filter() {
    for (const li of list.children) li.hidden = onlyRefused.checked && li.firstChild.dataset.kind !== "refusal";
    const query = [onlyRefused.checked ? "only=refused" : "", versionParam ? `version=${versionParam}` : ""].filter(Boolean).join("&");
    history.replaceState(null, "", `#/audit/${gameId}${query ? `?${query}` : ""}`);
  }
  onlyRefused.addEventListener("change", filter);
  if (refusedOnly) filter();
  async function open(e, button) {
    for (const b of list.querySelectorAll(".entry.active")) b.classList.remove("active");
    button.classList.add("active");
    const refused = isRefusal(e);
    const rulings = e.rulings || (e.rejection && e.rejection.rulings) || [];
    const rulingItems = rulings.map((id) => {
      const li = h("li", { class: "ruling", "data-ruling": id }, h("strong", {}, id), " ", h("span", { class: "muted" }, "…"));
      rulingText(summary.game, id, e.ruling_texts).then((t) => { li.lastChild.textContent = t || "(its text is in the game's RULES.md)"; li.lastChild.className = t ? "" : "muted"; });
      return li;
    });
    const c = e.command;
    const who = c ? (c.sender ? `${c.sender} (seat ${c.seat})` : c.kind === "create" ? "the game's creation" : `seat ${c.seat}`) : "";
    const inputs = refused ? (c && c.payload) || {} : e.inputs || {};
    const same = !differing.has(e.version);
    clear(detail,
      h("h2", {}, refused ? `Refused command (after event ${e.version})` : `Event ${e.version}: ${e.event_type || ""}`),
      h("p", { class: "sentence" }, e.sentence || e.explanation || ""),
      refused ? h("p", { class: "error" }, `${e.code || e.rejection.code}: ${e.message || e.rejection.message}`) : null,
      c ? h("p", {}, "Command: ", h("strong", {}, c.label || c.type || (c.payload && c.payload.type) || ""), who ? ` by ${who}` : "") : null,
      h("h3", {}, "Rulings"), rulingItems.length ? h("ul", { class: "rulings" }, rulingItems) : h("p", { class: "muted" }, "None cited."),
      h("h3", {}, refused ? "The command as sent" : "Deciding inputs"), inputsView(inputs, summary.players),
      h("h3", {}, "Today's rules"),
      refused
        ? h("p", { class: differing.size ? "muted" : "ok" }, differing.size ? "Today's rules decide some events differently (see above)." : "Today's rules decide the game the same: this command is still refused.")
        : h("p", { class: same ? "ok" : "error" }, same ? "Today's rules decide the same." : "Today's rules decide this event differently."),
      e.version !== undefined ? h("p", {}, h("a", { href: `#/replay/${gameId}?version=${e.version}` }, "See the board at this moment")) : null);
    detail.focus();
  }
  if (versionParam) {
    const i = entries.findIndex((e) => !isRefusal(e) && String(e.version) === versionParam);
    if (i >= 0) { buttons[i].firstChild.click(); buttons[i].scrollIntoView({ block: "center" }); }
  }
}
