import type { Static } from '@sinclair/typebox';
import { IDS, TIMES } from '../../http/documentation/story.js';
import type { CreateResultNodeBody, ImpactTreeNode, ResultNode } from './results.schemas.js';

/** The OpenAPI document's examples of the results framework (src/http/documentation/story.ts). */

const node = (
  id: string,
  level: 'impact' | 'outcome' | 'output',
  parentId: string | null,
  code: string,
  title: string,
  description: string | null,
) => ({
  id,
  orgId: IDS.organization,
  programId: IDS.program,
  parentId,
  level,
  code,
  title,
  description,
  orderIndex: 0,
  createdAt: TIMES.frameworkCreated,
  updatedAt: TIMES.frameworkCreated,
});

const IMPACT = node(
  IDS.impact,
  'impact',
  null,
  '1',
  'Fewer cases of water-borne disease in Kisumu County',
  'Diarrhoea cases among children under five, as the county health records report them.',
);
const OUTCOME = node(
  IDS.outcome,
  'outcome',
  IDS.impact,
  '1.1',
  'Households drink safe water all year round',
  'Safe: from a protected source within 500 m of home, or treated before drinking.',
);
const OUTPUT = node(
  IDS.output,
  'output',
  IDS.outcome,
  '1.1.1',
  'Community boreholes rehabilitated and run by trained water committees',
  null,
);

/** An outcome under the program's impact. */
export const RESULT_NODE_CREATE: Static<typeof CreateResultNodeBody> = {
  level: 'outcome',
  parentId: IDS.impact,
  code: OUTCOME.code,
  title: OUTCOME.title,
  description: OUTCOME.description,
};

export const RESULT_NODE: Static<typeof ResultNode> = OUTCOME;

export const RESULTS_FRAMEWORK: Static<typeof ImpactTreeNode>[] = [
  { ...IMPACT, children: [{ ...OUTCOME, children: [{ ...OUTPUT, children: [] }] }] },
];
