import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * PGlite is a single-process database: two processes opening one data directory would corrupt it.
 * A lock file holding the owner's pid keeps a second `svc manager` out; a lock left by a process
 * that no longer exists (kill -9, power loss) is taken over.
 */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  const path = join(dir, 'svc.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return () => rm(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number((await readFile(path, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) {
        throw new Error(`the data directory ${dir} is in use by another svc process (pid ${owner})`, { cause: error });
      }
      await rm(path, { force: true });
    }
  }
  throw new Error(`could not lock the data directory ${dir}`);
}

/** Whether a process with this pid exists (also the test containers' orphan check). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else; it is alive all the same.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
