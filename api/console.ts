import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router, type RequestHandler } from 'express';
import { contentSecurityPolicy, pageSecurityHeaders } from './pageSecurity.js';

export const CONSOLE_PATH = '/console';

/** console/dist beside the API's source (or beside dist/api in a production build: dist/console/dist). */
export const defaultConsoleDir = fileURLToPath(new URL('../console/dist', import.meta.url));

/**
 * Everything the console loads comes from this server, and no inline script or style runs: an injected script has
 * nowhere to come from and nowhere to send a key. (Images: its charts' data: URLs.)
 */
export const CONSOLE_CSP = contentSecurityPolicy({ 'img-src': "'self' data:" });

const securityHeaders = pageSecurityHeaders(CONSOLE_CSP);

const notBuilt = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Runway console not built</title></head>
<body>
<h1>The Runway console is not built</h1>
<p>This server has no console/dist folder to serve. Build it with <code>npm run build:console</code>
(<code>npm start</code> and <code>npm run build</code> build it too), then reload this page.</p>
<p>The API itself works: <a href="/docs">API reference</a>.</p>
</body>
</html>
`;

/**
 * `GET /console`: the eval console, a single page built by scripts/build-console.ts. index.html is never cached (it
 * names the current build); the content-hashed assets are cached for a year. The page signs in with an sk_ key and
 * calls /api/v1 like any client, so it needs no route of its own.
 */
export function consoleRoutes(dir: string = defaultConsoleDir): Router {
  const router = Router();
  router.use(CONSOLE_PATH, securityHeaders);
  const index: RequestHandler = (req, res) => {
    // Relative links of the page and the hash router both want the trailing slash.
    if (req.originalUrl === CONSOLE_PATH) return res.redirect(301, `${CONSOLE_PATH}/`);
    const file = join(dir, 'index.html');
    if (!existsSync(file)) return res.status(503).type('html').set('Cache-Control', 'no-store').send(notBuilt);
    res.set('Cache-Control', 'no-cache');
    res.sendFile(file);
  };
  router.get([CONSOLE_PATH, `${CONSOLE_PATH}/`, `${CONSOLE_PATH}/index.html`], index);
  router.use(
    CONSOLE_PATH,
    express.static(dir, { index: false, redirect: false, fallthrough: true, immutable: true, maxAge: '365d' }),
  );
  return router;
}
