import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { BadRequestError } from '../errors.js'
import { stowageOf } from '../http/decorators.js'
import { DOCUMENTED } from '../schemas/openapi.js'
import { answer, CALLER_REFUSALS, CALLER_SECURITY, errorResponses } from '../schemas/common.js'
import { Me, PeopleList, PeopleQuery } from '../schemas/people.js'

/** Who the caller is, and the people of their organization they can share with (DESIGN §13). */
export const peopleRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { stowageAuthenticate, stowagePeople: people } = stowageOf(app)
  app.addHook('onRequest', stowageAuthenticate)

  app.get('/api/me', {
    config: DOCUMENTED,
    schema: {
      operationId: 'getMe',
      tags: ['people'],
      summary: 'Who you are to Stowage',
      security: CALLER_SECURITY,
      response: { 200: answer('Your id, organization, and what your sign-in names you', Type.Ref(Me)), ...errorResponses(...CALLER_REFUSALS) }
    }
  }, async (request) => {
    const { email, name } = await people.find(request.userId) ?? {}
    return { userId: request.userId, orgId: request.orgId, ...(email ? { email } : {}), ...(name ? { name } : {}) }
  })

  app.get('/api/people', {
    config: DOCUMENTED,
    schema: {
      operationId: 'findPeople',
      tags: ['people'],
      summary: 'People of your organization, found by the start of their email or name',
      security: CALLER_SECURITY,
      querystring: PeopleQuery,
      response: { 200: answer('At most 20 people, you left out', Type.Ref(PeopleList)), ...errorResponses(400, ...CALLER_REFUSALS) }
    }
  }, async (request) => {
    const text = request.query.q.trim()
    if ([...text].length < 2) throw new BadRequestError('q must be at least 2 characters: the start of a person\'s email or name')
    const found = await people.search(request.orgId, text, request.userId)
    return { people: found.map(({ orgId, ...person }) => person) }
  })
}
