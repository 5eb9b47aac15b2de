import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { loadOpenApi } from './load-openapi';

type Doc = Record<string, any>;

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  /** Literal segments first, so /media/from-url wins over /media/{mediaId}. */
  literalSegments: number;
  responses: Record<string, any>;
}

const ANY_PATH_STATUSES = new Set([401, 404, 429, 503]);

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Checks responses against the OpenAPI document: the operation must exist, the status must be
 * documented, and a JSON body must match its schema. End-to-end tests run every response they see
 * through it, so the document and the system cannot drift apart.
 */
export class ContractChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  private readonly operations: Operation[] = [];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly doc: Doc = loadOpenApi()) {
    addFormats(this.ajv);
    this.ajv.addSchema(doc, 'openapi.json');
    for (const [template, item] of Object.entries<Doc>(doc['paths'] ?? {})) {
      const segments = template.split('/').filter(Boolean);
      const pattern = new RegExp(
        `^/${segments.map((s) => (s.startsWith('{') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}${template.endsWith('/') ? '/' : ''}$`,
      );
      for (const [method, op] of Object.entries<Doc>(item)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        this.operations.push({
          method,
          template,
          pattern,
          literalSegments: segments.filter((s) => !s.startsWith('{')).length,
          responses: op['responses'] ?? {},
        });
      }
    }
    this.operations.sort((a, b) => b.literalSegments - a.literalSegments);
  }

  /** The public path of a gateway URL in the document's terms (without the /v2 server prefix). */
  static apiPath(url: URL): string | undefined {
    if (url.pathname.startsWith('/v2/')) return url.pathname.slice(3);
    if (url.pathname.startsWith('/storage/')) return url.pathname;
    return undefined;
  }

  /** Returns what is wrong, or undefined when the response matches the document. */
  check(method: string, path: string, status: number, contentType: string | null, body: unknown): string | undefined {
    const m = method.toLowerCase();
    const op = this.operations.find((o) => o.method === m && o.pattern.test(path));
    if (!op) {
      // Any path may be refused before routing (401, 429) or be unknown (404): an error body.
      if (!ANY_PATH_STATUSES.has(status)) return `${method} ${path}: no such operation in the OpenAPI document`;
      return this.matches('openapi.json#/components/schemas/Error', body, `${method} ${path} ${status}`);
    }
    const key = op.responses[String(status)] ? String(status) : op.responses['default'] ? 'default' : undefined;
    if (!key) return `${method} ${op.template}: status ${status} is not documented`;
    let response = op.responses[key];
    let pointer = `openapi.json#/paths/${escapePointer(op.template)}/${m}/responses/${key}`;
    if (response['$ref']) {
      pointer = `openapi.json${response['$ref']}`;
      response = this.resolve(response['$ref']);
    }
    const json = contentType?.startsWith('application/json');
    const documented = response?.content?.['application/json']?.schema;
    if (!json || !documented) return undefined;
    return this.matches(`${pointer}/content/application~1json/schema`, body, `${method} ${op.template} ${status}`);
  }

  private matches(ref: string, body: unknown, what: string): string | undefined {
    const validate = this.validator(ref);
    if (validate(body)) return undefined;
    const problems = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}`);
    return `${what}: body does not match the document: ${problems.join('; ')}`;
  }

  private resolve(ref: string): any {
    return ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<any>((node, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], this.doc);
  }

  private validator(ref: string): ValidateFunction {
    let v = this.compiled.get(ref);
    if (!v) {
      v = this.ajv.compile({ $ref: ref });
      this.compiled.set(ref, v);
    }
    return v;
  }
}
