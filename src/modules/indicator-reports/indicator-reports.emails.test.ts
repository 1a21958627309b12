import { describe, expect, it } from 'vitest';
import { reportReturnedEmail } from './indicator-reports.emails.js';

const returned = {
  submitter: { email: 'reporter@example.org', firstName: 'Kofi' },
  reviewerName: 'Amina Diallo',
  names: {
    indicatorName: 'Wells built',
    indicatorCode: 'WELLS',
    projectName: 'Water for Mopti',
    periodLabel: 'Q1 2026',
  },
  comment: 'Two wells are counted twice.',
  appUrl: 'https://app.example',
  report: { id: 'r1', projectId: 'p1' },
};

describe('report returned email', () => {
  it("quotes the reviewer's comment and links to the report to edit", () => {
    expect(reportReturnedEmail(returned)).toEqual({
      recipient: 'reporter@example.org',
      subject: 'Indicator report returned: Wells built, Q1 2026',
      body:
        'Hello Kofi,\n\n' +
        'Amina Diallo returned your report on Wells built (WELLS) for Water for Mopti, ' +
        'reporting period Q1 2026, with this comment:\n\n' +
        'Two wells are counted twice.\n\n' +
        'Edit the report and submit it again:\n' +
        'https://app.example/projects/p1/indicator-reports/r1\n',
    });
  });

  it('leaves the comment empty when there is none', () => {
    expect(reportReturnedEmail({ ...returned, comment: null }).body).toContain(
      'with this comment:\n\n\n\nEdit the report',
    );
  });
});
