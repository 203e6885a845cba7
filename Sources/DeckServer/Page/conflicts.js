'use strict';
// Cards that carry conflict records (a merge decided on its own): first in the stack, marked, with both
// sides shown. A deleted-versus-edited card is settled by the swipe itself (left deletes, right keeps the
// edited card: the server makes one `resolve` commit, which Undo takes back); a field conflict lists its
// choices, and a press on one picks it (`cards resolve ID --field F --pick N`).
(() => {
const hooks = window.cardsHooks;
const page = () => window.cardsPage;
function element(tag, className, text) {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text !== undefined) made.textContent = text;
  return made;
}
function recordsOf(card) {
  const deck = window.cardsState.current();
  return (deck && deck.conflicts && deck.conflicts[card.id]) || [];
}
hooks.conflictsOf = recordsOf;
const fieldNames = { title: 'Title', indexURL: 'Link', platformName: 'Platform', platformIcon: 'Icon', color: 'Colour' };

async function pick(card, field, choice) {
  try {
    await hooks.call('api/resolve', { id: card.id, field, pick: choice.n });
    page().say('Conflict settled: ' + (fieldNames[field] || field) + ' of ' + card.title + ' is now \u201c' + choice.text + '\u201d. Undo takes it back.');
  } catch (error) {
    page().say('Could not settle the conflict: ' + error.message);
  }
  await page().load();
}

function deletionPanel(record) {
  const panel = element('div', 'conflict-sides');
  const left = element('div', 'conflict-side deleted');
  // Which device did which is not known here (a record names the tip of each side): who and which commit.
  left.append(element('strong', '', '\u2190 Delete'), element('span', '', 'as ' + record.deletedBy + ' did'));
  const right = element('div', 'conflict-side edited');
  right.append(element('strong', '', 'Keep \u2192'), element('span', '', 'the card as ' + record.editedBy + ' edited it'));
  panel.append(left, right);
  return panel;
}

function fieldPanel(card, record, interactive) {
  const panel = element('fieldset', 'conflict-field');
  panel.append(element('legend', '', (fieldNames[record.field] || record.field) + ': two values, pick one'));
  for (const choice of record.choices) {
    const button = element('button', 'conflict-choice' + (choice.current ? ' current' : ''));
    button.type = 'button';
    button.append(element('span', 'choice-value', choice.text), element('span', 'choice-from', (choice.current ? 'kept by the merge \u00b7 ' : '') + choice.by));
    button.setAttribute('aria-label', 'Pick ' + (fieldNames[record.field] || record.field) + ' \u201c' + choice.text + '\u201d for ' + card.title);
    button.disabled = !interactive;
    // A press on a choice is not the start of a swipe. A tap picks on its release: Chromium swallows the
    // click of a tap that comes soon after a fling (as app.js opens a link), and a person taps right after
    // swiping; the click that may follow is then not a second pick. Keys and other pointers click.
    let pressed = null;
    let pickedByTap = false;
    button.addEventListener('pointerdown', (event) => {
      event.stopPropagation();
      pressed = { id: event.pointerId, x: event.clientX, y: event.clientY };
    });
    button.addEventListener('pointerup', (event) => {
      event.stopPropagation();
      const tap = pressed && pressed.id === event.pointerId
        && Math.hypot(event.clientX - pressed.x, event.clientY - pressed.y) < 10;
      pressed = null;
      if (!tap || button.disabled) return;
      pickedByTap = true;
      setTimeout(() => { pickedByTap = false; }, 800);
      pick(card, record.field, choice);
    });
    button.addEventListener('keydown', (event) => event.stopPropagation());
    button.addEventListener('click', (event) => {
      event.stopPropagation();
      if (pickedByTap) { pickedByTap = false; return; }
      pick(card, record.field, choice);
    });
    panel.append(button);
  }
  return panel;
}

hooks.decorate.push((element_, card, where, isTop) => {
  const records = recordsOf(card);
  if (records.length === 0) return;
  element_.classList.add('conflicted');
  const deletion = records.find((record) => record.field === '*');
  const mark = element('p', 'conflict-mark', deletion
    ? 'Conflict: deleted on one side, edited on the other'
    : 'Conflict: ' + records.length + ' field' + (records.length === 1 ? '' : 's') + ' changed on two devices');
  element_.prepend(mark);
  const label = element_.getAttribute('aria-label') || card.title;
  element_.setAttribute('aria-label', label + '. ' + mark.textContent + (deletion ? '. Swipe left to delete, right to keep it.' : ''));
  if (where !== 'stack') return;
  const box = element('div', 'conflict-details');
  if (deletion) box.append(deletionPanel(deletion));
  for (const record of records) if (record.field !== '*') box.append(fieldPanel(card, record, isTop));
  element_.append(box);
});
window.cardsConflicts = { recordsOf };
})();
