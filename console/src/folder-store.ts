// What the folder view holds, in one place: its rows and how far they are listed, the usage, what
// is ticked, what can be undone, the question a dialog is asking, and how the rows are sorted.

import { useReducer } from 'preact/hooks'
import type { Choice } from './name-taken.js'
import type { Row, SortOrder } from './listing.js'

export type Question = { kind: 'folder' } | { kind: 'rename' | 'move' | 'copy' | 'share' | 'preview' | 'versions', row: Row }
  /** Where what is ticked goes. */
  | { kind: 'move-ticked' | 'copy-ticked', rows: Row[] }

export interface FolderState {
  rows: Row[]
  /** The continuation token of the next page, when there is one. */
  next?: string
  loading: boolean
  usage?: { usedBytes: number, quotaBytes: number | null, versionBytes: number }
  selected: Set<string>
  undo?: { what: string, trashIds: string[] }
  sort: SortOrder
  /** What a dialog is asking for: a new folder's name, where a file or folder goes, or a preview. */
  asking?: Question
  /** A name already here, and how the person's choice is passed on. */
  taken?: { name: string, choose: (choice: Choice) => void }
  dragging: boolean
}

export type FolderEvent =
  | { type: 'opened' }
  | { type: 'loading', loading: boolean }
  | { type: 'listed', rows: Row[], next?: string, appended: boolean }
  | { type: 'usage', usage: FolderState['usage'] }
  | { type: 'ticked', keys: string[], ticked: boolean }
  | { type: 'removed', undo?: FolderState['undo'] }
  | { type: 'undone' }
  | { type: 'sorted', sort: SortOrder }
  | { type: 'asking', question?: Question }
  | { type: 'taken', taken?: FolderState['taken'] }
  | { type: 'dragging', dragging: boolean }

const initial: FolderState = { rows: [], loading: true, selected: new Set(), sort: { key: 'name', descending: false }, dragging: false }

function reduce (state: FolderState, event: FolderEvent): FolderState {
  switch (event.type) {
    case 'opened': return { ...state, rows: [], next: undefined, selected: new Set() }
    case 'loading': return { ...state, loading: event.loading }
    case 'listed': return { ...state, rows: [...(event.appended ? state.rows : []), ...event.rows], next: event.next }
    case 'usage': return { ...state, usage: event.usage }
    case 'ticked': {
      const selected = new Set(state.selected)
      for (const key of event.keys) event.ticked ? selected.add(key) : selected.delete(key)
      return { ...state, selected }
    }
    case 'removed': return { ...state, selected: new Set(), undo: event.undo }
    case 'undone': return { ...state, undo: undefined }
    case 'sorted': return { ...state, sort: event.sort }
    case 'asking': return { ...state, asking: event.question }
    case 'taken': return { ...state, taken: event.taken }
    case 'dragging': return { ...state, dragging: event.dragging }
  }
}

export const useFolderStore = () => useReducer(reduce, initial)
