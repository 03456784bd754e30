/**
 * A real OTLP/HTTP traces receiver on 127.0.0.1 for tests: it takes `POST /v1/traces` as http/protobuf
 * (decoded with protobufjs from the OTLP trace schema below) or http/json, answers as a collector does,
 * and keeps every span it received, flattened (hex ids, attributes as plain values, times in ms), with
 * the request headers it came with.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { ServerOptions as HttpsOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';

/** The parts of opentelemetry-proto's trace.proto, common.proto and resource.proto a test reads. */
const OTLP_PROTO = `
syntax = "proto3";
package otlp;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4;
  string name = 5; int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9; uint32 dropped_attributes_count = 10; repeated Event events = 11;
  uint32 dropped_events_count = 12; Status status = 15; fixed32 flags = 16;
}
message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; }
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value {
    string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4;
    ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
`;

const requestType = protobuf
  .parse(OTLP_PROTO, { keepCase: false })
  .root.lookupType('otlp.ExportTraceServiceRequest');

export type AttrValue = string | number | boolean | AttrValue[] | null;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 3 client... */
  kind: number;
  startMs: number;
  endMs: number;
  attributes: Record<string, AttrValue>;
  events: { name: string; timeMs: number; attributes: Record<string, AttrValue> }[];
  /** 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
  resource: Record<string, AttrValue>;
  scope: string;
}

export interface OtlpReceiver {
  /** The collector's base URL (OTEL_EXPORTER_OTLP_ENDPOINT); traces go to `${base}/v1/traces`. */
  base: string;
  spans: ReceivedSpan[];
  requests: { contentType: string; headers: Record<string, string | string[] | undefined>; body: Buffer }[];
  /** Answer the next requests with this HTTP status (a collector that refuses). */
  failWith: number | undefined;
  /** Take the next requests and never answer them (a collector that hangs). */
  hold: boolean;
  close(): Promise<void>;
}

type Obj = Record<string, unknown>;

const hex = (v: unknown): string =>
  typeof v === 'string'
    ? /^[0-9a-f]*$/i.test(v)
      ? v.toLowerCase()
      : Buffer.from(v, 'base64').toString('hex')
    : v instanceof Uint8Array
      ? Buffer.from(v).toString('hex')
      : '';

const nanosToMs = (v: unknown): number => Number(BigInt(String(v ?? 0)) / 1_000_000n);

function anyValue(v: Obj | undefined): AttrValue {
  if (!v) return null;
  if ('stringValue' in v) return v['stringValue'] as string;
  if ('boolValue' in v) return v['boolValue'] as boolean;
  if ('intValue' in v) return Number(v['intValue']);
  if ('doubleValue' in v) return Number(v['doubleValue']);
  if ('arrayValue' in v)
    return (((v['arrayValue'] as Obj)['values'] as Obj[] | undefined) ?? []).map((x) => anyValue(x));
  return null;
}

const attrs = (list: unknown): Record<string, AttrValue> =>
  Object.fromEntries(
    ((list as Obj[] | undefined) ?? []).map((kv) => [kv['key'], anyValue(kv['value'] as Obj)]),
  );

function flatten(req: Obj): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of (req['resourceSpans'] as Obj[] | undefined) ?? []) {
    const resource = attrs((rs['resource'] as Obj | undefined)?.['attributes']);
    for (const ss of (rs['scopeSpans'] as Obj[] | undefined) ?? []) {
      const scope = String((ss['scope'] as Obj | undefined)?.['name'] ?? '');
      for (const s of (ss['spans'] as Obj[] | undefined) ?? []) {
        const status = (s['status'] as Obj | undefined) ?? {};
        out.push({
          traceId: hex(s['traceId']),
          spanId: hex(s['spanId']),
          parentSpanId: hex(s['parentSpanId']),
          name: String(s['name']),
          kind: Number(s['kind'] ?? 0),
          startMs: nanosToMs(s['startTimeUnixNano']),
          endMs: nanosToMs(s['endTimeUnixNano']),
          attributes: attrs(s['attributes']),
          events: ((s['events'] as Obj[] | undefined) ?? []).map((e) => ({
            name: String(e['name']),
            timeMs: nanosToMs(e['timeUnixNano']),
            attributes: attrs(e['attributes']),
          })),
          status: { code: Number(status['code'] ?? 0), message: String(status['message'] ?? '') },
          resource,
          scope,
        });
      }
    }
  }
  return out;
}

/**
 * `tls`: an HTTPS receiver with these options (a key and certificate; `requestCert` and `ca` for a
 * collector that asks for a client certificate). A body sent with `content-encoding: gzip` is unzipped.
 */
export async function startOtlpReceiver(
  opts: {
    tls?: HttpsOptions;
    /** A port to listen on (a collector started again where it was). */ port?: number;
  } = {},
): Promise<OtlpReceiver> {
  const r: OtlpReceiver = {
    base: '',
    spans: [],
    requests: [],
    failWith: undefined,
    hold: false,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const sent = Buffer.concat(chunks);
      let body: Buffer;
      try {
        body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(sent) : sent;
      } catch (e) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(String(e));
        return;
      }
      const contentType = String(req.headers['content-type'] ?? '');
      r.requests.push({ contentType, headers: req.headers, body });
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      if (r.hold) return;
      if (r.failWith) {
        res.writeHead(r.failWith, { 'content-type': 'text/plain' }).end('refused by the test');
        return;
      }
      try {
        const decoded = contentType.includes('json')
          ? (JSON.parse(body.toString('utf8')) as Obj)
          : requestType.toObject(requestType.decode(body), { longs: String });
        r.spans.push(...flatten(decoded));
      } catch (e) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(String(e));
        return;
      }
      // An empty ExportTraceServiceResponse: no partial success.
      if (contentType.includes('json')) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(Buffer.alloc(0));
    });
  };
  const server = opts.tls ? createHttpsServer(opts.tls, handle) : createServer(handle);
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  r.base = `${opts.tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return r;
}

/** The spans of one trace as a tree walk: each span's parent by id (undefined for the root). */
export function parentOf(spans: readonly ReceivedSpan[], s: ReceivedSpan): ReceivedSpan | undefined {
  return spans.find((p) => p.spanId === s.parentSpanId && p.traceId === s.traceId);
}
