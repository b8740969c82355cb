import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_DESCRIPTIONS } from './config-descriptions.js';
import { configMembers, configReference } from './config-reference.js';

describe('docs/configuration.md', () => {
  it('is current: regenerate it with `npm run docs:config` after changing a schema', () => {
    const committed = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    expect(committed).toBe(configReference());
  });

  it('describes every member, and no member that is gone', () => {
    const members = configMembers().map(([path]) => path);
    expect(members.filter((p) => !CONFIG_DESCRIPTIONS[p])).toEqual([]);
    expect(Object.keys(CONFIG_DESCRIPTIONS).filter((p) => !members.includes(p))).toEqual([]);
  });
});
