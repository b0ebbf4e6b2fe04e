// Checks on JSON the engine wrote as bytes, made without decoding them. No addon import: the
// error registry (src/errors.ts) uses it too.

/** Whether `json` is exactly `empty`, as the engine writes an empty array (`[]`) or object (`{}`). */
export function isEmptyJson(json: Buffer, empty: '[]' | '{}'): boolean {
  return json.length === 2 && json[0] === empty.charCodeAt(0) && json[1] === empty.charCodeAt(1);
}
