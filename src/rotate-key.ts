import { loadConfigOrExit } from './config.js';
import { bulkLimits, openDatabase } from './db/client.js';
import { participantsNotSealed, sealParticipants } from './modules/activities/index.js';
import {
  recordAudit,
  serviceSource,
  checkSealingKey,
  recordSealingKey,
  SealingKeyMismatch,
} from './modules/privacy/index.js';
import { resealWebhookSecrets } from './modules/webhooks/index.js';
import { waitForDatabaseOrExit } from './startup.js';

/**
 * `npm run pii:rotate-key`: seals every phone and national id (and webhook signing secret) again under PII_KEY, opening them with
 * PII_KEY_PREVIOUS, and recomputes the national ids' blind indexes. While it runs, the service runs with
 * the same two keys: it reads both, seals under the new one, and de-duplicates on both indexes. In
 * batches of 500, each its own transaction; stopped, it is resumed by running it again. When it ends,
 * the new key is recorded as the one everything is sealed under, and PII_KEY_PREVIOUS can go.
 */
const config = loadConfigOrExit();
if (!config.piiKeyring.previous) {
  console.error('pii:rotate-key needs the new key as PII_KEY and the old one as PII_KEY_PREVIOUS');
  process.exit(2);
}
await waitForDatabaseOrExit(config);
const database = openDatabase({ ...config, databaseTimeouts: bulkLimits(config.databaseTimeouts) });
try {
  await database.migrate();
  await checkSealingKey(database.db, config.piiKeyring);
  const { previous } = config.piiKeyring;
  let total = 0;
  // A value written behind the walk (by an instance not yet given both keys) is caught by another pass.
  for (let pass = 1; pass <= 5; pass++) {
    await sealParticipants(database.db, config.piiKeyring, {
      onBatch: (sealed) => {
        total += sealed;
        if (sealed > 0) console.log(`pii:rotate-key: ${total} participants sealed under the new key`);
      },
      // Each batch records what it sealed in its own transaction: a stopped run loses no entry.
      inBatch: async (tx, perOrg) => {
        for (const [orgId, count] of perOrg) {
          await recordAudit(tx, serviceSource(orgId, 'pii:rotate-key'), {
            action: 'key_rotation',
            subjectKind: 'participant',
            subjectIds: [],
            count,
            details: { from: previous.id, to: config.piiKeyring.current.id },
          });
        }
      },
    });
    if ((await participantsNotSealed(database.db, config.piiKeyring)) === 0) break;
  }
  const left = await participantsNotSealed(database.db, config.piiKeyring);
  if (left > 0) {
    throw new SealingKeyMismatch(
      `pii:rotate-key: ${left} participants are still written under another key after 5 passes: is an ` +
        'instance running without the new PII_KEY? Restart every instance with both keys, then run again.',
    );
  }
  const secrets = await resealWebhookSecrets(database.db, config.piiKeyring);
  if (secrets > 0) console.log(`pii:rotate-key: ${secrets} webhook endpoints' signing secrets sealed again`);
  await recordSealingKey(database.db, config.piiKeyring);
  console.log(
    `pii:rotate-key: done, ${total} participants sealed under key ${config.piiKeyring.current.id}; ` +
      'PII_KEY_PREVIOUS may now be removed',
  );
} catch (err) {
  if (!(err instanceof SealingKeyMismatch)) throw err;
  console.error(err.message);
  process.exitCode = 1;
} finally {
  await database.close();
}
