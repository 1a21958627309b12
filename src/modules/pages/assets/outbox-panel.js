// What the form page says about the answers kept on this device: how many wait (a live region), which
// were refused and why (the server's messages beside each, with a way to correct it), and which a closed
// form turned away; each of the last two can be discarded. Text goes in with textContent only.
'use strict';
window.melOutboxPanel = (() => {
  const { problemsFrom, say, locale } = window.melPages;
  const ALL_SENT = say('allSent', {}, 'All answers were sent.');
  // In the page's language (the device's own time zone).
  const when = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });

  /** A line to recognise a kept answer by: its first few short answers. */
  function glimpse(answer, labels) {
    return Object.entries(answer.answers)
      .filter(([, value]) => typeof value === 'string' || typeof value === 'number')
      .slice(0, 3)
      .map(([key, value]) => `${labels[key] ? labels[key].label : key}: ${String(value).slice(0, 60)}`)
      .join('; ');
  }

  /** The server's messages with each field's label in place of its key, as beside the form's fields. */
  const messagesOf = (answer, labels) =>
    problemsFrom(
      answer.messages.map((message) => message.replace(/^answers\./, '')),
      labels,
    ).map((problem) => problem.message);

  return function outboxPanel(root, outbox, { labels, correct }) {
    const count = root.querySelector('[data-outbox-count]');
    const keptFor = root.querySelector('[data-kept-for]');
    const actions = root.querySelector('[data-outbox-actions]');
    const sendNow = root.querySelector('[data-send-now]');
    const refusedSection = root.querySelector('[data-refused-answers]');
    const refusedList = root.querySelector('[data-refused]');
    const closedSection = root.querySelector('[data-closed-answers]');
    const closedList = root.querySelector('[data-turned-away]');
    // The keys of the answers waiting or turned away at the last render: one gone since, and not
    // discarded here, was sent.
    let pending = [];
    const discarded = new Set();

    /** An answer by when it was saved and its first answers, with a way to discard it. */
    function keptItem(answer) {
      const item = document.createElement('li');
      item.dataset.answerKey = answer.key;
      const saved = document.createElement('p');
      const time = document.createElement('strong');
      time.textContent = say('saved', { time: when.format(new Date(answer.savedAt)) });
      saved.append(time, ` — ${glimpse(answer, labels)}`);
      const discard = document.createElement('button');
      discard.type = 'button';
      discard.className = 'link';
      discard.dataset.discard = '';
      discard.textContent = say('discard');
      discard.addEventListener('click', () => {
        if (!window.confirm(say('confirmDiscard'))) return;
        discarded.add(answer.key);
        void outbox.discard(answer.key);
      });
      item.append(saved, discard);
      return item;
    }

    function refusedItem(answer) {
      const item = keptItem(answer);
      const problems = document.createElement('ul');
      problems.className = 'error';
      for (const message of messagesOf(answer, labels)) {
        const problem = document.createElement('li');
        problem.textContent = message;
        problems.append(problem);
      }
      const fix = document.createElement('button');
      fix.type = 'button';
      fix.className = 'secondary';
      fix.dataset.correct = '';
      fix.textContent = say('correct');
      fix.addEventListener('click', () => void correct(answer.key));
      item.firstChild.after(problems, fix, ' ');
      return item;
    }

    function render(kept) {
      const waiting = kept.filter((answer) => answer.state === 'waiting');
      const refused = kept.filter((answer) => answer.state === 'refused');
      const closed = kept.filter((answer) => answer.state === 'closed');
      const lines = [];
      if (waiting.length > 0) {
        lines.push(say('waiting', { count: waiting.length }));
        if (!navigator.onLine) lines.push(say('whenOnline'));
      }
      if (refused.length > 0) lines.push(say('refused', { count: refused.length }));
      if (closed.length > 0)
        lines.push(say('notSent', { count: closed.length, reason: closed[0].messages[0] }));
      const keys = new Set(kept.map((answer) => answer.key));
      const sent = pending.some((key) => !keys.has(key) && !discarded.has(key));
      // Said once the last one went, and kept until there is something new to say.
      if (lines.length === 0 && (sent || count.textContent === ALL_SENT)) lines.push(ALL_SENT);
      const text = lines.join(' ');
      // A live region speaks on every change of its text: only when there is news.
      if (count.textContent !== text) count.textContent = text;
      pending = [...waiting, ...closed].map((answer) => answer.key);
      keptFor.hidden = kept.length === 0;
      actions.hidden = pending.length === 0;
      refusedSection.hidden = refused.length === 0;
      refusedList.replaceChildren(...refused.map(refusedItem));
      closedSection.hidden = closed.length === 0;
      closedList.replaceChildren(...closed.map(keptItem));
    }

    // Not disabled while sending (it would lose the focus): a second press joins the next attempt.
    sendNow.addEventListener('click', async () => {
      sendNow.textContent = say('sending');
      await outbox.flush({ manual: true });
      sendNow.textContent = say('sendNow');
    });
    window.addEventListener('offline', () => void outbox.refresh());
    outbox.subscribe(render);
  };
})();
