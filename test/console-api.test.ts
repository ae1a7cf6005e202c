import t from 'tap'
import { readFileSync, writeFileSync } from 'node:fs'
import openapiTS, { astToString } from 'openapi-typescript'
import { buildTestApp } from './helpers/app.js'

// The console calls the API through a client typed by the service's own OpenAPI document
// (console/src/api-schema.ts, made by openapi-typescript): a console that no longer matches the
// service fails here. `STOWAGE_WRITE_CONSOLE_API=1 npx tap test/console-api.test.ts` makes it again.
const SCHEMA = 'console/src/api-schema.ts'

t.test('the console\'s API types are those of the service\'s OpenAPI document as it is now', async (t) => {
  const { app, close } = await buildTestApp()
  t.teardown(close)
  await app.ready()
  const generated = `// Made by test/console-api.test.ts from the service's OpenAPI document: do not edit.\n${astToString(await openapiTS(app.swagger() as never))}`
  if (process.env.STOWAGE_WRITE_CONSOLE_API) writeFileSync(SCHEMA, generated)
  t.equal(readFileSync(SCHEMA, 'utf8'), generated, `${SCHEMA} is stale: run STOWAGE_WRITE_CONSOLE_API=1 npx tap test/console-api.test.ts`)
})
