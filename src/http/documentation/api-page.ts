/**
 * The interactive documentation at `/api` (Swagger UI), titled with the service's name. Swagger UI's
 * stock top bar draws its logo as an SVG holding a `<style>` element, which the page's CSP
 * (`style-src 'self'`) refuses: the logo is replaced by the service's name, drawn without inline
 * style, rather than the CSP allowing inline style.
 */

/** The name the page and its top bar show, the OpenAPI document's `info.title`. */
export const API_TITLE = 'MEL service API';

/**
 * Loaded after Swagger UI's scripts and before they start (they start on `window.onload`): a plugin
 * added to the standalone preset, after the stock top bar's, whose `Logo` replaces the stock one.
 * Plain ES5, served as a file: the page's CSP allows no inline script.
 */
const TOP_BAR_SCRIPT = `(function () {
  var title = ${JSON.stringify(API_TITLE)};
  var serviceName = function (system) {
    var h = system.React.createElement;
    return {
      components: {
        Logo: function () {
          return h('span', { className: 'service-name' }, title);
        },
      },
    };
  };
  window.SwaggerUIStandalonePreset = [window.SwaggerUIStandalonePreset, serviceName];
})();
`;

const TOP_BAR_STYLE = `.swagger-ui .topbar .service-name {
  color: #fff;
  font-family: sans-serif;
  font-size: 1.5em;
  font-weight: 700;
  white-space: nowrap;
}
`;

/** The tab's icon instead of Swagger's: three rising bars, a measure of progress. */
const ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" ' +
  'fill="#1b1b1b"/><rect x="6" y="17" width="5" height="9" fill="#fff"/><rect x="13.5" y="11" ' +
  'width="5" height="15" fill="#fff"/><rect x="21" y="6" width="5" height="20" fill="#fff"/></svg>';

/** The `theme` option of @fastify/swagger-ui: the page's title and icon, and the files that draw the top bar. */
export const API_PAGE_THEME = {
  title: API_TITLE,
  js: [{ filename: 'top-bar.js', content: TOP_BAR_SCRIPT }],
  css: [{ filename: 'top-bar.css', content: TOP_BAR_STYLE }],
  favicon: [{ filename: 'icon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: ICON }],
};
