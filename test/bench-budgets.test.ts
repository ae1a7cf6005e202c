import t from 'tap'
import { atLeast, atMost, createBudgets } from '../bench/budgets.js'

t.test('a bench run lists every measure, then the missed budgets, and says it failed when one is missed', async (t) => {
  const lines: string[] = []
  const budgets = createBudgets((line) => lines.push(line))
  budgets.measure('raw GET / GetObject', 0.7, atLeast(0.8))
  budgets.measure('tus time / raw PUT time', 1.2, atMost(1.3))
  budgets.measure('bare relay / GetObject', 0.5, 'reported')
  budgets.measure('median under attack (ms)', 60, atMost(50, ' ms'))
  t.equal(lines.length, 4, 'every figure printed as it is measured')
  t.match(lines[0], /MISSED raw GET \/ GetObject\s+0\.70\s+\(budget >= 0\.8\)/)
  t.match(lines[1], /ratio  tus time/)
  t.match(lines[2], /\(reported\)/)
  t.equal(budgets.summarize(), false, 'the run fails')
  t.same(lines.slice(4), ['\n2 budgets missed:', '  raw GET / GetObject: 0.70, budget >= 0.8', '  median under attack (ms): 60.00, budget <= 50 ms'])
})

t.test('a run within every budget succeeds; a measure that is not a number misses its budget', async (t) => {
  const lines: string[] = []
  const met = createBudgets((line) => lines.push(line))
  met.measure('burst / one', 2.9, atMost(3))
  met.measure('file GET / reference', 0.8, atLeast(0.8))
  t.equal(met.summarize(), true)
  const broken = createBudgets(() => {})
  broken.measure('zip / raw', Number.NaN, atLeast(0.7))
  t.equal(broken.summarize(), false)
})
