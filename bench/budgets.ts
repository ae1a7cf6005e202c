/** A budget of DESIGN.md §9 or §12: the bound a measure must stay within, and how it reads. */
export interface Budget { atLeast?: number, atMost?: number, text: string }

export const atLeast = (bound: number, unit = ''): Budget => ({ atLeast: bound, text: `>= ${bound}${unit}` })
export const atMost = (bound: number, unit = ''): Budget => ({ atMost: bound, text: `<= ${bound}${unit}` })

export const withinBudget = (value: number, { atLeast, atMost }: Budget) =>
  !Number.isNaN(value) && (atLeast === undefined || value >= atLeast) && (atMost === undefined || value <= atMost)

/**
 * The measures of one bench run: each printed as it comes, with its budget, or 'reported' for a
 * figure that has none; `missed()` the ones out of budget, for the run to list and fail on at the end.
 */
export function createBudgets (print: (line: string) => void = console.log) {
  const missed: Array<{ name: string, value: number, budget: Budget }> = []
  return {
    measure (name: string, value: number, budget: Budget | 'reported', note = '') {
      const bound = budget === 'reported' ? 'reported' : `budget ${budget.text}`
      const out = budget !== 'reported' && !withinBudget(value, budget)
      if (out) missed.push({ name, value, budget: budget as Budget })
      print(`  ${out ? 'MISSED' : 'ratio '} ${name.padEnd(50)} ${value.toFixed(2)}  (${bound}${note ? `: ${note}` : ''})`)
    },
    missed: () => missed,
    /** The missed budgets, one a line; true when there were none. */
    summarize (): boolean {
      if (missed.length === 0) {
        print('\nEvery budget was met.')
        return true
      }
      print(`\n${missed.length} budget${missed.length === 1 ? '' : 's'} missed:`)
      for (const { name, value, budget } of missed) print(`  ${name}: ${value.toFixed(2)}, budget ${budget.text}`)
      return false
    }
  }
}
