import { createServer, type Server as HttpServer } from 'node:http';
import type pg from 'pg';

/** Marks the bench's endpoint, so a run that died before removing it has it removed by the next. */
const DESCRIPTION = 'npm run bench: local receiver';

async function api(url: string, method: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? null : ((await res.json()) as Record<string, unknown>);
}

/**
 * One webhook endpoint of the organization subscribed to `form_submission.created`, delivering to a
 * receiver in this process that answers 204 at once and counts what it got. The service must run with
 * WEBHOOK_ALLOW_PRIVATE=true (http to loopback). Its in-process worker delivers while the bench runs:
 * that work is part of what a submission costs.
 */
export class WebhookSubscription {
  private constructor(
    private readonly counter: { received: number },
    private readonly receiver: HttpServer,
    private readonly sql: pg.Pool,
    private readonly endpointUrl: string,
    private readonly headers: Record<string, string>,
    readonly endpointId: string,
    readonly orgId: string,
  ) {}

  static async start(sql: pg.Pool, serviceUrl: string, orgId: string, headers: Record<string, string>) {
    const counter = { received: 0 };
    const receiver = createServer((request, response) => {
      request.resume();
      request.once('end', () => {
        counter.received += 1;
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as { port: number };
    const endpoints = `${serviceUrl}/orgs/${orgId}/webhooks`;
    const listed = (await api(`${endpoints}?limit=100`, 'GET', headers)) as unknown as {
      data: { id: string; description: string | null }[];
    };
    for (const stale of listed.data.filter((endpoint) => endpoint.description === DESCRIPTION)) {
      await api(`${endpoints}/${stale.id}`, 'DELETE', headers);
    }
    const created = await api(endpoints, 'POST', headers, {
      url: `http://127.0.0.1:${port}/events`,
      events: ['form_submission.created'],
      description: DESCRIPTION,
    });
    return new WebhookSubscription(counter, receiver, sql, endpoints, headers, String(created!.id), orgId);
  }

  /** Deliveries the receiver got so far. */
  get received(): number {
    return this.counter.received;
  }

  /** Deliveries of the endpoint not yet made. */
  async pending(): Promise<number> {
    const { rows } = await this.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending'`,
      [this.endpointId],
    );
    return rows[0]!.n;
  }

  /**
   * Waits until the worker has delivered everything queued (or `timeoutMs` passed): the next scenario
   * must not share the machine with a backlog. Answers the seconds it took and what is left.
   */
  async drain(timeoutMs: number): Promise<{ seconds: number; left: number }> {
    const started = performance.now();
    for (;;) {
      const left = await this.pending();
      if (left === 0 || performance.now() - started > timeoutMs)
        return { seconds: (performance.now() - started) / 1000, left };
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /**
   * Holds the worker off the endpoint while the floor replays the submission's SQL (which queues a
   * delivery each time, as the service's does): one delivery that failed and waits a day for its retry.
   * The worker sends an endpoint's deliveries one at a time, so none of the others is claimed meanwhile
   * and the floor has the machine to itself. Answers how many deliveries were made while held.
   */
  async hold<T>(run: () => Promise<T>): Promise<{ result: T; deliveredMeanwhile: number }> {
    await this.sql.query(
      `WITH event AS (
         INSERT INTO webhook_events (id, org_id, type, body)
         VALUES (gen_random_uuid(), $1, 'form_submission.created', '{}') RETURNING id)
       INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, attempts, next_attempt_at)
       SELECT gen_random_uuid(), $1, $2, event.id, 1, now() + interval '1 day' FROM event`,
      [this.orgId, this.endpointId],
    );
    const before = this.received;
    try {
      const result = await run();
      return { result, deliveredMeanwhile: this.received - before };
    } finally {
      // What the floor queued, and the held delivery: nobody is waiting for them.
      await this.sql.query(`DELETE FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending'`, [
        this.endpointId,
      ]);
    }
  }

  /** Removes the endpoint (its deliveries go with it) and the events left without a delivery. */
  async close(): Promise<void> {
    await api(`${this.endpointUrl}/${this.endpointId}`, 'DELETE', this.headers);
    await this.sql.query(
      `DELETE FROM webhook_events e WHERE e.org_id = $1
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)`,
      [this.orgId],
    );
    await new Promise<void>((resolve) => this.receiver.close(() => resolve()));
  }
}
