import { observeWithAll, type ObserveCall } from '../identity/http.js'
import { isStowageError } from '../errors.js'
import type { Metrics } from './metrics.js'
import type { ObjectStore } from '../storage/object-store.js'
import type { Spans } from '../tracing/spans.js'

/**
 * The seams through which metrics and traces see the calls to peers: a wrapper of the store, an
 * observer of the database's statements, one of the calls to the identity provider and STS. With
 * neither metrics nor traces, all undefined: nothing is wrapped.
 */
export function createObservers (metrics: Metrics | undefined, spans: Spans | undefined, { storePeer, databaseSystem }: {
  storePeer: string
  databaseSystem: 'postgresql' | 'sqlite'
}): {
  instrumentStore?: (store: ObjectStore) => ObjectStore
  onQuery?: (sql: string, seconds: number, failed: boolean) => void
  observeCall?: ObserveCall
} {
  if (!metrics && !spans) return {}
  return {
    instrumentStore (store) {
      const measured = metrics ? metrics.instrumentStore(store, isStowageError) : store
      return spans ? spans.instrumentStore(measured, storePeer, isStowageError) : measured
    },
    onQuery (sql, seconds, failed) {
      metrics?.observeQuery(sql, seconds, failed)
      spans?.observeQuery(databaseSystem, sql, seconds, failed)
    },
    observeCall: observeWithAll(metrics?.observeCall, spans?.observeCall)
  }
}
