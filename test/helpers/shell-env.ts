/**
 * This process's environment less what the test runner adds to it: tap's import hooks
 * (NODE_OPTIONS), V8 coverage (NODE_V8_COVERAGE) and its own settings. A command run in it is
 * run as a person runs it from a shell. Every Node process an install starts (npm, node-gyp, tsc,
 * vite) otherwise loads tap's hooks and writes its coverage for tap to read at the end: the quick
 * start took 174 s under tap and 75 s from a shell.
 */
export function shellEnv (overrides: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || name === 'NODE_OPTIONS' || name === 'NODE_V8_COVERAGE' || /^_?TAP/.test(name)) continue
    env[name] = value
  }
  return { ...env, ...overrides }
}
