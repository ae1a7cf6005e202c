import { Type, type Static } from '@sinclair/typebox'
import { MAX_URL_LENGTH, SHOWN_DELIVERIES } from '../webhooks/service.js'

export const WebhookBody = Type.Object({
  url: Type.String({ minLength: 1, maxLength: MAX_URL_LENGTH, description: 'Where deliveries are POSTed: http or https, to a host that is not a loopback, private or link-local address' }),
  prefix: Type.Optional(Type.String({ description: 'Only changes under this prefix (a move counts for both of its paths); all by default' }))
}, { $id: 'StowageWebhookBody', additionalProperties: false })
export type WebhookBody = Static<typeof WebhookBody>

const webhookFields = {
  id: Type.String(),
  url: Type.String(),
  prefix: Type.String(),
  createdAt: Type.String({ format: 'date-time' })
}

export const WebhookMade = Type.Object({
  ...webhookFields,
  secret: Type.String({ description: 'whsec_…: the key of the deliveries\' signatures (Standard Webhooks). Shown this once' })
}, { $id: 'StowageWebhookMade' })

export const WebhookList = Type.Object({
  webhooks: Type.Array(Type.Object({
    ...webhookFields,
    disabled: Type.Boolean({ description: 'A delivery failed its last retry: nothing more is sent; delete it and make it again' })
  }))
}, { $id: 'StowageWebhookList' })

export const DeliveryList = Type.Object({
  deliveries: Type.Array(Type.Object({
    id: Type.String({ description: 'The webhook-id header of its attempts' }),
    type: Type.String({ description: 'The event type its POST says: file.put, file.delete, file.move, folder.create, folder.delete' }),
    op: Type.String({ description: 'The journal\'s op of the change (put, delete, move, folder, folder-delete)' }),
    key: Type.String(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
    attempts: Type.Integer(),
    lastError: Type.Optional(Type.String()),
    nextAttemptAt: Type.Optional(Type.String({ format: 'date-time' })),
    deliveredAt: Type.Optional(Type.String({ format: 'date-time' }))
  }), { maxItems: SHOWN_DELIVERIES, description: 'Newest first' })
}, { $id: 'StowageDeliveryList' })

export const WebhookParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) })

export const webhookSchemas = [WebhookBody, WebhookMade, WebhookList, DeliveryList]
