import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { waitFor } from './wait.js'

export interface ReceivedSpan {
  traceId: string
  spanId: string
  parentSpanId: string
  name: string
  /** 1 internal, 2 server, 3 client. */
  kind: number
  attributes: Record<string, string | number | boolean>
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number
  serviceName?: string
}

type Field = [number, bigint | Buffer]

function readVarint (buffer: Buffer, at: number): [bigint, number] {
  let value = 0n
  for (let shift = 0n; ; shift += 7n) {
    const byte = buffer[at++]
    value |= BigInt(byte & 0x7f) << shift
    if (byte < 0x80) return [value, at]
  }
}

/** The fields of one protobuf message, in order: varints and fixed numbers as bigint, the rest as bytes. */
function fieldsOf (buffer: Buffer): Field[] {
  const fields: Field[] = []
  let at = 0
  while (at < buffer.length) {
    const [tag, next] = readVarint(buffer, at)
    at = next
    const number = Number(tag >> 3n)
    switch (Number(tag & 7n)) {
      case 0: { const [value, after] = readVarint(buffer, at); fields.push([number, value]); at = after; break }
      case 1: fields.push([number, buffer.subarray(at, at + 8)]); at += 8; break
      case 2: { const [length, after] = readVarint(buffer, at); at = after + Number(length); fields.push([number, buffer.subarray(after, at)]); break }
      case 5: fields.push([number, buffer.subarray(at, at + 4)]); at += 4; break
      default: throw new Error(`unknown protobuf wire type in tag ${tag}`)
    }
  }
  return fields
}

const bytes = (value: bigint | Buffer) => value as Buffer

function anyValueOf (buffer: Buffer): string | number | boolean {
  const [[number, value]] = fieldsOf(buffer)
  switch (number) {
    case 1: return bytes(value).toString('utf8')
    case 2: return value === 1n
    case 3: return Number(BigInt.asIntN(64, value as bigint))
    case 4: return bytes(value).readDoubleLE(0)
    default: return `<field ${number}>`
  }
}

function attributesOf (keyValues: Buffer[]): Record<string, string | number | boolean> {
  const attributes: Record<string, string | number | boolean> = {}
  for (const keyValue of keyValues) {
    const fields = fieldsOf(keyValue)
    const key = bytes(fields.find(([n]) => n === 1)![1]).toString('utf8')
    const value = fields.find(([n]) => n === 2)
    attributes[key] = value ? anyValueOf(bytes(value[1])) : ''
  }
  return attributes
}

const all = (fields: Field[], number: number) => fields.filter(([n]) => n === number).map(([, value]) => bytes(value))

/** An ExportTraceServiceRequest in protobuf (opentelemetry/proto/collector/trace/v1), decoded. */
function decodeProtobuf (body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = []
  for (const resourceSpans of all(fieldsOf(body), 1)) {
    const fields = fieldsOf(resourceSpans)
    const resource = all(fields, 1)[0]
    const serviceName = resource ? attributesOf(all(fieldsOf(resource), 1))['service.name'] as string : undefined
    for (const scopeSpans of all(fields, 2)) {
      for (const span of all(fieldsOf(scopeSpans), 2)) {
        const f = fieldsOf(span)
        const one = (number: number) => f.find(([n]) => n === number)?.[1]
        const status = one(15)
        const statusCode = status ? Number(fieldsOf(bytes(status)).find(([n]) => n === 3)?.[1] ?? 0n) : 0
        spans.push({
          traceId: bytes(one(1)!).toString('hex'),
          spanId: bytes(one(2)!).toString('hex'),
          parentSpanId: one(4) ? bytes(one(4)!).toString('hex') : '',
          name: bytes(one(5)!).toString('utf8'),
          kind: Number(one(6) ?? 0n),
          attributes: attributesOf(all(f, 9)),
          statusCode,
          serviceName
        })
      }
    }
  }
  return spans
}

interface JsonKeyValue { key: string, value: { stringValue?: string, boolValue?: boolean, intValue?: string | number, doubleValue?: number } }

/** The same request in OTLP/JSON. */
function decodeJson (body: Buffer): ReceivedSpan[] {
  const request = JSON.parse(body.toString('utf8')) as {
    resourceSpans: Array<{ resource?: { attributes?: JsonKeyValue[] }, scopeSpans: Array<{ spans: Array<{
      traceId: string, spanId: string, parentSpanId?: string, name: string, kind: number, attributes?: JsonKeyValue[], status?: { code?: number }
    }> }> }>
  }
  const attributesOf = (keyValues: JsonKeyValue[] = []) => Object.fromEntries(keyValues.map(({ key, value }) =>
    [key, value.stringValue ?? value.boolValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.doubleValue ?? '')]))
  return request.resourceSpans.flatMap(({ resource, scopeSpans }) => scopeSpans.flatMap(({ spans }) => spans.map((span) => ({
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId ?? '',
    name: span.name,
    kind: span.kind,
    attributes: attributesOf(span.attributes),
    statusCode: span.status?.code ?? 0,
    serviceName: attributesOf(resource?.attributes)['service.name'] as string | undefined
  }))))
}

async function bodyOf (request: IncomingMessage) {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/**
 * A test OTLP/HTTP trace collector: takes what an exporter posts to /v1/traces, in protobuf or
 * JSON, and decodes every span. `stall` makes it accept requests and never answer.
 */
export async function startOtlpCollector () {
  const spans: ReceivedSpan[] = []
  const contentTypes = new Set<string>()
  const state = { stall: false }
  const server = createServer(async (request, response) => {
    if (state.stall) return
    if (request.method !== 'POST' || request.url !== '/v1/traces') {
      response.writeHead(404).end()
      return
    }
    const contentType = request.headers['content-type'] ?? ''
    contentTypes.add(contentType)
    const body = await bodyOf(request)
    const json = contentType.startsWith('application/json')
    spans.push(...(json ? decodeJson(body) : decodeProtobuf(body)))
    // An empty ExportTraceServiceResponse: all accepted.
    response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : '')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    contentTypes,
    state,
    /** The spans of one trace, once `ready` says they have all arrived. */
    async trace (traceId: string, ready: (spans: ReceivedSpan[]) => boolean) {
      const of = () => spans.filter((span) => span.traceId === traceId)
      await waitFor(() => ready(of()), { what: `the spans of trace ${traceId}` })
      return of()
    },
    async close () {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}

export type OtlpCollector = Awaited<ReturnType<typeof startOtlpCollector>>
