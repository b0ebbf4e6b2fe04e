#!/usr/bin/env node
// The package's `hora` command: runs the compiled operator CLI.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const entry = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'src', 'cli', 'main.js');
if (!existsSync(entry)) {
  process.stderr.write(`${JSON.stringify({ error: { code: 'failed', message: 'hora is not built: run `npm ci` (or `npm run build`) first.' } })}\n`);
  process.exit(1);
}
await import(pathToFileURL(entry).href);
