// The tests' TypeScript loader: each .ts file stripped of its types by oxc (rolldown's transform,
// which the console's build already installs), with a source map for coverage and stack traces.
// tap's own loader (ts-node, transpile only) took about 4 s of a busy machine's CPU to load the
// service in every test process and every server or CLI a test starts; this takes under one.
// Types are checked by `npm run typecheck`, not here. Imports name `.js` as NodeNext wants: a
// relative `.js` that is not there is its `.ts`.
import { register } from 'node:module'

register(new URL('./ts-hooks.mjs', import.meta.url))
