// The answers of one form on this device, until the server has them. Each answer is kept
// (answer-store.js) with its own Idempotency-Key before any attempt to send it, then sent in the order
// given, again and again under the same key until the server answers: a retry of an answer the server
// stored but whose reply was lost is recognised there and counted once.
'use strict';
window.melOutbox = (() => {
  const { api, messagesOf, say } = window.melPages;
  const store = window.melAnswerStore;
  const FIRST_RETRY = 2000;
  const LAST_RETRY = 5 * 60 * 1000;
  const GONE = say('gone', {}, 'This form is no longer available: it was unpublished or its link replaced.');

  /** crypto.randomUUID needs a secure context (https); getRandomValues does not. */
  function newKey() {
    const { crypto } = window;
    if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  /**
   * What the server's answer means for a kept answer: `sent` (201, a replay included), `closed` (410,
   * or 404: the link no longer leads to the form), `waiting` (no answer, busy, or the same key still
   * being handled: 409) or `refused` (its messages say what to correct).
   */
  function fateOf(status) {
    if (status === 201) return 'sent';
    if (status === 404 || status === 410) return 'closed';
    if (status === 0 || status === 408 || status === 409 || status === 429 || status >= 500) return 'waiting';
    return 'refused';
  }

  const retryAfterOf = (result) => Number(result.headers && result.headers.get('retry-after')) || 0;

  /**
   * A connection that hangs must not hold the queue: an attempt is given up after a minute, and a
   * second more per 25 kB of files (10 MiB at a slow 2G rate), then tried again later.
   */
  function timeoutFor(answer) {
    if (typeof window.AbortSignal.timeout !== 'function') return undefined;
    const bytes = answer.files.reduce((sum, { file }) => sum + file.size, 0);
    return window.AbortSignal.timeout(60_000 + Math.ceil(bytes / 25_000) * 1000);
  }

  function bodyOf(answer) {
    if (answer.files.length === 0) return { answers: answer.answers };
    const body = new FormData();
    body.append('data', JSON.stringify({ answers: answer.answers }));
    for (const { key, file } of answer.files) body.append(key, file, file.name);
    return body;
  }

  return function outbox(form, submitUrl) {
    const listeners = [];
    const fates = new Map();
    let failures = 0;
    let retryTimer = 0;
    let closedToo = false;
    let current = Promise.resolve();
    let next = null;

    async function answers() {
      return (await store.answersOf(form)).sort((a, b) => a.savedAt - b.savedAt);
    }
    async function changed() {
      const kept = await answers();
      for (const listener of listeners) listener(kept);
    }

    /** Sends what waits (and what the form refused as closed, when asked); says whether to try again. */
    async function sendAll(includeClosed) {
      const due = (await answers()).filter(
        (answer) => answer.state === 'waiting' || (includeClosed && answer.state === 'closed'),
      );
      let retryAfter = 0;
      let stalled = false;
      for (const [index, answer] of due.entries()) {
        const result = await api('POST', submitUrl, bodyOf(answer), {
          headers: { 'idempotency-key': answer.key },
          signal: timeoutFor(answer),
        });
        const fate = fateOf(result.status);
        fates.set(answer.key, fate);
        if (fate === 'sent') await store.deleteAnswer(answer.key);
        else if (fate === 'waiting') {
          stalled = true;
          retryAfter = Math.max(retryAfter, retryAfterOf(result));
          // No connection, or too many attempts: the rest would fare no better.
          if (result.status === 0 || result.status === 429) break;
        } else if (fate === 'closed') {
          const messages = result.status === 404 ? [GONE] : messagesOf(result);
          for (const rest of due.slice(index)) {
            fates.set(rest.key, 'closed');
            await store.putAnswer({ ...rest, state: 'closed', messages });
          }
          break;
        } else await store.putAnswer({ ...answer, state: 'refused', messages: messagesOf(result) });
        await changed();
      }
      return { stalled, retryAfter };
    }

    /** Backs off (with jitter, so that a crowd reconnecting at once does not arrive at once) while it fails. */
    function scheduleRetry({ stalled, retryAfter }) {
      window.clearTimeout(retryTimer);
      if (!stalled) {
        failures = 0;
        return;
      }
      failures += 1;
      // Without a connection the `online` event sends.
      if (!navigator.onLine) return;
      const backoff = Math.min(LAST_RETRY, FIRST_RETRY * 2 ** (failures - 1)) * (0.5 + Math.random() / 2);
      retryTimer = window.setTimeout(() => void flush(), Math.max(backoff, retryAfter * 1000));
    }

    // Tabs of the same form take turns, so that one answer is never sent by two of them at once.
    const inTurn = (work) => (navigator.locks ? navigator.locks.request(`mel-outbox ${form}`, work) : work());

    /**
     * Sends what waits, after the run under way if there is one; calls while a run waits to start join
     * it. Without a connection nothing is tried unless `manual` (the Send now button: the browser may
     * be wrong about the connection); `manual` also retries the answers a closed form refused.
     */
    function flush({ manual = false } = {}) {
      closedToo ||= manual;
      if (!manual && !navigator.onLine) return next ?? current;
      next ??= current
        .then(async () => {
          next = null;
          const includeClosed = closedToo;
          closedToo = false;
          const outcome = await inTurn(() => sendAll(includeClosed)).catch(() => ({
            stalled: true,
            retryAfter: 0,
          }));
          scheduleRetry(outcome);
          await changed();
        })
        .catch(() => undefined);
      current = next;
      return next;
    }

    window.addEventListener('online', () => void flush());

    return {
      /** Keeps an answer before it is sent; `formState` is what the form showed, to put back for a correction. */
      async keep({ formState, answers, files }) {
        const key = newKey();
        await store.putAnswer({
          key,
          form,
          state: 'waiting',
          formState,
          answers,
          files,
          messages: [],
          savedAt: Date.now(),
        });
        await changed();
        return key;
      },
      flush,
      /** Sends what waits, this answer included: what became of it. */
      async send(key) {
        await flush();
        if (fates.has(key)) return fates.get(key);
        const answer = await store.answer(key);
        return answer ? answer.state : 'sent';
      },
      answer: (key) => store.answer(key),
      async discard(key) {
        await store.deleteAnswer(key);
        await changed();
      },
      refresh: changed,
      subscribe(listener) {
        listeners.push(listener);
        void changed();
      },
    };
  };
})();
