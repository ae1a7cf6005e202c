import { Type, type Static } from '@sinclair/typebox'

export const Person = Type.Object({
  userId: Type.String(),
  email: Type.Optional(Type.String({ description: 'From the identity provider\'s `email` claim, or set by `stowage admin person`' })),
  name: Type.Optional(Type.String({ description: 'From the `name` claim (else `preferred_username`), or set by `stowage admin person`' }))
}, { $id: 'StowagePerson' })

export const Me = Type.Object({
  userId: Type.String(),
  orgId: Type.Union([Type.String(), Type.Null()], { description: 'Your organization; people share within it' }),
  email: Type.Optional(Type.String()),
  name: Type.Optional(Type.String())
}, { $id: 'StowageMe' })

export const PeopleQuery = Type.Object({
  q: Type.String({ maxLength: 256, description: 'The start of a person\'s email or name, in any case: 2 characters at least' })
})
export type PeopleQuery = Static<typeof PeopleQuery>

export const PeopleList = Type.Object({
  people: Type.Array(Type.Ref(Person), { description: 'At most 20, you left out' })
}, { $id: 'StowagePeople' })

export const peopleSchemas = [Person, Me, PeopleList]
