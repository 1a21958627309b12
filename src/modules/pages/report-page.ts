import { directionOf, translator, type Locale } from '../../lib/i18n/i18n.js';
import { prose } from './formats.js';
import { html, type Html } from './html.js';
import { languageLinks, markup, PAGE_LANGUAGES, type PageContent } from './layout.js';
import { indicatorSection } from './report-indicators.js';
import { activitySection, attachmentSection, budgetSection } from './report-sections.js';
import { named, speech, type SharedReport, type Speech } from './report-speech.js';

const NARRATIVES = ['challengesLessons', 'recommendations'] as const;

const isWebAddress = (url: string | null): url is string => url !== null && /^https?:\/\//i.test(url);

/** Anything not published may still change: said at the top, on screen and on paper. */
const draftBanner = (s: Speech, report: SharedReport): Html | null =>
  report.status === 'published'
    ? null
    : html`<div class="draft-banner" role="note" data-draft-banner>
        <p><strong>${s.t('draft.banner')}</strong></p>
        <p>${markup(s.t, 'draft.explained', { org: html`<span dir="auto">${report.cover.organization.name}</span>` })}</p>
      </div>`;

/** A cover figure: its label, and the user's text in its own direction. */
const figure = (label: string, value: string | null | undefined) =>
  value
    ? html`<div>
        <dt>${label}</dt>
        <dd dir="auto">${value}</dd>
      </div>`
    : null;

function cover(s: Speech, report: SharedReport): Html {
  const { t } = s;
  const { cover, project } = report;
  const logo = cover.organization.logoUrl;
  return html`<header class="cover">
    ${isWebAddress(logo) ? html`<img class="logo" src="${logo}" alt="" />` : null}
    <p class="org" dir="auto">${cover.organization.name}</p>
    <h1 dir="auto">${report.title}</h1>
    <p class="lead">
      <span dir="auto">${cover.projectName}</span> <span class="code">${project.code}</span> ·
      <span dir="auto">${project.programName}</span>
    </p>
    <dl class="figures">
      <div>
        <dt>${t('cover.period')}</dt>
        <dd>${s.range(cover.period.startDate, cover.period.endDate)}</dd>
      </div>
      <div>
        <dt>${t('cover.report')}</dt>
        <dd>${named(t, 'reportType', report.reportType)}</dd>
      </div>
      ${figure(t('cover.donors'), cover.donors.map((d) => d.name).join(', '))}
      ${figure(t('cover.location'), project.location)} ${figure(t('cover.lead'), project.lead)}
    </dl>
    ${project.description ? html`<p dir="auto">${project.description}</p>` : null}
    <p class="actions">
      <button type="button" class="secondary" data-print>${t('print')}</button>
    </p>
  </header>`;
}

const narrative = (title: string, text: string) =>
  text.trim() === ''
    ? null
    : html`<section>
        <h2>${title}</h2>
        ${prose(text)}
      </section> `;

/**
 * The donor's view of a shared report, in `locale` (docs/languages.md): everything is in the page;
 * printing gives a clean document. `hrefOf` makes the links to the page in the other languages.
 */
export function reportPage(
  report: SharedReport,
  locale: Locale = 'en',
  hrefOf?: (locale: Locale) => string,
): PageContent {
  const s = speech(locale);
  const { t } = s;
  const { cover: front, sections } = report;
  const draft = report.status !== 'published';
  return {
    title: draft ? t('draft.title', { title: report.title }) : report.title,
    lang: locale,
    dir: directionOf(locale),
    scripts: ['report.js'],
    main: html`${hrefOf ? languageLinks(translator(locale, 'common')('layout.languages'), locale, PAGE_LANGUAGES, (code) => hrefOf(code as Locale)) : null}
      <article class="report">
        ${draftBanner(s, report)} ${cover(s, report)}
        ${narrative(t('section.executiveSummary'), sections.executiveSummary)}
        <section id="indicators">
          <h2>${t('section.indicators')}</h2>
          ${indicatorSection(s, sections.indicators)}
        </section>
        <section id="activities">
          <h2>${t('section.activities')}</h2>
          ${activitySection(s, sections.activities)}
        </section>
        <section id="budget">
          <h2>${t('section.budget')}</h2>
          ${budgetSection(s, sections.budget)}
        </section>
        ${NARRATIVES.map((key) => narrative(t(`section.${key}`), sections[key]))}
        <section id="attachments">
          <h2>${t('section.attachments')}</h2>
          ${attachmentSection(s, report.attachments)}
        </section>
        <footer class="hint">
          ${markup(t, report.publishedAt ? 'footer.published' : 'footer.shared', {
            org: front.organization.name,
            date: report.publishedAt ? s.day(report.publishedAt) : '',
          })}
          ${t('footer.snapshot')}
        </footer>
      </article>`,
  };
}
