import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { call } from '../../../test/helpers/http.js';
import { act, linkIndicator, postReport } from '../../../test/helpers/indicators.js';
import { donorReportScene, donorReportUrl, publicReportUrl } from '../../../test/helpers/reports.js';
import { useSuite } from '../../../test/helpers/suite.js';
import { indicatorReports } from '../indicator-reports/indicator-reports.tables.js';
import { reports } from './reports.tables.js';

const { t, team } = useSuite();
const scene = donorReportScene(() => ({ t, team }));
const org = () => team.org.id;

const TRAINED_RULE = 'Trained within registered';
const LATRINES_RULE = 'Latrines within households';
const OUTLIER = '12,000 is above the maximum set for this indicator (5,000)';
const JUSTIFIED = 'A new district joined';
const LATE = 'Registrations came in late';

const showNotes = async (showQualityNotes: boolean) => {
  const res = await call(t.app, 'PATCH', `/orgs/${org()}`, { as: team.admin, body: { showQualityNotes } });
  expect([res.status, res.body.showQualityNotes]).toEqual([200, showQualityNotes]);
};

async function rule(name: string, left: string, right: string) {
  const res = await call(t.app, 'POST', `/orgs/${org()}/validation-rules`, {
    as: team.officer,
    body: { name, left, operator: '<=', right, importance: 'high', instruction: 'Check the sheets' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

/**
 * A project with Q1 2026 and these values there: VISITS 12,000 above its maximum (an outlier, justified);
 * TRAINED 1,200 over REGISTERED 100 (a rule, justified), all approved; LATRINES 500 approved over
 * HOUSEHOLDS 37, a draft the report does not include (a rule whose message would quote it).
 */
async function flaggedProject() {
  const project = await scene.newProject('Clean Water');
  const q1 = await scene.quarter(project.id, 1);
  const indicator = async (name: string, body: Record<string, unknown> = {}) => {
    const created = await scene.newIndicator({ name, aggregationMethod: 'sum', ...body });
    await linkIndicator(t.app, team.officer, org(), project.id, created.id);
    return created;
  };
  const visits = await indicator('Visits', { qualityChecks: { method: 'min_max', min: 0, max: 5000 } });
  const trained = await indicator('People trained');
  const registered = await indicator('People registered');
  const latrines = await indicator('Latrines built');
  const households = await indicator('Households reached');
  await rule(TRAINED_RULE, trained.code, registered.code);
  await rule(LATRINES_RULE, latrines.code, households.code);
  const write = (indicatorId: string, value: number) =>
    postReport(t.app, team.officer, org(), project.id, { indicatorId, reportingPeriodId: q1.id, value });
  const approve = async (id: string, justification: string) => {
    await act(t.app, team.officer, org(), id, 'submit', { justification });
    await act(t.app, team.admin, org(), id, 'approve');
  };
  const values = {
    visits: await write(visits.id, 12_000),
    registered: await write(registered.id, 100),
    trained: await write(trained.id, 1200),
    households: await write(households.id, 37),
    latrines: await write(latrines.id, 500),
  };
  await approve(values.visits.id, JUSTIFIED);
  await approve(values.registered.id, LATE);
  await approve(values.trained.id, LATE);
  await approve(values.latrines.id, 'Counted twice by mistake? No: verified');
  const report = await scene.reportOf(project.id);
  const { shareToken } = await scene.share(report.id);
  const codes = { visits, trained, registered, latrines, households };
  return { project, q1, codes, values, report, token: shareToken };
}

type Scene = Awaited<ReturnType<typeof flaggedProject>>;
type Entry = { code: string; qualityNotes?: Record<string, unknown>[] };

const publicJson = async (token: string) => {
  const res = await call(t.app, 'GET', publicReportUrl(token));
  expect(res.status).toBe(200);
  return res.body as { sections: { indicators: Entry[] } };
};
const page = async (token: string, lang = 'en') => {
  const res = await call(t.app, 'GET', `/r/${token}?lang=${lang}`);
  expect(res.status).toBe(200);
  return res.body as string;
};
const notesOf = (report: { sections: { indicators: Entry[] } }, code: string) =>
  report.sections.indicators.find((entry) => entry.code === code)?.qualityNotes;

/** An indicator's card on the page. */
const cardOf = (html: string, code: string) =>
  new RegExp(`<article class="card" data-indicator="${code}">([\\s\\S]*?)</article>`).exec(html)?.[1];
/** Its notes as read: tags dropped, spaces joined. */
const notesText = (card: string) =>
  [...card.matchAll(/<li data-quality-note[^>]*>([\s\S]*?)<\/li>/g)].map((m) =>
    m[1]!
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&')
      .trim(),
  );

/** The words of the flags that must never reach a donor while the setting is off. */
const TRACES = [
  'qualityNotes',
  'flags',
  'data-quality',
  'quality-note',
  OUTLIER,
  TRAINED_RULE,
  LATRINES_RULE,
  JUSTIFIED,
  LATE,
  'Check the sheets',
];

function expectNothingOfFlags(text: string) {
  for (const trace of TRACES) expect(text, trace).not.toContain(trace);
}

const trainedMessage = (s: Scene) =>
  `${TRAINED_RULE}: ${s.codes.trained.code} (1,200) must be <= ${s.codes.registered.code} (100)`;

describe("a shared report's data-quality notes", () => {
  it('show nothing of the flags while the organization has not chosen to, in the JSON and on the page', async () => {
    const s = await flaggedProject();
    await showNotes(false);
    const json = await call(t.app, 'GET', publicReportUrl(s.token));
    expect(json.status).toBe(200);
    expect(json.body.sections.indicators).toHaveLength(5);
    expectNothingOfFlags(JSON.stringify(json.body));
    expectNothingOfFlags(await page(s.token));
  });

  it('show, once turned on, each flag of an included value with its message and justification; off again, they go at once', async () => {
    const s = await flaggedProject();
    await showNotes(true);
    const on = await publicJson(s.token);
    const note = { periodId: s.q1.id, period: 'Q1 2026' };
    expect(notesOf(on, s.codes.visits.code)).toEqual([
      { ...note, kind: 'outlier', importance: 'medium', message: OUTLIER, justification: JUSTIFIED },
    ]);
    const ruled = {
      ...note,
      kind: 'rule',
      importance: 'high',
      message: trainedMessage(s),
      justification: LATE,
    };
    expect(notesOf(on, s.codes.trained.code)).toEqual([ruled]);
    expect(notesOf(on, s.codes.registered.code)).toEqual([ruled]);
    // HOUSEHOLDS is a draft: the report shows neither its value nor its flag, nor a message quoting it.
    expect(notesOf(on, s.codes.latrines.code)).toEqual([
      {
        ...note,
        kind: 'rule',
        importance: 'high',
        message: null,
        justification: 'Counted twice by mistake? No: verified',
      },
    ]);
    expect(notesOf(on, s.codes.households.code)).toBeUndefined();
    expect(JSON.stringify(on)).not.toContain('(37)');
    expect(JSON.stringify(on)).not.toContain('Check the sheets');

    const html = await page(s.token);
    const visits = cardOf(html, s.codes.visits.code)!;
    expect(notesText(visits)).toEqual([
      `Note (Q1 2026 · unusual value): ${OUTLIER} — Justification: ${JUSTIFIED}`,
    ]);
    // Under the value it speaks of, before the progress bar.
    const at = (mark: string) => visits.indexOf(mark);
    expect(at('data-value')).toBeGreaterThan(-1);
    expect(at('data-quality-notes')).toBeGreaterThan(at('data-value'));
    expect(at('class="meter"')).toBeGreaterThan(at('data-quality-notes'));
    expect(notesText(cardOf(html, s.codes.trained.code)!)).toEqual([
      `Note (Q1 2026 · validation rule, high importance): ${trainedMessage(s)} — Justification: ${LATE}`,
    ]);
    expect(notesText(cardOf(html, s.codes.latrines.code)!)).toEqual([
      'Note (Q1 2026 · validation rule, high importance): a data-quality check flagged this value; its ' +
        'details quote figures this report does not show — Justification: Counted twice by mistake? No: verified',
    ]);
    expect(cardOf(html, s.codes.households.code)).not.toContain('data-quality-note');
    expect(html).not.toContain('(37)');
    // The importance is said in words, never as a number.
    expect(html).not.toMatch(/importance[^<]*\d/);

    await showNotes(false);
    const off = await call(t.app, 'GET', publicReportUrl(s.token));
    expect(off.status).toBe(200);
    expectNothingOfFlags(JSON.stringify(off.body));
    expectNothingOfFlags(await page(s.token));
  });

  it('are in the page’s language around the check’s own message', async () => {
    const s = await flaggedProject();
    await showNotes(true);
    const html = await page(s.token, 'fr');
    expect(notesText(cardOf(html, s.codes.visits.code)!)).toEqual([
      `Note (Q1 2026 · valeur inhabituelle) : ${OUTLIER} — Justification : ${JUSTIFIED}`,
    ]);
  });

  it('are read by members whatever the setting', async () => {
    const s = await flaggedProject();
    await showNotes(false);
    expect(notesOf(await publicJson(s.token), s.codes.visits.code)).toBeUndefined();
    const read = await scene.read(s.report.id);
    expect(notesOf(read as never, s.codes.visits.code)).toEqual([
      expect.objectContaining({ kind: 'outlier', message: OUTLIER, justification: JUSTIFIED }),
    ]);
  });

  it('withhold the messages quoting a value whose personal amounts are gone, once the report is refreshed', async () => {
    const s = await flaggedProject();
    await showNotes(true);
    await t.database.db
      .update(indicatorReports)
      .set({ personalAmountsGone: true })
      .where(and(eq(indicatorReports.orgId, org()), eq(indicatorReports.id, s.values.registered.id)));
    // The snapshot keeps what it was assembled with until it is refreshed.
    expect(notesOf(await publicJson(s.token), s.codes.trained.code)![0]!.message).toBe(trainedMessage(s));
    const refreshed = await call(t.app, 'POST', donorReportUrl(org(), s.report.id, 'refresh'), {
      as: team.officer,
    });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    const json = await publicJson(s.token);
    for (const code of [s.codes.trained.code, s.codes.registered.code]) {
      expect(notesOf(json, code)).toEqual([
        expect.objectContaining({ kind: 'rule', message: null, justification: LATE }),
      ]);
    }
    expect(notesOf(json, s.codes.visits.code)![0]!.message).toBe(OUTLIER);
    const html = await page(s.token);
    expect(html).not.toContain('(1,200)');
  });

  it('are absent from a report assembled before they existed, until it is refreshed', async () => {
    const s = await flaggedProject();
    await showNotes(true);
    const [row] = await t.database.db.select().from(reports).where(eq(reports.id, s.report.id));
    const indicators = row!.content.indicators.map(({ qualityNotes: _notes, ...entry }) => entry);
    await t.database.db
      .update(reports)
      .set({ content: { ...row!.content, indicators } })
      .where(eq(reports.id, s.report.id));
    const old = await call(t.app, 'GET', publicReportUrl(s.token));
    expect(old.status).toBe(200);
    expectNothingOfFlags(JSON.stringify(old.body));
    expectNothingOfFlags(await page(s.token));
    const refreshed = await call(t.app, 'POST', donorReportUrl(org(), s.report.id, 'refresh'), {
      as: team.officer,
    });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(notesOf(await publicJson(s.token), s.codes.visits.code)).toEqual([
      expect.objectContaining({ message: OUTLIER, justification: JUSTIFIED }),
    ]);
  });
});
