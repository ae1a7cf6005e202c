import { SpanKind, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api'
import { isPeerFailure, type ObserveCall } from '../identity/http.js'
import { wrapOperations, type ObjectStore } from '../storage/object-store.js'

const QUERY_OPERATION = /^\s*(select|insert|update|delete)\b/i

/** Outcome and status of a span whose call threw: a refusal is an answer, not an error. */
function recordThrown (span: Span, error: unknown, refused: boolean) {
  span.setAttribute('stowage.outcome', refused ? 'refused' : 'failed')
  // The error's class, never its message: a message may quote a path, a key or a peer's answer.
  const type = (error as Error | undefined)?.name ?? 'Error'
  span.setAttribute('error.type', type)
  if (!refused) span.setStatus({ code: SpanStatusCode.ERROR, message: type })
}

/**
 * Spans of Stowage's calls to its store, database, identity provider and STS, made through the
 * OpenTelemetry API: each a child of the span active when the call began (the request's), recorded
 * by whatever tracer provider the process registered. Attributes name the operation and its
 * outcome, never a file's path or content, a token or a key.
 */
export function createSpans (tracer: Tracer = trace.getTracer('stowage')) {
  async function inSpan<T> (name: string, attributes: Attributes, call: () => Promise<T>, options: {
    failedAnswer?: (answer: T) => boolean
    refused?: (error: unknown) => boolean
  } = {}): Promise<T> {
    return tracer.startActiveSpan(name, { kind: SpanKind.CLIENT, attributes }, async (span) => {
      try {
        const answer = await call()
        const failed = options.failedAnswer?.(answer) === true
        span.setAttribute('stowage.outcome', failed ? 'failed' : 'ok')
        if (failed) span.setStatus({ code: SpanStatusCode.ERROR })
        return answer
      } catch (error) {
        recordThrown(span, error, options.refused?.(error) === true)
        throw error
      } finally {
        span.end()
      }
    })
  }

  return {
    observeCall: ((peer, operation, call) => inSpan(`${peer} ${operation}`, {
      'peer.service': peer === 'idp' ? 'identity-provider' : 'aws-sts',
      'stowage.operation': operation
    }, call, {
      failedAnswer: (answer) => isPeerFailure({ answer }),
      refused: (error) => !isPeerFailure({ error })
    })) as ObserveCall,

    /** The same store, each operation a span (a read's ends when its body starts). */
    instrumentStore (store: ObjectStore, peer: string, isRefusal: (error: unknown) => boolean): ObjectStore {
      return wrapOperations(store, (operation, method) => async (...args) => inSpan(`store ${operation}`, {
        'peer.service': peer,
        'stowage.operation': operation
      }, () => method(...args), { refused: isRefusal }))
    },

    /** A database statement, told once it has run: its span is dated back to when it began. */
    observeQuery (system: 'postgresql' | 'sqlite', sql: string, seconds: number, failed: boolean) {
      const endedAt = Date.now()
      const operation = QUERY_OPERATION.exec(sql)?.[1].toUpperCase() ?? 'OTHER'
      // The statement's text has placeholders where its values go: no value reaches the span.
      const span = tracer.startSpan(operation, {
        kind: SpanKind.CLIENT,
        startTime: endedAt - seconds * 1000,
        attributes: { 'db.system.name': system, 'db.operation.name': operation, 'db.query.text': sql, 'stowage.outcome': failed ? 'failed' : 'ok' }
      })
      if (failed) span.setStatus({ code: SpanStatusCode.ERROR })
      span.end(endedAt)
    }
  }
}

export type Spans = ReturnType<typeof createSpans>
