// The module hooks of ts-loader.mjs (they run on the loader's own thread).
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { transformSync } from 'rolldown/utils'

const isTypeScript = (url) => url.startsWith('file:') && /\.tsx?$/.test(url) && !url.includes('/node_modules/')

export async function resolve (specifier, context, nextResolve) {
  if (/^\.\.?\//.test(specifier) && specifier.endsWith('.js') && context.parentURL?.startsWith('file:')) {
    const typed = new URL(specifier.replace(/\.js$/, '.ts'), context.parentURL)
    if (!existsSync(new URL(specifier, context.parentURL)) && existsSync(typed)) return { url: typed.href, format: 'module', shortCircuit: true }
  }
  return await nextResolve(specifier, context)
}

export async function load (url, context, nextLoad) {
  if (!isTypeScript(url)) return await nextLoad(url, context)
  const path = fileURLToPath(url)
  const { code, map, errors } = transformSync(path, await readFile(path, 'utf8'), { sourcemap: true, target: 'es2022' })
  if (errors.length > 0) throw new SyntaxError(`${path}: ${errors.map((error) => error.message).join('; ')}`)
  const mapped = `${code}\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify({ ...map, sources: [path] })).toString('base64')}\n`
  return { format: 'module', source: mapped, shortCircuit: true }
}
