// Placeholder: the real /v1/clean route replaces this file.
import type { FastifyInstance } from 'fastify';

export default async function cleanRoute(_app: FastifyInstance): Promise<void> {}
