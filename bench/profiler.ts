import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

// In the API server process: a V8 CPU profile of exactly one measured run, started and stopped
// by the bench over IPC. `node --cpu-prof` would also profile start-up, seeding and the proof
// phase (one 120 MB list?selector=all among it), which buried the list's own costs.

export type ProfileCommand = { profile: 'start' } | { profile: 'stop'; file: string };

export const isProfileCommand = (m: unknown): m is ProfileCommand =>
  typeof m === 'object' && m !== null && 'profile' in m && (m.profile === 'start' || m.profile === 'stop');

let session: Session | undefined;

/** Runs one command; resolves to the file written by 'stop', or undefined. */
export async function runProfileCommand(command: ProfileCommand): Promise<string | undefined> {
  if (command.profile === 'start') {
    session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    return undefined;
  }
  if (!session) throw new Error('profile stop without start');
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  session = undefined;
  writeFileSync(command.file, JSON.stringify(profile));
  return command.file;
}
