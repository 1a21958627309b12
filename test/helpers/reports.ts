import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { projects } from '../../src/modules/projects/projects.tables.js';
import type { TestUser } from './factories.js';
import { call, type Caller } from './http.js';
import { linkIndicator } from './indicators.js';
import { multipart, PNG } from './files.js';
import { progressScene, type Indicator } from './progress-scenes.js';
import type { Suite } from './suite.js';

/** Donor reports (the reports module), not indicator reports: see indicators.ts for those. */
export const donorReportsUrl = (orgId: string) => `/orgs/${orgId}/reports`;
export const donorReportUrl = (
  orgId: string,
  id: string,
  action?: 'refresh' | 'share' | 'share/regenerate',
) => `/orgs/${orgId}/reports/${id}${action ? `/${action}` : ''}`;
export const projectReportsUrl = (orgId: string, projectId: string) =>
  `/orgs/${orgId}/projects/${projectId}/reports`;
export const publicReportUrl = (token: string) => `/reports/share/${token}`;
export const publicAttachmentUrl = (token: string, attachmentId: string) =>
  `/reports/share/${token}/attachments/${attachmentId}`;

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const REPORT_PUBLISHED = {
  statusCode: 409,
  message: 'Report is published: move it back to draft to change it',
  error: 'Conflict',
  code: 'invalid_transition' as const,
};

/** The full report as the API returns it (the fields tests read most, and the rest). */
export interface DonorReportJson extends Record<string, any> {
  id: string;
  projectId: string;
  title: string;
  status: 'draft' | 'published';
  shareToken: string | null;
  shareUrl: string | null;
  shareExpiresAt: string | null;
  publishedAt: string | null;
  createdAt: string;
  updatedAt: string;
  periodIds: string[];
  sections: Record<string, any>;
  attachments: (Record<string, unknown> & { id: string; downloadUrl: string })[];
}

/** `POST /orgs/:orgId/reports` by `as`; 201 asserted. */
export async function createDonorReport(
  app: FastifyInstance,
  as: Caller,
  orgId: string,
  body: Record<string, unknown>,
): Promise<DonorReportJson> {
  const res = await call(app, 'POST', donorReportsUrl(orgId), {
    as,
    body: { title: 'Q1 donor report', reportType: 'quarterly', ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as DonorReportJson;
}

/** The list item of a full report: its identity with projectName, without sections. */
export function listItem(report: DonorReportJson, projectName: string) {
  return {
    id: report.id,
    orgId: report.orgId,
    title: report.title,
    projectId: report.projectId,
    projectName,
    reportType: report.reportType,
    startDate: report.startDate,
    endDate: report.endDate,
    status: report.status,
    shareToken: report.shareToken,
    shareUrl: report.shareUrl,
    shareExpiresAt: report.shareExpiresAt,
    publishedAt: report.publishedAt,
    createdAt: report.createdAt,
    updatedAt: report.updatedAt,
  };
}

/** Scenes of the donor report tests: a simple project, reports of it, attachments. */
export function donorReportScene(suite: Suite) {
  const app = () => suite().t.app;
  const db = () => suite().t.database.db;
  const team = () => suite().team;
  const progress = progressScene(suite);

  /**
   * A project (2026-01-01 to 2027-12-31, USD, no budget) with one sum indicator linked with target 100,
   * its period Q1 2026 and one approved value of 40 there.
   */
  async function simpleProject(name = 'Clean Water') {
    const project = await progress.newProject(name);
    const indicator: Indicator = await progress.newIndicator({ aggregationMethod: 'sum' });
    await linkIndicator(app(), team().officer, team().org.id, project.id, indicator.id, { target: 100 });
    const q1 = await progress.quarter(project.id, 1);
    await progress.report(project, indicator, q1.id, 40);
    const [row] = await db().select().from(projects).where(eq(projects.id, project.id));
    return { project: { ...project, code: row!.code, programId: row!.programId }, indicator, q1 };
  }

  /** A report of the project, created by the officer: over the range of Q1 2026 unless periodIds are sent. */
  const reportOf = (projectId: string, body: Record<string, unknown> = {}, as: TestUser = team().officer) =>
    createDonorReport(app(), as, team().org.id, {
      projectId,
      ...('periodIds' in body ? {} : { startDate: '2026-01-01', endDate: '2026-03-31' }),
      ...body,
    });

  /** A PNG attached to the project through the API. */
  async function attachPng(projectId: string, fileName = 'well.png', orgId = team().org.id) {
    const as = orgId === team().org.id ? team().officer : team().outsider;
    const res = await call(app(), 'POST', `/orgs/${orgId}/projects/${projectId}/attachments`, {
      as,
      ...multipart([{ name: 'file', value: PNG, fileName }]),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string; title: string; fileName: string; contentType: string; size: number };
  }

  /** The report as the admin reads it; 200 asserted. */
  async function read(id: string): Promise<DonorReportJson> {
    const res = await call(app(), 'GET', donorReportUrl(team().org.id, id), { as: team().admin });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as DonorReportJson;
  }

  /** Opens the share link of a report (as the officer); 200 asserted. */
  async function share(id: string, body?: Record<string, unknown>) {
    const res = await call(app(), 'PATCH', donorReportUrl(team().org.id, id, 'share'), {
      as: team().officer,
      body,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { shareToken: string; shareUrl: string; shareExpiresAt: string | null };
  }

  return { ...progress, simpleProject, reportOf, attachPng, read, share };
}
