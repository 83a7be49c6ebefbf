// The /v2 API, as any client uses it: an API key in the Authorization header, JSON:API documents.
// The key lives in sessionStorage, so it is gone when the browser tab closes.

const KEY = 'boxwatch.key';

export function apiKey() {
  return sessionStorage.getItem(KEY);
}

export function setAPIKey(key) {
  if (key) sessionStorage.setItem(KEY, key);
  else sessionStorage.removeItem(KEY);
}

// APIError is a failed request: status is the HTTP status (0 when no answer came) and message the
// API's own detail, fit to show.
export class APIError extends Error {
  constructor(status, message, errors = []) {
    super(message);
    this.status = status;
    this.errors = errors;
  }
}

// unauthorized is called when the API refuses the key (the key was revoked, or the server's
// database was replaced); the app signs out.
let unauthorized = () => {};
export function onUnauthorized(fn) {
  unauthorized = fn;
}

// request sends one API request. body, when given, is sent as JSON:API (or plain JSON with
// json: true). Polling passes fresh: true so that the browser revalidates what it cached.
export async function request(method, path, { body, json = false, fresh = false, key = apiKey() } = {}) {
  const headers = { Accept: 'application/vnd.api+json' };
  if (key) headers.Authorization = `Token ${key}`;
  if (body !== undefined) headers['Content-Type'] = json ? 'application/json' : 'application/vnd.api+json';
  let res;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: fresh ? 'no-cache' : 'default',
    });
  } catch {
    throw new APIError(0, 'The boxwatch server cannot be reached.');
  }
  if (res.status === 204) return null;
  let doc = null;
  try {
    doc = await res.json();
  } catch {
    doc = null;
  }
  if (!res.ok) {
    const errors = doc?.errors ?? [];
    const message = errors.map((e) => e.detail || e.title).filter(Boolean).join(' ') || `The server answered ${res.status}.`;
    if (res.status === 401 && key === apiKey()) unauthorized(message);
    throw new APIError(res.status, message, errors);
  }
  return doc;
}

export const get = (path, opts) => request('GET', path, opts);

// query builds a query string from an object, leaving out empty values. Brackets in names such
// as page[size] are sent as they are, as the API's own documentation writes them.
export function query(params) {
  const parts = [];
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === '') continue;
    parts.push(`${k}=${encodeURIComponent(v)}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

// Included indexes a document's included resources by type and id.
export class Included {
  constructor(doc) {
    this.byKey = new Map();
    for (const r of doc?.included ?? []) this.byKey.set(`${r.type}:${r.id}`, r);
  }

  // of returns the resource a relationship points to, or undefined.
  of(resource, relationship) {
    const ref = resource?.relationships?.[relationship]?.data;
    if (!ref || Array.isArray(ref)) return undefined;
    return this.byKey.get(`${ref.type}:${ref.id}`);
  }

  // all returns the resources a to-many relationship points to that are included.
  all(resource, relationship) {
    const refs = resource?.relationships?.[relationship]?.data;
    if (!Array.isArray(refs)) return [];
    return refs.map((ref) => this.byKey.get(`${ref.type}:${ref.id}`)).filter(Boolean);
  }
}

// relatedID returns the id a relationship points to, or null.
export function relatedID(resource, relationship) {
  return resource?.relationships?.[relationship]?.data?.id ?? null;
}
