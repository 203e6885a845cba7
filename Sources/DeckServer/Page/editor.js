'use strict';
// Adding and editing a card (the server calls the same store operations as `cards add` / `cards edit`:
// the same checks, the same commit; a field it refuses is marked here), and the filter over title,
// platform and link, which narrows the stack and the list on this page only.
(() => {
const hooks = window.cardsHooks;
const $ = (id) => document.getElementById(id);
const page = () => window.cardsPage;
const fields = ['title', 'indexURL', 'platformName', 'platformIcon', 'color'];
let editing = null;

// ---- Filter. ----
function words() { return $('filter').value.trim().toLowerCase().split(/\s+/).filter(Boolean); }
hooks.matches.push((card) => {
  const wanted = words();
  if (wanted.length === 0) return true;
  const text = [card.title, card.platformName, card.indexURL].join(' ').toLowerCase();
  return wanted.every((word) => text.includes(word));
});
$('filter').addEventListener('input', () => {
  page().render();
  const shown = hooks.rows(window.cardsState.current() || { cards: [] }).length;
  $('filter-count').textContent = words().length ? shown + ' match' + (shown === 1 ? '' : 'es') : '';
});

// ---- The form: one dialog for adding and editing. ----
function clearErrors() {
  for (const name of fields) {
    $('field-' + name).removeAttribute('aria-invalid');
    $('error-' + name).textContent = '';
  }
  $('editor-error').textContent = '';
}
function open(card) {
  editing = card;
  clearErrors();
  $('editor-title').textContent = card ? 'Edit ' + card.title : 'Add a card';
  $('editor-save').textContent = card ? 'Save' : 'Add';
  for (const name of fields) $('field-' + name).value = card ? (card[name] || '') : (name === 'color' ? 'blue' : '');
  $('card-editor').showModal();
  $('field-title').focus();
}
hooks.openEditor = open;
$('add-card').addEventListener('click', () => open(null));
$('editor-cancel').addEventListener('click', () => $('card-editor').close());
$('card-editor').addEventListener('submit', async (event) => {
  event.preventDefault();
  clearErrors();
  const body = {};
  for (const name of fields) {
    const value = $('field-' + name).value;
    // An edit sends only what changed, as `cards edit --title …` names only what it changes.
    if (!editing || value !== (editing[name] || '')) body[name] = value;
  }
  if (editing && Object.keys(body).length === 0) { $('card-editor').close(); page().say('Nothing changed.'); return; }
  $('editor-save').disabled = true;
  try {
    if (editing) {
      body.id = editing.id;
      const done = await hooks.call('api/edit', body);
      page().say(done.changed ? 'Saved ' + done.card.title + '.' : 'Nothing changed.');
    } else {
      const done = await hooks.call('api/cards', body);
      page().say('Added ' + done.added.title + ' at the end of the deck.');
    }
    $('card-editor').close();
    await page().load();
  } catch (error) {
    if (error.field && fields.includes(error.field)) {
      const input = $('field-' + error.field);
      input.setAttribute('aria-invalid', 'true');
      // The store says "the new card: indexURL: <rule>"; beside the field, the rule is enough.
      const named = error.field + ': ';
      const at = error.message.indexOf(named);
      $('error-' + error.field).textContent = at >= 0 ? error.message.slice(at + named.length) : error.message;
      input.focus();
    } else {
      $('editor-error').textContent = error.message;
    }
  } finally {
    $('editor-save').disabled = false;
  }
});

// ---- An Edit button on the top card and on every row. ----
hooks.decorate.push((element, card, where, isTop) => {
  if (where === 'stack' && !isTop) return;
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'edit-button';
  button.textContent = 'Edit';
  button.setAttribute('aria-label', 'Edit ' + card.title);
  // Not the start of a drag: the button is pressed, the card stays.
  button.addEventListener('pointerdown', (event) => event.stopPropagation());
  // Enter and Space press the button, not the card's keyboard drag.
  button.addEventListener('keydown', (event) => event.stopPropagation());
  button.addEventListener('click', (event) => { event.stopPropagation(); open(card); });
  element.append(button);
});
})();
