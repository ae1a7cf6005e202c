import t from 'tap'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createMetrics } from '../metrics/metrics.js'

// docs/operations.md's alerting rules and the Grafana dashboard, checked as an operator would use them.
const promtool = ['/usr/bin/promtool', 'promtool'].find((command) => spawnSync(command, ['--version']).status === 0)
const page = readFileSync('docs/operations.md', 'utf8')
const rules = /```yaml\n([\s\S]*?)```/.exec(page)?.[1] ?? ''
const known = new Set((await createMetrics().registry.getMetricsAsJSON()).map((metric) => metric.name))
/** Metric names an expression uses, without the suffixes of a histogram's series. */
const metricsIn = (expr: string) => [...expr.matchAll(/\b(stowage_[a-z_]+)/g)].map(([, name]) => name.replace(/_(bucket|sum|count)$/, ''))

t.test('the documented alerting rules pass promtool check rules', { skip: !promtool && 'no promtool on this machine' }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'stowage-rules-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'stowage.rules.yml'), rules)
  const check = spawnSync(promtool as string, ['check', 'rules', join(dir, 'stowage.rules.yml')], { encoding: 'utf8' })
  t.equal(check.status, 0, `${check.stdout}${check.stderr}`)
  t.match(check.stdout, /SUCCESS: 8 rules found/)
})

t.test('the rules and the dashboard use only metrics that Stowage exports', async (t) => {
  const dashboard = JSON.parse(readFileSync('docs/grafana-dashboard.json', 'utf8')) as { panels: Array<{ title: string, targets: Array<{ expr: string }> }> }
  t.ok(dashboard.panels.length >= 10)
  const used = [...metricsIn(rules), ...dashboard.panels.flatMap((panel) => panel.targets.flatMap((target) => metricsIn(target.expr)))]
  for (const name of new Set(used)) t.ok(known.has(name), `${name} is exported`)
})
