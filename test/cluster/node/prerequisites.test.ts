import { describe, expect, it } from 'vitest';
import { missingPrerequisites } from './prerequisites.js';

// The global setup fails a run on a machine without these, naming each; here the check itself.
describe('missingPrerequisites', () => {
  it('names root and every program with its package when nothing is there', () => {
    const missing = missingPrerequisites(1000, '/nonexistent');
    expect(missing[0]).toMatch(/^root /);
    expect(missing).toContain('containerd: apt package docker.io (brings containerd and runc)');
    expect(missing).toContain('mmdebstrap: apt package mmdebstrap');
    expect(missing).toContain('kubectl: kubectl on PATH');
  });

  it('finds nothing missing on the machine the real node runs on (root, the packages installed)', () => {
    expect(missingPrerequisites(process.getuid?.() ?? -1, process.env.PATH ?? '')).toEqual([]);
  });
});
