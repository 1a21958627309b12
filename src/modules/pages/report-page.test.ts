import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { call } from '../../../test/helpers/http.js';
import { act, linkIndicator, postDisaggregation, postReport } from '../../../test/helpers/indicators.js';
import { donorReportScene } from '../../../test/helpers/reports.js';
import { useSuite } from '../../../test/helpers/suite.js';
import { reports } from '../reports/reports.tables.js';

const { t, team } = useSuite();
const scene = donorReportScene(() => ({ t, team }));

/** The markup of one disaggregation's table on the page: its header and rows, tags and spaces dropped. */
function tableOf(page: string, name: string): string | undefined {
  const table = new RegExp(`<table class="breakdown" data-breakdown="${name}">([\\s\\S]*?)</table>`).exec(
    page,
  );
  return table?.[1]!
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

describe('the shared report page: disaggregations', () => {
  it('names each table by its disaggregation; a report assembled before the names were kept shows one table', async () => {
    const { project, q1 } = await scene.simpleProject();
    const located = await scene.newIndicator({ aggregationMethod: 'sum' });
    await postDisaggregation(t.app, team.officer, team.org.id, located.id, 'Location', ['urban', 'rural']);
    await postDisaggregation(t.app, team.officer, team.org.id, located.id, 'Water source', ['well', 'tap']);
    await linkIndicator(t.app, team.officer, team.org.id, project.id, located.id);
    const value = await postReport(t.app, team.officer, team.org.id, project.id, {
      indicatorId: located.id,
      reportingPeriodId: q1.id,
      disaggregatedValues: { urban: 30, rural: 10 },
    });
    await act(t.app, team.officer, team.org.id, value.id, 'submit');
    await act(t.app, team.admin, team.org.id, value.id, 'approve');
    const report = await scene.reportOf(project.id);

    // The snapshot names the indicator's disaggregations; other entries read as before.
    const entries = report.sections.indicators as { indicatorId: string; disaggregations?: unknown }[];
    expect(entries.find((entry) => entry.indicatorId === located.id)!.disaggregations).toEqual([
      { name: 'Location', categories: ['urban', 'rural'] },
      { name: 'Water source', categories: ['well', 'tap'] },
    ]);
    expect(entries.filter((entry) => 'disaggregations' in entry)).toHaveLength(1);

    const { shareToken } = await scene.share(report.id);
    const page = await call(t.app, 'GET', `/r/${shareToken}`);
    expect(page.status).toBe(200);
    expect(tableOf(page.body as string, 'Location')).toBe('Location Value urban 30 rural 10');
    // A disaggregation left unreported has no table.
    expect(tableOf(page.body as string, 'Water source')).toBeUndefined();

    const [row] = await t.database.db.select().from(reports).where(eq(reports.id, report.id));
    const indicators = row!.content.indicators.map(({ disaggregations: _d, ...entry }) => entry);
    await t.database.db
      .update(reports)
      .set({ content: { ...row!.content, indicators } })
      .where(eq(reports.id, report.id));
    const old = await call(t.app, 'GET', `/r/${shareToken}`);
    expect(old.status).toBe(200);
    expect(tableOf(old.body as string, 'Breakdown')).toBe('Breakdown Value rural 10 urban 30');
  });
});
