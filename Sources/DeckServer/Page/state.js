'use strict';
// The page's state lives in the deck, not in this page: the stack's order and what this device kept come
// from the server (`stack`, kept cards recorded under .git), Undo is the deck's own undo (`cards undo`),
// and when the server is gone the page says so and comes back by itself. app.js calls these hooks;
// editor.js and conflicts.js add their own to the lists.
(() => {
const hooks = window.cardsHooks = { decorate: [], loaded: [], rendered: [], swiped: [], matches: [] };
const $ = (id) => document.getElementById(id);
const page = () => window.cardsPage;
let current = null;
let offline = false;

// ---- The network: a fetch that fails says the server is gone, in words, and shows the banner. ----
hooks.fetch = async (url, options) => {
  try {
    const response = await fetch(url, options);
    if (offline) backOnline();
    return response;
  } catch (error) {
    goneOffline();
    throw new Error('the deck\u2019s server is not answering, so nothing was changed');
  }
};
async function call(path, body) {
  const response = await hooks.fetch(path, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body) });
  let json = {};
  try { json = await response.json(); } catch (error) { json = {}; }
  if (!response.ok) {
    const failure = new Error(json.error || ('the server answered HTTP ' + response.status));
    failure.field = json.field || null;
    failure.status = response.status;
    throw failure;
  }
  return json;
}
hooks.call = call;

// ---- The stack: the server's order (conflicts first, then the cards this device has not kept). ----
function matches(card) { return hooks.matches.every((test) => test(card)); }
hooks.stack = (deck, kept) => {
  const byID = new Map(deck.cards.map((card) => [card.id, card]));
  const order = Array.isArray(deck.stack) ? deck.stack : deck.cards.map((card) => card.id);
  return order.map((id) => byID.get(id)).filter((card) => card && !kept.has(card.id) && matches(card));
};
hooks.rows = (deck) => deck.cards.filter(matches);
hooks.loaded.push((deck, kept) => {
  current = deck;
  // The server recorded every keep; the page's own set only bridges a swipe and the reload after it.
  kept.clear();
});
hooks.rendered.push((deck) => {
  const undo = $('undo');
  const what = deck.undo;
  undo.disabled = !what;
  const label = what ? what.label : 'Nothing to undo';
  undo.title = label;
  undo.setAttribute('aria-label', what ? label : 'Undo: nothing to undo');
  const restart = $('start-over');
  const ended = hooks.stack(deck, new Set()).length === 0 && (deck.keptCount || 0) > 0 && !filtering();
  restart.hidden = !ended;
  restart.textContent = 'Show the ' + (deck.keptCount || 0) + ' kept card' + (deck.keptCount === 1 ? '' : 's') + ' again';
});
function filtering() { const box = $('filter'); return !!(box && box.value.trim()); }
$('start-over').addEventListener('click', async () => {
  try { await call('api/kept', { clear: true }); page().say('Every card is in the stack again.'); }
  catch (error) { page().say('Could not start over: ' + error.message); }
  await page().load();
});

// ---- Undo: what this device did last, read from the deck, so it survives a reload. ----
hooks.undo = async () => {
  try {
    const done = await call('api/undo', {});
    if (done.undid === 'keep') {
      const card = current.cards.find((c) => c.id === done.id);
      page().say('Back in the stack: ' + (card ? card.title : 'the card') + '.');
    } else {
      page().say('Undone: ' + done.subject + (done.skipped.length ? ' (left as changed since: ' + done.skipped.join('; ') + ')' : '') + '.');
    }
  } catch (error) {
    page().say('Undo failed: ' + error.message);
  }
  await page().load();
};
hooks.swiped.push((card, result) => {
  if (result && result.resolved === 'delete') page().say('Conflict settled: ' + card.title + ' deleted. Undo brings it back.');
  if (result && result.resolved === 'keep') page().say('Conflict settled: ' + card.title + ' kept as edited. Undo takes it back.');
});

// ---- Live updates, and a banner when the server is gone; back by itself, with growing pauses. ----
let retryDelay = 500;
let retryTimer = null;
let source = null;
let onDeck = () => {};
function goneOffline() {
  if (offline) return;
  offline = true;
  $('offline').hidden = false;
  document.body.classList.add('is-offline');
  scheduleRetry();
}
function backOnline() {
  offline = false;
  retryDelay = 500;
  clearTimeout(retryTimer);
  $('offline').hidden = true;
  document.body.classList.remove('is-offline');
  page().say('Back in touch with the deck.');
}
function scheduleRetryQuietly() {
  clearTimeout(retryTimer);
  retryTimer = setTimeout(probe, 10000);
}
function scheduleRetry() {
  clearTimeout(retryTimer);
  const seconds = Math.round(retryDelay / 100) / 10;
  $('offline-text').textContent = 'The deck\u2019s server is not answering (has cards serve stopped, or is this device off the network?). ' +
    'Nothing can change until it is back. Trying again in ' + seconds + ' s.';
  retryTimer = setTimeout(probe, retryDelay);
  retryDelay = Math.min(retryDelay * 2, 10000);
}
async function probe() {
  let status = 0;
  try { status = (await fetch('api/deck')).status; } catch (error) { status = 0; }
  if (status === 401 || status === 403) {
    // A server started again with another secret: this page's address is no longer its own.
    $('offline-text').textContent = 'The deck\u2019s server is back, but with a new secret: open the address ' +
      '`cards serve` printed this time (or scan its code again).';
    scheduleRetryQuietly();
    return;
  }
  if (status !== 200) { scheduleRetry(); return; }
  backOnline();
  openEvents();
  onDeck();
}
function openEvents() {
  if (source) source.close();
  source = new EventSource('events');
  source.addEventListener('deck', () => onDeck());
  source.addEventListener('error', () => {
    // The stream ended (the server stopped) or could not be opened: the page retries on its own timer,
    // so it can say so, instead of the browser's silent retries.
    source.close();
    source = null;
    goneOffline();
  });
}
hooks.live = (handler) => { onDeck = handler; openEvents(); };
$('offline-retry').addEventListener('click', () => { retryDelay = 500; clearTimeout(retryTimer); probe(); });
window.cardsState = { isOffline: () => offline, current: () => current };
})();
