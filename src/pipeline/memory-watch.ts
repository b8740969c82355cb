// The pipeline process's memory watch (max_rss_mb): its RSS is read on a timer and fed to the input
// hold (input-hold.ts) and to eager collection (eager-collection.ts); each one's start and end are
// logged once, with the level, RSS and budget.
import { collectEagerly } from '../engine/host/heap.js';
import type { Logger } from '../logging/logger.js';
import { EAGER_UNTIL, nextEager } from './eager-collection.js';
import type { InputHold } from './input-hold.js';
import type { Periodic } from './periodic.js';

/** Often enough to hold input before a burst of it fills the rest of the budget; a read costs µs. */
const MEMORY_SAMPLE_MS = 500;

export function watchMemory(
  periodic: Periodic,
  hold: InputHold,
  log: Logger,
  collect: (eager: boolean) => void = collectEagerly,
): void {
  if (!hold.monitored) return;
  let eager = false;
  periodic.every(MEMORY_SAMPLE_MS, async () => {
    const rss = process.memoryUsage.rss();
    const change = hold.observe(rss);
    const sample = hold.sample;
    if (!sample) return;
    const fields = { memory_pressure: sample.levelName, rss_mb: sample.rssMb, budget_mb: sample.budgetMb };
    const measured = `memory pressure ${sample.levelName} (${sample.rssMb} of ${sample.budgetMb} MB)`;
    const nowEager = nextEager(eager, rss, sample.budgetMb);
    if (nowEager !== eager) {
      eager = nowEager;
      collect(eager);
      if (eager)
        log.info(
          fields,
          `${measured}: garbage collected eagerly until memory drops below ${EAGER_UNTIL * 100} % of the budget`,
        );
      else log.info(fields, `${measured}: garbage collected as usual`);
    }
    if (change === 'held')
      log.warn(fields, `${measured}: input held until memory drops below 85 % of the budget (max_rss_mb)`);
    else if (change === 'released') log.info(fields, `${measured}: input released`);
  });
}
