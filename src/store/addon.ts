// Loads the addon's SQLite executor. The addon lives in `<package root>/native/`, which is the
// same place whether this file runs from `src/` (vitest) or from `dist/src/` (compiled), so the
// package root is searched for instead of a fixed relative import.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { SqliteDb } from '../../native/index.js';

export type { SqliteDb };

function findAddonLoader(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'native', 'index.js');
    if (existsSync(join(dir, 'package.json')) && existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) {
      throw new Error('The native addon (native/index.js) was not found: run `npm ci` to build it.');
    }
    dir = parent;
  }
}

let loaded: Promise<typeof SqliteDb> | undefined;

/** The SqliteDb class of the addon, loaded once. */
export function sqliteDbClass(): Promise<typeof SqliteDb> {
  loaded ??= import(pathToFileURL(findAddonLoader()).href).then((m: { SqliteDb: typeof SqliteDb }) => m.SqliteDb);
  return loaded;
}
