// Placeholder: the real /v1/forecast route replaces this file.
import type { FastifyInstance } from 'fastify';

export default async function forecastRoute(_app: FastifyInstance): Promise<void> {}
