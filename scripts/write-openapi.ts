// Writes docs/openapi.json from the typebox schemas (`npm run openapi`).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../src/native.js';
import { openApiDocument } from '../src/schemas/openapi.js';

const out = join(packageRoot, 'docs', 'openapi.json');
writeFileSync(out, `${JSON.stringify(openApiDocument(), null, 2)}\n`);
console.log(`wrote ${out}`);
