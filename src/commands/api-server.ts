import type { ApiServerConfig } from '../config.js';
import type { Logger } from '../logging/logger.js';
import type { RunningComponent } from './component.js';
import { startManager } from './manager.js';

/** `svc api-server`: the manager's start-up with the API alone (no compiler, no runner). */
export function startApiServer(config: ApiServerConfig, rootLog: Logger): Promise<RunningComponent> {
  return startManager(config, rootLog, { compiler: false });
}
