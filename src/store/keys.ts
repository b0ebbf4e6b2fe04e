// API keys: `<prefix>_live_<random>` from 32 random bytes. Only the SHA-256 digest is stored;
// a high-entropy key needs no slow hash, and digests are compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** The scope both routes require (contract: Authentication); `key create` grants it by default. */
export const REQUIRED_SCOPE = 'forecast:write';

export interface GeneratedKey {
  key: string;
  keyId: string;
  digest: string;
}

export function digestKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

const KEY_ID_BYTES = 8;
/** A key id as generateKey makes it: `key_` and 16 hex characters. */
export const KEY_ID_PATTERN = new RegExp(`^key_[0-9a-f]{${2 * KEY_ID_BYTES}}$`);

export function generateKey(prefix: string): GeneratedKey {
  const key = `${prefix}_live_${randomBytes(32).toString('base64url')}`;
  return { key, keyId: `key_${randomBytes(KEY_ID_BYTES).toString('hex')}`, digest: digestKey(key) };
}

/** Constant-time comparison of two hex digests. */
export function digestsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}
