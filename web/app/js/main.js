// The dashboard: hash routes, sign-in state and live updates.
//
// Live updates poll the public /v2 API every few seconds while the tab is visible. The dashboard
// is a plain client of that API, which has no push channel: server-sent events would need a new
// endpoint, and polling a handful of small JSON:API pages costs the server little (lists are one
// page; the map is answered from the server's cache and revalidated with its ETag).

import { apiKey, setAPIKey, onUnauthorized } from './api.js';
import { announce } from './dom.js';
import { clock } from './format.js';
import * as signin from './signin.js';
import * as tracking from './tracking.js';
import * as shipments from './shipments.js';
import * as shipment from './shipment.js';
import * as webhooks from './webhooks.js';

const POLL_MS = 5000;

// window.boxwatch exposes the map instance of the shipment page (null elsewhere), for tests and
// for people poking at the page from the console.
window.boxwatch = { map: null };

const views = {
  signin,
  'tracking-requests': tracking,
  shipments,
  shipment,
  webhooks,
};

let current = null; // { name, view: { refresh?, unmount? } }
let pollTimer = 0;
let afterSignIn = '#/tracking-requests';

function parse(hash) {
  const [path] = hash.replace(/^#\/?/, '').split('?');
  const parts = path.split('/').filter(Boolean).map((p) => { try { return decodeURIComponent(p); } catch { return p; } });
  if (parts[0] === 'shipments' && parts[1]) return { name: 'shipment', id: parts[1] };
  if (parts[0] in views && parts[0] !== 'shipment') return { name: parts[0] };
  return { name: apiKey() ? 'tracking-requests' : 'signin' };
}

function route() {
  const r = parse(location.hash);
  const signedIn = Boolean(apiKey());
  if (!signedIn && r.name !== 'signin') {
    afterSignIn = location.hash || afterSignIn;
    location.replace('#/signin');
    return;
  }
  if (signedIn && r.name === 'signin') {
    location.replace(afterSignIn);
    return;
  }
  if (!location.hash.startsWith('#/')) {
    location.replace(`#/${r.name}`); // the hash says where the page is, for the back button and bookmarks
    return;
  }
  document.getElementById('nav').hidden = !signedIn;
  for (const a of document.querySelectorAll('#nav a[data-route]')) {
    const here = a.dataset.route === r.name || (r.name === 'shipment' && a.dataset.route === 'shipments');
    if (here) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  unmount();
  const main = document.getElementById('main');
  main.replaceChildren();
  const view = views[r.name].mount(main, r, { signedIn: signIn }) ?? {};
  current = { name: r.name, view };
  const heading = main.querySelector('h1');
  if (heading) {
    heading.tabIndex = -1;
    // Move focus to the new view's heading, so keyboard and screen-reader users start there.
    if (document.activeElement && document.activeElement !== document.body && !main.contains(document.activeElement)) {
      heading.focus({ preventScroll: true });
    }
    document.title = `${heading.textContent} · boxwatch`;
  }
  schedule(0);
}

function unmount() {
  if (current?.view.unmount) current.view.unmount();
  current = null;
}

function signIn(key) {
  setAPIKey(key);
  route();
  announce('Signed in.');
}

function signOut(message) {
  setAPIKey(null);
  afterSignIn = '#/tracking-requests';
  unmount();
  if (message) sessionStorage.setItem('boxwatch.signout', message);
  if (location.hash === '#/signin') route();
  else location.hash = '#/signin'; // hashchange routes
}

// Polling: one refresh at a time, the next one POLL_MS after the last ended; none while the tab is
// hidden, and one at once when it shows again.
function schedule(delay) {
  clearTimeout(pollTimer);
  pollTimer = setTimeout(poll, delay);
}

async function poll() {
  const live = document.getElementById('live');
  if (document.hidden) {
    live.textContent = 'Paused';
    live.dataset.state = 'paused';
    return; // visibilitychange schedules the next one
  }
  const here = current;
  if (here?.view.refresh) {
    try {
      await here.view.refresh();
      live.textContent = `Live · ${clock()}`;
      live.dataset.state = 'live';
      live.title = 'The page asks the API for changes every few seconds while it is visible.';
    } catch (err) {
      live.textContent = err.status === 0 ? 'Offline, retrying' : 'Update failed, retrying';
      live.dataset.state = 'error';
      live.title = err.message;
    }
  }
  if (current === here) schedule(POLL_MS);
}

document.addEventListener('visibilitychange', () => {
  if (!document.hidden) schedule(0);
});
window.addEventListener('hashchange', route);
document.getElementById('signout').addEventListener('click', () => {
  signOut();
  announce('Signed out.');
});
onUnauthorized((message) => signOut(`The API no longer accepts this key (${message}) Sign in again.`));
route();
