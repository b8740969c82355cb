import { COMPILER_CHANNEL } from '../store/channels.js';
import type { Database } from '../store/database.js';
import { beat } from '../store/heartbeat.js';
import { claimPending, claimSqlCompiled, type CompileJob } from '../store/compiler/claim.js';
import { releaseClaims, releaseInstance, resetAbandoned } from '../store/compiler/recover.js';
import { storeResult, type Claim, type StageResult } from '../store/compiler/store-result.js';

// Everything the compiler loop does to the outside world, as functions, so the loop is tested
// with real parts and a test can wrap any of them (e.g. to edit a program mid-compilation).

export interface CompilerIo {
  claimPending(instance: string): Promise<CompileJob | undefined>;
  claimSqlCompiled(instance: string): Promise<CompileJob | undefined>;
  storeResult(claim: Claim, result: StageResult): Promise<boolean>;
  /**
   * Refreshes this instance's liveness, puts back the claims it gave up on, and puts claims of
   * dead instances back to Pending (returns their ids).
   */
  heartbeat(instance: string, aliveWithinSecs: number, givenUp: readonly Claim[]): Promise<string[]>;
  release(instance: string): Promise<void>;
  listen(onNotify: () => void): Promise<() => Promise<void>>;
}

export function databaseIo(db: Database): CompilerIo {
  return {
    claimPending: (instance) => claimPending(db, instance),
    claimSqlCompiled: (instance) => claimSqlCompiled(db, instance),
    storeResult: (claim, result) => storeResult(db, claim, result),
    async heartbeat(instance, aliveWithinSecs, givenUp) {
      await beat(db, 'compiler', instance);
      await releaseClaims(db, instance, givenUp);
      return resetAbandoned(db, aliveWithinSecs);
    },
    release: (instance) => releaseInstance(db, instance),
    listen: (onNotify) => db.listen(COMPILER_CHANNEL, () => onNotify()),
  };
}
