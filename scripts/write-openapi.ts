// Writes docs/openapi.json and docs/cleaning-report.schema.json from the typebox schemas
// (`npm run openapi`).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../src/native.js';
import { cleaningReportJsonSchema } from '../src/schemas/cleaning-report.js';
import { openApiDocument } from '../src/schemas/openapi.js';

for (const [name, doc] of [
  ['openapi.json', openApiDocument()],
  ['cleaning-report.schema.json', cleaningReportJsonSchema()],
] as const) {
  const out = join(packageRoot, 'docs', name);
  writeFileSync(out, `${JSON.stringify(doc, null, 2)}\n`);
  console.log(`wrote ${out}`);
}
