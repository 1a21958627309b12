import { afterAll, beforeAll, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { registerUser } from '../helpers/factories.js';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp({ AUTH_RATE_LIMIT_MAX: '10' }); }, 60_000);
afterAll(async () => t.close());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('a flood of wrong guesses keeps the owner out', async () => {
  const user = await registerUser(t.app, { password: 'correct horse battery' });
  const login = (password: string, remoteAddress = '10.0.0.1') => t.app.inject({ method: 'POST', url: '/auth/login', remoteAddress, payload: { email: user.email, password } });
  let running = true; let attackerSent = 0;
  const codes: Record<string, number> = {};
  const attackers = Array.from({ length: 1 }, async () => {
    while (running) { attackerSent++; const r = await login("wrong guess", `10.0.1.${attackerSent % 3}`); codes[r.statusCode] = (codes[r.statusCode] ?? 0) + 1; if (r.statusCode === 429) await sleep(1000); }
  });
  await sleep(30000);
  const outcomes: string[] = [];
  const until = Date.now() + 40_000;
  while (Date.now() < until) {
    const r = await login('correct horse battery', '10.0.0.2');
    outcomes.push(String(r.statusCode) + '/' + String(r.headers['retry-after']) + '/' + r.json().code);
    if (r.statusCode === 200) break;
    const wait = Number(r.headers['retry-after'] ?? 1) * 1000;
    await sleep(wait);
  }
  running = false; await Promise.all(attackers);
  console.log('owner outcomes', outcomes.join(','), 'attacker requests', attackerSent, JSON.stringify(codes));
}, 150_000);
