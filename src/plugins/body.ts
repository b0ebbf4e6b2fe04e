// The JSON content-type parser only collects the raw bytes: the addon parses and validates them
// in the handler (validation order step 3). An oversized body is refused before it is read in
// full (Fastify checks Content-Length first, and stops a chunked body at the limit).
import fp from 'fastify-plugin';

const EMPTY = Buffer.alloc(0);

export default fp(
  async (app) => {
    app.decorateRequest('rawBody', null as unknown as Buffer);
    app.addHook('onRequest', async (req) => {
      req.rawBody = EMPTY;
    });
    // Only JSON bodies are accepted: any other media type answers 400 VALIDATION_ERROR (Content-Type).
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: app.config.bodyLimitBytes }, (req, body, done) => {
      req.rawBody = body as Buffer;
      done(null, undefined);
    });
  },
  { name: 'hora-body', fastify: '5.x' },
);
