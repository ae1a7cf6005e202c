// The tests' TypeScript loader: each .ts file stripped of its types by oxc (rolldown's transform,
// which the console's build already installs), with a source map for coverage and stack traces.
// tap's own loader (ts-node, transpile only) took about 4 s of a busy machine's CPU to load the
// service in every test process and every server or CLI a test starts; this takes under one.
// Types are checked by `npm run typecheck`, not here. Imports name `.js` as NodeNext wants: a
// relative `.js` that is not there is its `.ts`.
//
// Where Node has `module.registerHooks` (22.15 and later), the hooks run on the importing thread;
// `module.register` runs them on a thread of their own, and each of the ~3,500 module lookups a
// server's start makes crossed to it and back (1.8 s of the 5 s of CPU the start cost on Node 20).
import module from 'node:module'

if (module.registerHooks) {
  const { resolve, load } = await import('./ts-hooks.mjs')
  module.registerHooks({ resolve, load })
} else {
  module.register(new URL('./ts-hooks.mjs', import.meta.url))
}
