// What the respondent gave, kept in the browser (IndexedDB) so that closing the tab or losing the
// connection loses nothing: `answers` sent or waiting to be, keyed by their Idempotency-Key, and one
// `drafts` entry per form (keyed by its token) with what is being typed. Each carries `savedAt`, by
// which it is forgotten after a while (forgetBefore).
'use strict';
window.melAnswerStore = (() => {
  const NAME = 'mel-forms';

  function open() {
    return new Promise((resolve, reject) => {
      const request = window.indexedDB.open(NAME, 1);
      request.onupgradeneeded = () => {
        const db = request.result;
        db.createObjectStore('answers', { keyPath: 'key' }).createIndex('form', 'form');
        db.createObjectStore('drafts', { keyPath: 'form' });
      };
      request.onsuccess = () => {
        const db = request.result;
        // A newer version of these scripts in another tab may need to upgrade the database.
        db.onversionchange = () => db.close();
        resolve(db);
      };
      request.onerror = () => reject(request.error);
    });
  }

  /** Where IndexedDB cannot be opened (some private windows): kept for as long as the page is open. */
  function inMemory(keyPath) {
    const entries = new Map();
    const done = (result) => ({ result });
    return {
      index: () => ({ getAll: (form) => done([...entries.values()].filter((entry) => entry.form === form)) }),
      get: (key) => done(entries.get(key)),
      put: (entry) => done(entries.set(entry[keyPath], entry)),
      delete: (key) => done(entries.delete(key)),
    };
  }
  const memory = { answers: inMemory('key'), drafts: inMemory('form') };

  let database = null;
  /** Runs one request in its own transaction; resolves with its result once the transaction committed. */
  async function run(storeName, mode, work, durability = 'default') {
    database ??= open().catch(() => null);
    const db = await database;
    if (!db) return work(memory[storeName]).result;
    return new Promise((resolve, reject) => {
      const transaction = db.transaction(storeName, mode, { durability });
      const request = work(transaction.objectStore(storeName));
      transaction.oncomplete = () => resolve(request.result);
      transaction.onerror = () => reject(transaction.error);
      transaction.onabort = () => reject(transaction.error);
    });
  }

  /**
   * Deletes the answers and drafts of every form kept before `cutoff` (ms since the epoch): the device
   * may be shared, and a form whose link is gone never loads again to clear its own. A record without
   * `savedAt` (kept by an older version) is dated now instead.
   */
  async function forgetBefore(cutoff) {
    database ??= open().catch(() => null);
    const db = await database;
    // Kept in memory, it lives no longer than the page.
    if (!db) return;
    const now = Date.now();
    const stores = ['answers', 'drafts'];
    await new Promise((resolve, reject) => {
      const transaction = db.transaction(stores, 'readwrite', { durability: 'strict' });
      for (const name of stores) {
        const request = transaction.objectStore(name).openCursor();
        request.onsuccess = () => {
          const cursor = request.result;
          if (!cursor) return;
          const { savedAt } = cursor.value;
          if (typeof savedAt !== 'number') cursor.update({ ...cursor.value, savedAt: now });
          else if (savedAt < cutoff) cursor.delete();
          cursor.continue();
        };
      }
      transaction.oncomplete = () => resolve();
      transaction.onerror = () => reject(transaction.error);
      transaction.onabort = () => reject(transaction.error);
    });
  }

  return {
    answersOf: (form) => run('answers', 'readonly', (store) => store.index('form').getAll(form)),
    answer: (key) => run('answers', 'readonly', (store) => store.get(key)),
    // An answer is the respondent's only copy until the server has it: written through to disk.
    putAnswer: (answer) => run('answers', 'readwrite', (store) => store.put(answer), 'strict'),
    deleteAnswer: (key) => run('answers', 'readwrite', (store) => store.delete(key), 'strict'),
    draftOf: (form) => run('drafts', 'readonly', (store) => store.get(form)),
    putDraft: (draft) => run('drafts', 'readwrite', (store) => store.put(draft)),
    deleteDraft: (form) => run('drafts', 'readwrite', (store) => store.delete(form)),
    forgetBefore,
  };
})();
