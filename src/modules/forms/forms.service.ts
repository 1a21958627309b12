import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import { transaction, type Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';
import { badRequest, hasDependents, invalidTransition, notFound } from '../../errors/catalogue.js';
import { refusedWrite } from '../../errors/refusals.js';
import { paginate, type PageRequest } from '../../http/schemas/pagination.js';
import { optionalText } from '../../lib/text.js';
import { removeStoredFiles, type FileStorage } from '../../storage/file-storage.js';
import { uncountFromIndicatorReport } from '../indicator-reports/index.js';
import { countTarget, refusedCountTarget, type CountTargetRefusal } from '../indicator-reports/index.js';
import { ensureProjectAccess, requireProject, visibilityOf } from '../projects/index.js';
import type { AuditSource } from '../privacy/index.js';
import { dimensionsOf } from '../indicators/index.js';
import { canonicalMappings, disaggregateByProblems, type DisaggregateBy } from './disaggregate-by.js';
import {
  breakingEdits,
  expressionProblems,
  fieldProblems,
  placeFields,
  topLevelFields,
  type FormField,
} from './form-fields.js';
import { translationProblems, type FormTranslations } from './form-languages.js';
import {
  countForms,
  deleteForm,
  findForm,
  hasSubmissions,
  insertForm,
  listForms,
  lockForm,
  updateForm,
  type FormValues,
} from './forms.repo.js';
import type { FormInput, NewForm } from './forms.schemas.js';
import { amountIsPersonal } from './counted-sources.js';
import { submissionsCsv } from './submissions-csv.js';
import { openSubmissionsExport } from './submissions-export.js';
import { countedByReport, submissionFileKeys, type SubmissionFilter } from './submissions.repo.js';

/** Ends a dry run's transaction: everything checked, nothing kept. */
class DryRunDone extends Error {
  constructor(readonly id: string) {
    super('dry run');
  }
}

type Links = Pick<FormValues, 'indicatorId' | 'reportingPeriodId' | 'valueFieldKey'>;
type Counting = Required<Pick<FormValues, 'countInto' | 'countDateField' | 'countRepeat' | 'countWhere'>>;

/** The fields a count can read: the top-level ones (groups' included), and the counted repeat's. */
function countedFields(fields: FormField[], countRepeat: string | null): FormField[] {
  const repeat = countRepeat ? topLevelFields(fields).find((f) => f.key === countRepeat) : undefined;
  return [
    ...topLevelFields(fields),
    ...(repeat?.type === 'repeat' ? topLevelFields(repeat.fields ?? []) : []),
  ];
}

/** countRepeat names a top-level repeat; countWhere parses and reads its fields or top-level ones. */
function repeatProblems(fields: FormField[], links: Links, counting: Counting): string[] {
  const problems: string[] = [];
  if (counting.countWhere && !counting.countRepeat) problems.push('countWhere needs countRepeat');
  if (!counting.countRepeat) return problems;
  if (!links.indicatorId) problems.push('countRepeat needs indicatorId');
  const repeat = topLevelFields(fields).find((f) => f.key === counting.countRepeat);
  if (repeat?.type !== 'repeat') {
    problems.push('countRepeat must be the key of a repeat field outside any other repeat');
    return problems;
  }
  if (counting.countWhere) {
    const placed = placeFields(fields);
    problems.push(
      ...expressionProblems(
        counting.countWhere,
        'countWhere',
        { order: Number.MAX_SAFE_INTEGER, repeats: [repeat.key], self: false },
        placed,
      ),
    );
  }
  if (links.valueFieldKey) {
    const field = topLevelFields(repeat.fields ?? []).find((f) => f.key === links.valueFieldKey);
    if (field?.type !== 'number' && field?.type !== 'calculate') {
      problems.push(
        `valueFieldKey must be the key of a number or calculate field of the repeat ${repeat.key}`,
      );
    }
  }
  return problems;
}

/** The rules between fields and links that need no database: all reported at once. */
function linkProblems(fields: FormField[], links: Links, counting: Counting): string[] {
  const problems = fieldProblems(fields);
  const byDate = counting.countInto === 'period_of_date';
  if (links.indicatorId && !links.reportingPeriodId && !byDate) {
    problems.push('reportingPeriodId is required with indicatorId');
  }
  if (byDate) {
    if (!links.indicatorId) problems.push('countInto period_of_date needs indicatorId');
    if (links.reportingPeriodId) {
      problems.push('reportingPeriodId must be null when countInto is period_of_date');
    }
  }
  if (counting.countDateField) {
    if (!byDate) problems.push('countDateField needs countInto period_of_date');
    const field = topLevelFields(fields).find((f) => f.key === counting.countDateField);
    if (field?.type !== 'date') problems.push('countDateField must be the key of a date field');
  }
  if (links.valueFieldKey) {
    if (!links.indicatorId) problems.push('valueFieldKey needs indicatorId');
    // A calculate field too (its answer is stored when a number); with countRepeat, one of the repeat.
    const field = topLevelFields(fields).find((f) => f.key === links.valueFieldKey);
    if (!counting.countRepeat && field?.type !== 'number' && field?.type !== 'calculate') {
      problems.push('valueFieldKey must be the key of a number field');
    }
  }
  problems.push(...repeatProblems(fields, links, counting));
  return problems;
}

/**
 * The form's mappings to its indicator's disaggregations, checked against them (400, every problem) and
 * with the names as the indicator spells them; null for none.
 */
async function checkedMappings(
  tx: Db,
  orgId: string,
  mappings: DisaggregateBy[] | null,
  fields: FormField[],
  indicatorId: string | null,
  countRepeat: string | null,
): Promise<DisaggregateBy[] | null> {
  if (!mappings?.length) return null;
  const dimensions = indicatorId ? await dimensionsOf(tx, orgId, indicatorId) : null;
  const problems = disaggregateByProblems(mappings, countedFields(fields, countRepeat), dimensions);
  if (problems.length > 0) throw badRequest(...problems);
  return canonicalMappings(mappings, dimensions!);
}

/** The indicator first, then the period; a locked period does not stop linking a form to it. */
const FORM_CHECKS: readonly CountTargetRefusal[] = [
  'indicator-missing',
  'formula-indicator',
  'indicator-not-linked',
  'period-missing',
  'period-of-another-project',
];

/** The indicator and period exist in the org (404), belong to the project, and can take counts (400). */
async function checkTargets(tx: Db, orgId: string, projectId: string, links: Links): Promise<void> {
  const { refusals } = await countTarget(tx, orgId, projectId, links);
  const refused = refusedCountTarget(refusals, FORM_CHECKS, 'unnamed');
  if (refused) throw refused;
}

// The link or period went away between the checks and the write.
const translateConstraint = refusedWrite({
  gone: () => badRequest('indicatorId must be an indicator linked to the project'),
});

/** Forms of a project, their public link and publication (SPEC.md Form, DECISIONS.md section 10). */
export class FormService {
  constructor(
    private readonly db: Db,
    private readonly config: Pick<Config, 'appUrl' | 'baseUrl' | 'databaseTimeouts'>,
    private readonly storage: FileStorage,
    private readonly log: FastifyBaseLogger,
  ) {}

  private view<T extends { publicToken: string; translations: FormTranslations | null }>(form: T) {
    return {
      ...form,
      translations: form.translations ?? {},
      publicUrl: `${this.config.appUrl}/f/${form.publicToken}`,
    };
  }

  async list(member: Member, query: PageRequest & { projectId?: string }) {
    if (query.projectId) await requireProject(this.db, member, query.projectId);
    const filter = { projectId: query.projectId, ...visibilityOf(member) };
    // Mapped inside `list`: the array paginate returns carries its next-page mark.
    return paginate(query, {
      count: () => countForms(this.db, member.orgId, filter),
      list: async (window) =>
        (await listForms(this.db, member.orgId, filter, window)).map((form) => this.view(form)),
    });
  }

  async get(member: Member, id: string) {
    return this.view(await this.readable(member, id));
  }

  /**
   * The form's submissions as CSV, streamed (submissions-csv.ts), with the file name to give it; with
   * `indicatorReportId`, only those counted into that report. An export with personal data in clear
   * (answers of fields marked personal, positions) is recorded first, before a byte is sent: the stream
   * holds no transaction (a slow client would hold a connection), so the count is taken just before it
   * starts (submissions-export.ts). The rows are read from `reads`, except personal data in clear.
   */
  async submissionsCsv(
    member: Member,
    id: string,
    source: AuditSource,
    { repeat: repeatKey, ...filter }: SubmissionFilter & { repeat?: string } = {},
    reads: Db = this.db,
  ): Promise<{ fileName: string; csv: Readable }> {
    const deps = { db: this.db, config: this.config };
    const { form, repeat, personal, rows } = await openSubmissionsExport(deps, member, id, source, {
      filter,
      repeatKey,
      reads,
    });
    return {
      fileName: repeat ? `${form.title} - ${repeat.key}.csv` : `${form.title}.csv`,
      csv: await submissionsCsv(rows, form, this.config.baseUrl, personal, filter, repeat),
    };
  }

  /** The form, for a member who may read its project. */
  private async readable(member: Member, id: string) {
    const form = await findForm(this.db, member.orgId, id);
    if (!form) throw notFound('Form');
    await ensureProjectAccess(this.db, member, form.projectId);
    return form;
  }

  async create(member: Member, input: NewForm) {
    const id = await this.insert(member, input);
    return this.get(member, id);
  }

  /**
   * The checks of create without the write: the project readable by the member, the field, link and
   * language rules (400, every problem), the indicator, period and mappings (in a transaction rolled back).
   */
  async check(member: Member, input: NewForm): Promise<void> {
    await this.insert(member, input, { dryRun: true });
  }

  /** Creates the form (or, on a dry run, checks all create would and rolls back); returns its id. */
  private async insert(member: Member, input: NewForm, { dryRun = false } = {}): Promise<string> {
    await requireProject(this.db, member, input.projectId);
    const links = {
      indicatorId: input.indicatorId ?? null,
      reportingPeriodId: input.reportingPeriodId ?? null,
      valueFieldKey: input.valueFieldKey ?? null,
    };
    const counting: Counting = {
      countInto: input.countInto ?? 'fixed_period',
      countDateField: input.countDateField ?? null,
      countRepeat: input.countRepeat ?? null,
      countWhere: input.countWhere ?? null,
    };
    const defaultLanguage = input.defaultLanguage ?? 'en';
    const translations = input.translations ?? null;
    const problems = [
      ...linkProblems(input.fields, links, counting),
      ...translationProblems(defaultLanguage, translations, input.fields),
    ];
    if (problems.length > 0) throw badRequest(...problems);
    return transaction(this.db, async (tx) => {
      await checkTargets(tx, member.orgId, input.projectId, links);
      const disaggregateBy = await checkedMappings(
        tx,
        member.orgId,
        input.disaggregateBy ?? null,
        input.fields,
        links.indicatorId,
        counting.countRepeat,
      );
      const id = await insertForm(tx, member.orgId, {
        projectId: input.projectId,
        ...links,
        ...counting,
        disaggregateBy,
        title: input.title.trim(),
        description: optionalText(input.description) ?? null,
        closesAt: input.closesAt ? new Date(input.closesAt) : null,
        personalDataRetentionDays: input.personalDataRetentionDays ?? null,
        fields: input.fields,
        defaultLanguage,
        translations: translations && Object.keys(translations).length > 0 ? translations : null,
        publicToken: randomUUID(),
      });
      if (dryRun) throw new DryRunDone(id);
      return id;
    })
      .catch((err: unknown) => {
        if (err instanceof DryRunDone) return err.id;
        throw err;
      })
      .catch(translateConstraint);
  }

  async update(member: Member, id: string, input: FormInput) {
    await transaction(this.db, async (tx) => {
      const form = await lockForm(tx, member.orgId, id);
      if (!form) throw notFound('Form');
      const links = {
        indicatorId: input.indicatorId === undefined ? form.indicatorId : input.indicatorId,
        reportingPeriodId:
          input.reportingPeriodId === undefined ? form.reportingPeriodId : input.reportingPeriodId,
        valueFieldKey: input.valueFieldKey === undefined ? form.valueFieldKey : input.valueFieldKey,
      };
      const counting: Counting = {
        countInto: input.countInto ?? form.countInto,
        countDateField: input.countDateField === undefined ? form.countDateField : input.countDateField,
        countRepeat: input.countRepeat === undefined ? form.countRepeat : input.countRepeat,
        countWhere: input.countWhere === undefined ? form.countWhere : input.countWhere,
      };
      const fields = input.fields ?? form.fields;
      const defaultLanguage = input.defaultLanguage ?? form.defaultLanguage;
      const translations = input.translations === undefined ? form.translations : input.translations;
      // Checked against the fields as edited: removing a field a translation names is refused, not
      // dropped from it silently.
      const problems = [
        ...linkProblems(fields, links, counting),
        ...translationProblems(defaultLanguage, translations, fields),
      ];
      if (problems.length > 0) throw badRequest(...problems);
      if (input.fields && (await hasSubmissions(tx, member.orgId, id))) {
        const broken = breakingEdits(form.fields, input.fields);
        if (broken.length > 0) {
          throw hasDependents(
            'This form has submissions: a field cannot be removed or change its type, and options cannot ' +
              `be removed (${broken.join(', ')})`,
          );
        }
      }
      await checkTargets(tx, member.orgId, form.projectId, {
        indicatorId: input.indicatorId === undefined ? null : links.indicatorId,
        reportingPeriodId: input.reportingPeriodId === undefined ? null : links.reportingPeriodId,
      });
      // Checked again when what they depend on is edited, not on every edit (a disaggregation added to
      // the indicator since is met by counting: category_not_mapped).
      const remaps =
        input.disaggregateBy !== undefined ||
        input.fields !== undefined ||
        input.indicatorId !== undefined ||
        input.countRepeat !== undefined;
      const disaggregateBy = remaps
        ? await checkedMappings(
            tx,
            member.orgId,
            input.disaggregateBy === undefined ? form.disaggregateBy : input.disaggregateBy,
            fields,
            links.indicatorId,
            counting.countRepeat,
          )
        : form.disaggregateBy;
      const changes: FormValues = {
        ...links,
        ...counting,
        disaggregateBy,
        ...(input.title !== undefined && { title: input.title.trim() }),
        ...(input.description !== undefined && { description: optionalText(input.description) ?? null }),
        ...(input.closesAt !== undefined && { closesAt: input.closesAt ? new Date(input.closesAt) : null }),
        ...(input.personalDataRetentionDays !== undefined && {
          personalDataRetentionDays: input.personalDataRetentionDays,
        }),
        ...(input.fields !== undefined && { fields: input.fields }),
        ...(input.defaultLanguage !== undefined && { defaultLanguage: input.defaultLanguage }),
        ...(input.translations !== undefined && {
          translations: Object.keys(input.translations).length > 0 ? input.translations : null,
        }),
      };
      // An empty body changes nothing, not even updatedAt.
      if (Object.keys(input).length > 0) await updateForm(tx, member.orgId, id, changes);
    }).catch(translateConstraint);
    return this.get(member, id);
  }

  /** Publishes or unpublishes; doing what is already done is an illegal transition (409). */
  async setPublished(member: Member, id: string, isPublished: boolean) {
    await transaction(this.db, async (tx) => {
      const form = await lockForm(tx, member.orgId, id);
      if (!form) throw notFound('Form');
      if (form.isPublished === isPublished) {
        throw invalidTransition(isPublished ? 'Form is already published' : 'Form is not published');
      }
      await updateForm(tx, member.orgId, id, { isPublished });
    });
    return this.get(member, id);
  }

  async regenerateToken(member: Member, id: string) {
    await transaction(this.db, async (tx) => {
      if (!(await lockForm(tx, member.orgId, id))) throw notFound('Form');
      await updateForm(tx, member.orgId, id, { publicToken: randomUUID() });
    });
    return this.get(member, id);
  }

  /**
   * The form, its submissions and their files (removed after the commit). What its submissions counted
   * into reports stays in their values, but leaves their counted part: it has no source any more.
   */
  async remove(member: Member, id: string): Promise<void> {
    const keys = await transaction(this.db, async (tx) => {
      const form = await lockForm(tx, member.orgId, id);
      if (!form) throw notFound('Form');
      const keys = await submissionFileKeys(tx, member.orgId, { formId: id });
      for (const counted of await countedByReport(tx, member.orgId, id)) {
        const personal = amountIsPersonal(form.fields);
        await uncountFromIndicatorReport(
          tx,
          member,
          { ...counted, personal },
          `Form “${form.title}” deleted`,
        );
      }
      await deleteForm(tx, member.orgId, id);
      return keys;
    });
    await removeStoredFiles(this.storage, keys, this.log);
  }
}
