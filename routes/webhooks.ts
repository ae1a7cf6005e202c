import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { parentKeyOf } from '../keys/service.js'
import { Type } from '@sinclair/typebox'
import { stowageOf } from '../http/decorators.js'
import { answer, CALLER_REFUSALS, CALLER_SECURITY, errorResponses } from '../schemas/common.js'
import { DOCUMENTED } from '../schemas/openapi.js'
import { DeliveryList, WebhookBody, WebhookList, WebhookMade, WebhookParams } from '../schemas/webhooks.js'

/** A user's webhooks: told of their changes by signed POSTs. */
export const webhookRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { stowageAuthenticate, stowageWebhooks: webhooks } = stowageOf(app)
  app.addHook('onRequest', stowageAuthenticate)

  app.post('/api/webhooks', {
    config: DOCUMENTED,
    schema: {
      operationId: 'createWebhook',
      tags: ['changes'],
      summary: 'Have your changes POSTed to a URL, signed as Standard Webhooks',
      description: 'Each change (as GET /api/changes lists it) is POSTed as `{type, timestamp, data}` with `webhook-id`, `webhook-timestamp` and `webhook-signature`; a 2xx within 10 s delivers it, anything else is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, and the webhook is disabled after the last. Redirects are not followed.',
      security: CALLER_SECURITY,
      body: Type.Ref(WebhookBody),
      response: { 201: answer('Made; its secret is shown this once', Type.Ref(WebhookMade)), ...errorResponses(400, 415, ...CALLER_REFUSALS) }
    }
  }, async (request, reply) => reply.code(201).send(await webhooks.create(request.userId, request.body, parentKeyOf(request.stowageCredential))))

  app.get('/api/webhooks', {
    config: DOCUMENTED,
    schema: {
      operationId: 'listWebhooks',
      tags: ['changes'],
      summary: 'Your webhooks',
      security: CALLER_SECURITY,
      response: { 200: answer('Your webhooks, oldest first', Type.Ref(WebhookList)), ...errorResponses(...CALLER_REFUSALS) }
    }
  }, async (request) => webhooks.list(request.userId))

  app.delete('/api/webhooks/:id', {
    config: DOCUMENTED,
    schema: {
      operationId: 'deleteWebhook',
      tags: ['changes'],
      summary: 'Delete a webhook and what it still had to deliver',
      security: CALLER_SECURITY,
      params: WebhookParams,
      response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses(404, ...CALLER_REFUSALS) }
    }
  }, async (request, reply) => {
    await webhooks.remove(request.userId, request.params.id)
    return reply.code(204).send(null)
  })

  app.get('/api/webhooks/:id/deliveries', {
    config: DOCUMENTED,
    schema: {
      operationId: 'listWebhookDeliveries',
      tags: ['changes'],
      summary: 'A webhook\'s last 100 deliveries: delivered, pending (and when next) or failed, and why',
      security: CALLER_SECURITY,
      params: WebhookParams,
      response: { 200: answer('Newest first', Type.Ref(DeliveryList)), ...errorResponses(404, ...CALLER_REFUSALS) }
    }
  }, async (request) => webhooks.deliveries(request.userId, request.params.id))
}
