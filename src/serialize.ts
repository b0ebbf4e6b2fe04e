// JSON response bodies spliced from parts that are already JSON text: the engine's parts come as
// UTF-8 bytes and go out as one Buffer, so a megabyte of forecast rows never becomes a JavaScript
// string (no UTF-8 transcoding, no byte counting, lighter GC). The one copy that joins them runs
// on the thread pool: an answer of hundreds of megabytes took seconds to join, and on the event
// loop every other request waited for it.
import { joinBytes } from './native.js';

/** One member of a JSON object: its name and its value, already serialised (bytes or text). */
export type JsonMember = readonly [name: string, json: Buffer | string];

/** `{"name":json,...}` as one Buffer. */
export function spliceObject(members: readonly JsonMember[]): Promise<Buffer> {
  const pieces: Buffer[] = [];
  members.forEach(([name, json], i) => {
    pieces.push(Buffer.from(`${i === 0 ? '{' : ','}${JSON.stringify(name)}:`));
    pieces.push(typeof json === 'string' ? Buffer.from(json) : json);
  });
  pieces.push(Buffer.from(members.length === 0 ? '{}' : '}'));
  return joinBytes(pieces);
}
