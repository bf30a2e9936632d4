// The gateway's public API as the page uses it, and the seat tokens this browser holds.
//
// A token is kept in localStorage under the game and seat it belongs to, and sent only as the bearer of that
// seat's own requests (and its feed's ?token=, the one way a browser WebSocket can carry it). The page never
// asks for another seat's view, events, board or replay while a game runs.

const PREFIX = "throne.token.";

export const tokens = {
  get(gameId, seat) {
    return localStorage.getItem(`${PREFIX}${gameId}.${seat}`);
  },
  set(gameId, seat, token) {
    localStorage.setItem(`${PREFIX}${gameId}.${seat}`, token);
  },
  forget(gameId, seat) {
    localStorage.removeItem(`${PREFIX}${gameId}.${seat}`);
  },
  /** The seats of a game this browser holds a token for. */
  seats(gameId) {
    const out = [];
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (key && key.startsWith(`${PREFIX}${gameId}.`)) out.push(Number(key.slice(PREFIX.length + gameId.length + 1)));
    }
    return out.sort((a, b) => a - b);
  },
};

export class ApiError extends Error {
  constructor(status, code, message, extra) {
    super(message);
    this.status = status;
    this.code = code;
    this.extra = extra || {};
  }
}

/** A JSON request; a typed error body becomes an ApiError. */
export async function api(path, { method = "GET", body, token, query } = {}) {
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(query || {})) if (v !== undefined && v !== null && v !== "") url.searchParams.set(k, v);
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    throw new ApiError(0, "offline", `the gateway can not be reached (${err.message})`);
  }
  const type = response.headers.get("content-type") || "";
  const data = type.includes("json") ? await response.json() : await response.text();
  if (!response.ok) {
    const e = (data && data.error) || {};
    throw new ApiError(response.status, e.code || String(response.status), e.message || response.statusText, e);
  }
  return data;
}

/**
 * Every entry of a paged read (``key``: "events" of /events, "entries" of /audit): page after page from
 * ``after`` (default 0), following each page's ``next`` until it is null. Returns the last page with all the
 * entries gathered under ``key``. A finished game's pages carry an ETag: the browser's cache revalidates them.
 */
export async function apiPages(path, key, { token, query } = {}) {
  let after = (query && query.after) || 0;
  const gathered = [];
  for (;;) {
    const page = await api(path, { token, query: { ...query, after } });
    gathered.push(...(page[key] || []));
    if (page.next === null || page.next === undefined || page.next <= after) return { ...page, [key]: gathered };
    after = page.next;
  }
}

/** A board picture (SVG) as an object URL for an <img>, fetched with the seat's token when it is a seat's. */
export async function boardUrl(gameId, { seat, version, token } = {}) {
  const url = new URL(`/games/${encodeURIComponent(gameId)}/board.svg`, location.origin);
  if (seat !== undefined && seat !== null) url.searchParams.set("seat", seat);
  if (version !== undefined && version !== null) url.searchParams.set("version", version);
  const response = await fetch(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  if (!response.ok) throw new ApiError(response.status, "board", `no board (${response.status})`);
  return URL.createObjectURL(await response.blob());
}

/** A WebSocket URL of a feed (a seat's with its token, else the spectators'). */
export function feedUrl(gameId, { seat, after = 0, token } = {}) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const path = seat === undefined || seat === null
    ? `/games/${encodeURIComponent(gameId)}/feed`
    : `/games/${encodeURIComponent(gameId)}/seats/${seat}/feed`;
  const url = new URL(path, location.origin);
  url.protocol = scheme;
  url.searchParams.set("after", after);
  if (token) url.searchParams.set("token", token);
  return url.toString();
}

/** A live feed that reconnects from the last version it got (the gateway resends nothing twice). */
export class Feed {
  constructor(gameId, { seat, after = 0, token, onMessage, onState }) {
    Object.assign(this, { gameId, seat, after, token, onMessage, onState });
    this.closed = false;
    this.retry = 500;
    this.open();
  }
  open() {
    if (this.closed) return;
    const ws = new WebSocket(feedUrl(this.gameId, { seat: this.seat, after: this.after, token: this.token }));
    this.ws = ws;
    ws.onopen = () => { this.retry = 500; this.onState && this.onState("live"); };
    ws.onmessage = (m) => {
      const msg = JSON.parse(m.data);
      if (msg.kind === "event") this.after = Math.max(this.after, msg.version);
      if (msg.kind === "over") this.closed = true;
      this.onMessage(msg);
    };
    ws.onclose = (e) => {
      if (this.closed || e.code === 4401 || e.code === 4403 || e.code === 4404) {
        this.onState && this.onState(this.closed ? "ended" : "refused");
        return;
      }
      this.onState && this.onState("reconnecting");
      setTimeout(() => this.open(), this.retry);
      this.retry = Math.min(this.retry * 2, 10000);
    };
  }
  close() {
    this.closed = true;
    if (this.ws) this.ws.close();
  }
}
