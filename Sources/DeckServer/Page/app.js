'use strict';
// The page of `cards serve`. Its parts, top to bottom:
//   talking to the server · words · drawing (renderCard, the one place a card is drawn) · dragging ·
//   releases (predict, fly at once, queue the decision) · the pending queue (decisions sent in order,
//   checked against the server's engine) · keys and buttons · undo · live updates · the test hooks.
(() => {
const { Engine, exitHint } = window.CardsEngine;
const $ = (id) => document.getElementById(id);
// Hooks of the page's other scripts (state.js, editor.js, conflicts.js: loaded before this one).
const hooks = window.cardsHooks;
const each = (name, ...args) => (hooks[name] || []).forEach((hook) => hook(...args));
const request = (url, options) => (hooks.fetch || fetch)(url, options);
const reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)');
let deck = { name: '', cards: [], presets: {} };
// Cards kept (swiped right) in this page; cards on their way out (a predicted commit not yet answered).
const kept = new Set();
const leaving = new Set();
// Cards this page deleted: a deck read before the commit (an answer overtaken) must not bring them back.
const deletedHere = new Set();
let view = 'stack';
let drag = null;
let renderWanted = false;
let reloadWanted = false;
let lastRelease = null;
// Tests only: replaces the page's prediction, to see a disagreement with the server's engine handled.
let predictionOverride = null;
let keyboardUsed = false;
const stats = { frames: [], flyStarts: [], releaseWork: [], releases: [], disagreements: [] };
const choice = { stack: stored('cards.stackPreset', 'stack'), row: stored('cards.listPreset', 'list') };

function stored(key, fallback) {
  try { return localStorage.getItem(key) || fallback; } catch (error) { return fallback; }
}
function store(key, value) {
  try { localStorage.setItem(key, value); } catch (error) { /* private mode: the choice lasts this page */ }
}

// ---- Talking to the server: state.js's `call` (same origin: the token's cookie goes along by itself; a
// refusal throws with the server's words, a server gone shows its banner). ----
const post = (path, body) => hooks.call(path, body);
async function load() {
  if (drag) { reloadWanted = true; return; }
  const response = await request('api/deck');
  if (!response.ok) { say('Could not read the deck (the server answered HTTP ' + response.status + ').'); return; }
  deck = await response.json();
  each('loaded', deck, kept);
  for (const id of [...kept]) if (!deck.cards.some((c) => c.id === id)) kept.delete(id);
  for (const id of [...deletedHere]) if (!deck.cards.some((c) => c.id === id)) deletedHere.delete(id);
  if (deletedHere.size) deck.cards = deck.cards.filter((c) => !deletedHere.has(c.id));
  render();
}
// The platform glyphs: one sprite, its symbols put in the page so every card can `use` them.
async function loadIcons() {
  try {
    const response = await fetch('icons.svg');
    if (!response.ok) return;
    const parsed = new DOMParser().parseFromString(await response.text(), 'image/svg+xml');
    const sprite = document.importNode(parsed.documentElement, true);
    sprite.setAttribute('aria-hidden', 'true');
    sprite.style.display = 'none';
    document.body.prepend(sprite);
  } catch (error) { /* without the sprite the tiles stay empty; the names say which platform */ }
}

// ---- Words: what the status line and a screen reader say. ----
// "Ada on GitHub"; a title that already names its platform is said once.
function nameOf(card) {
  const platform = card.platformName || '';
  if (!platform || card.title.toLowerCase().includes(platform.toLowerCase())) return card.title;
  return card.title + ' on ' + platform;
}
function say(text, undoLabel) {
  $('status-text').textContent = text;
  const button = $('status-undo');
  button.hidden = !undoLabel;
  if (undoLabel) button.setAttribute('aria-label', undoLabel);
}
function announce(text) {
  // A live region reads a change: clear, then set on the next frame, so the same words twice are read twice.
  const region = $('announce');
  region.textContent = '';
  requestAnimationFrame(() => { region.textContent = text; });
}
const stays = {
  belowThreshold: 'not dragged far enough',
  noDisplacementInAllowedDirection: 'this way neither deletes nor keeps',
  reverseFling: 'flicked back',
  flingTooShort: 'the flick was too short',
  cancelled: 'the drag was interrupted',
  invalidGeometry: 'the card has no size to swipe',
};
function outcomeWords(card, result, presetName) {
  if (result.decision === 'commit') return (result.direction === 'left' ? 'Deleted ' : 'Kept ') + nameOf(card);
  if (result.decision === 'snapBack') {
    const why = result.reason === 'noDisplacementInAllowedDirection' && presetName !== 'stack'
      && presetName !== 'classic-stack' ? 'slide it left to delete' : (stays[result.reason] || result.reason);
    return nameOf(card) + ' stays: ' + why;
  }
  return '';
}

// ---- Drawing: text only ever goes in through textContent. ----
const colours = { red: '#ff3b30', orange: '#ff9500', yellow: '#ffcc00', green: '#34c759', mint: '#00c7be',
  teal: '#30b0c7', cyan: '#32ade6', blue: '#007aff', indigo: '#5856d6', purple: '#af52de', pink: '#ff2d55',
  brown: '#a2845e', gray: '#8e8e93', grey: '#8e8e93', black: '#1c1c1e', white: '#f2f2f7' };
function colour(text) {
  if (/^#[0-9a-fA-F]{6}$/.test(text)) return text.toLowerCase();
  return colours[String(text).toLowerCase()] || '#8e8e93';
}
// WCAG 2 relative luminance and contrast: the card's text is black or white, whichever reads better
// (for any colour one of them is at least 4.58:1).
function luminance(hex) {
  const channel = (i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}
function contrast(a, b) {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}
function inkFor(hex) { return contrast(hex, '#000000') >= contrast(hex, '#ffffff') ? '#000000' : '#ffffff'; }
// A card's `platformIcon` as a glyph of the sprite (Fork Awesome); a neutral card glyph otherwise.
const iconAliases = { 'x-twitter': 'twitter', x: 'twitter', mail: 'envelope', email: 'envelope', web: 'globe',
  website: 'globe', homepage: 'globe', stackoverflow: 'stack-overflow', 'youtube-play': 'youtube',
  wechat: 'weixin', matrix: 'matrix-org', 'linkedin-in': 'linkedin', 'square-github': 'github' };
function glyph(name) {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('class', 'glyph');
  svg.setAttribute('aria-hidden', 'true');
  const use = document.createElementNS('http://www.w3.org/2000/svg', 'use');
  use.setAttribute('href', '#i-' + name);
  svg.append(use);
  return svg;
}
function iconName(card) {
  const name = String(card.platformIcon || '').toLowerCase();
  const known = iconAliases[name] || name;
  return known && document.getElementById('i-' + known) ? known : 'id-card';
}
function element(tag, className, text) {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text !== undefined) made.textContent = text;
  return made;
}
// Only http, https and mailto become links: a javascript: or data: URL from a remote stays text. A link
// never drags natively (the card drags instead); a click opens it unless the pointer moved.
function link(url) {
  let parsed = null;
  try { parsed = new URL(url); } catch (error) { parsed = null; }
  if (parsed && ['http:', 'https:', 'mailto:'].includes(parsed.protocol)) {
    const a = element('a', 'link', url);
    a.href = parsed.href; a.target = '_blank'; a.rel = 'noopener noreferrer';
    a.draggable = false;
    a.addEventListener('dragstart', (event) => event.preventDefault());
    a.addEventListener('click', (event) => {
      // Moved: it was a drag. Opened already by the tap's release: once is enough.
      if (suppressClick || (openedByTap && openedByTap.link === a && event.timeStamp < openedByTap.until)) {
        event.preventDefault();
      }
      openedByTap = null;
    });
    return a;
  }
  const span = element('span', 'link unsafe-link', url);
  span.title = 'Not a web link: not opened';
  return span;
}
// The stack's order and the filter come from state.js when it is loaded (conflicts first, kept cards out).
function stackCards() {
  const cards = hooks.stack ? hooks.stack(deck, kept) : deck.cards.filter((c) => !kept.has(c.id));
  return cards.filter((c) => !leaving.has(c.id));
}
function rowCards() { return (hooks.rows ? hooks.rows(deck) : deck.cards).filter((c) => !leaving.has(c.id)); }
function render() {
  if (drag) { renderWanted = true; return; }
  renderWanted = false;
  const focus = focusedPart();
  $('deck-name').textContent = deck.name || 'Cards';
  document.title = (deck.name || 'Cards') + ' — cards serve';
  renderStack();
  renderRows();
  each('rendered', deck);
  if (focus) refocus(focus);
}
// A redraw (a change from elsewhere, a sync) keeps the keyboard where it was: the same part of the same card.
function focusedPart() {
  const e = document.activeElement;
  const holder = e && e !== document.body ? e.closest('[data-id]') : null;
  if (!holder) return null;
  const part = ['link', 'delete-button', 'content'].find((name) => e.classList.contains(name));
  return part ? { id: holder.dataset.id, part, list: holder.closest('#rows') ? 'rows' : 'stack' } : null;
}
function refocus(focus) {
  if (document.activeElement && document.activeElement !== document.body) return;
  const holder = $(focus.list).querySelector('[data-id="' + CSS.escape(focus.id) + '"]:not(.flying):not(.leaving)');
  const target = holder && holder.querySelector('.' + focus.part);
  if (target && !target.closest('[inert]')) target.focus({ preventScroll: true });
}
// One card, for the stack ('stack') or the list ('row'): the only place a card's look is made.
function renderCard(card, kind) {
  const ink = inkFor(colour(card.color));
  const tile = element('div', 'glyph-tile');
  tile.append(glyph(iconName(card)));
  if (kind === 'row') {
    const content = element('div', 'content');
    content.style.setProperty('--card-color', colour(card.color));
    content.style.setProperty('--ink', ink);
    content.append(tile, element('span', 'title', card.title), element('span', 'platform', card.platformName),
      link(card.indexURL));
    return content;
  }
  const li = element('li', 'card');
  li.style.setProperty('--card-color', colour(card.color));
  li.style.setProperty('--ink', ink);
  li.dataset.id = card.id;
  // The stamps sit in the icon's row, right above the title, never over it: KEEP on the left (the side that
  // stays on screen while the card goes right), DELETE on the right.
  const head = element('div', 'head');
  const stampDelete = element('span', 'stamp delete', 'Delete');
  const stampKeep = element('span', 'stamp keep', 'Keep');
  stampDelete.setAttribute('aria-hidden', 'true'); stampKeep.setAttribute('aria-hidden', 'true');
  head.append(tile, stampKeep, stampDelete);
  li.append(head, element('h2', 'title', card.title), element('p', 'platform', card.platformName),
    link(card.indexURL));
  return li;
}
function renderStack() {
  const list = $('stack');
  // Cards still flying out stay until their flight ends; everything else is drawn anew.
  for (const child of [...list.children]) if (!child.classList.contains('flying')) child.remove();
  const firstFlying = list.querySelector('.flying');
  const cards = stackCards();
  const total = deck.cards.length;
  const top = cards[0];
  $('position').textContent = total === 0 ? 'No cards' : cards.length === 0 ? 'All ' + total + ' seen'
    : 'Card ' + (total - cards.length + 1) + ' of ' + total;
  $('delete-top').disabled = $('keep-top').disabled = !top;
  $('delete-top').setAttribute('aria-label', top ? 'Delete ' + nameOf(top) : 'Delete');
  $('keep-top').setAttribute('aria-label', top ? 'Keep ' + nameOf(top) : 'Keep');
  $('stack').setAttribute('aria-label', top ? 'Stack of cards, top: ' + nameOf(top) : 'Stack of cards, empty');
  if (!top) {
    list.insertBefore(element('li', 'empty', total === 0 ? 'No cards in this deck' : 'No more cards'), firstFlying);
    return;
  }
  cards.slice(0, 3).reverse().forEach((card, index, shown) => {
    const depth = shown.length - 1 - index;
    const li = renderCard(card, 'stack');
    if (depth === 1) li.classList.add('under');
    if (depth === 2) li.classList.add('under2');
    li.setAttribute('aria-label', nameOf(card) + ', card ' + (total - cards.length + 1) + ' of ' + total);
    each('decorate', li, card, 'stack', depth === 0);
    if (depth > 0) {
      // Only the top card's content is in the tab order and the accessibility tree.
      li.inert = true;
      li.setAttribute('aria-hidden', 'true');
    } else {
      li.setAttribute('role', 'group');
      if (promote) { li.classList.add('rise'); promote = false; }
      attach(li, card, 'stack', li);
    }
    list.insertBefore(li, firstFlying);
  });
}
let promote = false;
function renderRows() {
  const list = $('rows');
  const old = [...list.children];
  const stay = old.map((li, index) => [li, index]).filter(([li]) => li.classList.contains('leaving'));
  list.replaceChildren();
  const cards = rowCards();
  if (cards.length === 0 && stay.length === 0) list.append(element('li', 'empty-row', 'No cards in this deck'));
  cards.forEach((card, index) => {
    const li = element('li', 'row');
    li.dataset.id = card.id;
    li.setAttribute('aria-label', nameOf(card) + ', ' + (index + 1) + ' of ' + cards.length);
    const behind = element('div', 'behind');
    behind.append(glyph('trash'), element('span', '', 'Delete'));
    behind.setAttribute('aria-hidden', 'true');
    const content = renderCard(card, 'row');
    content.tabIndex = 0;
    const button = element('button', 'delete-button', 'Delete');
    button.type = 'button';
    button.setAttribute('aria-label', 'Delete ' + nameOf(card));
    button.addEventListener('click', () => decideWithoutGesture(card, 'row', 'left', content));
    button.addEventListener('pointerdown', (event) => event.stopPropagation());
    content.append(button);
    each('decorate', content, card, 'row', true);
    attach(content, card, 'row', li);
    li.append(behind, content);
    list.append(li);
  });
  // A row sliding out stays where it was until it has folded away.
  for (const [li, index] of stay) list.insertBefore(li, list.children[index] || null);
}

// ---- Dragging: Pointer Events (mouse, touch, pen), coalesced events, the events' own times. ----
let suppressClick = false;
// A tap on a card's link opens it on the release: Chromium swallows the click of a tap that comes soon
// after a fling (it stops the fling instead), and a person taps a link right after swiping.
let openedByTap = null;
let drawScheduled = false;
let undrawnSince = null;
function presetFor(kind) { return kind === 'stack' ? choice.stack : choice.row; }
function attach(target, card, kind, holder) {
  target.addEventListener('pointerdown', (event) => {
    if (drag || event.button !== 0 || event.target.closest('button')) return;
    keyboardUsed = false;
    const presetName = presetFor(kind);
    const rect = target.getBoundingClientRect();
    const grab = [event.clientX - rect.left, event.clientY - rect.top];
    const engine = new Engine(deck.presets[presetName], target.offsetWidth, target.offsetHeight);
    drag = { card, kind, presetName, target, holder, pointer: event.pointerId, x0: event.clientX, y0: event.clientY,
      width: target.offsetWidth, height: target.offsetHeight, grab, samples: [], engine, keyboard: false,
      captured: false, armedShown: null, link: event.target.closest('a.link') };
    target.classList.remove('rise');
    target.style.transition = 'none';
    suppressClick = false;
    sample(event, true);
  });
  // A row's own keys; keys on its link or button do what they do there (Enter opens, Enter presses).
  if (kind === 'row') target.addEventListener('keydown', (event) => { if (event.target === target) keys(event, card, kind, target, holder); });
}
// Moves and the release are heard on the whole document: until the drag is recognised the pointer is not
// captured (a tap on the card's link stays a click on it), so it may be over anything when it lifts.
document.addEventListener('pointermove', (event) => {
  if (!drag || drag.pointer !== event.pointerId || drag.keyboard) return;
  const list = event.getCoalescedEvents ? event.getCoalescedEvents() : [];
  for (const one of (list.length ? list : [event])) sample(one, false);
  if (!drag.captured && drag.engine.phase === 'dragging') {
    drag.captured = true;
    try { drag.target.setPointerCapture(event.pointerId); } catch (error) { /* the pointer is already gone */ }
  }
  if (undrawnSince === null) undrawnSince = event.timeStamp;
  schedule();
});
document.addEventListener('pointerup', (event) => {
  if (!drag || drag.pointer !== event.pointerId || drag.keyboard) return;
  sample(event, false);
  release(event.timeStamp, null);
});
document.addEventListener('pointercancel', (event) => {
  if (!drag || drag.pointer !== event.pointerId || drag.keyboard) return;
  release(event.timeStamp, event.timeStamp / 1000);
});
function sample(event, first) {
  const t = event.timeStamp / 1000;
  const x = event.clientX - drag.x0, y = event.clientY - drag.y0;
  const last = drag.samples[drag.samples.length - 1];
  if (last && last[0] === t) drag.samples.pop();
  drag.samples.push([t, x, y]);
  if (first) drag.engine.down(t, x, y, drag.grab); else drag.engine.move(t, x, y);
  if (Math.hypot(x, y) > 5) suppressClick = true;
}
function schedule() {
  if (drawScheduled) return;
  drawScheduled = true;
  requestAnimationFrame(() => {
    drawScheduled = false;
    if (!drag) return;
    draw(drag);
    if (undrawnSince !== null) {
      // From the pointer event to the frame that shows it, on the events' clock.
      stats.frames.push(performance.now() - undrawnSince);
      if (stats.frames.length > 5000) stats.frames.shift();
      undrawnSince = null;
    }
  });
}
function draw(current) {
  const { target, holder, engine, kind } = current;
  target.style.transformOrigin = engine.anchor;
  target.style.transform = 'translate(' + engine.x + 'px,' + engine.y + 'px) rotate(' + engine.rotation + 'deg)';
  const armed = engine.armed || '';
  holder.dataset.armed = armed;
  if (kind === 'row') holder.style.setProperty('--progress', String(engine.progress));
  else {
    const stamp = holder.querySelector(engine.x > 0 ? '.stamp.keep' : '.stamp.delete');
    holder.querySelectorAll('.stamp').forEach((s) => { s.style.opacity = ''; });
    if (stamp && !armed) stamp.style.opacity = String(engine.progress * 0.7);
  }
  if (current.armedShown !== (armed || null)) {
    const card = nameOf(current.card);
    if (armed) announce('Release to ' + (armed === 'left' ? 'delete ' : 'keep ') + card);
    else if (current.armedShown) announce('Released now, ' + card + ' stays');
    current.armedShown = armed || null;
  }
}

// ---- Releases: the page's copy of the engine predicts; a commit flies off in this very frame, the next
// card can be taken at once, and the server's engine decides in the pending queue. ----
function release(eventTime, cancelTime) {
  const current = drag;
  drag = null;
  if (!current) return;
  const last = current.samples[current.samples.length - 1];
  const real = cancelTime === null ? current.engine.up(last[0], last[1], last[2]) : current.engine.cancel();
  const predicted = predictionOverride ? predictionOverride(real) : real;
  const body = { id: current.card.id, preset: current.presetName, width: current.width, height: current.height,
    grab: current.grab, samples: current.samples, cancel: cancelTime };
  const item = { card: current.card, kind: current.kind, presetName: current.presetName, body, predicted,
    pageArmed: current.engine.armed !== null, releasedAt: eventTime,
    samples: current.samples, target: current.target, holder: current.holder };
  if (predicted.decision === 'commit') flyOff(current, predicted, eventTime);
  else if (predicted.decision === 'snapBack') settleBack(current.target, current.holder, current.presetName);
  else {
    resetLook(current.target, current.holder);
    if (current.link && cancelTime === null && !suppressClick && current.samples.length) {
      window.open(current.link.href, '_blank', 'noopener,noreferrer');
      openedByTap = { link: current.link, until: eventTime + 1000 };
    }
  }
  // A tap the engine never recognised commits nothing: nothing to ask. Everything else goes to the server.
  if (predicted.decision !== 'none') enqueue(item);
  else lastRelease = { pageArmed: false, pageDecision: predicted, engine: null, samples: current.samples.length,
    preset: current.presetName };
  if (reloadWanted) { reloadWanted = false; load(); } else if (renderWanted) render();
}
function flyOff(current, predicted, eventTime) {
  const { target, holder, card, kind, presetName } = current;
  const preset = deck.presets[presetName];
  const exit = exitHint(preset, predicted.direction, current.engine, predicted.velocity);
  const seconds = reducedMotion.matches ? 0 : exit.duration;
  leaving.add(card.id);
  if (predicted.direction === 'right') kept.add(card.id);
  target.classList.add('flying');
  target.inert = true;
  holder.setAttribute('aria-hidden', 'true');
  if (kind === 'row') holder.classList.add('leaving');
  else holder.dataset.armed = predicted.direction;
  target.style.transition = 'transform ' + seconds + 's cubic-bezier(0.2, 0.6, 0.4, 1)';
  target.style.transformOrigin = exit.anchor;
  target.style.transform = 'translate(' + exit.x + 'px,' + exit.y + 'px) rotate(' + exit.rotation + 'deg)';
  // The frame that starts the flight, by its own time (the frame's start), from the release's event time;
  // and the script's own share, from the event to the flight set.
  stats.releaseWork.push(performance.now() - eventTime);
  requestAnimationFrame((frame) => {
    stats.flyStarts.push(frame - eventTime);
    if (stats.flyStarts.length > 1000) { stats.flyStarts.shift(); stats.releaseWork.shift(); }
  });
  if (kind === 'stack') { promote = true; renderStack(); restoreFocus(); }
  setTimeout(() => {
    if (kind === 'row') {
      // The row folds away, so the rows under it move up rather than jump.
      holder.style.height = holder.offsetHeight + 'px';
      requestAnimationFrame(() => { holder.style.height = '0px'; holder.style.marginTop = holder.style.marginBottom = '0px'; });
      setTimeout(() => holder.remove(), reducedMotion.matches ? 0 : 200);
    } else target.remove();
  }, seconds * 1000 + 30);
}
function settleBack(target, holder, presetName) {
  const seconds = reducedMotion.matches ? 0 : deck.presets[presetName].settleDuration;
  target.style.transition = 'transform ' + seconds + 's cubic-bezier(0.3, 1.3, 0.5, 1)';
  target.style.transform = 'translate(0px,0px) rotate(0deg)';
  resetLook(target, holder);
}
function resetLook(target, holder) {
  holder.dataset.armed = '';
  holder.style.removeProperty('--progress');
  target.querySelectorAll('.stamp').forEach((s) => { s.style.opacity = ''; });
}
function restoreFocus() {
  // Back to the stack for the keyboard only: after a finger or a mouse there is nothing to show.
  if (view === 'stack' && keyboardUsed && (document.activeElement === document.body || !document.activeElement
      || document.activeElement.closest('.flying'))) $('stack').focus();
}

// ---- The pending queue: decisions on their way to the server, sent one after another in release order.
// The server's engine decides: where it differs from the page's prediction, the card comes back, with why. ----
const pending = [];
let sending = false;
let idleWaiters = [];
function enqueue(item) {
  pending.push(item);
  pump();
}
async function pump() {
  if (sending) return;
  sending = true;
  while (pending.length) {
    const item = pending[0];
    let result = null, failure = null;
    try { result = await post('api/swipe', item.body); } catch (error) { failure = error; }
    pending.shift();
    settle(item, result, failure);
  }
  sending = false;
  idleWaiters.splice(0).forEach((resolve) => resolve());
}
function whenSettled() {
  return pending.length || sending ? new Promise((resolve) => idleWaiters.push(resolve)) : Promise.resolve();
}
function settle(item, result, failure) {
  const { card, predicted } = item;
  const answered = performance.now();
  const pageCommit = predicted.decision === 'commit' ? predicted.direction : null;
  const engineCommit = result && result.decision === 'commit' ? result.direction : null;
  lastRelease = { pageArmed: item.pageArmed, pageDecision: { decision: predicted.decision,
    direction: predicted.direction, reason: predicted.reason }, engine: result, samples: item.samples.length,
    preset: item.presetName, releaseToAnswer: answered - item.releasedAt, error: failure ? failure.message : null,
    trace: item.samples.slice(-12).map(([t, x, y]) => [Math.round((t - item.samples[0][0]) * 1e4) / 10, x, y]) };
  if (result) stats.releases.push({ releaseToAnswer: answered - item.releasedAt, commitSeconds: result.commitSeconds });
  if (result && (result.decision !== predicted.decision || result.reason !== predicted.reason
      || result.direction !== predicted.direction)) {
    stats.disagreements.push({ page: lastRelease.pageDecision, engine: result });
  }
  leaving.delete(card.id);
  if (failure) {
    if (pageCommit === 'right') kept.delete(card.id);
    say('Could not ' + (pageCommit === 'right' ? 'keep ' : 'delete ') + nameOf(card) + ': ' + failure.message
      + (pageCommit ? '. The card is back in its place.' : ''));
    render();
    return;
  }
  if (engineCommit === 'left') {
    deck.cards = deck.cards.filter((c) => c.id !== card.id);
    if (result.deleted) deletedHere.add(card.id);
    if (result.deleted) say('Deleted ' + nameOf(card), 'Undo deleting ' + nameOf(card));
    else if (result.gone) say(nameOf(card) + ' was already deleted elsewhere');
  } else if (engineCommit === 'right') {
    kept.add(card.id);
    say('Kept ' + nameOf(card), 'Undo keeping ' + nameOf(card));
  } else {
    kept.delete(card.id);
    if (pageCommit) say(nameOf(card) + ' came back: the deck\'s engine decided it stays ('
      + (stays[result.reason] || result.decision) + ')');
    else if (result.gone) { say(nameOf(card) + ' was deleted elsewhere'); load(); return; }
    else say(outcomeWords(card, result, item.presetName));
  }
  if (engineCommit) each('swiped', card, result);
  announce($('status-text').textContent);
  if (pageCommit !== engineCommit) render();
}

// ---- Buttons and keys: the same engine, without a gesture. ----
function decideWithoutGesture(card, kind, direction, target) {
  if (drag || !target || leaving.has(card.id)) return;
  const presetName = presetFor(kind);
  const preset = deck.presets[presetName];
  if (!(direction === 'left' ? preset.left : preset.right)) return;
  const holder = kind === 'row' ? target.closest('.row') : target;
  const engine = new Engine(preset, target.offsetWidth, target.offsetHeight);
  const predicted = { decision: 'commit', direction, reason: 'programmatic', velocity: [0, 0] };
  const now = performance.now();
  const item = { card, kind, presetName, predicted, pageArmed: false, releasedAt: now, samples: [], target, holder,
    body: { id: card.id, preset: presetName, direction, width: target.offsetWidth, height: target.offsetHeight } };
  flyOff({ target, holder, card, kind, presetName, engine }, predicted, now);
  enqueue(item);
}
function topTarget() { return $('stack').querySelector('.card:not(.under):not(.under2):not(.flying)'); }
function keys(event, card, kind, target, holder) {
  if (!['ArrowLeft', 'ArrowRight', 'Enter', 'Escape', ' '].includes(event.key)) return;
  if (event.key === ' ' && !(drag && drag.keyboard)) return;
  event.preventDefault();
  event.stopPropagation();
  keyboardUsed = true;
  const t = event.timeStamp / 1000;
  if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') {
    if (!drag) {
      const presetName = presetFor(kind);
      const engine = new Engine(deck.presets[presetName], target.offsetWidth, target.offsetHeight);
      drag = { card, kind, presetName, target, holder, pointer: null, width: target.offsetWidth,
        height: target.offsetHeight, grab: null, samples: [[t, 0, 0]], engine, keyboard: true, x: 0,
        armedShown: null };
      engine.down(t, 0, 0, null);
      target.classList.remove('rise');
      target.style.transition = 'none';
    }
    if (!drag.keyboard) return;
    drag.x += (event.key === 'ArrowLeft' ? -1 : 1) * (event.repeat ? 45 : 30);
    drag.samples.push([t, drag.x, 0]);
    drag.engine.move(t, drag.x, 0);
    draw(drag);
  } else if (drag && drag.keyboard && (event.key === 'Enter' || event.key === ' ')) {
    // A key lets go at rest: the release is stamped 100 ms after the last step, so the few steps of the
    // arrows never read as a flick (a quadratic through them can point backwards: a "reverse fling").
    const lastStep = drag.samples[drag.samples.length - 1][0];
    drag.samples.push([Math.max(t, lastStep + 0.1), drag.x, 0]);
    release(event.timeStamp, null);
  } else if (drag && drag.keyboard && event.key === 'Escape') {
    release(event.timeStamp, t);
  }
}
$('stack').addEventListener('keydown', (event) => {
  const target = topTarget();
  const card = stackCards()[0];
  if (!target || !card || event.target !== $('stack')) return;
  keys(event, card, 'stack', target, target);
});
document.addEventListener('keydown', (event) => {
  if (event.key === 'Tab') keyboardUsed = true;
  const typing = event.target.closest && event.target.closest('input, textarea, select, dialog, [contenteditable]');
  if (event.key === 'u' && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) undo();
});
document.addEventListener('pointerdown', () => { keyboardUsed = false; }, true);
$('delete-top').addEventListener('click', () => { const c = stackCards()[0]; if (c) decideWithoutGesture(c, 'stack', 'left', topTarget()); });
$('keep-top').addEventListener('click', () => { const c = stackCards()[0]; if (c) decideWithoutGesture(c, 'stack', 'right', topTarget()); });
$('undo').addEventListener('click', undo);
$('status-undo').addEventListener('click', undo);
function show(which) {
  view = which;
  $('stack-view').hidden = which !== 'stack';
  $('list-view').hidden = which !== 'list';
  $('show-stack').setAttribute('aria-pressed', String(which === 'stack'));
  $('show-list').setAttribute('aria-pressed', String(which === 'list'));
}
$('show-stack').addEventListener('click', () => show('stack'));
$('show-list').addEventListener('click', () => show('list'));
$('stack-preset').value = choice.stack;
$('list-preset').value = choice.row;
$('stack-preset').addEventListener('change', (event) => { choice.stack = event.target.value; store('cards.stackPreset', choice.stack); });
$('list-preset').addEventListener('change', (event) => { choice.row = event.target.value; store('cards.listPreset', choice.row); });

// ---- Undo is the deck's own (state.js: what this device did last, read from the deck, so it survives a
// reload), once the decisions on their way have landed.
async function undo() {
  if (drag) return;
  await whenSettled();
  await hooks.undo();
}

// ---- Live: the server says when main moved (another command, a sync). ----
// state.js watches the stream and says when the server is gone.
hooks.live(() => load());

// ---- For the browser tests and the benchmark. ----
window.cardsPage = {
  load, render, say,
  stats, lastRelease: () => lastRelease, cards: () => deck.cards.map((c) => c.id),
  busy: () => drag !== null || pending.length > 0 || sending || leaving.size > 0,
  pending: () => pending.length,
  dragging: () => drag && { kind: drag.kind, keyboard: drag.keyboard, phase: drag.engine.phase, id: drag.card.id },
  // What the page makes of a URL: 'a' (a link) or 'span' (text). The store refuses other schemes,
  // but the page must not trust a remote's files to have been checked.
  linkKind: (url) => link(url).tagName.toLowerCase(),
  // The page's engine on a scripted drag: `steps` are [kind, t, x, y] with kind down, move or up.
  mirror(presetName, width, height, grab, steps) {
    const e = new Engine(deck.presets[presetName], width, height);
    let end = null;
    for (const [kind, t, x, y] of steps) {
      if (kind === 'down') e.down(t, x, y, grab);
      else if (kind === 'up') end = e.up(t, x, y);
      else e.move(t, x, y);
    }
    return { armed: e.armed !== null, direction: e.armed, phase: e.phase, x: e.x, y: e.y, rotation: e.rotation,
      progress: e.progress, decision: end ? end.decision : null, reason: end ? end.reason : null,
      commitDirection: end ? end.direction : null, velocity: end ? end.velocity : null };
  },
  // The prediction for a drag as the page sends it to the server.
  predict(presetName, width, height, grab, samples, cancel) {
    const r = window.CardsEngine.run(deck.presets[presetName], width, height, grab, samples, cancel);
    return { decision: r.decision, direction: r.direction, reason: r.reason };
  },
  inkFor, contrast, colour,
  // The card exactly as the page draws it, for the contrast check over every colour.
  renderCard: (card, kind) => renderCard(card, kind),
  overridePrediction(fn) { predictionOverride = fn; },
};
Promise.all([load(), loadIcons()]).then(() => { render(); window.cardsPage.ready = true; });
})();
