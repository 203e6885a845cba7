'use strict';
(() => {
const token = new URLSearchParams(location.search).get('token') || '';
const query = token ? '?token=' + encodeURIComponent(token) : '';
const $ = (id) => document.getElementById(id);
// Hooks of the page's other scripts (state.js, editor.js, conflicts.js: loaded before this one).
const hooks = window.cardsHooks || {};
const each = (name, ...args) => (hooks[name] || []).forEach((hook) => hook(...args));
const request = (url, options) => (hooks.fetch || fetch)(url, options);
let deck = { name: '', cards: [], presets: {} };
const kept = new Set();
const undoable = [];
let view = 'stack';
let drag = null;
let busy = 0;
let reloadPending = false;
let lastRelease = null;
const stats = { frames: [], releases: [] };

// ---- The preset's geometry, as the engine applies it (SwipeConfiguration+Geometry.swift). ----
function length(value, width) { return 'points' in value ? value.points : value.fraction * width; }
function allowed(preset, direction) { return direction === 'left' ? preset.left : preset.right; }
function rotationFor(preset, x, width, lower) {
  const limit = Math.abs(preset.maximumRotation);
  const r = preset.rotation;
  if (r.kind === 'corner') {
    const m = Math.min(Math.abs(r.degrees), limit);
    if (x > 0) return [m, 'top left'];
    if (x < 0) return [-m, 'top right'];
    return [0, 'top left'];
  }
  if (r.kind === 'proportional') {
    if (!(width > 0)) return [0, 'center'];
    let d = r.degrees * Math.min(Math.max(x / width, -1), 1);
    if (r.flips && lower) d = -d;
    return [Math.min(Math.max(d, -limit), limit) + 0, 'center'];
  }
  return [0, 'center'];
}
class Mirror {
  constructor(preset, width, height, grab) {
    this.p = preset; this.width = width; this.height = height;
    this.lower = !!grab && grab[1] > height / 2;
    this.commit = length(preset.commitDistance, width);
    this.release = this.commit - length(preset.hysteresis, width);
    this.phase = 'pressed'; this.last = null; this.armed = null;
    this.x = 0; this.y = 0; this.rotation = 0; this.anchor = rotationFor(preset, 0, width, false)[1];
    this.progress = 0;
  }
  passes(value, threshold) { return this.p.inclusive ? value >= threshold : value > threshold; }
  accept(t, x, y) {
    if (!Number.isFinite(t) || !Number.isFinite(x) || !Number.isFinite(y)) return;
    if (this.last !== null && t < this.last) return;
    this.last = t;
    const p = this.p;
    if (this.phase === 'pressed') {
      if (Math.hypot(x, y) < p.minimumDistance) return;
      if (p.axisLock !== null && !(Math.abs(x) > p.axisLock * Math.abs(y))) { this.phase = 'rejected'; return; }
      this.phase = 'dragging';
    }
    if (this.phase !== 'dragging' || !(this.commit > 0)) return;
    let ox = x;
    const toward = ox < 0 ? 'left' : 'right';
    if (ox !== 0 && !allowed(p, toward)) {
      const limit = p.rubberBand === null ? 0 : Math.max(0, p.rubberBand) * this.width;
      ox = limit > 0 ? Math.sign(ox) * (1 - 1 / (Math.abs(ox) / limit + 1)) * limit : 0;
    }
    this.x = ox;
    this.y = p.crossAxis === null ? y : p.crossAxis;
    [this.rotation, this.anchor] = rotationFor(p, ox, this.width, this.lower);
    const heading = ox !== 0 && allowed(p, toward) ? { direction: toward, displacement: Math.abs(ox) } : null;
    this.progress = heading ? Math.min(Math.max(heading.displacement / this.commit, 0), 1) : 0;
    if (this.armed && !(heading && heading.direction === this.armed && this.passes(heading.displacement, this.release))) {
      this.armed = null;
    }
    if (!this.armed && heading && this.passes(heading.displacement, this.commit)) this.armed = heading.direction;
  }
}

// ---- Talking to the server. ----
async function post(path, body) {
  const response = await request(path + query, {
    method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Cards-Token': token },
    body: JSON.stringify(body), credentials: 'same-origin' });
  const json = await response.json();
  if (!response.ok) throw new Error(json.error || ('HTTP ' + response.status));
  return json;
}
async function load() {
  const response = await request('api/deck' + query, { credentials: 'same-origin' });
  if (!response.ok) { say('Could not read the deck (HTTP ' + response.status + ').'); return; }
  deck = await response.json();
  each('loaded', deck, kept);
  for (const id of [...kept]) if (!deck.cards.some((c) => c.id === id)) kept.delete(id);
  if (drag && !deck.cards.some((c) => c.id === drag.card.id)) {
    // Rule 8: the card vanished mid-gesture (a sync, another command): this drag can never commit.
    drag = null;
    say('That card was deleted elsewhere.');
  }
  render();
}
function say(text) { $('status').textContent = text; }

// ---- Drawing: text only ever goes in through textContent. ----
const colours = { red: '#ff3b30', orange: '#ff9500', yellow: '#ffcc00', green: '#34c759', mint: '#00c7be',
  teal: '#30b0c7', cyan: '#32ade6', blue: '#007aff', indigo: '#5856d6', purple: '#af52de', pink: '#ff2d55',
  brown: '#a2845e', gray: '#8e8e93', grey: '#8e8e93', black: '#1c1c1e', white: '#f2f2f7' };
function colour(text) {
  if (/^#[0-9a-fA-F]{6}$/.test(text)) return text;
  return colours[String(text).toLowerCase()] || '#8e8e93';
}
function element(tag, className, text) {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text !== undefined) made.textContent = text;
  return made;
}
// Only http, https and mailto become links: a javascript: or data: URL from a remote stays text.
function link(url) {
  let parsed = null;
  try { parsed = new URL(url); } catch (error) { parsed = null; }
  if (parsed && ['http:', 'https:', 'mailto:'].includes(parsed.protocol)) {
    const a = element('a', 'link', url);
    a.href = parsed.href; a.target = '_blank'; a.rel = 'noopener noreferrer';
    a.addEventListener('click', (event) => { if (suppressClick) event.preventDefault(); });
    return a;
  }
  const span = element('span', 'link unsafe-link', url);
  span.title = 'Not a web link: not opened';
  return span;
}
function describe(card) {
  return card.title + (card.platformName ? ', ' + card.platformName : '');
}
function stackCards() { return hooks.stack ? hooks.stack(deck, kept) : deck.cards.filter((c) => !kept.has(c.id)); }
function render() {
  $('deck-name').textContent = deck.name || 'Cards';
  document.title = (deck.name || 'Cards') + ' — cards serve';
  $('undo').disabled = undoable.length === 0;
  renderStack();
  renderRows();
  each('rendered', deck);
}
function renderStack() {
  const list = $('stack');
  list.replaceChildren();
  const cards = stackCards();
  const total = deck.cards.length;
  $('position').textContent = total === 0 ? 'No cards' : cards.length === 0 ? 'end/' + total : (total - cards.length + 1) + '/' + total;
  $('delete-top').disabled = $('keep-top').disabled = cards.length === 0;
  if (cards.length === 0) { list.append(element('li', 'empty', total === 0 ? 'No cards in this deck' : 'No more cards (u undoes)')); return; }
  cards.slice(0, 3).reverse().forEach((card, index, shown) => {
    const depth = shown.length - 1 - index;
    const li = element('li', 'card' + (depth === 1 ? ' under' : depth === 2 ? ' under2' : ''));
    li.style.setProperty('--card-color', colour(card.color));
    li.dataset.id = card.id;
    li.setAttribute('aria-label', describe(card) + '. Card ' + (total - cards.length + 1) + ' of ' + total);
    if (depth > 0) li.setAttribute('aria-hidden', 'true');
    li.append(element('span', 'badge keep', 'Keep'), element('span', 'badge delete', 'Delete'));
    li.lastChild.setAttribute('aria-hidden', 'true'); li.firstChild.setAttribute('aria-hidden', 'true');
    li.append(element('h2', 'title', card.title), element('p', 'platform', card.platformName),
      element('p', 'icon', card.platformIcon ? 'icon: ' + card.platformIcon : ''));
    const swatch = element('div', 'swatch'); swatch.setAttribute('aria-hidden', 'true');
    li.append(swatch, link(card.indexURL));
    each('decorate', li, card, 'stack', depth === 0);
    if (depth === 0) attach(li, card, 'stack', li);
    list.append(li);
  });
}
function renderRows() {
  const list = $('rows');
  list.replaceChildren();
  if (deck.cards.length === 0) { list.append(element('li', 'empty-row', 'No cards in this deck')); return; }
  (hooks.rows ? hooks.rows(deck) : deck.cards).forEach((card, index) => {
    const li = element('li', 'row');
    li.dataset.id = card.id;
    li.setAttribute('aria-label', describe(card) + ', ' + (index + 1) + ' of ' + deck.cards.length);
    const behind = element('div', 'behind', 'Delete'); behind.setAttribute('aria-hidden', 'true');
    const content = element('div', 'content');
    content.tabIndex = 0;
    content.style.setProperty('--card-color', colour(card.color));
    const button = element('button', 'delete-button', 'Delete');
    button.type = 'button';
    button.setAttribute('aria-label', 'Delete ' + card.title);
    button.addEventListener('click', () => programmatic(card, 'row', 'left', content));
    button.addEventListener('pointerdown', (event) => event.stopPropagation());
    content.append(element('span', 'title', card.title), element('span', 'platform', card.platformName),
      element('span', 'icon', card.platformIcon ? 'icon: ' + card.platformIcon : ''), link(card.indexURL), button);
    each('decorate', content, card, 'row', true);
    attach(content, card, 'row', li);
    li.append(behind, content);
    list.append(li);
  });
}

// ---- Dragging: Pointer Events (mouse, touch, pen), coalesced events, the events' own times. ----
let suppressClick = false;
let drawScheduled = false;
let undrawnSince = null;
function attach(target, card, presetName, holder) {
  target.addEventListener('pointerdown', (event) => {
    if (drag || busy || event.button !== 0) return;
    const preset = deck.presets[presetName];
    const rect = target.getBoundingClientRect();
    const grab = [event.clientX - rect.left, event.clientY - rect.top];
    drag = { card, presetName, target, holder, pointer: event.pointerId, x0: event.clientX, y0: event.clientY,
      width: target.offsetWidth, height: target.offsetHeight, grab, samples: [],
      mirror: new Mirror(preset, target.offsetWidth, target.offsetHeight, grab), keyboard: false };
    try { target.setPointerCapture(event.pointerId); } catch (error) { /* a pointer already gone */ }
    target.style.transition = 'none';
    sample(event);
    suppressClick = false;
  });
  target.addEventListener('pointermove', (event) => {
    if (!drag || drag.pointer !== event.pointerId || drag.keyboard) return;
    const list = event.getCoalescedEvents ? event.getCoalescedEvents() : [];
    for (const one of (list.length ? list : [event])) sample(one);
    if (undrawnSince === null) undrawnSince = event.timeStamp;
    schedule();
  });
  target.addEventListener('pointerup', (event) => {
    if (!drag || drag.pointer !== event.pointerId || drag.keyboard) return;
    sample(event);
    release(event.timeStamp, null);
  });
  target.addEventListener('pointercancel', (event) => {
    if (!drag || drag.pointer !== event.pointerId || drag.keyboard) return;
    release(event.timeStamp, event.timeStamp / 1000);
  });
  target.addEventListener('keydown', (event) => keyboard(event, card, presetName, target, holder));
}
function sample(event) {
  const t = event.timeStamp / 1000;
  const x = event.clientX - drag.x0, y = event.clientY - drag.y0;
  const last = drag.samples[drag.samples.length - 1];
  if (last && last[0] === t) drag.samples.pop();
  drag.samples.push([t, x, y]);
  drag.mirror.accept(t, x, y);
  if (Math.hypot(x, y) > 5) suppressClick = true;
}
function schedule() {
  if (drawScheduled) return;
  drawScheduled = true;
  requestAnimationFrame(() => {
    drawScheduled = false;
    if (!drag) return;
    draw(drag.target, drag.holder, drag.mirror, drag.presetName);
    if (undrawnSince !== null) {
      // From the pointer event to the frame that shows it, on the events' clock.
      stats.frames.push(performance.now() - undrawnSince);
      if (stats.frames.length > 5000) stats.frames.shift();
      undrawnSince = null;
    }
  });
}
function draw(target, holder, mirror, presetName) {
  target.style.transformOrigin = mirror.anchor;
  target.style.transform = 'translate(' + mirror.x + 'px,' + mirror.y + 'px) rotate(' + mirror.rotation + 'deg)';
  const armed = mirror.armed;
  if (presetName === 'row') {
    holder.classList.toggle('armed', armed === 'left');
    holder.dataset.armed = armed || '';
  } else {
    target.classList.toggle('armed-left', armed === 'left');
    target.classList.toggle('armed-right', armed === 'right');
    target.dataset.armed = armed || '';
    const badge = target.querySelector(mirror.x < 0 ? '.badge.delete' : '.badge.keep');
    target.querySelectorAll('.badge').forEach((b) => { b.style.opacity = ''; });
    if (badge && !armed) badge.style.opacity = String(mirror.progress * 0.6);
  }
}
async function release(eventTime, cancelTime) {
  const current = drag;
  drag = null;
  if (!current) return;
  const pageArmed = current.mirror.armed !== null;
  const body = { id: current.card.id, preset: current.presetName, width: current.width, height: current.height,
    grab: current.grab, samples: current.samples, cancel: cancelTime };
  busy++;
  let result = null;
  try {
    result = await post('api/swipe', body);
  } catch (error) {
    say('The swipe failed: ' + error.message);
  }
  const answered = performance.now();
  busy--;
  lastRelease = { pageArmed, pageDirection: current.mirror.armed, engine: result, samples: current.samples.length,
    preset: current.presetName, releaseToAnswer: answered - eventTime,
    trace: current.samples.slice(-12).map(([t, x, y]) => [Math.round((t - current.samples[0][0]) * 1e4) / 10, x, y]) };
  if (result) stats.releases.push({ releaseToAnswer: answered - eventTime, commitSeconds: result.commitSeconds });
  finish(current, result);
}
function finish(current, result) {
  const { target, holder, card, presetName } = current;
  const preset = deck.presets[presetName];
  if (result && result.decision === 'commit') {
    const direction = result.direction;
    const exit = exitFor(preset, direction, current, result);
    busy++;
    animate(target, exit.x, exit.y, exit.rotation, exit.duration, () => {
      busy--;
      if (direction === 'left') {
        if (result.deleted) {
          undoable.push({ id: card.id, action: 'delete', title: card.title });
          deck.cards = deck.cards.filter((c) => c.id !== card.id);
          say('Deleted ' + card.title + ' (' + result.reason + '). u undoes.');
        } else if (result.gone) {
          say(card.title + ' was already deleted elsewhere.');
        }
      } else {
        kept.add(card.id);
        undoable.push({ id: card.id, action: 'keep', title: card.title });
        say('Kept ' + card.title + '.');
      }
      each('swiped', card, result);
      settled();
    });
  } else {
    const seconds = preset.settleDuration;
    busy++;
    animate(target, 0, 0, 0, seconds, () => {
      busy--;
      if (holder) holder.classList.remove('armed');
      target.classList.remove('armed-left', 'armed-right');
      target.dataset.armed = '';
      if (result) say(card.title + ': ' + result.decision + (result.reason ? ' (' + result.reason + ')' : ''));
      settled();
    });
  }
}
// Where a committed card flies (the engine's exit hint, from the preset and the release's speed).
function exitFor(preset, direction, current, result) {
  const sign = direction === 'right' ? 1 : -1;
  const e = preset.exit;
  const at = result.offset || [0, 0];
  let x = 0, y = 0, duration = 0;
  if (e.kind === 'fixed') { x = sign * e.x; y = e.y; duration = e.duration; }
  else if (e.kind === 'inPlace') { x = 0; y = 0; duration = e.duration; }
  else {
    x = sign * e.widthMultiple * current.width; y = at[1];
    const speed = (result.velocity ? result.velocity[0] : 0) * sign;
    const remaining = Math.abs(x - at[0]);
    duration = speed > 0 ? Math.min(Math.max(remaining / speed, e.minimumDuration), e.maximumDuration) : e.maximumDuration;
  }
  const rotation = rotationFor(preset, x, current.width, current.mirror.lower)[0];
  return { x, y, rotation, duration };
}
function animate(target, x, y, rotation, seconds, done) {
  target.style.transition = 'transform ' + seconds + 's ease-out';
  target.style.transform = 'translate(' + x + 'px,' + y + 'px) rotate(' + rotation + 'deg)';
  setTimeout(done, seconds * 1000 + 20);
}
function settled() {
  if (busy === 0 && !drag && reloadPending) { reloadPending = false; load(); return; }
  render();
  restoreFocus();
}
function restoreFocus() {
  if (view === 'stack' && document.activeElement === document.body) $('stack').focus();
}

// ---- Buttons and keys: the same engine, without a gesture. ----
async function programmatic(card, presetName, direction, target) {
  if (drag || busy) return;
  busy++;
  let result = null;
  try { result = await post('api/swipe', { id: card.id, preset: presetName, direction }); }
  catch (error) { say('The swipe failed: ' + error.message); }
  busy--;
  const holder = target.closest('.row');
  finish({ target, holder, card, presetName, width: target.offsetWidth, mirror: { lower: false } }, result);
}
function topTarget() { return $('stack').querySelector('.card:not(.under):not(.under2)'); }
function keyboard(event, card, presetName, target, holder) {
  if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight' && event.key !== 'Enter' && event.key !== 'Escape') return;
  event.preventDefault();
  event.stopPropagation();
  keyDrag(event, card, presetName, target, holder);
}
function keyDrag(event, card, presetName, target, holder) {
  const t = event.timeStamp / 1000;
  if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') {
    if (busy) return;
    if (!drag) {
      const preset = deck.presets[presetName];
      drag = { card, presetName, target, holder, pointer: null, width: target.offsetWidth, height: target.offsetHeight,
        grab: null, samples: [[t, 0, 0]], mirror: new Mirror(preset, target.offsetWidth, target.offsetHeight, null),
        keyboard: true, x: 0 };
      drag.mirror.accept(t, 0, 0);
      target.style.transition = 'none';
    }
    if (!drag.keyboard) return;
    drag.x += (event.key === 'ArrowLeft' ? -1 : 1) * (event.repeat ? 45 : 30);
    drag.samples.push([t, drag.x, 0]);
    drag.mirror.accept(t, drag.x, 0);
    draw(drag.target, drag.holder, drag.mirror, drag.presetName);
  } else if (drag && drag.keyboard && event.key === 'Enter') {
    drag.samples.push([t, drag.x, 0]);
    release(event.timeStamp, null);
  } else if (drag && drag.keyboard && event.key === 'Escape') {
    release(event.timeStamp, t);
  }
}
$('stack').addEventListener('keydown', (event) => {
  const target = topTarget();
  if (!target || event.target !== $('stack')) return;
  const card = stackCards()[0];
  if (card) keyboard(event, card, 'stack', target, null);
});
document.addEventListener('keydown', (event) => {
  // Not while typing (the filter, the card form).
  if (event.target.closest && event.target.closest('input, textarea, select, dialog')) return;
  if (event.key === 'u' && !event.ctrlKey && !event.metaKey && !event.altKey) undo();
});
$('delete-top').addEventListener('click', () => { const c = stackCards()[0]; if (c) programmatic(c, 'stack', 'left', topTarget()); });
$('keep-top').addEventListener('click', () => { const c = stackCards()[0]; if (c) programmatic(c, 'stack', 'right', topTarget()); });
$('undo').addEventListener('click', undo);
function show(which) {
  view = which;
  $('stack-view').hidden = which !== 'stack';
  $('list-view').hidden = which !== 'list';
  $('show-stack').setAttribute('aria-pressed', String(which === 'stack'));
  $('show-list').setAttribute('aria-pressed', String(which === 'list'));
}
$('show-stack').addEventListener('click', () => show('stack'));
$('show-list').addEventListener('click', () => show('list'));

// Undo takes back this page's last swipe: a delete is restored (the card returns to its place, from
// the left), a keep puts the card back on top (from the right).
async function undo() {
  if (drag || busy) return;
  if (hooks.undo) { busy++; try { await hooks.undo(); } finally { busy--; } return; }
  const last = undoable.pop();
  if (!last) { say('Nothing to undo.'); return; }
  if (last.action === 'delete') {
    busy++;
    try { await post('api/restore', { id: last.id }); say('Restored ' + last.title + '.'); }
    catch (error) { say('Undo failed: ' + error.message); }
    busy--;
    await load();
  } else {
    kept.delete(last.id);
    say('Back: ' + last.title + '.');
    render();
  }
  const from = last.action === 'delete' ? -1 : 1;
  const target = view === 'stack' ? topTarget() : document.querySelector('.row[data-id="' + CSS.escape(last.id) + '"] .content');
  if (target && (view !== 'stack' || target.dataset.id === last.id)) {
    target.style.transition = 'none';
    target.style.transform = 'translate(' + (from * 2 * target.offsetWidth) + 'px,0)';
    requestAnimationFrame(() => requestAnimationFrame(() => animate(target, 0, 0, 0, 0.25, () => {})));
  }
}

// ---- Live: the server says when main moved (another command, a sync). ----
function deckMoved() { if (drag || busy) reloadPending = true; else load(); }
if (hooks.live) hooks.live(deckMoved); else new EventSource('events' + query).addEventListener('deck', deckMoved);
window.cardsPage = {
  load, render, say,
  stats, lastRelease: () => lastRelease, cards: () => deck.cards.map((c) => c.id),
  busy: () => busy > 0 || drag !== null,
  // What the page makes of a URL: 'a' (a link) or 'span' (text). The store refuses other schemes,
  // but the page must not trust a remote's files to have been checked.
  linkKind: (url) => link(url).tagName.toLowerCase(),
  // The page's geometry on a scripted drag: `steps` are [kind, t, x, y] with kind down, move or up.
  mirror(presetName, width, height, grab, steps) {
    const m = new Mirror(deck.presets[presetName], width, height, grab);
    for (const [, t, x, y] of steps) m.accept(t, x, y);
    return { armed: m.armed !== null, direction: m.armed, phase: m.phase, x: m.x, y: m.y,
      rotation: m.rotation, progress: m.progress };
  },
};
load().then(() => { window.cardsPage.ready = true; $('stack').focus(); });
})();
