// Secrets in connector configs (passwords in URIs, SASL passwords, keys, tokens) never reach a log
// line or an error message: configs are shown redacted, and transport errors (a driver may quote
// the URI it failed on) have every secret of their config replaced.

const SECRET_KEY = /(password|passwd|secret|token|credential|api[._-]?key|private[._-]?key|sasl\.jaas)/i;
const MASK = '<redacted>';

/** The password of a URI's user info (`postgres://u:pw@host`), if any. */
function uriPassword(text: string): string | undefined {
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^/@:\s]*:([^@/\s]+)@/i.exec(text);
  return m?.[1];
}

/** Every secret string in a config (any depth): values of secret-named members and URI passwords. */
export function secretsOf(value: unknown, key = ''): string[] {
  if (typeof value === 'string') {
    if (SECRET_KEY.test(key) && value !== '') return [value];
    const pw = uriPassword(value);
    return pw === undefined ? [] : [pw, decodeURIComponentSafe(pw)];
  }
  if (Array.isArray(value)) return value.flatMap((v) => secretsOf(v, key));
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([k, v]) => secretsOf(v, k));
  return [];
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** A copy of a config with its secrets masked: what logs and /stats show. */
export function redactConfig<T>(value: T, key = ''): T {
  if (typeof value === 'string') {
    if (SECRET_KEY.test(key)) return MASK as T;
    const pw = uriPassword(value);
    return (pw === undefined ? value : value.replace(`:${pw}@`, `:${MASK}@`)) as T;
  }
  if (Array.isArray(value)) return value.map((v) => redactConfig(v, key)) as T;
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactConfig(v, k)])) as T;
  return value;
}

/** A message with every secret replaced (longest first, so that a secret within another goes too). */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of [...new Set(secrets)].filter((x) => x.length > 0).sort((a, b) => b.length - a.length))
    out = out.split(s).join(MASK);
  return out;
}
