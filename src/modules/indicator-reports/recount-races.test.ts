import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { answers, submitUrl, type FormJson } from '../../../test/helpers/forms.js';
import { call, type Call } from '../../../test/helpers/http.js';
import {
  countingForm,
  historyOf,
  recountUrl,
  type HistoryEntryJson,
} from '../../../test/helpers/report-history.js';
import { reportScene, type Scene } from '../../../test/helpers/report-scenes.js';
import { formSubmissions } from '../forms/forms.tables.js';
import { indicatorReports } from './indicator-reports.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();
const { scene, newReport, patch, reportsOf, stored } = reportScene(() => ({ t, team }));

const SUBMISSIONS = 30;
const EDITS = [1000, 2000, 3000, 4000, 5000];
const RECOUNTS = 5;

/**
 * Replays a report's history from nothing: `counted` adds to the counted part, `edited` (and `created`,
 * `prefilled`) set the value by hand, `recounted` moves the counted part; each change must start where
 * the one before ended. The value, the counted part, and the manual part the last hand-set value left.
 */
function replay(entries: HistoryEntryJson[]) {
  let value: number | null = null;
  let counted = 0;
  let manual = 0;
  for (const entry of entries) {
    const change = entry.changes.value;
    if (!change) continue;
    expect(change.from, `entry ${entry.id} (${entry.kind}) starts where the one before ended`).toBe(value);
    const to = change.to ?? 0;
    if (entry.kind === 'counted' || entry.kind === 'recounted') counted += to - (change.from ?? 0);
    else manual = to - counted;
    value = change.to;
  }
  return { value, counted, manual };
}

/** The counted part just before `entry`, from the entries that changed it. */
const countedBefore = (entries: HistoryEntryJson[], entry: HistoryEntryJson) =>
  replay(entries.slice(0, entries.indexOf(entry))).counted;

const submission = (form: FormJson, amount: number) => () =>
  call(t.app, 'POST', submitUrl(form.publicToken), {
    body: { answers: answers({ household_size: amount }) },
  });
const recount = (s: Scene, id: string) => () => call(t.app, 'POST', recountUrl(s, id), { as: team.admin });

describe('the counted part under concurrent submissions, edits and recounts', () => {
  it('ends with value = manual part + sum of the linked amounts, as the history replays it', async () => {
    const s = await scene();
    const form = await countingForm(t.app, team.officer, s);
    const report = await newReport(s, { value: 50 });
    const amounts = Array.from({ length: SUBMISSIONS }, (_, i) => i + 1);

    // Interleaved: a submission, and after every sixth an edit, then a recount. The 40 requests take about
    // 1.2 s on PGlite and on PostgreSQL (2 shared cores).
    const work: (() => Promise<Call>)[] = [];
    amounts.forEach((amount, i) => {
      work.push(submission(form, amount));
      if (i % 6 === 2) work.push(() => patch(report.id, { value: EDITS[(i - 2) / 6]! }));
      if (i % 6 === 5) work.push(recount(s, report.id));
    });
    expect(work).toHaveLength(SUBMISSIONS + EDITS.length + RECOUNTS);
    const results = await Promise.all(work.map((run) => run()));
    for (const res of results) expect([201, 200], JSON.stringify(res.body)).toContain(res.status);
    expect(results.filter((res) => res.status === 201)).toHaveLength(SUBMISSIONS);

    const row = (await stored(report.id))!;
    const linked = await t.database.db
      .select()
      .from(formSubmissions)
      .where(eq(formSubmissions.formId, form.id));
    expect(linked).toHaveLength(SUBMISSIONS);
    expect(linked.every((sub) => sub.counted && sub.indicatorReportId === report.id)).toBe(true);
    const sum = (values: number[]) => values.reduce((total, v) => total + v, 0);
    const linkedAmount = sum(linked.map((sub) => sub.countedAmount!));
    const answered = sum(
      linked.filter((sub) => sub.counted).map((sub) => sub.answers.household_size as number),
    );
    expect([row.countedValue, linkedAmount, answered]).toEqual([sum(amounts), sum(amounts), sum(amounts)]);
    expect(row.countedSubmissions).toBe(SUBMISSIONS);

    const entries = await historyOf(t.app, team.admin, s, report.id);
    // In the order written: numbered so, and timed so.
    for (let i = 1; i < entries.length; i++) {
      expect(entries[i]!.id).toBeGreaterThan(entries[i - 1]!.id);
      expect(entries[i]!.at >= entries[i - 1]!.at, `${entries[i - 1]!.at} then ${entries[i]!.at}`).toBe(true);
    }
    const kinds = entries.map((e) => e.kind);
    expect(kinds.filter((k) => k === 'counted')).toHaveLength(SUBMISSIONS);
    expect(kinds.filter((k) => k === 'edited')).toHaveLength(EDITS.length);
    expect(kinds.filter((k) => k === 'recounted')).toHaveLength(RECOUNTS);
    // Nothing drifted, so no recount moved the value.
    expect(entries.filter((e) => e.kind === 'recounted').map((e) => e.changes)).toEqual(
      Array.from({ length: RECOUNTS }, () => ({})),
    );
    // Each counted entry names a linked submission and adds its amount.
    const amountOf = new Map(linked.map((sub) => [sub.id, sub.countedAmount]));
    for (const e of entries.filter((entry) => entry.kind === 'counted')) {
      expect(e.changes.value!.to! - (e.changes.value!.from ?? 0)).toBe(amountOf.get(e.submissionId!));
      amountOf.delete(e.submissionId!);
    }
    expect(amountOf.size).toBe(0);

    const replayed = replay(entries);
    expect(replayed.value).toBe(row.value);
    expect(replayed.counted).toBe(row.countedValue);
    expect(row.value! - row.countedValue).toBe(replayed.manual);
    // The manual part is the last edit's value less what was counted when it was made.
    const lastEdit = entries.filter((e) => e.kind === 'edited').at(-1)!;
    expect(replayed.manual).toBe(lastEdit.changes.value!.to! - countedBefore(entries, lastEdit));
  });

  it('corrects a drift of the counted part exactly once, whichever recount comes first', async () => {
    const s = await scene();
    const form = await countingForm(t.app, team.officer, s);
    await submission(form, 5)();
    const [report] = await reportsOf(s.project.id);
    expect((await patch(report!.id, { value: 20 })).status).toBe(200); // 15 typed in, 5 counted
    // The counted part went astray (1 held, 5 linked): a recount moves the value by 4, once.
    await t.database.db
      .update(indicatorReports)
      .set({ countedValue: 1 })
      .where(eq(indicatorReports.id, report!.id));
    const amounts = Array.from({ length: 10 }, (_, i) => i + 1);
    const work = amounts.flatMap((amount, i) => [
      submission(form, amount),
      ...(i % 2 === 0 ? [recount(s, report!.id)] : []),
    ]);
    const results = await Promise.all(work.map((run) => run()));
    for (const res of results) expect([201, 200], JSON.stringify(res.body)).toContain(res.status);

    expect(await stored(report!.id)).toMatchObject({
      value: 20 + 4 + 55,
      countedValue: 60,
      countedSubmissions: 11,
    });
    const entries = await historyOf(t.app, team.admin, s, report!.id);
    const moves = entries.filter((e) => e.kind === 'recounted').map((e) => e.changes.value);
    expect(moves.filter(Boolean)).toHaveLength(1);
    expect(moves.find(Boolean)!.to! - moves.find(Boolean)!.from!).toBe(4);
    expect(replay(entries).value).toBe(79);
  });
});
