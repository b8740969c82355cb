import { describe, expect, it } from 'vitest';
import { isSupportedNode } from './node-version.js';

describe('the Node.js version check of the svc program', () => {
  it.each([
    ['20.20.2', false],
    ['22.11.9', false],
    ['22.12.0', true],
    ['22.23.3', true],
    ['23.0.0', true],
    ['garbage', false],
  ])('%s supported: %s', (version, supported) => {
    expect(isSupportedNode(version)).toBe(supported);
  });
});
