import t from 'tap'
import { bearer, buildTestApp } from './helpers/app.js'
import { runCommand, CLI_COMMAND } from './helpers/cli.js'
import { createTestDatabase } from './helpers/db.js'
import { startIdp } from './helpers/idp.js'

// People (DESIGN §13): a row per person authenticated, with what their sign-in names them; found
// within their organization only; set by `stowage admin person` for people with API keys only.
const idp = await startIdp()
t.teardown(() => idp.close())

t.test('a person is noted as they sign in, their email and name from the token, written only when they change', async (t) => {
  const { app, close } = await buildTestApp({ idp })
  t.teardown(close)
  const ada = bearer(idp.token({ sub: 'ada', org_id: 'acme', email: 'Ada@Example.org', name: 'Ada Lovelace' }))
  const me = await app.inject({ url: '/api/me', headers: ada })
  t.equal(me.statusCode, 200)
  t.same(me.json(), { userId: 'ada', orgId: 'acme', email: 'Ada@Example.org', name: 'Ada Lovelace' })

  const written = async () => (await app.stowageDb.selectFrom('people').select('updated_at').where('user_id', '=', 'ada').executeTakeFirstOrThrow()).updated_at
  const first = await written()
  for (let i = 0; i < 3; i++) t.equal((await app.inject({ url: '/api/usage', headers: ada })).statusCode, 200)
  t.equal(await written(), first, 'no write while nothing changed')

  // A token naming her otherwise; then one with preferred_username and no name; then an API key, which names no one.
  await new Promise((resolve) => setTimeout(resolve, 5))
  t.match((await app.inject({ url: '/api/me', headers: bearer(idp.token({ sub: 'ada', org_id: 'acme', email: 'ada@example.org', name: 'Ada King' })) })).json(), { email: 'ada@example.org', name: 'Ada King' })
  t.not(await written(), first, 'written when the claims changed')
  t.match((await app.inject({ url: '/api/me', headers: bearer(idp.token({ sub: 'grace', org_id: 'acme', preferred_username: 'grace.h' })) })).json(), { userId: 'grace', name: 'grace.h' })
  const { key } = await app.stowageKeys.create({ userId: 'ada', orgId: 'acme' })
  t.same((await app.inject({ url: '/api/me', headers: bearer(key) })).json(), { userId: 'ada', orgId: 'acme', email: 'ada@example.org', name: 'Ada King' }, 'an API key keeps what the token said')
  t.same((await app.inject({ url: '/api/me', headers: bearer(idp.token({ sub: 'lin', email: 'x'.repeat(400) + '@example.org' })) })).json(), { userId: 'lin', orgId: null }, 'a claim past 320 characters is not kept')
  t.equal((await app.inject({ url: '/api/me' })).statusCode, 401)
})

t.test('people are found by the start of their email or name, in any case, within the caller\'s organization, at most 20, the caller left out', async (t) => {
  const { app, close } = await buildTestApp({ idp })
  t.teardown(close)
  const signIn = async (claims: Record<string, unknown>) => {
    const headers = bearer(idp.token(claims))
    t.equal((await app.inject({ url: '/api/me', headers })).statusCode, 200)
    return headers
  }
  const ada = await signIn({ sub: 'ada', org_id: 'acme', email: 'ada@acme.example', name: 'Ada Lovelace' })
  await signIn({ sub: 'adam', org_id: 'acme', email: 'adam@acme.example', name: 'Adam Smith' })
  await signIn({ sub: 'bea', org_id: 'acme', email: 'bea@acme.example', name: 'Ädelheid Bea' })
  await signIn({ sub: 'adele', org_id: 'other', email: 'adele@other.example', name: 'Adele' })
  await signIn({ sub: 'percent', org_id: 'acme', email: 'a%b@acme.example' })
  const lone = await signIn({ sub: 'lone', email: 'lone@nowhere.example' })
  await signIn({ sub: 'adrian', email: 'adrian@nowhere.example' })

  const find = async (q: string, headers = ada) => await app.inject({ url: `/api/people?q=${encodeURIComponent(q)}`, headers })
  t.same((await find('AD')).json(), { people: [{ userId: 'adam', email: 'adam@acme.example', name: 'Adam Smith' }] }, 'the caller left out, the other organization too')
  t.same((await find('äd')).json().people.map((person: { userId: string }) => person.userId), ['bea'], 'a name in any case')
  t.same((await find('adam@')).json().people.map((person: { userId: string }) => person.userId), ['adam'], 'an email')
  t.same((await find('a%')).json().people.map((person: { userId: string }) => person.userId), ['percent'], 'a wildcard is plain text')
  t.same((await find('ad', lone)).json().people.map((person: { userId: string }) => person.userId), ['adrian'], 'people of no organization find one another')
  t.same((await find('smith')).json().people, [], 'the start only')
  for (let i = 0; i < 25; i++) await signIn({ sub: `many${i}`, org_id: 'acme', email: `many${i}@acme.example` })
  t.equal((await find('many')).json().people.length, 20, 'at most 20')
  const short = await find('a')
  t.equal(short.statusCode, 400)
  t.same(short.json(), { error: 'q must be at least 2 characters: the start of a person\'s email or name' })
  t.equal((await app.inject({ url: '/api/people', headers: ada })).statusCode, 400, 'q is asked for')
  t.equal((await find('x'.repeat(300))).statusCode, 400, 'q is at most 256 characters')
  t.equal((await app.inject({ url: '/api/people?q=ad' })).statusCode, 401)
})

t.test('stowage admin person sets an API-key person\'s email, name and organization; mistakes are said before the database is touched', async (t) => {
  const database = await createTestDatabase({ shared: true })
  t.teardown(() => database.drop())
  const env = { ...process.env, DATABASE_URL: database.url }
  const admin = (args: string[]) => runCommand(CLI_COMMAND[0], [...CLI_COMMAND.slice(1), 'admin', ...args], env)
  t.equal((await admin(['create-key', '--user', 'kim', '--init'])).status, 0)
  const set = await admin(['person', '--user', 'kim', '--email', 'kim@acme.example', '--name', 'Kim Lee', '--org', 'acme'])
  t.equal(set.status, 0, set.stderr)
  t.same(JSON.parse(set.stdout), { userId: 'kim', orgId: 'acme', email: 'kim@acme.example', name: 'Kim Lee' })
  const renamed = await admin(['person', '--user', 'kim', '--name', 'Kim Park'])
  t.same(JSON.parse(renamed.stdout), { userId: 'kim', orgId: 'acme', email: 'kim@acme.example', name: 'Kim Park' }, 'what is not given is kept')

  const { app, close } = await buildTestApp({ env: { DATABASE_URL: database.url } })
  t.teardown(close)
  const { key } = await app.stowageKeys.create({ userId: 'sam', orgId: 'acme' })
  t.same((await app.inject({ url: '/api/people?q=kim', headers: bearer(key) })).json(), { people: [{ userId: 'kim', email: 'kim@acme.example', name: 'Kim Park' }] })

  for (const [args, said] of [
    [['person'], /needs --user/],
    [['person', '--user', 'kim'], /needs --email, --name or --org/],
    [['person', '--user', '../x', '--name', 'X'], /safe path segment/],
    [['person', '--user', 'kim', '--email', 'not an address'], /--email is an address/],
    [['person', '--user', 'kim', '--name', ' '], /--name is 1 to 256 characters/]
  ] as const) {
    const refused = await admin([...args])
    t.equal(refused.status, 2, args.join(' '))
    t.match(refused.stderr, said)
  }
})
