import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import express, { Router } from 'express';
import { API_PREFIX, OPENAPI_PATH } from './openapi.js';
import { contentSecurityPolicy, pageSecurityHeaders } from './pageSecurity.js';

export const DOCS_PATH = '/docs';

/**
 * The `<style>` element of the Swagger logo in the page's top bar, an SVG the bundle inlines: the one inline style
 * Swagger UI applies, allowed by its hash (any other inline style stays refused).
 */
const SWAGGER_LOGO_STYLE = '.logo_small_svg__cls-2{fill:#fff}.logo_small_svg__cls-3{fill:#85ea2d}';

/**
 * The reference is served on the console's origin, so it gets as strict a policy: Swagger UI's scripts and styles
 * are its own files from this server, its initializer is a file too (no inline script), and it fetches only the
 * document (and, with "Try it out", this API). Besides: the logo's style (by hash), and the data: URLs of
 * swagger-ui.css's icons.
 */
export const DOCS_CSP = contentSecurityPolicy({
  'style-src': `'self' 'sha256-${createHash('sha256').update(SWAGGER_LOGO_STYLE).digest('base64')}'`,
  'img-src': "'self' data:",
});

// The package's directory only: importing swagger-ui-dist itself would load its browser bundle into the API.
const swaggerUiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/**
 * Swagger UI's own initializer, pointed at our document. Everything else (index.html, scripts, styles) is the
 * library's distribution served from node_modules, so the page works offline. `validatorUrl: null` keeps the
 * page from sending the document to the public validator.
 */
const initializer = `window.onload = function () {
  document.title = 'Runway API reference';
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(API_PREFIX + OPENAPI_PATH)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    persistAuthorization: false,
    tryItOutEnabled: false,
    displayRequestDuration: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout'
  });
};
`;

/**
 * `GET /docs`: the interactive API reference (Swagger UI), no key needed; "Authorize" takes an sk_ key for "Try it
 * out". `GET /` sends a browser there: the service has no other page.
 */
export function docsRoutes(): Router {
  const router = Router();
  router.get('/', (_req, res) => res.redirect(302, DOCS_PATH));
  router.use(DOCS_PATH, pageSecurityHeaders(DOCS_CSP));
  router.get(`${DOCS_PATH}/swagger-initializer.js`, (_req, res) => {
    res.type('application/javascript').set('Cache-Control', 'no-cache').send(initializer);
  });
  // `/docs` redirects to `/docs/` (the page's asset links are relative).
  router.use(DOCS_PATH, express.static(swaggerUiDir, { index: 'index.html', redirect: true, maxAge: '1h' }));
  return router;
}
