import fp from 'fastify-plugin'
import { createPeopleRepository } from '../db/people.js'
import { decorateStowage, stowageOf } from '../http/decorators.js'
import { createPeople } from '../identity/people.js'

/** The people Stowage has authenticated: noted by the authentication chain, found for shares. */
export const peoplePlugin = fp(async (app) => {
  decorateStowage(app, 'stowagePeople', createPeople(createPeopleRepository(stowageOf(app).stowageDb)))
}, { name: 'stowage-people', fastify: '5.x', dependencies: ['stowage-db'] })
