import fs from 'node:fs';
import path from 'node:path';
import express, { type Router } from 'express';

/** Swagger UI from its npm package, served by the gateway itself: the page works offline. */
const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png'];

// Nothing may come from another host; Swagger UI sets inline styles and shows data: images.
const CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const page = (base: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Social Publishing and Analytics API v2</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${base}/docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="${base}/docs/assets/favicon-32x32.png" sizes="32x32">
</head>
<body>
<div id="swagger-ui"></div>
<noscript>This page needs JavaScript; the document itself is at <a href="${base}/openapi.json">openapi.json</a>.</noscript>
<script src="${base}/docs/assets/swagger-ui-bundle.js"></script>
<script src="${base}/docs/assets/init.js"></script>
</body>
</html>
`;

// Operations listed and collapsed under their tags, examples (not schemas) shown first, no
// "Try it out" by default (it would send real requests with real keys), no online validator badge.
const init = (base: string) => `window.ui = SwaggerUIBundle({
  url: '${base}/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  docExpansion: 'list',
  defaultModelRendering: 'example',
  defaultModelsExpandDepth: 0,
  displayRequestDuration: true,
  validatorUrl: null,
  tryItOutEnabled: false,
});
`;

/** The documentation page at `<base>/docs` and its assets at `<base>/docs/assets/*`. */
export function docsRouter(base = '/v2'): Router {
  const router = express.Router();
  const html = page(base);
  const initJs = init(base);
  const files = new Map(ASSETS.map((f) => [f, fs.readFileSync(path.join(SWAGGER_UI_DIR, f))]));
  const types: Record<string, string> = { '.css': 'text/css; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.png': 'image/png' };
  router.get(`${base}/docs`, (_req, res) => {
    res.setHeader('Content-Security-Policy', CSP);
    res.type('html').send(html);
  });
  router.get(`${base}/docs/assets/init.js`, (_req, res) => {
    res.type(types['.js']!).send(initJs);
  });
  router.get(`${base}/docs/assets/:file`, (req, res, next) => {
    const body = files.get(req.params['file']!);
    if (!body) return next();
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type(types[path.extname(req.params['file']!)]!).send(body);
  });
  return router;
}
