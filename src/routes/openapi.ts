// GET /openapi.json: the document generated from the typebox schemas.
import type { FastifyInstance } from 'fastify';
import { openApiDocument } from '../schemas/openapi.js';

export default async function openApiRoute(app: FastifyInstance): Promise<void> {
  const body = JSON.stringify(openApiDocument());
  app.get('/openapi.json', async (_req, reply) => reply.type('application/json; charset=utf-8').send(body));
}
