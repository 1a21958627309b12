import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas/schemas.js';
import {
  CONSTANT_HISTORY_TOLERANCE,
  DEFAULT_THRESHOLDS,
  HISTORY_LENGTH,
  MIN_HISTORY,
  OUTLIER_METHODS,
  type OutlierMethod,
  type QualityChecks,
} from '../../lib/outliers.js';

const QUALITY_CHECKS_TEXT =
  'How each value saved for this indicator is checked for outliers: one outside the checks gets an `outlier` ' +
  'flag with its numbers, which the approver sees; saving is never refused. null (the default): `modified_z` ' +
  `with threshold ${DEFAULT_THRESHOLDS.modified_z}. \`modified_z\` compares the value with the median of the ` +
  `indicator's last ${HISTORY_LENGTH} values in the project and their MAD (median absolute deviation): ` +
  '0.6745 × (value − median) / MAD (Iglewicz and Hoaglin); when the MAD is 0, (value − median) / (1.253314 × ' +
  'the mean absolute deviation from the median). `z` compares it with their mean and sample standard ' +
  `deviation. Both need at least ${MIN_HISTORY} earlier values: a project with fewer is compared with the ` +
  "indicator's values in the organization's other projects, and with fewer there too, nothing is flagged. " +
  'When those values are all the same (no spread to score against), a value more than ' +
  `${CONSTANT_HISTORY_TOLERANCE * 100}% away from it is an outlier (after a run of zeros, any other value). ` +
  '`min_max` flags a value below `min` or above `max`, needs no history, and the bounds themselves pass. ' +
  '`off`: no check. Sent, the object replaces the previous one as a whole; null goes back to the default. ' +
  'A formula indicator has no reports of its own: its checks wait until it is no longer a formula.';

const THRESHOLD_TEXT =
  'Only with `modified_z` and `z`, greater than 0: a value whose score is beyond it, above or below, is an ' +
  `outlier (default ${DEFAULT_THRESHOLDS.modified_z} for modified_z, ${DEFAULT_THRESHOLDS.z} for z).`;
const MIN_TEXT = 'Only with `min_max`: values below it are outliers. min, max or both; min not above max.';
const MAX_TEXT = 'Only with `min_max`: values above it are outliers. min, max or both; max not below min.';

const Method = () =>
  Type.Unsafe<OutlierMethod>({ type: 'string', enum: [...OUTLIER_METHODS], description: 'The check' });

const properties = {
  method: Method(),
  threshold: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: THRESHOLD_TEXT })),
  min: Type.Optional(Type.Number({ description: MIN_TEXT })),
  max: Type.Optional(Type.Number({ description: MAX_TEXT })),
};

/** In create and update bodies: one JSON type list rather than a union, so a bad value gets one message. */
export const QualityChecksInput = () =>
  Type.Unsafe<QualityChecks | null>({
    ...Type.Object(properties, { additionalProperties: false }),
    type: ['object', 'null'],
    description: QUALITY_CHECKS_TEXT,
  });

export const QualityChecksAnswer = () =>
  Nullable(Type.Object(properties, { title: 'QualityChecks', description: QUALITY_CHECKS_TEXT }));
