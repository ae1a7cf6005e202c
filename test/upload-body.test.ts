import t from 'tap'
import { Readable } from 'node:stream'
import { decodeStrictBase64 } from '../storage/base64.js'
import { parseUpload } from '../storage/upload-body.js'

const LIMIT = 1024 * 1024
const parse = (text: string, { declare = true, limit = LIMIT, max = LIMIT } = {}) => {
  const raw = Buffer.from(text)
  return parseUpload(Readable.from([raw.subarray(0, 7), raw.subarray(7)]), declare ? raw.length : undefined, limit, max)
}
const b64 = (text: string) => Buffer.from(text).toString('base64')

t.test('content is decoded from the body bytes; the rest is parsed as JSON', async (t) => {
  const { body, bytes } = await parse(` { "contentType" : "text/plain", "content" : "${b64('hello')}" } `)
  t.equal(bytes?.toString(), 'hello')
  t.same(body, { contentType: 'text/plain', content: '' })
})

t.test('a body without a declared length is read whole', async (t) => {
  t.equal((await parse(`{"content":"${b64('chunked')}"}`, { declare: false })).bytes?.toString(), 'chunked')
})

t.test('escapes, duplicates and escaped keys fall back to JSON.parse with its meaning', async (t) => {
  t.equal((await parse('{"content":"YWJj\\/w=="}')).bytes?.toString('base64'), 'YWJj/w==', 'an escaped slash')
  t.equal((await parse(`{"content":"${b64('first')}","content":"${b64('last')}"}`)).bytes?.toString(), 'last', 'the last duplicate wins')
  t.equal((await parse(`{"\\u0063ontent":"${b64('escaped key')}"}`)).bytes?.toString(), 'escaped key')
  t.equal((await parse(`{"contentType":"\\"content\\":\\"x","content":"${b64('tricky')}"}`)).bytes?.toString(), 'tricky', 'a key inside a string')
})

t.test('refusals: bad JSON and bad base64 are 400, too large is 413', async (t) => {
  for (const text of ['{"content":', '{"content":"eA=="', '{"content":"eA==",}', 'null x', '{"content":"eA==" "a":1}']) {
    await t.rejects(parse(text), { statusCode: 400, message: /./ }, text)
  }
  for (const content of ['abc', 'YQ', 'ab=c', 'YW Jj', 'YR==', 'YWJ=', '====', 'YW_j', 'é=', '\\u00e9AAA']) {
    await t.rejects(parse(`{"content":"${content}"}`), { statusCode: 400, message: /base64/ }, content)
  }
  await t.rejects(parse(`{"content":"${b64('12345')}"}`, { max: 4 }), { statusCode: 413, message: /too large|larger/ }, 'decoded size over the maximum')
  await t.rejects(parse(`{"content":"${b64('x'.repeat(100))}"}`, { limit: 50 }), { statusCode: 413, message: /too large|larger/ }, 'body over the limit')
  await t.rejects(parse(`{"content":"${b64('x'.repeat(100))}"}`, { limit: 50, declare: false }), { statusCode: 413, message: /too large|larger/ }, 'undeclared body over the limit')
  t.same((await parse('{}')).body, {})
})

t.test('decodeStrictBase64 agrees with Buffer on every length around the chunk size', async (t) => {
  for (const size of [0, 1, 2, 3, 49151, 49152, 49153, 65536, 200_000]) {
    const bytes = Buffer.from(Array.from({ length: size }, (_, i) => (i * 7) & 255))
    t.ok(decodeStrictBase64(Buffer.from(bytes.toString('base64')), size).equals(bytes), `${size} bytes`)
  }
})

t.test('an upload has content and contentType only, both strings: anything else is 400 before JSON.parse', async (t) => {
  const decoy = '['.repeat(1_000_000) + ']'.repeat(1_000_000)
  const refusals: Record<string, [string, RegExp]> = {
    'an unknown field': [`{"content":"${b64('x')}","owner":"bob"}`, /only content and contentType, not "owner"/],
    'an unknown field with a deeply nested decoy': [`{"content":"${b64('x')}","x":${decoy}}`, /only content and contentType/],
    'a nested decoy as the body': [decoy, /JSON object/],
    'a number for content': ['{"content":5}', /content \(in the body\) must be a string/],
    'an object for contentType': [`{"content":"${b64('x')}","contentType":${decoy.slice(0, 10)}}`, /contentType \(in the body\) must be a string/]
  }
  for (const [name, [text, message]] of Object.entries(refusals)) {
    // The messages come from the scan of the body, which runs before JSON.parse.
    await t.rejects(parse(text, { limit: 4 * 1024 * 1024 }), { statusCode: 400, message }, name)
  }
})
