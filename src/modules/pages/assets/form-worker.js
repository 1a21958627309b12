// The form pages' service worker (served at /f/form-worker.js, so its scope is /f/): a form opened once
// with a connection opens again without one, in the language it was opened in. A page (/f/<token>, kept
// with its ?lang=) comes from the network when it answers
// within a few seconds, else from the copy kept at the last visit; the scripts and stylesheet, whose
// names carry their content's hash, from the copy kept. Nothing else is touched: the page sends the
// answers itself and keeps them in IndexedDB (outbox.js), so no API answer is ever cached here.
'use strict';
/* global self, caches, setTimeout, URL */
(() => {
  const CACHE = 'mel-forms-1';
  // Long enough for a slow connection to bring the newest form, short enough not to leave field staff
  // looking at a blank page on a connection that hangs.
  const NETWORK_WAIT = 3000;
  const FORM_PAGE = /^\/f\/[\w-]+$/;

  const sameOrigin = (url) => url.origin === self.location.origin;
  const isFormPage = (url) => sameOrigin(url) && FORM_PAGE.test(url.pathname);
  const isAsset = (url) => sameOrigin(url) && url.pathname.startsWith('/assets/');
  const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  /**
   * Where a page is kept: its address with the language asked for (`?lang=`) and nothing else of the
   * query, so that a form opened in Arabic opens again in Arabic without a connection.
   */
  const pageKey = (url) => {
    const lang = url.searchParams.get('lang');
    return url.origin + url.pathname + (lang ? `?lang=${encodeURIComponent(lang)}` : '');
  };
  /** The page kept under that key; else the form kept in another language (better than none). */
  const keptPage = async (key) =>
    (await caches.match(key, { ignoreVary: true })) ??
    (await caches.match(key, { ignoreVary: true, ignoreSearch: true }));

  self.addEventListener('install', () => self.skipWaiting());
  self.addEventListener('activate', (event) => {
    event.waitUntil(
      caches
        .keys()
        .then((names) =>
          Promise.all(
            names
              .filter((name) => name.startsWith('mel-forms-') && name !== CACHE)
              .map((name) => caches.delete(name)),
          ),
        )
        .then(() => self.clients.claim()),
    );
  });

  /** Drops the scripts and stylesheet no kept page links any more (those of an older version). */
  async function prune(cache) {
    const keys = await cache.keys();
    const used = new Set();
    for (const key of keys.filter((request) => isFormPage(new URL(request.url)))) {
      const page = await cache.match(key, { ignoreVary: true });
      if (!page) continue;
      for (const [link] of (await page.text()).matchAll(/\/assets\/[\w.-]+/g)) used.add(link);
    }
    const unused = keys.filter((request) => {
      const url = new URL(request.url);
      return isAsset(url) && !used.has(url.pathname);
    });
    await Promise.all(unused.map((request) => cache.delete(request)));
  }

  /** The page from the network, kept for next time; a closed or withdrawn form is no longer kept. */
  async function fromNetwork(request, key) {
    const response = await fetch(request);
    const cache = await caches.open(CACHE);
    if (response.status === 200) {
      await cache.put(key, response.clone());
      await prune(cache);
    } else if (response.status === 404 || response.status === 410) {
      // Every language of it.
      await cache.delete(key, { ignoreSearch: true });
    }
    return response;
  }

  async function formPage(event, url) {
    const key = pageKey(url);
    const network = fromNetwork(event.request, key);
    event.waitUntil(network.catch(() => undefined));
    const kept = await keptPage(key);
    if (!kept) return network;
    const fresh = network.then(
      (response) => (response.status >= 500 ? kept : response),
      () => kept,
    );
    return Promise.race([fresh, delay(NETWORK_WAIT).then(() => kept)]);
  }

  async function asset(request) {
    const kept = await caches.match(request.url);
    if (kept) return kept;
    const response = await fetch(request);
    if (response.status === 200) await (await caches.open(CACHE)).put(request.url, response.clone());
    return response;
  }

  self.addEventListener('fetch', (event) => {
    if (event.request.method !== 'GET') return;
    const url = new URL(event.request.url);
    if (event.request.mode === 'navigate' && isFormPage(url)) event.respondWith(formPage(event, url));
    else if (isAsset(url)) event.respondWith(asset(event.request));
  });

  /** The first visit: the page was loaded before this worker ran, so it asks for itself to be kept. */
  async function keep(paths) {
    const cache = await caches.open(CACHE);
    for (const path of paths) {
      const url = new URL(path, self.location.origin);
      if (!isFormPage(url) && !isAsset(url)) continue;
      const key = isFormPage(url) ? pageKey(url) : url.origin + url.pathname;
      if (await cache.match(key, { ignoreVary: true })) continue;
      const response = await fetch(key, { credentials: 'same-origin' });
      if (response.status !== 200) return false;
      await cache.put(key, response);
    }
    return true;
  }

  self.addEventListener('message', (event) => {
    const paths = event.data && event.data.keep;
    const [port] = event.ports;
    if (!Array.isArray(paths) || !port) return;
    event.waitUntil(
      keep(paths).then(
        (kept) => port.postMessage({ kept }),
        () => port.postMessage({ kept: false }),
      ),
    );
  });
})();
