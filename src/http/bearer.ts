import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/**
 * `Authorization: Bearer <secret>` checked in constant time (compared as SHA-256 digests, so the
 * lengths never differ). Used by the API's key and the pipeline process's token.
 */
export function bearerCheck(secret: string): (header: string | undefined) => boolean {
  const expected = digest(secret);
  return (header) => {
    const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
    return !!match?.[1] && timingSafeEqual(digest(match[1].trim()), expected);
  };
}
