// Header values as the client sent them: Node keeps only the first of some repeated headers
// (Authorization, Host) in `req.headers`, where a repeat is itself the fault.

/** Every value of header `name` (lower case) in Node's raw list, names at even indexes. */
export function rawHeaderValues(raw: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) values.push(raw[i + 1]!);
  return values;
}
