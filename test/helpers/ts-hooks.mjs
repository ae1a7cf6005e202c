// The module hooks of ts-loader.mjs: synchronous, so that they serve both `module.registerHooks`
// (on the importing thread) and `module.register` (on a thread of their own, where a hook may also
// return what `nextResolve` or `nextLoad` promised).
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { transformSync } from 'rolldown/utils'

const isTypeScript = (url) => url.startsWith('file:') && /\.tsx?$/.test(url) && !url.includes('/node_modules/')

export function resolve (specifier, context, nextResolve) {
  if (/^\.\.?\//.test(specifier) && specifier.endsWith('.js') && context.parentURL?.startsWith('file:')) {
    const typed = new URL(specifier.replace(/\.js$/, '.ts'), context.parentURL)
    if (!existsSync(new URL(specifier, context.parentURL)) && existsSync(typed)) return { url: typed.href, format: 'module', shortCircuit: true }
  }
  return nextResolve(specifier, context)
}

export function load (url, context, nextLoad) {
  if (!isTypeScript(url)) return nextLoad(url, context)
  const path = fileURLToPath(url)
  const { code, map, errors } = transformSync(path, readFileSync(path, 'utf8'), { sourcemap: true, target: 'es2022' })
  if (errors.length > 0) throw new SyntaxError(`${path}: ${errors.map((error) => error.message).join('; ')}`)
  const mapped = `${code}\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify({ ...map, sources: [path] })).toString('base64')}\n`
  return { format: 'module', source: mapped, shortCircuit: true }
}
