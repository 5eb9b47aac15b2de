import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { getContext } from '@social/logger';
import { type CallContext, errorFromTransport } from '../adapter/classify-http';

const tracer = trace.getTracer('@social/networks');

export interface JsonHttpClientOptions {
  baseUrl: string;
  /** Deadline of one call from socket assignment: connect, send, answer. */
  timeoutMs: number;
  /** Sockets per host: publishing bursts run hundreds of calls at once. */
  maxSockets: number;
}

export interface HttpCall {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  ctx: CallContext;
}

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** Parsed JSON; the raw text when the body is not JSON; undefined when empty. */
  body: unknown;
}

/**
 * A JSON-over-HTTP client on a keep-alive agent. Any answer (whatever its status) is returned;
 * a call without an answer throws a classified NetworkError, telling "never sent" from "sent, then
 * lost" because a lost publish must be reconciled rather than retried.
 */
export class JsonHttpClient {
  private readonly agent: http.Agent;
  private readonly base: URL;
  private readonly transport: typeof http | typeof https;

  constructor(private readonly opts: JsonHttpClientOptions) {
    this.base = new URL(opts.baseUrl);
    const secure = this.base.protocol === 'https:';
    this.transport = secure ? https : http;
    const agentOpts = { keepAlive: true, maxSockets: opts.maxSockets, maxFreeSockets: Math.min(opts.maxSockets, 64) };
    this.agent = secure ? new https.Agent(agentOpts) : new http.Agent(agentOpts);
  }

  /**
   * One span per adapter call (`<net> <operation>`), around the HTTP client span that carries the
   * traceparent to the network; a no-op while tracing is off.
   */
  call(c: HttpCall): Promise<HttpAnswer> {
    const attributes = { 'network.code': c.ctx.net, 'network.operation': c.ctx.operation };
    return tracer.startActiveSpan(`${c.ctx.net} ${c.ctx.operation}`, { kind: SpanKind.INTERNAL, attributes }, (span) =>
      this.send(c).then(
        (answer) => {
          span.setAttribute('http.response.status_code', answer.status);
          if (answer.status >= 400) span.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${answer.status}` });
          span.end();
          return answer;
        },
        (err: unknown) => {
          span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
          span.end();
          throw err;
        },
      ),
    );
  }

  private send(c: HttpCall): Promise<HttpAnswer> {
    const url = new URL(c.path.replace(/^\//, ''), this.base.href.endsWith('/') ? this.base : `${this.base.href}/`);
    for (const [k, v] of Object.entries(c.query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
    const payload = c.body === undefined ? undefined : Buffer.from(JSON.stringify(c.body));
    const headers: Record<string, string> = { accept: 'application/json', ...c.headers };
    // The request (or job) this call is made for: the network's own logs can then be matched to ours.
    const requestId = getContext().requestId;
    if (requestId && headers['x-request-id'] === undefined) headers['x-request-id'] = requestId;
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(payload.length);
    }

    return new Promise<HttpAnswer>((resolve, reject) => {
      const state = { sent: false, timedOut: false };
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const fail = (err: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(errorFromTransport(c.ctx, err, state));
      };
      const req = this.transport.request(url, { method: c.method, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', fail);
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parseBody(Buffer.concat(chunks)) });
        });
      });
      // The deadline starts when a socket is assigned: waiting in our own agent's queue (a burst of
      // thousands of publishes over maxSockets) is not the network being slow.
      req.once('socket', () => {
        timer = setTimeout(() => {
          state.timedOut = true;
          req.destroy(new Error(`timeout after ${this.opts.timeoutMs} ms`));
        }, this.opts.timeoutMs);
      });
      req.on('finish', () => {
        state.sent = true;
      });
      req.on('error', fail);
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

function parseBody(buf: Buffer): unknown {
  if (buf.length === 0) return undefined;
  const text = buf.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
