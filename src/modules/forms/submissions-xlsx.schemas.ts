import { Type } from '@sinclair/typebox';
import { Uuid } from '../../http/schemas/schemas.js';
import { LanguageCode } from './form-languages.js';

export const SubmissionsXlsxQuery = Type.Object({
  indicatorReportId: Type.Optional(
    Uuid("Only the submissions counted into this indicator report (a report of the form's project)"),
  ),
  lang: Type.Optional(
    LanguageCode(
      "The language of the labels (header row 1 and choice labels): one of the form's languages, matched " +
        'as the public form matches it (`fr-CA` gives `fr`); else, and by default, its default language',
    ),
  ),
});
