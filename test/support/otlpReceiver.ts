import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** One span as an OTLP/JSON export carries it (ids in hex), with its attributes flattened. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  service: string;
}

/** An OTLP/HTTP collector for one test: takes JSON trace exports on `/v1/traces` and keeps their spans. */
export interface OtlpReceiver {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  url: string;
  spans(): ReceivedSpan[];
  /** Requests that were not a JSON trace export (content type, path), as "METHOD path type". */
  refused(): string[];
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpExport {
  resourceSpans: {
    resource?: { attributes?: { key: string; value: OtlpValue }[] };
    scopeSpans: {
      spans: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: { key: string; value: OtlpValue }[];
      }[];
    }[];
  }[];
}

const valueOf = (v: OtlpValue): string | number | boolean =>
  v.stringValue ?? v.boolValue ?? v.doubleValue ?? Number(v.intValue);

const attributesOf = (list: { key: string; value: OtlpValue }[] = []) =>
  Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

async function body(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  return request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const refused: string[] = [];
  const server = createServer((request, response) => {
    void (async () => {
      const type = request.headers['content-type'] ?? '';
      if (request.method !== 'POST' || request.url !== '/v1/traces' || !type.startsWith('application/json')) {
        refused.push(`${request.method} ${request.url} ${type}`);
        response.writeHead(415).end();
        return;
      }
      const exported = JSON.parse((await body(request)).toString('utf8')) as OtlpExport;
      for (const resource of exported.resourceSpans) {
        const service = String(attributesOf(resource.resource?.attributes)['service.name'] ?? '');
        for (const scope of resource.scopeSpans)
          for (const span of scope.spans)
            spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? '',
              name: span.name,
              kind: span.kind,
              attributes: attributesOf(span.attributes),
              service,
            });
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...spans],
    refused: () => [...refused],
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
