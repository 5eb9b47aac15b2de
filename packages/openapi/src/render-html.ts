type Doc = Record<string, any>;

const esc = (v: unknown) =>
  String(v).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function schemaText(schema: unknown): string {
  // $refs become links to the schema section further down the page.
  return esc(JSON.stringify(schema, null, 2)).replace(
    /&quot;\$ref&quot;: &quot;#\/components\/schemas\/([A-Za-z0-9_]+)&quot;/g,
    (_m, name: string) => `&quot;$ref&quot;: <a href="#schema-${name}">${name}</a>`,
  );
}

function resolve(doc: Doc, node: any): any {
  if (!node?.$ref) return node;
  return node.$ref
    .replace(/^#\//, '')
    .split('/')
    .reduce((n: any, p: string) => n?.[p], doc);
}

/**
 * A readable, self-contained documentation page for the OpenAPI document: no scripts and nothing
 * fetched from elsewhere, so it works on a machine without internet access.
 */
export function renderHtml(doc: Doc): string {
  const ops: string[] = [];
  for (const [path, item] of Object.entries<Doc>(doc['paths'] ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = [...(item['parameters'] ?? []), ...(op.parameters ?? [])].map((p: any) => resolve(doc, p));
      const body = op.requestBody?.content;
      const responses = Object.entries<any>(op.responses ?? {}).map(([status, r]) => {
        const res = resolve(doc, r);
        const schema = res?.content?.['application/json']?.schema;
        return `<tr><td><code>${esc(status)}</code></td><td>${esc(res?.description ?? '')}${
          schema ? `<pre>${schemaText(schema)}</pre>` : ''
        }</td></tr>`;
      });
      ops.push(`<section class="op" id="${esc(op.operationId ?? `${method}-${path}`)}">
<h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${esc(path)}</code></h3>
<p><strong>${esc(op.summary ?? '')}</strong></p>${op.description ? `<p class="d">${esc(op.description)}</p>` : ''}
${params.length ? `<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>required</th><th>schema</th><th>description</th></tr>${params
        .map(
          (p: any) =>
            `<tr><td><code>${esc(p.name)}</code></td><td>${esc(p.in)}</td><td>${p.required ? 'yes' : 'no'}</td><td><code>${esc(
              JSON.stringify(p.schema ?? {}),
            )}</code></td><td>${esc(p.description ?? '')}</td></tr>`,
        )
        .join('')}</table>` : ''}
${body ? `<h4>Request body</h4>${Object.entries<any>(body).map(([type, c]) => `<p><code>${esc(type)}</code></p><pre>${schemaText(c.schema ?? {})}</pre>`).join('')}` : ''}
<h4>Responses</h4><table>${responses.join('')}</table></section>`);
    }
  }
  const schemas = Object.entries<any>(doc['components']?.schemas ?? {}).map(
    ([name, s]) => `<section id="schema-${esc(name)}"><h3>${esc(name)}</h3><pre>${schemaText(s)}</pre></section>`,
  );
  const info = doc['info'] ?? {};
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(info.title)} ${esc(info.version)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
pre{background:#f6f8fa;padding:.8em;overflow:auto;font-size:13px}table{border-collapse:collapse;width:100%}
td,th{border:1px solid #ddd;padding:.3em .5em;text-align:left;vertical-align:top}.op{border-top:2px solid #eee;margin-top:2em}
.m{display:inline-block;min-width:4.5em;text-align:center;color:#fff;border-radius:3px;padding:0 .4em;font-size:.8em}
.get{background:#2b7bb9}.post{background:#2e8540}.put{background:#b26b00}.patch{background:#6f42c1}.delete{background:#c0392b}
.d{white-space:pre-line}</style></head><body>
<h1>${esc(info.title)} <small>${esc(info.version)}</small></h1><p class="d">${esc(info.description ?? '')}</p>
<p>Machine-readable: <a href="openapi.json">openapi.json</a> (OpenAPI ${esc(doc['openapi'])}).</p>
<h2>Endpoints</h2>${ops.join('\n')}<h2>Schemas</h2>${schemas.join('\n')}</body></html>`;
}
