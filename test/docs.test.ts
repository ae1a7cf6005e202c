import t from 'tap'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { ConfigSchema } from '../config.js'

const pages = ['README.md', ...readdirSync('docs').filter((name) => name.endsWith('.md')).map((name) => join('docs', name))]

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string) => heading.toLowerCase().replace(/[^a-z0-9 _-]/g, '').replace(/ /g, '-')
const anchorsOf = (page: string) => new Set([...readFileSync(page, 'utf8').matchAll(/^#+ (.+)$/gm)].map(([, heading]) => anchorOf(heading)))

t.test('every link in README and docs/ leads to a file of the repository, and to a heading that exists', async (t) => {
  for (const page of pages) {
    for (const [, target] of readFileSync(page, 'utf8').matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^https?:/.test(target)) continue
      const [file, anchor] = target.split('#')
      const path = file ? join(dirname(page), file) : page
      t.ok(existsSync(path) && !path.startsWith('..'), `${page} → ${target}`)
      if (anchor) t.ok(anchorsOf(path).has(anchor), `${page} → ${target}: the heading exists`)
    }
  }
})

t.test('docs/configuration.md documents every variable the service reads', async (t) => {
  const documented = readFileSync('docs/configuration.md', 'utf8')
  for (const name of Object.keys(ConfigSchema.properties)) {
    t.match(documented, new RegExp(`^\\| (?:[A-Z0-9_, /…]* )?${name}\\b`, 'm'), name)
  }
})
