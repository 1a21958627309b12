import { describe, expect, it } from 'vitest';
import { call } from '../../../test/helpers/http.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t } = useSuite();

describe('indicatorCompletionRate, documented by what it computes', () => {
  it('says in the OpenAPI document that it is the share of pairs on track, no_target and no_data included', async () => {
    const res = await call(t.app, 'GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    const summary = res.body.components.schemas.DashboardSummary;
    const rate = summary.properties.programs.items.properties.indicatorCompletionRate;
    const description = JSON.stringify(rate);
    for (const words of [
      'not a share of completed or reported indicators',
      'on_track',
      'no_target',
      'no_data',
    ]) {
      expect(description).toContain(words);
    }
  });
});
