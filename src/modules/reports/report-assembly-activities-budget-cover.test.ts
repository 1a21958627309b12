import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { postActivity, person, register, type ActivityJson } from '../../../test/helpers/activities.js';
import { insertDonor } from '../../../test/helpers/factories.js';
import { multipart, PDF, PNG } from '../../../test/helpers/files.js';
import { TIMESTAMP, call } from '../../../test/helpers/http.js';
import { reportData } from '../../../test/helpers/report-data.js';
import { programDonors } from '../programs/programs.tables.js';
import { projects } from '../projects/projects.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();
const data = reportData(() => ({ t, team }));
const { newProject, assembleRange } = data;

const activityEntry = (a: ActivityJson, participantCount: number, attendedCount: number) => ({
  id: a.id,
  title: a.title,
  status: a.status,
  startDate: a.startDate,
  endDate: a.endDate,
  location: a.location,
  outputId: a.outputId,
  participantCount,
  attendedCount,
});

describe('report assembly: activities, budget, attachments and cover', () => {
  it('lists the activities overlapping the range by start date, with registrations counted', async () => {
    const project = await newProject();
    const other = await newProject('Other');
    const { officer, org } = team;
    const activity = (title: string, startDate: string, endDate: string, extra = {}) =>
      postActivity(t.app, officer, org.id, project.id, { title, startDate, endDate, ...extra });
    const endsOnStart = await activity('Ends on start', '2026-03-25', '2026-04-01');
    const startsOnEnd = await activity('Starts on end', '2026-06-30', '2026-07-02');
    const inside = await activity('Inside', '2026-05-10', '2026-05-10', {
      location: 'Kisumu',
      status: 'completed',
    });
    const before = await activity('Before', '2026-03-01', '2026-03-31');
    await activity('After', '2026-07-01', '2026-07-05');
    const spanning = await activity('Spanning', '2026-01-01', '2026-12-31');
    const elsewhere = await postActivity(t.app, officer, org.id, other.id, {
      startDate: '2026-05-01',
      endDate: '2026-05-02',
    });
    const people = (attended: number, absent: number) => [
      ...Array.from({ length: attended }, () => person({ attended: true })),
      ...Array.from({ length: absent }, () => person()),
    ];
    await register(t.app, officer, org.id, endsOnStart.id, people(2, 1));
    await register(t.app, officer, org.id, startsOnEnd.id, people(0, 2));
    await register(t.app, officer, org.id, spanning.id, people(4, 0));
    await register(t.app, officer, org.id, before.id, people(5, 0));
    await register(t.app, officer, org.id, elsewhere.id, people(3, 3));

    const report = await assembleRange(project.id, '2026-04-01', '2026-06-30');
    expect(report.sections.activities).toEqual([
      activityEntry(spanning, 4, 4),
      activityEntry(endsOnStart, 3, 2),
      activityEntry(inside, 0, 0),
      activityEntry(startsOnEnd, 2, 0),
    ]);
    expect(inside).toMatchObject({ location: 'Kisumu', status: 'completed' });
  });

  it('sums the budget lines and gives the burn rate, null when nothing is planned', async () => {
    const budgetOf = async (lines: Record<string, unknown>[]) => {
      const project = await newProject();
      const created = [];
      for (const line of lines) {
        const res = await call(t.app, 'POST', `/orgs/${team.org.id}/projects/${project.id}/budget-lines`, {
          as: team.officer,
          body: line,
        });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        created.push(res.body);
      }
      const report = await assembleRange(project.id, '2026-01-01', '2026-12-31');
      return { budget: report.sections.budget, ids: created.map((line) => line.id as string) };
    };
    const staff = { category: 'Staff', plannedAmount: 3000, actualAmount: 1000.25 };
    const supplies = { category: 'Supplies', description: 'Soap', plannedAmount: 2000, actualAmount: 234.25 };
    const spent = await budgetOf([staff, supplies]);
    // 3000 + 2000 = 5000 planned, 1000.25 + 234.25 = 1234.5 spent: 1234.5 / 5000 = 24.69% → 24.7
    expect(spent.budget).toEqual({
      currency: 'USD',
      totalPlanned: 5000,
      totalActual: 1234.5,
      burnRate: 24.7,
      lines: [
        { id: spent.ids[0], description: null, ...staff },
        { id: spent.ids[1], ...supplies },
      ],
    });

    const cents = await budgetOf([
      { category: 'A', plannedAmount: 0.1, actualAmount: 0.05 },
      { category: 'B', plannedAmount: 0.2, actualAmount: 0.05 },
    ]);
    // 0.1 + 0.2 = 0.3 exactly, 0.05 + 0.05 = 0.1: 0.1 / 0.3 = 33.33% → 33.3
    expect(cents.budget).toMatchObject({ totalPlanned: 0.3, totalActual: 0.1, burnRate: 33.3 });

    const none = await budgetOf([]);
    expect(none.budget).toEqual({
      currency: 'USD',
      totalPlanned: 0,
      totalActual: 0,
      burnRate: null,
      lines: [],
    });
    const unplanned = await budgetOf([{ category: 'Fuel', actualAmount: 100 }]);
    expect(unplanned.budget).toEqual({
      currency: 'USD',
      totalPlanned: 0,
      totalActual: 100,
      burnRate: null,
      lines: [
        { id: unplanned.ids[0], category: 'Fuel', description: null, plannedAmount: 0, actualAmount: 100 },
      ],
    });
  });

  it('lists the attachments in creation order with their download path', async () => {
    const project = await newProject();
    const other = await newProject('Other');
    const attach = async (projectId: string, parts: Parameters<typeof multipart>[0]) => {
      const res = await call(t.app, 'POST', `/orgs/${team.org.id}/projects/${projectId}/attachments`, {
        as: team.officer,
        ...multipart(parts),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body;
    };
    const minutes = await attach(project.id, [
      { name: 'title', value: 'Meeting minutes' },
      { name: 'file', value: PDF, fileName: 'minutes.pdf' },
    ]);
    const photo = await attach(project.id, [{ name: 'file', value: PNG, fileName: 'photo.png' }]);
    await attach(other.id, [{ name: 'file', value: PDF, fileName: 'other.pdf' }]);

    const report = await assembleRange(project.id, '2026-01-01', '2026-03-31');
    const entry = (file: Record<string, any>, title: string, contentType: string, size: number) => ({
      id: file.id,
      title,
      fileName: file.fileName,
      contentType,
      size,
      createdAt: file.createdAt,
      downloadUrl: `/orgs/${team.org.id}/attachments/${file.id}/download`,
    });
    expect(report.attachments).toEqual([
      entry(minutes, 'Meeting minutes', 'application/pdf', PDF.length),
      entry(photo, 'photo.png', 'image/png', PNG.length),
    ]);
    expect([minutes.fileName, photo.fileName]).toEqual(['minutes.pdf', 'photo.png']);
    expect(minutes.createdAt).toMatch(TIMESTAMP);
  });

  it("shows the project, its program's donors, the organization and the period on the cover", async () => {
    const project = await newProject('Wells for Turkana');
    const db = t.database.db;
    const [row] = await db
      .update(projects)
      .set({
        location: 'Turkana',
        lead: 'Amina',
        description: 'Boreholes',
        budget: 125000.5,
        status: 'active',
      })
      .where(eq(projects.id, project.id))
      .returning();
    const zeta = await insertDonor(db, team.org.id, 'Zeta Fund');
    const alpha = await insertDonor(db, team.org.id, 'alpha Trust');
    const elsewhere = await insertDonor(db, team.org.id, 'Beta Aid');
    const otherProject = await newProject('Other');
    const [otherRow] = await db.select().from(projects).where(eq(projects.id, otherProject.id));
    await db.insert(programDonors).values([
      { orgId: team.org.id, programId: row!.programId, donorId: zeta.id },
      { orgId: team.org.id, programId: row!.programId, donorId: alpha.id },
      { orgId: team.org.id, programId: otherRow!.programId, donorId: elsewhere.id },
    ]);
    const logoUrl = 'https://cdn.example.org/hope.png';
    const patched = await call(t.app, 'PATCH', `/orgs/${team.org.id}`, { as: team.admin, body: { logoUrl } });
    expect(patched.status).toBe(200);

    const report = await assembleRange(project.id, '2026-02-01', '2026-02-28');
    expect(report.project).toEqual({
      id: project.id,
      name: 'Wells for Turkana',
      code: row!.code,
      programId: row!.programId,
      programName: 'Wells for Turkana program',
      status: 'active',
      startDate: '2026-01-01',
      endDate: '2027-12-31',
      currency: 'USD',
      budget: 125000.5,
      location: 'Turkana',
      lead: 'Amina',
      description: 'Boreholes',
    });
    // Donors by name, case aside: alpha Trust before Zeta Fund; Beta Aid funds another program.
    const donor = (d: typeof zeta) => ({ id: d.id, name: d.name, code: d.code });
    expect(report.cover).toEqual({
      projectName: 'Wells for Turkana',
      donors: [donor(alpha), donor(zeta)],
      organization: { name: 'Hope Relief', logoUrl },
      period: { startDate: '2026-02-01', endDate: '2026-02-28' },
    });
    // Stored as assembled: reading it back gives the same report.
    const read = await call(t.app, 'GET', `/orgs/${team.org.id}/reports/${report.id}`, { as: team.viewer });
    expect([read.status, read.body]).toEqual([200, report]);
  });
});
